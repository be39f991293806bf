"""Prometheus metrics (``ANOTADOR_METRICS``, anotador/ops/metrics.py) and the JSON access log.

The figures are read back as Prometheus reads them (prometheus_client's
own parser), from a real ``scripts/serve`` with two workers: whichever
worker a scrape reaches must report every worker's requests.
"""

from __future__ import annotations

import importlib.util
import json
import os
import re
import socket
import threading
import time
from pathlib import Path

import pytest
from prometheus_client.parser import text_string_to_metric_families

from anotador import create_app
from anotador.settings import SettingsError
from anotador.store.guard import Guard
from anotador.support.lru import LRU
from bench._http import request
from tests.test_serving import proc_log, serve


def samples(text: str) -> dict[tuple[str, tuple], float]:
    """Every sample of a scrape: (name, sorted labels) -> value."""
    return {(s.name, tuple(sorted(s.labels.items()))): s.value
            for family in text_string_to_metric_families(text) for s in family.samples}


def scrape(port: int) -> dict[tuple[str, tuple], float]:
    status, headers, body = request(port, "GET", "/metrics")
    assert status == 200 and headers["content-type"].startswith("text/plain"), body
    return samples(body.decode())


def value(found: dict, name: str, **labels: str) -> float:
    return found.get((name, tuple(sorted(labels.items()))), 0.0)


def test_metrics_are_off_unless_asked(tmp_path):
    app = create_app({"TESTING": True, "SQLALCHEMY_DATABASE_URI": f"sqlite:///{tmp_path / 'off.sqlite'}",
                      "SOLVER_BUILD_AHEAD": False})
    answer = app.test_client().get("/metrics")
    assert answer.status_code == 404 and answer.content_type == "application/problem+json"
    assert "ANOTADOR_METRICS" in answer.json["detail"]
    assert "anotador.metrics" not in app.extensions


@pytest.mark.parametrize(("config", "says"), [
    ({"LOG_FORMAT": "xml"}, "ANOTADOR_LOG_FORMAT must be text or json, not 'xml'."),
    ({"METRICS": "yes please"}, "ANOTADOR_METRICS must be true or false"),
])
def test_a_wrong_word_is_refused_naming_what_it_takes(tmp_path, config, says):
    with pytest.raises(SettingsError, match=re.escape(says)):
        create_app({"TESTING": True, "SQLALCHEMY_DATABASE_URI": f"sqlite:///{tmp_path / 'x.sqlite'}", **config})


def test_metrics_without_prometheus_client_name_the_extra(tmp_path, monkeypatch):
    real = importlib.util.find_spec
    monkeypatch.setattr(importlib.util, "find_spec", lambda name, *a: None if name == "prometheus_client"
                        else real(name, *a))
    with pytest.raises(SettingsError, match=re.escape("pip install 'anotador[metrics]'")):
        create_app({"TESTING": True, "SQLALCHEMY_DATABASE_URI": f"sqlite:///{tmp_path / 'x.sqlite'}",
                    "METRICS": True})


def test_what_a_client_sends_never_adds_series(tmp_path):
    """Labels come from the app, not the request: the route is the URL rule (ids and unknown paths fold into
    one), and a method the app does not know is "other", however many a client invents."""
    app = create_app({"TESTING": True, "SQLALCHEMY_DATABASE_URI": f"sqlite:///{tmp_path / 'm.sqlite'}",
                      "SOLVER_BUILD_AHEAD": False, "METRICS": True})
    metrics = app.extensions["anotador.metrics"]
    for n in range(200):
        metrics.answered(f"BREW{n}", f"/api/v1/games/{n:024x}", 405, 0.001)
        metrics.answered("GET", f"/no/such/{n}", 404, 0.001)
    found = samples(metrics.exposition().decode())
    counted = {labels for name, labels in found if name == "anotador_requests_total"}
    assert counted == {(("method", "other"), ("route", "unmatched"), ("status", "405")),  # no rule takes BREW
                       (("method", "GET"), ("route", "unmatched"), ("status", "404"))}
    assert value(found, "anotador_requests_total", method="other", route="unmatched", status="405") == 200


def test_a_cache_reports_each_lookup_once_and_the_guard_each_opening():
    looked: list[bool] = []
    cache: LRU[str, int] = LRU(2)
    cache.looked = looked.append
    assert cache.get("a") is None
    assert cache.get_or_make("a", lambda: 1) == 1
    assert cache.get_or_make("a", lambda: 2) == 1 and cache.get("a") == 1
    assert looked == [False, False, True, True]

    opened = []
    guard = Guard(probe=lambda: (_ for _ in ()).throw(OSError("no answer")), suspect=0.0)
    guard.opened = lambda: opened.append(True)
    with socket.socket() as held:
        guard.in_use[1] = (held.fileno(), time.monotonic() - 1)
        guard.look()
        guard.last_probe = 0.0
        guard.look()  # still down: not a second opening
    assert guard.down and opened == [True]


def test_every_worker_s_figures_add_up_and_the_access_log_is_json(tmp_path):
    """scripts/serve with two workers: a scrape, whichever worker answers it, counts every request of both
    (by route, never by path), the stream held and the caches; each line it writes is one JSON object."""
    env = {"ANOTADOR_METRICS": "true", "ANOTADOR_LOG_FORMAT": "json", "WORKERS": "2",
           "ANOTADOR_HOME": str(tmp_path / "home"), "ANOTADOR_SOLVER_BUILD_AHEAD": "false"}
    stale = tmp_path / "home" / "metrics"
    stale.mkdir(parents=True)
    (stale / "counter_1.db").write_bytes(b"a server that ran before")
    (stale / "notes.txt").write_text("not prometheus_client's")
    with serve(tmp_path, env=env) as (proc, port):
        folder = tmp_path / "home" / "metrics"
        assert not (folder / "counter_1.db").exists() and (folder / "notes.txt").exists()
        status, _, game = request(port, "POST", "/api/v1/games", {"variant": "generala", "players": ["Ana", "Beto"]})
        assert status == 201
        path = f"/api/v1/games/{game['id']}"
        sent = {"read": 0}
        lock = threading.Lock()

        def read(n: int) -> None:
            for _ in range(n):
                assert request(port, "GET", path)[0] == 200
                with lock:
                    sent["read"] += 1

        deadline = time.monotonic() + 120
        while True:  # reads until both workers have served (the start's and the creation's may have done that)
            threads = [threading.Thread(target=read, args=(10,)) for _ in range(4)]
            for t in threads:
                t.start()
            for t in threads:
                t.join()
            if len({p.name.split("_")[-1] for p in folder.glob("histogram_*.db")}) == 2:
                break
            assert time.monotonic() < deadline, "every request went to one worker"
        assert request(port, "GET", "/api/v1/games/nope")[0] == 404
        assert request(port, "GET", "/no/such/page")[0] == 404
        stream = socket.create_connection(("127.0.0.1", port))
        stream.sendall(f"GET {path}/events HTTP/1.1\r\nHost: 127.0.0.1\r\nAccept: text/event-stream\r\n\r\n".encode())
        assert b"200" in stream.recv(4096).split(b"\r\n")[0]
        try:
            for _ in range(4):  # several scrapes, answered by either worker: each has the whole
                found = scrape(port)
                route = "/api/v1/games/<game_id>"
                assert value(found, "anotador_requests_total", route=route, method="GET", status="200") == sent["read"]
                assert value(found, "anotador_requests_total", route=route, method="GET", status="404") == 1
                assert value(found, "anotador_requests_total", route="unmatched", method="GET", status="404") == 1
                assert value(found, "anotador_requests_total", route="/api/v1/games", method="POST",
                             status="201") == 1
                assert value(found, "anotador_request_duration_seconds_count", route=route,
                             method="GET") == sent["read"] + 1
                assert value(found, "anotador_live_streams") == 1
                assert value(found, "anotador_database_up") == 1
                assert value(found, "anotador_cache_lookups_total", cache="bodies", result="hit") > 0, [(k, v) for k, v in found.items() if "cache" in k[0]]
                assert not any(game["id"] in str(labels) for _, labels in found)  # routes, never paths
        finally:
            stream.close()
        deadline = time.monotonic() + 30
        while "/api/v1/games/nope" not in proc_log(proc) and time.monotonic() < deadline:
            time.sleep(0.1)
        log = proc.log_path.read_text(encoding="utf-8")
    written = [line for line in log.splitlines() if line.strip()]
    first = next(i for i, line in enumerate(written) if line.startswith('{"time"'))  # before: pip, installing extras
    lines = [json.loads(line) for line in written[first:]]  # every line the server writes is one object
    said = {(line.get("logger") or "access").split(".")[0] for line in lines}
    assert {"alembic", "anotador", "_granian", "access"} <= said, said  # the migrations, the listening line, granian
    assert any(line.get("logger") == "anotador.serve" and "listening" in line["message"] for line in lines)
    lines = [line for line in lines if "method" in line]
    created = next(line for line in lines if line["method"] == "POST")
    assert created["status"] == 201 and created["target"] == "/api/v1/games" and created["protocol"] == "HTTP/1.1"
    assert re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z", created["time"])
    assert re.fullmatch(r"[0-9a-f]{16}", created["id"]) and isinstance(created["ms"], int)
    assert len([line for line in lines if line["target"] == path]) == sent["read"]


def test_json_logs_carry_the_apps_own_warnings_and_errors_too(monkeypatch):
    """With ANOTADOR_LOG_FORMAT=json a worker's own lines (a feed that lost its database, a failed request) are
    JSON objects too, an error's traceback inside its object: every line a shipper reads is one object."""
    import io
    import logging
    import sys

    from anotador.ops import gate

    written = io.StringIO()
    monkeypatch.setattr(sys, "stderr", written)
    app, before = logging.getLogger("anotador"), list(logging.getLogger("anotador").handlers)
    monkeypatch.setattr(app, "propagate", app.propagate)
    monkeypatch.setattr(app, "disabled", False)
    access = logging.getLogger("anotador.access")
    monkeypatch.setattr(access, "handlers", [])
    try:
        gate.log_to_stderr("json")
        gate.log_to_stderr("json")  # a second worker's set-up in one process adds nothing
        logging.getLogger("anotador.live.feeds").warning("lost the database: %s", "reconnecting")
        try:
            1 / 0
        except ZeroDivisionError:
            logging.getLogger("anotador.ops.bridge").exception("the app failed to answer %s", "GET /x")
    finally:
        for handler in app.handlers:
            if handler not in before:
                app.removeHandler(handler)
    lines = [json.loads(line) for line in written.getvalue().splitlines()]
    assert [(line["level"], line["logger"], line["message"]) for line in lines] == [
        ("warning", "anotador.live.feeds", "lost the database: reconnecting"),
        ("error", "anotador.ops.bridge", "the app failed to answer GET /x")]
    assert "ZeroDivisionError" in lines[1]["exception"] and "exception" not in lines[0]
    assert all(re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z", line["time"]) for line in lines)
