"""Who is winning in the Yahtzee family: each player's chance, exactly, in a game's last rounds.

Its sheets hold their upper subtotal and whether the Yahtzee box scored as
well as their boxes (536,448 states in Yahtzee), too many to give every
state a distribution of points to come as :class:`.chances.Outlook` does.
So the same distributions are worked out only for the states a game's
sheets can still reach, once every player has at most :data:`LATE_OPEN`
boxes open, and a worker keeps the last :data:`LATE_KEPT` of them: the later
turns of a game find theirs kept.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Mapping, Sequence

import numpy as np

from . import forward
from .chances import NotExact, Prospect, exact_for
from .solve import Solver

if TYPE_CHECKING:  # pragma: no cover
    from ..rules import Game, RuleSet

#: The Yahtzee family's chances are exact once every player still to play has at most this many boxes open:
#: about 80 states a player then (bench/chances_yahtzee.py); 6 open would be 550.
LATE_OPEN = 4
#: The most states a worker's :class:`LateOutlook` keeps the distribution of (5.4 KB each in Yahtzee: 16 MB
#: at most): past it, it starts again.
LATE_KEPT = 3000


def most_open(game: "Game") -> int:
    """The most boxes any player of ``game`` still has open."""
    return _most_open(game.rules, [game.sheets[i] for i in range(game.players)])


def _most_open(rules: "RuleSet", sheets: Sequence[Mapping[str, int]]) -> int:
    return max(len(rules.boxes) - len(sheet) for sheet in sheets)


def is_late(game: "Game") -> bool:
    """Whether :class:`LateOutlook` works ``game`` out: every player has at most :data:`LATE_OPEN` boxes open."""
    return most_open(game) <= LATE_OPEN


def late_enough(game: "Game") -> None:
    """Refuse (:class:`NotExact`) a game of rules like the Yahtzee family's in which a player has more than
    :data:`LATE_OPEN` boxes open: asked before anything is built."""
    late_sheets(game.rules, [game.sheets[i] for i in range(game.players)])


def late_sheets(rules: "RuleSet", sheets: Sequence[Mapping[str, int]]) -> None:
    """:func:`late_enough` for the sheets of a game's players (play to win asks with sheets, not a game)."""
    most = _most_open(rules, sheets)
    if most > LATE_OPEN:
        raise NotExact(f"Chances are worked out for {rules.variant.id} from the last {LATE_OPEN} rounds, once "
                       f"every player has at most {LATE_OPEN} boxes open (a player has {most} now), since "
                       f"{exact_for(rules)}")


def refused(rules: "RuleSet") -> str | None:
    """Why :class:`LateOutlook` (and :class:`.sampled.SampledOutlook`, which follows the same turns) cannot work
    out chances for rules whose sheets hold more than their boxes, or None when it can."""
    if rules.options.tie_break == "most_generalas":
        return f"{exact_for(rules)}, and ties go to the most generalas"
    if not forward.batched(rules):
        return f"{exact_for(rules)}, and a served roll scores or wins differently"
    return None


class LateOutlook:
    """:class:`.chances.Outlook`'s distributions for rule sets whose sheets hold more than their boxes (a section's
    subtotal, bonuses of rolls: the Yahtzee family), worked out only for the states a game can still reach,
    each once per worker, and only once every player has at most :data:`LATE_OPEN` boxes open.

    A state's distribution comes from the states its turn leads to, followed
    forward as :class:`.chances.Outlook` does, in the same fixed order; a
    full sheet adds the section bonus its subtotal earned. Rows are the
    states' own indexes. The turns of all the states a game still needs are
    followed together, a level of the tree at a time (:meth:`prepare`), which
    takes rules where no served roll scores or wins differently
    (:func:`.forward.batched`: every rule set with a section bonus or bonuses
    of rolls, the Yahtzee family's). The tie-break on most generalas is not
    followed here (no rule set of this kind has it).
    """

    G = 1
    most_generalas = False

    def __init__(self, solver: Solver, V: np.ndarray) -> None:
        rules = solver.rules
        why = refused(rules)
        if why is not None:
            raise NotExact(why)
        self.solver, self.V, self.rules, self.space = solver, V, rules, solver.space
        space = self.space
        # every box's most, the section bonuses, and three bonuses of rolls: past that lies less than 1e-7
        self.P = sum(max(space.possible[b]) for b in range(space.nb)) + 1 + \
            int(sum(points for _, _, points in space.sections)) + 3 * max(rules.options.yahtzee_bonus or 0, 0)
        self.kept: dict[int, tuple[np.ndarray, np.ndarray, np.ndarray]] = {}

    def covers(self, game: "Game") -> None:
        late_enough(game)

    def row_of(self, sheet: dict[str, int]) -> int:
        return int(self.space.state_of(sheet))

    def prepare(self, rows: Sequence[int]) -> None:
        """Work out the states these sheets can reach that are not kept yet (every player's of a game at once)."""
        self._work_out(rows)

    def remaining(self, row: int) -> np.ndarray:
        return self._of(row)[0]

    def mean(self, row: int) -> float:
        return float(self._of(row)[0] @ np.arange(self.P))

    def state_row(self, state: int) -> int:
        """A state's row: the state itself (rows are states' own numbers here)."""
        return int(state)

    def finish_of(self, row: int) -> np.ndarray:
        return self._of(row)[1][None, :]

    def instant_of(self, row: int) -> np.ndarray:
        return self._of(row)[2]

    def prospect(self, row: int, base: int, sheet: Mapping[str, int], first: int) -> "Prospect":
        _, finish, instant = self._of(row)
        return Prospect(finish[None, :], instant, base, 0, first)

    def _of(self, state: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """(sheet, finish, instant) of one state, from those of the states its turn leads to."""
        found = self.kept.get(state)
        return found if found is not None else self._work_out([state])[state]

    def _work_out(self, roots: Sequence[int]) -> dict[int, tuple[np.ndarray, np.ndarray, np.ndarray]]:
        """Every state the turns from ``roots`` lead to and not kept yet, each level's turns followed together
        (:func:`.forward.outcomes`), then the distributions from the fullest sheets back: no instant win, so
        each state's finish is its sheet. Returns what it worked out, also kept (unless past :data:`LATE_KEPT`
        alone)."""
        space, full = self.space, (1 << self.space.nb) - 1
        if len(self.kept) >= LATE_KEPT:
            self.kept = {}
        kept = self.kept
        todo: dict[int, tuple[int, int, int]] = {s: space.parts(s) for s in roots if s not in kept}
        leads: dict[int, tuple[np.ndarray, np.ndarray, np.ndarray]] = {}
        level = [s for s, (mask, _, _) in todo.items() if mask != full]
        while level:
            mask, u, flags = (np.array(a, dtype=np.int64) for a in zip(*(todo[s] for s in level)))
            nxt = []
            for s, out in zip(level, forward.outcomes(self.solver, self.V, mask, u, flags)):
                leads[s] = out
                for after in out[0].tolist():
                    if after not in kept and after not in todo:
                        todo[after] = space.parts(after)
                        nxt.append(after)
            level = [s for s in nxt if todo[s][0] != full]
        if kept and len(kept) + len(todo) > LATE_KEPT:  # a new night's sheets: start again, not track use
            self.kept = {}
            return self._work_out(roots)
        made: dict[int, tuple[np.ndarray, np.ndarray, np.ndarray]] = {}
        instant = np.zeros(space.nb + 1)
        instant.setflags(write=False)
        for s in sorted(todo, key=lambda s: -todo[s][0].bit_count()):  # a turn leads to a fuller sheet
            sheet = np.zeros(self.P)
            if s in leads:
                for after, points, p in zip(*(a.tolist() for a in leads[s])):
                    if points < self.P:
                        later = made[after][0] if after in made else kept[after][0]
                        sheet[points:] += p * later[:self.P - points]
            else:  # a full sheet: the section bonus its subtotal earned
                sheet[int(space.bonus(np.array([todo[s][1]]))[0])] = 1.0
            made[s] = (sheet, sheet, instant)
        kept.update(made)
        return made
