"""Benchmark who is winning (anotador.solver.chances), in process, and check it against a large simulation.

1. Each exact rule set's outlook, made from its advisor's table (once per
   worker): CPU seconds, median of ``--rounds`` with the spread, beside the
   table's own build.
2. A game's chances at the start, the middle and the end of a six-player
   (and a twelve-player) game: milliseconds per call, median of passes with
   the spread and p99, and as a ratio to one warm ``advise`` call measured
   in the same run (target: six-player generala under 20 ms).
3. Play to win: the exact answer (every other sheet full) with 1 to 4 boxes
   open, and the approximate one (others still to play), milliseconds per
   request beside one advise call.
4. ``--games N``: ten fixed positions (2, 3 and 6 players; early, middle,
   late), each against a seeded simulation of N games played through advice
   and the rules engine (tests/chances_sim.py); prints each player's exact
   chance, the simulated one, and the difference in standard errors.

5. ``--yahtzee REPEATS``: the Yahtzee family before its last rounds, sampled
   (bench/chances_yahtzee.py --sampled): the outcomes' build in a process of
   its own, then nine fixed positions' first answer and a poll after a turn
   (target: under 100 ms), against their 10^6-game reference.

    python bench/chances.py [--rounds 3] [--games 2000] [--yahtzee 5]
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from anotador.rules import Game, find_variant  # noqa: E402
from anotador.rules.boxes import count  # noqa: E402
from anotador.solver import Solver  # noqa: E402
from anotador.solver.advise import advise  # noqa: E402
from anotador.solver.chances import Outlook, game_chances  # noqa: E402
from anotador.solver.towin import to_win, to_win_now  # noqa: E402
from tests.chances_sim import Player, play_turn, simulate  # noqa: E402

EXACT = ("generala", "generala-doble", "generala-wiki", "general-pr", "yacht")


def spread(values: list[float]) -> str:
    return f"{statistics.median(values):.3f} ({min(values):.3f}-{max(values):.3f})"


def builds(rounds: int) -> dict[str, tuple]:
    out = {}
    print("outlook builds, CPU s: median (min-max)")
    for variant in EXACT:
        rules = find_variant(variant).rules()
        solver = Solver(rules)
        table, outlook = [], []
        for _ in range(rounds):
            t = time.process_time()
            V = solver.build()
            table.append(time.process_time() - t)
            t = time.process_time()
            made = Outlook(solver, V)
            outlook.append(time.process_time() - t)
        out[variant] = solver, V, made
        print(f"  {variant:15} table {spread(table)}   outlook {spread(outlook)}   "
              f"ratio {statistics.median(outlook) / statistics.median(table):.1f}x the table")
    return out


def timed(call, passes: int = 7, per_pass: int = 20) -> tuple[list[float], float]:
    """Milliseconds per call: each pass's median, and the p99 over every call."""
    every, medians = [], []
    for _ in range(passes):
        times = []
        for _ in range(per_pass):
            t = time.perf_counter()
            call()
            times.append((time.perf_counter() - t) * 1e3)
        medians.append(statistics.median(times))
        every += times
    return medians, float(np.percentile(every, 99))


def speeds(made: dict) -> None:
    print("a game's chances, ms per call: median of passes (min-max), p99; ratio to one advise call")
    for variant in ("generala", "generala-doble", "yacht"):
        solver, V, outlook = made[variant]
        base, _ = timed(lambda: advise(solver, V, {"ones": 3}, count([3, 3, 3, 5, 6]), 1))
        floor = statistics.median(base)
        for players in (6, 12):
            game = Game(solver.rules, players, start=1)
            me, rng = Player(solver, V), random.Random(players)
            for label, until in (("start", 0), ("middle", game.total_turns // 2), ("end", game.total_turns - 2)):
                while game.turns < until and game.turn() is not None:
                    play_turn(game, me, rng)
                medians, p99 = timed(lambda: game_chances(outlook, game))
                print(f"  {variant:15} {players:2} players, {label:6} {spread(medians)} ms, p99 {p99:.3f} ms, "
                      f"{statistics.median(medians) / floor:.1f}x advise ({floor:.3f} ms)")


def play_to_win(made: dict) -> None:
    print("play to win, ms per request: median of passes (min-max), p99; ratio to one advise call")
    for variant in ("generala", "generala-doble"):
        solver, V, outlook = made[variant]
        ids = [b.id for b in solver.rules.boxes]
        full = {b: 0 for b in ids}
        floor = statistics.median(timed(lambda: advise(solver, V, {"ones": 3}, count([3, 3, 3, 5, 6]), 1))[0])
        for open_boxes in (1, 2, 3, 4):
            sheet = {b: 0 for b in ids[open_boxes:]}
            medians, p99 = timed(lambda: to_win(solver, sheet, 0, [(full, 0)], count([1, 1, 3, 4, 6]), 2),
                                 passes=3, per_pass=3)
            print(f"  {variant:15} exact, {open_boxes} open  {spread(medians)} ms, p99 {p99:.1f} ms, "
                  f"{statistics.median(medians) / floor:.0f}x advise")
        mine, rival = {b: 0 for b in ids[:5]}, {b: 0 for b in ids[:4]}
        medians, p99 = timed(lambda: to_win_now(solver, V, outlook, mine, 0, [(rival, 0)] * 5, count([1, 1, 3, 4, 6]),
                                                2), passes=5, per_pass=5)
        print(f"  {variant:15} approximate, 6 players, a keep to choose  {spread(medians)} ms, p99 {p99:.1f} ms, "
              f"{statistics.median(medians) / floor:.0f}x advise")


#: Ten fixed positions: (variant, seat that started, turns played by the advisor from the start, players, seed).
POSITIONS = [("generala", 0, 2, 2, 1), ("generala", 1, 9, 2, 2), ("generala", 0, 16, 2, 3),
             ("generala", 0, 3, 3, 4), ("generala", 2, 15, 3, 5), ("generala", 1, 25, 3, 6),
             ("generala-doble", 0, 30, 6, 7), ("generala-doble", 3, 55, 6, 8), ("general-pr", 0, 12, 3, 9),
             ("yacht", 0, 14, 2, 10)]


def against_simulation(made: dict, games: int) -> None:
    print(f"exact against a seeded simulation of {games} games: each player's chance, exact / simulated (z)")
    worst = 0.0
    for variant, start, turns, players, seed in POSITIONS:
        solver, V, outlook = made[variant]
        game = Game(solver.rules, players, start=start)
        me, rng = Player(solver, V), random.Random(seed)
        while game.turns < turns and game.turn() is not None:
            play_turn(game, me, rng)
        exact = np.array([c.chance for c in game_chances(outlook, game)])
        t = time.perf_counter()
        shares = simulate(game, me, games, seed)
        mean = shares.mean(axis=0)
        error = np.maximum(shares.std(axis=0) / np.sqrt(games), 1e-9)
        z = (mean - exact) / error
        worst = max(worst, float(np.abs(mean - exact).max()))
        cells = "  ".join(f"{e:.4f}/{m:.4f} ({zz:+.1f})" for e, m, zz in zip(exact, mean, z))
        print(f"  {variant:15} {players} players after {turns:2} turns: {cells}   [{time.perf_counter() - t:.0f} s]")
    print(f"largest difference: {worst * 100:.2f} percentage points")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--games", type=int, default=2000, help="games per position in the simulation; 0 skips it")
    parser.add_argument("--yahtzee", type=int, default=0, metavar="REPEATS",
                        help="the Yahtzee family's sampled chances, each position timed REPEATS times; 0 skips it")
    args = parser.parse_args()
    made = builds(args.rounds)
    speeds(made)
    play_to_win(made)
    if args.games:
        against_simulation(made, args.games)
    if args.yahtzee:
        from bench.chances_yahtzee import sampled

        solver = Solver(find_variant("yahtzee").rules())
        sampled(solver, solver.build(), args.yahtzee)


if __name__ == "__main__":
    main()
