"""Prometheus metrics, when ``ANOTADOR_METRICS`` is on: ``GET /metrics`` in the text format.

What an operator watches, with the names they would look for:

- ``anotador_requests_total`` and ``anotador_request_duration_seconds``:
  every request the app answered (the access log's lines), by route (the
  URL rule, ``/api/v1/games/<game_id>``: never the path, whose ids would
  make a series per game), method and status;
- ``anotador_live_streams``: live streams held; ``anotador_live_refused_total``:
  those refused past a bound (429, 503);
- ``anotador_database_up``: 0 while the database guard's circuit is open
  (:mod:`anotador.store.guard`), and ``anotador_database_circuit_opened_total``;
- ``anotador_advisor_builds_started_total`` and ``anotador_advisor_builds_running``
  (the folder's, whichever worker started them);
- ``anotador_cache_lookups_total``: the kept game bodies, states and
  outlooks, found or not (their hit rate).

A server runs several worker processes, and the scrape reaches one:
``anotador serve`` points ``PROMETHEUS_MULTIPROC_DIR`` at a folder of its
own, emptied at each start, where every worker writes its figures and
from which the one scraped adds them up (prometheus_client's multiprocess
mode). Run another way with several workers, set it yourself.
"""

from __future__ import annotations

import glob
import os
from typing import Any, Callable, Iterable, MutableMapping

from prometheus_client import (CONTENT_TYPE_LATEST, CollectorRegistry, Counter, Gauge, Histogram,
                               disable_created_metrics, generate_latest)
from prometheus_client.core import GaugeMetricFamily
from prometheus_client.multiprocess import MultiProcessCollector, mark_process_dead
from werkzeug.exceptions import HTTPException

#: Where the workers of one server write their figures (prometheus_client reads it at import).
FOLDER = "PROMETHEUS_MULTIPROC_DIR"
#: Seconds: a poll's 304 and a score take a millisecond or two, a turn a few, a printed sheet up to a second.
BUCKETS = (0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0)
#: The route of a request that matches none (a 404 on a path the app does not have).
UNMATCHED = "unmatched"
#: The methods counted by name; any other is "other": a client inventing methods must not add series.
METHODS = frozenset({"GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"})


def prepare_folder(instance: str, environ: MutableMapping[str, str]) -> None:
    """Give the server about to start a folder for its workers' figures (``instance/metrics``, unless
    ``PROMETHEUS_MULTIPROC_DIR`` names one), without the figures of a server that ran before: its files
    (``*.db``, prometheus_client's) are removed, nothing else."""
    folder = environ.get(FOLDER) or os.path.join(instance, "metrics")
    os.makedirs(folder, mode=0o700, exist_ok=True)
    for old in glob.glob(os.path.join(glob.escape(folder), "*.db")):
        os.remove(old)
    environ[FOLDER] = folder


def init_app(app: Any) -> None:
    """Give the app its :class:`Metrics` (``app.extensions["anotador.metrics"]``) and have
    the database guard, the advisor and its caches report to it; the kept reads report as they are made
    (:meth:`anotador.support.lru.LRU.of_app`)."""
    disable_created_metrics()  # a _created series beside each counter: twice the lines, nothing to watch
    metrics = app.extensions["anotador.metrics"] = Metrics(app)
    guard = app.extensions.get("anotador.guard")
    if guard is not None:
        guard.opened = metrics.circuit.inc
    tables = app.extensions.get("anotador.tables")
    if tables is not None:
        tables.building = lambda kind: metrics.builds.labels(kind).inc()
        tables.memory.looked = metrics.cache("advisor_tables")
    outlooks = app.extensions.get("anotador.outlooks")
    if outlooks is not None:
        outlooks.outlooks.looked = metrics.cache("outlooks")


class Metrics:
    """One app's metrics: what its requests, streams, database guard, advisor and caches report."""

    def __init__(self, app: Any) -> None:
        self.app = app
        self.shared = bool(os.environ.get(FOLDER))
        # shared: the figures go to the folder, and a scrape reads every worker's there; else this app's own
        own = None if self.shared else CollectorRegistry()
        self.own = own
        self.requests = Counter("anotador_requests", "Requests answered, by route, method and status.",
                                ["route", "method", "status"], registry=own)
        self.duration = Histogram("anotador_request_duration_seconds",
                                  "Seconds from a request's first byte to its answer's last, by route and method.",
                                  ["route", "method"], buckets=BUCKETS, registry=own)
        self.streams = Gauge("anotador_live_streams", "Live streams held.", registry=own,
                             multiprocess_mode="livesum")
        self.refused = Counter("anotador_live_refused", "Live streams refused past a bound, by status.",
                               ["status"], registry=own)
        self.circuit = Counter("anotador_database_circuit_opened",
                               "Times a worker found the database unreachable and opened its circuit.", registry=own)
        self.builds = Counter("anotador_advisor_builds_started", "Advisor builds started, by kind.", ["kind"],
                              registry=own)
        self.lookups = Counter("anotador_cache_lookups", "Lookups in the kept game bodies, states and outlooks, "
                               "by cache and whether the entry was kept.", ["cache", "result"], registry=own)
        self.content_type = CONTENT_TYPE_LATEST
        self._routes = app.url_map.bind("localhost")
        self.now = Now(app)
        if own is not None:
            own.register(self.now)

    # -- what the parts of the app report

    def answered(self, method: str, path: str, status: int, seconds: float) -> None:
        """A request answered (the access log's line)."""
        route = self.route(method, path)
        if method not in METHODS:
            method = "other"
        self.requests.labels(route, method, str(status)).inc()
        self.duration.labels(route, method).observe(seconds)

    def route(self, method: str, path: str) -> str:
        """The URL rule ``path`` matches (``/api/v1/games/<game_id>``), or :data:`UNMATCHED`."""
        try:
            rule, _ = self._routes.match(path, method, return_rule=True)
        except HTTPException:  # not found, method not allowed, a redirect for a missing slash
            return UNMATCHED
        return rule.rule

    def cache(self, name: str) -> Callable[[bool], None]:
        """What a cache calls on each lookup: True when the entry was kept."""
        hit, miss = self.lookups.labels(name, "hit"), self.lookups.labels(name, "miss")
        return lambda kept: (hit if kept else miss).inc()

    # -- the scrape

    def exposition(self) -> bytes:
        """The text a scrape gets: every worker's figures (shared) or this app's, and what is read now."""
        if self.own is not None:
            return generate_latest(self.own)
        registry = CollectorRegistry()
        MultiProcessCollector(registry)
        registry.register(self.now)
        return generate_latest(registry)

    def gone(self) -> None:
        """This worker stops: its live figures (the streams it held) no longer count."""
        if self.shared:
            mark_process_dead(os.getpid())


class Now:
    """What is read at the scrape rather than counted: the database circuit as this worker sees it, and the
    advisor's builds under way in its folder (every worker's)."""

    def __init__(self, app: Any) -> None:
        self.app = app

    def collect(self) -> Iterable[GaugeMetricFamily]:
        guard = self.app.extensions.get("anotador.guard")
        yield GaugeMetricFamily("anotador_database_up", "0 while the database guard's circuit is open, else 1.",
                                value=0 if guard is not None and guard.down else 1)
        tables = self.app.extensions.get("anotador.tables")
        if tables is not None:
            yield GaugeMetricFamily("anotador_advisor_builds_running", "Advisor builds under way in the folder.",
                                    value=len(tables.under_way()))
