"""Advice for one roll, and the analysis of a played game, from a built table.

``expected`` is always a whole sheet's expected final total: the points the
sheet holds (box points, and the bonuses of rolls already earned where the
caller knows them) plus the expected points still to come.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Mapping, Sequence

import numpy as np

from .dice import expand
from .solve import Solver, Turn

if TYPE_CHECKING:  # pragma: no cover
    from ..rules import Counts


@dataclass
class Advice:
    """What the table says of one roll on one sheet."""

    expected_final: float
    boxes: list[dict[str, Any]] = field(default_factory=list)
    splits: list[dict[str, Any]] = field(default_factory=list)
    keeps: list[dict[str, Any]] = field(default_factory=list)
    best: dict[str, Any] = field(default_factory=dict)
    instant_win: bool = False


class Position:
    """A sheet as the solver sees it: its state, the turn ahead, and what any move leads to."""

    def __init__(self, solver: Solver, V: np.ndarray, sheet: Mapping[str, int], earned: int = 0) -> None:
        self.solver, self.V, self.sheet = solver, V, sheet
        space = solver.space
        self.state = space.state_of(sheet)
        self.mask, rest = divmod(self.state, space.U * space.F)
        self.u, self.flags = divmod(rest, space.F)
        self.points = sum(sheet.values()) + earned
        self._turn: Turn | None = None

    @property
    def turn(self) -> Turn:
        """This state's turn, every stage (computed on first use: about a millisecond)."""
        if self._turn is None:
            one = np.array([self.mask], dtype=np.int64)
            self._turn = self.solver.turn(self.V, one, np.array([self.u]), np.array([self.flags]))
        return self._turn

    @property
    def expected(self) -> float:
        """The expected final total from the start of this turn."""
        return self.points + float(self.V[self.state])

    def after(self, box: int, points: int) -> float:
        """The expected points to come once ``box`` holds ``points``."""
        return float(self.V[self.solver.space.close(self.mask, self.u, self.flags, box, points)])

    def boxes(self, counts: "Counts", served: bool) -> tuple[list[dict[str, Any]], bool]:
        """Every box this group may go in now, with its points and the expected final total; best first."""
        rules = self.solver.rules
        score = rules.score_counts(counts, served, self.sheet)
        # A roll that wins on the spot is valued as the same dice thrown later.
        valued = rules.score_counts(counts, False, self.sheet) if served and score.instant_win else score
        shown, kept = dict(score.options), dict(valued.options)
        points = np.array([kept.get(box_id, 0) for box_id in score.scratch], dtype=np.int64)
        boxes = np.array([rules.index[box_id] for box_id in score.scratch], dtype=np.int64)
        # every box's next state at once (the same states :meth:`after` finds one by one)
        after = self.V[self.solver.space.close_many(self.mask, self.u, self.flags, boxes, points)].tolist()
        out = []
        for box_id, p, a in zip(score.scratch, points.tolist(), after):
            out.append({"category": box_id, "points": shown.get(box_id, 0),
                        "expected": self.points + p + valued.bonus + a})
        out.sort(key=lambda b: -b["expected"])
        return out, score.instant_win

    def splits(self, counts: "Counts", limit: int) -> list[dict[str, Any]]:
        """Two-box variants: the best split into each pair of free boxes, by expected final total."""
        rules = self.solver.rules
        free = [i for i, b in enumerate(rules.boxes) if b.id not in self.sheet]
        out = []
        for a in rules.assignments(expand(counts), False, self.sheet, limit=len(free) ** 2):
            i, j = (rules.index[p.category] for p in a.placements)
            nxt = self.solver.space.index(self.mask | (1 << i) | (1 << j), self.u, self.flags)
            out.append({"points": a.points,
                        "boxes": [{"category": p.category, "dice": list(p.dice), "points": p.points}
                                  for p in a.placements],
                        "expected": self.points + a.points + float(self.V[nxt])})
        out.sort(key=lambda s: -s["expected"])
        return out[:limit]

    def keeps(self, counts: "Counts", roll: int, limit: int | None = None) -> list[dict[str, Any]]:
        """Every distinct proper keep of this roll (rolls 1 and 2), with the expected final total; best first."""
        d = self.solver.turn_dice
        values = (self.turn.keep1 if roll == 1 else self.turn.keep2)[0]
        out = [{"keep": list(d.keep_faces[k]), "expected": self.points + float(values[k])}
               for k in d.sub_keeps(counts)]
        out.sort(key=lambda k: (-k["expected"], -len(k["keep"])))
        return out if limit is None else out[:limit]


def advise(solver: Solver, V: np.ndarray, sheet: Mapping[str, int], counts: "Counts", roll: int,
           limit: int = 10) -> Advice:
    """Advice for ``counts`` thrown on roll ``roll`` (1: served) of a turn on ``sheet``."""
    position = Position(solver, V, sheet)
    advice = Advice(expected_final=position.expected)
    two = solver.rules.boxes_per_turn > 1
    if two:
        advice.splits = position.splits(counts, limit)
        moves = [({"split": s["boxes"]}, s["expected"]) for s in advice.splits[:1]]
    else:
        advice.boxes, advice.instant_win = position.boxes(counts, roll == 1 and solver.rules.served_matters)
        moves = [({"category": b["category"]}, b["expected"]) for b in advice.boxes[:1]]
    if roll < 3:
        advice.keeps = position.keeps(counts, roll, limit if two else None)
        moves += [({"keep": k["keep"]}, k["expected"]) for k in advice.keeps[:1]]
    # Scoring now wins a tie: the same expectation for fewer throws.
    best, value = max(moves, key=lambda m: m[1] + (1e-9 if "keep" not in m[0] else 0))
    advice.best = {**best, "expected": value}
    return advice


@dataclass
class Judged:
    """One recorded turn, judged by the table: what was chosen, what was best, what it cost."""

    number: int
    player: int
    dice: list[int] | None
    served: bool
    chosen: list[str]
    points: int
    best: list[str] | None
    expected_chosen: float | None
    expected_best: float | None

    @property
    def lost(self) -> float | None:
        if self.expected_best is None or self.expected_chosen is None:
            return None
        return max(0.0, self.expected_best - self.expected_chosen)


def judge_turn(solver: Solver, V: np.ndarray, sheet: Mapping[str, int], earned: int, number: int, player: int,
               dice: Sequence[int] | None, served: bool, placed: Sequence[tuple[str, int, Sequence[int] | None]],
               bonus: int) -> Judged:
    """Judge one recorded turn: ``placed`` is (box, points, group dice) for each box it filled."""
    rules = solver.rules
    position = Position(solver, V, sheet, earned)
    chosen = [box for box, _, _ in placed]
    points = sum(p for _, p, _ in placed)
    judged = Judged(number, player, list(dice) if dice is not None else None, served, chosen, points,
                    None, None, None)
    if dice is None:
        return judged  # a scratch with no dice recorded: nothing to compare with
    counts = tuple(sorted(dice).count(f) for f in range(1, 7))
    if rules.boxes_per_turn > 1:
        splits = position.splits(counts, limit=10_000)
        best = splits[0]
        judged.best = [b["category"] for b in best["boxes"]]
        judged.expected_best = best["expected"]
        i, j = (rules.index[b] for b in chosen)
        nxt = solver.space.index(position.mask | (1 << i) | (1 << j), position.u, position.flags)
        judged.expected_chosen = position.points + points + float(V[nxt])
        return judged
    boxes, _ = position.boxes(counts, served and rules.served_matters)
    judged.best = [boxes[0]["category"]]
    judged.expected_best = boxes[0]["expected"]
    mine = next((b for b in boxes if b["category"] == chosen[0]), None)
    if mine is not None and mine["points"] == points:
        judged.expected_chosen = mine["expected"]
    else:  # scratched though it scored: valued as recorded
        judged.expected_chosen = position.points + points + bonus + position.after(rules.index[chosen[0]], points)
    return judged
