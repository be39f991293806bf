"""Where a transaction of the sheets begins and ends.

Every write runs in ``with writing():``. It begins as a writer
(:func:`~anotador.store.database.begin_write`: on SQLite ``BEGIN IMMEDIATE``,
in line behind this process's other writers; on PostgreSQL a plain
transaction), commits when the block ends, and rolls back when the block
raises, whatever it raises: a refusal, a replayed key, a row the database
refuses. ``with reading():`` ends a read that must not stay open: one a
write follows, or one of a loop. A turn's unlocked path, the one place the
two databases differ, is each backend's
:meth:`~anotador.sheets.backends.Backend.unlocked_turn`.

Other reads end with the request (:mod:`anotador.api.sessions`).
"""

from __future__ import annotations

from contextlib import contextmanager
from typing import Iterator

from ..extensions import db
from .database import begin_write


@contextmanager
def writing() -> Iterator[None]:
    """A write's transaction: begun as a writer, committed at the block's end, rolled back if anything raises."""
    begin_write()
    try:
        yield
        db.session.commit()
    except BaseException:
        db.session.rollback()
        raise


@contextmanager
def reading() -> Iterator[None]:
    """Reads ended (rolled back) at the block's end, so no read transaction stays open after them."""
    try:
        yield
    finally:
        db.session.rollback()
