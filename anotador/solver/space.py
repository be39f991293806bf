"""The states of one rule set's sheets, numbered densely: what the solver's tables are indexed by.

A state is what the rest of a game depends on (:mod:`.solve` says why):
which boxes are closed; each bonus section's subtotal, capped at its
threshold; and, for the boxes whose value matters later, whether they hold
points. ``index = ((mask * U) + subtotals) * F + flags``.
"""

from __future__ import annotations

from itertools import combinations
from typing import TYPE_CHECKING, Iterator, Mapping

import numpy as np

if TYPE_CHECKING:  # pragma: no cover
    from ..rules import RuleSet


class Space:
    """The states of one rule set, numbered densely: ``((mask * U) + subtotals) * F + flags``."""

    def __init__(self, rules: "RuleSet") -> None:
        self.rules = rules
        self.nb = len(rules.boxes)
        self.sections = [(frozenset(rules.index[b] for b in s.boxes), s.threshold, s.points) for s in rules.bonuses]
        self.strides = []
        stride = 1
        for _, threshold, _ in reversed(self.sections):
            self.strides.insert(0, stride)
            stride *= threshold + 1
        self.U = stride
        self.held = rules.held_matters
        self.held_bit = {b: 1 << j for j, b in enumerate(self.held)}
        self.F = 1 << len(self.held)
        self.size = (1 << self.nb) * self.U * self.F
        possible = rules.possible_points
        self.possible = [sorted(possible[b.id]) for b in rules.boxes]
        self._reach: dict[tuple[int, int], list[int]] = {}
        # per section, which boxes count in it; per box, its held bit (for close_many)
        self._member = np.array([[b in boxes for b in range(self.nb)] for boxes, _, _ in self.sections],
                                dtype=np.int64).reshape(len(self.sections), self.nb)
        self._bits = np.array([self.held_bit.get(b, 0) for b in range(self.nb)], dtype=np.int64)

    def index(self, mask, u, flags):
        return (mask * self.U + u) * self.F + flags

    def parts(self, state: int) -> tuple[int, int, int]:
        """A state's (mask, subtotals, flags): :meth:`index` undone."""
        mask, rest = divmod(int(state), self.U * self.F)
        u, flags = divmod(rest, self.F)
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

    def close_many(self, mask: int, u: int, flags: int, box: np.ndarray, points: np.ndarray) -> np.ndarray:
        """The states after each ``box[k]`` takes ``points[k]``, from one state: :meth:`close`, vectorised over
        the boxes (a section's digit moves only for its own boxes; the sections' digits are apart)."""
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

    def states(self, closed: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Every reachable state with ``closed`` boxes closed: (masks, subtotals, flags)."""
        parts = list(self.batches(closed, 1 << 62))
        if not parts:
            return (np.zeros(0, dtype=np.int64),) * 3
        return tuple(np.concatenate(a) for a in zip(*parts))  # type: ignore[return-value]

    def batches(self, closed: int, size: int) -> Iterator[tuple[np.ndarray, np.ndarray, np.ndarray]]:
        """:meth:`states` in batches of about ``size`` (whole masks each), in the same order: a build never
        holds a whole level (a Yatzy level is 400,000 states)."""
        masks, us, fs, count = [], [], [], 0
        for boxes in combinations(range(self.nb), closed):
            mask = sum(1 << b for b in boxes)
            u_values = np.zeros(1, dtype=np.int64)
            for i in range(len(self.sections)):
                digits = np.array(self._subtotals(i, mask), dtype=np.int64) * self.strides[i]
                u_values = (u_values[:, None] + digits[None, :]).ravel()
            f_values = [0]
            for b, bit in self.held_bit.items():
                if mask >> b & 1 and any(self.possible[b]) and 0 in self.possible[b]:
                    f_values = f_values + [f | bit for f in f_values]
                elif mask >> b & 1 and 0 not in self.possible[b]:
                    f_values = [f | bit for f in f_values]
            f_arr = np.array(f_values, dtype=np.int64)
            n = len(u_values) * len(f_arr)
            us.append(np.repeat(u_values, len(f_arr)))
            fs.append(np.tile(f_arr, len(u_values)))
            masks.append(np.full(n, mask, dtype=np.int64))
            count += n
            if count >= size:
                yield np.concatenate(masks), np.concatenate(us), np.concatenate(fs)
                masks, us, fs, count = [], [], [], 0
        if masks:
            yield np.concatenate(masks), np.concatenate(us), np.concatenate(fs)

    def state_of(self, sheet: Mapping[str, int]) -> int:
        """A checked sheet's state."""
        mask = sum(1 << i for i, b in enumerate(self.rules.boxes) if b.id in sheet)
        u = 0
        for i, (boxes, threshold, _) in enumerate(self.sections):
            u += min(threshold, sum(sheet[self.rules.boxes[b].id] for b in boxes if self.rules.boxes[b].id in sheet)) \
                * self.strides[i]
        flags = sum(bit for b, bit in self.held_bit.items() if sheet.get(self.rules.boxes[b].id))
        return int(self.index(mask, u, flags))

    def sheet_of(self, mask: int, flags: int) -> dict[str, int]:
        """A sheet in this context (closed boxes, held flags): what the engine needs to score a roll."""
        sheet = {}
        for i, box in enumerate(self.rules.boxes):
            if mask >> i & 1:
                held = i in self.held_bit and flags & self.held_bit[i]
                sheet[box.id] = max(self.possible[i]) if held else 0
        return sheet
