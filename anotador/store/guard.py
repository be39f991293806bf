"""A database that stops answering costs a 503 within seconds, never the whole server.

PostgreSQL's statement and lock timeouts run on the server: across a
network partition (packets dropped, the connection still open) nothing
reaches it and nothing comes back, and a request waits on its socket for as
long as TCP lets it, a quarter of an hour. Every thread soon waits so,
and the server stops answering even what needs no database.

:class:`Guard` bounds that wait in three ways, one per process:

- **A watchdog.** Each PostgreSQL connection in use (a request's, a poll's)
  is known with the time it was taken. One held past ``DB_SUSPECT_SECONDS``
  makes the watchdog ask the database itself, on a connection of its own
  (``SELECT 1``, within 1.5 s, milliseconds when all is well): a database that answers
  is slow (a lock wait, a long statement), and its own timeouts will end
  that request; one that does not is unreachable.
- **A circuit.** Unreachable, the circuit opens: every connection in use is
  cut (its socket shut down, so the driver's wait ends with an error the
  app answers as a 503), and a request that would take one gets a 503 at
  once. The watchdog probes every second and closes the circuit when the
  database answers again.
- **A last bound.** A connection held past ``DB_REQUEST_BUDGET`` seconds is
  cut whatever the probe said: no request outlives its budget.

TCP keepalives and ``tcp_user_timeout`` (:func:`anotador.config.engine_options`)
end the connections a real partition leaves behind, for the pool's sake.
"""

from __future__ import annotations

import logging
import os
import socket
import threading
import time
from typing import Callable

log = logging.getLogger(__name__)


class DatabaseDown(Exception):
    """The circuit is open: the database did not answer the last probe."""


def cut(fd: int) -> None:
    """Shut down the socket behind ``fd`` (both ways): a driver waiting on it wakes with an error."""
    try:
        s = socket.socket(fileno=os.dup(fd))
    except OSError:
        return
    try:
        s.shutdown(socket.SHUT_RDWR)
    except OSError:
        pass
    finally:
        s.close()  # the duplicate only: the driver still owns (and will close) its own


class Guard:
    """The connections in use, the watchdog that looks at them, and the circuit (see the module)."""

    def __init__(self, probe: Callable[[], object], budget: float = 10.0, suspect: float = 1.0,
                 probe_timeout: float = 3.0, every: float = 0.25) -> None:
        #: Opens a connection, runs ``SELECT 1`` and closes it; raises when the database does not answer.
        self.probe = probe
        self.budget, self.suspect, self.probe_timeout, self.every = budget, suspect, probe_timeout, every
        self.in_use: dict[int, tuple[int, float]] = {}  # token → (socket fd, taken at)
        self.lock = threading.Lock()
        self.down = False
        self.last_probe = 0.0
        self._watching = False
        #: Called each time the circuit opens (the metrics count it).
        self.opened: Callable[[], object] = lambda: None

    # -- what requests call -----------------------------------------------------

    def check(self) -> None:
        """Raise :class:`DatabaseDown` while the circuit is open."""
        if self.down:
            raise DatabaseDown("The database is not answering; the server checks it every second.")

    def take(self, token: int, fd: int) -> None:
        """A connection (``token``: any id unique while it is in use) is in use from now."""
        self.check()
        with self.lock:
            self.in_use[token] = (fd, time.monotonic())
            if not self._watching:
                self._watching = True
                threading.Thread(target=self._watch, name="anotador-db-guard", daemon=True).start()

    def give_back(self, token: int) -> None:
        with self.lock:
            self.in_use.pop(token, None)

    # -- the watchdog -------------------------------------------------------------

    def _watch(self) -> None:
        while True:
            time.sleep(self.every)
            try:
                self.look()
            except Exception:  # pragma: no cover - the watchdog must outlive any surprise
                log.exception("the database guard's look failed")

    def look(self) -> None:
        """One round: probe when a connection is held too long or the circuit is open; cut what must be."""
        now = time.monotonic()
        with self.lock:
            held = dict(self.in_use)
        overdue = [fd for fd, since in held.values() if now - since > self.budget]
        suspect = any(now - since > self.suspect for _, since in held.values())
        # One probe a second at most: a request that holds its connection for seconds (the database is slow,
        # not gone) costs one connection a second, not one a round.
        if (self.down or suspect) and now - self.last_probe >= 1.0:
            self.last_probe = now
            answered = self._probe()
            if answered and self.down:
                log.warning("the database answers again: the circuit closes")
            elif not answered and not self.down:
                log.error("the database does not answer: its connections are cut, and requests that need it "
                          "get 503 until it does")
                self.opened()
            self.down = not answered
            if self.down:
                overdue = [fd for fd, _ in held.values()]
        for fd in overdue:
            cut(fd)
        if overdue:
            with self.lock:  # cut once: the request gives them back as it fails
                for token, (fd, _) in list(self.in_use.items()):
                    if fd in overdue:
                        self.in_use[token] = (fd, float("inf"))

    def _probe(self) -> bool:
        """Whether the database answers ``SELECT 1`` within ``probe_timeout``.

        A probe that fails at once is tried once more: a restart that cut the
        probe's own connection as it was made is over by then, and a database
        that is really gone (refused, unreachable) fails the second time too.
        """
        result: list[bool] = []
        done = threading.Event()

        def run() -> None:
            for attempt in (1, 2):
                try:
                    self.probe()
                    result.append(True)
                    break
                except Exception:
                    if attempt == 2:
                        result.append(False)
            done.set()

        threading.Thread(target=run, name="anotador-db-probe", daemon=True).start()
        return done.wait(self.probe_timeout) and result == [True]
