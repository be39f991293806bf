"""Benchmark: what an idle live stream costs in memory, per server, and how much of it is the app's own.

Issue 45's target is under 10 KB of server memory per idle stream. Each
candidate server holds ``--streams`` open Server-Sent Events streams, one
worker, the RSS of its processes read before and after:

- the bare floor: ``stream_floor_app.py``, an ASGI app that sends the
  stream's first line and waits, under granian with its default HTTP/1
  buffer (417,792 bytes at most), under granian with the smallest it
  takes (``--http1-buffer-size 8192``), and under uvicorn (uvloop and
  httptools) when installed;
- Anotador's own ASGI app (``anotador/ops/asgi.py``) under granian as
  README's command runs it, each stream on a stored game.

The difference between the last and its floor is what the app keeps per
stream (its coroutines, the wake-up event, the subscription). Median of
``--rounds`` rounds, with the spread.

    .venv/bin/pip install uvicorn uvloop httptools   # the bench's own: not project dependencies
    .venv/bin/python bench/stream_memory.py [--streams 5000] [--rounds 3]
"""

from __future__ import annotations

import argparse
import asyncio
import importlib.util
import os
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench._http import ROOT, free_port, granian, request  # noqa: E402
from bench.live import rss_kib, spread  # noqa: E402


async def hold(port: int, path: str, count: int, pid: int) -> float:
    """Open ``count`` streams of ``path``, read each one's head, and return the servers' KiB per stream."""
    before = rss_kib(pid)
    held = []
    for _ in range(count):
        reader, writer = await asyncio.open_connection("127.0.0.1", port)
        writer.write(f"GET {path} HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nAccept: text/event-stream\r\n\r\n".encode())
        held.append((reader, writer))
    for reader, _ in held:
        head = await asyncio.wait_for(reader.readuntil(b"\r\n\r\n"), 30)
        assert b" 200 " in head.split(b"\r\n", 1)[0], head
    await asyncio.sleep(2)
    after = rss_kib(pid)
    for _, writer in held:
        writer.close()
    return (after - before) / count


def floor(command: list[str], port: int, count: int) -> float:
    """KiB per stream of the bare app under ``command`` (a server listening on ``port``)."""
    proc = subprocess.Popen(command, cwd=ROOT / "bench", stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                            start_new_session=True)
    try:
        deadline = time.monotonic() + 30
        while True:
            try:
                with __import__("socket").create_connection(("127.0.0.1", port), timeout=1):
                    break
            except OSError:
                if time.monotonic() > deadline or proc.poll() is not None:
                    raise RuntimeError(f"{command[2]} did not start") from None
                time.sleep(0.1)
        time.sleep(0.5)
        return asyncio.run(hold(port, "/events", count, proc.pid))
    finally:
        proc.terminate()
        proc.wait(30)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--streams", type=int, default=5000)
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))
    granian_cmd = [sys.executable, "-m", "granian", "--interface", "asgi", "--host", "127.0.0.1", "--workers", "1",
                   "--backlog", "16384", "--backpressure", "20000", "--log-level", "warning"]
    candidates = {
        "granian, default buffer": lambda port: granian_cmd + ["--port", str(port), "stream_floor_app:app"],
        "granian, --http1-buffer-size 8192": lambda port: granian_cmd + [
            "--port", str(port), "--http1-buffer-size", "8192", "stream_floor_app:app"],
    }
    if importlib.util.find_spec("uvicorn") and importlib.util.find_spec("uvloop"):
        candidates["uvicorn, uvloop + httptools"] = lambda port: [
            sys.executable, "-m", "uvicorn", "--host", "127.0.0.1", "--port", str(port), "--loop", "uvloop",
            "--http", "httptools", "--backlog", "16384", "--log-level", "warning", "stream_floor_app:app"]
    results: dict[str, list[float]] = {name: [] for name in candidates}
    results["Anotador (granian, README's options)"] = []
    folder = Path(tempfile.mkdtemp(prefix="anotador-streams-"))
    try:
        url = f"sqlite:///{folder}/streams.sqlite"
        subprocess.run([sys.executable, "-m", "flask", "--app", "anotador", "db", "upgrade"],
                       env={**os.environ, "DATABASE_URL": url}, check=True, capture_output=True)
        env = {"DATABASE_URL": url, "ANOTADOR_LIVE_STREAMS_PER_ADDRESS": "0"}
        for r in range(args.rounds):
            for name, command in candidates.items():
                port = free_port()
                results[name].append(floor(command(port), port, args.streams))
            with granian(env=env) as srv:
                status, _, game = request(srv.port, "POST", "/api/v1/games",
                                          {"variant": "generala", "players": ["Ana", "Beto"]})
                assert status == 201, game
                time.sleep(0.5)
                results["Anotador (granian, README's options)"].append(
                    asyncio.run(hold(srv.port, f"/api/v1/games/{game['id']}/events", args.streams, srv.proc.pid)))
            print(f"  round {r + 1}: " + ", ".join(f"{k} {v[-1]:.1f}" for k, v in results.items()), flush=True)
    finally:
        shutil.rmtree(folder, ignore_errors=True)
    print(f"memory per idle stream, KiB ({args.streams} streams, one worker, median of {args.rounds} and spread;"
          " target < 10 KB):")
    for name, values in results.items():
        print(f"  {name:40} {spread(values)}")


if __name__ == "__main__":
    main()
