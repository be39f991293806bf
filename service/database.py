"""Database set-up that the models do not say: SQLite pragmas, write locks.

SQLite: WAL (readers never wait for the writer), foreign keys on, FULL sync
(an acknowledged turn survives a crash), and a busy timeout. Its Python
driver begins transactions lazily and only as readers, so two writers could
both read a game and then deadlock upgrading; writes therefore begin with
``BEGIN IMMEDIATE``, taking the write lock first.

Writers in different worker processes that meet at SQLite's lock wait in
its busy handler, which sleeps in steps of up to 100 ms: the slowest turns
then take hundreds of ms. So a writer first takes an exclusive ``flock`` on
a file beside the database; the kernel hands it to the next writer the
moment it is released, and BEGIN IMMEDIATE then finds the database free.

PostgreSQL locks the game row instead (``SELECT ... FOR UPDATE`` in
:mod:`service.sheets`).
"""

from __future__ import annotations

import fcntl
import os
import sqlite3

from flask import Flask
from sqlalchemy import event

from .extensions import db

#: Execution option that marks a connection as about to write.
WRITE = "anotador_write"


def init_app(app: Flask) -> None:
    """Attach the SQLite listeners to the app's engine."""
    with app.app_context():
        engine = db.engine
    if engine.dialect.name == "sqlite":
        event.listen(engine, "connect", _sqlite_connect)
        event.listen(engine, "begin", _sqlite_begin)
        event.listen(engine, "commit", _release)
        event.listen(engine, "rollback", _release)
        database = engine.url.database
        lock_path = f"{database}.write-lock" if database and database != ":memory:" else None
        engine.pool._anotador_lock_path = lock_path  # type: ignore[attr-defined]


def _sqlite_connect(dbapi_connection: sqlite3.Connection, _record) -> None:
    # Hand transaction control to SQLAlchemy's "begin" event below.
    dbapi_connection.isolation_level = None
    cur = dbapi_connection.cursor()
    cur.execute("PRAGMA journal_mode=WAL")
    cur.execute("PRAGMA foreign_keys=ON")
    cur.execute("PRAGMA synchronous=FULL")
    cur.execute("PRAGMA busy_timeout=10000")
    cur.close()


def _sqlite_begin(conn) -> None:
    if not conn.get_execution_options().get(WRITE):
        conn.exec_driver_sql("BEGIN")
        return
    lock_path = getattr(conn.engine.pool, "_anotador_lock_path", None)
    if lock_path:
        # One open file per transaction: flock excludes other processes and
        # other threads of this one alike.
        fd = os.open(lock_path, os.O_RDWR | os.O_CREAT, 0o600)
        fcntl.flock(fd, fcntl.LOCK_EX)
        conn.info["anotador_lock_fd"] = fd
    conn.exec_driver_sql("BEGIN IMMEDIATE")


def _release(conn) -> None:
    fd = conn.info.pop("anotador_lock_fd", None)
    if fd is not None:
        os.close(fd)  # closing the file releases the flock


def begin_write() -> None:
    """Start the request's transaction as a writer (call before any query)."""
    db.session.connection(execution_options={WRITE: True})

