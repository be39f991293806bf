"""The stream a phone holds open to hear of its game's (or table's) every new version (Server-Sent Events).

It runs on an ASGI server's event loop (``anotador/ops/asgi.py``): an idle
stream is a coroutine waiting on an :class:`asyncio.Event` and a socket, no
thread. It subscribes before it reads the game's version, so no change
falls between the two; then it sends the version (unless the browser's
``Last-Event-ID`` already names it), every newer version as the feed hears
of it, and a comment line every ``LIVE_HEARTBEAT_SECONDS`` so that neither a
proxy nor the browser takes the quiet for a dead connection.

A stream ends when the client goes, when a send waits more than
:data:`SEND_SECONDS` (a reader that does not read), or after
``LIVE_STREAM_SECONDS`` (the browser opens a new one, perhaps on another
server). Streams are bounded per client address (a 429) and per process (a
503); the page then polls. Anything this module does not answer itself (a
game it cannot find, a database in trouble, a cross-origin request, an
untrusted Host) goes on to the app, whose view answers it as for any server.
"""

from __future__ import annotations

import asyncio
import logging
import random
import re
from collections import Counter
from typing import Any, Awaitable, Callable, NamedTuple

from .. import sheets
from ..http.errors import TYPE_BASE, send_problem
from ..sheets.reads import GAME_ID
from . import HEADERS, game_key, last_seen, mesa_key, opening, version_event
from .changes import Changes

log = logging.getLogger(__name__)

#: A game's or a table's stream, as the API names it (tables' ids are made as games' are).
PATH = re.compile(rf"/api/v1/(games|tables)/({GAME_ID.pattern})/events")
#: The key a stream waits on, by the collection in its path.
KEYS = {"games": game_key, "tables": mesa_key}
#: Seconds one send may wait on a client that does not read before its stream is closed.
SEND_SECONDS = 10.0

Send = Callable[[dict], Awaitable[None]]
Receive = Callable[[], Awaitable[dict]]



class Wanted(NamedTuple):
    """A stream asked for: its key (:func:`.game_key`, :func:`.mesa_key`) and the request's headers."""

    key: str
    headers: dict[bytes, bytes]

class Streams:
    """Every stream of one process, within its bounds."""

    def __init__(self, flask_app: Any, changes: Changes) -> None:
        config = flask_app.config
        self.app = flask_app
        self.changes = changes
        self.heads = flask_app.extensions["anotador.heads"]
        self.hosts = flask_app.extensions["anotador.hosts"]
        self.cors = bool(flask_app.extensions.get("anotador.cors"))
        self.total = int(config["LIVE_STREAMS"])
        self.per_address = int(config["LIVE_STREAMS_PER_ADDRESS"])
        self.heartbeat = float(config["LIVE_HEARTBEAT_SECONDS"])
        self.lifetime = float(config["LIVE_STREAM_SECONDS"])
        self.hops = int(config.get("PROXY_HOPS") or 0)
        self.open = 0
        self.by_address: Counter[str] = Counter()
        self.closing = False
        self._woken: set[asyncio.Event] = set()
        self.metrics = flask_app.extensions.get("anotador.metrics")

    def close_all(self) -> None:
        """End every stream at once and hold no new one (the server is stopping: browsers reconnect to
        another, or to this one started again). On the event loop."""
        self.closing = True
        for woken in self._woken:
            woken.set()

    def wanted(self, scope: dict) -> Wanted | None:
        """The stream this module answers, with the request's headers read once, or None (the app answers
        the request)."""
        if scope["method"] != "GET" or not self.heads.enabled or self.closing:
            return None
        match = PATH.fullmatch(scope["path"])
        if match is None:
            return None
        headers = dict(scope["headers"])
        if self.cors and b"origin" in headers:
            return None  # the app adds what a cross-origin reader needs
        if not self.hosts.allow((headers.get(b"host") or b"").decode("latin-1") or None):
            return None
        return Wanted(KEYS[match.group(1)](match.group(2)), headers)

    async def __call__(self, scope: dict, receive: Receive, send: Send, key: str,
                       headers: dict[bytes, bytes] | None = None) -> bool:
        """Answer the stream of ``key``; False when the app should answer instead (nothing sent yet).
        ``headers``: the request's, as :meth:`wanted` read them."""
        if headers is None:
            headers = dict(scope["headers"])
        address = self.address(scope, headers)
        metrics = self.metrics
        if self.open >= self.total:
            if metrics is not None:
                metrics.refused.labels("503").inc()
            await refuse(send, 503, "streams-full", "This server holds as many live streams as it can; "
                                                    "the sheet is polled instead.")
            return True
        if self.per_address and self.by_address[address] >= self.per_address:
            if metrics is not None:
                metrics.refused.labels("429").inc()
            await refuse(send, 429, "too-many-streams", f"At most {self.per_address} live streams per client "
                                                        "address; the sheet is polled instead.")
            return True
        self.open += 1
        self.by_address[address] += 1
        if metrics is not None:
            metrics.streams.inc()
        try:
            return await self._stream(headers, receive, send, key)
        finally:
            if metrics is not None:
                metrics.streams.dec()
            self.open -= 1
            self.by_address[address] -= 1
            if not self.by_address[address]:
                del self.by_address[address]

    async def _stream(self, headers: dict, receive: Receive, send: Send, key: str) -> bool:
        loop = asyncio.get_running_loop()
        woken = asyncio.Event()
        waiter = self.changes.subscribe(key, lambda: loop.call_soon_threadsafe(woken.set))
        self._woken.add(woken)
        gone = None
        try:
            try:
                version = await asyncio.to_thread(self.version_of, key)
            except Exception:  # the database is in trouble: the app says so (503)
                return False
            if version is None:
                return False  # no such game or table: the app's 404
            # Connection: close, so that a stream's end closes its connection too: a stopping server waits
            # for every open connection, and a browser keeps an idle one open for as long as it likes
            await send({"type": "http.response.start", "status": 200,
                        "headers": [(k.lower().encode(), v.encode()) for k, v in HEADERS] + [(b"connection", b"close")]})
            sent = max(version, self.changes.newest(key) or 0)
            seen = last_seen(headers.get(b"last-event-id", b"").decode("latin-1") or None)
            if not await self._send(send, opening(sent, seen)):
                return True
            gone = asyncio.ensure_future(self._gone(receive, woken))
            end = loop.time() + self.lifetime
            # The first heartbeat at a random point of the period: phones that came together (a server
            # restarted, a bench) do not keep sending theirs in one burst
            quiet = random.uniform(0.2, 1.0) * self.heartbeat
            while not gone.done() and not self.closing:
                left = end - loop.time()
                if left <= 0:
                    break
                try:
                    async with asyncio.timeout(min(quiet, left)):
                        await woken.wait()
                except TimeoutError:
                    if not await self._send(send, b": still here\n\n"):
                        break
                    quiet = self.heartbeat
                    continue
                woken.clear()
                newest = self.changes.newest(key)
                if newest is not None and newest > sent:
                    if not await self._send(send, version_event(newest)):
                        break
                    sent = newest
            if not gone.done():
                await self._send(send, b"", more=False)
            return True
        finally:
            self.changes.unsubscribe(waiter)
            self._woken.discard(woken)
            if gone is not None:
                gone.cancel()

    def version_of(self, key: str) -> int | None:
        """The stored version of a game (the poll's own query) or a table, or None when there is none."""
        kind, _, ident = key.partition(":")
        if kind == "g":
            row = self.heads.get(ident)
            return None if row is None else row[0]
        with self.app.app_context():
            try:
                return sheets.mesa_head(ident)
            except sheets.MesaNotFound:
                return None

    @staticmethod
    async def _gone(receive: Receive, woken: asyncio.Event) -> None:
        """Wait for the client to go (or the server to shut down), then wake the stream."""
        while (await receive())["type"] != "http.disconnect":
            pass
        woken.set()

    @staticmethod
    async def _send(send: Send, data: bytes, more: bool = True) -> bool:
        """Send ``data``; False when the client is gone or has not read for :data:`SEND_SECONDS`."""
        try:
            async with asyncio.timeout(SEND_SECONDS):
                await send({"type": "http.response.body", "body": data, "more_body": more})
            return True
        except (TimeoutError, OSError, RuntimeError) as exc:
            log.debug("live stream closed: %s", type(exc).__name__)
            return False

    def address(self, scope: dict, headers: dict) -> str:
        """The client's address: behind ``PROXY_HOPS`` proxies, the one the nearest of them names."""
        if self.hops:
            forwarded = headers.get(b"x-forwarded-for", b"").decode("latin-1").split(",")
            if len(forwarded) >= self.hops:
                return forwarded[-self.hops].strip()
        client = scope.get("client")
        return client[0] if client else ""


async def refuse(send: Send, status: int, kind: str, detail: str) -> None:
    """A problem document (RFC 9457) with Retry-After, for a stream past its bounds."""
    await send_problem(send, status, detail, TYPE_BASE + kind, [(b"retry-after", b"30")])
