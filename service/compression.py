"""Compressed answers kept, for the answers that never change: a game version's body, the variants, the spec.

Flask-Compress compresses every text answer (brotli, zstd or gzip, as the
client accepts). Most are made once and sent once; a game version's body is
sent to every phone at the table, and the variants and the spec to every
phone ever. A view that sends such a text names it in ``g.compress_key``
(its identity: the game, its version and when it was made; or the text's
ETag), and its compressed forms are kept here, bounded, the least recently
used going first. Every other answer is compressed as it goes.
"""

from __future__ import annotations

from flask import Request, g

from .lru import LRU


def cache_key(request: Request) -> str:
    """The kept text this answer is, or "" for an answer made for this request alone."""
    return g.get("compress_key", "")


class Compressed(LRU[str, bytes]):
    """Flask-Compress's cache backend: keys are ``"<algorithm>;<cache_key>"``, ``";"`` alone for answers not kept."""

    def __init__(self, size: int = 4096) -> None:
        super().__init__(size)

    def get(self, key: str) -> bytes | None:
        return None if key.endswith(";") else super().get(key)

    def set(self, key: str, value: bytes) -> None:
        if not key.endswith(";"):
            self.put(key, value)
