"""The app as ASGI: live streams on the event loop, every other request to Flask in a thread.

``granian --interface asgi --factory anotador.ops.asgi:create`` serves it.
A stream (:mod:`anotador.live.streams`) waits on the loop, so ten thousand
idle phones cost sockets and coroutines, not threads; every other request
(reads, writes, the page) is the WSGI app exactly as gunicorn runs it,
through a2wsgi's thread pool (``THREADS`` per process). This process's feed
(:mod:`anotador.live.feeds`) starts with it and stops at shutdown.

Run it with ``--workers-kill-timeout`` (30 s, as gunicorn's graceful
timeout): granian's workers take their signal handlers only once the app
is made, and a worker told to stop before that (a restart while it starts)
keeps serving until it is killed. And with ``--backpressure`` at least
``ANOTADOR_LIVE_STREAMS`` (and ``--backlog`` to match): granian answers at
most that many requests at once per worker, a stream counting as one for
as long as it lasts; its default (the backlog, 1024, over the workers)
held about a thousand phones in all (``bench/live.py``). And with
``--http1-buffer-size 8192``, the smallest granian takes: a connection's
buffers grow to the largest it allows, and at granian's default an idle
stream cost about 32 KiB of the server's memory, at 8192 about 21
(``bench/stream_memory.py``); headers past 8 KiB are refused (431), as
gunicorn and nginx refuse them by default.

granian's ``receive`` returns an awaitable that is not a coroutine, and
a2wsgi hands it to ``asyncio.run_coroutine_threadsafe``, which wants one:
:func:`_coroutine` wraps it (``tests/test_live_server.py`` serves through it).
"""

from __future__ import annotations

import asyncio
import os
import signal
from typing import Any, Mapping

from a2wsgi import WSGIMiddleware

from ..app import create_app
from ..config import engine_options
from ..extensions import db
from ..live import feeds
from ..live.changes import Changes
from ..live.streams import Streams


class Live:
    """The ASGI app: a stream this process can hold, or the WSGI app."""

    def __init__(self, flask_app: Any, threads: int) -> None:
        self.changes = Changes()
        with flask_app.app_context():
            url = db.engine.url
        self.feed = feeds.start(url, self.changes, engine_options(flask_app.config).get("connect_args"))
        self.streams = Streams(flask_app, self.changes)
        self.wsgi = WSGIMiddleware(flask_app, workers=threads)

    async def __call__(self, scope: dict, receive, send) -> None:
        if scope["type"] == "lifespan":
            await self._lifespan(receive, send)
            return
        if scope["type"] != "http":
            return  # no WebSockets here
        key = self.streams.wanted(scope)
        if key is not None and await self.streams(scope, receive, send, key):
            return
        await self.wsgi(scope, _coroutine(receive), send)

    async def _lifespan(self, receive, send) -> None:
        while True:
            message = await receive()
            if message["type"] == "lifespan.startup":
                self._end_streams_on_signals(asyncio.get_running_loop())
                await send({"type": "lifespan.startup.complete"})
            elif message["type"] == "lifespan.shutdown":
                self.feed.stop()
                await send({"type": "lifespan.shutdown.complete"})
                return

    def _end_streams_on_signals(self, loop: asyncio.AbstractEventLoop) -> None:
        """On SIGTERM or SIGINT, end every stream, then do what was done before.

        A server stops once its requests are answered, and a stream is never
        answered: without this, a stopping server waits for the last phone
        to leave. The handler before ours runs too (granian stops through
        the event loop's own signal handling, uvicorn through the one it set).
        """
        for number in (signal.SIGTERM, signal.SIGINT):
            before = signal.getsignal(number)

            def ending(signum, frame, before=before) -> None:
                loop.call_soon_threadsafe(self.streams.close_all)
                if callable(before):
                    before(signum, frame)

            signal.signal(number, ending)


def _coroutine(receive):
    async def received() -> dict:
        return await receive()
    return received


def create(config: Mapping[str, Any] | None = None) -> Live:
    """The ASGI app (granian's ``--factory``); ``THREADS`` (8) threads per process for the WSGI app."""
    return Live(create_app(config), int(os.environ.get("THREADS", "8")))
