"""Benchmark: phones holding live streams (anotador/live/), as issue 45 sets the targets.

On granian running the ASGI app (anotador/ops/asgi.py), this bench:

1. opens ``--phones`` streams (10,000 for the target) over games of six
   players (about 1,700), all from this process;
2. lets them settle for a heartbeat period (``--settle``: ten thousand
   phones opening at once is a server's restart, not its Sunday
   evening; the opening's own stalls show in the tail of a short round),
   then records a turn somewhere every 20 ms for ``--seconds``;
3. times each turn from its 201 (stored) to each of its game's six phones
   receiving the event, and from just before its POST (the write's own
   time included).

It reports:

- delivery p50/p99 per round, median of the rounds with the spread
  (targets: p99 under 100 ms on one server; under 300 ms across two
  servers on one PostgreSQL, with writes through one and streams on the
  other);
- the servers' memory (RSS of every process) per idle stream (target
  under 10 KB);
- /api/v1/score's median latency while all that goes on, against its
  idle median measured in the same run (target within 1.5x);
- a phone's requests per hour of play with push, against polling's 3,600.

    .venv/bin/python bench/live.py [--phones 10000] [--rounds 3] [--seconds 30] [--settle 15] [--postgres URL]

A round needs about 2 x phones open sockets in this process and the
servers': raise ``ulimit -n`` past that.
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import http.client
import json
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from contextlib import ExitStack
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench._http import granian, request  # noqa: E402
from tests.livekit import open_stream  # noqa: E402

PLAYERS = 6
BOXES = ["ones", "twos", "threes", "fours", "fives", "sixes", "straight", "full", "four", "generala"]
SCORE = json.dumps({"variant": "generala", "dice": [6, 6, 6, 1, 1], "served": False}).encode()


def spread(values: list[float], fmt: str = "{:.1f}") -> str:
    m = statistics.median(values)
    return f"{fmt.format(m)} ({fmt.format(min(values))}-{fmt.format(max(values))})"


def rss_kib(pid: int) -> int:
    """Resident memory of ``pid`` and its children, in KiB."""
    total = 0
    pids = [pid] + [int(p) for p in os.popen(f"pgrep -P {pid}").read().split()]
    for p in pids:
        try:
            for line in open(f"/proc/{p}/status"):
                if line.startswith("VmRSS:"):
                    total += int(line.split()[1])
        except FileNotFoundError:
            pass
    return total


def score_latencies(port: int, seconds: float) -> list[float]:
    """/api/v1/score, one request after another on one connection, for ``seconds``: each in ms."""
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
    out, end = [], time.monotonic() + seconds
    while time.monotonic() < end:
        t = time.perf_counter()
        conn.request("POST", "/api/v1/score", body=SCORE, headers={"Content-Type": "application/json"})
        resp = conn.getresponse()
        resp.read()
        out.append((time.perf_counter() - t) * 1000)
        time.sleep(0.01)
    conn.close()
    return out


def create_games(port: int, count: int) -> list[dict]:
    games = []
    for _ in range(count):
        status, _, body = request(port, "POST", "/api/v1/games",
                                  {"variant": "generala", "players": [f"P{i}" for i in range(PLAYERS)]})
        assert status == 201, body
        games.append({"id": body["id"], "auth": {"Authorization": f"Bearer {body['token']}"}, "turns": 0})
    return games


async def one_round(write_port: int, read_port: int, games: list[dict], phones: int, seconds: float,
                    servers: list, settle: float) -> dict:
    loop = asyncio.get_running_loop()
    before = sum(rss_kib(s.proc.pid) for s in servers)
    streams = []
    for i in range(phones):
        try:
            streams.append((games[i % len(games)]["id"],
                            await open_stream(read_port, f"/api/v1/games/{games[i % len(games)]['id']}/events")))
        except (OSError, TimeoutError, asyncio.TimeoutError) as exc:
            raise RuntimeError(f"stream {i + 1} of {phones} did not open: {exc!r}") from None
    for _, s in streams:
        await s.version(timeout=30)
    # This process stands in for ten thousand phones, each with a processor of its own: its collector,
    # walking every phone's objects at once, stalled it for a third of a second, which is no server's delay
    gc.collect()
    gc.freeze()
    gc.disable()
    await asyncio.sleep(1)
    held = sum(rss_kib(s.proc.pid) for s in servers)
    await asyncio.sleep(settle)  # a heartbeat period: the opening's own work done, each stream's first heartbeat sent
    sent: dict[tuple[str, int], float] = {}
    stored: dict[tuple[str, int], float] = {}
    arrived: list[tuple[tuple[str, int], float]] = []

    async def listen(game_id, stream):
        while True:
            try:
                version = await stream.version(timeout=seconds + 30)
            except (EOFError, TimeoutError, asyncio.TimeoutError):
                return
            arrived.append(((game_id, version), time.perf_counter()))

    listeners = [asyncio.ensure_future(listen(g, s)) for g, s in streams]
    stop = threading.Event()

    def write():
        conn = http.client.HTTPConnection("127.0.0.1", write_port, timeout=10)
        n, next_at = 0, time.monotonic()
        while not stop.is_set():
            game = games[n % len(games)]
            n += 1
            if game["turns"] >= PLAYERS * len(BOXES):
                continue
            player, box = game["turns"] % PLAYERS, BOXES[game["turns"] // PLAYERS]
            body = json.dumps({"player": player, "category": box, "scratch": True}).encode()
            version = game["turns"] + 2
            sent[(game["id"], version)] = time.perf_counter()
            conn.request("POST", f"/api/v1/games/{game['id']}/turns", body=body,
                         headers={"Content-Type": "application/json", **game["auth"]})
            resp = conn.getresponse()
            resp.read()
            if resp.status == 201:
                stored[(game["id"], version)] = time.perf_counter()
                game["turns"] += 1
            next_at += 0.02
            time.sleep(max(0.0, next_at - time.monotonic()))
        conn.close()

    writer = threading.Thread(target=write)
    writer.start()
    busy = await loop.run_in_executor(None, score_latencies, write_port, seconds)
    stop.set()
    await loop.run_in_executor(None, writer.join)
    await asyncio.sleep(1)
    for task in listeners:
        task.cancel()
    for _, s in streams:
        s.close()
    gc.enable()
    gc.unfreeze()
    turns = len(stored)
    # From the turn's 201 (stored: the "the moment it is stored"; an event may beat the writer's own
    # answer, which counts as 0), and from just before its POST (the write's own time included)
    delays = [max(0.0, at - stored[key]) * 1000 for key, at in arrived if key in stored]
    whole = [(at - sent[key]) * 1000 for key, at in arrived if key in stored]
    return {"p50": statistics.median(delays) if delays else float("nan"),
            "p99": statistics.quantiles(delays, n=100)[98] if len(delays) > 100 else float("nan"),
            "p99_post": statistics.quantiles(whole, n=100)[98] if len(whole) > 100 else float("nan"),
            "delivered": len(delays), "expected": turns * phones // len(games),
            "kib_per_stream": (held - before) / phones, "score_busy": statistics.median(busy)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--phones", type=int, default=2000)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--seconds", type=float, default=30, help="turns are played this long in each round")
    parser.add_argument("--settle", type=float, default=15,
                        help="seconds between the last stream opening and the first turn (a heartbeat period)")
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--postgres", help="a PostgreSQL URL (its games are left behind): two servers")
    args = parser.parse_args()
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))
    folder = Path(tempfile.mkdtemp(prefix="anotador-live-"))
    try:
        url = args.postgres or f"sqlite:///{folder}/live.sqlite"
        subprocess.run([sys.executable, "-m", "flask", "--app", "anotador", "db", "upgrade"],
                       env={**os.environ, "DATABASE_URL": url}, check=True, capture_output=True)
        env = {"DATABASE_URL": url, "ANOTADOR_LIVE_STREAMS_PER_ADDRESS": "0", "ANOTADOR_GAMES_PER_MINUTE": "0"}
        where = "two servers on one PostgreSQL" if args.postgres else "one server on SQLite"
        print(f"live streams: {args.phones} phones, games of {PLAYERS}, a turn every 20 ms, {where}, "
              f"{args.workers} workers each; new servers each round (memory once freed is kept by the "
              "allocator, and would be counted again as free)")
        results, ratios = [], []
        for r in range(args.rounds):
            with ExitStack() as stack:
                servers = [stack.enter_context(granian(workers=args.workers, env=env))
                           for _ in range(2 if args.postgres else 1)]
                write_port, read_port = servers[0].port, servers[-1].port
                idle = statistics.median(score_latencies(write_port, 3))
                games = create_games(write_port, max(1, args.phones // PLAYERS))
                results.append(asyncio.run(one_round(write_port, read_port, games, args.phones, args.seconds,
                                                     servers, args.settle)))
                last = results[-1]
                ratios.append(last["score_busy"] / idle)
                print(f"  round {r + 1}: p50 {last['p50']:.1f} ms, p99 {last['p99']:.1f} ms "
                      f"(from the POST: {last['p99_post']:.1f} ms), "
                      f"{last['delivered']}/{last['expected']} events, {last['kib_per_stream']:.1f} KiB/stream, "
                      f"/score {idle:.2f} ms idle, {last['score_busy']:.2f} ms busy", flush=True)
        target = 300 if args.postgres else 100
        print(f"  delivery p50 ms: {spread([r['p50'] for r in results])}")
        print(f"  delivery p99 ms: {spread([r['p99'] for r in results])}   (target < {target})")
        print(f"  delivery p99 ms from just before the POST: {spread([r['p99_post'] for r in results])}")
        print(f"  memory KiB per idle stream: {spread([r['kib_per_stream'] for r in results])}   (target < 10)")
        print(f"  /score busy / idle median: {spread(ratios, '{:.2f}')}   (target <= 1.5)")
        # A phone with push: one stream an hour (LIVE_STREAM_SECONDS), a read per turn at its table
        # (six players, about 30 s a turn: 120 an hour), the safety poll every 30 s while quiet (120).
        print("  a phone's requests per hour of play: push about 1 + 120 + 120 = 241, polling 3,600")
    finally:
        shutil.rmtree(folder, ignore_errors=True)


if __name__ == "__main__":
    main()
