"""A small thread-safe map that keeps the entries used last: the workers' caches."""

from __future__ import annotations

import threading
from collections import OrderedDict
from typing import Generic, Hashable, TypeVar

K = TypeVar("K", bound=Hashable)
V = TypeVar("V")


class LRU(Generic[K, V]):
    """At most ``size`` entries; the least recently used go first. Safe across a worker's threads."""

    def __init__(self, size: int) -> None:
        self.size = size
        self.items: OrderedDict[K, V] = OrderedDict()
        self.lock = threading.Lock()

    def get(self, key: K) -> V | None:
        with self.lock:
            value = self.items.get(key)
            if value is not None:
                self.items.move_to_end(key)
            return value

    def put(self, key: K, value: V) -> None:
        with self.lock:
            self.items[key] = value
            self.items.move_to_end(key)
            while len(self.items) > self.size:
                self.items.popitem(last=False)

    def __len__(self) -> int:
        return len(self.items)

    @classmethod
    def of_app(cls, name: str, setting: str):
        """The current app's cache of this kind, made on first use with ``config[setting]`` entries.

        Kept in ``app.extensions[name]``: one per app, so one per worker process.
        """
        from flask import current_app

        found = current_app.extensions.get(name)
        if found is None:
            found = current_app.extensions.setdefault(name, cls(current_app.config[setting]))
        return found
