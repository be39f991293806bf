"""How ``anotador serve`` (and ``scripts/serve``) runs the app: granian, with the settings that make it safe.

granian (a Rust HTTP server with a Python interface) serves the ASGI app
of :mod:`anotador.ops.asgi`: live streams on its event loop, every other
request through Flask in a thread once it has arrived whole
(:mod:`anotador.ops.gate`). It was chosen over gunicorn by
``bench/slow_servers.py``: through documented settings only it keeps
serving beside 2,200 trickling sockets from one address, answers the
requests in flight at SIGTERM, and serves ``/score`` faster; and it holds
a stream with a socket and a coroutine, where a gunicorn thread would be
held (``docs/speed.md`` has the figures).

The environment sets the address (``BIND``, or ``PORT`` on 127.0.0.1),
the processes (``WORKERS``) and the threads per process for Flask
(``THREADS``); everything else is fixed here, with the reason beside it.
"""

from __future__ import annotations

import errno
import json
import os
import socket
import sys
import time
from typing import Mapping, Sequence

#: granian's options, each with its reason.
OPTIONS = (
    "--interface", "asgi", "--factory", "--no-ws",
    # SIGTERM: stop accepting, answer what is in flight, end the streams; a worker still busy after this
    # many seconds is killed. (A worker stopped while it starts ends at once: anotador/ops/asgi.py.)
    "--workers-kill-timeout", "20",
    # A worker that dies is started again.
    "--respawn-failed-workers",
    # Requests answered at once per worker, a live stream counting as one for as long as it lasts (at
    # least ANOTADOR_LIVE_STREAMS), and connections waiting to be accepted to match.
    "--backpressure", "20000", "--backlog", "16384",
    # The smallest buffer granian takes: an idle stream's memory (bench/stream_memory.py); headers past
    # 8 KiB are refused (431), as nginx refuses them.
    "--http1-buffer-size", "8192",
    "--log-level", "info",
)


#: granian's own lines as JSON objects (``ANOTADOR_LOG_FORMAT=json``), in the form of every other line the
#: server writes (:mod:`anotador.support.jsonlog`); granian puts these in place of its own formatters,
#: handlers and loggers.
JSON_LOGGING = {
    "formatters": {"json": {"()": "anotador.support.jsonlog.JSONLines"}},
    "handlers": {"console": {"formatter": "json", "class": "logging.StreamHandler", "stream": "ext://sys.stderr"}},
    "loggers": {"_granian": {"handlers": ["console"], "level": "INFO", "propagate": False}},
}


def json_logging(folder: str) -> list[str]:
    """granian's options for :data:`JSON_LOGGING`, its file written in ``folder`` (the instance folder)."""
    path = os.path.join(folder, "granian-logging.json")
    with open(path, "w", encoding="utf-8") as out:
        json.dump(JSON_LOGGING, out)
    return ["--log-config", path]


def address(environ: Mapping[str, str]) -> tuple[str, int]:
    """The host and port to listen on: ``BIND`` (``host:port``, ``[::]:port``), else 127.0.0.1 and ``PORT``."""
    bind = environ.get("BIND") or f"127.0.0.1:{environ.get('PORT') or 8000}"
    host, _, port = bind.rpartition(":")
    if not host or not port.isdigit():
        raise SystemExit(f"anotador: BIND must be host:port, not {bind!r}")
    return host.strip("[]"), int(port)


def command(environ: Mapping[str, str], extra: Sequence[str] = ()) -> list[str]:
    """The granian command line for ``environ``'s address and workers; ``extra`` goes to granian."""
    host, port = address(environ)
    header_ms = min(60_000, int(float(environ.get("ANOTADOR_REQUEST_TIMEOUT") or 10) * 1000))  # granian's most
    return [sys.executable, "-m", "granian", *OPTIONS, "--host", host, "--port", str(port),
            "--workers", environ.get("WORKERS") or "2",
            # headers not all there within the time a request has: the connection is dropped
            "--http1-header-read-timeout", str(header_ms),
            *extra, "anotador.ops.asgi:create"]


def refuse_taken(host: str, port: int, wait: float = 5) -> None:
    """Exit 1, saying why, when the address is taken (by another copy of Anotador or anything else).

    A server killed a moment ago may still hold it: a taken port is looked
    at again for ``wait`` seconds.
    """
    deadline = time.monotonic() + wait
    while True:
        family = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)[0][0]
        with socket.socket(family, socket.SOCK_STREAM) as probe:
            probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)  # TIME_WAIT is no owner
            try:
                probe.bind((host, port))
                return
            except OSError as exc:
                if exc.errno == errno.EADDRINUSE and time.monotonic() < deadline:
                    time.sleep(0.2)
                    continue
                why = ("another program, or another copy of Anotador, listens there"
                       if exc.errno == errno.EADDRINUSE else exc.strerror)
                print(f"anotador: cannot listen on {host}:{port}: {why}. Stop it, or choose another port "
                      "(PORT=8001 scripts/serve) or address (BIND=...).", file=sys.stderr, flush=True)
                raise SystemExit(1)


def listening(host: str, port: int) -> str:
    """The line that says where the server listens."""
    shown = f"[{host}]" if ":" in host else host
    return f"Anotador is listening at http://{shown}:{port}/"
