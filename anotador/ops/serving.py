"""Serving without a proxy: a gunicorn worker that reads whole requests first.

gunicorn's sync workers read a request on the worker itself, so a client
that trickles one header line every few seconds holds a worker until the
worker timeout kills it; two such clients stop a two-worker server. Behind
nginx that cannot happen (nginx buffers every request), but at a table on a
LAN ``scripts/serve`` has no proxy in front.

:class:`BufferingWorker` is gunicorn's threaded worker with one change: a
connection's bytes are read in the worker's event loop, without blocking,
until a whole request (headers, and the body by ``Content-Length`` or to the
last chunk) has arrived; only then does a thread, and the app, see it. A slow
client costs a socket, not a thread, and is dropped when the request has not
arrived in ``ANOTADOR_REQUEST_TIMEOUT`` seconds (10 by default). Sockets
still arriving are bounded too: ``PER_ADDRESS`` per client address, and half
the worker's connections in all (the oldest goes first), so thousands of
them leave room for the requests that do arrive.

It leans on gunicorn's internals (``TConn``, ``enqueue_req``, the parser's
unreader, ``_DEFER``); ``tests/test_adapters.py`` fails the day they move.
Why not a server that buffers by design: see :mod:`anotador.support.adapters`
(waitress, measured with ``bench/slow_servers.py``, answered none of 20
normal requests with 300 slow connections open).
"""

from __future__ import annotations

import errno
import html
import json
import os
import re
import selectors
import socket
import time
from functools import partial

from gunicorn.workers import gthread

#: Seconds a client has to send a whole request (``ANOTADOR_REQUEST_TIMEOUT``).
REQUEST_TIMEOUT = 10.0
#: Bytes of headers a request may have before the parser (which refuses them
#: with 400) is allowed to see it; gunicorn's own limits are smaller.
MAX_HEADER_BYTES = 64 * 1024
#: Connections one client address may have still sending their request, per
#: worker (0: no cap). Past it a new one is answered 503 and closed at once: a client that
#: opens thousands of trickling sockets holds a few dozen, not the worker's
#: every connection. Off behind a proxy (ANOTADOR_PROXY_HOPS), whose one
#: address is everybody's and which reads requests whole itself (``ANOTADOR_BUFFERING_PER_ADDRESS``).
PER_ADDRESS = 32
#: Body bytes buffered at most. The app refuses bodies past its own limit
#: (16 KiB) with 413; past this the request goes to it at once.
MAX_BODY_BYTES = 1024 * 1024
_READ = 65536


def request_end(buf: bytes | bytearray) -> int | None:
    """Where the first request in ``buf`` ends, or None while it is incomplete.

    Anything odd (a malformed length, a chunk size that is not hex, an
    ``Expect: 100-continue`` that waits for an answer) ends the buffering:
    gunicorn's parser answers it, as without this worker.
    """
    head_end = buf.find(b"\r\n\r\n")
    if head_end < 0:
        return len(buf) if len(buf) > MAX_HEADER_BYTES else None
    body_start = head_end + 4
    length, chunked = None, False
    for line in bytes(buf[:head_end]).split(b"\r\n")[1:]:
        name, _, value = line.partition(b":")
        name = name.strip().lower()
        if name == b"content-length":
            try:
                length = int(value.strip())
            except ValueError:
                return body_start
            if length < 0:
                return body_start
        elif name == b"transfer-encoding" and b"chunked" in value.lower():
            chunked = True
        elif name == b"expect" and b"100-continue" in value.lower():
            return body_start  # the client waits for "100 Continue" before its body
    if chunked:
        return _chunked_end(buf, body_start)
    if length is None or length > MAX_BODY_BYTES:
        return body_start
    end = body_start + length
    return end if len(buf) >= end else None


def _chunked_end(buf: bytes | bytearray, pos: int) -> int | None:
    start = pos
    while True:
        eol = buf.find(b"\r\n", pos)
        if eol < 0:
            return None
        try:
            size = int(bytes(buf[pos:eol]).split(b";")[0].strip(), 16)
        except ValueError:
            return start
        if size == 0:  # the last chunk, then trailers up to an empty line
            end = buf.find(b"\r\n\r\n", eol)
            return None if end < 0 else end + 4
        pos = eol + 2 + size + 2
        if pos - start > MAX_BODY_BYTES:
            return start
        if pos > len(buf):
            return None


def peer_of(address) -> str:
    """A connection's client address ("" on a unix socket, whose peer has none)."""
    return address[0] if isinstance(address, tuple) else ""


#: gunicorn's own error page (``gunicorn.util.write_error``): its status line and its message.
_ERROR_PAGE = re.compile(rb"HTTP/1\.1 (\d{3}) ([^\r\n]*)\r\n.*?\r\n\r\n.*?</h1>\s*(.*?)\s*</body>", re.S)


def problem_page(page: bytes) -> bytes:
    """gunicorn's HTML refusal (a 400, 414, 431...) as the app's answers are: a problem document."""
    match = _ERROR_PAGE.match(page)
    if match is None:
        return page  # not the page this was written for: sent as it is (tests/test_adapters.py says so)
    status, reason = int(match.group(1)), match.group(2).decode("latin-1")
    detail = html.unescape(match.group(3).decode("latin-1")) or reason
    body = json.dumps({"type": "about:blank", "title": reason, "status": status,
                       "detail": f"The server could not read this request: {detail}"}).encode()
    return (f"HTTP/1.1 {status} {reason}\r\nConnection: close\r\nContent-Type: application/problem+json\r\n"
            f"Content-Length: {len(body)}\r\nX-Content-Type-Options: nosniff\r\nCache-Control: no-store\r\n"
            "\r\n").encode("latin-1") + body


#: What a connection past its address's share of requests still arriving is told before it is closed.
_BUSY_BODY = json.dumps({"type": "about:blank", "title": "Service Unavailable", "status": 503,
                         "detail": "This address has as many requests still arriving as one address may; "
                                   "send this one again once they have arrived."}).encode()
BUSY = (b"HTTP/1.1 503 Service Unavailable\r\nConnection: close\r\nContent-Type: application/problem+json\r\n"
        b"Retry-After: 1\r\nContent-Length: %d\r\nX-Content-Type-Options: nosniff\r\nCache-Control: no-store\r\n"
        b"\r\n" % len(_BUSY_BODY)) + _BUSY_BODY


def refuse(client) -> None:
    """Answer a new connection :data:`BUSY` and close it, without waiting for anything: what it has sent already
    is read first (closed with unread bytes, the kernel would reset it and the answer be lost), its answer is
    sent only if it fits the empty send buffer at once (it does: 400 bytes)."""
    try:
        client.setblocking(False)
        for _ in range(4):
            if not client.recv(65536):
                break
    except OSError:
        pass  # nothing more to read now
    try:
        client.send(BUSY)
        client.shutdown(socket.SHUT_WR)
    except OSError:
        pass
    finally:
        client.close()


class _ProblemSocket:
    """The client's socket, with gunicorn's error page rewritten by :func:`problem_page` on its way out."""

    def __init__(self, sock) -> None:
        self._sock = sock

    def sendall(self, data: bytes, *args) -> None:
        self._sock.sendall(problem_page(bytes(data)), *args)

    def send(self, data: bytes, *args) -> int:
        self.sendall(data, *args)
        return len(data)

    def __getattr__(self, name: str):
        return getattr(self._sock, name)


def worker_settings(environ) -> tuple[float, int]:
    """The worker's own settings from the environment, read when a worker starts (never at import): the
    seconds a request may take to arrive, and the connections one address may have arriving (0 behind a
    proxy). The app checks the same variables when it is made (anotador/settings.py)."""
    timeout = float(environ.get("ANOTADOR_REQUEST_TIMEOUT") or REQUEST_TIMEOUT)
    behind_proxy = int(environ.get("ANOTADOR_PROXY_HOPS") or 0) > 0
    return timeout, 0 if behind_proxy else int(environ.get("ANOTADOR_BUFFERING_PER_ADDRESS") or PER_ADDRESS)


class BufferingWorker(gthread.ThreadWorker):
    """gunicorn's gthread worker, handing a thread only whole requests (see the module)."""

    def handle_error(self, req, client, addr, exc) -> None:
        """gunicorn's own refusals (a request line too long, a bad header byte) as problem documents.

        gunicorn decides the status and the message and writes an HTML page;
        the page is rewritten on its way to the client.
        """
        super().handle_error(req, _ProblemSocket(client), addr, exc)

    def init_process(self) -> None:
        self.request_timeout, self.per_address_cap = worker_settings(os.environ)
        #: connection → when it must have sent its request, oldest first
        self.buffering: dict = {}
        #: client address → its connections in ``buffering``
        self.per_address: dict[str, int] = {}
        #: connections buffered at most, from every address: half of what the worker holds, so
        #: requests that have arrived always find room; past it the oldest is dropped
        self.max_buffering = max(1, self.cfg.worker_connections // 2)
        #: the listeners' queue taken on the way out (once)
        self.drained = False
        super().init_process()

    def accept(self, listener) -> None:
        try:
            client, address = listener.accept()
        except OSError as e:
            if e.errno not in (errno.EAGAIN, errno.ECONNABORTED, errno.EWOULDBLOCK):
                raise
            return
        self._take(client, address, listener)

    def set_accept_enabled(self, enabled: bool) -> None:
        # Stopping (SIGTERM): the connections the kernel has queued already were made to this server;
        # taken now and answered, rather than reset when the last worker closes the listener.
        if not enabled and not self.alive and not self.drained:
            self.drained = True
            self._drain_backlog()
        super().set_accept_enabled(enabled)

    def _drain_backlog(self) -> None:
        for listener in self.sockets:
            while self.nr_conns < self.worker_connections:
                try:
                    client, address = listener.accept()
                except OSError:  # EAGAIN: the queue is empty (or the listener is gone)
                    break
                self._take(client, address, listener)

    def _take(self, client, address, listener) -> None:
        """A new connection: buffered until its request has arrived whole."""
        if self.per_address_cap and self.per_address.get(peer_of(address), 0) >= self.per_address_cap:
            refuse(client)  # this address has its share of requests still arriving
            return
        self.nr_conns += 1
        conn = gthread.TConn(self.cfg, client, address, listener.getsockname())
        if self.cfg.is_ssl:  # TLS is the proxy's job; keep gunicorn's own path
            client.setblocking(True)
            self.enqueue_req(conn)
            return
        self._buffer(conn, b"")

    def on_client_socket_readable(self, conn, client) -> None:
        """A kept-alive connection sends its next request: buffer it too."""
        self.poller.unregister(client)
        self.keepalived_conns.remove(conn)
        self._buffer(conn, b"")

    def finish_request(self, conn, fs) -> None:
        """After a response: a pipelined request read ahead is buffered, not handed on half-read."""
        if not fs.cancelled() and fs.exception() is None and self.alive:
            result = fs.result()
            if result and result is not gthread._DEFER and conn.parser is not None:
                ahead = conn.parser.unreader.take_buffered()
                if ahead:
                    self._buffer(conn, ahead)
                    return
        super().finish_request(conn, fs)

    def is_parent_alive(self) -> bool:
        """A worker whose master died (kill -9) lets go of the port at once.

        It finishes what is in flight, as on a graceful stop, but a new
        master started meanwhile should get every new connection.
        """
        alive = super().is_parent_alive()
        if not alive:
            self.set_accept_enabled(False)
            for listener in self.sockets:
                listener.close()
        return alive

    def murder_pending(self) -> None:
        super().murder_pending()
        now = time.monotonic()
        for conn, deadline in list(self.buffering.items()):
            if deadline > now:
                break  # insertion order is deadline order
            self._drop(conn)

    # -- buffering ------------------------------------------------------------

    def _buffer(self, conn, data: bytes) -> None:
        conn.sock.setblocking(False)
        conn.pending_bytes = bytearray(data)
        if request_end(conn.pending_bytes) is not None:
            self._dispatch(conn)
            return
        if len(self.buffering) >= self.max_buffering:
            self._drop(next(iter(self.buffering)))  # the oldest: the likeliest to be trickling on purpose
        self.buffering[conn] = time.monotonic() + self.request_timeout
        peer = peer_of(conn.client)
        self.per_address[peer] = self.per_address.get(peer, 0) + 1
        self.poller.register(conn.sock, selectors.EVENT_READ, partial(self._on_readable, conn))

    def _on_readable(self, conn, _sock) -> None:
        try:
            data = conn.sock.recv(_READ)
        except (BlockingIOError, InterruptedError):
            return
        except OSError:
            data = b""
        if not data:  # the client went away
            self._drop(conn)
            return
        conn.pending_bytes += data
        if request_end(conn.pending_bytes) is not None:
            self.poller.unregister(conn.sock)
            self._unbuffer(conn)
            self._dispatch(conn)

    def _dispatch(self, conn) -> None:
        data, conn.pending_bytes = bytes(conn.pending_bytes), None
        conn.sock.setblocking(True)
        conn.init()  # makes the parser (plain HTTP/1.1: no reads)
        conn.parser.unreader.unread(data)
        conn.data_ready = True
        self.enqueue_req(conn)

    def _unbuffer(self, conn) -> None:
        if self.buffering.pop(conn, None) is not None:
            peer = peer_of(conn.client)
            left = self.per_address.get(peer, 1) - 1
            if left > 0:
                self.per_address[peer] = left
            else:
                self.per_address.pop(peer, None)

    def _drop(self, conn) -> None:
        """A request that did not arrive in time, or whose client left: close (no thread was used)."""
        self._unbuffer(conn)
        try:
            self.poller.unregister(conn.sock)
        except (KeyError, ValueError, OSError):
            pass
        self.nr_conns -= 1
        conn.close()
