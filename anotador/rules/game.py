"""A game at the table: who starts, whose turn it is, placing a turn, the end.

:class:`Game` is pure state built by playing turns in order, so the same code
records a new turn, re-checks a corrected history by replaying it, and names
the winner. Scoring a group in a box is still :class:`RuleSet`'s job.
"""

from __future__ import annotations

import unicodedata
from collections import Counter
from dataclasses import dataclass, field
from typing import Any, Iterable, Sequence

from .errors import (BoxClosedError, FirstPlayerTieError, GameOverError, InvalidDiceError, InvalidGroupsError,
                     InvalidNameError, InvalidTurnError, NotQualifiedError, NotYourTurnError, RollOffError,
                     RulesError, UnknownBoxError)
from .boxes import Counts
from .rolls import Throw, check_rolls, served_of
from .ruleset import RuleSet
from .spec import GROUP

MAX_PLAYERS = 12
#: Rounds of first-player dice a request may hold: ties that repeat this often
#: are a typo, not dice.
MAX_FIRST_ROUNDS = 50


#: Longest player name, in characters (after spaces are folded).
MAX_NAME = 40


def clean_name(raw: Any, path: str) -> str:
    """Return a player's name as shown everywhere, or raise InvalidNameError naming ``path``.

    The one rule for a name, wherever one is accepted (a game's players, a
    printed sheet's columns): text, runs of white space folded to one
    space and trimmed, Unicode NFC, 1 to 40 characters, and no control,
    format (bidirectional overrides, zero-width joiners), private-use or
    unassigned characters, which could hide or reorder what others see.
    """
    if not isinstance(raw, str):
        raise InvalidNameError("A player's name is text.", path)
    name = unicodedata.normalize("NFC", " ".join(raw.split()))
    if not 1 <= len(name) <= MAX_NAME:
        raise InvalidNameError(f"A name has 1 to {MAX_NAME} characters.", path)
    if any(unicodedata.category(ch)[0] == "C" for ch in name):
        raise InvalidNameError("A name cannot hold control or invisible format characters.", path)
    return name


def clean_names(names: Any, fewest: int, path: str = "players") -> list[str]:
    """Return the names of a table, each by :func:`clean_name`, none twice (ignoring case)."""
    if not isinstance(names, (list, tuple)) or not fewest <= len(names) <= MAX_PLAYERS:
        raise InvalidNameError(f"{path} must list {fewest} to {MAX_PLAYERS} names.", path)
    out: list[str] = []
    seen: dict[str, int] = {}
    for i, raw in enumerate(names):
        name = clean_name(raw, f"{path}.{i}")
        key = name_key(name)
        if key in seen:
            raise InvalidNameError(f"{name!r} is already at the table (seat {seen[key]}).", f"{path}.{i}")
        seen[key] = i
        out.append(name)
    return out


def name_key(name: str) -> str:
    """The form two names are compared in: "Ana" and "ANA" are one player."""
    return name.casefold()


#: Rounds a roll-off may take: players still tied after this many share the win (``tie_shared``), so a game
#: always ends and its record stays small.
MAX_ROLL_OFF_ROUNDS = 10

#: Why a game ended; the API's ``reason`` values.
REASONS = ("instant_win", "highest_total", "tie_shared", "most_generalas", "roll_off", "draw")


def first_player(rules: RuleSet, rolls: Any, players: int) -> int:
    """Return the seat that starts, from the first-player dice (RULES.md ``first_player``).

    ``rolls`` is one die per seat (``[6, 6, 3]``), or rounds of dice: the
    first round holds every seat's die, each further round the dice of the
    seats still tied, in seat order (``[[6, 6, 3], [2, 1]]``: seats 0 and 1
    tied at 6, then seat 0 rolled 2 and seat 1 rolled 1). With no rolls the
    first seat starts. Rolls are checked even under ``as_listed``, which
    then ignores them. Rounds that still end tied raise
    :class:`FirstPlayerTieError`, whose ``seats`` roll again.
    """
    if rolls is None:
        return 0
    rounds, paths = _first_rounds(rolls)
    rule = rules.options.first_player
    seats = list(range(players))
    for k, (dice, path) in enumerate(zip(rounds, paths)):
        if k and len(seats) == 1:
            raise InvalidDiceError(
                f"Seat {seats[0]} already starts after round {k - 1}: there is no tie for round {k} to break.",
                path)
        if len(dice) != len(seats):
            who = "every seat" if k == 0 else f"the tied seats {', '.join(map(str, seats))}"
            raise InvalidDiceError(
                f"{'first_rolls' if path == 'first_rolls' else f'Round {k}'} must hold one die for {who} "
                f"({len(seats)}), not {len(dice)}.", path)
        for i, d in enumerate(dice):
            if type(d) is not int or not 1 <= d <= 6:
                raise InvalidDiceError(f"A die is a whole number from 1 to 6, not {d!r}.", f"{path}.{i}")
        if rule == "as_listed":
            if k:
                raise InvalidDiceError("With first_player as_listed the first seat starts: there is no tie "
                                       "to roll again.", path)
            continue
        best = max(dice) if rule == "highest_die" else min(dice)
        seats = [s for s, d in zip(seats, dice) if d == best]
    if rule == "as_listed":
        return 0
    if len(seats) > 1:
        raise FirstPlayerTieError(
            f"Seats {', '.join(map(str, seats))} are still tied: they roll again, and their dice go in "
            f"first_rolls as a further round.", "first_rolls", seats)
    return seats[0]


def _first_rounds(rolls: Any) -> tuple[list[list[Any]], list[str]]:
    """Split ``first_rolls`` into rounds, with the path that names each."""
    if not isinstance(rolls, (list, tuple)) or not rolls:
        raise InvalidDiceError("first_rolls must list one die per player, or rounds of dice.", "first_rolls")
    if len(rolls) > MAX_FIRST_ROUNDS:
        raise InvalidDiceError(f"first_rolls holds at most {MAX_FIRST_ROUNDS} rounds.", "first_rolls")
    nested = [isinstance(r, (list, tuple)) for r in rolls]
    if not any(nested):
        return [list(rolls)], ["first_rolls"]
    for k, is_list in enumerate(nested):
        if not is_list:
            raise InvalidDiceError("Rounds of first_rolls are lists of dice: send [[6, 6, 3], [2, 1]], "
                                   "or one flat list.", f"first_rolls.{k}")
    return [list(r) for r in rolls], [f"first_rolls.{k}" for k in range(len(rolls))]


@dataclass(frozen=True)
class Choice:
    """A box the player chose for a turn: scored, or scratched.

    ``dice`` is the group of five placed there in a two-box variant.
    """

    category: str
    scratch: bool = False
    dice: tuple[int, ...] | None = None


@dataclass(frozen=True)
class Placed:
    """A box filled by a turn, with the points the rules gave it.

    ``bonus``: points the roll earned besides the box (a further Yahtzee's).
    """

    category: str
    points: int
    scratch: bool
    dice: tuple[int, ...] | None = None
    bonus: int = 0


@dataclass(frozen=True)
class Play:
    """A turn as recorded: who, the dice, and what each box got."""

    player: int
    round: int
    dice: tuple[int, ...] | None
    served: bool
    boxes: tuple[Placed, ...]
    instant_win: bool
    #: The turn's throws, where the table recorded them (:mod:`anotador.rules.rolls`).
    rolls: tuple[Throw, ...] | None = None


@dataclass(frozen=True)
class Outcome:
    """Where a game stands: playing or finished, and who won and why.

    While a ``roll_off`` tie-break is under way the game is still playing,
    with no turn, and ``roll_off`` names the contenders still rolling.
    """

    status: str
    winners: tuple[int, ...] = ()
    reason: str | None = None
    roll_off: tuple[int, ...] | None = None


@dataclass
class Game:
    """The state of one game, built by playing its turns in order."""

    rules: RuleSet
    players: int
    start: int = 0
    sheets: list[dict[str, int]] = field(default_factory=list)
    scratched: list[set[str]] = field(default_factory=list)
    turns: int = 0
    instant_winner: int | None = None
    roll_offs: list[tuple[int, tuple[int, ...]]] = field(default_factory=list)
    #: Each player's points from bonuses of rolls (Yahtzee bonuses), besides the boxes.
    bonuses: list[int] = field(default_factory=list)

    def __post_init__(self) -> None:
        low = self.rules.variant.min_players
        if not low <= self.players <= MAX_PLAYERS:
            raise InvalidTurnError(f"A game of {self.rules.variant.id} has {low} to {MAX_PLAYERS} players.",
                                   "players")
        if not self.sheets:
            self.sheets = [{} for _ in range(self.players)]
            self.scratched = [set() for _ in range(self.players)]
        if not self.bonuses:
            self.bonuses = [0] * self.players

    def copy(self) -> "Game":
        """An independent copy: playing on it leaves this state as it is."""
        return Game(self.rules, self.players, self.start, [dict(s) for s in self.sheets],
                    [set(s) for s in self.scratched], self.turns, self.instant_winner, list(self.roll_offs),
                    list(self.bonuses))

    # -- whose turn -------------------------------------------------------

    @property
    def total_turns(self) -> int:
        """Turns in a game that runs to the end."""
        return self.players * self.rules.rounds

    def turn(self) -> tuple[int, int] | None:
        """Return (player, round) to play next, or None once no turn is due."""
        if self.instant_winner is not None or self.turns >= self.total_turns:
            return None
        return (self.start + self.turns) % self.players, self.turns // self.players + 1

    # -- playing ----------------------------------------------------------

    def play(self, player: Any, dice: Any, served: bool | None, choices: Sequence[Choice],
             rolls: Any = None) -> Play:
        """Check a turn against the rules and the sheet, apply it, and return it.

        The points come from the rules, never from the caller. Raises a
        conflict error (game over, not this player's turn, closed box) or a
        validation error (bad dice, box the roll does not qualify for).
        ``rolls``, if the table recorded them, are the turn's throws
        (:func:`~anotador.rules.rolls.check_rolls`): they give the dice and
        whether they were served where those are not said (``served`` None).
        """
        due = self.turn()
        if due is None:
            raise GameOverError("The game is over: no more turns.", None)
        if type(player) is not int or not 0 <= player < self.players:
            raise InvalidTurnError(f"player must be a seat from 0 to {self.players - 1}.", "player")
        if player != due[0]:
            raise NotYourTurnError(f"It is player {due[0]}'s turn (round {due[1]}), not player {player}'s.", "player")
        throws = None
        if rolls is not None:
            throws = check_rolls(self.rules, rolls, dice, served)
            if dice is None:
                dice = list(throws[-1].dice)
            if served is None:
                served = self.rules.served_matters and served_of(throws)
        placed, counts = self._place(player, dice, bool(served), choices)
        sheet = self.sheets[player]
        wins = counts is not None and self.rules.boxes_per_turn == 1 and self.rules.wins_on_the_spot(
            counts, bool(served), sheet
        )
        for p in placed:
            sheet[p.category] = p.points
            self.bonuses[player] += p.bonus
            if p.scratch or p.points == 0:  # a number box scored 0 is the same as a scratch (RULES.md)
                self.scratched[player].add(p.category)
        self.turns += 1
        if wins:
            self.instant_winner = player
        return Play(player, due[1], None if dice is None else tuple(dice), bool(served), tuple(placed), wins, throws)

    def _place(self, player: int, dice: Any, served: bool, choices: Sequence[Choice]):
        rules = self.rules
        n = rules.boxes_per_turn
        sheet = self.sheets[player]
        if len(choices) != n:
            what = "one box" if n == 1 else f"{n} boxes"
            raise InvalidTurnError(f"A turn of {rules.variant.id} fills {what}.", "boxes" if n > 1 else "category")
        cats = [c.category for c in choices]
        for i, c in enumerate(cats):
            path = "category" if n == 1 else f"boxes.{i}.category"
            if c not in rules.index:
                raise UnknownBoxError(f"This sheet has no box {c!r}.", path)
            if c in sheet:
                raise BoxClosedError(f"Player {player}'s {c} is already closed.", path)
        if len(set(cats)) != n:
            raise InvalidTurnError("Each box of a turn must be a different box.", "boxes")

        all_scratch = all(c.scratch for c in choices)
        if dice is None:
            if not all_scratch:
                raise InvalidDiceError("dice are needed unless the turn is a scratch.", "dice")
            counts = None
        else:
            counts = rules.check_dice(dice, rules.dice, "dice")

        if n == 1:
            choice = choices[0]
            allowed = rules.allowed(counts, sheet)
            if allowed is not None and choice.category not in allowed:
                # A forced joker: the rules say where this Yahtzee goes.
                raise NotQualifiedError(
                    f"A further five of a kind is a joker here: it goes in "
                    f"{' or '.join(sorted(allowed))}.", "category")
            bonus = rules.bonus_for(counts, sheet)
            if choice.scratch:
                return [Placed(choice.category, 0, True, bonus=bonus)], counts
            points = self._points(sheet, counts, served, choice.category, dice, "category")  # type: ignore[arg-type]
            return [Placed(choice.category, points, False, bonus=bonus)], counts

        # Several boxes: each group of five goes in its own box.
        placed = []
        used: Counter = Counter()
        for i, choice in enumerate(choices):
            group = choice.dice
            if group is None:
                if not choice.scratch:
                    raise InvalidGroupsError("Each scored box needs its group of five dice.", f"boxes.{i}.dice")
                placed.append(Placed(choice.category, 0, True))
                continue
            g = rules.check_dice(list(group), GROUP, f"boxes.{i}.dice")
            used.update(group)
            if choice.scratch:
                placed.append(Placed(choice.category, 0, True, tuple(sorted(group))))
                continue
            points = self._points(sheet, g, served, choice.category, group, f"boxes.{i}.category")
            placed.append(Placed(choice.category, points, False, tuple(sorted(group))))
        if counts is not None:
            rolled = Counter({face: k for face, k in zip(range(1, 7), counts) if k})
            if used - rolled:
                raise InvalidGroupsError("The groups must be made of the dice rolled.", "boxes")
            if all(c.dice is not None for c in choices) and used != rolled:
                raise InvalidGroupsError("The groups must hold exactly the dice rolled.", "boxes")
        elif used:
            raise InvalidDiceError("Send the dice rolled with the groups.", "dice")
        return placed, counts

    def _points(self, sheet: dict[str, int], counts: Counts, served: bool, category: str, dice: Any,
                path: str) -> int:
        """Points of a group in the box chosen for it; refuse a box it does not qualify for.

        A number box takes any group (scoring 0 there is the same as a
        scratch, and is shown as one); any other box that would score 0
        needs ``scratch``.
        """
        rules = self.rules
        points = rules.points_on(counts, served, sheet)[rules.index[category]]
        if points == 0 and rules.box(category).kind != "number":
            raise NotQualifiedError(
                f"{'-'.join(map(str, sorted(dice)))} does not qualify for {category}; "
                "scratch it instead, or choose another box.", path,
            )
        return points

    # -- the end ----------------------------------------------------------

    def totals(self) -> list[int]:
        """Each player's total, bonuses included."""
        return [self.rules.total(s, b) for s, b in zip(self.sheets, self.bonuses)]

    def leaders(self) -> tuple[int, ...] | None:
        """Players with the highest total once every box is closed, else None."""
        if self.instant_winner is not None or self.turns < self.total_turns:
            return None
        totals = self.totals()
        best = max(totals)
        return tuple(i for i, t in enumerate(totals) if t == best)

    def outcome(self) -> Outcome:
        """Return whether the game is over, who won, and why."""
        if self.instant_winner is not None:
            return Outcome("finished", (self.instant_winner,), "instant_win")
        tied = self.leaders()
        if tied is None:
            return Outcome("playing")
        if len(tied) == 1:
            return Outcome("finished", tied, "highest_total")
        rule = self.rules.options.tie_break
        if rule == "most_generalas":
            counts = {i: self.rules.generalas(self.sheets[i]) for i in tied}
            most = max(counts.values())
            ahead = tuple(i for i in tied if counts[i] == most)
            return Outcome("finished", ahead, "most_generalas" if len(ahead) == 1 else "draw")
        if rule == "roll_off":
            return self._roll_off_outcome(tied)
        return Outcome("finished", tied, "tie_shared")

    def _roll_off_rounds(self, tied: tuple[int, ...]) -> tuple[tuple[int, ...], dict[int, int], int]:
        """Walk the roll-off rolls: the contenders still in, this round's rolls so far, and the rounds done."""
        contenders = tied
        rolls: dict[int, int] = {}
        rounds = 0
        for player, dice in self.roll_offs:
            rolls[player] = sum(dice)
            if len(rolls) == len(contenders):
                best = max(rolls.values())
                contenders = tuple(p for p in contenders if rolls[p] == best)
                rolls = {}
                rounds += 1
                if len(contenders) == 1 or rounds == MAX_ROLL_OFF_ROUNDS:
                    break
        return contenders, rolls, rounds

    def _roll_off_outcome(self, tied: tuple[int, ...]) -> Outcome:
        contenders, _, rounds = self._roll_off_rounds(tied)
        if len(contenders) == 1:
            return Outcome("finished", contenders, "roll_off")
        if rounds == MAX_ROLL_OFF_ROUNDS:
            return Outcome("finished", contenders, "tie_shared")
        return Outcome("playing", roll_off=contenders)

    def roll_off(self, player: Any, dice: Any) -> None:
        """Record one tie-break roll of five dice by a tied player."""
        out = self.outcome()
        if out.roll_off is None and out.reason == "tie_shared" and self.roll_offs:
            raise RollOffError(f"The roll-off ended after {MAX_ROLL_OFF_ROUNDS} rounds still tied: "
                               "the tied players share the win.", None)
        if out.roll_off is None:
            raise RollOffError("No roll-off is under way in this game.", None)
        if type(player) is not int or player not in out.roll_off:
            raise RollOffError(
                f"Only players {', '.join(map(str, out.roll_off))} are in the roll-off.", "player"
            )
        _, rolled, _ = self._roll_off_rounds(self.leaders())  # type: ignore[arg-type]
        if player in rolled:
            raise RollOffError(f"Player {player} has rolled this round; the others roll now.", "player")
        self.rules.check_dice(dice, GROUP, "dice")
        self.roll_offs.append((player, tuple(dice)))

    def roll_off_state(self) -> dict[str, Any] | None:
        """Return the roll-off under way: contenders, this round's rolls, and which round it is (from 1)."""
        out = self.outcome()
        if out.roll_off is None:
            return None
        contenders, rolled, rounds = self._roll_off_rounds(self.leaders())  # type: ignore[arg-type]
        return {"players": list(contenders), "rolled": {str(p): s for p, s in rolled.items()}, "round": rounds + 1}

    # -- rebuilding -------------------------------------------------------

    @classmethod
    def replay(cls, rules: RuleSet, players: int, start: int,
               turns: Iterable[tuple[int, Any, bool, Sequence[Choice]]]) -> tuple["Game", list[Play]]:
        """Play ``turns`` (player, dice, served, choices) from the start.

        Raises the error of the first turn that no longer fits, with the
        1-based turn number in ``exc.turn``.
        """
        game = cls(rules, players, start)
        plays = []
        for n, (player, dice, served, choices) in enumerate(turns, start=1):
            try:
                plays.append(game.play(player, dice, served, choices))
            except RulesError as exc:
                exc.turn = n  # type: ignore[attr-defined]
                raise
        return game, plays

