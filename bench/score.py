"""Benchmark POST /api/v1/score against a parse-and-echo Flask app.

Both run under the same gunicorn settings and are driven by the same client
at the same concurrency, alternating, in one run; the ratio of throughputs
says how much scoring costs on top of the framework (target: >= 0.9 with the
gunicorn's gthread workers, 4 threads each). The
same pair is measured with plain sync workers too, for comparison. Then the
in-process cost of scoring one roll on a sheet (target: < 20 us), beside a
baseline call measured in the same run, as the median of 7 passes with their
spread: the figure moves with the machine's other load and CPU frequency.

    python bench/score.py [--seconds 5] [--concurrency 4] [--rounds 2]
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench._http import SERVE_WORKERS, gunicorn, load  # noqa: E402
from anotador.rules import find_variant  # noqa: E402


def requests(n: int = 200, seed: int = 7) -> list[dict]:
    """Realistic score requests: mid-game sheets, a mix of variants."""
    rnd = random.Random(seed)
    out = []
    for _ in range(n):
        variant = rnd.choice(["generala", "generala-doble", "generala-wiki", "general-pr"])
        rules = find_variant(variant).rules()
        closed = rnd.sample([b.id for b in rules.boxes], rnd.randint(0, len(rules.boxes) - 1))
        sheet = {b: 0 for b in closed}
        out.append({"variant": variant, "dice": [rnd.randint(1, 6) for _ in range(5)],
                    "served": rnd.random() < 0.3, "sheet": sheet})
    return out


def in_process(reqs: list[dict], repeat: int = 20_000) -> tuple[list[float], list[float]]:
    """µs per scored roll, and per baseline call (sorting the dice): 7 passes each, interleaved."""
    prepared = [(find_variant(r["variant"]).rules(), r["dice"], r["served"], r["sheet"]) for r in reqs]

    def timed(fn) -> float:
        t = time.perf_counter()
        for i in range(repeat):
            fn(*prepared[i % len(prepared)])
        return (time.perf_counter() - t) / repeat * 1e6

    score, base = [], []
    for _ in range(7):  # interleaved: a slow moment of the machine hits both
        score.append(timed(lambda rules, dice, served, sheet: rules.score(dice, served, sheet)))
        base.append(timed(lambda rules, dice, served, sheet: sorted(dice)))
    return score, base


def http_round(worker_class: str, reqs: list[dict], args: argparse.Namespace) -> float:
    """Drive echo and score under ``worker_class``; print figures, return the ratio."""
    results: dict[str, list[dict]] = {"echo": [], "score": []}
    threads = 1 if worker_class == "sync" else 4
    with gunicorn("bench.echo_app:app", worker_class=worker_class, threads=threads) as echo, \
            gunicorn("wsgi:app", worker_class=worker_class, threads=threads) as scorer:
        echo_port, score_port = echo.port, scorer.port
        load(echo_port, "/api/v1/score", reqs, args.concurrency, 1.0)   # warm up both
        load(score_port, "/api/v1/score", reqs, args.concurrency, 1.0)
        for _ in range(args.rounds):  # alternate so drift hits both alike
            results["echo"].append(load(echo_port, "/api/v1/score", reqs, args.concurrency, args.seconds))
            results["score"].append(load(score_port, "/api/v1/score", reqs, args.concurrency, args.seconds))
    print(f"HTTP, gunicorn {SERVE_WORKERS} {worker_class} workers, {args.concurrency} client processes, "
          f"{args.rounds} x {args.seconds:g}s each, alternating")
    for name, runs in results.items():
        rps = statistics.median(r["rps"] for r in runs)
        p50 = statistics.median(r["p50_ms"] for r in runs)
        p99 = statistics.median(r["p99_ms"] for r in runs)
        print(f"  {name:5s}  {rps:8.0f} req/s   p50 {p50:6.2f} ms   p99 {p99:6.2f} ms")
    return statistics.median(r["rps"] for r in results["score"]) / statistics.median(
        r["rps"] for r in results["echo"])


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seconds", type=float, default=5.0)
    ap.add_argument("--concurrency", type=int, default=4)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--worker-classes", default="gthread,sync",
                    help="gunicorn worker classes to measure; the first is the deployed one (scripts/serve)")
    args = ap.parse_args()

    reqs = requests()
    for i, worker_class in enumerate(args.worker_classes.split(",")):
        ratio = http_round(worker_class, reqs, args)
        target = "   (target >= 0.9: the deployed setting)" if i == 0 else "   (for comparison)"
        print(f"  ratio score/echo = {ratio:.3f}{target}")

    score, base = in_process(reqs)
    ratios = [s / b for s, b in zip(score, base)]
    print("In process, one roll scored against a mid-game sheet (7 interleaved passes):")
    print(f"  score  median {statistics.median(score):6.2f} us [{min(score):.2f}-{max(score):.2f}]   (target < 20 us)")
    print(f"  sorted(dice) baseline median {statistics.median(base):6.2f} us [{min(base):.2f}-{max(base):.2f}]   "
          f"ratio {statistics.median(ratios):.1f}x [{min(ratios):.1f}-{max(ratios):.1f}]")


if __name__ == "__main__":
    main()
