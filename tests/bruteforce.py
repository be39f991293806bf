"""Optimal play by direct enumeration, for checking the solver on sheets near their end.

Nothing of the solver is used: the rules engine's public answers (``score``,
``assignments``), every roll, every keep and every outcome spelled out, and
a memo per sheet. Slow (a tenth of a second a turn), exact, and obviously so.
"""

from __future__ import annotations

from itertools import product
from math import factorial


def outcomes(n: int) -> list[tuple[tuple[int, ...], float]]:
    """Every multiset of ``n`` dice (counts per face) and its probability."""
    out = []
    for counts in product(range(n + 1), repeat=6):
        if sum(counts) != n:
            continue
        ways = factorial(n)
        for c in counts:
            ways //= factorial(c)
        out.append((counts, ways / 6 ** n))
    return out


def subs(counts: tuple[int, ...]) -> list[tuple[int, ...]]:
    """Every distinct proper sub-multiset of a roll."""
    return [k for k in product(*(range(c + 1) for c in counts)) if sum(k) < sum(counts)]


def faces(counts: tuple[int, ...]) -> list[int]:
    return [f for f, c in enumerate(counts, start=1) for _ in range(c)]


class Brute:
    """Expected points still to come from a sheet (section bonuses included), by enumeration."""

    def __init__(self, rules):
        self.rules = rules
        self.n = rules.dice
        self.rolls = outcomes(self.n)
        self.fresh = {m: outcomes(m) for m in range(self.n + 1)}
        self.memo: dict[frozenset, float] = {}

    def to_come(self, sheet: dict) -> float:
        key = frozenset(sheet.items())
        if key not in self.memo:
            self.memo[key] = self._turn(sheet)
        return self.memo[key]

    def now(self, sheet: dict, counts: tuple[int, ...], served: bool) -> float:
        """The best of scoring these dice now: points, a roll's bonus, and what is still to come."""
        rules = self.rules
        dice = faces(counts)
        if rules.boxes_per_turn == 2:
            return max(a.points + self.to_come({**sheet, **{p.category: p.points for p in a.placements}})
                       for a in rules.assignments(dice, False, sheet, limit=1000))
        score = rules.score(dice, served, sheet)
        if served and score.instant_win:  # valued as the same dice thrown later
            score = rules.score(dice, False, sheet)
        points = dict(score.options)
        return max(points.get(box, 0) + score.bonus + self.to_come({**sheet, box: points.get(box, 0)})
                   for box in score.scratch)

    def _turn(self, sheet: dict) -> float:
        rules = self.rules
        if len(sheet) == len(rules.boxes):
            return float(sum(rules.section_bonuses(sheet).values()))
        add = lambda a, b: tuple(x + y for x, y in zip(a, b))  # noqa: E731
        last = {r: self.now(sheet, r, False) for r, _ in self.rolls}
        value = last
        for served in (False, rules.served_matters):  # roll 2, then roll 1
            keep = {}
            for r, _ in self.rolls:
                for k in subs(r):
                    if k not in keep:
                        keep[k] = sum(p * value[add(k, o)] for o, p in self.fresh[self.n - sum(k)])
            value = {r: max([self.now(sheet, r, served) if served else last[r]] + [keep[k] for k in subs(r)])
                     for r, _ in self.rolls}
        return sum(p * value[r] for r, p in self.rolls)


class BruteToWin(Brute):
    """The chance of winning from a sheet, played to win, against others who have finished, by enumeration.

    ``win(total, generalas)`` says what ending on that total (and generala count) is worth; a served roll that
    wins on the spot is worth 1. The same enumeration as :class:`Brute`, with the chance as the value."""

    def __init__(self, rules, earned: int, win):
        super().__init__(rules)
        self.earned, self.win = earned, win

    def _turn(self, sheet: dict) -> float:
        rules = self.rules
        if len(sheet) == len(rules.boxes):
            return self.win(rules.total(sheet, self.earned), rules.generalas(sheet))
        return super()._turn(sheet)

    def now(self, sheet: dict, counts: tuple[int, ...], served: bool) -> float:
        score = self.rules.score(faces(counts), served, sheet)
        if served and score.instant_win:
            return 1.0
        points = dict(score.options)
        self.earned += score.bonus
        try:
            return max(self.to_come_after({**sheet, box: points.get(box, 0)}) for box in score.scratch)
        finally:
            self.earned -= score.bonus

    def to_come_after(self, sheet: dict) -> float:
        key = (frozenset(sheet.items()), self.earned)
        if key not in self.memo:
            self.memo[key] = self._turn(sheet)
        return self.memo[key]

    def box(self, sheet: dict, dice, served: bool) -> dict:
        """Each box these dice may go in now: the chance of winning after it."""
        score = self.rules.score(dice, served, sheet)
        if served and score.instant_win:
            return {box: 1.0 for box in score.scratch}
        points = dict(score.options)
        return {box: self.to_come_after({**sheet, box: points.get(box, 0)}) for box in score.scratch}
