"""The states of one rule set's sheets, numbered densely: what the solver's tables are indexed by.

A state is what the rest of a game depends on (:mod:`.solve` says why):
which boxes are closed; each bonus section's subtotal, capped at its
threshold; and, for the boxes whose value matters later, whether they hold
points. Only the states a sheet can reach are numbered: a subtotal the
closed boxes cannot make, or a box holding points while it is still free,
has no number, so a Yahtzee table holds 536,448 values rather than the
1,048,576 of every (mask, subtotal, flags). The reachable states of one
mask are a run, masks in increasing order; within a mask, the subtotals
(each section's reachable ones, in increasing order, the first section
outermost) and then the flags, as :meth:`Space.batches` lists them.
"""

from __future__ import annotations

from itertools import combinations
from typing import TYPE_CHECKING, Iterator, Mapping, NamedTuple

import numpy as np

if TYPE_CHECKING:  # pragma: no cover
    from ..rules import RuleSet


class Moves(NamedTuple):
    """A fixed list of moves (a box takes some points) as :meth:`Space.close_moves` reads them: each move's
    box as a bit; by the flags before, each move's flags after; per section its points (capped) times the
    digit's stride."""

    bit: np.ndarray
    flagged: list[np.ndarray]
    lift: list[np.ndarray]


class Space:
    """The reachable states of one rule set, numbered densely (see the module's docstring)."""

    def __init__(self, rules: "RuleSet") -> None:
        self.rules = rules
        self.nb = len(rules.boxes)
        self.sections = [(frozenset(rules.index[b] for b in s.boxes), s.threshold, s.points) for s in rules.bonuses]
        # A state's subtotals as one number, each section a digit (``U`` values), and its held flags (``F``).
        self.strides = []
        stride = 1
        for _, threshold, _ in reversed(self.sections):
            self.strides.insert(0, stride)
            stride *= threshold + 1
        self.U = stride
        self.held = rules.held_matters
        self.held_bit = {b: 1 << j for j, b in enumerate(self.held)}
        self.F = 1 << len(self.held)
        possible = rules.possible_points
        self.possible = [sorted(possible[b.id]) for b in rules.boxes]
        self._reach: dict[tuple[int, int], list[int]] = {}
        self._runs: dict[tuple, tuple[np.ndarray, np.ndarray]] = {}
        # per section, which boxes count in it; per box, its held bit (for close_many)
        self._member = np.array([[b in boxes for b in range(self.nb)] for boxes, _, _ in self.sections],
                                dtype=np.int64).reshape(len(self.sections), self.nb)
        self._bits = np.array([self.held_bit.get(b, 0) for b in range(self.nb)], dtype=np.int64)
        # a sheet's parts by box id (parts_of)
        ids = [b.id for b in rules.boxes]
        self._bit_of = {box_id: 1 << i for i, box_id in enumerate(ids)}
        self._section_ids = [([ids[b] for b in sorted(boxes)], threshold, stride)
                             for (boxes, threshold, _), stride in zip(self.sections, self.strides)]
        self._held_ids = [(ids[b], bit) for b, bit in self.held_bit.items()]
        self._number()

    def _number(self) -> None:
        """The lookups :meth:`index` and :meth:`parts` number states by.

        Per section, its digit's rank among the subtotals its closed boxes can make, by the closed boxes
        of that section (a run of ``threshold + 1`` per subset of them); per mask, where its run starts and
        how many flags it has; per subset of the held boxes closed, each flags' rank. A digit or flags no
        sheet with that mask can have ranks 0: such an index is never read (a box closed twice, see
        :meth:`Solver.now_by_roll`), only computed."""
        masks = np.arange(1 << self.nb, dtype=np.int64)
        count = np.ones(len(masks), dtype=np.int64)
        self._digits = []  # per section: (its closed boxes' subset of each mask, ranks by subset x digit, counts)
        self._fates = []  # per section, by subset x digit: which of the sums still to come would earn its bonus
        for i, (boxes, threshold, _) in enumerate(self.sections):
            members = sorted(boxes)
            subset = sum(((masks >> b) & 1) << j for j, b in enumerate(members))
            ranks = np.zeros((1 << len(members), threshold + 1), dtype=np.int64)
            counts = np.zeros(1 << len(members), dtype=np.int64)
            for s in range(1 << len(members)):
                reach = self._subtotals(i, sum(1 << b for j, b in enumerate(members) if s >> j & 1))
                ranks[s, reach] = np.arange(len(reach))
                counts[s] = len(reach)
            self._digits.append((subset * (threshold + 1), ranks.ravel(), counts[subset]))
            self._fates.append(self._fate(i, members, threshold))
            count *= counts[subset]
        held_subset = sum(((masks >> b) & 1) << j for j, b in enumerate(self.held)) if self.held else masks * 0
        self._flag_values = [self._flags_of(sum(1 << b for j, b in enumerate(self.held) if s >> j & 1))
                             for s in range(1 << len(self.held))]
        flag_rank = np.zeros((len(self._flag_values), self.F), dtype=np.int64)
        for s, values in enumerate(self._flag_values):
            flag_rank[s, values] = np.arange(len(values))
        self._held_subset = held_subset
        self._flag_rank = flag_rank.ravel()
        self._flag_count = np.array([len(v) for v in self._flag_values], dtype=np.int64)[held_subset]
        count *= self._flag_count
        self._start = np.concatenate(([0], np.cumsum(count)[:-1]))
        self.size = int(count.sum())
        # What :meth:`index` reads: a mask's states are numbered alike whenever its closed boxes in each section
        # and among the held ones are alike (Yahtzee: 128 patterns of 64 subtotals x 2 flags), so one small
        # table of each pattern's numbering within a mask, and a mask's start, give a number in two lookups.
        pattern = np.zeros(len(masks), dtype=np.int64)
        for subset, _, _ in self._digits:
            pattern = pattern * (int(subset.max()) + 1) + subset
        pattern = pattern * (1 << len(self.held)) + held_subset
        kinds, first, which = np.unique(pattern, return_index=True, return_inverse=True)
        uf = np.arange(self.U * self.F, dtype=np.int64)
        self._within = None
        if len(kinds) * len(uf) <= self.PATTERNS_MAX:  # else (several big sections) from the ranks each time
            self._within = np.concatenate([self._ranked(np.full(len(uf), m), uf // self.F, uf % self.F)
                                           - self._start[m] for m in first.tolist()])
            self._row = which.astype(np.int64) * len(uf)

    def _fate(self, section: int, members: list[int], threshold: int) -> np.ndarray:
        """By (subset of the section's boxes closed) x digit: how many of the sums its open boxes can still
        add fall short of the threshold. The sums that reach it are the rest, so two digits with the same
        count earn the bonus after exactly the same futures: see :meth:`alike`."""
        fate = np.zeros((1 << len(members), threshold + 1), dtype=np.int64)
        for s in range(1 << len(members)):
            still_open = sum(1 << b for j, b in enumerate(members) if not s >> j & 1)
            # what the open boxes can add is what they would make closed: the same capped sums
            fate[s] = np.searchsorted(self._subtotals(section, still_open), threshold - np.arange(threshold + 1))
        return fate.ravel()

    def alike(self, mask, u, flags) -> np.ndarray:
        """A key per state, equal for states of one mask and flags whose values are equal by construction.

        A subtotal matters only through its section's bonus at the end. Two subtotals after which the same
        sums still to come reach the threshold (both out of reach, both reached, or a last box that can only
        add 0 or 24 needing 22 or 23) have the same future: every move leads both to states alike again, and
        the last one pays both the same bonus. A build solves one state of each key (two fifths of a Yahtzee
        table's states are another's twin) and the others copy its value, bit for bit what they would get."""
        mask = np.asarray(mask)
        key = mask
        for (subset, _, _), fate, stride, (_, threshold, _) in zip(self._digits, self._fates, self.strides,
                                                                   self.sections):
            key = key * (threshold + 2) + fate[subset[mask] + (np.asarray(u) // stride) % (threshold + 1)]
        return key * self.F + flags

    #: The most entries the patterns' table may take (8 bytes each).
    PATTERNS_MAX = 1 << 20

    def index(self, mask, u, flags):
        """The number of the state (mask, subtotals, flags); numpy arrays broadcast together."""
        if self._within is None:
            return self._ranked(mask, u, flags)
        mask = np.asarray(mask)
        return self._start[mask] + self._within[self._row[mask] + np.asarray(u) * self.F + flags]

    def index_one(self, mask: int, u: int, flags: int) -> int:
        """:meth:`index` of one state, from plain numbers (advice: a lookup of an item costs less than an array's)."""
        if self._within is None:
            return int(self._ranked(mask, u, flags))
        return int(self._start.item(mask)) + int(self._within.item(int(self._row.item(mask)) + u * self.F + flags))

    def _ranked(self, mask, u, flags):
        """:meth:`index` from the ranks themselves (each section's digit, then the flags): what its table holds."""
        rank = 0
        for (subset, ranks, counts), stride, (_, threshold, _) in zip(self._digits, self.strides, self.sections):
            rank = rank * counts[mask] + ranks[subset[mask] + (u // stride) % (threshold + 1)]
        return self._start[mask] + rank * self._flag_count[mask] + \
            self._flag_rank[self._held_subset[mask] * self.F + flags]

    def parts(self, state: int) -> tuple[int, int, int]:
        """A state's (mask, subtotals, flags): :meth:`index` undone."""
        state = int(state)
        mask = int(np.searchsorted(self._start, state, side="right")) - 1
        rank, f = divmod(state - int(self._start[mask]), int(self._flag_count[mask]))
        flags = self._flag_values[int(self._held_subset[mask])][f]
        u = 0
        for i in range(len(self.sections) - 1, -1, -1):
            reach = self._subtotals(i, mask)
            rank, r = divmod(rank, len(reach))
            u += reach[r] * self.strides[i]
        return mask, u, flags

    def close(self, mask, u, flags, box: int, points):
        """The state after ``box`` takes ``points`` (numpy arrays broadcast together)."""
        for i, (boxes, threshold, _) in enumerate(self.sections):
            if box in boxes:
                st = self.strides[i]
                ui = (u // st) % (threshold + 1)
                u = u + (np.minimum(threshold, ui + points) - ui) * st
        if box in self.held_bit:
            flags = flags | np.where(np.asarray(points) > 0, self.held_bit[box], 0)
        return self.index(mask | (1 << box), u, flags)

    def close_many(self, mask, u, flags, box: np.ndarray, points: np.ndarray) -> np.ndarray:
        """The states after each ``box[k]`` takes ``points[k]``: :meth:`close`, vectorised over the boxes (a
        section's digit moves only for its own boxes; the sections' digits are apart), from one state or from
        states that broadcast to ``box`` (a batch's chosen boxes, rolls x states)."""
        uu = np.full(box.shape, u, dtype=np.int64)
        for i, (_, threshold, _) in enumerate(self.sections):
            st = self.strides[i]
            ui = (u // st) % (threshold + 1)
            uu += self._member[i][box] * (np.minimum(threshold, ui + points) - ui) * st
        ff = flags | np.where(points > 0, self._bits[box], 0)
        return self.index(mask | (1 << box), uu, ff)

    def bonus(self, u) -> np.ndarray:
        """The section bonuses a full sheet earns with these capped subtotals."""
        out = np.zeros_like(u, dtype=float)
        for i, (_, threshold, points) in enumerate(self.sections):
            out += np.where((u // self.strides[i]) % (threshold + 1) == threshold, points, 0)
        return out

    def _subtotals(self, section: int, mask: int) -> list[int]:
        """The capped subtotals a section can have with these boxes closed."""
        boxes, threshold, _ = self.sections[section]
        key = (section, mask & sum(1 << b for b in boxes))
        if key not in self._reach:
            sums = {0}
            for b in boxes:
                if mask >> b & 1:
                    sums = {min(threshold, s + p) for s in sums for p in self.possible[b]}
            self._reach[key] = sorted(sums)
        return self._reach[key]

    def _flags_of(self, mask: int) -> list[int]:
        """The held flags a sheet with ``mask`` closed can have, in order: a closed box that may hold 0 or
        points doubles them, one that cannot hold 0 sets its bit, a free one leaves it clear."""
        f_values = [0]
        for b, bit in self.held_bit.items():
            if mask >> b & 1 and any(self.possible[b]) and 0 in self.possible[b]:
                f_values = f_values + [f | bit for f in f_values]
            elif mask >> b & 1 and 0 not in self.possible[b]:
                f_values = [f | bit for f in f_values]
        return f_values

    def states(self, closed: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Every reachable state with ``closed`` boxes closed: (masks, subtotals, flags)."""
        parts = list(self.batches(closed, 1 << 62))
        if not parts:
            return (np.zeros(0, dtype=np.int64),) * 3
        return tuple(np.concatenate(a) for a in zip(*parts))  # type: ignore[return-value]

    def batches(self, closed: int, size: int) -> Iterator[tuple[np.ndarray, np.ndarray, np.ndarray]]:
        """:meth:`states` in batches of about ``size`` (whole masks each), in the same order: a build never
        holds a whole level (a Yatzy level is 400,000 states)."""
        masks: list[int] = []
        parts: list[tuple[np.ndarray, np.ndarray]] = []
        count = 0
        for boxes in combinations(range(self.nb), closed):
            mask = sum(1 << b for b in boxes)
            masks.append(mask)
            parts.append(self._of_mask(mask))
            count += len(parts[-1][0])
            if count >= size:
                yield self._batch(masks, parts)
                masks, parts, count = [], [], 0
        if masks:
            yield self._batch(masks, parts)

    @staticmethod
    def _batch(masks: list[int], parts: list[tuple[np.ndarray, np.ndarray]]):
        return (np.repeat(np.array(masks, dtype=np.int64), [len(u) for u, _ in parts]),
                np.concatenate([u for u, _ in parts]), np.concatenate([f for _, f in parts]))

    def _of_mask(self, mask: int) -> tuple[np.ndarray, np.ndarray]:
        """A mask's reachable (subtotals, flags), in :meth:`index`'s order: kept per closed boxes of each section
        and of the held boxes, all they depend on (a Yatzy has 32,768 masks and 128 of these)."""
        key = (tuple(int(subset[mask]) for subset, _, _ in self._digits), int(self._held_subset[mask]))
        found = self._runs.get(key)
        if found is None:
            u_values = np.zeros(1, dtype=np.int64)
            for i in range(len(self.sections)):
                digits = np.array(self._subtotals(i, mask), dtype=np.int64) * self.strides[i]
                u_values = (u_values[:, None] + digits[None, :]).ravel()
            f_arr = np.array(self._flag_values[key[1]], dtype=np.int64)
            found = self._runs[key] = (np.repeat(u_values, len(f_arr)), np.tile(f_arr, len(u_values)))
        return found

    def state_of(self, sheet: Mapping[str, int]) -> int:
        """A checked sheet's state."""
        return self.index_one(*self.parts_of(sheet))

    def parts_of(self, sheet: Mapping[str, int]) -> tuple[int, int, int]:
        """A checked sheet's (mask, subtotals, flags): :meth:`parts` of its state, read from the sheet."""
        mask = 0
        for box_id in sheet:
            mask |= self._bit_of[box_id]
        u = 0
        for ids, threshold, stride in self._section_ids:
            u += min(threshold, sum([sheet.get(box_id, 0) for box_id in ids])) * stride
        flags = 0
        for box_id, bit in self._held_ids:
            if sheet.get(box_id):
                flags |= bit
        return mask, u, flags

    def moves(self, box: np.ndarray, points: np.ndarray) -> "Moves | None":
        """What :meth:`close_moves` needs of a fixed list of moves (``box[k]`` takes ``points[k]``), worked out
        once; None where :meth:`index` reads the ranks (no patterns' table)."""
        if self._within is None:
            return None
        lift = [self._member[i][box] * np.minimum(points, threshold) * (stride * self.F)
                for i, ((_, threshold, _), stride) in enumerate(zip(self.sections, self.strides))]
        held = np.where(points > 0, self._bits[box], 0)
        return Moves(1 << box, [held | flags for flags in range(self.F)], lift)

    def moves_from(self, mask: int, moves: "Moves") -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """What :meth:`close_moves` reads of ``mask`` alone, for each move: its mask's row of the patterns' table
        and where its states start (as int32: a few kilobytes a mask), and whether its box is closed already."""
        closed = mask | moves.bit
        return self._row[closed].astype(np.int32), self._start[closed].astype(np.int32), (mask & moves.bit) != 0

    def close_moves(self, mask: int, u: int, flags: int, moves: "Moves",
                    of_mask: tuple[np.ndarray, np.ndarray, np.ndarray] | None = None) -> np.ndarray:
        """:meth:`close_many` from one state for moves worked out by :meth:`moves`, in fewer array operations (a
        sheet's advice is a few dozen of them, each costing more than its arithmetic): a section's digit moves by
        ``min(points, threshold - digit)``, and the mask's row of the patterns' table is read once per move
        (``of_mask``: :meth:`moves_from`'s, if kept)."""
        row, start, _ = self.moves_from(mask, moves) if of_mask is None else of_mask
        at = row + moves.flagged[flags]
        for lift, stride, (_, threshold, _) in zip(moves.lift, self.strides, self.sections):
            at += np.minimum(lift, (threshold - (u // stride) % (threshold + 1)) * stride * self.F)
        return start + self._within[u * self.F:].take(at)  # the subtotals' offset as a view's

    def sheet_of(self, mask: int, flags: int) -> dict[str, int]:
        """A sheet in this context (closed boxes, held flags): what the engine needs to score a roll."""
        sheet = {}
        for i, box in enumerate(self.rules.boxes):
            if mask >> i & 1:
                held = i in self.held_bit and flags & self.held_bit[i]
                sheet[box.id] = max(self.possible[i]) if held else 0
        return sheet
