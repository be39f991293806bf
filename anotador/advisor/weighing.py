"""Play to win's budget: the CPU a worker spends weighing other players' sheets, in all and per address.

Weighing every sheet a roll can lead to against every opponent's costs
from a few milliseconds to a few hundred (eleven opponents, an early
Yahtzee sheet), against well under one for plain advice. Anybody may ask,
so the work is metered like the advisor's builds: ``TO_WIN_AT_ONCE``
weighings at a time per worker (one), and the CPU seconds they take drawn from two buckets that
refill with time, the worker's (``TO_WIN_SHARE`` of a core) and the
asking address's (``TO_WIN_CLIENT_SHARE``), each holding ``TO_WIN_BURST``
seconds at most. A request that finds either bucket empty, or another
weighing under way, is refused at once (:class:`TooMuchWeighing`, a 429
with ``Retry-After``): scoring's request threads are never queued behind
it, and the page then asks for the points alone.
"""

from __future__ import annotations

import math
import threading
import time
from contextlib import contextmanager
from typing import Callable, Iterator

from flask import current_app

from ..support.lru import LRU

#: Addresses whose buckets each worker remembers (the newest); a forgotten one starts full again.
CLIENTS_KEPT = 10_000


class TooMuchWeighing(Exception):
    """Play to win is past its budget for now: this address's, or the worker's."""

    def __init__(self, message: str, retry_after: int):
        super().__init__(message)
        self.message, self.retry_after = message, retry_after


class Bucket:
    """Seconds of CPU that refill at ``rate`` a second, up to ``capacity``; spending may take it below 0."""

    def __init__(self, rate: float, capacity: float, now: float) -> None:
        self.rate, self.capacity = rate, capacity
        self.level, self.when = capacity, now

    def at(self, now: float) -> float:
        self.level = min(self.capacity, self.level + self.rate * (now - self.when))
        self.when = now
        return self.level

    def wait(self) -> float:
        """Seconds until it holds something again."""
        return max(0.0, -self.level) / self.rate if self.rate > 0 else math.inf


class Budget:
    """One worker's budget for play to win (see the module's docstring). Safe across its threads."""

    def __init__(self, share: float, client_share: float, burst: float, at_once: int = 1,
                 clock: Callable[[], float] = time.monotonic, cpu: Callable[[], float] = time.thread_time) -> None:
        self.clock, self.cpu = clock, cpu
        self.share, self.client_share, self.burst, self.at_once = share, client_share, burst, at_once
        self.total = Bucket(share, burst, clock())
        self.clients: LRU[str, Bucket] = LRU(CLIENTS_KEPT)
        self.busy = 0
        self.lock = threading.Lock()

    def check(self, client: str) -> None:
        """Raise :class:`TooMuchWeighing` now if ``client`` would be refused: before a request that will be
        refused does any other work (a flood of them costs the parsing, not the advice)."""
        with self.lock:
            self._refusal(client, self.clock())

    def _refusal(self, client: str, now: float) -> Bucket:
        """``client``'s bucket, or :class:`TooMuchWeighing` saying which limit refuses it (under the lock)."""
        mine = self.clients.get(client)
        if mine is None:
            mine = Bucket(self.client_share, self.burst, now)
            self.clients.put(client, mine)
        if mine.at(now) <= 0:
            raise TooMuchWeighing("This address has used its share of play to win for now; the hint's "
                                  "points need none.", _seconds(mine.wait()))
        if self.total.at(now) <= 0:
            raise TooMuchWeighing("Play to win is at its share of this server for now; the hint's points "
                                  "need none.", _seconds(self.total.wait()))
        if self.busy >= self.at_once:
            raise TooMuchWeighing("Other players' play to win is being weighed; ask again in a moment.", 1)
        return mine

    def _take(self, client: str) -> Bucket:
        with self.lock:
            mine = self._refusal(client, self.clock())
            self.busy += 1
            return mine

    @contextmanager
    def weigh(self, client: str) -> Iterator[None]:
        """Run the block within the budget, or raise :class:`TooMuchWeighing` before it starts; the block's CPU
        time is charged to the worker and to ``client``."""
        mine = self._take(client)
        started = self.cpu()
        try:
            yield
        finally:
            spent = self.cpu() - started
            with self.lock:
                now = self.clock()
                for bucket in (self.total, mine):
                    bucket.at(now)
                    bucket.level -= spent
                self.busy -= 1


def _seconds(wait: float) -> int:
    return max(1, min(3600, math.ceil(wait)))


def budget() -> Budget:
    """The current app's budget (one per worker process), made on first use from its settings."""
    found = current_app.extensions.get("anotador.weighing")
    if found is None:
        config = current_app.config
        found = current_app.extensions.setdefault("anotador.weighing", Budget(
            float(config["TO_WIN_SHARE"]), float(config["TO_WIN_CLIENT_SHARE"]), float(config["TO_WIN_BURST"]),
            int(config["TO_WIN_AT_ONCE"])))
    return found
