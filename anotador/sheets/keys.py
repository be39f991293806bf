"""Idempotency keys: a write's answer stored under its key, in the write's own transaction.

A retry with the same key (IETF httpapi draft semantics) gets the stored
answer and changes nothing; the same key with another request is a 422. A
key is kept for :data:`IDEMPOTENCY_TTL`; a keyed write forgets its game's
keys past their day. How the statements below run on each database is
:mod:`anotador.sheets.backends`' business.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import timedelta
from typing import Callable

from flask import current_app
from sqlalchemy import bindparam, delete, insert, select

from ..extensions import db
from ..store.models import GameRow, IdempotencyRow, utcnow
from ..rules import Game
from .errors import IdempotencyMismatch, Replay

#: How long the answer to a write is kept for retries with its Idempotency-Key.
IDEMPOTENCY_TTL = timedelta(hours=24)


@dataclass
class Idempotency:
    """A write sent with an ``Idempotency-Key``.

    ``fingerprint`` identifies the request (method, path, body); ``render``
    makes the answer (status, JSON body, ETag) from the game as written,
    stored in the same transaction as the change.
    """

    key: str
    fingerprint: str
    render: Callable[[GameRow, Game], tuple[int, str, str]]
    stored: tuple[int, str, str] | None = None


KEYS = IdempotencyRow.__table__
#: A key's stored answer.
KEY_ROW = select(KEYS.c.fingerprint, KEYS.c.status, KEYS.c.body, KEYS.c.etag).where(
    KEYS.c.game_id == bindparam("game"), KEYS.c.key == bindparam("key"))
#: The game row and, beside it, a key's stored answer (NULLs when there is none).
READ_KEYED = select(GameRow, *KEY_ROW.selected_columns).outerjoin(
    KEYS, (KEYS.c.game_id == GameRow.id) & (KEYS.c.key == bindparam("key"))).where(GameRow.id == bindparam("game"))
#: The keys of a game past their day, or older than its newest ``keep``: run with every keyed write (before
#: its own key is stored, or beside it), so a game never holds more than IDEMPOTENCY_KEYS_PER_GAME.
_NEWEST = select(KEYS.c.id).where(KEYS.c.game_id == bindparam("game")).order_by(KEYS.c.id.desc()) \
    .limit(1).offset(bindparam("keep")).scalar_subquery()
FORGET = delete(KEYS).where(KEYS.c.game_id == bindparam("game"),
                            (KEYS.c.created_at < bindparam("expired")) | (KEYS.c.id <= _NEWEST))
#: What a key's row holds beside its game...
STORED = ("key", "fingerprint", "status", "body", "etag", "created_at")
#: ... stored: a write's answer under its key.
REMEMBER = insert(KEYS).values({"game_id": bindparam("game"), **{c: bindparam(c) for c in STORED}})


def replay(idem: Idempotency, fingerprint: str, status: int, body: str, etag: str) -> None:
    """Answer a key's write again as it was answered, writing nothing; refuse a key reused for another request."""
    db.session.rollback()  # nothing to write: let the game go
    if fingerprint != idem.fingerprint:
        raise IdempotencyMismatch()
    raise Replay(status, body, etag)


def key_params(game: GameRow, state: Game, idem: Idempotency | None, answer: tuple | None) -> dict | None:
    """What :data:`REMEMBER` and :data:`FORGET` store and forget for a keyed write (None without a key).

    The answer is ``answer``, or rendered now from the game as written.
    """
    if idem is None:
        return None
    status, body, etag = idem.stored = answer or idem.render(game, state)
    now = utcnow()
    keep = max(0, int(current_app.config["IDEMPOTENCY_KEYS_PER_GAME"]) - 1)  # and this write's own
    return {"game": game.id, "key": idem.key, "fingerprint": idem.fingerprint, "status": status, "body": body,
            "etag": etag, "created_at": now, "expired": now - IDEMPOTENCY_TTL, "keep": keep}
