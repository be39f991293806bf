"""One sheet at a time (advice, the analysis): a state's rolls scored now, and its keeps.

A build weighs a batch of states in each array operation (:mod:`.solve`). Advice weighs one state, and there
an operation costs its call, not its arithmetic: a few microseconds each, about twice that in a server whose
caches the request's own work has just filled. So what a sheet's next states need is worked out once per
solver (:class:`Entries`, :meth:`.space.Space.moves`), and a sheet's rolls scored now take about fifteen
operations, each throw's keeps as many again. The same sums in the same order as a batch's, so the same
numbers to the bit (tests/test_solver.py).
"""

from __future__ import annotations

import threading
from typing import NamedTuple

import numpy as np

from .space import Moves
from .special import NEG


class Chosen(NamedTuple):
    """Where each roll goes if scored now, from one state (:meth:`Solver.choose_one`), over rolls: the box's
    index, its points there, the roll's bonus besides (a further Yahtzee's), the state once the box holds them."""

    box: np.ndarray
    points: np.ndarray
    bonus: np.ndarray
    after: np.ndarray


class Entries(NamedTuple):
    """Every (box, points) a roll scores there, boxes in sheet order, each box's points increasing: what one
    state's next states are read by."""

    box: np.ndarray
    points: np.ndarray
    at: np.ndarray          # boxes x rolls: the entry each roll takes in each box
    rows: np.ndarray        # boxes x rolls: its points there (a maximum down columns is fast)
    bit: np.ndarray         # each entry's box as a bit
    moves: Moves | None     # the entries as Space.close_moves reads them (None: Space.close_many)
    key: np.ndarray         # box * width + points, increasing: where a box's points are among the entries
    width: int              # more than any points a box can hold
    place: dict[tuple[int, int], int]  # (box, points) -> entry: for one roll's boxes


class OneSheet:
    """The one-state part of :class:`.solve.Solver` (which gives it ``rules``, ``space``, ``rows``, ``values``,
    ``pairs``, the special rolls and ``turn_dice``)."""

    #: The most closed boxes (and served) whose moves' lookups one solver keeps (a kilobyte each): a turn's
    #: three advice calls share them, as every sheet of a night with those boxes closed.
    MASKS_KEPT = 4096
    #: The bytes of turns (:class:`OneTurn`: 6 kB for five dice, 104 for ten) one solver keeps: the turns under
    #: way at a night's tables (about 650 of five dice, 40 of ten), each asked for advice once a throw (and
    #: again when a die is corrected), the oldest let go first.
    TURNS_BYTES = 4 << 20

    def _init_one(self) -> None:
        """Each served's :class:`Entries` (one box a turn only: ten dice split their rolls, :meth:`now_two`)."""
        self.entries: dict[bool, Entries] = {}
        self._masks_kept: dict[tuple[bool, int], tuple[np.ndarray, np.ndarray, np.ndarray]] = {}
        self._turns_kept: dict[tuple[int, int, int], OneTurn] = {}
        self._turns_of: np.ndarray | None = None  # the table the turns kept read
        self._turns_lock = threading.Lock()
        d = self.turn_dice
        entries = 0 if self.pairs is not None else sum(len(v) for v, _ in self.values[False])
        self.turns_max = max(8, self.TURNS_BYTES // (8 * (entries + len(d.rolls) + 2 * len(d.keeps))))
        if self.pairs is not None:
            return
        width = max(max(p, default=0) for p in self.space.possible) + 1
        for served in (False, True):
            vals = [v for v, _ in self.values[served]]
            starts = np.cumsum([0] + [len(v) for v in vals])
            box = np.concatenate([np.full(len(v), b, dtype=np.int64) for b, v in enumerate(vals)])
            points = np.concatenate(vals).astype(np.int64)
            width = max(width, int(points.max()) + 1)
            self.entries[served] = Entries(
                box, points, np.stack([starts[b] + inv for b, (_, inv) in enumerate(self.values[served])]),
                np.ascontiguousarray(self.rows[served].T), 1 << box, self.space.moves(box, points),
                box * width + points, width, {(b, p): k for k, (b, p) in enumerate(zip(box.tolist(), points.tolist()))})

    def after_one(self, V: np.ndarray, mask: int, u: int, flags: int, served: bool = False) -> np.ndarray:
        """One state: the value after each entry (its box holding its points); -inf where the box is closed."""
        e = self.entries[served]
        if e.moves is None:
            after = V[self.space.close_many(mask, u, flags, e.box, e.points)]
            after[(mask & e.bit) != 0] = NEG
            return after
        key = (served, mask)
        of_mask = self._masks_kept.get(key)
        if of_mask is None:
            of_mask = self.space.moves_from(mask, e.moves)
            if len(self._masks_kept) >= self.MASKS_KEPT:
                self._masks_kept.clear()  # as the special points kept: a new night's sheets
            self._masks_kept[key] = of_mask
        after = V[self.space.close_moves(mask, u, flags, e.moves, of_mask)]
        after[of_mask[2]] = NEG
        return after

    def _now_one(self, V: np.ndarray, mask: int, u: int, flags: int, served: bool,
                 after: np.ndarray | None = None) -> np.ndarray:
        """:meth:`now` for one state (``after``: :meth:`after_one`'s, if known), best box by best box as a batch's."""
        if after is None:
            after = self.after_one(V, mask, u, flags, served)
        every = self._every_one(V, mask, u, flags, served, after)
        out = every.max(axis=0)
        if len(self.special):
            values, _, bonus = self._special_one(V, mask, u, flags, served, after)
            out[self.special] = values.max(axis=1) + bonus
        return out

    def _every_one(self, V: np.ndarray, mask: int, u: int, flags: int, served: bool,
                   after: np.ndarray | None = None) -> np.ndarray:
        """One state: each roll's points plus the value after, in each box (boxes x rolls; -inf where closed;
        special rolls have the plain rows' numbers here, :meth:`_special_one` their own)."""
        e = self.entries[served]
        every = (self.after_one(V, mask, u, flags, served) if after is None else after)[e.at]
        every += e.rows
        return every

    def _special_one(self, V: np.ndarray, mask: int, u: int, flags: int, served: bool,
                     after: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """One state, the rolls the engine scores by the sheet: each one's value in each box (special x boxes,
        -inf where it may not go, bonus aside), its points there (-1 where it may not go), and its bonus. Their
        points in a box are almost always some roll's plain points there: the value after is then read among
        the entries'."""
        points, bonus, place, reach = self._special_points(served, mask, flags)
        if place is None:  # points no plain roll scores in that box: their next states worked out
            later = V[self.space.close_many(mask, u, flags, self._special_boxes, np.maximum(points, 0).ravel())]
            later = later.reshape(points.shape)
        else:
            later = (self.after_one(V, mask, u, flags, served) if after is None else after)[place]
        return reach + later, points, bonus

    def choose_one(self, V: np.ndarray, mask: int, u: int, flags: int, served: bool):
        """For one state, the box advice names for each roll scored now (the best, the first in sheet order
        among equals), from the same sums as :meth:`_now_one`: the value of the box is the value of the roll."""
        after = self.after_one(V, mask, u, flags, served)
        every = self._every_one(V, mask, u, flags, served, after)
        rolls = np.arange(every.shape[1])
        box = every.argmax(axis=0)
        points = self.rows[served][rolls, box].astype(np.int64)
        bonus = np.zeros(len(rolls), dtype=np.int64)
        if len(self.special):
            values, special_points, special_bonus = self._special_one(V, mask, u, flags, served, after)
            best = values.argmax(axis=1)
            box[self.special] = best
            points[self.special] = np.maximum(special_points[np.arange(len(best)), best], 0)
            bonus[self.special] = special_bonus.astype(np.int64)
        return Chosen(box, points, bonus, self.space.close_many(mask, u, flags, box, points))

    def keeps_at(self, V: np.ndarray, mask: int, u: int, flags: int, throw: int) -> np.ndarray:
        """One state's keeps at throw ``throw`` (1 or 2): only the stages of :meth:`turn` that lead there, the
        same steps so the same numbers to the bit. Advice for a throw needs no more: throw 2's keeps read the
        last throw alone, and no keep reads what a served roll scores now."""
        return OneTurn(self, V, mask, u, flags).keeps(throw)

    def turn_one(self, V: np.ndarray, mask: int, u: int, flags: int) -> "OneTurn":
        """One state's :class:`OneTurn`, kept: a turn's advice is asked once a throw on the same sheet, and its
        second and third answers read what the first worked out (about two thirds of the arithmetic)."""
        key = (mask, u, flags)
        kept = self._turns_kept
        turn = kept.get(key) if self._turns_of is V else None
        if turn is None:
            turn = OneTurn(self, V, mask, u, flags)
            with self._turns_lock:
                if self._turns_of is not V:  # another table for these rules (tests): nothing kept is its
                    kept.clear()
                    self._turns_of = V
                while len(kept) >= self.turns_max:
                    del kept[next(iter(kept))]  # the oldest turn first
                kept[key] = turn
        return turn


class OneTurn:
    """One state's turn for advice, each stage worked out when first asked for and kept read-only: the value
    after each (box, points) entry, the best of scoring each roll now, and the keeps' values at each throw.
    The same steps as :meth:`.solve.Solver.turn`'s, so the same numbers to the bit."""

    __slots__ = ("solver", "V", "state", "_after", "_plain", "_keep2", "_keep1")

    def __init__(self, solver: OneSheet, V: np.ndarray, mask: int, u: int, flags: int) -> None:
        self.solver, self.V, self.state = solver, V, (mask, u, flags)
        self._after = self._plain = self._keep2 = self._keep1 = None

    @property
    def after(self) -> np.ndarray:
        """:meth:`OneSheet.after_one` (one box a turn only)."""
        if self._after is None:
            self._after = _frozen(self.solver.after_one(self.V, *self.state))
        return self._after

    @property
    def plain(self) -> np.ndarray:
        """The best of scoring each roll now, not served (rolls): what throw 3 makes of each."""
        if self._plain is None:
            solver = self.solver
            if solver.pairs is not None:
                self._plain = _frozen(solver.now_two(self.V, np.array([self.state[0]]))[0])
            else:
                self._plain = _frozen(solver._now_one(self.V, *self.state, False, self.after))
        return self._plain

    def keeps(self, throw: int) -> np.ndarray:
        """Every keep's value after throw ``throw`` (1 or 2)."""
        d = self.solver.turn_dice
        if self._keep2 is None:
            self._keep2 = _frozen(d.expect_one(self.plain))
        if throw == 2:
            return self._keep2
        if self._keep1 is None:
            self._keep1 = _frozen(d.expect_one(np.maximum(self.plain, d.best_within(self._keep2[None, :])[0])))
        return self._keep1


def _frozen(a: np.ndarray) -> np.ndarray:
    """``a`` made read-only: kept arrays are shared by every answer that reads them."""
    a.setflags(write=False)
    return a
