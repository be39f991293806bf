"""The app as ASGI: live streams on the event loop, every other request to Flask in a thread.

``granian --interface asgi --factory anotador.ops.asgi:create`` serves it.
A stream (:mod:`anotador.live.streams`) waits on the loop, so ten thousand
idle phones cost sockets and coroutines, not threads; every other request
(reads, writes, the page) is the WSGI app, read whole first
(:mod:`anotador.ops.gate`), then answered by Flask in one of ``THREADS``
threads per process (:mod:`anotador.ops.bridge`). This process's feed
(:mod:`anotador.live.feeds`) starts with it and stops at shutdown.

``anotador serve`` runs it with the options of :mod:`anotador.ops.serving`,
each with its reason (the kill timeout, the backpressure, the buffer size).
"""

from __future__ import annotations

import multiprocessing
import signal


def _stop_at_once_while_starting() -> None:
    """In a server's worker process, SIGTERM and SIGINT end it at once until the server sets its own handlers.

    granian forks its workers, and a fork inherits the main process's
    handler, which only raises a flag in the worker's copy of the server:
    a worker asked to stop while it imports the app (most of its start)
    would then serve on until the kill timeout. This runs at import, before
    the imports that take that time; granian's handlers replace it once the
    worker serves.
    """
    if multiprocessing.parent_process() is not None:
        for number in (signal.SIGTERM, signal.SIGINT):
            signal.signal(number, signal.SIG_DFL)


_stop_at_once_while_starting()

import asyncio  # noqa: E402  (the imports below are the start that a stop must be able to cut)
import os  # noqa: E402
import threading  # noqa: E402
import time  # noqa: E402
from typing import Any, Mapping  # noqa: E402


from ..app import create_app  # noqa: E402
from ..config import engine_options  # noqa: E402
from ..extensions import db  # noqa: E402
from ..live import feeds  # noqa: E402
from ..live.changes import Changes  # noqa: E402
from ..live.streams import Streams  # noqa: E402
from . import gate  # noqa: E402
from .bridge import Bridge  # noqa: E402


class Live:
    """The ASGI app: a stream this process can hold, or the WSGI app."""

    def __init__(self, flask_app: Any, threads: int) -> None:
        self.changes = Changes()
        with flask_app.app_context():
            url = db.engine.url
        self.feed = feeds.start(url, self.changes, engine_options(flask_app.config).get("connect_args"))
        self.streams = Streams(flask_app, self.changes)
        self.flask = Bridge(flask_app, threads)
        self.body_limit = int(flask_app.config.get("MAX_CONTENT_LENGTH") or 16 * 1024)
        self.request_timeout = float(flask_app.config.get("REQUEST_TIMEOUT") or gate.REQUEST_TIMEOUT)
        self.outlooks = flask_app.extensions.get("anotador.outlooks")
        self.metrics = flask_app.extensions.get("anotador.metrics")
        self.answered = self.metrics.answered if self.metrics is not None else None
        gate.log_to_stderr(flask_app.config.get("LOG_FORMAT") or "text")

    async def __call__(self, scope: dict, receive, send) -> None:
        if scope["type"] == "lifespan":
            await self._lifespan(receive, send)
            return
        if scope["type"] != "http":
            return  # no WebSockets here
        wanted = self.streams.wanted(scope)
        if wanted is not None and await self.streams(scope, receive, send, *wanted):
            return
        await gate.through(scope, receive, send, self.flask, self.body_limit, self.request_timeout, self.answered)

    async def _lifespan(self, receive, send) -> None:
        while True:
            message = await receive()
            if message["type"] == "lifespan.startup":
                self._end_streams_on_signals(asyncio.get_running_loop())
                _stop_when_orphaned(os.getppid())
                ahead(self.outlooks)
                await send({"type": "lifespan.startup.complete"})
            elif message["type"] == "lifespan.shutdown":
                self.feed.stop()
                self.flask.close()
                if self.metrics is not None:
                    self.metrics.gone()
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


def ahead(outlooks) -> None:
    """Make the built-in rule sets' chances ahead, by a thread beside the requests (when the advisor builds
    ahead): a new game's first figures then come at once."""
    if outlooks is not None and outlooks.tables.ahead:
        threading.Thread(target=outlooks.warm, daemon=True, name="outlooks ahead").start()


def _stop_when_orphaned(parent: int, every: float = 1.0) -> None:
    """SIGTERM this worker once its parent is gone (``kill -9`` of granian's main process): it then finishes
    what is in flight and exits, and lets go of the port, where it would otherwise serve on unwatched."""
    def watch() -> None:
        while os.getppid() == parent:
            time.sleep(every)
        os.kill(os.getpid(), signal.SIGTERM)

    threading.Thread(target=watch, daemon=True, name="orphan watch").start()


def create(config: Mapping[str, Any] | None = None) -> Live:
    """The ASGI app (granian's ``--factory``); ``THREADS`` (8) threads per process for the WSGI app."""
    return Live(create_app(config), int(os.environ.get("THREADS", "8")))
