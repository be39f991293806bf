"""The advisor's tables: built once per rule set, in the background, kept on disk and in memory.

A table is keyed by its rule set's canonical form and the solver's version,
and stored as ``<SOLVER_DIR>/<key>.table`` (default: the instance folder's
``solver/``; the folder's format is :mod:`anotador.solver.folder`): a
restart, or another app server sharing the folder, reads it instead of
building it again. In memory, the tables last used stay (an LRU of
``SOLVER_TABLES`` tables), mapped from disk so the workers of one server
share their pages.

A table is built by a process of its own (:mod:`anotador.solver.build`),
never by a request: a request for a table not built yet gets
:class:`TableBuilding` (503 with a Retry-After measured from this folder's
last builds).

The built-in variants' tables are built ahead, when the app starts
(``SOLVER_BUILD_AHEAD``) or by ``flask --app wsgi advice`` at deploy, and
are never pruned. Anybody can send house rules, so every other build is
bounded: ``SOLVER_BUILDS`` at a time for the whole folder, and per client
address ``SOLVER_CLIENT_BUILDS`` at a time and ``SOLVER_CLIENT_BUILDS_PER_HOUR``
an hour (past those: :class:`TooManyBuilds`, 429). A stored game's rule set
(its analysis) takes the place of a build sent anonymously when none is
free; a build nobody asks for any more stops. The folder keeps the
``SOLVER_KEEP`` tables used last besides the built-in ones, and within
``SOLVER_DISK_BYTES`` (:meth:`Tables._make_room`): a build starts only once
the files there, the builds under way at their most and its own fit, the
house rules' files used least lately removed to make room.
"""

from __future__ import annotations

import collections
import json
import logging
import math
import os
import re
import subprocess
import sys
import threading
import time
from typing import Callable, Mapping

from flask import current_app

from ..http.headers import Quota
from ..rules import RuleSet
from ..solver import Solver
from ..solver import folder as store
from ..solver.build import ABANDONED, BUILT, BUSY, OUTCOMES, ahead_files, build, builtin_rules, kind_of, \
    outcomes_kind
from ..solver.folder import key_of
from ..support.lru import LRU
from .builds import FolderFull, Spawned, Table, TableBuilding, TooManyBuilds, build_bytes, read_or_set_aside, \
    retry_after

log = logging.getLogger(__name__)

#: A rule set's key, as its files in the folder start (:func:`~.solver.folder.key_of`).
KEY = re.compile(r"[0-9a-f]{24}")
#: Clients whose builds of the last hour each worker remembers (the newest).
CLIENTS_KEPT = 10_000
#: Seconds between two prunings of the folder at most, while requests come (a load prunes it too).
PRUNE_EVERY = 300
#: Outcomes files the folder keeps besides the built-in variants': 300 MB each for Yahtzee's house rules.
OUTCOMES_KEPT = 4


class Tables:
    """One app's tables: memory (an LRU) in front of a folder, and the builds under way (the outcomes' too:
    :mod:`anotador.advisor.outlooks` asks for them)."""

    def __init__(self, folder: str, capacity: int = 8, builds: int = 2, keep: int = 100, per_client: int = 1,
                 per_hour: int = 20, ahead: bool = True, outcomes_ahead: bool = True, disk: int = 4 << 30) -> None:
        self.folder = folder
        self.disk = max(1, disk)
        self.capacity = max(1, capacity)
        self.max_builds = max(1, builds)
        self.keep = max(1, keep)
        self.per_client = max(1, per_client)
        self.per_hour = max(1, per_hour)
        self.ahead = ahead
        self.outcomes_ahead = outcomes_ahead
        self.memory: LRU[str, Table] = LRU(self.capacity)
        self.builds: dict[str, Spawned] = {}
        self.ahead_process: subprocess.Popen | None = None
        self.lock = threading.Lock()
        self.pruned = time.monotonic()  # when the folder was last pruned: at least every PRUNE_EVERY seconds
        #: client → when its builds of the last hour started (this worker's)
        self.started: LRU[str, collections.deque] = LRU(CLIENTS_KEPT)
        self.scores: dict[str, float] = {}
        self.missing: set[str] = set()  # keys with no table, as the folder stood at missing_stamp
        self.missing_stamp = 0
        self._builtin: dict[str, RuleSet] | None = None
        #: Called with "table" or "outcomes" as each build starts (the metrics count them).
        self.building: Callable[[str], object] = lambda kind: None

    @property
    def builtin(self) -> dict[str, RuleSet]:
        """The built-in variants' rule sets by key, the quickest to build first: built ahead, never pruned."""
        if self._builtin is None:
            self._builtin = {key_of(r): r for r in builtin_rules()}  # in the order they are built ahead
        return self._builtin

    def path(self, key: str) -> str:
        return store.table_path(self.folder, key)

    def peek(self, rules: RuleSet) -> Table | None:
        """The table if it is built (in memory or on disk); never starts a build."""
        key = key_of(rules)
        table = self.memory.get(key)
        if table is not None:
            return table
        return self._load(key, rules)

    def expected_score(self, rules: RuleSet) -> float | None:
        """The empty sheet's expected score, if the table was built (read from its small summary file)."""
        key = key_of(rules)
        if key in self.scores:
            return self.scores[key]
        # Missing tables are looked for again only when the folder changed (a file came or went):
        # one stat per request, not one failed open per variant.
        try:
            stamp = os.stat(self.folder).st_mtime_ns
        except OSError:
            return None
        if stamp != self.missing_stamp:
            self.missing, self.missing_stamp = set(), stamp
        if key in self.missing:
            return None
        try:
            with open(os.path.join(self.folder, key + ".json")) as f:
                value = float(json.load(f)["expected_score"])
        except (OSError, ValueError, KeyError, TypeError):
            self.missing.add(key)
            return None
        self.scores[key] = value
        return value

    def get(self, rules: RuleSet, client: str | Callable[[], str] | None = None, game: bool = False) -> Table:
        """The table for these rules; else :class:`TableBuilding` (a build runs, started now if allowed).

        ``client`` (a keyed hash of the address, or what makes it: only a
        build needs it) is charged for a build it starts; ``game``: the
        rules are a stored game's, which outrank rules sent anonymously.
        """
        self._reap()
        table = self.peek(rules)
        if table is not None:
            return table
        if callable(client):
            client = client()
        key = key_of(rules)
        under_way = self.under_way()
        running = under_way.get(key)
        if running is None:  # a build that ended since the first look is done, not one to start (and charge)
            table = self.peek(rules)
            if table is not None:
                return table
        else:
            wait = retry_after(self.left(running))
            if not running.builtin:
                store.want(store.lock_path(self.folder, key), time.time() + wait + store.GRACE_SECONDS)
            raise TableBuilding(wait)
        if key in self.builtin:
            raise TableBuilding(self._builtin_wait(rules, key, under_way))
        with self.lock:
            self._may_start(client, game, self._charged(under_way), rules)
            self._make_room(build_bytes(kind_of(rules), store.states_of(rules)), under_way)
            self._spawn(rules, key, client, game, builtin=False)
            self._started(client)
        raise TableBuilding(retry_after(self._estimate(rules)))

    def _started(self, client: str | None) -> None:
        """A build started for ``client``: one more of its builds this hour."""
        if client is not None:
            started = self.started.get(client) or collections.deque()
            started.append(time.time())
            self.started.put(client, started)

    def build_now(self, rules: RuleSet, wait: float = 600) -> Table:
        """Build the table here and now (the command line, tests); wait for another process building it."""
        deadline = time.monotonic() + wait
        while True:
            table = self.peek(rules)
            if table is not None:
                return table
            if build(rules.spec(), self.path(key_of(rules))) == BUSY:
                if time.monotonic() > deadline:
                    raise TableBuilding(retry_after(self._estimate(rules)))
                time.sleep(0.2)

    def build_ahead(self) -> bool:
        """Start building the missing built-in tables (and the Yahtzee family's outcomes: build.ahead_files) in the
        background; False when none is missing or it runs."""
        if all(os.path.exists(path) for _, path, _ in ahead_files(self.folder, self.outcomes_ahead)):
            return False
        os.makedirs(self.folder, exist_ok=True)
        lock_path = os.path.join(self.folder, store.AHEAD)
        fd = store.take(lock_path)
        if fd is None:
            return False  # another process builds them
        try:
            # the plan, for the Retry-After of a request that comes before the child has written its own
            store.write(fd, {"pid": None, "plan": [key for key in self.builtin if not os.path.exists(self.path(key))]})
            # The child inherits the lock (one open file, so one flock) and removes it when done.
            self.ahead_process = self._run(["--ahead" if self.outcomes_ahead else "--ahead-tables", self.folder, str(fd)],
                                           pass_fds=(fd,))
        finally:
            os.close(fd)
        log.info("building the built-in variants' advisor tables ahead, in %s", self.folder)
        return True

    def start_outcomes(self, rules: RuleSet, client: str | None, game: bool, under_way: dict[str, store.Build],
                       estimate: float) -> None:
        """Start the build of these rules' outcomes file (:class:`~anotador.solver.sampled.SampledOutlook`'s), charged
        like a table build: to the address, and counted among the builds under way; the folder runs one at a time.
        :class:`TableBuilding` when its place is taken."""
        key = key_of(rules) + OUTCOMES
        with self.lock:
            if key in self.builds:
                return
            self._may_start(client, game, self._charged(under_way), rules)
            self._make_room(build_bytes(outcomes_kind(rules), store.states_of(rules)), under_way)
            # the folder's one place, taken before the builder starts (which inherits it): two servers, or
            # two workers, asked at the same moment start one build, not two
            slot = store.take(os.path.join(self.folder, store.OUTCOMES_SLOT))
            if slot is None:
                raise TableBuilding(retry_after(estimate))
            try:
                self._spawn_outcomes(rules, key, client, slot)
            finally:
                os.close(slot)
            self._started(client)

    # -- inside ---------------------------------------------------------------

    def _spawn_outcomes(self, rules: RuleSet, key: str, client: str | None, slot: int) -> None:
        log.info("following every state's turn of %s into its outcomes (%s)", rules.variant.id, key)
        spawned = time.time()
        process = self._run(["--outcomes", json.dumps(rules.spec()), self.path(key_of(rules)), repr(spawned),
                             client or ""], pass_fds=(slot,))
        self.builds[key] = Spawned(process, store.Build(key, spawned, store.states_of(rules), outcomes_kind(rules),
                                                        client, True, True, spawned + 3600))
        self.building("outcomes")

    @staticmethod
    def _charged(under_way: Mapping[str, store.Build]) -> list[store.Build]:
        """The builds that count against an address and the folder's total: house rules' tables, and every
        outcomes build (built-in rules' too: a client asked for it)."""
        return [b for k, b in under_way.items() if not b.builtin or k.endswith(OUTCOMES)]

    def _prune_outcomes(self, names: list[str]) -> list[str]:
        """Remove the outcomes files past :data:`OUTCOMES_KEPT` (the used last kept) besides the built-in
        variants'; the table files' names left."""
        suffix = OUTCOMES + store.TABLE
        builtin = {key + suffix for key in self.builtin}
        mine = [n for n in names if n.endswith(suffix) and n not in builtin]
        if len(mine) > OUTCOMES_KEPT:
            for name in sorted(mine, key=lambda n: os.path.getmtime(os.path.join(self.folder, n)))[:-OUTCOMES_KEPT]:
                try:
                    os.remove(os.path.join(self.folder, name))
                except OSError:
                    pass
        return [n for n in names if not n.endswith(suffix)]

    def under_way(self) -> dict[str, store.Build]:
        """Every build under way in the folder, and this worker's just started, by key."""
        found = {b.key: b for b in store.builds(self.folder)}
        for key, spawned in list(self.builds.items()):
            found.setdefault(key, spawned.build)
        # a builder that has just put its table in place is done, though its process is still ending
        return {key: b for key, b in found.items() if not os.path.exists(self.path(key))}

    def _may_start(self, client: str | None, game: bool, under_way: list[store.Build], rules: RuleSet) -> None:
        """Refuse a build past the client's share (429) or with no place free (503); make a place for a game."""
        mine = [b for b in under_way if client is not None and b.client == client]
        if len(mine) >= self.per_client:
            wait = retry_after(min(self.left(b) for b in mine))
            raise TooManyBuilds(f"This address already has {len(mine)} of the advisor's tables being built; "
                                f"ask again when it is done, in {wait} s.", wait,
                                Quota("builds", self.per_client, wait, 0, wait))
        hour = self.started.get(client) if client is not None else None
        if hour:
            while hour and hour[0] < time.time() - 3600:
                hour.popleft()
            if len(hour) >= self.per_hour:
                wait = max(1, math.ceil(hour[0] + 3600 - time.time()))
                raise TooManyBuilds(f"This address had {len(hour)} of the advisor's tables built in the last hour; "
                                    f"the next in {wait} s.", wait, Quota("builds-hour", self.per_hour, 3600, 0, wait))
        if len(under_way) < self.max_builds:
            return
        anonymous = [b for b in under_way if not b.game]
        if not game or not anonymous:
            raise TableBuilding(retry_after(min(self.left(b) for b in under_way) + self._estimate(rules)))
        victim = max(anonymous, key=lambda b: b.started)  # the least work lost
        log.info("stopping the advisor's build %s for a stored game's", victim.key)
        store.want(store.lock_path(self.folder, victim.key), 1)  # its builder stops within a second

    def _make_room(self, need: int, under_way: dict[str, store.Build]) -> None:
        """Make room for a new build of ``need`` bytes at most within :attr:`disk`: the folder's files, and every
        build under way at its most (:func:`~.builds.build_bytes`), with the house rules' files used least
        lately removed as long as they do not fit. Else
        :class:`TableBuilding` when builds under way hold the room, :class:`FolderFull` when they do not."""
        reserved = sum(build_bytes(b.kind, b.states) for b in under_way.values())
        busy = {key.removesuffix(OUTCOMES) for key in under_way}
        used, removable = 0, []
        try:
            entries = list(os.scandir(self.folder))
        except OSError:
            entries = []
        for entry in entries:
            key = entry.name.split(".", 1)[0]
            try:
                info = entry.stat()
            except OSError:
                continue
            if key in busy and ".tmp" in entry.name:
                continue  # a build under way's own, counted at its most above
            used += info.st_size
            if KEY.fullmatch(key) and key not in busy and key not in self.builtin and entry.name in (
                    key + store.TABLE, key + OUTCOMES + store.TABLE, key + ".json"):
                removable.append((info.st_mtime, info.st_size, entry.path))
        removable.sort()
        while used + reserved + need > self.disk and removable:
            _, size, path = removable.pop(0)
            try:
                os.remove(path)
                used -= size
            except OSError:
                pass
        if used + reserved + need <= self.disk:
            return
        log.warning("the advisor's folder %s has no room for a build of %d bytes within %d (%d used, %d under way)",
                    self.folder, need, self.disk, used, reserved)
        if under_way:
            raise TableBuilding(retry_after(min(self.left(b) for b in under_way.values())))
        raise FolderFull(f"The server's room for the advisor's tables ({self.disk} bytes) is taken by the built-in "
                         f"variants'; these rules need {need} bytes more.")

    def _builtin_wait(self, rules: RuleSet, key: str, under_way: dict[str, store.Build]) -> int:
        """A built-in table not built yet: built ahead (started now if need be); how long until it is."""
        if self.ahead:
            self.build_ahead()
        plan = self._ahead_plan()
        if plan is not None and key in plan:  # the tables before it in the plan, then it
            waits = [self.left(under_way[k]) if k in under_way else self._estimate(self.builtin[k])
                     for k in plan[:plan.index(key) + 1] if not os.path.exists(self.path(k))]
            return retry_after(sum(waits))
        with self.lock:
            if key not in self.builds:
                self._spawn(rules, key, None, False, builtin=True)
        return retry_after(self._estimate(rules))

    def _ahead_plan(self) -> list[str] | None:
        found = store.read(os.path.join(self.folder, store.AHEAD))
        if found is None:
            return None
        plan = found[0].get("plan")
        return [k for k in plan if isinstance(k, str) and k in self.builtin] if isinstance(plan, list) else []

    def _estimate(self, rules: RuleSet) -> float:
        return store.seconds_left(self.folder, kind_of(rules), store.states_of(rules))

    def left(self, running: store.Build) -> float:
        return store.build_left(self.folder, running)

    def _reap(self) -> None:
        """Forget the builds that ended (a failed one is logged, and tried again when asked for); prune the folder
        if it was not pruned for :data:`PRUNE_EVERY` seconds (files no load would otherwise prune)."""
        if time.monotonic() - self.pruned > PRUNE_EVERY:
            self.prune()
        if self.ahead_process is not None and self.ahead_process.poll() is not None:
            if self.ahead_process.returncode not in (BUILT, BUSY):
                log.error("building the built-in advisor tables ahead failed (exit %s)", self.ahead_process.returncode)
            self.ahead_process = None
        if not self.builds:
            return
        with self.lock:
            for key, spawned in list(self.builds.items()):
                code = spawned.process.poll()
                if code is None:
                    continue
                del self.builds[key]
                if code not in (BUILT, BUSY, ABANDONED):
                    log.error("building the advisor's table %s failed (exit %s)", key, code)

    def _load(self, key: str, rules: RuleSet) -> Table | None:
        values = read_or_set_aside(self.path(key), lambda path: store.read_table(path, rules), "the advisor's table")
        if values is None:
            return None
        table = Table(Solver(rules), values)
        self.memory.put(key, table)
        self.prune()
        return table

    def _spawn(self, rules: RuleSet, key: str, client: str | None, game: bool, builtin: bool) -> None:
        log.info("building the advisor's table %s for %s", key, rules.variant.id)
        args = [json.dumps(rules.spec()), self.path(key)]
        if not builtin:
            args += [client or "", "game" if game else "anonymous"]
        spawned = time.time()
        process = self._run([*args, repr(spawned)])
        self.builds[key] = Spawned(process, store.Build(key, spawned, store.states_of(rules), kind_of(rules),
                                                        client, game, builtin, spawned + 3600))
        self.building("table")

    @staticmethod
    def _run(args: list[str], pass_fds: tuple[int, ...] = ()) -> subprocess.Popen:
        # One BLAS thread: the build takes one core and leaves the others to requests.
        env = {**os.environ, "OPENBLAS_NUM_THREADS": "1", "OMP_NUM_THREADS": "1", "MKL_NUM_THREADS": "1"}
        root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
        env["PYTHONPATH"] = root + os.pathsep + env.get("PYTHONPATH", "")
        return subprocess.Popen([sys.executable, "-m", "anotador.solver.build", *args], env=env,
                                stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=None,
                                close_fds=True, pass_fds=pass_fds)

    def prune(self) -> None:
        """Keep the ``keep`` tables used last on disk besides the built-in ones; remove the others and dead locks."""
        self.pruned = time.monotonic()
        store.remove_stale(self.folder)
        try:
            names = [n for n in os.listdir(self.folder) if n.endswith(store.TABLE) and
                     n[:-len(store.TABLE)].removesuffix(OUTCOMES) not in self.builtin]
        except OSError:
            return
        names = self._prune_outcomes(names)
        if len(names) <= self.keep:
            return
        paths = sorted((os.path.join(self.folder, n) for n in names), key=os.path.getmtime)
        for path in paths[:len(paths) - self.keep]:
            for name in (path, path[:-len(store.TABLE)] + ".json"):
                try:
                    os.remove(name)
                except OSError:
                    pass


def tables() -> Tables:
    """The current app's tables."""
    return current_app.extensions["anotador.tables"]
