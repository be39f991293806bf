"""Database set-up that the models do not say: SQLite pragmas, write locks.

SQLite: WAL (readers never wait for the writer), foreign keys on, FULL sync
(an acknowledged turn survives a crash), and a busy timeout. Its Python
driver begins transactions lazily and only as readers, so two writers could
both read a game and then deadlock upgrading; writes therefore begin with
``BEGIN IMMEDIATE``, taking the write lock first. PostgreSQL locks the game
row instead (``SELECT ... FOR UPDATE`` in :mod:`service.games`).
"""

from __future__ import annotations

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
    conn.exec_driver_sql("BEGIN IMMEDIATE" if conn.get_execution_options().get(WRITE) else "BEGIN")


def begin_write() -> None:
    """Start the request's transaction as a writer (call before any query)."""
    db.session.connection(execution_options={WRITE: True})

