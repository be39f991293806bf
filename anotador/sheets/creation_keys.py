"""Idempotency-Keys on creating a game: a retry gets the same game and the same write token, and nobody else does.

A turn's key is stored beside its game; a new game has none yet, and its
answer holds the write token, which the database otherwise never holds (only
its hash). So a creation key is kept apart (``creation_keys``) and sealed:

- its row is named by ``HMAC(secret, client address, key)``: the same key
  from another address is another key (a new game), and a key seen in a log
  is no use elsewhere;
- its answer is encrypted with a keystream made from ``HMAC(secret, client
  address, key)`` as well (HMAC-SHA-256 in counter mode), so a copy of the
  database alone does not give the token;
- it is kept :data:`CREATION_KEY_TTL` (retries come within seconds), and
  each keyed creation forgets those past it.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
from datetime import timedelta
from typing import NamedTuple

from flask import current_app
from sqlalchemy import delete, select

from ..extensions import db
from ..store.models import CreationKeyRow, utcnow
from .errors import IdempotencyMismatch
from .keys import Answer, Replay
from .times import aware

#: How long the answer to a keyed creation is kept for its retries.
CREATION_KEY_TTL = timedelta(hours=1)


class CreationKey(NamedTuple):
    """A creation's Idempotency-Key, as this client sent it."""

    name: str          # the row's key
    secret: bytes      # what its answer is sealed with
    fingerprint: str   # method, path and canonical body


def creation_key(key: str, client: str, fingerprint: str) -> CreationKey:
    base = current_app.config["SECRET_KEY"].encode("utf-8")
    message = f"{client}\n{key}".encode("utf-8")
    name = hmac.new(base, b"creation-key\n" + message, hashlib.sha256).hexdigest()
    secret = hmac.new(base, b"creation-answer\n" + message, hashlib.sha256).digest()
    return CreationKey(name, secret, fingerprint)


def _stream(secret: bytes, n: int) -> bytes:
    blocks = (hmac.new(secret, i.to_bytes(8, "big"), hashlib.sha256).digest() for i in range((n + 31) // 32))
    return b"".join(blocks)[:n]


def seal(secret: bytes, text: str) -> str:
    data = text.encode("utf-8")
    return base64.b64encode(bytes(a ^ b for a, b in zip(data, _stream(secret, len(data))))).decode("ascii")


def unseal(secret: bytes, sealed: str) -> str:
    data = base64.b64decode(sealed)
    return bytes(a ^ b for a, b in zip(data, _stream(secret, len(data)))).decode("utf-8")


def replay_if_known(key: CreationKey) -> None:
    """End the creation with the first answer (:class:`~anotador.sheets.keys.Replay`) for a key already used, or
    refuse it for another request."""
    row = db.session.execute(select(CreationKeyRow.fingerprint, CreationKeyRow.sealed, CreationKeyRow.etag,
                                    CreationKeyRow.created_at).where(CreationKeyRow.key == key.name)).first()
    if row is None:
        return
    if aware(row.created_at) < utcnow() - CREATION_KEY_TTL:
        return  # forgotten: the write below starts afresh (and forgets it)
    if row.fingerprint != key.fingerprint:
        raise IdempotencyMismatch()
    raise Replay(Answer(201, unseal(key.secret, row.sealed), row.etag))


def remember(key: CreationKey, game_id: str, answer: str, etag: str) -> None:
    """Keep the answer under its key in the creation's own transaction; forget the keys past their hour."""
    # Only keys past their hour, this one's included: a fresh row of this key is a concurrent copy's,
    # which this insert must collide with (and then replay), never delete.
    db.session.execute(delete(CreationKeyRow).where(CreationKeyRow.created_at < utcnow() - CREATION_KEY_TTL))
    db.session.add(CreationKeyRow(key=key.name, game_id=game_id, fingerprint=key.fingerprint,
                                  sealed=seal(key.secret, answer), etag=etag, created_at=utcnow()))
