"""Write tokens: made once, shown once, stored only as a hash, compared in constant time."""

from __future__ import annotations

import hashlib
import hmac
import secrets

from ..store.models import GameRow
from .errors import Forbidden, Unauthorized


def new_token() -> str:
    """A write secret: 256 random bits, URL-safe."""
    return secrets.token_urlsafe(32)


def hash_token(token: str) -> str:
    """Only this is stored; a leaked database gives no write access."""
    return hashlib.sha256(token.encode("utf-8")).hexdigest()


def check_token(game: GameRow, token: str | None) -> None:
    """Raise Unauthorized without a token, Forbidden with the wrong one."""
    if not token:
        raise Unauthorized()
    if not hmac.compare_digest(hash_token(token), game.token_hash):
        raise Forbidden()
