"""Flask called from the event loop: one request, one trip to a thread and back.

By the time a request gets here the gate (:mod:`.gate`) has read its body
whole, so the WSGI app needs nothing from the loop while it runs; and every
answer it gives (a sheet, a page, a printed PDF, a table's history) is
bounded, so it is gathered in the thread and sent from the loop at once.
A general bridge (a2wsgi, which served here before) crosses between the
thread and the loop for each part of the answer instead; ``bench/reads.py``
has what the difference buys.

The environ is PEP 3333's, built from the ASGI scope as PEP 3333 and the
ASGI spec say (a path's UTF-8 bytes as latin-1 text; repeated header fields
joined by commas, cookies by semicolons).
"""

from __future__ import annotations

import asyncio
import contextvars
import io
import logging
import sys
from concurrent.futures import ThreadPoolExecutor
from typing import Any, Awaitable, Callable, Iterable

from ..http.errors import send_problem
from .gate import FRAMING

log = logging.getLogger(__name__)

Send = Callable[[dict], Awaitable[None]]
_BODIED = ("POST", "PUT", "PATCH")


def environ_of(scope: dict, body: bytes) -> dict[str, Any]:
    """The WSGI environ of an ASGI HTTP ``scope`` whose body is ``body``."""
    root = scope.get("root_path", "").encode("utf-8").decode("latin-1")
    path = scope["path"].encode("utf-8").decode("latin-1")
    if root and path.startswith(root):
        path = path[len(root):]
    server = scope.get("server") or ("localhost", 80)
    environ: dict[str, Any] = {
        "REQUEST_METHOD": scope["method"],
        "SCRIPT_NAME": root,
        "PATH_INFO": path,
        "QUERY_STRING": scope.get("query_string", b"").decode("latin-1"),
        "SERVER_NAME": server[0],
        "SERVER_PORT": str(server[1] or 80),
        "SERVER_PROTOCOL": f"HTTP/{scope.get('http_version', '1.1')}",
        "wsgi.version": (1, 0),
        "wsgi.url_scheme": scope.get("scheme", "http"),
        "wsgi.input": io.BytesIO(body),
        "wsgi.errors": sys.stderr,
        "wsgi.multithread": True,
        "wsgi.multiprocess": True,
        "wsgi.run_once": False,
    }
    client = scope.get("client")
    if client:
        environ["REMOTE_ADDR"], environ["REMOTE_PORT"] = client[0], str(client[1])
    if body or scope["method"] in _BODIED:
        environ["CONTENT_LENGTH"] = str(len(body))
    for name, value in scope["headers"]:
        if name in FRAMING:  # the body's length is the one the gate read, not the one the client announced
            continue
        key = name.decode("latin-1").upper().replace("-", "_")
        key = key if key == "CONTENT_TYPE" else "HTTP_" + key
        text = value.decode("latin-1")
        if key in environ:
            text = environ[key] + ("; " if key == "HTTP_COOKIE" else ",") + text
        environ[key] = text
    return environ


def called(app: Callable, environ: dict[str, Any]) -> tuple[int, list[tuple[bytes, bytes]], bytes]:
    """``app`` called on ``environ``: its status, its headers as ASGI wants them, its whole body."""
    started: list = []
    chunks: list[bytes] = []

    def start_response(status: str, headers: list[tuple[str, str]], exc_info=None):
        if exc_info is not None and started:
            raise exc_info[1].with_traceback(exc_info[2])
        started[:] = [status, headers]
        return chunks.append  # PEP 3333's write(): the answer is gathered either way

    result: Iterable[bytes] = app(environ, start_response)
    try:
        chunks.extend(result)
    finally:
        close = getattr(result, "close", None)
        if close is not None:
            close()
    if not started:
        raise RuntimeError("the WSGI app answered without calling start_response")
    status, headers = started
    return (int(status[:3]), [(k.lower().encode("latin-1"), v.encode("latin-1")) for k, v in headers],
            b"".join(chunks))


class Bridge:
    """A WSGI app served from the event loop, in a pool of ``threads`` threads."""

    def __init__(self, app: Callable, threads: int) -> None:
        self.app = app
        self.pool = ThreadPoolExecutor(max_workers=threads, thread_name_prefix="flask")

    async def __call__(self, scope: dict, body: bytes, send: Send) -> None:
        environ = environ_of(scope, body)
        loop = asyncio.get_running_loop()
        # each request in a context of its own: nothing a request sets in one is seen by the next
        run = contextvars.Context().run
        try:
            status, headers, content = await loop.run_in_executor(self.pool, run, called, self.app, environ)
        except Exception:  # the app answers its own errors; this is a fault in it, said once and not shown
            log.exception("the app failed to answer %s %s", scope["method"], scope["path"])
            await send_problem(send, 500, "The server failed to answer this request.")
            return
        await send({"type": "http.response.start", "status": status, "headers": headers})
        await send({"type": "http.response.body", "body": content})

    def close(self) -> None:
        """Let the threads go once what they run is done."""
        self.pool.shutdown(wait=False)
