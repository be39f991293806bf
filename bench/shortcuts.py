"""Benchmark: what each of the service's speed-ups buys, measured against the plain way it replaces.

For each speed-up, two gunicorns (2 gthread
processes, 4 threads each) on fresh databases (SQLite, or ``--database postgresql``): the service as it is,
and the service with that one speed-up undone (bench/shortcuts_app.py). The
same client processes drive the request the speed-up is for, the two
servers taking turns round by round so drift hits both alike. Printed per
speed-up: each side's median and spread, and the gain (with / without,
per round) whose median and spread say whether it is outside the noise.
docs/speed.md lists them with what each replaces.

    python bench/shortcuts.py [--only orjson,polls] [--database sqlite] [--seconds 3] [--rounds 5] [--concurrency 4]
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench._http import DEPLOYED, SERVE_WORKERS, gunicorn, load  # noqa: E402
from bench.games import fresh_database  # noqa: E402
from bench.reads import finished_game  # noqa: E402
from bench.score import requests as score_requests  # noqa: E402

#: Each speed-up, and the request it is for.
SHORTCUTS = {
    "orjson": "score",
    "ensure_sync": "score",
    "sessions": "score",
    "fastloader": "score",
    "polls": "poll",
    "kept": "game",
    # the four that each buy /score less than its noise, undone together
    "orjson+ensure_sync+sessions+fastloader": "score",
}


def measure(port: int, what: str, seconds: float, concurrency: int, context: dict) -> float:
    """Requests a second (``score``, ``poll``), or turns a second of one client playing a game (``game``)."""
    if what == "score":
        return load(port, "/api/v1/score", context["scores"], concurrency, seconds)["rps"]
    if what == "poll":
        game, tag = context[port]
        return load(port, f"/api/v1/games/{game}", [None], concurrency, seconds, method="GET",
                    headers={"If-None-Match": tag})["rps"]
    started, turns = time.perf_counter(), 0
    while time.perf_counter() - started < seconds:
        finished_game(port)
        turns += 66  # six players, eleven boxes
    return turns / (time.perf_counter() - started)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--only", default="")
    ap.add_argument("--seconds", type=float, default=3.0)
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--concurrency", type=int, default=4)
    ap.add_argument("--database", default="sqlite", choices=["sqlite", "postgresql"])
    args = ap.parse_args()
    chosen = [s for s in SHORTCUTS if not args.only or s in args.only.split(",")]
    print(f"gunicorn {SERVE_WORKERS} x {DEPLOYED['worker_class'].rsplit('.', 1)[-1]} ({DEPLOYED['threads']} threads), "
          f"{args.database}; {args.rounds} rounds of {args.seconds:g} s a side, alternating; gain = with / without")
    context = {"scores": score_requests()}
    for name in chosen:
        what = SHORTCUTS[name]
        with tempfile.TemporaryDirectory() as folder:
            servers = []
            for side, without in (("with", ""), ("without", name.replace("+", ","))):
                url = fresh_database(args.database, folder, f"{side}_{len(servers)}")
                env = {"DATABASE_URL": url, "ANOTADOR_GAMES_PER_MINUTE": "0", "ANOTADOR_SOLVER_DIR": folder,
                       "ANOTADOR_SOLVER_BUILD_AHEAD": "false", "BENCH_WITHOUT": without}
                servers.append(gunicorn("bench.shortcuts_app:app", env=env, **DEPLOYED))
            with servers[0] as on, servers[1] as off:
                for server in (on, off):
                    if what == "poll":
                        context[server.port] = finished_game(server.port)
                    measure(server.port, what, 0.5, args.concurrency, context)  # every worker warm
                runs: dict[str, list[float]] = {"with": [], "without": []}
                for _ in range(args.rounds):
                    runs["with"].append(measure(on.port, what, args.seconds, args.concurrency, context))
                    runs["without"].append(measure(off.port, what, args.seconds, args.concurrency, context))
        gains = [a / b for a, b in zip(runs["with"], runs["without"])]
        unit = "turns/s" if what == "game" else "req/s"
        sides = "  ".join(f"{side} {statistics.median(v):7.0f} [{min(v):.0f}-{max(v):.0f}]" for side, v in runs.items())
        noise = "inside the noise" if min(gains) <= 1.0 <= max(gains) else "outside the noise"
        print(f"  {name:12s} {what:5s} {unit:7s} {sides}  gain {statistics.median(gains):.2f} "
              f"[{min(gains):.2f}-{max(gains):.2f}] {noise}", flush=True)


if __name__ == "__main__":
    main()
