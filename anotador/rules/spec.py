"""What a rule set is made of: the plain types variants declare and rule sets resolve and answer.

Both :mod:`~anotador.rules.variants` (the data) and
:mod:`~anotador.rules.ruleset` (the rules over it) build on these, so
neither imports the other for them.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import NamedTuple

from .boxes import FACES, Always, Counts, FullHouse, OfAKind, Pairs, Pattern, Run, RunOf, straight_runs
from .options import Options


@dataclass(frozen=True)
class BoxSpec:
    """A box as a variant declares it, before options give it values.

    ``pattern`` is one of ``any``, ``straight``, ``full``, ``three``, ``four``,
    ``five`` or ``run:<faces>`` (an exact run such as ``run:23456``).
    ``served_bonus`` says whether the rule set's served bonus applies.
    """

    id: str
    pattern: str
    kind: str
    face: int | None = None
    served_bonus: bool = False
    role: str | None = None


#: Where optional lines go when an option adds them: ``three`` after the
#: number boxes, ``double_generala`` right after the generala line.
THREE_AFTER = "sixes"

#: Dice per box: every family scores groups of five.
GROUP = 5


@dataclass(frozen=True)
class SectionBonus:
    """Extra points once some boxes add up to a threshold (Yahtzee: 35 at 63 up top)."""

    id: str
    boxes: tuple[str, ...]
    threshold: int
    points: int


# Results are named tuples: immutable and compared by value like frozen
# dataclasses, but several times cheaper to build on the scoring hot path.


class Option(NamedTuple):
    """A free box this roll scores in, with its points."""

    category: str
    points: int


class Score(NamedTuple):
    """What a group of dice may do on a sheet: score, scratch, or win outright.

    ``bonus``: points the roll earns besides its box (Yahtzee's 100 for a
    further Yahtzee), wherever it goes.
    """

    options: tuple[Option, ...]
    scratch: tuple[str, ...]
    instant_win: bool
    bonus: int = 0


class Placement(NamedTuple):
    """One group of dice put in one box."""

    category: str
    dice: tuple[int, ...]
    points: int


class Assignment(NamedTuple):
    """A whole turn of a multi-box variant: one placement per box, and the sum."""

    points: int
    placements: tuple[Placement, ...]


def groups_of(n: int, within: Counts | None = None) -> list[Counts]:
    """Return every distinct group of ``n`` dice, as counts.

    With ``within``, only the groups that can be taken out of those dice
    (the ways to split a two-box roll).
    """
    bound = within or (n,) * 6
    out: list[Counts] = []

    def rec(prefix: tuple[int, ...], left: int) -> None:
        k = len(prefix)
        if k == 6:
            if left == 0:
                out.append(prefix)  # type: ignore[arg-type]
            return
        for m in range(min(left, bound[k]), -1, -1):
            rec(prefix + (m,), left - m)

    rec((), n)
    return out


def pattern(name: str, options: Options) -> Pattern:
    if name == "any":
        return Always()
    if name == "straight":
        return Run(straight_runs(options.straight or "standard"), bool(options.ace_as_two))
    if name == "full":
        return FullHouse()
    if name in ("three", "four", "five"):
        return OfAKind({"three": 3, "four": 4, "five": 5}[name])
    if name.startswith("pairs:"):
        return Pairs(int(name[6:]))
    if name.startswith("run:"):
        return Run(frozenset({frozenset(int(f) for f in name[4:])}))
    if name.startswith("runof:"):
        return RunOf(int(name[6:]))
    raise ValueError(f"unknown pattern {name!r}")  # pragma: no cover - variant data error


def expand(counts: Iterable[int]) -> tuple[int, ...]:
    return tuple(face for face, n in zip(FACES, counts) for _ in range(n))


