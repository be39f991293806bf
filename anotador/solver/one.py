"""One sheet at a time (advice, the analysis): a state's rolls scored now, and its keeps.

A build weighs a batch of states in each array operation (:mod:`.solve`). Advice weighs one state, and there
an operation costs its call, not its arithmetic: a few microseconds each, about twice that in a server whose
caches the request's own work has just filled. So what a sheet's next states need is worked out once per
solver (:class:`Entries`, :meth:`.space.Space.moves`), and a sheet's rolls scored now take about fifteen
operations, each throw's keeps as many again. The same sums in the same order as a batch's, so the same
numbers to the bit (tests/test_solver.py).
"""

from __future__ import annotations

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

    def _init_one(self) -> None:
        """Each served's :class:`Entries` (one box a turn only: ten dice split their rolls, :meth:`now_two`)."""
        self.entries: dict[bool, Entries] = {}
        self._masks_kept: dict[tuple[bool, int], tuple[np.ndarray, np.ndarray, np.ndarray]] = {}
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

    def keeps_at(self, V: np.ndarray, mask: int, u: int, flags: int, throw: int,
                 after: np.ndarray | None = None) -> np.ndarray:
        """One state's keeps at throw ``throw`` (1 or 2): only the stages of :meth:`turn` that lead there, the
        same steps so the same numbers to the bit. Advice for a throw needs no more: throw 2's keeps read the
        last throw alone, and no keep reads what a served roll scores now."""
        d = self.turn_dice
        if self.pairs is not None:
            plain = self.now_two(V, np.array([mask]))
            keep2 = d.expect(plain)
            return keep2[0] if throw == 2 else d.expect(np.maximum(plain, d.best_within(keep2)))[0]
        plain = self._now_one(V, mask, u, flags, False, after)
        keep2 = d.expect_one(plain)
        return keep2 if throw == 2 else d.expect_one(np.maximum(plain, d.best_within_one(keep2)))
