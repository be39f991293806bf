"""gunicorn settings of ``scripts/serve``: safe with no proxy in front.

``gunicorn -c python:anotador.ops.gunicorn_conf wsgi:app``. The environment sets
the address (``BIND``), the processes (``WORKERS``) and threads per process
(``THREADS``); everything else is fixed here, with the reason beside it.
"""

import errno
import os
import socket
import sys
import threading
import time

bind = os.environ.get("BIND", "127.0.0.1:8000")
workers = int(os.environ.get("WORKERS", "2"))
# A request is read whole in the worker's event loop before a thread and the
# app see it: a client trickling its headers costs a socket, not a worker
# (anotador/ops/serving.py). Threads overlap the database's waits.
worker_class = "anotador.ops.serving.BufferingWorker"
threads = int(os.environ.get("THREADS", "4"))
# Each instance its own: the default control socket ~/.gunicorn/gunicorn.ctl
# is shared by every gunicorn of one user, and they unlink each other's.
control_socket_disable = True
# After a crash (kill -9 of the master) its orphaned workers still hold the
# port for a moment; a new master binds beside them instead of giving up.
reuse_port = True
# SIGTERM: stop accepting, finish what is in flight (up to 20 s), exit.
graceful_timeout = 20
# A worker silent this long is stuck: killed and replaced.
timeout = 30
keepalive = 5
accesslog = "-"
# Who, what, the answer, its bytes, how long it took (ms) and the request's id (the X-Request-ID every
# answer carries: anotador/http/headers.py), then the client's software.
access_log_format = '%(h)s "%(r)s" %(s)s %(b)s %(M)sms id=%({x-request-id}o)s "%(a)s"'
# Request line and headers: far above anything a phone sends.
limit_request_line = 4094
limit_request_fields = 50


def _addresses(server) -> list[tuple[str, int]]:
    return [a for a in server.cfg.address if isinstance(a, tuple)]  # not a unix socket's path


def on_starting(server) -> None:
    """Refuse to start (exit 1, saying why) when the address is taken, by another copy of Anotador or anything.

    reuse_port (above) would otherwise let a second server share the port
    in silence, and a port held by another program leaves workers retrying
    forever. Orphans of a master killed a moment ago let go of the port
    within a second or two, so a taken port is looked at again for 5 s.
    """
    for host, port in _addresses(server):
        deadline = time.monotonic() + 5
        while True:
            family = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)[0][0]
            with socket.socket(family, socket.SOCK_STREAM) as probe:
                probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)  # as gunicorn: TIME_WAIT is no owner
                try:
                    probe.bind((host, port))
                    break
                except OSError as exc:
                    if exc.errno == errno.EADDRINUSE and time.monotonic() < deadline:
                        time.sleep(0.2)
                        continue
                    why = ("another program, or another copy of Anotador, listens there"
                           if exc.errno == errno.EADDRINUSE else exc.strerror)
                    print(f"anotador: cannot listen on {host}:{port}: {why}. Stop it, or choose another port "
                          "(PORT=8001 scripts/serve) or address (BIND=...).", file=sys.stderr, flush=True)
                    sys.exit(1)


def when_ready(server) -> None:
    """Say where the server listens: gunicorn's own line is empty with reuse_port (each worker binds)."""
    for host, port in _addresses(server):
        shown = f"[{host}]" if ":" in host else host
        server.log.info("Anotador is listening at http://%s:%s/", shown, port)


def post_worker_init(worker) -> None:
    """Each worker makes the built-in rule sets' chances ahead, by a thread beside its requests (a few seconds
    of one core once their tables are there): a new game's first figures then come at once."""
    outlooks = getattr(getattr(worker, "wsgi", None), "extensions", {}).get("anotador.outlooks")
    if outlooks is not None and outlooks.tables.ahead:
        threading.Thread(target=outlooks.warm, daemon=True, name="outlooks ahead").start()
