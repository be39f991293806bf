"""Reading a game: its row, its version for a poll, and its history (turns, corrections, roll-offs)."""

from __future__ import annotations

import re
from typing import Any

from flask import current_app
from sqlalchemy import select
from sqlalchemy.orm import selectinload

from ..extensions import db
from ..rules import Throw
from ..solver.advise import Recorded
from ..store.models import CorrectionRow, EntryRow, GameRow, RollOffRow, TurnRow
from .backends import backend
from .errors import GameNotFound
from .times import iso_stored


#: What a game id can be: URL-safe base64, as made by secrets.token_urlsafe (16 characters today).
GAME_ID = re.compile(r"[A-Za-z0-9_-]{1,32}")


def possible_id(game_id: Any) -> bool:
    """Whether ``game_id`` could name a game at all.

    Anything else (a NUL, which PostgreSQL refuses in text; any other byte)
    is a game that does not exist, answered before the database is asked.
    """
    return isinstance(game_id, str) and GAME_ID.fullmatch(game_id) is not None


def get(game_id: str) -> GameRow:
    """The game's row, for a request that only reads.

    What the request reads next (the entries a replay needs, the turns,
    corrections and roll-offs of the history) is of the version this row
    names, even while a write lands: one snapshot on either database.
    """
    backend().snapshot()
    game = db.session.get(GameRow, game_id) if possible_id(game_id) else None
    if game is None:
        raise GameNotFound(game_id)
    return game


def head_of(game_id: str) -> tuple[int, str]:
    """The current version and when it was made: all a poll needs, by the primary key alone.

    On the app's :class:`~anotador.store.database.Heads` (a plain connection) where
    it can; through the session otherwise (an in-memory SQLite database).
    """
    if not possible_id(game_id):
        raise GameNotFound(game_id)
    heads = current_app.extensions["anotador.heads"]
    if heads.enabled:
        row = heads.get(game_id)
    else:
        row = db.session.execute(select(GameRow.version, GameRow.updated_at).where(GameRow.id == game_id)).first()
    if row is None:
        raise GameNotFound(game_id)
    return row[0], iso_stored(row[1])


def turns_of(game: GameRow) -> list[TurnRow]:
    return list(db.session.scalars(select(TurnRow).where(TurnRow.game_id == game.id).order_by(TurnRow.number)))


def recorded_turns(game: GameRow) -> list[Recorded]:
    """The game's turns as the advisor judges them (:func:`~anotador.solver.advise.judge_game`), in order.

    Read as the database has them now, inside a write too (a correction has
    just rewritten every entry): never the session's older copies.
    """
    turns = db.session.scalars(
        select(TurnRow).where(TurnRow.game_id == game.id).order_by(TurnRow.number)
        .options(selectinload(TurnRow.entries)).execution_options(populate_existing=True))
    return [Recorded(turn.number, turn.player, turn.round, turn.dice, turn.served,
                     [(e.box, e.points, e.dice) for e in turn.entries], sum(e.bonus or 0 for e in turn.entries),
                     None if turn.rolls is None else [Throw.of(t) for t in turn.rolls])
            for turn in turns]


def corrections_of(game: GameRow) -> dict[int, list[CorrectionRow]]:
    """Turn id → what that turn was before each correction, oldest first."""
    out: dict[int, list[CorrectionRow]] = {}
    for row in db.session.scalars(
            select(CorrectionRow).where(CorrectionRow.game_id == game.id).order_by(CorrectionRow.id)):
        out.setdefault(row.turn_id, []).append(row)
    return out


def roll_offs_of(game: GameRow) -> list[RollOffRow]:
    return list(db.session.scalars(
        select(RollOffRow).where(RollOffRow.game_id == game.id).order_by(RollOffRow.seq)))


def entry_json(entry: EntryRow) -> dict[str, Any]:
    """A box a turn filled, as the history shows it."""
    return {"category": entry.box, "points": entry.points, "scratch": entry.scratch, "dice": entry.dice,
            "bonus": entry.bonus or 0}
