"""Benchmark: servers that hold slow clients, on the same tests, as scripts/serve would run them.

scripts/serve has no proxy in front, so its server must not let clients that
trickle their requests hold its threads. Compared, each with 2 processes of
4 threads for the app (scripts/serve's default):

- Anotador as scripts/serve runs it (anotador/ops/serving.py): granian's
  ASGI interface, the body read on its loop before a thread takes the
  request (anotador/ops/gate.py), live streams beside;
- gunicorn's own ``gthread`` worker, with its documented settings only;
- granian (Rust, WSGI): its runtime reads the request, Python's threads
  only run the app (``--blocking-threads``);
- waitress, when installed (pure Python, buffers by design).

For each: /score requests per second at concurrency 4 (median of the
rounds and the spread); a normal client's p50/p95 and the share under
200 ms while 20 connections trickle a header line every 2 s, then while a
crowd of 2,200 sockets from one other address does (tests/crowd.py, the
slow-client test's); and SIGTERM with requests in flight: how many
requests fully sent got no answer.

    .venv/bin/pip install granian waitress   # the bench's own: not project dependencies
    .venv/bin/python bench/slow_servers.py [--rounds 3]
"""

from __future__ import annotations

import argparse
import importlib.util
import os
import resource
import signal
import socket
import statistics
import subprocess
import sys
import threading
import time
from contextlib import contextmanager
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench._http import ROOT, free_port, granian_wsgi_command, gunicorn, load, request  # noqa: E402
from tests.test_serving_slow import crowd, slow_clients  # noqa: E402

SCORE = {"variant": "generala", "dice": [2, 2, 3, 3, 3], "served": False, "sheet": {"ones": 3}}
#: Settings tried beside granian's defaults (GRANIAN_EXTRA="--backlog 8192 ...").
GRANIAN_EXTRA = os.environ.get("GRANIAN_EXTRA", "").split()
#: What "at once" means for a normal client beside slow ones (issue 44's line: 95 % under it).
AT_ONCE = 0.2


@contextmanager
def process(cmd: list[str], name: str, ready: str = "/healthz", env: dict | None = None):
    """A server started by ``cmd`` (``{port}`` filled in) on a free port, with ``env`` added to this process's;
    up once ``ready`` answers 200."""
    port = free_port()
    proc = subprocess.Popen([part.format(port=port) for part in cmd], cwd=ROOT, start_new_session=True,
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env={**os.environ, **(env or {})})
    try:
        deadline = time.monotonic() + 60
        while True:
            try:
                if request(port, "GET", ready, timeout=1)[0] == 200:
                    break
            except OSError:
                pass
            if time.monotonic() > deadline or proc.poll() is not None:
                raise RuntimeError(f"{name} did not start")
            time.sleep(0.1)
        yield port, proc
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGTERM)
            try:
                proc.wait(timeout=30)
            except subprocess.TimeoutExpired:
                os.killpg(proc.pid, signal.SIGKILL)
                proc.wait()


def serve_command(target: str = "anotador.ops.asgi:create") -> list[str]:
    """``anotador serve``'s granian command line (2 workers, warnings only), ``{port}`` for :func:`process` to
    fill, serving ``target`` (another ASGI factory served the same way, if given)."""
    from anotador.ops.serving import command

    cmd = command({"PORT": "1", "WORKERS": "2"}, ["--log-level", "warning"])
    cmd[cmd.index("--port") + 1] = "{port}"
    return [*cmd[:-1], target]


@contextmanager
def deployed():
    os.environ.setdefault("THREADS", "4")
    with process(serve_command(), "anotador serve") as served:
        yield served


@contextmanager
def gthread():
    with gunicorn("wsgi:app", worker_class="gthread", threads=4) as server:
        yield server.port, server.proc


@contextmanager
def granian():
    with process(granian_wsgi_command("wsgi:app", 4, tuple(GRANIAN_EXTRA)), "granian") as served:
        yield served


@contextmanager
def waitress():
    with process([sys.executable, "-m", "waitress", "--listen=127.0.0.1:{port}", "--threads=8",
                  "--channel-timeout=10", "wsgi:app"], "waitress") as served:
        yield served


def normal_requests(port: int, n: int = 20) -> list[float]:
    """``n`` requests of a normal client (a variant read, a score), each on a fresh connection; inf if refused."""
    times = []
    for i in range(n):
        t = time.perf_counter()
        try:
            status, _, _ = request(port, "POST", "/api/v1/score", SCORE, timeout=5) if i % 2 else \
                request(port, "GET", "/api/v1/variants/generala", timeout=5)
            ok = status == 200
        except OSError:
            ok = False
        times.append(time.perf_counter() - t if ok else float("inf"))
    return times


def with_trickling(port: int, n: int) -> list[float]:
    stop = threading.Event()
    trickler = slow_clients(port, n, 2.0, stop)
    try:
        time.sleep(3)  # every slow connection is mid-request now
        return normal_requests(port)
    finally:
        stop.set()
        trickler.join()


def with_crowd(port: int, n: int = 2200) -> list[float]:
    with crowd(port, n):
        time.sleep(3)
        return normal_requests(port, 40)


def sigterm_in_flight(port: int, proc: subprocess.Popen, clients: int = 8) -> tuple[int, int]:
    """SIGTERM while ``clients`` threads send scores: (requests answered, requests fully sent but unanswered)."""
    answered, lost, stop = [0], [0], threading.Event()
    body = (b'{"variant":"generala","dice":[2,2,3,3,3],"served":false}')
    head = (f"POST /api/v1/score HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
            f"Content-Length: {len(body)}\r\nConnection: close\r\n\r\n").encode() + body

    def client():
        while not stop.is_set():
            try:
                s = socket.create_connection(("127.0.0.1", port), timeout=10)
            except OSError:
                return  # the listener is closed: nothing more is in flight from here
            sent = False
            try:
                s.sendall(head)
                sent = True
                reply = s.recv(12)
            except OSError:
                reply = b""
            finally:
                s.close()
            if reply.startswith(b"HTTP/1.1 200"):
                answered[0] += 1
            elif sent:
                lost[0] += 1

    load(port, "/api/v1/score", [SCORE], clients, 1.0)  # every process and thread has answered one
    threads = [threading.Thread(target=client) for _ in range(clients)]
    for t in threads:
        t.start()
    time.sleep(1.0)
    os.kill(proc.pid, signal.SIGTERM)  # the server's own process, as systemd's stop does first
    time.sleep(3.0)
    stop.set()
    for t in threads:
        t.join(timeout=15)
    return answered[0], lost[0]


def summary(times: list[float]) -> str:
    times = sorted(times)
    failed = sum(t == float("inf") for t in times)
    fast = sum(t < AT_ONCE for t in times) / len(times)
    p50, p95 = times[len(times) // 2] * 1000, times[int(len(times) * 0.95) - 1] * 1000
    return f"p50 {p50:7.1f} ms  p95 {p95:7.1f} ms  under {AT_ONCE * 1000:.0f} ms {fast:5.0%}  failed {failed}"


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--seconds", type=float, default=4.0)
    ap.add_argument("--only", default="", help="comma-separated: deployed,gthread,granian,waitress")
    args = ap.parse_args()
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (max(soft, min(hard, 8192)), hard))
    servers = [("deployed", "scripts/serve: granian ASGI + the bridge (2 x 4 threads)", deployed),
               ("gthread", "gunicorn gthread (2 x 4 threads)", gthread)]
    for module, label, start in (("granian", "granian WSGI (2 x 4 blocking threads)", granian),
                                 ("waitress", "waitress (8 threads)", waitress)):
        if importlib.util.find_spec(module) is not None:
            servers.append((module, label, start))
        else:
            print(f"({module} is not installed: pip install {module})")
    only = set(filter(None, args.only.split(",")))
    for key, label, start in servers:
        if only and key not in only:
            continue
        print(label, flush=True)
        with start() as (port, _):
            rps = [load(port, "/api/v1/score", [SCORE], 4, args.seconds)["rps"] for _ in range(args.rounds)]
            print(f"  /score {statistics.median(rps):7.0f} req/s  [{min(rps):.0f}-{max(rps):.0f}]", flush=True)
            print(f"    20 trickling: {summary(with_trickling(port, 20))}", flush=True)
            print(f"  2200 crowd:     {summary(with_crowd(port))}", flush=True)
        with start() as (port, proc):
            answered, lost = sigterm_in_flight(port, proc)
            print(f"  SIGTERM with requests in flight: {answered} answered, {lost} sent and lost", flush=True)


if __name__ == "__main__":
    main()
