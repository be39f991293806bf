"""Benchmark the advisor: table builds, warm answers, and what a table costs in memory and on disk.

1. Build every built-in variant's table in process, ``--builds`` times each
   (median and spread; targets: < 2 s for a five-dice Generala variant,
   < 60 s for Yahtzee), with the same machine's baseline: one pass of numpy
   over a million floats, measured in the same run.
2. Warm advice in process: ``advise()`` on mid-game sheets (target < 0.2 ms
   for five dice, < 2 ms for ten; p99 under 5x the median), beside
   ``RuleSet.score`` on the same rolls.
3. Warm advice over HTTP under scripts/serve's settings, beside /score on
   the same server (target < 5 ms at p50).
4. Each table's size in memory and on disk, and a /score call's latency
   while a Yatzy table builds in the background (the build must not slow
   requests beyond a scoring call).

    python bench/advice.py [--builds 3] [--big 1] [--seconds 3]
"""

from __future__ import annotations

import argparse
import os
import random
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import numpy as np  # noqa: E402

from bench._http import gunicorn, load  # noqa: E402
from anotador.advice import Tables  # noqa: E402
from anotador.rules import VARIANTS, find_variant  # noqa: E402
from anotador.solver import Solver, dice  # noqa: E402
from anotador.solver.advise import advise  # noqa: E402

BIG = ("yahtzee", "kniffel", "yatzy")


def spread(runs: list[float]) -> str:
    return f"median {statistics.median(runs):8.3f}   min {min(runs):8.3f}   max {max(runs):8.3f}"


def baseline_ms(repeat: int = 50) -> float:
    """One numpy pass over a million floats (ms): the machine's speed in this run."""
    a = np.random.default_rng(0).random(1_000_000)
    runs = []
    for _ in range(repeat):
        t = time.perf_counter()
        np.maximum(a, 0.5).sum()
        runs.append((time.perf_counter() - t) * 1000)
    return statistics.median(runs)


def builds(args) -> dict[str, np.ndarray]:
    base = baseline_ms()
    print(f"Table builds, in process (baseline: a numpy pass over 1e6 floats = {base:.2f} ms)")
    tables = {}
    for variant in VARIANTS:
        rules = find_variant(variant).rules()
        n = args.big if variant in BIG else args.builds
        runs = []
        for _ in range(n):
            t = time.perf_counter()
            V = Solver(rules).build()
            runs.append(time.perf_counter() - t)
        tables[variant] = V
        print(f"  {variant:16s} {Solver(rules).space.size:>9,} states  build s: {spread(runs)}  "
              f"= {statistics.median(runs) * 1000 / base:8.0f} baseline passes   E = {V[0]:.4f}")
    return tables


def sheets_and_rolls(rules, n: int, rng: random.Random):
    out = []
    for _ in range(n):
        ids = [b.id for b in rules.boxes]
        closed = rng.sample(ids, rng.randrange(0, len(ids) - rules.boxes_per_turn + 1, rules.boxes_per_turn))
        sheet = {b: 0 for b in closed}
        out.append((rules.check_sheet(sheet), dice(rules.dice).rolls[rng.randrange(len(dice(rules.dice).rolls))],
                    rng.randint(1, 3)))
    return out


def warm_in_process(tables, args) -> None:
    print("Warm advice, in process (median of 7 passes, per call)")
    rng = random.Random(3)
    for variant in ("generala", "yahtzee", "yatzy", "double-cameroon"):
        if variant not in tables:
            continue
        rules = find_variant(variant).rules()
        solver = Solver(rules)
        cases = sheets_and_rolls(rules, 200, rng)
        V = tables[variant]

        def run(fn, repeat):
            passes = []
            for _ in range(7):
                t = time.perf_counter()
                for i in range(repeat):
                    fn(*cases[i % len(cases)])
                passes.append((time.perf_counter() - t) / repeat * 1000)
            return passes

        repeat = 50 if rules.boxes_per_turn > 1 else 400
        a = run(lambda sheet, counts, roll: advise(solver, V, sheet, counts, roll), repeat)
        each = []
        for case in cases:  # one call at a time, for the tail
            t = time.perf_counter()
            advise(solver, V, *case)
            each.append((time.perf_counter() - t) * 1000)
        each.sort()
        tail = f"   p50 {each[len(each) // 2]:.3f}  p99 {each[int(len(each) * 0.99)]:.3f}"
        if rules.boxes_per_turn == 1:
            s = run(lambda sheet, counts, roll: rules.score_counts(counts, roll == 1, sheet), repeat)
            ratio = f"   ({statistics.median(a) / statistics.median(s):.0f} x a /score in process)"
        else:
            ratio = ""
        print(f"  {variant:16s} ms: {spread(a)}{tail}{ratio}")


def over_http(args) -> None:
    folder = tempfile.mkdtemp(prefix="anotador-bench-")
    store = Tables(folder)
    for variant in ("generala", "yahtzee"):
        store.build_now(find_variant(variant).rules())
    rng = random.Random(5)
    bodies = {}
    for variant in ("generala", "yahtzee"):
        rules = find_variant(variant).rules()
        bodies[variant] = [{"variant": variant, "sheet": dict(sheet), "dice": [f for f, c in enumerate(counts, 1)
                            for _ in range(c)], "roll": roll} for sheet, counts, roll in sheets_and_rolls(rules, 100, rng)]
    score_bodies = [{"variant": b["variant"], "sheet": b["sheet"], "dice": b["dice"], "served": b["roll"] == 1}
                    for b in bodies["generala"]]
    env = {"ANOTADOR_SOLVER_DIR": folder, "ANOTADOR_DATABASE_URL": f"sqlite:///{folder}/b.sqlite"}
    print(f"Warm advice over HTTP (gunicorn, scripts/serve's settings, 1 client, {args.rounds} x {args.seconds:g}s, "
          "alternating with /score)")
    results = {"score": [], "advice generala": [], "advice yahtzee": []}
    with gunicorn("wsgi:app", env=env) as server:
        load(server.port, "/api/v1/advice", bodies["generala"] + bodies["yahtzee"], 1, 1.0)  # loads the tables
        load(server.port, "/api/v1/score", score_bodies, 1, 1.0)
        for _ in range(args.rounds):
            results["score"].append(load(server.port, "/api/v1/score", score_bodies, 1, args.seconds))
            results["advice generala"].append(load(server.port, "/api/v1/advice", bodies["generala"], 1, args.seconds))
            results["advice yahtzee"].append(load(server.port, "/api/v1/advice", bodies["yahtzee"], 1, args.seconds))
    base = statistics.median(r["p50_ms"] for r in results["score"])
    for name, runs in results.items():
        p50 = [r["p50_ms"] for r in runs]
        p99 = statistics.median(r["p99_ms"] for r in runs)
        print(f"  {name:16s} p50 ms: {spread(p50)}   p99 {p99:6.2f} ms   = {statistics.median(p50) / base:4.1f} x /score")
    sizes = sorted((p.stat().st_size, p.name) for p in Path(folder).glob("*.table"))
    print("Tables on disk: " + ", ".join(f"{s / 1e6:.1f} MB" for s, _ in sizes))


def during_build(args) -> None:
    """/score latency with and without a Yatzy table building beside the server."""
    folder = tempfile.mkdtemp(prefix="anotador-bench-")
    env = {"ANOTADOR_SOLVER_DIR": folder, "ANOTADOR_DATABASE_URL": f"sqlite:///{folder}/b.sqlite"}
    rng = random.Random(9)
    rules = find_variant("generala").rules()
    score_bodies = [{"variant": "generala", "sheet": dict(s), "dice": [f for f, c in enumerate(c, 1) for _ in range(c)],
                     "served": False} for s, c, _ in sheets_and_rolls(rules, 100, rng)]
    from bench._http import request

    print("/score while a Yatzy table builds (its own process, one core, lower priority)")
    with gunicorn("wsgi:app", env=env) as server:
        load(server.port, "/api/v1/score", score_bodies, 1, 1.0)
        quiet = [load(server.port, "/api/v1/score", score_bodies, 1, args.seconds)["p50_ms"] for _ in range(args.rounds)]
        status, headers, _ = request(server.port, "POST", "/api/v1/advice",
                                     {"variant": "yatzy", "dice": [1, 2, 3, 4, 5], "roll": 1})
        busy = [load(server.port, "/api/v1/score", score_bodies, 1, args.seconds)["p50_ms"] for _ in range(args.rounds)]
        print(f"  the build started: {status}, Retry-After {headers.get('Retry-After')} s")
    print(f"  quiet  p50 ms: {spread(quiet)}")
    print(f"  busy   p50 ms: {spread(busy)}   = {statistics.median(busy) / statistics.median(quiet):4.2f} x quiet")


def memory(tables) -> None:
    print("Tables in memory (float64, one value per state)")
    for variant, V in tables.items():
        print(f"  {variant:16s} {V.nbytes / 1e6:7.2f} MB")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--builds", type=int, default=3, help="builds of each small table")
    parser.add_argument("--big", type=int, default=1, help="builds of Yahtzee, Kniffel and Yatzy")
    parser.add_argument("--seconds", type=float, default=3.0)
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    tables = builds(args)
    memory(tables)
    warm_in_process(tables, args)
    over_http(args)
    during_build(args)


if __name__ == "__main__":
    main()
