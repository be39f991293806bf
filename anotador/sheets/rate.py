"""The creation rate limit: at most GAMES_PER_MINUTE new games a minute from one client address."""

from __future__ import annotations

import math
from datetime import timedelta, timezone

from flask import current_app
from sqlalchemy import select

from ..extensions import db
from ..models import GameRow, utcnow
from .errors import TooManyGames


def check_rate(creator: str) -> None:
    """Refuse a game past GAMES_PER_MINUTE from ``creator`` (a keyed hash of the address), saying when to retry.

    Counted from the games themselves, inside the creating write's lock, so
    the check and the insert are one step.
    """
    limit = current_app.config["GAMES_PER_MINUTE"]
    if not limit:
        return
    now = utcnow()
    since = now - timedelta(minutes=1)
    recent = list(db.session.scalars(
        select(GameRow.created_at).where(GameRow.creator == creator, GameRow.created_at > since)
        .order_by(GameRow.created_at.desc()).limit(limit)))
    if len(recent) >= limit:
        oldest = recent[-1] if recent[-1].tzinfo else recent[-1].replace(tzinfo=timezone.utc)
        wait = max(1, math.ceil((oldest + timedelta(minutes=1) - now).total_seconds()))
        raise TooManyGames(f"This address has created {limit} games in the last minute; try again in {wait} s.",
                           wait)
