"""Retention: deleting games finished, or left untouched, long enough ago (``flask purge``)."""

from __future__ import annotations

from datetime import timedelta

from sqlalchemy import delete, func, select

from ..database import begin_write
from ..extensions import db
from ..models import GameRow, utcnow


def purge(finished_age: timedelta, untouched_age: timedelta, dry_run: bool = False,
          batch: int = 500) -> dict[str, int]:
    """Delete finished games older than ``finished_age`` and unfinished ones untouched for ``untouched_age``.

    Ages count from the last change (``updated_at``). Deleting a game
    deletes its players, turns, entries, corrections and roll-offs (the
    foreign keys cascade). In batches, so no lock is held long.
    """
    now = utcnow()
    rules = {
        "finished": (GameRow.status == "finished") & (GameRow.updated_at < now - finished_age),
        "abandoned": (GameRow.status != "finished") & (GameRow.updated_at < now - untouched_age),
    }
    counts = {}
    for kind, where in rules.items():
        if dry_run:
            counts[kind] = db.session.scalar(select(func.count()).select_from(GameRow).where(where))
            continue
        counts[kind] = 0
        while True:
            ids = list(db.session.scalars(select(GameRow.id).where(where).limit(batch)))
            db.session.rollback()  # end the read; the delete takes the write lock
            if not ids:
                break
            begin_write()
            # checked again under the lock: a turn may have landed meanwhile
            result = db.session.execute(delete(GameRow).where(GameRow.id.in_(ids), where))
            db.session.commit()
            counts[kind] += result.rowcount
    db.session.rollback()
    return counts
