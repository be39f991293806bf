"""How this process hears that a game or table changed, whichever server stored it.

- **PostgreSQL**: a trigger (migration ``0009_change_notices``) notifies
  channel :data:`CHANNEL` with ``g:<id>:<version>`` as each write of a game
  commits (``m:`` for a table of regulars), so a write through any server,
  or by hand in psql, reaches every server's streams. One connection per
  process listens. When it drops, the feed connects again and reads the
  version of every key it serves (:meth:`Feed.resync`): a notification lost
  with the connection costs nothing, because the version is the truth.
- **SQLite** (one machine): a connection of the feed's own asks
  ``PRAGMA data_version`` every :data:`SQLiteFeed.INTERVAL` seconds, which
  moves when any other connection, in this process or another, commits;
  then it reads the games and tables changed lately (by ``updated_at``).

Both publish into :class:`~anotador.live.changes.Changes`; neither writes.
"""

from __future__ import annotations

import logging
import threading
import time
from datetime import timedelta
from typing import Iterable

from sqlalchemy import URL, create_engine, select
from sqlalchemy.engine import Connection, Engine
from sqlalchemy.pool import NullPool

from ..store.models import GameRow, MesaRow, utcnow
from . import game_key, mesa_key
from .changes import Changes

log = logging.getLogger(__name__)

#: The channel every server listens on (PostgreSQL scopes it to the database).
CHANNEL = "anotador_changes"
#: Ids read per statement when a feed reads its keys' versions again.
CHUNK = 500
#: Each table whose rows carry a version, and the key of one of its rows (games, tables of regulars).
KEYED = ((GameRow, game_key), (MesaRow, mesa_key))


class Feed(threading.Thread):
    """A daemon thread that publishes what it hears; :meth:`stop` ends it."""

    def __init__(self, engine: Engine, changes: Changes) -> None:
        super().__init__(name=type(self).__name__, daemon=True)
        self.engine, self.changes = engine, changes
        self.stopping = threading.Event()
        #: Set while the feed hears changes (connected, resynced).
        self.hearing = threading.Event()

    def stop(self) -> None:
        self.stopping.set()

    def resync(self, conn: Connection) -> None:
        """Read the version of every key somebody waits for, and publish it."""
        keys = self.changes.keys()
        for table, key_of in KEYED:
            prefix = key_of("")
            ids = [k[len(prefix):] for k in keys if k.startswith(prefix)]
            for start in range(0, len(ids), CHUNK):
                rows = conn.execute(select(table.id, table.version).where(table.id.in_(ids[start:start + CHUNK])))
                self.publish((key_of(row[0]), row[1]) for row in rows)

    def publish(self, heard: Iterable[tuple[str, int]]) -> None:
        for key, version in heard:
            self.changes.publish(key, version)


class PostgresFeed(Feed):
    """``LISTEN`` on a connection of its own; after a drop, connect again and resync."""

    #: Seconds between two tries to connect, longer after each failure in a row, up to the last.
    BACKOFF = (0.1, 0.2, 0.5, 1.0, 2.0, 5.0)
    #: Failures in a row; connections that began listening, in all.
    failures = listens = 0

    def run(self) -> None:
        while not self.stopping.is_set():
            try:
                self.listen()
            except Exception as exc:  # a server restarted, a connection cut: connect again
                self.hearing.clear()
                log.warning("live feed: %s (%s); listening again", type(exc).__name__, str(exc).splitlines()[:1])
                self.stopping.wait(self.BACKOFF[min(self.failures, len(self.BACKOFF) - 1)])
                self.failures += 1

    def listen(self) -> None:
        conn = self.engine.connect().execution_options(isolation_level="AUTOCOMMIT")
        try:
            conn.exec_driver_sql(f"LISTEN {CHANNEL}")
            self.resync(conn)  # what changed while nobody listened
            self.hearing.set()
            self.failures = 0
            self.listens += 1
            driver = conn.connection.driver_connection
            while not self.stopping.is_set():
                self.publish(parse(n.payload) for n in driver.notifies(timeout=1.0))
        finally:
            conn.invalidate()  # a listening session never goes back to the pool
            conn.close()


def parse(payload: str) -> tuple[str, int]:
    """``g:<id>:<version>`` → (key, version)."""
    key, _, version = payload.rpartition(":")
    return key, int(version)


class SQLiteFeed(Feed):
    """``PRAGMA data_version`` on a connection of its own; on a change, what changed since the last look."""

    #: Seconds between two looks: a fifth of the 100 ms a turn may take to reach the phones.
    INTERVAL = 0.02
    #: A write's ``updated_at`` is taken before it waits for SQLite's write lock: look this far back.
    MARGIN = timedelta(seconds=2)
    #: Every so many seconds, read every waited key's version as well (a write stored with an older time).
    RESYNC = 10.0

    def run(self) -> None:
        conn, seen, since, resynced = None, None, utcnow(), 0.0
        while not self.stopping.wait(self.INTERVAL):
            try:
                if conn is None:
                    conn = self.engine.connect()
                    seen = None
                version = conn.exec_driver_sql("PRAGMA data_version").scalar()
                now, clock = utcnow(), time.monotonic()
                if version != seen:
                    seen = version
                    for table, key_of in KEYED:
                        rows = conn.execute(select(table.id, table.version).where(table.updated_at >= since))
                        self.publish((key_of(row[0]), row[1]) for row in rows)
                    since = now - self.MARGIN
                if clock - resynced > self.RESYNC:
                    self.resync(conn)
                    resynced = clock
                conn.rollback()  # no read transaction stays open between looks
                self.hearing.set()
            except Exception as exc:  # the file moved, the disk failed: open a new connection next time
                self.hearing.clear()
                log.warning("live feed: %s (%s); looking again", type(exc).__name__, str(exc).splitlines()[:1])
                if conn is not None:
                    conn.invalidate()
                    conn.close()
                conn = None
        if conn is not None:
            conn.close()


def start(url: URL, changes: Changes, connect_args: dict | None = None) -> Feed:
    """The feed for the database at ``url``, started.

    On an engine of its own, without a pool: the app's pool lends
    connections to requests, and its guard (:mod:`anotador.store.guard`)
    cuts any held past a request's budget, which a listening connection
    always is. ``connect_args``: the app's (PostgreSQL's TCP keepalives end
    a connection across a partition).
    """
    engine = create_engine(url, poolclass=NullPool, connect_args=connect_args or {})
    feed = (PostgresFeed if engine.dialect.name == "postgresql" else SQLiteFeed)(engine, changes)
    feed.start()
    return feed
