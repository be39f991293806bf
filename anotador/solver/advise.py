"""Advice for one roll, and the analysis of a played game, from a built table.

``expected`` is always a whole sheet's expected final total: the points the
sheet holds (box points, and the bonuses of rolls already earned where the
caller knows them) plus the expected points still to come.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Mapping, NamedTuple, Sequence

import numpy as np

from ..rules.boxes import count
from ..rules.rolls import Throw
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


class Options(list):
    """Options, best first: ``top`` is the first one's expected final total, exact, where its figures may be
    rounded (:func:`advise`'s ``digits``): the best move is chosen on exact numbers."""

    top: float


def _options(made: list[dict[str, Any]], expected: np.ndarray, order: list[int], digits: int | None) -> Options:
    """``made`` in ``order``, each with its ``expected`` figure (rounded to ``digits`` decimals by numpy at once,
    a fifth of round()'s cost: the two differ only within 1e-14 of a half)."""
    out = Options(made)
    out.top = float(expected[order[0]]) if order else float("-inf")
    shown = expected.take(order)
    for option, x in zip(out, (shown if digits is None else shown.round(digits)).tolist()):
        option["expected"] = x
    return out


class Position:
    """A sheet as the solver sees it: its state, the turn ahead, and what any move leads to."""

    def __init__(self, solver: Solver, V: np.ndarray, sheet: Mapping[str, int], earned: int = 0) -> None:
        self.solver, self.V, self.sheet = solver, V, sheet
        space = solver.space
        self.mask, self.u, self.flags = space.parts_of(sheet)
        self.state = space.index_one(self.mask, self.u, self.flags)
        self.points = sum(sheet.values()) + earned
        self._turn: Turn | None = None
        self._after: np.ndarray | None = None

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

    @property
    def after_each(self) -> np.ndarray:
        """The expected points to come after each (box, points) a plain roll scores (one box a turn only):
        :meth:`Solver.after_one`, kept for the state's turn (its boxes and its keeps read them)."""
        if self._after is None:
            self._after = self.solver.turn_one(self.V, self.mask, self.u, self.flags).after
        return self._after

    def boxes(self, counts: "Counts", served: bool, digits: int | None = None) -> tuple[Options, bool]:
        """Every box this group may go in now, with its points and the expected final total; best first."""
        rules = self.solver.rules
        score = rules.score_counts(counts, served, self.sheet)
        # A roll that wins on the spot is valued as the same dice thrown later.
        valued = rules.score_counts(counts, False, self.sheet) if served and score.instant_win else score
        shown, kept = dict(score.options), dict(valued.options)
        index, scratch = rules.index, score.scratch
        moves = [(index[box_id], kept.get(box_id, 0)) for box_id in scratch]
        # the value after each box: read among every (box, points) a plain roll makes, worked out at once
        found = list(map(self.solver.entries[False].place.get, moves))
        if None in found:  # points no plain roll scores there (a served roll's): those boxes' next states
            boxes, points = np.array(moves, dtype=np.int64).reshape(-1, 2).T
            after = self.V[self.solver.space.close_many(self.mask, self.u, self.flags, boxes, points)]
        else:
            after = self.after_each.take(found)
        base = self.points + valued.bonus
        expected = np.array([base + p for _, p in moves], dtype=float) + after  # (base + p) + after, as ever
        # best first; among equals, sheet order (a sort by a key alone is stable, reversed too)
        order = sorted(range(len(moves)), key=expected.tolist().__getitem__, reverse=True)
        return _options([{"category": scratch[i], "points": shown.get(scratch[i], 0)} for i in order], expected,
                        order, digits), score.instant_win

    def splits(self, counts: "Counts", limit: int, digits: int | None = None) -> Options:
        """Two-box variants: the best split into each pair of free boxes, by expected final total."""
        rules = self.solver.rules
        free = [i for i, b in enumerate(rules.boxes) if b.id not in self.sheet]
        made, expected = [], []
        for a in rules.assignments(expand(counts), False, self.sheet, limit=len(free) ** 2):
            i, j = (rules.index[p.category] for p in a.placements)
            nxt = self.solver.space.index(self.mask | (1 << i) | (1 << j), self.u, self.flags)
            made.append({"points": a.points,
                         "boxes": [{"category": p.category, "dice": list(p.dice), "points": p.points}
                                   for p in a.placements]})
            expected.append(self.points + a.points + float(self.V[nxt]))
        # best first; among equals, the engine's order (a sort by a key alone is stable, reversed too)
        order = sorted(range(len(made)), key=expected.__getitem__, reverse=True)[:limit]
        return _options([made[i] for i in order], np.array(expected), order, digits)

    def keeps(self, counts: "Counts", roll: int, limit: int | None = None, digits: int | None = None) -> Options:
        """Every distinct proper keep of this roll (rolls 1 and 2), with the expected final total; best first."""
        solver = self.solver
        if self._turn is not None:
            values = (self._turn.keep1 if roll == 1 else self._turn.keep2)[0]
        else:  # the stages that lead to this throw's keeps, not the whole turn: kept for the turn's next throws
            values = solver.turn_one(self.V, self.mask, self.u, self.flags).keeps(roll)
        keeps, faces = solver.turn_dice.ranked_sub_keeps(counts)
        expected = values.take(keeps)
        expected += self.points
        # best first; a tie (the same value to the bit, as keeping 3-3-3-5 or 3-3-3-6 often is) keeps the ranked
        # order, more dice then lower faces (a sort by a key alone is stable, reversed too)
        order = sorted(range(len(expected)), key=expected.tolist().__getitem__, reverse=True)
        if limit is not None:
            order = order[:limit]
        return _options([{"keep": list(faces[i])} for i in order], expected, order, digits)


def advise(solver: Solver, V: np.ndarray, sheet: Mapping[str, int], counts: "Counts", roll: int,
           limit: int = 10, digits: int | None = None) -> Advice:
    """Advice for ``counts`` thrown on roll ``roll`` (1: served) of a turn on ``sheet``; the options' figures
    rounded to ``digits`` decimals if given (the best move is chosen before)."""
    position = Position(solver, V, sheet)
    advice = Advice(expected_final=position.expected)
    two = solver.rules.boxes_per_turn > 1
    if two:
        advice.splits = position.splits(counts, limit, digits)
        moves = [({"split": s["boxes"]}, advice.splits.top) for s in advice.splits[:1]]
    else:
        advice.boxes, advice.instant_win = position.boxes(counts, roll == 1 and solver.rules.served_matters, digits)
        moves = [({"category": advice.boxes[0]["category"]}, advice.boxes.top)]
    if roll < 3:
        advice.keeps = position.keeps(counts, roll, limit if two else None, digits)
        moves += [({"keep": k["keep"]}, advice.keeps.top) for k in advice.keeps[:1]]
    # Scoring now wins a tie: the same expectation for fewer throws.
    best, value = max(moves, key=lambda m: m[1] + (1e-9 if "keep" not in m[0] else 0))
    advice.best = {**best, "expected": value}
    return advice


#: How much of a turn the record lets the analysis judge.
EVERY_DECISION = "every_decision"  # the throws and keeps are known: every keep and the box are judged
BOX_ONLY = "box"                   # only the final dice: the box is judged, the keeps before it are not
NOTHING = "nothing"                # a scratch with no dice: nothing to compare with


@dataclass
class Decision:
    """One decision of a turn, judged: a keep after a throw, or the box for the last throw's dice.

    ``chosen`` and ``best`` are each one move as advice names it:
    ``{"keep": [...]}`` (throw the rest again), ``{"category": box}`` or
    ``{"split": [box, box]}`` (score now).
    """

    roll: int
    dice: list[int]
    chosen: dict[str, Any]
    best: dict[str, Any]
    expected_chosen: float
    expected_best: float
    #: The points the best move scores now (0: it crosses its box out); None when it throws again.
    best_points: int | None = None

    @property
    def lost(self) -> float:
        return max(0.0, self.expected_best - self.expected_chosen)


@dataclass
class Judged:
    """One recorded turn, judged: what each decision cost, and what the dice gave.

    Every value is an expected final total of the player's sheet. The turn
    moves the expectation from ``expected_before`` to ``expected_after``:
    by ``luck`` (each throw's dice against what the player's own position
    before it expected), less what the decisions lost; where the keeps are
    not known, the part the record cannot split is ``unjudged``.
    """

    number: int
    player: int
    dice: list[int] | None
    served: bool
    chosen: list[str]
    points: int
    judged: str
    expected_before: float
    expected_after: float
    decisions: list[Decision] = field(default_factory=list)
    luck: float | None = None
    unjudged: float | None = None

    @property
    def box(self) -> Decision | None:
        """The last decision, the box's, if judged."""
        return self.decisions[-1] if self.decisions and "keep" not in self.decisions[-1].chosen else None

    @property
    def lost(self) -> float | None:
        return None if self.judged == NOTHING else sum(d.lost for d in self.decisions)


def judge_turn(solver: Solver, V: np.ndarray, sheet: Mapping[str, int], earned: int, number: int, player: int,
               dice: Sequence[int] | None, served: bool, placed: Sequence[tuple[str, int, Sequence[int] | None]],
               bonus: int, throws: Sequence[Any] | None = None) -> Judged:
    """Judge one recorded turn: ``placed`` is (box, points, group dice) for each box it filled.

    ``throws`` (:class:`~anotador.rules.rolls.Throw`), where the table recorded
    them, let every keep be judged. A served turn is a turn of one throw, so
    it is judged whole even without them.
    """
    rules = solver.rules
    position = Position(solver, V, sheet, earned)
    chosen = [box for box, _, _ in placed]
    points = sum(p for _, p, _ in placed)
    before = position.expected
    after = position.points + points + bonus + float(V[_closed(position, placed)])
    judged = Judged(number, player, list(dice) if dice is not None else None, served, chosen, points, NOTHING,
                    before, after)
    if dice is None:
        judged.unjudged = after - before  # a scratch with no dice recorded: nothing to compare with
        return judged
    if throws is None and served and rules.served_matters:
        throws = [Throw(tuple(sorted(dice)))]
    if throws is None:
        judged.judged = BOX_ONLY
        decision = _box_decision(position, 3, dice, placed, bonus, after)
        judged.decisions = [decision]
        judged.unjudged = decision.expected_best - before
        return judged
    judged.judged = EVERY_DECISION
    d, turn = solver.turn_dice, position.turn
    luck, mine = 0.0, before  # the expectation of the position the player's last decision chose
    for roll, throw in enumerate(throws, start=1):
        counts = throw.counts
        r = d.roll_index[counts]
        stage = turn.roll1 if roll == 1 else turn.roll2 if roll == 2 else turn.now_plain
        luck += position.points + float(stage[0, r]) - mine
        if throw.keep is None:  # the last throw: the box
            judged.decisions.append(_box_decision(position, roll, throw.dice, placed, bonus, after))
            break
        keeps = position.keeps(counts, roll, limit=1)
        now = _best_now(position, counts, roll)
        k = d.keep_index[count(throw.keep)]
        mine = position.points + float((turn.keep1 if roll == 1 else turn.keep2)[0, k])
        best = max([({"keep": keeps[0]["keep"]}, keeps[0]["expected"], None)] + now, key=lambda m: m[1])
        judged.decisions.append(Decision(roll, list(throw.dice), {"keep": list(throw.keep)}, best[0], mine, best[1],
                                         best[2]))
    judged.luck = luck
    return judged


def _closed(position: Position, placed) -> int:
    """The state once the turn's boxes hold their points."""
    space, rules = position.solver.space, position.solver.rules
    if len(placed) == 1:
        box, points, _ = placed[0]
        return space.close(position.mask, position.u, position.flags, rules.index[box], points)
    mask = position.mask
    for box, _, _ in placed:
        mask |= 1 << rules.index[box]
    return space.index(mask, position.u, position.flags)


def _best_now(position: Position, counts, roll: int) -> list[tuple[dict[str, Any], float, int]]:
    """The best way to score these dice now, as (move, expected final total, points): none if no box is free."""
    rules = position.solver.rules
    if rules.boxes_per_turn > 1:
        splits = position.splits(counts, limit=1)
        return [({"split": [b["category"] for b in s["boxes"]]}, s["expected"], s["points"]) for s in splits]
    boxes, _ = position.boxes(counts, roll == 1 and rules.served_matters)
    return [({"category": b["category"]}, b["expected"], b["points"]) for b in boxes[:1]]


def _box_decision(position: Position, roll: int, dice: Sequence[int], placed, bonus: int, after: float) -> Decision:
    """The box (or two) chosen for the last throw, against the best move for those dice at that throw.

    At a throw before the third, throwing again was a move too: stopping
    early is judged here, against the best keep.
    """
    counts = count(dice)
    chosen: dict[str, Any]
    if len(placed) > 1:
        chosen = {"split": [box for box, _, _ in placed]}
        moves = _best_now(position, counts, roll)
    else:
        chosen = {"category": placed[0][0]}
        boxes, _ = position.boxes(counts, roll == 1 and position.solver.rules.served_matters)
        moves = [({"category": b["category"]}, b["expected"], b["points"]) for b in boxes[:1]]
        mine = next((b for b in boxes if b["category"] == placed[0][0]), None)
        if mine is not None and mine["points"] == placed[0][1]:
            after = mine["expected"]  # the engine's own valuation (a served win valued as thrown later)
    if roll < 3:
        keeps = position.keeps(counts, roll, limit=1)
        moves.append(({"keep": keeps[0]["keep"]}, keeps[0]["expected"], None))
    best = max(moves, key=lambda m: m[1] + (1e-9 if "keep" not in m[0] else 0))
    return Decision(roll, sorted(dice), chosen, best[0], after, best[1], best[2])


class Recorded(NamedTuple):
    """One recorded turn as :func:`judge_game` takes it: ``placed`` is (box, points, group dice) per box filled."""

    number: int
    player: int
    round: int
    dice: Sequence[int] | None
    served: bool
    placed: Sequence[tuple[str, int, Sequence[int] | None]]
    bonus: int
    throws: Sequence[Any] | None


@dataclass
class Judgement:
    """A whole game judged: every turn, and each player's sums (in points of expected final total)."""

    turns: list[Judged]
    lost: list[float]
    luck: list[float]
    unjudged: list[float]
    #: Each player's expected final total at the start, and now (the points held plus what is still to come).
    expected_start: float
    expected_now: list[float]


def judge_game(solver: Solver, V: np.ndarray, players: int, turns: Sequence[Recorded]) -> Judgement:
    """Judge every turn of a game in order (:func:`judge_turn`), each on its player's sheet as it stood."""
    sheet: list[dict[str, int]] = [{} for _ in range(players)]
    earned = [0] * players
    lost, luck, unjudged = [0.0] * players, [0.0] * players, [0.0] * players
    judged_turns = []
    for turn in turns:
        seat = turn.player
        judged = judge_turn(solver, V, sheet[seat], earned[seat], turn.number, seat, turn.dice, turn.served,
                            turn.placed, turn.bonus, turn.throws)
        judged_turns.append(judged)
        lost[seat] += judged.lost or 0
        luck[seat] += judged.luck or 0
        unjudged[seat] += judged.unjudged or 0
        for box_id, points, _ in turn.placed:
            sheet[seat][box_id] = points
        earned[seat] += turn.bonus
    now = [sum(sheet[seat].values()) + earned[seat] + float(V[solver.space.state_of(sheet[seat])])
           for seat in range(players)]
    return Judgement(judged_turns, lost, luck, unjudged, float(V[0]), now)
