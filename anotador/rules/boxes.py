"""Boxes: what a group of dice must show for a box, and what it scores there.

A box is data: an id, a :class:`Pattern` (does this group qualify?) and a
scoring kind (sum of one face, a fixed value, or the total of the dice). Every
rule about a single group of dice lives here; rules that depend on the rest of
the sheet (double generala, instant wins) live in :mod:`anotador.rules.ruleset`.

Dice are handled as *counts*: a 6-tuple saying how many dice show 1..6. Counts
make every pattern a few comparisons and are independent of dice order.
"""

from __future__ import annotations

from dataclasses import dataclass
from itertools import combinations
from typing import Iterable

FACES = (1, 2, 3, 4, 5, 6)

#: Scoring kinds: ``number`` sums the dice showing the box's face, ``fixed``
#: scores the box's value (plus the served bonus where it applies), ``sum``
#: scores the total of all dice in the group, ``matching`` only the dice
#: that make the pattern (Yatzy's pairs and kinds: 3-3-3-5-6 → three 9).
NUMBER, FIXED, SUM, MATCHING = "number", "fixed", "sum", "matching"

Counts = tuple[int, int, int, int, int, int]


def count(dice: Iterable[int]) -> Counts:
    """Return how many dice show each face 1..6."""
    c = [0] * 6
    for d in dice:
        c[d - 1] += 1
    return tuple(c)  # type: ignore[return-value]


def total(counts: Counts) -> int:
    """Return the sum of the dice described by ``counts``."""
    return sum(face * n for face, n in zip(FACES, counts))


class Pattern:
    """What a group of dice must show to go in a box."""

    def matches(self, counts: Counts) -> bool:  # pragma: no cover - abstract
        raise NotImplementedError

    def matched(self, counts: Counts) -> int:
        """The sum of the dice that make the pattern (0 when they do not)."""
        raise NotImplementedError(f"{type(self).__name__} has no matching dice")  # pragma: no cover


@dataclass(frozen=True)
class Always(Pattern):
    """Any group qualifies: number boxes, and a chance line."""

    def matches(self, counts: Counts) -> bool:
        return True


@dataclass(frozen=True)
class OfAKind(Pattern):
    """At least ``n`` dice show the same face (five equal dice are also a four)."""

    n: int

    def matches(self, counts: Counts) -> bool:
        return max(counts) >= self.n

    def matched(self, counts: Counts) -> int:
        # the highest face shown n times or more, counted n times
        return next((face * self.n for face in (6, 5, 4, 3, 2, 1) if counts[face - 1] >= self.n), 0)


@dataclass(frozen=True)
class Pairs(Pattern):
    """``n`` pairs of different faces (Yatzy: one pair, two pairs; 4-4-4-4-1 is one pair, not two)."""

    n: int

    def matches(self, counts: Counts) -> bool:
        return sum(1 for c in counts if c >= 2) >= self.n

    def matched(self, counts: Counts) -> int:
        faces = [face for face in (6, 5, 4, 3, 2, 1) if counts[face - 1] >= 2][:self.n]
        return 2 * sum(faces) if len(faces) == self.n else 0


@dataclass(frozen=True)
class FullHouse(Pattern):
    """Three dice of one face and two of *another*; five equal dice are not a full."""

    def matches(self, counts: Counts) -> bool:
        return sorted(counts)[-2:] == [2, 3]


@dataclass(frozen=True)
class Run(Pattern):
    """Five distinct faces forming one of ``runs``.

    ``ace_as_two`` lets any 1 stand for a 2 (so 1-1-3-4-5 and 1-3-4-5-6 are
    runs when 1-2-3-4-5 and 2-3-4-5-6 are).
    """

    runs: frozenset[frozenset[int]]
    ace_as_two: bool = False

    def matches(self, counts: Counts) -> bool:
        swaps = counts[0] if self.ace_as_two else 0
        for k in range(swaps + 1):
            c = (counts[0] - k, counts[1] + k) + counts[2:]
            if max(c) == 1 and frozenset(f for f, n in zip(FACES, c) if n) in self.runs:
                return True
        return False


@dataclass(frozen=True)
class RunOf(Pattern):
    """At least ``length`` consecutive faces among the dice (Yahtzee's small straight: four)."""

    length: int

    def matches(self, counts: Counts) -> bool:
        run = 0
        for n in counts:
            run = run + 1 if n else 0
            if run >= self.length:
                return True
        return False


def straight_runs(mode: str) -> frozenset[frozenset[int]]:
    """Return the runs a ``straight`` option value accepts (see RULES.md)."""
    standard = {frozenset({1, 2, 3, 4, 5}), frozenset({2, 3, 4, 5, 6})}
    if mode == "standard":
        return frozenset(standard)
    if mode == "ending_in_1":
        return frozenset(standard | {frozenset({3, 4, 5, 6, 1})})
    if mode == "circular":
        return frozenset(frozenset(c) for c in combinations(FACES, 5))
    raise ValueError(f"unknown straight mode {mode!r}")


@dataclass(frozen=True)
class Box:
    """One line of a player's column, fully resolved for one rule set.

    ``value`` is the plain points of a fixed box; ``served_value`` what it
    scores when the group was served (the served bonus already added, or a
    served-generala value). ``role`` marks the boxes that other rules refer
    to: ``"generala"`` (the five-of-a-kind line whose served roll may win the
    game) and ``"double_generala"`` (open only after the generala box).
    """

    id: str
    pattern: Pattern
    kind: str
    face: int | None = None
    value: int | None = None
    served_value: int | None = None
    role: str | None = None

    def points(self, counts: Counts, served: bool = False) -> int:
        """Return the points this group scores here, 0 if it does not qualify."""
        if not self.pattern.matches(counts):
            return 0
        if self.kind == NUMBER:
            return self.face * counts[self.face - 1]
        if self.kind == SUM:
            return total(counts)
        if self.kind == MATCHING:
            return self.pattern.matched(counts)
        return self.served_value if served else self.value
