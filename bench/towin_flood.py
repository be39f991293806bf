"""Benchmark: scoring while anonymous clients flood play to win.

The attack of issue 48, item 5: clients at ``--attackers`` addresses (8)
send ``POST /api/v1/advice`` with eleven opponents on an early Generala
sheet (about 120 ms of a core each, against 1 ms for plain advice), back to
back on one connection each, for ``--seconds`` (60). Meanwhile a client
scores a roll every 50 ms. Before the attack, the same client scores for a
third of that time alone: the idle baseline of the same run.

    .venv/bin/python bench/towin_flood.py [--seconds 60] [--attackers 8]

Prints /score's median under the flood divided by its idle median (target:
at most 1.5), with the spread over the run's quarters, and its p99 under
the flood (target: under 50 ms); and how the flood was answered (200s
within the budget, 429s past it). Beside it, the same clients flooding
plain advice (no opponents, about a millisecond each): what a flood of
any cheap request costs a server with no proxy in front, which play to
win's budget cannot be asked to beat (behind nginx, deploy/nginx limits
requests per address).
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import threading
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench._http import DEPLOYED, ROOT, gunicorn  # noqa: E402
from bench.advisor_attack import post, quarters, scorer  # noqa: E402

FLOOD = json.dumps({"variant": "generala", "dice": [1, 2, 3, 4, 6], "roll": 1, "sheet": {},
                    "opponents": [{"sheet": {"ones": 3}} for _ in range(11)]}).encode()


PLAIN = json.dumps({k: v for k, v in json.loads(FLOOD).items() if k != "opponents"}).encode()


def attacker(port: int, source: str, stop: threading.Event, counts: dict, body: bytes) -> None:
    while not stop.is_set():
        try:
            status = post(port, "/api/v1/advice", body, source)[0]
        except OSError:
            status = "error"
        counts[status] = counts.get(status, 0) + 1


def flood(port: int, body: bytes, args) -> tuple[list, dict]:
    """``/score`` timed while ``args.attackers`` addresses send ``body`` back to back: (its rows, their answers)."""
    stop = threading.Event()
    counts: dict = {}
    attackers = [threading.Thread(target=attacker, args=(port, f"127.0.0.{10 + a}", stop, counts, body))
                 for a in range(args.attackers)]
    scored: list = []
    for th in attackers:
        th.start()
    time.sleep(2)  # the flood is under way before scoring is timed
    watcher = threading.Thread(target=scorer, args=(port, stop, scored))
    watcher.start()
    time.sleep(args.seconds)
    stop.set()
    for th in attackers + [watcher]:
        th.join()
    return scored, counts


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=60)
    parser.add_argument("--attackers", type=int, default=8)
    args = parser.parse_args()

    folder = ROOT / "build" / "bench-solver"
    instance = ROOT / "build" / "bench-instance"
    folder.mkdir(parents=True, exist_ok=True)
    instance.mkdir(parents=True, exist_ok=True)
    env = {**os.environ, "ANOTADOR_SOLVER_DIR": str(folder), "DATABASE_URL": f"sqlite:///{instance / 'flood.sqlite'}"}
    print("building the built-in tables (kept for the next run)...", flush=True)
    subprocess.run([sys.executable, "-m", "flask", "--app", "wsgi", "advice"], cwd=ROOT, env=env, check=True,
                   stdout=subprocess.DEVNULL)
    with gunicorn("wsgi:app", env={k: v for k, v in env.items() if k.startswith(("ANOTADOR_", "DATABASE_"))},
                  **DEPLOYED) as server:
        port = server.port
        for _ in range(3):  # each worker's generala table and outlook in memory before anything is timed
            post(port, "/api/v1/advice", FLOOD, "127.0.0.250", timeout=60)
        stop = threading.Event()
        calm: list = []
        t = threading.Thread(target=scorer, args=(port, stop, calm))
        t.start()
        time.sleep(args.seconds / 3)
        stop.set()
        t.join()

        plain_scored, plain_counts = flood(port, PLAIN, args)
        scored, counts = flood(port, FLOOD, args)

    base = statistics.median(s for _, s in calm)
    print(f"/score median idle: {base * 1000:.2f} ms ({len(calm)} requests)")
    for name, rows, answers in (("plain advice (the reference: any flood's cost)", plain_scored, plain_counts),
                                ("play to win, 11 opponents", scored, counts)):
        under = [s for _, s in rows]
        ratio = statistics.median(under) / base
        spread = [q / base for q in quarters(rows, lambda r: r[1])]
        p99 = statistics.quantiles(under, n=100)[98]
        print(f"flood of {name}: {args.attackers} addresses back to back, {args.seconds:.0f} s; answers {answers}")
        print(f"  /score median {statistics.median(under) * 1000:.2f} ms: ratio {ratio:.2f} "
              f"[{min(spread):.2f}-{max(spread):.2f} over quarters] (target <= 1.5); p99 {p99 * 1000:.1f} ms "
              f"(target < 50 ms); {len(under)} requests")
    return 0


if __name__ == "__main__":
    sys.exit(main())
