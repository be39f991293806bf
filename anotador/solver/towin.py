"""Play to win: the keep and the box that maximise the chance of winning, exactly, once every other player is done.

With every other sheet full, their totals are fixed, and so is what the
player to move must reach: the best of them (and, where generalas break a
tie, their generalas; with ``share`` or a roll-off a tie is an equal share).
The objective is then the chance of winning, not the expected total: a
backward induction over the states the player's own sheet can still reach
(closed boxes, subtotals, held flags: :class:`~.space.Space`), each state's
value a function of the points the sheet holds, carried as a vector over
every total (and generala count) at once, so one pass of the solver's dice
machinery (:mod:`.dice`) weighs every total together. Every later turn of
the player is played to win as well; a served roll that wins on the spot
is a win. Exact: every roll, every keep, every box.

The player's remaining states grow as 2^(open boxes), each a few to tens of
milliseconds (every total at once): :data:`MAX_STATES` bounds the work of
one request to a sheet with up to four boxes open (at most 0.3 s of CPU for
Double Generala, measured).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Mapping, NamedTuple, Sequence

import numpy as np

from .chances import GENERALA_ROLES, Outlook, Prospect, combine, policy, rest_of_turn
from .solve import NEG, Solver

if TYPE_CHECKING:  # pragma: no cover
    from ..rules import Counts, RuleSet
    from .late import LateOutlook

#: The most states of the player's sheet one request may weigh: four open boxes (16 states) cost Double Generala
#: 0.3 s of CPU, eight (256) 16 s.
MAX_STATES = 16


class TooMuchToWeigh(Exception):
    """The player's sheet has too many open boxes for the exact play-to-win answer in one request."""


class Stages(NamedTuple):
    """One state's turn with the chance of winning as its value, every total at once (columns)."""

    keep1: np.ndarray  # keeps x columns: each keep's chance at throw 1
    keep2: np.ndarray  # keeps x columns: at throw 2
    value: np.ndarray  # columns: the chance before the turn's first throw


@dataclass(frozen=True)
class Target:
    """What the player to move must beat: the best finished total among the others, the generalas of those on it
    (for ``most_generalas``), how many share it, and the rule set's tie-break."""

    total: int
    generalas: int
    tied: int
    tie_break: str

    @classmethod
    def of(cls, rules: "RuleSet", others: Sequence[tuple[Mapping[str, int], int]]) -> "Target":
        """From the other players' full sheets and their bonuses of rolls."""
        keys = [(rules.total(sheet, bonus), rules.generalas(sheet)) for sheet, bonus in others]
        most = rules.options.tie_break == "most_generalas"
        best = max(keys) if most else max(((t, 0) for t, _ in keys))
        tied = sum(1 for t, g in keys if (t, g if most else 0) == best)
        return cls(best[0], best[1], tied, rules.options.tie_break)

    def chance(self, totals: np.ndarray, generalas: np.ndarray) -> np.ndarray:
        """The player's chance to win ending on these totals and generalas (arrays of one shape)."""
        if self.tie_break == "most_generalas":
            above = (totals > self.total) | ((totals == self.total) & (generalas > self.generalas))
            level = (totals == self.total) & (generalas == self.generalas)
        else:
            above, level = totals > self.total, totals == self.total
        return np.where(above, 1.0, np.where(level, 1.0 / (self.tied + 1), 0.0))


class ToWin:
    """The chance of winning from every state the player's sheet can reach, over every total it may hold."""

    def __init__(self, solver: Solver, sheet: Mapping[str, int], earned: int, target: Target) -> None:
        self.solver, self.rules, self.space, self.target = solver, solver.rules, solver.space, target
        rules, space = self.rules, self.space
        self.G = 1 + sum(b.role in GENERALA_ROLES for b in rules.boxes) if target.tie_break == "most_generalas" else 1
        self.roles = np.array([b.role in GENERALA_ROLES for b in rules.boxes])
        self.start = space.state_of(sheet)
        self.total = sum(sheet.values()) + earned
        self.generalas = rules.generalas(sheet) if self.G > 1 else 0
        # every total the sheet may end on: what it holds, plus the most each open box (and bonus) can add
        self.T = self.total + sum(max(space.possible[b]) for b in range(space.nb) if rules.boxes[b].id not in sheet) \
            + sum(s.points for s in rules.bonuses) + 1
        self.T += 5 * (rules.options.yahtzee_bonus or 0) * len(rules.boxes)  # bonuses of rolls, generously
        self.values: dict[int, np.ndarray] = {}
        self.turns: dict[int, Stages] = {}
        order = self._reachable()
        if len(order) > MAX_STATES:
            raise TooMuchToWeigh(f"{len(order)} states of the sheet to weigh; at most {MAX_STATES} at once")
        for state in order:
            self.values[state] = self._value(state)

    def _reachable(self) -> list[int]:
        """The states the sheet can reach from its own, the fullest first (a state's successors before it)."""
        space = self.space
        seen, frontier = {self.start}, [self.start]
        while frontier:
            nxt = []
            for state in frontier:
                mask, u, flags = self.space.parts(state)
                for b in range(space.nb):
                    if mask >> b & 1:
                        continue
                    for points in space.possible[b]:
                        after = int(space.close(mask, u, flags, b, points))
                        if after not in seen:
                            seen.add(after)
                            nxt.append(after)
            frontier = nxt
        return sorted(seen, key=lambda s: -bin(self.space.parts(s)[0]).count("1"))

    def _shift(self, state: int, points: int, generala: int) -> np.ndarray:
        """The value of ``state`` after a box that adds ``points`` (and ``generala``), as a vector over the
        totals and generalas before it: ``out[g, t] = W[state][g + generala, t + points]`` (the last total held
        past the end: no reachable total gets there)."""
        W = self.values[state].reshape(self.G, self.T)
        out = np.empty_like(W)
        if points < self.T:
            out[:, :self.T - points] = W[:, points:]
            out[:, self.T - points:] = W[:, -1:]
        else:
            out[:] = W[:, -1:]
        if generala:
            out[:self.G - 1] = out[1:].copy()
        return out.ravel()

    def _value(self, state: int) -> np.ndarray:
        mask, u, flags = self.space.parts(state)
        space = self.space
        if mask == (1 << space.nb) - 1:
            totals = np.arange(self.T)[None, :] + float(space.bonus(np.array([u]))[0])
            gens = np.arange(self.G)[:, None] + np.zeros((1, self.T))
            return self.target.chance(totals, gens).ravel()
        turn = self.turns[state] = self.turn(state)
        return turn.value

    def now(self, state: int, served: bool) -> np.ndarray:
        """For each roll (rows) and each total and generalas held (columns), the best chance of scoring it now."""
        solver, space, rules = self.solver, self.space, self.rules
        mask, u, flags = self.space.parts(state)
        d = solver.turn_dice
        out = np.full((len(d.rolls), self.G * self.T), NEG)
        for b in range(space.nb):
            if mask >> b & 1:
                continue
            vals, inv = solver.values[served][b]
            options = np.stack([self._shift(int(space.close(mask, u, flags, b, int(v))), int(v),
                                            int(self.roles[b] and v > 0)) for v in vals])
            np.maximum(out, options[inv], out=out)
        if len(solver.special):
            sheet = space.sheet_of(mask, flags)
            free = [b for b in range(space.nb) if not mask >> b & 1]
            for r in solver.special.tolist():
                score = rules.place(rules.judge(d.rolls[r], served, sheet), free)
                if served and score.instant_win:
                    out[r] = 1.0  # the game is won on the spot
                    continue
                got = dict(score.options)
                best = np.full(self.G * self.T, NEG)
                for box_id in score.scratch:
                    b = rules.index[box_id]
                    p = got.get(box_id, 0)
                    after = int(space.close(mask, u, flags, b, p))
                    best = np.maximum(best, self._shift(after, p + score.bonus, int(self.roles[b] and p > 0)))
                out[r] = best
        return out

    def turn(self, state: int) -> Stages:
        """A turn's stages for every total at once: the solver's steps (:meth:`.solve.Solver.turn`), by rows."""
        d = self.solver.turn_dice
        plain = self.now(state, False)
        served = self.now(state, True) if self.rules.served_matters else plain
        keep2 = d.expect_by_keep(plain)
        roll2 = np.maximum(plain, d.best_within_by_roll(keep2))
        keep1 = d.expect_by_keep(roll2)
        roll1 = np.maximum(served, d.best_within_by_roll(keep1))
        return Stages(keep1, keep2, d.first @ roll1)

    # -- the answer for one roll -----------------------------------------------------------

    def column(self) -> int:
        return self.generalas * self.T + self.total

    def box_chances(self, counts: "Counts", served: bool, sheet: Mapping[str, int]) -> dict[str, float]:
        """Each box these dice may go in now: the chance of winning after it (1 for a roll that wins on the spot)."""
        rules, space = self.rules, self.space
        mask, u, flags = self.space.parts(self.start)
        score = rules.score_counts(counts, served, sheet)
        if served and score.instant_win:
            return {box_id: 1.0 for box_id in score.scratch}
        got = dict(score.options)
        out = {}
        for box_id in score.scratch:
            b, p = rules.index[box_id], got.get(box_id, 0)
            after = int(space.close(mask, u, flags, b, p))
            out[box_id] = float(self._shift(after, p + score.bonus, int(self.roles[b] and p > 0))[self.column()])
        return out

    def keep_chances(self, roll: int) -> np.ndarray:
        """Every keep's chance of winning at throw ``roll`` (1 or 2) of this turn."""
        stages = self.turns[self.start]
        return (stages.keep1 if roll == 1 else stages.keep2)[:, self.column()]


def to_win(solver: Solver, sheet: Mapping[str, int], earned: int, others: Sequence[tuple[Mapping[str, int], int]],
           counts: "Counts", roll: int) -> tuple[dict[str, float], dict[tuple[int, ...], float]]:
    """For ``counts`` thrown at ``roll`` (1: served) on ``sheet``, every other sheet full: the chance of winning
    after each box the dice may go in, and after each keep (by its sorted faces) before the last throw."""
    rules = solver.rules
    chances = ToWin(solver, sheet, earned, Target.of(rules, others))
    boxes = chances.box_chances(counts, roll == 1 and rules.served_matters, sheet)
    keeps: dict[tuple[int, ...], float] = {}
    if roll < 3:
        d = solver.turn_dice
        values = chances.keep_chances(roll)
        for k in d.sub_keeps(counts):
            keeps[d.keep_faces[k]] = float(values[k])
    return boxes, keeps


def to_win_now(solver: Solver, V: np.ndarray, outlook: "Outlook | LateOutlook", sheet: Mapping[str, int],
               earned: int, others: Sequence[tuple[Mapping[str, int], int]], counts: "Counts", roll: int
               ) -> tuple[dict[str, float], dict[tuple[int, ...], float]]:
    """:func:`to_win` while others still play: the chance of winning after each box and each keep, this one
    decision weighed for the chance, every later one (the player's and the others') the advisor's for points.

    ``others`` play after the player in this order. The rest of this turn after a keep, and every later turn,
    come from the chances model (:mod:`.chances`): exact given that approximation."""
    rules, space, d = solver.rules, solver.space, solver.turn_dice
    mask, u, flags = space.parts(space.state_of(sheet))
    G = outlook.G
    base = sum(sheet.values()) + earned
    mine = rules.generalas(sheet) if outlook.most_generalas else 0
    served = roll == 1 and rules.served_matters
    score = rules.score_counts(counts, served, sheet)
    got = dict(score.options)
    placed = {box_id: (rules.index[box_id], got.get(box_id, 0)) for box_id in score.scratch}
    ends = {box_id: outlook.state_row(space.close(mask, u, flags, b, p)) for box_id, (b, p) in placed.items()}
    rows = [outlook.row_of(dict(o)) for o, _ in others]
    outlook.prepare(rows + list(ends.values()))  # the rivals' sheets and every sheet this turn may leave, at once
    rivals = [outlook.prospect(row, sum(o.values()) + b, o, j + 1)
              for j, (row, (o, b)) in enumerate(zip(rows, others))]

    def chance(me: Prospect) -> float:
        return sum(combine([me, *rivals], G)[0])

    def later(row: int) -> np.ndarray:  # the player's instant wins, from the next turn on
        return np.concatenate([[0.0], outlook.instant_of(row)[:-1]])

    boxes: dict[str, float] = {}
    for box_id, (b, p) in placed.items():
        if served and score.instant_win:
            boxes[box_id] = 1.0
            continue
        row = ends[box_id]
        gen = int(rules.boxes[b].role in GENERALA_ROLES and p > 0) if outlook.most_generalas else 0
        boxes[box_id] = chance(Prospect(outlook.finish_of(row), later(row), base + p + score.bonus, mine + gen, 0))
    keeps: dict[tuple[int, ...], float] = {}
    if roll < 3:
        move = policy(solver, V, mask, u, flags)
        top = int(solver.rows[False].max()) + 1
        rests = [rest_of_turn(solver, move, roll + 1, d.after_keep[k]) for k in d.sub_keeps(counts)]
        outlook.prepare(sorted({outlook.state_row(a) for after, *_ in rests for a in after.tolist()}))  # at once
        for k, (after, points, gens, chances) in zip(d.sub_keeps(counts), rests):
            finish = np.zeros((G, outlook.P + top + max(rules.options.yahtzee_bonus or 0, 0)))
            instant = np.zeros(space.nb + 1)
            for a, p, g, c in zip(after.tolist(), points.tolist(), gens.tolist(), chances.tolist()):
                a = outlook.state_row(a)
                g = min(g, G - 1) if outlook.most_generalas else 0
                finish[g:, p:p + outlook.P] += c * outlook.finish_of(a)[:G - g]
                instant += c * later(a)
            keeps[d.keep_faces[k]] = chance(Prospect(finish, instant, base, mine, 0))
    return boxes, keeps
