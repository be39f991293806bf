"""Correcting a recorded turn: the whole game is checked again from the start.

What the turn was before is kept (a game keeps at most MAX_CORRECTIONS),
so the history shows every correction.
"""

from __future__ import annotations

from typing import Any

from flask import current_app
from sqlalchemy import delete, func, select

from ..extensions import db
from ..models import CorrectionRow, EntryRow, GameRow, RollOffRow, TurnRow, utcnow
from ..rules import Choice, Game, InvalidTurnError, Play, RulesError
from .errors import Conflict, GameNotFound, TooManyCorrections
from .keys import Idempotency
from .reads import entry_json, turns_of
from .rows import apply_outcome
from .state import names_of, rules_of, state_of
from .turns import turn_choices
from .writes import commit, lock, remember, writes


@writes
def correct_turn(game_id: str, token: str | None, if_match: Any, number: int,
                 data: dict[str, Any], idem: Idempotency | None = None) -> tuple[GameRow, Game]:
    """Correct turn ``number`` and re-check every turn from the start.

    ``data`` may hold ``dice``, ``served``, and the box (``category`` and
    ``scratch``, or ``boxes``); what it does not hold stays as recorded. A
    correction that a later turn no longer fits is refused whole (409),
    naming that turn.
    """
    game = lock(game_id, token, if_match, idem)
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
    if not {"dice", "served", "category", "boxes"} & set(data):
        raise InvalidTurnError("Send what to correct: dice, served, category or boxes.", None)
    rules = rules_of(game)
    choices = turn_choices(data, rules) if {"category", "boxes"} & set(data) else _choices_of(target)
    history = [(t.player, t.dice, t.served, _choices_of(t)) for t in turns]
    new = (target.player, data.get("dice", target.dice), data.get("served", target.served), choices)
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
                                 boxes=[entry_json(e) for e in target.entries],
                                 recorded_at=target.corrected_at or target.recorded_at))
    target.dice = None if new[1] is None else list(new[1])
    target.served = bool(new[2])
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
    remember(game, state, idem)
    commit(game, state)
    return game, state


def _choices_of(turn: TurnRow) -> list[Choice]:
    return [Choice(e.box, e.scratch, None if e.dice is None else tuple(e.dice)) for e in turn.entries]


def _entries(game: GameRow, play: Play) -> list[EntryRow]:
    """The rows a played turn writes, one per box it filled."""
    return [EntryRow(game_id=game.id, player=play.player, box=p.category, points=p.points, scratch=p.scratch,
                     dice=None if p.dice is None else list(p.dice), bonus=p.bonus)
            for p in play.boxes]
