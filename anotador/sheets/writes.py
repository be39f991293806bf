"""What every write of a game does around its change: lock, check, remember its key.

A write runs in one transaction (``with writing():``,
:mod:`~anotador.store.transactions`) that first locks the game (SQLite:
``BEGIN IMMEDIATE``; PostgreSQL: ``SELECT ... FOR UPDATE``), checks the
token, answers a known Idempotency-Key again, checks If-Match, lets the
rules engine apply the change, has a table's standings follow it, and
commits with a new version; then the new state is kept for the next write
(:func:`~anotador.sheets.state.keep`). The changes themselves are in
:mod:`~anotador.sheets.turns`, :mod:`~anotador.sheets.undo`,
:mod:`~anotador.sheets.corrections` and :mod:`~anotador.sheets.rolloffs`.
"""

from __future__ import annotations

import functools
from typing import Any, Callable

from sqlalchemy import bindparam, select
from sqlalchemy.exc import IntegrityError

from ..extensions import db
from ..store.models import GameRow
from ..rules import Game
from .backends import backend
from .errors import Conflict, GameNotFound, PreconditionFailed
from .keys import KEY_ROW, READ_KEYED, Answer, Idempotency, Replay, Written, answer_of, key_params, replay
from .reads import possible_id
from .tokens import check_token

#: The game row alone (its players' names come from names_of: they never change)...
READ = select(GameRow).where(GameRow.id == bindparam("game"))
#: ... and locked.
LOCK = READ.with_for_update()


def lock(game_id: str, token: str | None, if_match: Any, idem: Idempotency | None = None) -> GameRow:
    """A write's first step: lock the game, check the token, replay a known key, check If-Match.

    The key is looked up under the game's lock, so a retry racing its own
    original waits for it and then replays its answer. It comes before
    If-Match: the original changed the version a retry still names.
    """
    return checked(LOCK, game_id, token, if_match, idem)


def checked(statement, game_id: str, token: str | None, if_match: Any, idem: Idempotency | None) -> GameRow:
    """The game read with ``statement``, once the token, a known key and If-Match are checked.

    Read without a lock (:data:`READ`), a keyed request's stored answer
    comes in the same statement (:data:`~anotador.sheets.keys.READ_KEYED`):
    one round trip, and the row and the key of one moment. Under the lock
    the key needs a statement of its own, after the lock is had: a join
    would read the key as it was before a concurrent original committed.
    """
    if not possible_id(game_id):
        raise GameNotFound(game_id)
    stored = None
    if idem is not None and statement is READ:
        row = db.session.execute(READ_KEYED, {"game": game_id, "key": idem.key}).first()
        game, stored = (None, None) if row is None else (row[0], row[1:])
    else:
        game = db.session.scalars(statement, {"game": game_id}).first()
    if game is None:
        raise GameNotFound(game_id)
    check_token(game, token)
    if idem is not None:
        if statement is not READ:
            stored = db.session.execute(KEY_ROW, {"game": game.id, "key": idem.key}).first()
        if stored is not None and stored[0] is not None:
            replay(idem, *stored)
    if if_match is not None and str(game.version) not in if_match and "*" not in if_match:
        raise PreconditionFailed()
    return game


def remember(game: GameRow, state: Game, idem: Idempotency | None) -> Answer | None:
    """Render the answer and store it under the key, in the write's transaction; forget the game's old keys
    (:data:`~anotador.sheets.keys.FORGET`). The answer, or None without a key."""
    answer = answer_of(idem, game, state)
    params = key_params(game, idem, answer)
    if params is not None:
        backend().remember(params)
    return answer


def replayable(write: Callable[..., Written]) -> Callable[..., Written]:
    """Mark a keyed write, creation included: a key answered before ends it wherever that is found (under
    the lock, or with the row read), and its stored answer is the write's value, nothing written."""

    @functools.wraps(write)
    def answered(*args, **kwargs) -> Written:
        try:
            return write(*args, **kwargs)
        except Replay as known:
            return Written(None, None, known.answer, replayed=True)

    return answered


def writes(change: Callable[..., Written]) -> Callable[..., Written]:
    """Mark a change of a game: a key's replay is its value (:func:`replayable`); a row the database's own
    constraints refuse is a 409 (its transaction rolled back, nothing kept).

    The constraints catch what the checks did not see (a row written behind
    the application's back, a concurrent writer), whichever statement of the
    write meets them.
    """

    @functools.wraps(change)
    def guarded(*args, **kwargs) -> Written:
        try:
            return change(*args, **kwargs)
        except IntegrityError:
            raise Conflict("Another change to this game landed first; reload and try again.") from None

    return replayable(guarded)
