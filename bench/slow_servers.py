"""Benchmark: the buffering gunicorn worker against waitress, which buffers whole requests by design.

scripts/serve has no proxy in front, so its server must not let clients that
trickle their requests hold its threads. anotador/ops/serving.py gets that by
reaching into gunicorn's threaded worker; waitress (pure Python, well kept)
reads every request whole in its event loop before a thread sees it. This
measures both as scripts/serve would run them, with the same slow clients
as tests/test_serving_slow.py, and /score's throughput with none:

    .venv/bin/pip install waitress   # the bench's own: not a project dependency
    .venv/bin/python bench/slow_servers.py [--rounds 3]

For each: /score requests per second at concurrency 4 (median of the
rounds, and the spread), and the p50/p95 of normal requests while 20 and
then 300 connections trickle one header line every 2 s.
"""

from __future__ import annotations

import argparse
import os
import signal
import statistics
import subprocess
import sys
import threading
import time
from contextlib import contextmanager
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench._http import DEPLOYED, ROOT, free_port, gunicorn, load, request  # noqa: E402
from tests.test_serving_slow import slow_clients  # noqa: E402

SCORE = {"variant": "generala", "dice": [2, 2, 3, 3, 3], "served": False, "sheet": {"ones": 3}}


@contextmanager
def waitress(threads: int = 8):
    """waitress-serve on a free port: one process, ``threads`` threads (scripts/serve has 2 x 4)."""
    port = free_port()
    proc = subprocess.Popen([sys.executable, "-m", "waitress", f"--listen=127.0.0.1:{port}", f"--threads={threads}",
                             "--channel-timeout=10", "wsgi:app"], cwd=ROOT, start_new_session=True,
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        deadline = time.monotonic() + 30
        while True:
            try:
                if request(port, "GET", "/healthz", timeout=1)[0] == 200:
                    break
            except OSError:
                pass
            if time.monotonic() > deadline:
                raise RuntimeError("waitress did not start")
            time.sleep(0.1)
        yield port
    finally:
        os.killpg(proc.pid, signal.SIGTERM)
        proc.wait(timeout=20)


@contextmanager
def buffering():
    with gunicorn("wsgi:app", **DEPLOYED) as server:
        yield server.port


def under_slow_clients(port: int, n: int) -> list[float]:
    stop = threading.Event()
    trickler = slow_clients(port, n, 2.0, stop)
    try:
        time.sleep(3)  # every slow connection is mid-request now
        times = []
        for i in range(20):
            t = time.perf_counter()
            try:
                status, _, _ = request(port, "POST", "/api/v1/score", SCORE, timeout=5) if i % 2 else \
                    request(port, "GET", "/api/v1/variants/generala", timeout=5)
                ok = status == 200
            except OSError:
                ok = False
            times.append(time.perf_counter() - t if ok else float("inf"))
        return times
    finally:
        stop.set()
        trickler.join()


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--seconds", type=float, default=4.0)
    args = ap.parse_args()
    for name, server in (("gunicorn + BufferingWorker (2 x 4 threads)", buffering),
                         ("waitress (8 threads)", waitress)):
        with server() as port:
            rps = [load(port, "/api/v1/score", [SCORE], 4, args.seconds)["rps"] for _ in range(args.rounds)]
            print(f"{name}\n  /score {statistics.median(rps):7.0f} req/s  [{min(rps):.0f}-{max(rps):.0f}]")
            for n in (20, 300):
                times = sorted(under_slow_clients(port, n))
                failed = sum(t == float("inf") for t in times)
                p50, p95 = times[len(times) // 2] * 1000, times[int(len(times) * 0.95) - 1] * 1000
                print(f"  {n:4d} trickling: p50 {p50:7.1f} ms  p95 {p95:7.1f} ms  failed {failed}/20")


if __name__ == "__main__":
    main()
