"""Dice as multisets: every roll, every keep, and the chances between them.

A multiset of dice is its counts per face, ``(c1, ..., c6)``. A turn of ``n``
dice sees :data:`Dice.rolls` (252 for five dice, 3003 for ten) and keeps any
proper sub-multiset before rolling the rest again (210 and 5005). Everything
here depends only on the number of dice, so it is built once per size.
"""

from __future__ import annotations

from functools import cache
from math import factorial

import numpy as np

FACES = 6
#: Floats gathered at once by :meth:`Dice.expect` for ten dice.
GATHER = 1 << 19


def multisets(n: int) -> list[tuple[int, ...]]:
    """Every multiset of ``n`` dice as counts per face, in a fixed order."""
    out: list[tuple[int, ...]] = []

    def rec(prefix: tuple[int, ...], left: int) -> None:
        if len(prefix) == FACES - 1:
            out.append(prefix + (left,))
            return
        for c in range(left, -1, -1):
            rec(prefix + (c,), left - c)

    rec((), n)
    return out


def chance(counts: tuple[int, ...]) -> float:
    """The probability that ``sum(counts)`` fair dice show exactly these counts."""
    n = sum(counts)
    ways = factorial(n)
    for c in counts:
        ways //= factorial(c)
    return ways / FACES ** n


def expand(counts: tuple[int, ...]) -> list[int]:
    """Counts → sorted faces: (0, 0, 3, 0, 1, 1) → [3, 3, 3, 5, 6]."""
    return [face for face, c in enumerate(counts, start=1) for _ in range(c)]


class Dice:
    """The rolls and keeps of a turn with ``n`` dice, and the chances between them.

    ``rolls``: the multisets of ``n`` dice; ``first``: their chances on a
    fresh roll. ``keeps``: the multisets of fewer than ``n`` dice (what a
    player may keep before rolling the rest), smallest first. ``lattice``:
    for every keep and roll, the keeps one die smaller (the children), so
    "the best keep within this roll" is a maximum over the lattice.
    """

    def __init__(self, n: int) -> None:
        self.n = n
        self.rolls = multisets(n)
        self.roll_index = {r: i for i, r in enumerate(self.rolls)}
        self.first = np.array([chance(r) for r in self.rolls])
        self.keeps = [k for size in range(n) for k in multisets(size)]
        self.keep_index = {k: i for i, k in enumerate(self.keeps)}
        self._sub_keeps: dict[tuple[int, ...], list[int]] = {}
        self.keep_faces = [tuple(expand(k)) for k in self.keeps]  # each keep as sorted faces
        self.keep_size = np.array([sum(k) for k in self.keeps])
        # Children one die smaller, padded with a repeated child (harmless under a maximum).
        self.keep_children = self._children(self.keeps)
        self.roll_children = self._children(self.rolls)
        self._transition()
        # Five dice or fewer: every roll's proper sub-keeps at once (at most 31 each, padded with a
        # repeat), so one state's best keep within each roll is one gather and one maximum.
        if n <= 5:
            subs = [self.sub_keeps(r) for r in self.rolls]
            width = max(len(k) for k in subs)
            self.within = np.array([k + [k[0]] * (width - len(k)) for k in subs]).T.copy()  # width x rolls
        else:
            self.within = None

    def _children(self, sets: list[tuple[int, ...]]) -> list[tuple[np.ndarray, np.ndarray]]:
        """Per size: (indices of the sets of that size, their children's keep indices padded to a width)."""
        by_size: dict[int, list[tuple[int, list[int]]]] = {}
        for i, s in enumerate(sets):
            if sum(s) == 0:
                continue
            kids = []
            for f in range(FACES):
                if s[f]:
                    kids.append(self.keep_index[s[:f] + (s[f] - 1,) + s[f + 1:]])
            by_size.setdefault(sum(s), []).append((i, kids))
        out = []
        for size in sorted(by_size):
            rows = by_size[size]
            width = max(len(k) for _, k in rows)
            kids = np.array([k + [k[0]] * (width - len(k)) for _, k in rows])
            out.append((np.array([i for i, _ in rows]), kids))
        return out

    def _transition(self) -> None:
        """Per keep size: the rolls each keep can become and their chances (a sparse matrix by rows)."""
        self.outcomes: list[tuple[np.ndarray, np.ndarray, np.ndarray]] = []
        for size in range(self.n):
            keeps = [i for i, k in enumerate(self.keeps) if sum(k) == size]
            fresh = multisets(self.n - size)
            p = np.array([chance(f) for f in fresh])
            idx = np.array([[self.roll_index[tuple(a + b for a, b in zip(self.keeps[k], f))] for f in fresh]
                            for k in keeps])
            self.outcomes.append((np.array(keeps), idx, p))
        if self.n <= 5:  # small enough for a dense matrix: one BLAS product per batch
            dense = np.zeros((len(self.keeps), len(self.rolls)))
            for keeps, idx, p in self.outcomes:
                for row, k in enumerate(keeps):
                    np.add.at(dense[k], idx[row], p)
            self.dense = dense.T.copy()  # rolls × keeps
        else:
            self.dense = None

    def expect(self, values: np.ndarray) -> np.ndarray:
        """Values of rolls (states × rolls) → expected value of each keep after rolling the rest (states × keeps)."""
        if self.dense is not None:
            return values @ self.dense
        out = np.empty((values.shape[0], len(self.keeps)))
        for keeps, idx, p in self.outcomes:
            # a few keeps at a time: the gathered outcomes stay near 4 MiB, not 100s of MiB for ten dice
            step = max(1, GATHER // (values.shape[0] * idx.shape[1]))
            for lo in range(0, len(keeps), step):
                out[:, keeps[lo:lo + step]] = values[:, idx[lo:lo + step]] @ p
        return out

    def best_within(self, keep_values: np.ndarray) -> np.ndarray:
        """Expected values of keeps (states × keeps) → for every roll, its best proper keep (states × rolls)."""
        if keep_values.shape[0] == 1 and self.within is not None:  # one state: the same maximum, at once
            return keep_values[0][self.within].max(axis=0)[None, :]
        best = keep_values.copy()
        for sets, kids in self.keep_children:  # smallest first: a keep's children are final already
            best[:, sets] = np.maximum(best[:, sets], best[:, kids].max(axis=2))
        (sets, kids), = self.roll_children
        out = np.empty((keep_values.shape[0], len(self.rolls)))
        out[:, sets] = best[:, kids].max(axis=2)
        return out

    def sub_keeps(self, roll: tuple[int, ...]) -> list[int]:
        """Every distinct proper sub-multiset of a roll, as keep indices (worked out once per roll)."""
        found = self._sub_keeps.get(roll)
        if found is None:
            found = self._sub_keeps[roll] = self._find_sub_keeps(roll)
        return found

    def _find_sub_keeps(self, roll: tuple[int, ...]) -> list[int]:
        out = []

        def rec(prefix: tuple[int, ...]) -> None:
            f = len(prefix)
            if f == FACES:
                if sum(prefix) < self.n:
                    out.append(self.keep_index[prefix])
                return
            for c in range(roll[f] + 1):
                rec(prefix + (c,))

        rec(())
        return out


@cache
def dice(n: int) -> Dice:
    """The (shared, immutable) rolls and keeps for ``n`` dice."""
    return Dice(n)
