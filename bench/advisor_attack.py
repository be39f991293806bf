"""Benchmark: the advisor while anonymous clients ask for a new house-rule table as fast as they can.

The attack of issue 25, item 1: clients at several addresses send
``POST /api/v1/advice`` with a rule set nobody asked for before (a Yahtzee
table each: 17 s of a core; ``--cheap``: a Generala table, a quarter of a
second, to fill the folder), without stopping, for ``--seconds`` (60): each
of two connections per address every ``--pause`` seconds (0.25), far more
often than a build takes, so every build place they may take is taken.
Meanwhile a player asks for advice on a built-in variant (the first time
for that variant on that worker, as far as memory goes: SOLVER_TABLES is
2, so tables come back from disk) once a second, and a client scores rolls.

    .venv/bin/python bench/advisor_attack.py [--seconds 60] [--attackers 4] [--cheap]

Prints the share of the player's advice answered 200 within 2 s (target:
at least 95 %), and /score's median latency under attack divided by its
median without it, measured just before in the same run (target: at most
1.5), each with the spread over the run's quarters.

The built-in tables are built first by ``flask advice`` into a folder kept
between runs (build/bench-solver), as a deployment does.
"""

from __future__ import annotations

import argparse
import http.client
import itertools
import json
import os
import random
import statistics
import subprocess
import sys
import threading
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench._http import DEPLOYED, ROOT, gunicorn  # noqa: E402

SCORE = json.dumps({"variant": "generala", "dice": [2, 2, 3, 3, 3], "served": False}).encode()
BUILT_IN = ["generala", "generala-doble", "generala-wiki", "general-pr", "double-cameroon", "yahtzee", "kniffel",
            "yatzy", "yacht"]
TEN = {"double-cameroon"}


def post(port: int, path: str, body: bytes, source: str = "127.0.0.1", timeout: float = 10):
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=timeout, source_address=(source, 0))
    try:
        t = time.perf_counter()
        conn.request("POST", path, body=body, headers={"Content-Type": "application/json"})
        resp = conn.getresponse()
        resp.read()
        return resp.status, time.perf_counter() - t, resp.getheader("Retry-After")
    finally:
        conn.close()


def attacker(port: int, source: str, stop: threading.Event, counts: dict, pause: float, cheap: bool,
             salt: int) -> None:
    """Distinct dear rule sets, one after another, ``pause`` seconds apart (a flood is the proxy's to limit)."""
    for n in itertools.count():
        if stop.is_set():
            return
        n += salt * 100_000
        if cheap:  # a Generala table: a quarter of a second, so many of them, to fill the folder
            rules = {"base": "generala", "served_bonus": n % 100, "points": {"full": 31 + n // 100 % 20,
                                                                              "straight": 20 + n // 2000 % 20}}
        else:
            rules = {"base": "yahtzee", "yahtzee_bonus": 101 + n % 100_000}
        body = json.dumps({"rules": rules, "dice": [1, 2, 3, 4, 5], "roll": 3}).encode()
        try:
            status = post(port, "/api/v1/advice", body, source)[0]
        except OSError:
            status = "error"
        counts[status] = counts.get(status, 0) + 1
        stop.wait(pause)


def player(port: int, stop: threading.Event, out: list) -> None:
    rng = random.Random(7)
    while not stop.is_set():
        variant = rng.choice(BUILT_IN)
        dice = [rng.randint(1, 6) for _ in range(10 if variant in TEN else 5)]
        body = json.dumps({"variant": variant, "dice": dice, "roll": rng.randint(1, 3)}).encode()
        try:
            status, seconds, _ = post(port, "/api/v1/advice", body, "127.0.0.200")
        except OSError:
            status, seconds = "error", 10.0
        out.append((time.monotonic(), status, seconds))
        stop.wait(1.0)


def scorer(port: int, stop: threading.Event, out: list) -> None:
    while not stop.is_set():
        try:
            status, seconds, _ = post(port, "/api/v1/score", SCORE, "127.0.0.201")
            if status == 200:
                out.append((time.monotonic(), seconds))
        except OSError:
            pass
        stop.wait(0.05)


def quarters(rows: list, value, summary=statistics.median) -> list[float]:
    """``summary`` of ``value`` over each quarter of the run: the spread of a figure."""
    if not rows:
        return []
    start, end = rows[0][0], rows[-1][0] + 1e-9
    out = []
    for q in range(4):
        lo, hi = start + (end - start) * q / 4, start + (end - start) * (q + 1) / 4
        part = [value(r) for r in rows if lo <= r[0] < hi]
        if part:
            out.append(summary(part))
    return out


def ok_fast(row) -> float:
    return 1.0 if row[1] == 200 and row[2] <= 2.0 else 0.0


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=60)
    parser.add_argument("--attackers", type=int, default=4, help="addresses attacking, 2 connections each")
    parser.add_argument("--pause", type=float, default=0.25, help="seconds between one connection's requests")
    parser.add_argument("--cheap", action="store_true",
                        help="Generala house rules (built in a quarter second): many tables, to fill the folder")
    args = parser.parse_args()

    folder = ROOT / "build" / "bench-solver"
    instance = ROOT / "build" / "bench-instance"
    folder.mkdir(parents=True, exist_ok=True)
    env = {**os.environ, "ANOTADOR_SOLVER_DIR": str(folder), "ANOTADOR_SOLVER_TABLES": "2",
           "DATABASE_URL": f"sqlite:///{instance / 'attack.sqlite'}", "ANOTADOR_SOLVER_BUILD_AHEAD": "true"}
    instance.mkdir(parents=True, exist_ok=True)
    print("building the built-in tables (kept for the next run)...", flush=True)
    subprocess.run([sys.executable, "-m", "flask", "--app", "wsgi", "advice"], cwd=ROOT, env=env, check=True,
                   stdout=subprocess.DEVNULL)
    with gunicorn("wsgi:app", env={k: v for k, v in env.items() if k.startswith(("ANOTADOR_", "DATABASE_"))},
                  **DEPLOYED) as server:
        port = server.port
        stop = threading.Event()
        calm: list = []
        t = threading.Thread(target=scorer, args=(port, stop, calm))
        t.start()
        time.sleep(min(20.0, args.seconds / 3))
        stop.set()
        t.join()

        stop = threading.Event()
        counts: dict = {}
        attack = [threading.Thread(target=attacker, args=(port, f"127.0.0.{10 + a}", stop, counts, args.pause, args.cheap,
                                                          random.randrange(1000) * 10 + a * 2 + c))
                  for a in range(args.attackers) for c in range(2)]
        advice: list = []
        scored: list = []
        for th in attack:
            th.start()
        time.sleep(2)  # the attack is under way before the player comes
        watchers = [threading.Thread(target=player, args=(port, stop, advice)),
                    threading.Thread(target=scorer, args=(port, stop, scored))]
        for th in watchers:
            th.start()
        time.sleep(args.seconds)
        stop.set()
        for th in attack + watchers:
            th.join()

    share = sum(ok_fast(r) for r in advice) / max(1, len(advice))
    base = statistics.median(s for _, s in calm)
    under = statistics.median(s for _, s in scored)
    print(f"attack: {args.attackers} addresses x 2 connections, {'cheap' if args.cheap else 'dear'} rule sets, "
          f"a request each every {args.pause} s, "
          f"{args.seconds:.0f} s; answers {counts}")
    print(f"built-in advice 200 within 2 s: {share:.1%} of {len(advice)} "
          f"(quarters {', '.join(f'{q:.0%}' for q in quarters(advice, ok_fast, statistics.mean))}; target >= 95 %)")
    slowest = sorted(s for _, _, s in advice)[-3:]
    print(f"  slowest three: {', '.join(f'{s * 1000:.0f} ms' for s in slowest)}")
    ratio = under / base
    spread = [q / base for q in quarters(scored, lambda r: r[1])]
    print(f"/score median: {base * 1000:.2f} ms calm, {under * 1000:.2f} ms under attack: ratio {ratio:.2f} "
          f"[{min(spread):.2f}-{max(spread):.2f} over quarters] (target <= 1.5)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
