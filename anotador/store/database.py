"""Database set-up that the models do not say: SQLite pragmas, write locks.

SQLite: WAL (readers never wait for the writer), foreign keys on, FULL sync
(an acknowledged turn survives a crash), and a busy timeout. Its Python
driver begins transactions lazily and only as readers, so two writers could
both read a game and then deadlock upgrading; writes therefore begin with
``BEGIN IMMEDIATE``, taking the write lock first.

Writers in different worker processes that meet at SQLite's lock wait in
its busy handler, which sleeps in steps of up to 100 ms: the slowest turns
then take hundreds of ms. So a writer first waits for the other writers of
its own process (a thread lock), then takes an exclusive ``flock`` on a
file beside the database, polling every few hundred microseconds, and
BEGIN IMMEDIATE then finds the database free. Both locks are let go once
the driver's COMMIT or ROLLBACK has returned (:class:`_SqliteConnection`),
and every write takes them (:func:`begin_write`, through
:func:`~anotador.store.transactions.writing`), creating a game included.
Both waits are bounded (``DB_BUSY_TIMEOUT_MS``): past it the request is a
503, and the worker is free again.

PostgreSQL locks the game row instead (``SELECT ... FOR UPDATE`` in
:mod:`anotador.sheets.writes`), and a turn locks nothing: it is stored by one
statement that writes only if the game is still at the version it read.
Every PostgreSQL connection in use, the poll's included, is watched by
:class:`anotador.store.guard.Guard`: a database that stops answering costs a 503
within seconds, not a thread for as long as TCP waits.
"""

from __future__ import annotations

import contextlib
import fcntl
import os
import select
import sqlite3
import threading
import time
from typing import Any

from flask import Flask
from sqlalchemy import event, exc

from ..support import adapters
from ..extensions import db
from ..config import tcp_options
from .guard import Guard, cut

#: Execution option that marks a connection as about to write.
WRITE = "anotador_write"


class DatabaseBusy(Exception):
    """The write lock stayed taken longer than DB_BUSY_TIMEOUT_MS (a 503, not a hang)."""


def init_app(app: Flask) -> None:
    """Attach the SQLite listeners to the app's engine; give the app its :class:`Heads`."""
    with app.app_context():
        engine = db.engine
    guard = None
    if engine.dialect.name == "postgresql":
        guard = app.extensions["anotador.guard"] = _guard(engine, app.config)
    app.extensions["anotador.heads"] = Heads(engine.url, app.config, guard)
    adapters.light_teardown(app, db)
    if guard is not None:
        _watch_engine(engine, guard)
    if engine.dialect.name == "sqlite":
        busy_ms = int(app.config["DB_BUSY_TIMEOUT_MS"])
        database = engine.url.database
        lock_path = f"{database}.write-lock" if database and database != ":memory:" else None
        writers = threading.Lock()  # this process's writers, one at a time

        def connect(dbapi_connection: sqlite3.Connection, _record) -> None:
            _sqlite_connect(dbapi_connection, busy_ms)

        def begin(conn) -> None:
            _sqlite_begin(conn, lock_path, writers, busy_ms / 1000)

        event.listen(engine, "do_connect", _sqlite_factory)
        event.listen(engine, "connect", connect)
        event.listen(engine, "begin", begin)


def _guard(engine, config) -> Guard:
    """The process's :class:`Guard`, probing the database on connections of its own."""
    target = engine.url.set(drivername="postgresql").render_as_string(hide_password=False)
    timeout = int(config["DB_CONNECT_TIMEOUT"])
    tcp = tcp_options(config)

    def probe() -> None:
        import psycopg

        with psycopg.connect(target, autocommit=True, connect_timeout=timeout, **tcp) as conn:
            stop = threading.Timer(timeout, cut, [conn.fileno()])  # SELECT 1 may hang as well
            stop.start()
            try:
                conn.execute("SELECT 1")
            finally:
                stop.cancel()

    # A SELECT 1 on a new connection takes milliseconds: one that has not answered in 1.5 s says the
    # database is out of reach (the probe itself ends by its connect timeout, or the timer above).
    return Guard(probe, budget=float(config["DB_REQUEST_BUDGET"]), suspect=float(config["DB_SUSPECT_SECONDS"]),
                 probe_timeout=1.5)


def _watch_engine(engine, guard: Guard) -> None:
    """Each pooled connection is the guard's while checked out; none is opened or lent while it is down."""

    def connecting(*_args) -> None:
        guard.check()  # the circuit is open: no connect_timeout spent on a database known down

    def checkout(dbapi_connection, record, proxy) -> None:
        _check_alive(dbapi_connection, record, proxy)
        guard.take(id(record), dbapi_connection.fileno())

    def given_back(_dbapi_connection, record, *_args) -> None:
        guard.give_back(id(record))

    event.listen(engine, "do_connect", connecting)
    event.listen(engine, "checkout", checkout)
    for name in ("checkin", "invalidate", "close"):
        event.listen(engine, name, given_back)


def _check_alive(dbapi_connection, _record, _proxy) -> None:
    """Refuse a pooled PostgreSQL connection the server has hung up on, without a round trip.

    An idle connection in good health has nothing to read: the server sends
    nothing unasked. A restart, a killed backend or a closed proxy leaves a
    FATAL message or the end of the stream in the socket, which makes it
    readable. Raising DisconnectionError makes the pool discard it and
    connect afresh (SQLAlchemy's documented pessimistic check), so no
    request fails for it, at the cost of a ``select()`` instead of the
    ``SELECT 1`` that pool_pre_ping would send.
    """
    try:
        dead = dbapi_connection.closed or bool(select.select([dbapi_connection.fileno()], [], [], 0)[0])
    except Exception:  # no socket left at all (psycopg raises its own error)
        dead = True
    if dead:
        raise exc.DisconnectionError("the server closed this pooled connection")


class _SqliteConnection(sqlite3.Connection):
    """sqlite3's connection, letting a writer's locks go once its COMMIT or ROLLBACK has returned.

    Not in SQLAlchemy's commit and rollback events: they fire before the
    driver's call, and a lock let go there handed the next writer a database
    whose COMMIT (its fsync) was still running. That writer's BEGIN IMMEDIATE
    then waited in SQLite's busy handler, which sleeps 1, 2, 5, ... 100 ms.
    """

    #: (lock file descriptor, this process's writers' lock) while this connection writes.
    held = None

    def commit(self) -> None:
        try:
            super().commit()
        finally:
            _release(self)

    def rollback(self) -> None:
        try:
            super().rollback()
        finally:
            _release(self)

    def close(self) -> None:
        try:
            super().close()
        finally:
            _release(self)


def _sqlite_factory(_dialect, _record, _cargs, cparams: dict) -> None:
    cparams["factory"] = _SqliteConnection


def _sqlite_connect(dbapi_connection: sqlite3.Connection, busy_ms: int) -> None:
    # Hand transaction control to SQLAlchemy's "begin" event below.
    dbapi_connection.isolation_level = None
    cur = dbapi_connection.cursor()
    cur.execute("PRAGMA journal_mode=WAL")
    cur.execute("PRAGMA foreign_keys=ON")
    cur.execute("PRAGMA synchronous=FULL")
    cur.execute(f"PRAGMA busy_timeout={busy_ms:d}")
    cur.close()


def _sqlite_begin(conn, lock_path: str | None, writers: threading.Lock, timeout: float) -> None:
    if not conn.get_execution_options().get(WRITE):
        conn.exec_driver_sql("BEGIN")
        return
    if lock_path:
        # This process's writers queue on a thread lock, which wakes the next
        # one the moment it is free; only one of them at a time polls the
        # file lock against the other processes. (Eight threads polling the
        # file lock let an unlucky one miss its turn for tens of ms.)
        deadline = time.monotonic() + timeout
        if not writers.acquire(timeout=timeout):
            raise DatabaseBusy(f"the write lock stayed taken for {timeout:g} s")
        fd = None
        try:
            # One open file per transaction: flock excludes other processes.
            fd = os.open(lock_path, os.O_RDWR | os.O_CREAT, 0o600)
            _flock(fd, deadline)
        except BaseException:
            if fd is not None:
                os.close(fd)
            writers.release()
            raise
        conn.connection.dbapi_connection.held = fd, writers
    try:
        conn.exec_driver_sql("BEGIN IMMEDIATE")
    except BaseException:  # no transaction began: let the locks go now (a rollback after finds nothing)
        _release(conn.connection.dbapi_connection)
        raise


def _flock(fd: int, deadline: float) -> None:
    """Take the write lock, waiting until ``deadline`` (time.monotonic()) at most.

    A blocking flock would wait for ever behind a stuck writer. Polling
    with short, growing sleeps (0.1 ms up to 2 ms) hands the lock over
    almost as fast, and gives up in time: DatabaseBusy, a 503.
    """
    timeout = max(0.0, deadline - time.monotonic())
    pause = 0.0001
    while True:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            return
        except BlockingIOError:
            if time.monotonic() >= deadline:
                raise DatabaseBusy(f"the write lock stayed taken for {timeout:g} s") from None
            time.sleep(pause)
            pause = min(pause * 2, 0.002)


def _release(dbapi_connection: _SqliteConnection) -> None:
    held, dbapi_connection.held = dbapi_connection.held, None
    if held is not None:
        fd, writers = held
        os.close(fd)  # closing the file releases the flock
        writers.release()


class Heads:
    """The poll's one query on connections of its own: no ORM, no session, no pool checks.

    Every phone asks for its game once a second, and almost always hears
    "nothing changed": ``SELECT version, updated_at FROM games WHERE id = ?``
    answers that. It runs on a plain driver connection (:class:`_SqliteHead`,
    :class:`~anotador.support.adapters.PostgresHead`), kept in a small free list between requests. A
    connection that fails is thrown away and the request is a 503
    (:class:`DatabaseBusy`); the next opens a fresh one, so a restarted
    database heals at once.
    """

    KEEP = 16

    def __init__(self, url, config, guard: Guard | None = None) -> None:
        self.free: list = []
        self.lock = threading.Lock()
        self.guard = guard
        if url.get_backend_name() == "sqlite":
            database = url.database or ":memory:"
            timeout = int(config["DB_BUSY_TIMEOUT_MS"]) / 1000
            self._connect = lambda: _SqliteHead(database, timeout)
            # An in-memory SQLite database is private to its connection: only the engine sees it.
            self.enabled = database != ":memory:"
        else:
            target = url.set(drivername="postgresql").render_as_string(hide_password=False)
            options = (f"-c statement_timeout={int(config['DB_STATEMENT_TIMEOUT_MS'])} "
                       f"-c lock_timeout={int(config['DB_LOCK_TIMEOUT_MS'])}")
            timeout, tcp = int(config["DB_CONNECT_TIMEOUT"]), tcp_options(config)
            self._connect = lambda: adapters.PostgresHead(target, timeout, options, tcp)
            self.enabled = True

    def get(self, game_id: str) -> tuple[int, Any] | None:
        """The game's version and the time it was made, or None when there is no such game."""
        if self.guard is not None and self.guard.down:
            raise DatabaseBusy("reading a game's version: the database is not answering")
        with self.lock:
            conn = self.free.pop() if self.free else None
        if conn is not None:
            try:
                row = self._head(conn, game_id)
            except Exception:  # killed while kept (a database restart): try once on a new connection
                conn.close()
                conn = None
        if conn is None:
            try:
                conn = self._connect()
                row = self._head(conn, game_id)
            except Exception as exc:  # the driver's own errors: a database that is down or stuck
                if conn is not None:
                    conn.close()
                raise DatabaseBusy(f"reading a game's version: {type(exc).__name__}: {exc}") from None
        with self.lock:
            if len(self.free) < self.KEEP:
                self.free.append(conn)
                conn = None
        if conn is not None:
            conn.close()
        return row

    def _head(self, conn, game_id: str) -> tuple | None:
        if self.guard is None:
            return conn.head(game_id)
        token = id(conn)
        self.guard.take(token, conn.fileno())
        try:
            return conn.head(game_id)
        finally:
            self.guard.give_back(token)

    def close(self) -> None:
        """Close every kept connection (tests; an app going away)."""
        with self.lock:
            free, self.free = self.free, []
        for conn in free:
            conn.close()


class _SqliteHead:
    """A read-only sqlite3 connection answering :meth:`head`."""

    SQL = "SELECT version, updated_at FROM games WHERE id = ?"

    def __init__(self, database: str, timeout: float) -> None:
        self.conn = sqlite3.connect(database, timeout=timeout, isolation_level=None, check_same_thread=False)
        try:
            self.conn.execute("PRAGMA query_only=1")
        except BaseException:
            self.close()
            raise

    def head(self, game_id: str) -> tuple | None:
        return self.conn.execute(self.SQL, (game_id,)).fetchone()

    def close(self) -> None:
        with contextlib.suppress(Exception):  # a connection that broke has nothing left to close
            self.conn.close()


def begin_write() -> None:
    """Start the request's transaction as a writer (before any query; only
    :func:`~anotador.store.transactions.writing` calls it)."""
    db.session.connection(execution_options={WRITE: True})


class DriverStatement:
    """SQLite: a Core statement compiled once to the driver's SQL, run on the session's own sqlite3 connection.

    For the writes made inside SQLite's write lock, which every writer of
    the database waits for. SQLAlchemy's execute spends more than the
    driver's own time around each statement (its cache lookup, its execution
    context, a result object); a turn's three statements so spent more in
    the lock than its COMMIT did (docs/speed.md). :meth:`row` converts the parameters with
    the columns' own bind processors, as SQLAlchemy would, so what is
    stored is the same; it runs before the lock is taken.
    """

    _built: dict[tuple, "DriverStatement"] = {}

    def __init__(self, statement, keys: tuple[str, ...], dialect) -> None:
        compiled = statement.compile(dialect=dialect, column_keys=list(keys))
        self.sql = str(compiled)
        # the parameters' names in the SQL's order, each one's converter, and the values the statement itself
        # holds (a LIMIT 1): the caller's parameters are the rest
        self.names, self.converters, self.fixed = adapters.positional_parameters(compiled, dialect)

    @classmethod
    def of(cls, statement, keys: tuple[str, ...]) -> "DriverStatement":
        """``statement`` compiled for parameters named ``keys`` (for an INSERT: the columns it fills), once."""
        built = cls._built.get((statement, keys))
        if built is None:
            built = cls._built[statement, keys] = cls(statement, keys, db.session.get_bind().dialect)
        return built

    def row(self, params: dict[str, Any]) -> tuple:
        """``params`` as the driver takes them, in the SQL's order."""
        fixed = self.fixed
        values = [fixed[n] if n in fixed else params[n] for n in self.names]
        return tuple(v if c is None else c(v) for v, c in zip(values, self.converters))

    def run(self, driver: sqlite3.Connection, rows: list[tuple]) -> sqlite3.Cursor:
        """Run on ``driver`` (:func:`driver_connection`) once per row; the driver's errors as SQLAlchemy's."""
        try:
            return driver.execute(self.sql, rows[0]) if len(rows) == 1 else driver.executemany(self.sql, rows)
        except sqlite3.Error as error:  # an IntegrityError stays one (a 409), a locked database a 503
            raise exc.DBAPIError.instance(self.sql, rows, error, sqlite3.Error) from error


def driver_connection() -> sqlite3.Connection:
    """The sqlite3 connection under the session's transaction (begun by :func:`begin_write`)."""
    return db.session.connection().connection.driver_connection

