"""A small HTTP load client and the gunicorn and granian launchers shared by the benchmarks.

Load stays on loopback, bounded in requests and time, and stops by itself.
"""

from __future__ import annotations

import http.client
import json
import multiprocessing as mp
import os
import signal
import socket
import subprocess
import sys
import time
from contextlib import contextmanager
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]


#: Ports :func:`free_port` hands out: below Linux's ephemeral range (32768 and up), where the
#: kernel picks the client side of every connection, and where bind(0) would pick.
PORTS = range(20000, 32000)
_next_port = [0]


def free_port() -> int:
    """A loopback port nothing listens on, never the same twice in this process.

    Each process walks :data:`PORTS` in order from a start of its own, so
    two test workers (or two suites side by side) do not hand out one port
    twice, which bind(0) can: the kernel reuses a port as soon as it is
    closed, and a gunicorn with SO_REUSEPORT would share it silently.
    """
    if not _next_port[0]:
        _next_port[0] = PORTS.start + (os.getpid() * 7919) % len(PORTS)
    for _ in range(len(PORTS)):
        port = _next_port[0]
        _next_port[0] = port + 1 if port + 1 < PORTS.stop else PORTS.start
        with socket.socket() as s:
            try:
                s.bind(("127.0.0.1", port))
            except OSError:
                continue  # taken
            return port
    raise OSError("no free port left in the test range")


class Server:
    """A gunicorn started by :func:`gunicorn`: its port, and a way to kill it."""

    def __init__(self, proc: subprocess.Popen, port: int):
        self.proc, self.port = proc, port

    def kill(self) -> None:
        """SIGKILL the master and every worker at once: a crash, not a shutdown."""
        try:
            os.killpg(self.proc.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        self.proc.wait(timeout=20)


#: scripts/serve's default: 2 workers...
SERVE_WORKERS = 2
#: ... here under gunicorn's own threaded workers, 4 threads each: the WSGI app and its baseline (the echo)
#: under one server in one run, for the ratios. scripts/serve runs granian (anotador/ops/serving.py), which
#: bench/slow_servers.py and bench/live.py measure.
DEPLOYED = {"worker_class": "gthread", "threads": 4}


@contextmanager
def gunicorn(app: str, workers: int = SERVE_WORKERS, worker_class: str = "sync", env: dict | None = None,
             threads: int = 1):
    """Run ``gunicorn app`` on a free loopback port; yield a :class:`Server`.

    The defaults are those of scripts/serve, so a benchmark measures the
    server as it is deployed.
    """
    port = free_port()
    cmd = [sys.executable, "-m", "gunicorn", "--bind", f"127.0.0.1:{port}", "--workers", str(workers),
           "--worker-class", worker_class, "--threads", str(threads), "--log-level", "warning",
           "--no-control-socket", app]  # two instances must not share one control socket
    # no solver table built ahead, on a core of its own, while the clock runs
    env = {**os.environ, "ANOTADOR_SOLVER_BUILD_AHEAD": "false", **(env or {})}
    proc = subprocess.Popen(cmd, cwd=ROOT, env=env, start_new_session=True)
    server = Server(proc, port)
    try:
        deadline = time.monotonic() + 30
        while True:
            try:
                socket.create_connection(("127.0.0.1", port), timeout=0.2).close()
                break
            except OSError:
                if time.monotonic() > deadline or proc.poll() is not None:
                    raise RuntimeError(f"gunicorn {app} did not start")
                time.sleep(0.05)
        yield server
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGTERM)
            proc.wait(timeout=20)


def granian_wsgi_command(app: str, threads: int, extra: tuple[str, ...] = ()) -> list[str]:
    """granian's WSGI interface serving ``app`` (:data:`SERVE_WORKERS` processes, ``threads`` each) on loopback,
    ``{port}`` left to fill: no live streams, what a plain WSGI app gets."""
    return [sys.executable, "-m", "granian", "--interface", "wsgi", "--host", "127.0.0.1", "--port", "{port}",
            "--workers", str(SERVE_WORKERS), "--blocking-threads", str(threads), "--log-level", "warning", *extra, app]


@contextmanager
def granian(workers: int = 1, env: dict | None = None, threads: int = 8, port: int | None = None):
    """Run the ASGI app (``anotador/ops/asgi.py``: live streams, the rest through Flask) under granian on a
    free loopback port (or ``port``); yield a :class:`Server`."""
    from anotador.ops.serving import command

    port = port or free_port()
    cmd = command({"PORT": str(port), "WORKERS": str(workers)}, ["--log-level", "warning"])  # as `anotador serve`
    env = {**os.environ, "THREADS": str(threads), "ANOTADOR_SOLVER_BUILD_AHEAD": "false", **(env or {})}
    proc = subprocess.Popen(cmd, cwd=ROOT, env=env, start_new_session=True)
    server = Server(proc, port)
    try:
        deadline = time.monotonic() + 60
        while True:
            try:
                status, _, _ = request(port, "GET", "/healthz", timeout=2)
                if status == 200:
                    break
            except OSError:
                pass
            if time.monotonic() > deadline or proc.poll() is not None:
                raise RuntimeError("granian did not start")
            time.sleep(0.1)
        yield server
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGTERM)
            try:
                proc.wait(timeout=20)
            except subprocess.TimeoutExpired:
                os.killpg(proc.pid, signal.SIGKILL)
                proc.wait(timeout=20)


class Headers(dict):
    """An answer's headers, by name in any case (granian sends them in lower case, as HTTP/2 must)."""

    def __init__(self, pairs) -> None:
        super().__init__((k.lower(), v) for k, v in pairs)

    def __getitem__(self, name: str) -> str:
        return super().__getitem__(name.lower())

    def __contains__(self, name: object) -> bool:
        return super().__contains__(name.lower() if isinstance(name, str) else name)

    def get(self, name: str, default=None):
        return super().get(name.lower(), default)


def request(port: int, method: str, path: str, body: Any = None, headers: dict | None = None,
            timeout: float = 30) -> tuple[int, dict, Any]:
    """One HTTP request on a fresh connection; return (status, headers, body): a JSON body decoded, any other
    as bytes, none as None."""
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=timeout)
    try:
        data = None if body is None else json.dumps(body).encode()
        hdrs = {"Content-Type": "application/json", **(headers or {})} if data is not None else dict(headers or {})
        conn.request(method, path, body=data, headers=hdrs)
        resp = conn.getresponse()
        raw = resp.read()
        if not raw:
            return resp.status, Headers(resp.getheaders()), None
        return resp.status, Headers(resp.getheaders()), (json.loads(raw) if "json" in (resp.getheader(
            "Content-Type") or "") else raw)
    finally:
        conn.close()


def _worker(port: int, method: str, path: str, bodies: list[bytes], seconds: float, out, extra=None) -> None:
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
    headers = {"Content-Type": "application/json", "Connection": "keep-alive", **(extra or {})}
    if method == "GET":
        del headers["Content-Type"]
        bodies = [None]
    latencies = []
    n = 0
    end = time.monotonic() + seconds
    while time.monotonic() < end and n < 1_000_000:
        body = bodies[n % len(bodies)]
        t = time.perf_counter()
        try:
            conn.request(method, path, body=body, headers=headers)
            resp = conn.getresponse()
            resp.read()
            if resp.status >= 400:
                raise RuntimeError(f"{method} {path} answered {resp.status}")
            if resp.will_close:  # sync workers close after each answer
                conn.close()
        except (http.client.HTTPException, OSError):
            conn.close()
            conn = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
            continue
        latencies.append(time.perf_counter() - t)
        n += 1
    out.put(latencies)


def _interleaved_worker(port: int, plans: list[tuple[str, list[bytes], dict]], seconds: float, out) -> None:
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
    latencies: list[list[float]] = [[] for _ in plans]
    n = 0
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        k = n % len(plans)
        path, bodies, headers = plans[k]
        body = bodies[(n // len(plans)) % len(bodies)]
        t = time.perf_counter()
        try:
            conn.request("POST", path, body=body, headers=headers)
            resp = conn.getresponse()
            resp.read()
            if resp.status >= 400:
                raise RuntimeError(f"POST {path} answered {resp.status}")
            if resp.will_close:
                conn.close()
        except (http.client.HTTPException, OSError):
            conn.close()
            conn = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
            continue
        latencies[k].append(time.perf_counter() - t)
        n += 1
    out.put(latencies)


def interleaved(port: int, plans: list[tuple], seconds: float) -> list[dict]:
    """One client taking each of ``plans`` (path, bodies, and headers besides the JSON type if any) in turn, a
    request each: what the plans cost side by side, on a machine whose speed drifts by the second. Per plan:
    requests and latency."""
    base = {"Content-Type": "application/json", "Connection": "keep-alive"}
    raw = [(path, [json.dumps(b).encode() for b in bodies], {**base, **(more[0] if more else {})})
           for path, bodies, *more in plans]
    q: mp.Queue = mp.Queue()
    proc = mp.Process(target=_interleaved_worker, args=(port, raw, seconds, q))
    proc.start()
    lat = q.get()
    proc.join()
    out = []
    for each in lat:
        each.sort()
        pick = lambda f: each[min(len(each) - 1, int(f * len(each)))] * 1000  # noqa: E731
        out.append({"requests": len(each), "p50_ms": pick(0.5), "p99_ms": pick(0.99)})
    return out


def load(port: int, path: str, bodies: list, concurrency: int, seconds: float, method: str = "POST",
         headers: dict | None = None) -> dict:
    """Drive ``path`` with ``concurrency`` client processes; return req/s and latency."""
    raw = [json.dumps(b).encode() if not isinstance(b, bytes) else b for b in bodies]
    q: mp.Queue = mp.Queue()
    procs = [mp.Process(target=_worker, args=(port, method, path, raw, seconds, q, headers))
             for _ in range(concurrency)]
    t0 = time.perf_counter()
    for p in procs:
        p.start()
    lat = [x for _ in procs for x in q.get()]
    for p in procs:
        p.join()
    elapsed = time.perf_counter() - t0
    lat.sort()
    pick = lambda f: lat[min(len(lat) - 1, int(f * len(lat)))] * 1000 if lat else float("nan")  # noqa: E731
    return {"requests": len(lat), "rps": len(lat) / seconds, "p50_ms": pick(0.5), "p99_ms": pick(0.99),
            "elapsed": elapsed}
