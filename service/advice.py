"""The advisor's tables: built once per rule set, in the background, kept on disk and in memory.

A table is keyed by its rule set's canonical form and the solver's version,
and stored as ``<SOLVER_DIR>/<key>.npy`` (default: the instance folder's
``solver/``): a restart, or another app server sharing the folder, reads it
instead of building it again. In memory, the tables last used stay (an LRU
of ``SOLVER_TABLES`` tables), mapped from disk so the workers of one server
share their pages.

A table not built yet is built by a process of its own
(:mod:`service.solver.build`), never by a request: the request that asks
for it gets :class:`TableBuilding` (503 with Retry-After) and so does every
request until the table is on disk. House rules make any number of rule
sets, so builds and tables are bounded: ``SOLVER_BUILDS`` builds at a time
per worker (a request beyond that waits its turn, with a 503 too), and the
folder keeps the ``SOLVER_KEEP`` tables used last.
"""

from __future__ import annotations

import fcntl
import hashlib
import json
import logging
import math
import os
import subprocess
import sys
import threading
import time
import weakref
from typing import NamedTuple

import numpy as np
from flask import Flask, current_app

from .lru import LRU
from .rules import RuleSet
from .solver import SOLVER_VERSION, Solver, Space

log = logging.getLogger(__name__)

#: States a build gets through per second on this kind of machine (a
#: Yahtzee table: a million states in about 16 s): for Retry-After.
STATES_PER_SECOND = 60_000


class TableBuilding(Exception):
    """The table for these rules is being built: ask again in ``retry_after`` seconds."""

    def __init__(self, retry_after: int):
        super().__init__(f"The advisor's table for these rules is being built; ask again in {retry_after} s.")
        self.retry_after = retry_after


class Table(NamedTuple):
    solver: Solver
    values: np.ndarray


#: Rule sets are built once per set of options and shared: their keys too.
_keys: "weakref.WeakKeyDictionary[RuleSet, str]" = weakref.WeakKeyDictionary()


def key_of(rules: RuleSet) -> str:
    """A rule set's table name: its canonical form and the solver's version, hashed."""
    key = _keys.get(rules)
    if key is None:
        canonical = json.dumps({"rules": rules.spec(), "solver": SOLVER_VERSION}, sort_keys=True,
                               separators=(",", ":"))
        key = _keys[rules] = hashlib.sha256(canonical.encode()).hexdigest()[:24]
    return key


class Tables:
    """One app's tables: memory (an LRU) in front of a folder, and the builds under way."""

    def __init__(self, folder: str, capacity: int = 8, builds: int = 1, keep: int = 100) -> None:
        self.folder = folder
        self.capacity = max(1, capacity)
        self.max_builds = max(1, builds)
        self.keep = max(1, keep)
        self.memory: LRU[str, Table] = LRU(self.capacity)
        self.builds: dict[str, tuple[subprocess.Popen, float, int]] = {}  # process, start, states
        self.lock = threading.Lock()
        self.scores: dict[str, float] = {}
        self.missing: set[str] = set()  # keys with no table, as the folder stood at missing_stamp
        self.missing_stamp = 0

    def path(self, key: str) -> str:
        return os.path.join(self.folder, key + ".npy")

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

    def get(self, rules: RuleSet) -> Table:
        """The table for these rules, or :class:`TableBuilding` while a build (started now if need be) runs."""
        self._reap()
        table = self.peek(rules)
        if table is not None:
            return table
        key = key_of(rules)
        with self.lock:
            running = self.builds.get(key)
            if running is not None:
                raise TableBuilding(self._retry_after(rules, running[1]))
            started = self._other_build(key)
            if started is None:
                if len(self.builds) >= self.max_builds:
                    # Wait for a build slot: the running builds' time, then this one's.
                    wait = max(self._retry_after_states(b[2], b[1]) for b in self.builds.values())
                    raise TableBuilding(min(120, wait + self._retry_after(rules, time.time())))
                self.builds[key] = (self._spawn(rules, key), time.time(), Space(rules).size)
                started = time.time()
        raise TableBuilding(self._retry_after(rules, started))

    def _reap(self) -> None:
        """Forget the builds that ended (a failed one is logged, and tried again when asked for)."""
        with self.lock:
            for key, (process, _, _) in list(self.builds.items()):
                if process.poll() is not None:
                    del self.builds[key]
                    if process.returncode not in (0, 3):
                        log.error("building the advisor's table %s failed (exit %s)", key, process.returncode)

    def build_now(self, rules: RuleSet) -> Table:
        """Build the table here and now (the command line, tests), unless it is on disk already."""
        table = self.peek(rules)
        if table is not None:
            return table
        from .solver.build import build

        if build(rules.spec(), self.path(key_of(rules))) == 3:
            raise TableBuilding(self._retry_after(rules, time.time()))
        table = self._load(key_of(rules), rules)
        assert table is not None
        return table

    # -- inside ---------------------------------------------------------------

    def _load(self, key: str, rules: RuleSet) -> Table | None:
        path = self.path(key)
        if not os.path.exists(path):
            return None
        solver = Solver(rules)
        try:
            values = np.load(path, mmap_mode="r")
        except (OSError, ValueError):
            log.warning("the advisor's table %s is unreadable: building it again", path)
            os.replace(path, path + ".bad")
            return None
        if values.shape != (solver.space.size,):
            log.warning("the advisor's table %s has the wrong size: building it again", path)
            os.replace(path, path + ".bad")
            return None
        table = Table(solver, values)
        try:
            os.utime(path)  # used now: the folder keeps the tables used last
        except OSError:
            pass
        self.memory.put(key, table)
        self._prune()
        return table

    def _other_build(self, key: str) -> float | None:
        """When another process builds this table, the time it started; None if nobody does."""
        os.makedirs(self.folder, exist_ok=True)
        with open(self.path(key) + ".lock", "a+") as lock:
            try:
                fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                lock.seek(0)
                try:
                    return float(json.loads(lock.read() or "{}").get("started", time.time()))
                except ValueError:
                    return time.time()
            fcntl.flock(lock, fcntl.LOCK_UN)
        return None

    def _spawn(self, rules: RuleSet, key: str) -> subprocess.Popen:
        # One BLAS thread: the build takes one core and leaves the others to requests.
        env = {**os.environ, "OPENBLAS_NUM_THREADS": "1", "OMP_NUM_THREADS": "1", "MKL_NUM_THREADS": "1"}
        root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
        env["PYTHONPATH"] = root + os.pathsep + env.get("PYTHONPATH", "")
        log.info("building the advisor's table %s for %s", key, rules.variant.id)
        return subprocess.Popen([sys.executable, "-m", "service.solver.build", json.dumps(rules.spec()),
                                 self.path(key)], env=env, stdin=subprocess.DEVNULL,
                                stdout=subprocess.DEVNULL, stderr=None, close_fds=True)

    def _retry_after(self, rules: RuleSet, started: float) -> int:
        return self._retry_after_states(Space(rules).size, started)

    @staticmethod
    def _retry_after_states(states: int, started: float) -> int:
        estimate = states / STATES_PER_SECOND + 1
        return max(1, min(60, math.ceil(estimate - (time.time() - started))))

    def _prune(self) -> None:
        """Keep the ``keep`` tables used last on disk; remove the others."""
        try:
            names = [n for n in os.listdir(self.folder) if n.endswith(".npy")]
        except OSError:
            return
        if len(names) <= self.keep:
            return
        paths = sorted((os.path.join(self.folder, n) for n in names), key=os.path.getmtime)
        for path in paths[:len(paths) - self.keep]:
            for name in (path, path[:-len(".npy")] + ".json"):
                try:
                    os.remove(name)
                except OSError:
                    pass


def init_app(app: Flask) -> None:
    """Give the app its tables (``SOLVER_DIR``, ``SOLVER_TABLES``)."""
    folder = app.config.get("SOLVER_DIR") or os.path.join(app.instance_path, "solver")
    app.extensions["anotador.tables"] = Tables(folder, int(app.config.get("SOLVER_TABLES") or 8),
                                               int(app.config.get("SOLVER_BUILDS") or 1),
                                               int(app.config.get("SOLVER_KEEP") or 100))


def tables() -> Tables:
    """The current app's tables."""
    return current_app.extensions["anotador.tables"]
