"""Requests read whole on the event loop before a thread takes them, and a line for each in the access log.

The WSGI app runs in a small pool of threads (:mod:`anotador.ops.bridge`).
A client trickling its body would hold one of them for as long as it
trickles, so the body is read here first, on the loop, where a slow
client costs a socket and a coroutine: a request not whole within
``REQUEST_TIMEOUT`` seconds (10) is answered 408 and closed. granian
drops a client whose headers take longer than its
``--http1-header-read-timeout`` (:mod:`anotador.ops.serving`).

The limits gunicorn used to set for the request line and the number of
header fields are kept here, answered as the app answers everything: a
problem document. A body longer than ``MAX_CONTENT_LENGTH`` is read
one byte past it and no further; the app then refuses it (413).
"""

from __future__ import annotations

import asyncio
import logging
import time
from typing import Awaitable, Callable

from ..http.errors import send_problem
from ..support.jsonlog import JSONLines

#: The longest request line (method, target, version) and the most header fields a request may have; a
#: phone's are far below either.
REQUEST_LINE = 4094
HEADER_FIELDS = 50
#: Seconds a client has to send its body (``ANOTADOR_REQUEST_TIMEOUT``).
REQUEST_TIMEOUT = 10.0

#: The header fields that announce a body (RFC 9112, section 6.3); the body read here replaces what they say.
FRAMING = (b"content-length", b"transfer-encoding")

access = logging.getLogger("anotador.access")


def refusal(scope: dict) -> tuple[int, str] | None:
    """The status and the reason a request is refused before the app sees it (its line too long, its header
    fields too many), or None."""
    line = len(scope["method"]) + len(scope.get("raw_path") or scope["path"].encode()) + 10
    if scope.get("query_string"):
        line += 1 + len(scope["query_string"])
    if line > REQUEST_LINE:
        return 414, f"its request line is longer than {REQUEST_LINE} bytes"
    if len(scope["headers"]) > HEADER_FIELDS:
        return 431, f"it has more than {HEADER_FIELDS} header fields"
    return None


async def refuse(send, status: int, why: str) -> None:
    """A request the server could not read (a refusal above, or a body too slow: 408), as a problem document;
    the connection closes."""
    await send_problem(send, status, f"The server could not read this request: {why}",
                       headers=[(b"x-content-type-options", b"nosniff")])


async def whole(scope: dict, receive: Callable[[], Awaitable[dict]], limit: int, seconds: float) -> bytes | None:
    """The body (up to ``limit`` + 1 bytes), read within ``seconds``; None when the client took too long or
    left. A request that announces no body (neither a length nor chunks: most are GETs) has none."""
    if not any(name in FRAMING for name, _ in scope["headers"]):
        return b""
    chunks: list[bytes] = []
    size = 0
    try:
        async with asyncio.timeout(seconds):
            while True:
                message = await receive()
                if message["type"] == "http.disconnect":
                    return None
                chunks.append(message.get("body", b""))
                size += len(chunks[-1])
                if not message.get("more_body") or size > limit:
                    return b"".join(chunks)
    except TimeoutError:
        return None


async def through(scope: dict, receive: Callable[[], Awaitable[dict]], send, app, limit: int, seconds: float,
                  answered: Callable[[str, str, int, float], object] | None = None) -> None:
    """A request the way every one but a live stream goes: refused if it cannot be read, else read whole and
    handed to ``app`` (``app(scope, body, send)``: :class:`~anotador.ops.bridge.Bridge`), its access line
    written once answered."""
    logged = Logged(scope, send, answered)
    try:
        refused = refusal(scope)
        if refused is not None:
            await refuse(logged, *refused)
            return
        body = await whole(scope, receive, limit, seconds)
        if body is None:
            await refuse(logged, 408, "its body did not arrive in time")
            return
        await app(scope, body, logged)
    finally:
        logged.write()


class Logged:
    """``send`` wrapped to note the status and the bytes, and to write the access line once the answer is sent:
    who, what, the status, the bytes, the milliseconds and the request's id (``X-Request-ID``); and to tell
    ``answered`` (the metrics: method, path, status, seconds)."""

    def __init__(self, scope: dict, send, answered: Callable[[str, str, int, float], object] | None = None) -> None:
        self.scope, self.inner, self.answered = scope, send, answered
        self.started = time.perf_counter()
        self.status, self.size, self.id = 0, 0, "-"

    async def __call__(self, message: dict) -> None:
        if message["type"] == "http.response.start":
            self.status = message["status"]
            for name, value in message.get("headers", ()):
                if name.lower() == b"x-request-id":
                    self.id = value.decode("latin-1")
        elif message["type"] == "http.response.body":
            self.size += len(message.get("body", b""))
        await self.inner(message)

    def write(self) -> None:
        seconds = time.perf_counter() - self.started
        scope = self.scope
        if self.answered is not None:
            self.answered(scope["method"], scope["path"], self.status, seconds)
        if not access.isEnabledFor(logging.INFO):
            return
        client = (scope.get("client") or ("-",))[0]
        target = scope.get("raw_path", scope["path"].encode()).decode("latin-1")
        if scope.get("query_string"):
            target += "?" + scope["query_string"].decode("latin-1")
        if len(target) > 300:  # a hostile target need not fill the log
            target = target[:300] + "…"
        agent = next((v.decode("latin-1") for k, v in scope["headers"] if k == b"user-agent"), "-")
        ms = round(seconds * 1000)
        version = scope.get("http_version", "1.1")
        fields = {"client": client, "method": scope["method"], "target": target, "protocol": f"HTTP/{version}",
                  "status": self.status, "bytes": self.size, "ms": ms, "id": self.id, "agent": agent}
        access.info('%s "%s %s HTTP/%s" %s %s %sms id=%s "%s"', client, scope["method"], target, version,
                    self.status, self.size, ms, self.id, agent, extra={"access": fields})


def log_to_stderr(form: str = "text") -> None:
    """The access log's lines on standard error, whatever granian did to the logging set-up: as nginx writes
    them (``text``) or as JSON (``json``, and then the app's own warnings and errors too)."""
    if not access.handlers:
        access.addHandler(logging.StreamHandler())
    for handler in access.handlers:
        handler.setFormatter(JSONLines() if form == "json" else logging.Formatter("%(message)s"))
    access.setLevel(logging.INFO)
    access.propagate = False
    app = logging.getLogger("anotador")
    if form == "json" and not any(isinstance(h.formatter, JSONLines) for h in app.handlers):
        handler = logging.StreamHandler()
        handler.setFormatter(JSONLines())
        app.addHandler(handler)
        app.propagate = False
