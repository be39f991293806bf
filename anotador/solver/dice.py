"""Dice as multisets: every roll, every keep, and the chances between them.

A multiset of dice is its counts per face, ``(c1, ..., c6)``. A turn of ``n``
dice sees :data:`Dice.rolls` (252 for five dice, 3003 for ten) and keeps any
proper sub-multiset before rolling the rest again (210 and 5005). Everything
here depends only on the number of dice, so it is built once per size.
"""

from __future__ import annotations

from functools import cache, cached_property
from math import factorial, prod

import numpy as np

FACES = 6


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


class Scratch:
    """Working arrays a build reuses from batch to batch, by name.

    A fresh array for each step of each batch cost a Yahtzee build 1.8 million page faults, half its CPU
    time: the allocator hands arrays this big back to the kernel and maps them afresh. A step gets a
    contiguous view of the first elements of its name's buffer, grown as needed; what a step returns is
    overwritten by the next batch, so only a build (which keeps nothing but the values) passes one."""

    def __init__(self) -> None:
        self._buffers: dict[str, np.ndarray] = {}

    @staticmethod
    def array(scratch: "Scratch | None", name: str, shape: tuple[int, ...]) -> np.ndarray:
        """An uninitialised float array of ``shape``: ``scratch``'s buffer ``name``, or a new one."""
        if scratch is None:
            return np.empty(shape)
        size = prod(shape)
        buffer = scratch._buffers.get(name)
        if buffer is None or buffer.size < size:
            buffer = scratch._buffers[name] = np.empty(max(size, 2 * (0 if buffer is None else buffer.size)))
        return buffer[:size].reshape(shape)


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
        self._ranked: dict[tuple[int, ...], tuple[np.ndarray, list[tuple[int, ...]]]] = {}
        self.keep_faces = [tuple(expand(k)) for k in self.keeps]  # each keep as sorted faces
        self.keep_size = np.array([sum(k) for k in self.keeps])
        # Children one die smaller, padded with a repeated child (harmless under a maximum).
        self.keep_children = self._children(self.keeps)
        self.roll_children = self._children(self.rolls)
        # Per keep size, largest first: its keeps and, for each face, the keep (or roll, for the largest)
        # one die larger.
        self.up = {}
        for size in range(n):
            keeps = [i for i, k in enumerate(self.keeps) if sum(k) == size]
            assert keeps == list(range(keeps[0], keeps[-1] + 1))  # a run: expect_by_keep sums each level in place
            bigger = self.roll_index if size == n - 1 else self.keep_index
            self.up[size] = (np.array(keeps), np.array(
                [[bigger[self.keeps[k][:f] + (self.keeps[k][f] + 1,) + self.keeps[k][f + 1:]] for f in range(FACES)]
                 for k in keeps]))
        # the same for one state (expect_one): per level, largest first, its run of keeps and their children
        # face by face (faces x keeps); the keeps of one die and none (a level of six, one of one) summed in
        # plain numbers: what they read (the keeps to the end of two dice's), each keep's children, and their end
        small = [size for size in (1, 0) if size < n - 2]
        self._levels = [(int(self.up[size][0][0]), int(self.up[size][0][-1]) + 1,
                         np.ascontiguousarray(self.up[size][1].T)) for size in range(n - 1, -1, -1)
                        if size not in small]
        self._smallest = (int(self.up[2][0][-1]) + 1, [(int(k), tuple(kids)) for size in small for k, kids in
                                                      zip(self.up[size][0], self.up[size][1].tolist())],
                          int(self.up[1][0][-1]) + 1) if small else None
        # Five dice or fewer: every roll's proper sub-keeps at once (at most 31 each, padded with a
        # repeat), so one state's best keep within each roll is one gather and one maximum.
        if n <= 5:
            subs = [self.sub_keeps(r) for r in self.rolls]
            width = max(len(k) for k in subs)
            self.within = np.array([k + [k[0]] * (width - len(k)) for k in subs]).T.copy()  # width x rolls
            # the same, each roll's distinct sub-keeps in a run (4,116 of them where the padded are 7,812)
            self._within_runs = (np.concatenate([np.unique(k) for k in subs]).astype(np.intp),
                                 np.cumsum([0] + [len(set(k)) for k in subs[:-1]]).astype(np.intp))
        else:
            self.within = None

    def _children(self, sets: list[tuple[int, ...]]) -> list[tuple[np.ndarray, np.ndarray, list[int]]]:
        """Per size: (indices of the sets of that size, their children's keep indices padded to a width, and
        for each column how many sets have a child there: the sets are in order of most children first)."""
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
            # most children first: the sets with a j-th child are a prefix (see best_within_by_roll)
            rows = sorted(by_size[size], key=lambda row: -len(row[1]))
            width = max(len(k) for _, k in rows)
            kids = np.array([k + [k[0]] * (width - len(k)) for _, k in rows])
            out.append((np.array([i for i, _ in rows]), kids, [sum(len(k) > j for _, k in rows) for j in range(width)]))
        return out

    def expect(self, values: np.ndarray) -> np.ndarray:
        """Values of rolls (states × rolls) → expected value of each keep after rolling the rest (states × keeps).

        The same sums, in the same order, as :meth:`expect_by_keep`: a state's numbers do not depend on the
        layout or on the batch it is in."""
        if values.shape[0] > 1:
            return self.expect_by_keep(values.T).T
        return self.expect_one(values[0])[None, :]

    def expect_one(self, values: np.ndarray) -> np.ndarray:
        """:meth:`expect` for one state (advice): a gather, a sum and a division a level (a sum of six goes in
        order), each in place in the level's run of keeps."""
        out = np.empty(len(self.keeps))
        for start, stop, faces in self._levels:
            level = out[start:stop]
            # faces x keeps: the sum over the outer axis is a row at a time, in order (summing along axis 1 is slower)
            np.add.reduce((values if stop == len(self.keeps) else out).take(faces), 0, None, level)
            np.divide(level, FACES, out=level)
        if self._smallest:  # the keeps of one die and none in plain numbers: 2 of numpy's 15 calls, not 6
            row = out[:self._smallest[0]].tolist()
            for k, (a, b, c, d, e, f) in self._smallest[1]:  # the same sums, face by face in order
                row[k] = (((((row[a] + row[b]) + row[c]) + row[d]) + row[e]) + row[f]) / FACES
            out[:self._smallest[2]] = row[:self._smallest[2]]
        return out

    def best_within(self, keep_values: np.ndarray) -> np.ndarray:
        """Expected values of keeps (states × keeps) → for every roll, its best proper keep (states × rolls)."""
        if keep_values.shape[0] == 1 and self.within is not None:  # one state of five dice: at once
            return self.best_within_one(keep_values[0])[None, :]
        return self.best_within_by_roll(keep_values.T).T

    def best_within_one(self, keep_values: np.ndarray) -> np.ndarray:
        """:meth:`best_within` for one state of five dice (keeps → rolls): a gather and a maximum over each
        roll's run of sub-keeps."""
        keeps, starts = self._within_runs
        return np.maximum.reduceat(keep_values.take(keeps), starts)

    def expect_by_keep(self, values: np.ndarray, scratch: "Scratch | None" = None) -> np.ndarray:
        """:meth:`expect` for values as rolls x states: keeps x states.

        A die at a time, the largest keeps first: a keep is worth the mean, over the six faces, of the keep
        (or roll) one die larger. Exact, in a fixed order (faces 1 to 6), and 1,260 row additions for five
        dice where a matrix product of every keep's outcomes did 52,920 multiply-adds."""
        n = values.shape[1]
        out = Scratch.array(scratch, "expect", (len(self.keeps), n))
        for size in range(self.n - 1, -1, -1):
            keeps, up = self.up[size]
            source = values if size == self.n - 1 else out
            level = out[keeps[0]:keeps[-1] + 1]  # the keeps of one size are a run (smallest first): summed in place
            child = Scratch.array(scratch, "child", (len(keeps), n))
            source.take(up[:, 0], axis=0, out=level)
            for f in range(1, FACES):
                np.add(level, source.take(up[:, f], axis=0, out=child), out=level)
            np.divide(level, FACES, out=level)
        return out

    def best_within_by_roll(self, keep_values: np.ndarray, scratch: "Scratch | None" = None) -> np.ndarray:
        """:meth:`best_within` for values as keeps x states: rolls x states. The lattice a child at a time,
        each a whole row per keep: about three times faster than gathering columns. The keeps are laid out
        level by level, each level's most children first (:attr:`_by_children`), so a level is a run of rows
        and the keeps with a j-th child a prefix of it: maxima in place, no gather of a level, no scatter."""
        n = keep_values.shape[1]
        order, levels, roll_kids = self._by_children
        best = keep_values.take(order, axis=0, out=Scratch.array(scratch, "best", keep_values.shape))
        child = Scratch.array(scratch, "child", (len(self.rolls), n))
        for start, kids, with_child in levels:  # smallest first: a keep's children are final already
            level = best[start:start + len(kids)]
            for j, m in enumerate(with_child):  # only the keeps that have a j-th child
                np.maximum(level[:m], best.take(kids[:m, j], axis=0, out=child[:m]), out=level[:m])
        (sets, _, with_child), = self.roll_children
        out = Scratch.array(scratch, "within", (len(self.rolls), n))
        level = best.take(roll_kids[:, 0], axis=0, out=Scratch.array(scratch, "level", (len(sets), n)))
        for j, m in enumerate(with_child[1:], start=1):
            np.maximum(level[:m], best.take(roll_kids[:m, j], axis=0, out=child[:m]), out=level[:m])
        out[sets] = level
        return out

    @cached_property
    def _by_children(self) -> tuple[np.ndarray, list[tuple[int, np.ndarray, list[int]]], np.ndarray]:
        """:attr:`keep_children` laid out for :meth:`best_within_by_roll`: the keeps in the order the levels list
        them (smallest first, each level most children first), and per level where it starts in that order and
        its children's places there; the rolls' children's places too."""
        order = np.concatenate([[k for k in range(len(self.keeps)) if self.keep_size[k] == 0]]
                               + [sets for sets, _, _ in self.keep_children]).astype(np.int64)
        place = np.empty(len(order), dtype=np.int64)
        place[order] = np.arange(len(order))
        levels, start = [], len(order) - sum(len(sets) for sets, _, _ in self.keep_children)
        for sets, kids, with_child in self.keep_children:
            levels.append((start, place[kids], with_child))
            start += len(sets)
        (_, roll_kids, _), = self.roll_children
        return order, levels, place[roll_kids]

    @cached_property
    def after_keep(self) -> np.ndarray:
        """``[k, r]``: the chance that keeping ``k`` and throwing the rest gives roll ``r`` (keeps x rolls)."""
        out = np.zeros((len(self.keeps), len(self.rolls)))
        for k, keep in enumerate(self.keeps):
            for rest in multisets(self.n - sum(keep)):
                out[k, self.roll_index[tuple(a + b for a, b in zip(keep, rest))]] += chance(rest)
        return out

    @cached_property
    def keep_rank(self) -> np.ndarray:
        """Each keep's place among keeps worth the same, as advice orders them: more dice first, then lower
        faces (keeping 3-3-3-5 before 3-3-3-6)."""
        order = sorted(range(len(self.keeps)), key=lambda k: (-len(self.keep_faces[k]), self.keep_faces[k]))
        rank = np.empty(len(order), dtype=np.int64)
        rank[order] = np.arange(len(order))
        return rank

    def best_keep(self, keep_values: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """One state's keep values (keeps) → for every roll, the keep advice names first and its value.

        The best value, and among keeps worth exactly that, the first by :attr:`keep_rank`: for five dice
        at once over each roll's sub-keeps, for ten along the lattice (as :meth:`best_within_by_roll`)."""
        if self.within is not None:
            values = keep_values[self.within]  # sub-keeps x rolls
            best = values.max(axis=0)
            ranks = np.where(values == best, self.keep_rank[self.within], len(self.keeps))
            return self.within[ranks.argmin(axis=0), np.arange(len(self.rolls))], best
        value, index, rank = keep_values.astype(float), np.arange(len(self.keeps)), self.keep_rank

        def level(sets, kids, with_child, v, i, skip_first=False):
            for j, m in enumerate(with_child):
                if skip_first and j == 0:
                    continue
                cv, ci = value[kids[:m, j]], index[kids[:m, j]]
                better = (cv > v[:m]) | ((cv == v[:m]) & (rank[ci] < rank[i[:m]]))
                v[:m] = np.where(better, cv, v[:m])
                i[:m] = np.where(better, ci, i[:m])
            return v, i

        for sets, kids, with_child in self.keep_children:  # smallest first: a keep's children are final already
            value[sets], index[sets] = level(sets, kids, with_child, value[sets], index[sets])
        (sets, kids, with_child), = self.roll_children
        v, i = level(sets, kids, with_child, value[kids[:, 0]].copy(), index[kids[:, 0]].copy(), skip_first=True)
        best, keep = np.empty(len(self.rolls)), np.empty(len(self.rolls), dtype=np.int64)
        best[sets], keep[sets] = v, i
        return keep, best

    def throw_rest(self, keep_chance: np.ndarray) -> np.ndarray:
        """The chance of each keep (rows x keeps) → the chance of each roll once the rest are thrown (rows x
        rolls). Ten dice a die at a time along the lattice (a keep's dice and one more face, each 1 in 6: the
        same as throwing them together), where a keeps x rolls matrix would take 120 MB."""
        if self.n <= 5:
            return keep_chance @ self.after_keep
        mass = keep_chance.copy()
        out = np.zeros((keep_chance.shape[0], len(self.rolls)))
        for size in range(self.n):
            keeps, up = self.up[size]
            share = mass[:, keeps] / FACES
            target = out if size == self.n - 1 else mass
            for f in range(FACES):
                np.add.at(target, (slice(None), up[:, f]), share)
        return out

    def best_keep_by_roll(self, keep_values: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """:meth:`best_keep` for many states (keeps x states, five dice or fewer): each roll's keep and its
        value (rolls x states), the same keep for the same values."""
        best = self.best_within_by_roll(keep_values)  # the largest of the same values: the same number
        keep = np.zeros(best.shape, dtype=np.int64)
        left = np.ones(best.shape, dtype=bool)  # not found yet
        for column in self._within_ranked:  # each roll's sub-keeps in advice's order: the first worth the best
            found = np.equal(keep_values[column], best)
            found &= left
            np.copyto(keep, column[:, None], where=found)
            left ^= found
            if not left.any():
                break
        return keep, best

    @cached_property
    def _within_ranked(self) -> np.ndarray:
        """:attr:`within` with each roll's sub-keeps in :attr:`keep_rank` order (the padding, repeats, last)."""
        out = np.empty_like(self.within)
        for r in range(len(self.rolls)):
            subs = list(dict.fromkeys(self.within[:, r].tolist()))
            subs.sort(key=lambda k: self.keep_rank[k])
            out[:, r] = subs + [subs[-1]] * (len(out) - len(subs))
        return out

    def throw_rest_by_keep(self, keep_chance: np.ndarray) -> np.ndarray:
        """The chance of each keep (keeps x states) -> of each roll once the rest are thrown (rolls x states).

        A die at a time along the lattice, as :meth:`expect_by_keep` goes the other way: a keep or roll one
        die larger gets a sixth of the chance of each keep it holds one die more than, its children in a fixed
        order, so a state's figures do not depend on the batch it is in."""
        carry = keep_chance.copy()
        for sets, kids, with_child in self.keep_children:  # smallest first: a keep's children are whole already
            carry[sets] += self._from_children(carry, kids, with_child)
        (sets, kids, with_child), = self.roll_children
        out = np.zeros((len(self.rolls), keep_chance.shape[1]))
        out[sets] = self._from_children(carry, kids, with_child)
        return out

    @staticmethod
    def _from_children(carry: np.ndarray, kids: np.ndarray, with_child: list[int]) -> np.ndarray:
        """A sixth of the summed chance of each set's children (only the sets that have a j-th child add it)."""
        level = carry[kids[:, 0]]
        for j, m in enumerate(with_child[1:], start=1):
            level[:m] += carry[kids[:m, j]]
        return level / FACES

    def sub_keeps(self, roll: tuple[int, ...]) -> list[int]:
        """Every distinct proper sub-multiset of a roll, as keep indices (worked out once per roll)."""
        found = self._sub_keeps.get(roll)
        if found is None:
            found = self._sub_keeps[roll] = self._find_sub_keeps(roll)
        return found

    def ranked_sub_keeps(self, roll: tuple[int, ...]) -> tuple[np.ndarray, list[tuple[int, ...]]]:
        """:meth:`sub_keeps` in the order advice breaks a tie between them (more dice, then lower faces), with
        each one's faces: an index array and its faces (worked out once per roll)."""
        found = self._ranked.get(roll)
        if found is None:
            keeps = sorted(self.sub_keeps(roll), key=lambda k: (-len(self.keep_faces[k]), self.keep_faces[k]))
            found = self._ranked[roll] = (np.array(keeps, dtype=np.intp), [self.keep_faces[k] for k in keeps])
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
