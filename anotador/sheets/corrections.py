"""Correcting a recorded turn: the whole game is checked again from the start.

What the turn was before is kept (a game keeps at most MAX_CORRECTIONS),
so the history shows every correction.
"""

from __future__ import annotations

from typing import Any

from flask import current_app
from sqlalchemy import delete, func, select

from ..extensions import db
from ..store.models import CorrectionRow, EntryRow, GameRow, RollOffRow, TurnRow, utcnow
from ..store.transactions import writing
from ..rules import Choice, Game, InvalidTurnError, Play, RulesError, check_rolls
from ..rules.rolls import served_of
from .errors import Conflict, GameNotFound, TooManyCorrections
from .keys import Idempotency, Written
from .reads import entry_json, turns_of
from .rows import apply_outcome
from .standings import follow
from .state import keep, names_of, rules_of, state_of
from .turns import turn_choices
from .writes import lock, remember, writes


@writes
def correct_turn(game_id: str, token: str | None, if_match: Any, number: int,
                 data: dict[str, Any], idem: Idempotency | None = None) -> Written:
    """Correct turn ``number`` and re-check every turn from the start.

    ``data`` may hold ``dice``, ``served``, and the box (``category`` and
    ``scratch``, or ``boxes``); what it does not hold stays as recorded. A
    correction that a later turn no longer fits is refused whole (409),
    naming that turn.
    """
    with writing():
        game = lock(game_id, token, if_match, idem)
        state = _corrected(game, number, data)
        answer = remember(game, state, idem)
        follow(game, state)  # a table's standings, in this transaction
    keep(game, state)
    return Written(game, state, answer)


def _corrected(game: GameRow, number: int, data: dict[str, Any]) -> Game:
    """Turn ``number`` of the locked ``game`` corrected, its old self kept, every entry rewritten: the new state."""
    turns = turns_of(game)
    if not 1 <= number <= len(turns):
        raise GameNotFound(f"turn {number}")
    limit = current_app.config["MAX_CORRECTIONS"]
    done = db.session.scalar(select(func.count()).select_from(CorrectionRow).where(CorrectionRow.game_id == game.id))
    if done >= limit:
        raise TooManyCorrections(f"This game has had {done} corrections, the most one game keeps ({limit}); "
                                 "start a new game to go on.")
    target = turns[number - 1]
    if "player" in data and data["player"] != target.player:
        raise InvalidTurnError(
            f"Turn {number} was player {target.player}'s; a correction cannot change whose turn it was.", "player")
    if "scratch" in data and "category" not in data:
        raise InvalidTurnError("Send the category with scratch.", "scratch")
    if not {"dice", "served", "category", "boxes", "rolls"} & set(data):
        raise InvalidTurnError("Send what to correct: dice, served, category, boxes or rolls.", None)
    rules = rules_of(game)
    choices = turn_choices(data, rules) if {"category", "boxes"} & set(data) else _choices_of(target)
    dice, served, rolls = _corrected_dice(rules, target, data)
    history = [(t.player, t.dice, t.served, _choices_of(t)) for t in turns]
    new = (target.player, dice, served, choices)
    history[number - 1] = new
    before = state_of(game)
    try:
        state, plays = Game.replay(rules, len(names_of(game)), game.start, history)
    except RulesError as exc:
        at = getattr(exc, "turn", number)
        if at == number:
            raise  # the corrected turn itself is wrong: a validation error
        raise Conflict(f"With this correction turn {at} no longer fits: {exc.message}", "turn") from None

    db.session.add(CorrectionRow(game_id=game.id, turn_id=target.id, dice=target.dice, served=target.served,
                                 rolls=target.rolls, boxes=[entry_json(e) for e in target.entries],
                                 recorded_at=target.corrected_at or target.recorded_at))
    target.dice = None if new[1] is None else list(new[1])
    target.served = bool(new[2])
    target.rolls = rolls
    target.corrected_at = utcnow()
    # Later turns keep their boxes but their points follow the corrected
    # sheet (a double generala, an instant win); rewrite every entry.
    db.session.execute(delete(EntryRow).where(EntryRow.game_id == game.id))
    db.session.flush()
    for turn, play in zip(turns, plays):
        for entry in _entries(game, play):
            entry.turn_id = turn.id
            db.session.add(entry)
    # Roll-off rolls settle one tie; if the correction changed who is tied,
    # they no longer mean anything.
    if before.roll_offs and before.leaders() == state.leaders():
        state.roll_offs = before.roll_offs
    elif before.roll_offs:
        db.session.execute(delete(RollOffRow).where(RollOffRow.game_id == game.id))
    apply_outcome(game, state)
    db.session.expire(target, ["entries"])
    return state


def _corrected_dice(rules, target: TurnRow, data: dict[str, Any]) -> tuple[Any, bool, list | None]:
    """The corrected turn's dice, served and throws.

    New throws (``rolls``) are checked against the dice and served sent with
    them, and give those not sent. Without new throws, the recorded ones stay
    while they still fit; a correction of the dice or of served drops them
    (they would no longer lead to these dice), as ``rolls: null`` does.
    """
    if data.get("rolls") is not None:
        throws = check_rolls(rules, data["rolls"], data.get("dice"), data.get("served"))
        dice = data.get("dice", list(throws[-1].dice))
        served = data.get("served", rules.served_matters and served_of(throws))
        return dice, bool(served), [t.as_dict() for t in throws]
    dice, served = data.get("dice", target.dice), bool(data.get("served", target.served))
    same = (None if dice is None else sorted(dice)) == (None if target.dice is None else sorted(target.dice))
    keep = "rolls" not in data and same and served == target.served
    return dice, served, target.rolls if keep else None


def _choices_of(turn: TurnRow) -> list[Choice]:
    return [Choice(e.box, e.scratch, None if e.dice is None else tuple(e.dice)) for e in turn.entries]


def _entries(game: GameRow, play: Play) -> list[EntryRow]:
    """The rows a played turn writes, one per box it filled."""
    return [EntryRow(game_id=game.id, player=play.player, box=p.category, points=p.points, scratch=p.scratch,
                     dice=None if p.dice is None else list(p.dice), bonus=p.bonus)
            for p in play.boxes]
