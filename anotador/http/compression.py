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

import gzip
import threading
from typing import Any, Mapping

from flask import Request, g

from ..support.lru import LRU

try:  # Python 3.14's own; before it, the backport Flask-Compress itself uses
    from compression import zstd
except ImportError:  # pragma: no cover - Python 3.14
    from backports import zstd


def cache_key(request: Request) -> str:
    """The kept text this answer is, or "" for an answer made for this request alone."""
    return g.get("compress_key", "")


class Compressed(LRU[str, bytes]):
    """Flask-Compress's cache backend: keys are ``"<algorithm>;<cache_key>"``, ``";"`` alone for answers not kept."""

    def __init__(self, size: int = 4096, max_bytes: int = 32 * 1024 * 1024) -> None:
        super().__init__(size, max_bytes, len)

    def get(self, key: str) -> bytes | None:
        return None if key.endswith(";") else super().get(key)

    def set(self, key: str, value: bytes) -> None:
        if not key.endswith(";"):
            self.put(key, value)


class Encodings:
    """The encoding Flask-Compress chose for each ``Accept-Encoding`` it was asked with (None: it chose none).

    :mod:`anotador.api.polls` answers a kept game body before Flask, and must
    send the compressed form the view would have sent. Flask-Compress's
    choice is not public API, so instead of calling it this remembers what
    it chose, as seen on the answers :class:`~anotador.http.headers.Secure` had
    it compress. Clients send few distinct headers (a browser always the
    same); at most ``size`` are kept, and an unknown one goes to the view.
    """

    def __init__(self, size: int = 256) -> None:
        self.size = size
        self.chosen: dict[str, str | None] = {}

    def saw(self, accept: str, encoding: str | None) -> None:
        """Flask-Compress, asked with ``accept`` about an answer it could compress, chose ``encoding``."""
        if accept in self.chosen or len(self.chosen) < self.size:
            self.chosen[accept] = encoding


class Quick:
    """Flask-Compress's work on the commonest answer, without its general path: an answer made for this
    request alone (an advice, a turn's), to a client for whose ``Accept-Encoding`` it was seen choosing zstd
    or gzip. The same codecs at the same levels; zstd's context kept per thread, not made for each answer.

    Making a zstd context was most of Flask-Compress's cost on such an answer (docs/speed.md).
    Anything else (brotli, a kept text, an answer with validators, a GET that a Range may ask part of) goes
    through Flask-Compress as before.
    """

    ENCODINGS = frozenset({"zstd", "gzip"})

    def __init__(self, config: Mapping[str, Any]) -> None:
        self.zstd_level = int(config["COMPRESS_ZSTD_LEVEL"])
        self.gzip_level = int(config["COMPRESS_LEVEL"])
        self._local = threading.local()

    def __call__(self, encoding: str, data: bytes) -> bytes:
        if encoding == "gzip":
            return gzip.compress(data, self.gzip_level)  # what Flask-Compress calls
        compressor = getattr(self._local, "zstd", None)
        if compressor is None:
            compressor = self._local.zstd = zstd.ZstdCompressor(level=self.zstd_level)
        return compressor.compress(data, mode=zstd.ZstdCompressor.FLUSH_FRAME)  # a whole frame: nothing carried over
