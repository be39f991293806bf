"""The creation rate limit: at most GAMES_PER_MINUTE new games a minute from one client address."""

from __future__ import annotations

import math
from datetime import timedelta

from flask import current_app
from sqlalchemy import select

from ..extensions import db
from ..http.headers import Quota
from ..store.models import GameRow, utcnow
from .errors import TooManyGames
from .times import aware


def check_rate(creator: str, made=GameRow) -> Quota | None:
    """Refuse a game (``made``: or a table) past GAMES_PER_MINUTE from ``creator`` (a keyed hash of the
    address), saying when to retry; games and tables each have that many a minute.

    Counted from the games themselves, inside the creating write's lock, so
    the check and the insert are one step. Returns what is left of the
    minute once this game is made (None: no limit).
    """
    limit = current_app.config["GAMES_PER_MINUTE"]
    if not limit:
        return None
    now = utcnow()
    since = now - timedelta(minutes=1)
    recent = list(db.session.scalars(
        select(made.created_at).where(made.creator == creator, made.created_at > since)
        .order_by(made.created_at.desc()).limit(limit)))
    what = "games" if made is GameRow else "tables"
    oldest = aware(recent[-1]) if recent else now
    reset = max(1, math.ceil((oldest + timedelta(minutes=1) - now).total_seconds()))
    if len(recent) >= limit:
        raise TooManyGames(f"This address has created {limit} {what} in the last minute; try again in {reset} s.",
                           reset, Quota(what, limit, 60, 0, reset))
    return Quota(what, limit, 60, limit - len(recent) - 1, reset)
