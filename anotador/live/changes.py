"""Who in this process waits for which key's next version.

A feed thread publishes what it hears (:mod:`.feeds`); each stream, on the
event loop, subscribes with a function that wakes it. Publishing keeps the
newest version of a key while someone waits for it, and wakes only them:
a turn at one table wakes that table's phones and nobody else.
"""

from __future__ import annotations

import threading
from typing import Callable


class Waiter:
    """One subscription: its key, and how to wake its stream (called from the feed's thread)."""

    __slots__ = ("key", "wake")

    def __init__(self, key: str, wake: Callable[[], None]) -> None:
        self.key, self.wake = key, wake


class Changes:
    """Keys → their waiters and the newest version heard of, for keys somebody waits for."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._waiting: dict[str, set[Waiter]] = {}
        self._newest: dict[str, int] = {}

    def subscribe(self, key: str, wake: Callable[[], None]) -> Waiter:
        waiter = Waiter(key, wake)
        with self._lock:
            self._waiting.setdefault(key, set()).add(waiter)
        return waiter

    def unsubscribe(self, waiter: Waiter) -> None:
        with self._lock:
            waiting = self._waiting.get(waiter.key)
            if waiting is not None:
                waiting.discard(waiter)
                if not waiting:
                    del self._waiting[waiter.key]
                    self._newest.pop(waiter.key, None)

    def publish(self, key: str, version: int) -> None:
        """``version`` of ``key`` is stored: wake its waiters, if it is newer than any heard of."""
        with self._lock:
            waiting = self._waiting.get(key)
            if not waiting or version <= self._newest.get(key, 0):
                return
            self._newest[key] = version
            woken = list(waiting)
        for waiter in woken:
            waiter.wake()

    def newest(self, key: str) -> int | None:
        """The newest version of ``key`` heard of since somebody began to wait for it."""
        return self._newest.get(key)

    def keys(self) -> list[str]:
        """Every key somebody waits for (a feed that lost its connection reads their versions again)."""
        with self._lock:
            return list(self._waiting)

    def __len__(self) -> int:
        with self._lock:
            return sum(len(w) for w in self._waiting.values())
