"""Benchmark the advisor: table builds, warm answers, and what a table costs in memory and on disk.

1. Build every built-in variant's table, each in a fresh process with one
   BLAS thread as the server builds them, ``--builds`` times (``--big`` for
   Yahtzee, Kniffel and Yatzy): CPU seconds (median and spread) and the
   process's peak resident memory (target < 64 MiB), with the machine's
   baseline (a numpy pass over a million floats) from the same run.
   Yahtzee and Yatzy alternate, round by round, with the ``yatzy-solver``
   package's build of the same game, installed in bench/.venv-peer (not a
   dependency; or $YATZY_SOLVER_PYTHON): the ratio of CPU times (target <= 0.5).
2. Warm advice in process: ``advise()`` on mid-game sheets (target < 0.2 ms
   for five dice, < 2 ms for ten; p99 under 5x the median), beside
   ``RuleSet.score`` on the same rolls.
3. Warm advice over HTTP under scripts/serve's settings (its worker class
   and threads, a keep-alive client), beside /score of the same dice and
   sheet on the same server, in turn (target: within 1.3x of /score at
   p50): one request a random sheet, and a turn's throws in order on one
   sheet as the page asks them.
4. Each table's size in memory and on disk, and a /score call's latency
   while a Yatzy table builds in the background (the build must not slow
   requests beyond a scoring call).
5. Retry-After met: house-rule Generala and Double Cameroon tables built on
   a server whose folder has measured one build of each kind; a client that
   asks again exactly when told (target: the table is there at least 9
   times in 10, a second 503 no more than once per build).

    python bench/advice.py [--builds 3] [--big 3] [--seconds 3] [--retries 12] [--no-peer]
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

from bench._http import DEPLOYED, SERVE_WORKERS, gunicorn, interleaved, load  # noqa: E402
from anotador.advisor.tables import Tables  # noqa: E402
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


#: One build in a fresh process (as the server runs them): its CPU seconds, its peak resident memory
#: (VmHWM: the process's own, from exec) and the empty sheet's expected score.
OURS = """
import json, sys, time
from anotador.rules import find_variant
from anotador.solver import Solver
rules = find_variant(sys.argv[1]).rules()
t = time.process_time()
V = Solver(rules).build()
cpu = time.process_time() - t
peak = next(int(line.split()[1]) for line in open("/proc/self/status") if line.startswith("VmHWM:"))
print(json.dumps({"cpu": cpu, "peak_mib": peak / 1024, "expected": float(V[0])}))
"""
#: The same for the yatzy-solver package (Rust), in its own environment.
PEER = """
import json, sys, time
import yatzy_solver as ys
t = time.process_time()
solver = ys.Solver.build(ys.Variant(sys.argv[1]))
cpu = time.process_time() - t
peak = next(int(line.split()[1]) for line in open("/proc/self/status") if line.startswith("VmHWM:"))
print(json.dumps({"cpu": cpu, "peak_mib": peak / 1024, "expected": solver.state_value("upper 0 | filled -")}))
"""
#: Our variant -> the peer's same game (its forced joker is ours; the published values agree to 1e-13).
PEER_GAMES = {"yahtzee": "american+forced-joker", "yatzy": "yatzy-scandinavian"}
ROOT = Path(__file__).resolve().parents[1]
SINGLE = {**os.environ, "OPENBLAS_NUM_THREADS": "1", "OMP_NUM_THREADS": "1", "MKL_NUM_THREADS": "1"}


def peer_python() -> str | None:
    """A Python with yatzy-solver: $YATZY_SOLVER_PYTHON, or bench/.venv-peer (made here, not a dependency)."""
    import subprocess

    given = os.environ.get("YATZY_SOLVER_PYTHON")
    if given:
        return given
    venv = ROOT / "bench" / ".venv-peer"
    python = venv / "bin" / "python"
    try:
        if not python.exists():
            subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
        subprocess.run([str(python), "-c", "import yatzy_solver"], check=True, capture_output=True)
    except subprocess.CalledProcessError:
        try:
            subprocess.run([str(python), "-m", "pip", "install", "-q", "yatzy-solver"], check=True)
        except (subprocess.CalledProcessError, OSError) as e:
            print(f"  (yatzy-solver could not be installed in {venv}: {e}; no side-by-side figures)")
            return None
    return str(python)


def one_build(python: str, script: str, game: str) -> dict:
    import json
    import subprocess

    out = subprocess.run([python, "-c", script, game], cwd=ROOT, env=SINGLE, capture_output=True, text=True,
                         check=True).stdout
    return json.loads(out)


def builds(args) -> None:
    """Every built-in variant's build, each in a fresh process, one BLAS thread (as the server builds);
    Yahtzee and Yatzy beside the yatzy-solver package's build of the same game, round by round."""
    base = baseline_ms()
    peer = peer_python() if args.peer else None
    print(f"Table builds, a process each, CPU s (baseline: a numpy pass over 1e6 floats = {base:.2f} ms)")
    for variant in VARIANTS:
        n = args.big if variant in BIG else args.builds
        ours, theirs = [], []
        for _ in range(n):
            ours.append(one_build(sys.executable, OURS, variant))
            if peer and variant in PEER_GAMES:
                theirs.append(one_build(peer, PEER, PEER_GAMES[variant]))
        cpu = [r["cpu"] for r in ours]
        line = (f"  {variant:16s} {spread(cpu)}   peak {max(r['peak_mib'] for r in ours):5.1f} MiB (target < 64)"
                f"   E = {ours[0]['expected']:.8f}")
        print(line)
        if theirs:
            peer_cpu = [r["cpu"] for r in theirs]
            ratios = [a / b for a, b in zip(cpu, peer_cpu)]
            print(f"  {'  yatzy-solver':16s} {spread(peer_cpu)}   peak {max(r['peak_mib'] for r in theirs):5.1f} MiB"
                  f"   E = {theirs[0]['expected']:.8f}")
            print(f"  {'  ours / theirs':16s} {spread(ratios)}   (target <= 0.5)")


def tables_for(variants) -> dict[str, np.ndarray]:
    """The tables the warm-advice passes read, built here."""
    return {variant: Solver(find_variant(variant).rules()).build() for variant in variants}


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
        # more sheets than a solver keeps anything of (Solver.POINTS_KEPT), each asked once in a pass, and no
        # turn kept (a Generala's random sheets share states): no call is answered from what an earlier one
        # kept, as a turn's first throw is not
        cases = sheets_and_rolls(rules, 2 * Solver.POINTS_KEPT, rng)
        V = tables[variant]
        solver.turns_max = 1

        def ask(sheet, counts, roll):
            solver._turns_kept.clear()
            return advise(solver, V, sheet, counts, roll)

        def run(fn, repeat):
            passes, at = [], 0
            for _ in range(7):
                t = time.perf_counter()
                for _ in range(repeat):
                    fn(*cases[at % len(cases)])
                    at += 1
                passes.append((time.perf_counter() - t) / repeat * 1000)
            return passes

        repeat = 50 if rules.boxes_per_turn > 1 else 400
        a = run(ask, repeat)
        each = []
        for case in cases[-2000:]:  # one call at a time, for the tail (sheets the passes above did not ask)
            t = time.perf_counter()
            ask(*case)
            each.append((time.perf_counter() - t) * 1000)
        each.sort()
        tail = f"   p50 {each[len(each) // 2]:.3f}  p99 {each[int(len(each) * 0.99)]:.3f}"
        if rules.boxes_per_turn == 1:
            s = run(lambda sheet, counts, roll: rules.score_counts(counts, roll == 1, sheet), repeat)
            ratio = f"   ({statistics.median(a) / statistics.median(s):.0f} x a /score in process)"
        else:
            ratio = ""
        print(f"  {variant:16s} ms: {spread(a)}{tail}{ratio}")


def turns_of(rules, n: int, rng: random.Random) -> list[tuple[dict, tuple[int, ...], int]]:
    """``n`` turns' advice as the page asks for it: a sheet, then each throw of its turn in order (1 to 3 of
    them: a turn ends when the player scores), each with fresh dice."""
    rolls = dice(rules.dice).rolls
    out = []
    for sheet, counts, last in sheets_and_rolls(rules, n, rng):
        for throw in range(1, last + 1):
            out.append((sheet, counts if throw == 1 else rolls[rng.randrange(len(rolls))], throw))
    return out


#: The clients over HTTP: one that asks for no compression (an API client may not), and one that accepts what a
#: browser does (the page; most HTTP libraries ask for gzip at least): advice's answers are long enough to be
#: compressed, a score's are not.
CLIENTS = {"": {}, " (zstd)": {"Accept-Encoding": "gzip, deflate, br, zstd"}}


def over_http(args) -> None:
    folder = tempfile.mkdtemp(prefix="anotador-bench-")
    store = Tables(folder)
    for variant in ("generala", "yahtzee"):
        store.build_now(find_variant(variant).rules())
    rng = random.Random(5)
    # One request a sheet ("sheets": every answer worked out whole), and a turn's throws in order ("turns": the
    # second and third read what the first worked out, as at a table).
    patterns = {"sheets": sheets_and_rolls, "turns": lambda rules, n, rng: turns_of(rules, n // 2, rng)}
    plans = []
    for pattern, made in patterns.items():
        for variant in ("generala", "yahtzee"):
            asked = made(find_variant(variant).rules(), args.bodies, rng)
            advice = [{"variant": variant, "sheet": dict(sheet), "dice": [f for f, c in enumerate(counts, 1)
                       for _ in range(c)], "roll": roll} for sheet, counts, roll in asked]
            # /score of the same dice on the same sheet, served on a first throw: each advice's own baseline
            score = [{"variant": variant, "sheet": b["sheet"], "dice": b["dice"], "served": b["roll"] == 1}
                     for b in advice]
            for client, headers in CLIENTS.items():
                plans += [(f"score {variant} {pattern}{client}", "/api/v1/score", score, headers),
                          (f"advice {variant} {pattern}{client}", "/api/v1/advice", advice, headers)]
    # The two tables it asks for are built above; the other built-in ones, built ahead beside the server, would
    # share its two cores with the requests being timed, unevenly between the rounds.
    env = {"ANOTADOR_SOLVER_DIR": folder, "ANOTADOR_DATABASE_URL": f"sqlite:///{folder}/b.sqlite",
           "ANOTADOR_SOLVER_BUILD_AHEAD": "false"}
    print(f"Warm advice over HTTP (gunicorn as scripts/serve runs it: {SERVE_WORKERS} x "
          f"{DEPLOYED['worker_class'].rsplit('.', 1)[-1]}, {DEPLOYED['threads']} threads; 1 client, keep-alive, "
          f"{args.rounds} x {args.seconds:g}s; each variant's /score and advice of the same dice and sheet, in turn)")
    rounds = []
    with gunicorn("wsgi:app", env=env, **DEPLOYED) as server:
        timed = [(path, bodies, headers) for _, path, bodies, headers in plans]
        interleaved(server.port, timed, 2.0)  # loads the tables, warms both workers
        for _ in range(args.rounds):
            rounds.append(interleaved(server.port, timed, args.seconds))
    for k, (name, _, _, _) in enumerate(plans):
        p50 = [r[k]["p50_ms"] for r in rounds]
        p99 = statistics.median(r[k]["p99_ms"] for r in rounds)
        if name.startswith("score"):
            print(f"  {name:32s} p50 ms: {spread(p50)}   p99 {p99:6.2f} ms")
            continue
        ratio = [r[k]["p50_ms"] / r[k - 1]["p50_ms"] for r in rounds]  # its /score of the same round's seconds
        print(f"  {name:32s} p50 ms: {spread(p50)}   p99 {p99:6.2f} ms   = {spread(ratio)} x its /score")
    sizes = sorted((p.stat().st_size, p.name) for p in Path(folder).glob("*.table"))
    print("Tables on disk: " + ", ".join(f"{s / 1e6:.1f} MB" for s, _ in sizes))


def during_build(args) -> None:
    """/score latency with and without a Yatzy table building beside the server."""
    folder = tempfile.mkdtemp(prefix="anotador-bench-")
    env = {"ANOTADOR_SOLVER_DIR": folder, "ANOTADOR_DATABASE_URL": f"sqlite:///{folder}/b.sqlite"}
    rng = random.Random(9)
    rules = find_variant("generala").rules()
    score_bodies = [{"variant": "generala", "sheet": dict(s), "dice": [f for f, c in enumerate(c, 1) for _ in range(c)],
                     "served": False} for s, c, _ in sheets_and_rolls(rules, args.bodies, rng)]
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


def retry_after_met(args) -> None:
    """How often a build's first Retry-After is met once the folder has measured its kind."""
    folder = tempfile.mkdtemp(prefix="anotador-bench-")
    env = {"ANOTADOR_SOLVER_DIR": folder, "ANOTADOR_DATABASE_URL": f"sqlite:///{folder}/b.sqlite",
           "ANOTADOR_SOLVER_CLIENT_BUILDS_PER_HOUR": "1000", "ANOTADOR_SOLVER_BUILD_AHEAD": "false"}
    from bench._http import request

    def house(base: str, n: int) -> dict:
        if base == "generala":
            return {"rules": {"base": "generala", "served_bonus": n % 100, "points": {"full": 31 + n // 100}},
                    "dice": [1, 2, 3, 4, 5], "roll": 1}
        return {"rules": {"base": "double-cameroon", "points": {"big_cameroon": 31 + n}},
                "dice": [1, 2, 3, 4, 5, 6, 1, 2, 3, 4], "roll": 3}

    print("Retry-After met, once the folder has measured a build of the kind (asked again exactly when told)")
    with gunicorn("wsgi:app", env=env) as server:
        for base, builds in (("generala", args.retries), ("double-cameroon", max(2, args.retries // 4))):
            met, again, told = 0, 0, []
            for n in range(builds + 1):
                status, headers, _ = request(server.port, "POST", "/api/v1/advice", house(base, n))
                first = n > 0  # build 0 measures the kind
                while status == 503:
                    if first:
                        told.append(int(headers["Retry-After"]))
                    time.sleep(int(headers["Retry-After"]))
                    status, headers, _ = request(server.port, "POST", "/api/v1/advice", house(base, n))
                    if first:
                        met += status == 200
                        again += status == 503
                        first = False
            print(f"  {base:16s} met {met}/{builds}   second 503s {again}   Retry-After s: {spread(told)}")


def memory(tables) -> None:
    print("Tables in memory and on disk (float64, one value per reachable state, mapped from the file)")
    from anotador.solver import Space

    for variant, V in tables.items():
        space = Space(find_variant(variant).rules())
        every = (1 << space.nb) * space.U * space.F * V.itemsize
        print(f"  {variant:16s} {V.nbytes / 1e6:7.2f} MB   (a value for every mask, subtotal and flag: "
              f"{every / 1e6:.2f} MB, {V.nbytes / every:.2f}x)")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--builds", type=int, default=3, help="builds of each small table")
    parser.add_argument("--big", type=int, default=3, help="builds of Yahtzee, Kniffel and Yatzy")
    parser.add_argument("--seconds", type=float, default=3.0)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--bodies", type=int, default=5000,
                        help="distinct requests over HTTP, more than a solver keeps of sheets (no answer is a repeat)")
    parser.add_argument("--retries", type=int, default=12, help="house-rule Generala builds timed by Retry-After")
    parser.add_argument("--no-peer", dest="peer", action="store_false", help="skip the yatzy-solver builds")
    args = parser.parse_args()
    builds(args)
    tables = tables_for(("generala", "yahtzee", "yatzy", "double-cameroon"))
    memory(tables)
    warm_in_process(tables, args)
    over_http(args)
    during_build(args)
    retry_after_met(args)


if __name__ == "__main__":
    main()
