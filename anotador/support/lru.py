"""A small thread-safe map that keeps the entries used last: the workers' caches."""

from __future__ import annotations

import threading
from collections import OrderedDict
from typing import Callable, Generic, Hashable, TypeVar

K = TypeVar("K", bound=Hashable)
V = TypeVar("V")


class LRU(Generic[K, V]):
    """At most ``size`` entries, and where ``weigh`` is given at most ``max_bytes`` of them as it weighs
    them; the least recently used go first. Safe across a worker's threads."""

    def __init__(self, size: int, max_bytes: int | None = None, weigh: Callable[[V], int] | None = None) -> None:
        self.size = size
        self.max_bytes = max_bytes
        self.weigh = weigh
        self.bytes = 0
        self.items: OrderedDict[K, V] = OrderedDict()
        self.lock = threading.Lock()
        self.flights: dict[K, threading.Event] = {}
        #: Called on each lookup with whether the entry was kept (the metrics count them).
        self.looked: Callable[[bool], object] | None = None

    def _weight(self, value: V) -> int:
        return self.weigh(value) if self.weigh is not None else 0

    def get(self, key: K) -> V | None:
        with self.lock:
            value = self.items.get(key)
            if value is not None:
                self.items.move_to_end(key)
        if self.looked is not None:
            self.looked(value is not None)
        return value

    def put(self, key: K, value: V) -> None:
        weight = self._weight(value)
        if self.max_bytes is not None and weight > self.max_bytes:
            return  # larger than the whole cache: kept, it would push out everything else
        with self.lock:
            old = self.items.pop(key, None)
            if old is not None:
                self.bytes -= self._weight(old)
            self.items[key] = value
            self.bytes += weight
            while len(self.items) > self.size or (self.max_bytes is not None and self.bytes > self.max_bytes):
                _, gone = self.items.popitem(last=False)
                self.bytes -= self._weight(gone)

    def get_or_make(self, key: K, make: Callable[[], V]) -> V:
        """The value kept for ``key``, or ``make()``'s, made once however many threads ask at the same time:
        the first makes it, the others wait for it (single flight). If the maker fails, the next one tries."""
        first = True
        while True:
            with self.lock:
                value = self.items.get(key)
                if value is not None:
                    self.items.move_to_end(key)
                else:
                    flight = self.flights.get(key)
                    mine = flight is None
                    if mine:
                        flight = self.flights[key] = threading.Event()
            if first and self.looked is not None:
                self.looked(value is not None)  # the first look only: a wait for another's make is one lookup
            first = False
            if value is not None:
                return value
            if not mine:
                # then look again: kept, or still being made, or (not kept: too large, or the maker failed)
                # made here; the bound is a safety net, the maker's own database timeouts end it long before
                flight.wait(60)
                continue
            try:
                value = make()
                self.put(key, value)
                return value
            finally:
                with self.lock:
                    self.flights.pop(key, None)
                flight.set()

    def __len__(self) -> int:
        return len(self.items)

    @classmethod
    def of_app(cls, name: str, setting: str, weigh: Callable[[V], int] | None = None):
        """The current app's cache of this kind, made on first use with ``config[setting]`` entries (and, with
        ``weigh``, at most ``config["READ_CACHE_BYTES"]`` as it weighs them).

        Kept in ``app.extensions[name]``: one per app, so one per worker process.
        """
        from flask import current_app

        found = current_app.extensions.get(name)
        if found is None:
            limit = current_app.config.get("READ_CACHE_BYTES") if weigh is not None else None
            found = current_app.extensions.setdefault(name, cls(current_app.config[setting], limit, weigh))
            metrics = current_app.extensions.get("anotador.metrics")
            if metrics is not None:
                found.looked = metrics.cache(name.removeprefix("anotador."))
        return found
