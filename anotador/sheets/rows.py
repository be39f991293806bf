"""The game row: the one UPDATE every write makes, and what it writes.

A write moves the game on (status, winners, turns, a new version) with one
UPDATE built once per set of columns, and shows the new values on the row
it loaded without a flush or a read back.
"""

from __future__ import annotations

import functools
from typing import Any

from sqlalchemy import bindparam, update
from sqlalchemy.orm.attributes import set_committed_value

from ..extensions import db
from ..store.models import GameRow, utcnow
from ..rules import Game


def outcome(game: GameRow, state: Game) -> dict[str, Any]:
    """The game row's columns once ``state`` is stored: where it stands, and the next version."""
    out = state.outcome()
    return {"status": out.status, "winners": list(out.winners), "reason": out.reason, "turns": state.turns,
            "version": game.version + 1, "updated_at": utcnow()}


def apply_outcome(game: GameRow, state: Game) -> None:
    """Write where the game stands now (one UPDATE), and show it on the loaded row without a flush."""
    values = outcome(game, state)
    move(game, values)
    show(game, values)


def move(game: GameRow, values: dict[str, Any]) -> None:
    """The one UPDATE of the game row, on the game this write has locked.

    Core statements run on the session's connection, not through the
    session: its ORM layer costs each statement time inside SQLite's write
    lock (docs/speed.md). (A turn moves the game in its backend's turn writes.)
    """
    db.session.connection().execute(move_statement(tuple(values), False), move_params(game, values))


def move_params(game: GameRow, values: dict[str, Any], expected: int | None = None) -> dict[str, Any]:
    """The parameters of :func:`move_statement`: the game, the version it must be at, its new ``values``."""
    return {"game": game.id, "expected": expected} | {f"game_{k}": v for k, v in values.items()}


@functools.cache
def move_statement(columns: tuple[str, ...], guarded: bool):
    """The game row's UPDATE of ``columns`` (with ``guarded``, only from version ``expected``), built once.

    Statements are built once throughout this package: on SQLite, building
    this UPDATE cost more than running it did, all of it inside the write
    lock (docs/speed.md).
    """
    games = GameRow.__table__
    where = [games.c.id == bindparam("game")] + ([games.c.version == bindparam("expected")] if guarded else [])
    return update(games).where(*where).values({c: bindparam(f"game_{c}") for c in columns})


def show(game: GameRow, values: dict[str, Any]) -> None:
    """Set what was written on the loaded row, as stored: no flush, no read back."""
    for name, value in values.items():
        set_committed_value(game, name, value)
