"""The rolls a rule set scores by the sheet (:meth:`RuleSet.depends_on_sheet`): a Yahtzee's five of a kind
(a joker, a bonus), a generala (double, served). :class:`SpecialRolls` is the part of :class:`.solve.Solver`
that weighs them: the engine judges each once per state of the boxes it watches, and every batch or sheet
reads those judgements from tables.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Mapping

import numpy as np

if TYPE_CHECKING:  # pragma: no cover
    from ..rules import RuleSet

NEG = -np.inf


class SpecialRolls:
    """The special rolls of :class:`.solve.Solver` (which gives them ``rules``, ``space`` and ``group``)."""

    def _init_special(self, rules: "RuleSet", rolls) -> None:
        """Which of ``rolls`` are special, the boxes each watches, and the (empty) tables of their judgements."""
        self.special = np.array([i for i, r in enumerate(rolls) if rules.depends_on_sheet(r)], dtype=np.int64)
        self.watched = {r: [rules.index[b] for b in rules.watched(rolls[r])] for r in self.special.tolist()}
        self._judged: dict[tuple[int, bool, tuple[int, ...]], tuple] = {}
        # each special roll's watched boxes as bits, one column each (padded with 0: no box)
        width = max([len(self.watched[r]) for r in self.special.tolist()], default=0)
        bits = [[1 << b for b in self.watched[r]] + [0] * (width - len(self.watched[r])) for r in self.special.tolist()]
        self._watched_bits = np.array(bits, dtype=np.int64).reshape(len(self.special), width)
        self._kinds: dict[bool, tuple] = {}
        self._kinds_one: dict[bool, tuple] = {}
        self._watched_one = [tuple(int(b) for b in row) for row in self._watched_bits]
        self._points_kept: dict[tuple[bool, int, int], tuple] = {}
        self._special_boxes = np.tile(np.arange(len(rules.boxes)), len(self.special))

    #: The most (served, closed boxes, held flags) whose special rolls' points one solver keeps: the boxes a
    #: game's players reach in a night, not a whole table's (a Yahtzee sheet's are 16,384 x 2).
    POINTS_KEPT = 4096

    def _special_points(self, served: bool, mask: int, flags: int) -> tuple:
        """The special rolls' points in each box with ``mask`` closed (-1 where one may not go), their bonuses,
        where those points are among one sheet's entries (:class:`.one.Entries`; None if some are not), and the
        points as floats (-inf where one may not go): what a sheet with these boxes and flags makes of them, the
        forced jokers placed. They read no subtotal, so a turn's three advice calls and every subtotal of a
        sheet share them."""
        key = (served, mask, flags)
        found = self._points_kept.get(key)
        if found is None:
            found = self._special_made(served, mask, flags)
            if len(self._points_kept) >= self.POINTS_KEPT:
                self._points_kept.clear()  # a new night's sheets: cheaper than an LRU's bookkeeping per call
            found[0].setflags(write=False)
            self._points_kept[key] = found
        return found

    def _special_made(self, served: bool, mask: int, flags: int) -> tuple:
        """:meth:`_special_points`, worked out: :meth:`_special_many`'s steps for one sheet, each roll's kind and
        place in plain numbers (a sheet is a few numbers; an array operation costs more than its arithmetic)."""
        rows, bonus, _ = self._judged_kinds(served)
        orders, place, missing = self._one_kinds(served)
        free = ~mask & ((1 << self.space.nb) - 1)
        kinds, allowed, found = [], [], True
        for j, bits in enumerate(self._watched_one):
            kind = sum(1 << i for i, bit in enumerate(bits) if mask & bit) * self.space.F + flags
            kinds.append(kind)
            allowed.append(self.rules.first_free(orders[j][kind], free))
            found = found and not allowed[-1] & missing[j][kind]
        special = np.arange(len(kinds))
        go = (np.array(allowed)[:, None] >> np.arange(self.space.nb)) & 1 == 1
        points = np.where(go, rows[special, kinds], -1)
        return points, bonus[special, kinds], place[special, kinds] if found else None, np.where(go, points, NEG)

    def _one_kinds(self, served: bool) -> tuple[list[list[tuple[int, ...]]], np.ndarray, list[list[int]]]:
        """:meth:`_judged_kinds` as one sheet reads it: each roll's groups of boxes by kind (bits, in order);
        where its points in each box are among one sheet's entries (:class:`.one.Entries`), and
        the boxes where they are not, as bits."""
        found = self._kinds_one.get(served)
        if found is None:
            rows, _, groups = self._judged_kinds(served)
            orders = [[tuple(int(g) for g in order if g) for order in each] for each in groups]
            place = np.zeros(rows.shape, dtype=np.int64)
            missing = [[0] * rows.shape[1] for _ in range(rows.shape[0])]
            e = self.entries.get(served)
            for j, kind, b in np.ndindex(*rows.shape):
                k = None if e is None else e.place.get((b, int(rows[j, kind, b])))
                if k is None:
                    missing[j][kind] |= 1 << b
                else:
                    place[j, kind, b] = k
            found = self._kinds_one[served] = (orders, place, missing)
        return found

    def _special_many(self, served: bool, mask: np.ndarray, flags: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """:meth:`_special_points` for many sheets (closed boxes, held flags) at once (sheets x special x boxes,
        sheets x special): each roll's judgement on the free boxes, a forced joker on the free ones of the first
        group of its order that has one (:meth:`RuleSet.first_free`, as :meth:`RuleSet.place` places it)."""
        rows, bonus, groups = self._judged_kinds(served)
        kind = np.zeros((len(mask), len(self.special)), dtype=np.int64)
        for i, bits in enumerate(self._watched_bits.T):  # each roll's watched boxes, closed or not
            kind |= ((mask[:, None] & bits) != 0) << i
        kind = kind * self.space.F + flags[:, None]
        special = np.arange(len(self.special))
        order = groups[special, kind]  # each roll's order of groups of boxes (any free box: one group of all)
        allowed = self.rules.first_free([order[:, :, g] for g in range(order.shape[2])],
                                        ~mask[:, None] & ((1 << self.space.nb) - 1))
        points = np.where((allowed[:, :, None] >> np.arange(self.space.nb)) & 1 == 1, rows[special, kind], -1)
        return points, bonus[special, kind]

    def _special_batch(self, served: bool, mask, flags) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """:meth:`_special_many` for a batch of states, once per sheet of it (the points read no subtotal): the
        sheets' points and bonuses, and each state's sheet."""
        contexts, inv = np.unique(mask * self.space.F + flags, return_inverse=True)
        points, bonus = self._special_many(served, *np.divmod(contexts, self.space.F))
        return points, bonus, inv

    def _judged_kinds(self, served: bool) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Every special roll's judgement in each state of the boxes it watches (special x kinds, a kind the bits
        of its watched boxes closed, then the flags): its points per box, its bonus, and the groups of boxes
        where it may go as bits, in order (one group of every box, or a forced joker's; padded with none).
        Asked of the engine once."""
        found = self._kinds.get(served)
        if found is None:
            space, width = self.space, self._watched_bits.shape[1]
            count = (1 << width) * space.F
            judged = [[self._judgement(r, served, space.sheet_of(
                sum(int(bits) for i, bits in enumerate(self._watched_bits[j]) if kind // space.F >> i & 1),
                kind % space.F)) for kind in range(count)] for j, r in enumerate(self.special.tolist())]
            orders = [[(1 << space.nb) - 1] if order is None else [sum(1 << b for b in group) for group in order]
                      for each in judged for _, order, _, _ in each]
            depth = max(len(order) for order in orders)
            groups = np.array([order + [0] * (depth - len(order)) for order in orders], dtype=np.int64)
            found = self._kinds[served] = (
                np.array([[row for row, _, _, _ in each] for each in judged], dtype=np.int64),
                np.array([[bonus for _, _, _, bonus in each] for each in judged], dtype=float),
                groups.reshape(len(judged), count, depth))
        return found

    def _held(self, sheet: Mapping[str, int], boxes: list[int]) -> tuple[int, ...]:
        """Each of ``boxes`` on ``sheet``: 0 free, 1 holding 0, 2 holding points (what a judgement reads)."""
        ids = self.rules.boxes
        return tuple(0 if ids[b].id not in sheet else 1 if sheet[ids[b].id] == 0 else 2 for b in boxes)

    def _judgement(self, r: int, served: bool, sheet: Mapping[str, int]) -> tuple:
        """The engine's judgement of special roll ``r`` on ``sheet`` (:meth:`RuleSet.judge`), kept per state
        of the boxes it watches (free, 0, points): the only part of the sheet it reads."""
        key = (r, served, self._held(sheet, self.watched[r]))
        judgement = self._judged.get(key)
        if judgement is None:
            judgement = self.rules.judge(self.group.rolls[r], served, sheet)
            if served and judgement[2]:  # wins on the spot: valued as the same dice thrown later
                judgement = self._judgement(r, False, sheet)
            self._judged[key] = judgement
        return judgement

    def special_boxes(self, V: np.ndarray, mask, u, flags, served: bool):
        """The rolls the engine scores by the sheet, for a batch of states: their points in each box by each
        state's context (states x special x boxes, -1 where one may not go), their bonuses (states x special),
        and their points plus the value after in each box (-inf where the roll may not go there)."""
        points, bonus, inv = self._special_batch(served, mask, flags)
        points, bonus = points[inv], bonus[inv]
        values = np.full(points.shape, NEG)
        state, _, box = go = np.nonzero(points >= 0)  # only where a roll may go: the free boxes, or a joker's
        values[go] = points[go] + V[self.space.close_many(mask[state], u[state], flags[state], box, points[go])]
        return points, bonus, values

    def _special_kept(self, V: np.ndarray, mask, u, flags, served: bool, kept) -> np.ndarray:
        """:meth:`special_boxes`' best, bonus added, from the values after each box that
        :meth:`Solver.now_by_roll` gathered (``kept``: per box open in the batch, its one row after, or its rows
        per distinct value with those points added): a special roll's points in a box are one of the box's plain
        values, so its next state's value is there. The same two numbers added (points and the value after), so
        the same sums as there."""
        points, bonus, inv = self._special_batch(served, mask, flags)
        best = np.full((len(mask), len(self.special)), NEG)
        states = np.arange(len(mask))[:, None]
        for b, (after, vals) in kept.items():
            if not (points[:, :, b] >= 0).any():
                continue
            here = points[inv, :, b]
            if vals is None:  # one next state
                worth = here + after[:, None]
            else:
                row = np.minimum(np.searchsorted(vals, here), len(vals) - 1)
                if (vals[row] != here)[here >= 0].any():  # points no plain roll scores there: the value after anew
                    worth = here + V[self.space.close(mask[:, None], u[:, None], flags[:, None], b,
                                                      np.maximum(here, 0))]
                else:
                    worth = after[row, states]
            np.maximum(best, np.where(here >= 0, worth, NEG), out=best)
        return best + bonus[inv]

