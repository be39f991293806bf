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
:data:`~anotador.advisor.tables.OUTCOMES_KEPT` of them besides the built-in variants'.
"""

from __future__ import annotations

import logging
import os
import threading
import time
from typing import Mapping, Sequence

from flask import current_app

from ..rules import RuleSet
from ..solver import folder as store
from ..solver.build import OUTCOMES, outcomes_kind
from ..solver.chances import NotExact, Outlook, exact_for
from ..solver.folder import key_of
from ..solver.late import LateOutlook, late_sheets
from ..solver.sampled import OpeningOutlook, SampledOutlook, read_outcomes, refusal
from ..support.lru import LRU
from .builds import Table, TableBuilding, read_or_set_aside, retry_after
from .tables import Tables

log = logging.getLogger(__name__)

#: Outlooks (who is winning) each worker keeps: a rule set's is a few MB and takes seconds to make.
OUTLOOKS_KEPT = 8
#: About how long an outlook takes to make, by dice a turn (bench/chances.py: 0.7-3 s for five, 6 s for ten, on
#: one core): what a request that finds none is told to wait, with retry_after's margin.
OUTLOOK_SECONDS = {5: 3.0, 10: 8.0}
#: How long a worker waits for the built-in tables, to make their outlooks ahead (:meth:`Outlooks.warm`).
WARM_FOR = 1800.0
class Outlooks:
    """A worker's outlooks, made from the tables of :class:`~anotador.advisor.tables.Tables` (which also runs
    the outcomes' builds, like its own)."""

    def __init__(self, tables: Tables) -> None:
        self.tables = tables
        self.outlooks: LRU[str, Outlook] = LRU(OUTLOOKS_KEPT)
        #: The Yahtzee family's, one per rule set (each bounded: late.LATE_KEPT states).
        self.late: LRU[str, LateOutlook] = LRU(2)
        #: The Yahtzee family's before the last rounds (each bounded: sampled.KEPT distributions; the
        #: outcomes are mapped from disk, so a server's workers share their pages).
        self.sampled: LRU[str, SampledOutlook] = LRU(2)
        self.outlook_lock = threading.Lock()
        self.outlook_builds: dict[str, float] = {}  # key → when it should be made (monotonic): one at a time

    def outlook(self, rules: RuleSet, client: str | None = None, game: bool = False) -> Outlook:
        """Who is winning, for these rules (:mod:`anotador.solver.chances`), made from the table (:meth:`Tables.get`).

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
        table = self.tables.get(rules, client, game)
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
        family): made at once from the table (:meth:`Tables.get`), its states worked out as games reach them.
        Raises :class:`~anotador.solver.chances.NotExact` for rules it cannot do."""
        key = key_of(rules)
        found = self.late.get(key)
        if found is None:
            table = self.tables.get(rules, client, game)
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
        outcomes = read_or_set_aside(self.tables.path(key), lambda path: read_outcomes(path, late.solver, late.V),
                                     "the outcomes")
        if outcomes is not None:
            found = SampledOutlook(late, outcomes)
            self.sampled.put(key, found)
            self.tables.prune()
            return found
        under_way = self.tables.under_way()
        estimate = store.seconds_left(self.tables.folder, outcomes_kind(rules), store.states_of(rules))
        running = under_way.get(key)
        if running is not None:
            raise TableBuilding(retry_after(self.tables.left(running)))
        if not game:
            raise NotExact(f"Before its last 4 rounds the chances of {rules.variant.id} are sampled from every "
                           "sheet's turn, which this server has not followed for these rules yet: a stored game's "
                           "/chances has it done (about a minute); until then play to win needs every player "
                           "with at most 4 boxes open.")
        others = [b for k, b in under_way.items() if k.endswith(OUTCOMES)]
        if others:  # one at a time: each takes a core for a minute
            raise TableBuilding(retry_after(min(self.tables.left(b) for b in others) + estimate))
        self.tables.start_outcomes(rules, client, game, under_way, estimate)
        raise TableBuilding(retry_after(estimate))

    def warm(self, pause: float = 1.0, give_up: float = WARM_FOR) -> list[str]:
        """Make this worker's outlooks of the built-in rule sets ahead, one after another as their tables come,
        beside the requests (as one asked for them would): a new game's chances then come at once. The
        variants made; run by a thread of each served worker (anotador/ops/asgi.py:ahead)."""
        left = {key_of(r): r for r in self.tables.builtin.values() if exact_for(r) is None}
        made = []
        deadline = time.monotonic() + give_up
        while left and time.monotonic() < deadline:
            for key, rules in list(left.items()):
                if self.outlooks.get(key) is not None:
                    made.append(rules.variant.id)
                    del left[key]
                elif os.path.exists(self.tables.path(key)):
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


def outlooks() -> Outlooks:
    """The current app's outlooks."""
    return current_app.extensions["anotador.outlooks"]
