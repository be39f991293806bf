"""Who is winning: each player's chance to win a game, exactly, when everyone plays on as the advisor would.

The model (``docs/chances.md`` says it in players' words): from the game as
it stands, every player plays each of their turns with the advisor's policy
(:mod:`.solve`: the keep and the box that maximise their own expected final
total; among moves worth the same, the one advice names first: scoring
before throwing again, then the box first in sheet order, then the keep
with more dice and lower faces). A served roll that wins on the spot is
taken: the game ends there. A player's chance is the probability that they
end as the winner under the rule set's own ending: the first instant win in
turn order; otherwise the highest total after the last round, ties split
equally (``share``, a ``roll_off`` that has not been rolled, a draw on
``most_generalas``) or broken by the most generalas.

How: per rule set, backward over every state of one player's sheet, the
policy's turn from that state is followed forward (the chances of its three
throws, :meth:`turn_outcomes`), and each state gets the distribution of
what is still to come:

``sheet``
    the points, the sheet played to its end as the advisor values it (a
    served win scored as the same dice thrown later): its mean is the
    advisor's expected final total, which the tests hold it to;
``finish``
    the points and the generalas still to score, on the paths with no
    instant win (so it sums to one less the chance of one);
``instant``
    the chance of an instant win on each turn still to play.

Every sum is in a fixed order, so the tables are the same on every run. A
game's chances then combine its players, who play independently
(:func:`game_chances`): exact, no sampling. Every state at once needs the
whole state of a sheet to be its closed boxes (and whether a generala holds
points): no section bonus, no bonus of rolls (:func:`exact_for`). The
Generala family, Yacht and Double Cameroon (two boxes a turn, its splits the
advisor's) are (:class:`Outlook`). The Yahtzee family's sheets also hold
their upper subtotal (536,320 states in Yahtzee, too many to give each a
distribution); there the same distributions are worked out only for the
states a game's sheets can still reach, once every player has at most
:data:`.late.LATE_OPEN` boxes open (:class:`.late.LateOutlook`): exact too,
from the last rounds.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Mapping, Protocol, Sequence

import numpy as np

from .solve import Chosen, Solver

if TYPE_CHECKING:  # pragma: no cover
    from ..rules import Game, RuleSet

#: Advice prefers scoring now over a keep worth the same to within this (advise.py): so does the policy here.
SCORE_FIRST = 1e-9
#: The percentiles of each player's final total that a chances answer lists.
PERCENTILES = (5, 25, 50, 75, 95)
GENERALA_ROLES = ("generala", "double_generala")


class NotExact(Exception):
    """This rule set's chances cannot be worked out exactly (yet): its sheets have more state than their boxes."""


def exact_for(rules: "RuleSet") -> str | None:
    """Why this rule set's chances are not exact here, or None when they are."""
    if rules.bonuses:
        return f"{rules.variant.id} has a section bonus (its sheets' state holds each subtotal)"
    if rules.options.yahtzee_bonus:
        return f"{rules.variant.id} gives bonuses for further rolls"
    return None


@dataclass(frozen=True)
class TurnOutcomes:
    """One state's turn under the policy: where it leads, with what chance (arrays over distinct outcomes)."""

    after: np.ndarray      # the state once the turn's box is filled
    points: np.ndarray     # the points the turn adds (the box's, and a roll's bonus)
    generalas: np.ndarray  # generala lines the turn fills with points (0 or 1)
    chance: np.ndarray     # the chance of each outcome, the sheet played on (a served win scored as the advisor does)
    rest: np.ndarray       # the chance of each outcome and no instant win this turn
    instant: float         # the chance this turn wins on the spot


@dataclass(frozen=True)
class Policy:
    """The advisor's move for every roll of one state's turn (arrays over rolls): what :func:`advise` names
    best, each throw at once. A roll stops at a throw if scoring it now is worth as much as its best keep."""

    stop1: np.ndarray     # throw 1 (served): score now
    keep1: np.ndarray     # throw 1: else, the keep
    stop2: np.ndarray     # throw 2: score now
    keep2: np.ndarray     # throw 2: else, the keep
    served: Chosen        # the box if scored at throw 1 (served)
    plain: Chosen         # the box if scored at throw 2 or 3
    wins: np.ndarray      # served, this roll wins on the spot (whatever the box)


def policy(solver: Solver, V: np.ndarray, mask: int, u: int, flags: int) -> Policy:
    """The advisor's move for every roll at every throw of one state's turn."""
    rules, d = solver.rules, solver.turn_dice
    turn = solver.turn(V, np.array([mask]), np.array([u]), np.array([flags]))
    if rules.boxes_per_turn == 2:
        plain = served = solver.choose_two(V, mask)
    else:
        plain = solver.choose_one(V, mask, u, flags, False)
        served = solver.choose_one(V, mask, u, flags, True) if rules.served_matters else plain
    keep1, value1 = d.best_keep(turn.keep1[0])
    keep2, value2 = d.best_keep(turn.keep2[0])
    wins = np.zeros(len(d.rolls), dtype=bool)
    if rules.served_matters:
        sheet = solver.space.sheet_of(mask, flags)
        for r in solver.special.tolist():
            wins[r] = rules.wins_on_the_spot(d.rolls[r], True, sheet)
    return Policy(turn.now_served[0] + SCORE_FIRST >= value1, keep1, turn.now_plain[0] + SCORE_FIRST >= value2,
                  keep2, served, plain, wins)


def turn_outcomes(solver: Solver, V: np.ndarray, mask: int, u: int, flags: int) -> TurnOutcomes:
    """Follow one state's turn forward under the advisor's policy: the chance of every (box, points)."""
    rules, d = solver.rules, solver.turn_dice
    move = policy(solver, V, mask, u, flags)
    served, plain = move.served, move.plain
    # Two rows, each carried through the turn: the sheet played on whatever happens, and the same without the
    # served rolls that win on the spot (the game ends there). Each row is a chance over rolls, then keeps.
    first = np.vstack([d.first, np.where(move.wins, 0.0, d.first)])
    score1 = first * move.stop1
    score_plain = _from_throw_two(move, d.throw_rest(_kept(first, ~move.stop1, move.keep1, d)), d)
    roles = np.array([b.role in GENERALA_ROLES for b in rules.boxes])
    after = np.concatenate([served.after, plain.after])
    points = np.concatenate([served.points + served.bonus, plain.points + plain.bonus])
    generalas = np.concatenate([_filled(roles, served), _filled(roles, plain)])
    found = _aggregate(after, points, generalas, np.concatenate([score1, score_plain], axis=1))
    return TurnOutcomes(*found[:3], found[3][0], found[3][1], float(d.first[move.wins].sum()))


def rest_of_turn(solver: Solver, move: Policy, throw: int, chance: np.ndarray) -> tuple:
    """The rest of a turn under the policy from throw ``throw`` (2 or 3), ``chance`` of each roll there (one
    row): ``(after, points, generalas, chance)`` of each outcome, as :class:`TurnOutcomes` has them."""
    d, plain = solver.turn_dice, move.plain
    score = _from_throw_two(move, chance[None, :], d) if throw == 2 else chance[None, :]
    roles = np.array([b.role in GENERALA_ROLES for b in solver.rules.boxes])
    after, points, generalas, summed = _aggregate(plain.after, plain.points + plain.bonus,
                                                  _filled(roles, plain), score)
    return after, points, generalas, summed[0]


def _from_throw_two(move: Policy, roll2: np.ndarray, d) -> np.ndarray:
    """The chance of scoring each roll at throw 2 or 3 (not served), from the chance of each roll at throw 2."""
    return roll2 * move.stop2 + d.throw_rest(_kept(roll2, ~move.stop2, move.keep2, d))


def _filled(roles: np.ndarray, chosen: Chosen) -> np.ndarray:
    """For each roll, whether its box is a generala line that takes points (none in a two-box turn: Double
    Cameroon has no generala)."""
    if chosen.box.ndim > 1:
        return np.zeros(len(chosen.points), dtype=bool)
    return roles[chosen.box] & (chosen.points > 0)


def _aggregate(after: np.ndarray, points: np.ndarray, generalas: np.ndarray, chance: np.ndarray) -> tuple:
    """The same (state after, points, generalas) reached from several rolls: one outcome, its chances summed
    (rows of ``chance``); outcomes with no chance in the first row left out."""
    code = (after * 2 + generalas) * (int(points.max()) + 1) + points
    codes, inverse = np.unique(code, return_inverse=True)
    summed = np.zeros((chance.shape[0], len(codes)))
    for row in range(chance.shape[0]):  # np.add.at in roll order: the same sums every run
        np.add.at(summed[row], inverse, chance[row])
    keep = summed[0] > 0
    one = np.zeros(len(codes), dtype=np.int64)
    one[inverse] = np.arange(len(code))  # a roll that reaches each outcome (all of them alike)
    pick = one[keep]
    return after[pick], points[pick], generalas[pick].astype(np.int64), summed[:, keep]


def _kept(chance: np.ndarray, thrown: np.ndarray, keep: np.ndarray, d) -> np.ndarray:
    """The chance of each keep (rows x keeps), from the chance of each roll and the keep each roll throws to."""
    out = np.zeros((chance.shape[0], len(d.keeps)))
    for row in range(chance.shape[0]):
        out[row] = np.bincount(keep[thrown], weights=chance[row, thrown], minlength=len(d.keeps))
    return out


class Outlook:
    """Per state of one rule set's sheets, the distribution of what is still to come under the policy.

    ``sheet[row, p]``, ``finish[row, g, p]`` and ``instant[row, t]`` as the
    module says, ``row`` from :meth:`row_of` (the reachable states only).
    Built once per rule set from its advisor's table (about a second for
    the Generala family); read by any number of games.
    """

    def __init__(self, solver: Solver, V: np.ndarray) -> None:
        why = exact_for(solver.rules)
        if why is not None:
            raise NotExact(why)
        self.solver, self.rules, self.space = solver, solver.rules, solver.space
        space, rules = self.space, self.rules
        self.most_generalas = rules.options.tie_break == "most_generalas"
        self.G = 1 + sum(b.role in GENERALA_ROLES for b in rules.boxes) if self.most_generalas else 1
        self.P = sum(max(space.possible[b]) for b in range(space.nb)) + 1  # every remaining total, 0 to the most
        step = rules.boxes_per_turn
        # the sheets a game reaches: a multiple of the boxes a turn fills closed
        levels = {closed: space.states(closed) for closed in range(space.nb % step, space.nb + 1, step)}
        self._row = np.full(space.size, -1, dtype=np.int64)
        count = 0
        for mask, u, flags in levels.values():
            self._row[space.index(mask, u, flags)] = np.arange(count, count + len(mask))
            count += len(mask)
        self.sheet = np.zeros((count, self.P))
        self.finish = np.zeros((count, self.G, self.P))
        self.instant = np.zeros((count, space.nb + 1))
        full = self._row[space.index(*levels[space.nb])]
        self.sheet[full, 0] = self.finish[full, 0, 0] = 1.0
        for closed in range(space.nb - step, -1, -step):
            for mask, u, flags in zip(*(a.tolist() for a in levels[closed])):
                self._solve(solver, V, mask, u, flags)

    def _solve(self, solver: Solver, V: np.ndarray, mask: int, u: int, flags: int) -> None:
        row = self._row[self.space.index(mask, u, flags)]
        out = turn_outcomes(solver, V, mask, u, flags)
        P, G = self.P, self.G
        sheet, finish, instant = self.sheet[row], self.finish[row], self.instant[row]
        instant[0] = out.instant
        for after, points, gen, p, rest in zip(self._row[out.after].tolist(), out.points.tolist(),
                                               out.generalas.tolist(), out.chance.tolist(), out.rest.tolist()):
            sheet[points:] += p * self.sheet[after, :P - points]
            if rest:
                gen = min(gen, G - 1)
                finish[gen:, points:] += rest * self.finish[after, :G - gen, :P - points]
                instant[1:] += rest * self.instant[after, :-1]

    def row_of(self, sheet: dict[str, int]) -> int:
        """The row of a (checked) sheet's state."""
        return int(self._row[self.space.state_of(sheet)])

    def prepare(self, rows: Sequence[int]) -> None:
        """Nothing to work out: every state's row is (as :meth:`.late.LateOutlook.prepare` works out some)."""

    def covers(self, game: "Game") -> None:
        """Every game of these rules: nothing to refuse."""

    def remaining(self, row: int) -> np.ndarray:
        """The distribution of the points still to come from this row's state, the sheet played to its end."""
        return self.sheet[row]

    def mean(self, row: int) -> float:
        """The expected points still to come from this row's state (the advisor's value of it)."""
        return float(self.sheet[row] @ np.arange(self.P))

    def state_row(self, state: int) -> int:
        """A state's row."""
        return int(self._row[state])

    def finish_of(self, row: int) -> np.ndarray:
        """``finish`` of this row's state (generalas x points): what play to win weighs a move by."""
        return self.finish[row]

    def instant_of(self, row: int) -> np.ndarray:
        """``instant`` of this row's state: the chance of a first instant win on each turn still to play."""
        return self.instant[row]

    def prospect(self, row: int, base: int, sheet: Mapping[str, int], first: int) -> "Prospect":
        """A player at this row's state, ``base`` points on the sheet, their next turn numbered ``first``."""
        generalas = self.rules.generalas(sheet) if self.most_generalas else 0
        return Prospect(self.finish[row], self.instant[row], base, generalas, first)


@dataclass
class PlayerChance:
    """One player's outlook in one game."""

    chance: float            # the chance to end as the winner (a shared win counts its share)
    instant: float           # the part of it that comes from an instant win
    total: int               # the points on the sheet now
    expected: float          # the expected final total of the sheet played to its end
    percentiles: dict[int, int]  # the final total of the sheet played to its end, at each of PERCENTILES


@dataclass
class Prospect:
    """One player's future as the combination reads it: the chance of ending ``p`` points and ``g`` generalas above
    ``base`` and ``generalas`` without ever winning on the spot (``finish[g, p]``), the chance of a first instant
    win on each turn still to play (``instant[k]``), and the number of their next turn (``first``), counted in any
    numbering where each player's turns come ``players`` apart."""

    finish: np.ndarray
    instant: np.ndarray
    base: int
    generalas: int
    first: int


class Outlooks(Protocol):
    """What :func:`game_chances` reads of an outlook: :class:`Outlook` here, :class:`.late.LateOutlook` and
    :class:`.sampled.SampledOutlook` (and its shipped opening) for the Yahtzee family."""

    G: int

    def covers(self, game: "Game") -> None: ...
    def row_of(self, sheet: dict[str, int]) -> int: ...
    def prepare(self, rows: Sequence[int]) -> None: ...
    def remaining(self, row: int) -> np.ndarray: ...
    def mean(self, row: int) -> float: ...
    def prospect(self, row: int, base: int, sheet: Mapping[str, int], first: int) -> Prospect: ...


def game_chances(outlook: "Outlooks | None", game: "Game") -> list[PlayerChance]:
    """Every player's chance to win ``game`` from where it stands, and the outlook of their total.

    A finished game gives each winner their share of 1; a roll-off under way
    an equal share to each player still in it (neither needs ``outlook``).
    """
    n = game.players
    totals = game.totals()
    outcome = game.outcome()
    if outcome.status == "finished" or outcome.roll_off is not None:
        ahead = outcome.winners if outcome.status == "finished" else outcome.roll_off
        return [PlayerChance(1 / len(ahead) if i in ahead else 0.0, 1.0 if outcome.reason == "instant_win"
                             and i in ahead else 0.0, totals[i], float(totals[i]),
                             {q: totals[i] for q in PERCENTILES}) for i in range(n)]
    if outlook is None:
        raise ValueError("a game in play needs its rule set's outlook")
    outlook.covers(game)
    rows = [outlook.row_of(game.sheets[i]) for i in range(n)]
    outlook.prepare(rows)
    base = [sum(game.sheets[i].values()) + game.bonuses[i] for i in range(n)]
    found = combine([outlook.prospect(rows[i], base[i], game.sheets[i], _first_turn(game, i)) for i in range(n)],
                    outlook.G)
    out = []
    for i, (instant, share) in enumerate(found):
        sheet = outlook.remaining(rows[i])
        cdf = np.cumsum(sheet)
        percentiles = {q: base[i] + int(np.searchsorted(cdf, q / 100 - 1e-12)) for q in PERCENTILES}
        expected = base[i] + outlook.mean(rows[i])
        out.append(PlayerChance(instant + share, instant, totals[i], expected, percentiles))
    return out


def combine(players: Sequence[Prospect], G: int) -> list[tuple[float, float]]:
    """Each player's chance to win on the spot first, and their share of the win otherwise (independent players)."""
    return list(zip(_instant_wins(players), _shares(players, G)))


def _instant_wins(players: Sequence[Prospect]) -> list[float]:
    """Each player's chance to be the first in turn order to win on the spot.

    Player ``i``'s ``k``-th turn still to play is turn number ``first`` + ``k``
    x players; it wins there if it wins on the spot there (having not
    before) and nobody did on an earlier turn."""
    n = len(players)

    def none_before(j: int, turn: int) -> float:
        turns_before = max(0, -(-(turn - players[j].first) // n))  # j's turns numbered below ``turn``
        return 1.0 - float(players[j].instant[:turns_before].sum())

    out = []
    for i, me in enumerate(players):
        total = 0.0
        for k in np.flatnonzero(me.instant).tolist():
            turn = me.first + k * n
            others = 1.0
            for j in range(n):
                if j != i:
                    others *= none_before(j, turn)
            total += float(me.instant[k]) * others
        out.append(total)
    return out


def _first_turn(game: "Game", player: int) -> int:
    """The game's number (from 0) of ``player``'s next turn."""
    return game.turns + (player - game.start - game.turns) % game.players


def _shares(players: Sequence[Prospect], G: int) -> list[float]:
    """Each player's share of the win on the paths where nobody wins on the spot.

    Each player ends on a key (total, then generalas where they break ties);
    a player on key ``x`` shares the win with the others on ``x`` if all the
    rest are below it. With ``L_j`` and ``E_j`` the chances that player ``j``
    ends below and on ``x``, the chance that exactly ``m`` others tie is the
    coefficient of ``z^m`` in the product over ``j`` of ``(L_j + E_j z)``.
    """
    n = len(players)
    width = max(p.base + p.finish.shape[1] for p in players) * G
    keys = np.zeros((n, width))
    for i, me in enumerate(players):
        P = me.finish.shape[1]
        for gen in range(G):
            start = me.base * G + min(me.generalas + gen, G - 1)
            keys[i, start:start + P * G:G] += me.finish[gen]
    below = np.cumsum(keys, axis=1) - keys
    out = []
    for i in range(n):
        poly = np.zeros((n, width))  # poly[m]: the chance that exactly m of the others tie and the rest are below
        poly[0] = 1.0
        for j in range(n):
            if j == i:
                continue
            poly[1:] = poly[1:] * below[j] + poly[:-1] * keys[j]
            poly[0] = poly[0] * below[j]
        share = (poly / np.arange(1, n + 1)[:, None]).sum(axis=0)
        out.append(float(keys[i] @ share))
    return out
