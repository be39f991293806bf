"""Who is winning, made from the advisor's tables: each worker's outlooks (:mod:`anotador.solver.chances`).

A rule set's outlook is made from its table (:class:`~anotador.advisor.tables.Tables`),
never by a request: one that finds none gets :class:`TableBuilding`, a 503
with a Retry-After, as for a table. The Generala family's and Double
Cameroon's give every state's distribution, made by a thread of the worker
in seconds. The Yahtzee family's are exact in the last rounds
(:class:`~anotador.solver.late.LateOutlook`, at once) and sampled before
(:class:`~anotador.solver.sampled.SampledOutlook`) from an outcomes file that
a process of its own follows every state's turn into, once per rule set
(``<key>.outcomes.table`` in the folder: a minute of one core, 300 MB for
Yahtzee), one such build at a time for the folder; the folder keeps
:data:`OUTCOMES_KEPT` of them besides the built-in variants'.
"""

from __future__ import annotations

import json
import logging
import math
import os
import threading
import time
import subprocess
from typing import Mapping, NamedTuple, Sequence

import numpy as np

from ..support.lru import LRU
from ..rules import RuleSet
from ..solver import Solver
from ..solver import folder as store
from ..solver.build import OUTCOMES, outcomes_kind
from ..solver.chances import NotExact, Outlook, exact_for
from ..solver.folder import key_of
from ..solver.late import LateOutlook, late_sheets
from ..solver.sampled import OpeningOutlook, SampledOutlook, outcomes_bytes, read_outcomes, refusal


log = logging.getLogger(__name__)

class TableBuilding(Exception):
    """The table for these rules is being built: ask again in ``retry_after`` seconds."""

    def __init__(self, retry_after: int):
        super().__init__(f"The advisor's table for these rules is being built; ask again in {retry_after} s.")
        self.retry_after = retry_after


def retry_after(seconds: float) -> int:
    """A Retry-After that is met: the estimate with a margin, whole seconds."""
    return max(1, min(3600, math.ceil(seconds * 1.2 + 0.5)))


#: Outlooks (who is winning) each worker keeps: a rule set's is a few MB and takes seconds to make.
OUTLOOKS_KEPT = 8
#: About how long an outlook takes to make, by dice a turn (bench/chances.py: 0.7-3 s for five, 6 s for ten, on
#: one core): what a request that finds none is told to wait, with retry_after's margin.
OUTLOOK_SECONDS = {5: 3.0, 10: 8.0}
#: How long a worker waits for the built-in tables, to make their outlooks ahead (:meth:`Outlooks.warm`).
WARM_FOR = 1800.0
#: Outcomes files the folder keeps besides the built-in variants': 300 MB each for Yahtzee's house rules.
OUTCOMES_KEPT = 4


def build_bytes(kind: str, states: int) -> int:
    """The most a build of this kind takes on disk while it runs: a table's file, or an outcomes build's twice
    (its records, then the file they are copied into). What the folder's disk budget counts a build as."""
    return 2 * outcomes_bytes(states) if kind.endswith(OUTCOMES) else store.table_bytes(states)


class Table(NamedTuple):
    """An advisor's table in memory: the rule set's solver and every state's value."""

    solver: Solver
    values: np.ndarray


class Spawned(NamedTuple):
    """A build this worker started (its lock may not be taken yet)."""

    process: subprocess.Popen
    build: store.Build


def read_or_set_aside(path: str, read, what: str):
    """``read(path)`` of a file of the folder, marked used now (the folder keeps those used last); None when it
    is missing, or when it cannot be used: then it is set aside (``.bad``) and logged, to be built again."""
    if not os.path.exists(path):
        return None
    try:
        found = read(path)
    except (OSError, store.BadTable) as e:
        log.warning("%s %s cannot be used (%s): building it again", what, path, e)
        try:
            os.replace(path, path + ".bad")
        except OSError:
            pass
        return None
    try:
        os.utime(path)
    except OSError:
        pass
    return found


class Outlooks:
    """The outlooks part of :class:`~anotador.advisor.tables.Tables` (its tables, builds and folder)."""

    def __init__(self) -> None:
        self.outlooks: LRU[str, Outlook] = LRU(OUTLOOKS_KEPT)
        #: The Yahtzee family's, one per rule set (each bounded: late.LATE_KEPT states).
        self.late: LRU[str, LateOutlook] = LRU(2)
        #: The Yahtzee family's before the last rounds (each bounded: sampled.KEPT distributions; the
        #: outcomes are mapped from disk, so a server's workers share their pages).
        self.sampled: LRU[str, SampledOutlook] = LRU(2)
        self.outlook_lock = threading.Lock()
        self.outlook_builds: dict[str, float] = {}  # key → when it should be made (monotonic): one at a time

    def outlook(self, rules: RuleSet, client: str | None = None, game: bool = False) -> Outlook:
        """Who is winning, for these rules (:mod:`anotador.solver.chances`), made from the table (:meth:`get`).

        Made once per worker, by a thread of its own and one at a time, never by a request: the request that
        finds none gets :class:`TableBuilding` (a 503 with Retry-After), as for a table. Double Cameroon's
        takes seconds, and a request holding its database connection that long would be cut by the guard.
        Raises :class:`~anotador.solver.chances.NotExact` for rules it cannot yet do exactly."""
        key = key_of(rules)
        found = self.outlooks.get(key)
        if found is not None:
            return found
        why = exact_for(rules)
        if why is not None:
            raise NotExact("Chances are worked out exactly for rule sets without section bonuses (the Generala "
                           f"family, Yacht and Double Cameroon); not yet here: {why}")
        table = self.get(rules, client, game)
        took = OUTLOOK_SECONDS.get(rules.dice, max(OUTLOOK_SECONDS.values()))
        with self.outlook_lock:
            making = self.outlook_builds.get(key)
            if making is None and self.outlooks.get(key) is None:
                if self.outlook_builds:
                    # Another rule set's is being made: one at a time, or a client polling the games of many
                    # rule sets would have as many threads fighting the requests for this worker's CPU.
                    ahead = max(0.5, max(self.outlook_builds.values()) - time.monotonic())
                    raise TableBuilding(retry_after(ahead + took))
                making = self.outlook_builds[key] = time.monotonic() + took
                threading.Thread(target=self._make_outlook, args=(key, table), daemon=True,
                                 name=f"outlook {rules.variant.id}").start()
        found = self.outlooks.get(key)
        if found is not None:
            return found
        raise TableBuilding(retry_after(max(0.5, (making or 0) - time.monotonic())))

    def late_outlook(self, rules: RuleSet, client: str | None = None, game: bool = False) -> LateOutlook:
        """Who is winning in the last rounds, for rules whose sheets hold more than their boxes (the Yahtzee
        family): made at once from the table (:meth:`get`), its states worked out as games reach them.
        Raises :class:`~anotador.solver.chances.NotExact` for rules it cannot do."""
        key = key_of(rules)
        found = self.late.get(key)
        if found is None:
            table = self.get(rules, client, game)
            found = LateOutlook(table.solver, table.values)
            self.late.put(key, found)
        return found

    def chances_outlook(self, rules: RuleSet, sheets: Sequence[Mapping[str, int]], client: str | None = None,
                        game: bool = False, early: bool = True) -> "Outlook | LateOutlook | SampledOutlook":
        """What who-is-winning reads for players at these sheets: every state's outlook (:meth:`outlook`), or for
        rules whose sheets hold more than their boxes the last rounds' (:meth:`late_outlook`), before them the
        sampled one (:meth:`sampled_outlook`: ``early``; built for a stored ``game`` only; while it is built, a game
        before its first turn reads the shipped opening, :class:`~.solver.sampled.OpeningOutlook`). Otherwise refused
        (:class:`~anotador.solver.chances.NotExact`, a 501) before any table is asked for."""
        if exact_for(rules) is None:
            return self.outlook(rules, client, game)
        why = refusal(rules)
        if why is not None:
            raise NotExact(why)
        try:
            late_sheets(rules, sheets)
        except NotExact:
            if not early:
                raise
            try:
                return self.sampled_outlook(rules, client, game)
            except TableBuilding:
                # its outcomes being built (the one-time minutes of a new installation): a game before its first
                # turn has the figures shipped for a built-in rule set, the very ones the outcomes will give
                late = self.late.get(key_of(rules))
                opening = None if late is None or any(sheets) else OpeningOutlook.of(late)
                if opening is None:
                    raise
                return opening
        return self.late_outlook(rules, client, game)

    def sampled_outlook(self, rules: RuleSet, client: str | None = None, game: bool = True) -> SampledOutlook:
        """Who is winning before the Yahtzee family's last rounds: its outcomes file loaded (checked, mapped) once
        per worker; while it is missing, built by a process of its own, one such build at a time, and
        :class:`TableBuilding` until then. Only a stored ``game`` starts that build: asked without one (play to
        win), a missing file is :class:`~anotador.solver.chances.NotExact` (a 501 saying so)."""
        key = key_of(rules) + OUTCOMES
        found = self.sampled.get(key)
        if found is not None:
            return found
        if callable(client):
            client = client()
        late = self.late_outlook(rules, client, game)  # the table first
        outcomes = read_or_set_aside(self.path(key), lambda path: read_outcomes(path, late.solver, late.V),
                                     "the outcomes")
        if outcomes is not None:
            found = SampledOutlook(late, outcomes)
            self.sampled.put(key, found)
            self._prune()
            return found
        under_way = self._under_way()
        estimate = store.seconds_left(self.folder, outcomes_kind(rules), store.states_of(rules))
        running = under_way.get(key)
        if running is not None:
            raise TableBuilding(retry_after(self._left(running)))
        if not game:
            raise NotExact(f"Before its last 4 rounds the chances of {rules.variant.id} are sampled from every "
                           "sheet's turn, which this server has not followed for these rules yet: a stored game's "
                           "/chances has it done (about a minute); until then play to win needs every player "
                           "with at most 4 boxes open.")
        others = [b for k, b in under_way.items() if k.endswith(OUTCOMES)]
        if others:  # one at a time: each takes a core for a minute
            raise TableBuilding(retry_after(min(self._left(b) for b in others) + estimate))
        with self.lock:
            if key not in self.builds:
                # charged like a table build: to the address, and counted among the builds under way
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
        raise TableBuilding(retry_after(estimate))

    def _spawn_outcomes(self, rules: RuleSet, key: str, client: str | None, slot: int) -> None:
        log.info("following every state's turn of %s into its outcomes (%s)", rules.variant.id, key)
        spawned = time.time()
        process = self._run(["--outcomes", json.dumps(rules.spec()), self.path(key_of(rules)), repr(spawned),
                             client or ""], pass_fds=(slot,))
        self.builds[key] = Spawned(process, store.Build(key, spawned, store.states_of(rules), outcomes_kind(rules),
                                                        client, True, True, spawned + 3600))

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

    def warm(self, pause: float = 1.0, give_up: float = WARM_FOR) -> list[str]:
        """Make this worker's outlooks of the built-in rule sets ahead, one after another as their tables come,
        beside the requests (as one asked for them would): a new game's chances then come at once. The
        variants made; run by a thread of each served worker (gunicorn_conf.post_worker_init)."""
        left = {key_of(r): r for r in self.builtin.values() if exact_for(r) is None}
        made = []
        deadline = time.monotonic() + give_up
        while left and time.monotonic() < deadline:
            for key, rules in list(left.items()):
                if self.outlooks.get(key) is not None:
                    made.append(rules.variant.id)
                    del left[key]
                elif os.path.exists(self.path(key)):
                    try:
                        self.outlook(rules)
                    except TableBuilding:
                        pass  # its outlook (or another's) is being made
            if left:
                time.sleep(pause)
        return made

    def _make_outlook(self, key: str, table: Table) -> None:
        try:
            self.outlooks.put(key, Outlook(table.solver, table.values))
        except Exception:  # pragma: no cover - logged; the next request starts it again
            log.exception("making the chances' outlook %s failed", key)
        finally:
            with self.outlook_lock:
                self.outlook_builds.pop(key, None)

