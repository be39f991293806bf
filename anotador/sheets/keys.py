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
from typing import TYPE_CHECKING, Callable, NamedTuple

from flask import current_app
from sqlalchemy import bindparam, delete, insert, select

from ..store.models import GameRow, IdempotencyRow, utcnow
from ..rules import Game
from .errors import IdempotencyMismatch

if TYPE_CHECKING:
    from ..http.headers import Quota

#: How long the answer to a write is kept for retries with its Idempotency-Key.
IDEMPOTENCY_TTL = timedelta(hours=24)


class Answer(NamedTuple):
    """A keyed write's answer as stored: what every retry with its key gets back."""

    status: int
    body: str
    etag: str


@dataclass(frozen=True)
class Idempotency:
    """A write sent with an ``Idempotency-Key``.

    ``fingerprint`` identifies the request (method, path, body); ``render``
    makes the answer from the game as written, stored in the same
    transaction as the change.
    """

    key: str
    fingerprint: str
    render: Callable[[GameRow, Game], Answer]


@dataclass(frozen=True)
class Written:
    """What every write of a game returns.

    ``game`` and ``state`` as written, and ``answer``: the answer stored
    under the request's key (None without one). A key already answered is a
    replay: nothing was written, ``game`` and ``state`` are None, ``answer``
    is the one stored then and ``replayed`` is true. A new game also has its
    write token (shown once) and what is left of its creator's quota.
    """

    game: GameRow | None
    state: Game | None
    answer: Answer | None = None
    replayed: bool = False
    token: str | None = None
    quota: Quota | None = None


class Replay(Exception):
    """Inside a write only: its key was answered before. :func:`~anotador.sheets.writes.replayable` turns it
    into the write's value (a :class:`Written` replay) where the write returns."""

    def __init__(self, answer: Answer):
        super().__init__(answer.status)
        self.answer = answer


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
    """Answer a key's write again as it was answered, writing nothing (the write's transaction rolls back and
    lets the game go); refuse a key reused for another request."""
    if fingerprint != idem.fingerprint:
        raise IdempotencyMismatch()
    raise Replay(Answer(status, body, etag))


def answer_of(idem: Idempotency | None, game: GameRow, state: Game) -> Answer | None:
    """A keyed write's answer, rendered from the game as written (None without a key)."""
    return None if idem is None else idem.render(game, state)


def key_params(game: GameRow, idem: Idempotency | None, answer: Answer | None) -> dict | None:
    """What :data:`REMEMBER` and :data:`FORGET` store and forget for a keyed write (None without a key)."""
    if idem is None or answer is None:
        return None
    status, body, etag = answer
    now = utcnow()
    keep = max(0, int(current_app.config["IDEMPOTENCY_KEYS_PER_GAME"]) - 1)  # and this write's own
    return {"game": game.id, "key": idem.key, "fingerprint": idem.fingerprint, "status": status, "body": body,
            "etag": etag, "created_at": now, "expired": now - IDEMPOTENCY_TTL, "keep": keep}
