"""Retention: deleting games finished, or left untouched, long enough ago, and tables nobody opens (``flask purge``)."""

from __future__ import annotations

from datetime import timedelta

from sqlalchemy import delete, exists, func, select

from ..extensions import db
from ..store.models import GameRow, MesaRow, utcnow
from ..store.transactions import reading, writing

#: How long a table nobody opens, and none of whose games is played, is kept by default.
MESA_UNSEEN_DEFAULT = timedelta(days=730)


def purge(finished_age: timedelta, untouched_age: timedelta, dry_run: bool = False,
          batch: int = 500, mesa_age: timedelta = MESA_UNSEEN_DEFAULT) -> dict[str, int]:
    """Delete finished games older than ``finished_age``, unfinished ones untouched for ``untouched_age``,
    and tables unseen for ``mesa_age``.

    Ages count from the last change (``updated_at``). Deleting a game
    deletes its players, turns, entries, corrections and roll-offs (the
    foreign keys cascade). A table's games are kept while the table is,
    whatever their age: they are its history. A table goes once nobody has
    opened it and none of its games has changed for ``mesa_age``; its games,
    players and standings go with it. In batches, so no lock is held long.
    """
    now = utcnow()
    unseen = now - mesa_age
    alone = GameRow.mesa_id.is_(None)
    rules = {
        "finished": (GameRow, alone & (GameRow.status == "finished") & (GameRow.updated_at < now - finished_age)),
        "abandoned": (GameRow, alone & (GameRow.status != "finished") & (GameRow.updated_at < now - untouched_age)),
        "tables": (MesaRow, (MesaRow.seen_at < unseen) & ~exists().where(
            GameRow.mesa_id == MesaRow.id, GameRow.updated_at >= unseen)),
    }
    counts = {}
    for kind, (model, where) in rules.items():
        if dry_run:
            with reading():
                counts[kind] = db.session.scalar(select(func.count()).select_from(model).where(where))
            continue
        counts[kind] = 0
        size = batch if kind != "tables" else 1  # a table takes all its games with it
        while True:
            with reading():  # ended before the delete takes the write lock
                ids = list(db.session.scalars(select(model.id).where(where).limit(size)))
            if not ids:
                break
            with writing():  # checked again under the lock: a turn may have landed meanwhile
                result = db.session.execute(delete(model).where(model.id.in_(ids), where))
            counts[kind] += result.rowcount
    return counts
