"""What chances for the Yahtzee family cost: the measurements behind docs/chances.md's "The Yahtzee family" (exact in the last rounds).

Its sheets hold the upper subtotal and the Yahtzee flag as well as the boxes,
so the Generala family's outlook (every state's distribution, made once) does
not fit. This measures the two candidates on random two-player positions
with ``--open`` boxes left each (the other player's points set so that the
game is close):

1. Exact from the sheets in play: each state's distribution of points to
   come, by the policy's turn followed forward (``turn_outcomes``), over the
   states reachable from the players' sheets only, memoised. Prints how
   many states that takes per player and the seconds of a core.
2. A normal with the same mean and variance (which a table of second
   moments would give for every state), against the exact chance: the
   largest error in percentage points. The issue asks for under 1.

3. What the server does (anotador.solver.late.LateOutlook, the last four
   rounds): a game's chances for 2 and 6 players with 4 to 1 boxes open each,
   the first time (nothing worked out yet) and again (each state kept), in
   milliseconds, median of 5 random games with the spread, beside one warm
   ``advise`` call measured in the same run.
4. What every state's turn outcomes would cost (``--levels``): whole levels
   of states (each sheet with that many boxes closed) followed forward
   together (anotador.solver.forward), CPU microseconds a state and outcomes
   a state: the transition table a simulation of 10^6 games, or any
   early-game method, would read.

5. A reference simulation (``--games N``): N games of one sheet played out
   under the policy, every game a turn at a time together: each turn's
   outcome drawn from the chances its state's turn leads to (the same
   outcomes, worked out once per state met, a level at a time), so no die
   is thrown. From the empty sheet its mean against the table's expected
   score, and from sheets four boxes from the end its chances against the
   exact ones (``LateOutlook``), in standard errors; the seconds it took.
   What an early-game method would be held to.

6. An early-game method, measured (``--sampled GAMES``): a table of every
   state's turn outcomes, made once, and each player's final total sampled
   from it, GAMES games a player; the nine fixed positions of
   tests/yahtzee_positions.json against their 10^6-game reference, in
   percentage points, with the milliseconds it took.

    python bench/chances_yahtzee.py [--variant yahtzee] [--open 2 4 6] [--positions 8] [--levels 3 6 9]
                                    [--games 1000000] [--sampled 40000]

Measured 2026-12-04 (``--games 1000000``): 10^6 Yahtzee games from the
empty sheet in 15.1 CPU-s (314 MB at the peak), mean 254.642 against the
table's 254.588 (+0.9 standard errors); three three-player positions four
boxes from the end, the exact chances within 2 standard errors (0.09 pp at
the most). ``--sampled 40000``: the table of every Yahtzee state's turn in
33.8 CPU-s, 190 MB (18.6 million outcomes); the nine positions within 0.23
pp of the reference, in 11-99 ms for two and three players and 41-245 ms
for six (805 MB at the peak, the table's making included).

Measured 2026-12-04 (``--levels 3 6 9``): 55 us a state in whole levels
(0.11 ms in a game's batches of ~100, 0.37 ms one at a time), 28 to 45
outcomes a state: every Yahtzee state's turn in about 30 CPU-s, about 21
million outcomes.

Measured on this machine (Yahtzee, two players, 8 positions; 3 for 8 open):
2 open: 8 states a player, a normal off by up to 22.9 pp; 4 open: 77 states,
0.05 CPU-s, 17.4 pp; 6 open: 547 states, 0.4 s, 14.4 pp; 8 open: 2,900
states, 2.2 s, 1.6 pp (an earlier run of other positions: 5.8 pp). Exact is
cheap for the last rounds; a normal is no substitute at any point measured.
"""

from __future__ import annotations

import argparse
import math
import random
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from anotador.rules import find_variant  # noqa: E402
from anotador.solver import Solver  # noqa: E402
from anotador.solver.chances import turn_outcomes  # noqa: E402


class Exact:
    """Each state's distribution of points to come under the advisor's policy, worked out on demand."""

    def __init__(self, solver: Solver, V: np.ndarray) -> None:
        self.solver, self.V, self.space = solver, V, solver.space
        # every box's most and the section bonuses, and room for three bonuses of rolls (100 each in Yahtzee):
        # what lies past it is left out, and main() says how much that was
        self.P = sum(max(p) for p in self.space.possible) + 1 + int(sum(points for _, _, points in self.space.sections)) + 300
        self.memo: dict[int, np.ndarray] = {}

    def of(self, state: int) -> np.ndarray:
        found = self.memo.get(state)
        if found is not None:
            return found
        mask, u, flags = self.space.parts(state)
        out = np.zeros(self.P)
        if mask == (1 << self.space.nb) - 1:
            out[int(self.space.bonus(np.array([u]))[0])] = 1.0  # the section bonuses a full sheet earns
        else:
            turn = turn_outcomes(self.solver, self.V, mask, u, flags)
            for after, points, chance in zip(turn.after.tolist(), turn.points.tolist(), turn.chance.tolist()):
                rest = self.of(after)
                out[points:] += chance * rest[:self.P - points]  # points past P: bonuses of rolls, far in the tail
        self.memo[state] = out
        return out


def win_exact(a: np.ndarray, base_a: int, b: np.ndarray, base_b: int) -> float:
    """A's chance to end above B, a tie counted half."""
    width = len(a) + max(base_a, base_b) + 1
    A, B = np.zeros(width), np.zeros(width)
    A[base_a:base_a + len(a)], B[base_b:base_b + len(b)] = a, b
    return float(A @ (np.cumsum(B) - B) + 0.5 * A @ B)


def win_normal(a: np.ndarray, base_a: int, b: np.ndarray, base_b: int) -> float:
    x = np.arange(len(a))
    ma, mb = a @ x, b @ x
    spread = math.sqrt(a @ x ** 2 - ma ** 2 + b @ x ** 2 - mb ** 2) or 1e-9
    return 0.5 * (1 + math.erf((base_a + ma - base_b - mb) / spread / math.sqrt(2)))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--variant", default="yahtzee")
    parser.add_argument("--open", type=int, nargs="+", default=[2, 4, 6])
    parser.add_argument("--positions", type=int, default=8)
    parser.add_argument("--levels", type=int, nargs="*", default=[],
                        help="boxes closed: every state with that many followed forward together")
    parser.add_argument("--games", type=int, default=0, help="games of the reference simulation (0: none)")
    parser.add_argument("--write-positions", metavar="PATH",
                        help="simulate tests/yahtzee_positions.json's positions (--games each) and write it")
    parser.add_argument("--sampled", type=int, default=0, metavar="REPEATS",
                        help="6.: the served early-game chances (anotador.solver.sampled): the outcomes' build, then "
                             "the fixed positions against their reference, each timed REPEATS times")
    args = parser.parse_args()
    if args.sampled:
        solver = Solver(find_variant("yahtzee").rules())
        sampled(solver, solver.build(), args.sampled)
        return
    if args.write_positions:
        solver = Solver(find_variant("yahtzee").rules())
        write_positions(solver, solver.build(), args.games or 1_000_000, args.write_positions)
        return
    rules = find_variant(args.variant).rules()
    solver = Solver(rules)
    t = time.process_time()
    V = solver.build()
    print(f"{args.variant}: table built in {time.process_time() - t:.1f} CPU-s")
    ids = [b.id for b in rules.boxes]
    for open_boxes in args.open:
        exact, rng = Exact(solver, V), random.Random(open_boxes)
        worst, lost, t = 0.0, 0.0, time.process_time()
        for _ in range(args.positions):
            sheets = [rules.check_sheet({b: rng.choice(sorted(rules.possible_points[b]))
                                         for b in rng.sample(ids, len(ids) - open_boxes)}) for _ in range(2)]
            a, b = (exact.of(solver.space.state_of(s)) for s in sheets)
            x = np.arange(exact.P)
            base_a = sum(sheets[0].values())
            base_b = max(0, int(round(base_a + a @ x - b @ x + rng.uniform(-20, 20))))  # a close game
            worst = max(worst, abs(win_exact(a, base_a, b, base_b) - win_normal(a, base_a, b, base_b)))
            lost = max(lost, 1 - a.sum(), 1 - b.sum())
        seconds = time.process_time() - t
        players = 2 * args.positions
        print(f"  {open_boxes:2} boxes open: {len(exact.memo) / players:7.0f} states a player, "
              f"{seconds / players:6.2f} CPU-s a player; a normal is off by up to {worst * 100:5.1f} pp "
              f"(mass past the tail: {lost:.1e})")
    served(solver, V)
    levels(solver, V, args.levels)
    if args.games:
        reference(solver, V, args.games)


def play_out(solver: Solver, V: np.ndarray, start: int, games: int, rng: np.random.Generator) -> np.ndarray:
    """The points still to come (bonuses included) in ``games`` games of the sheet at state ``start``, under the
    policy: every game's turn drawn at once from its state's outcomes (anotador.solver.forward), a level at a
    time; a full sheet's section bonus is its table value."""
    from anotador.solver import forward

    space, full = solver.space, (1 << solver.space.nb) - 1
    state = np.full(games, start, dtype=np.int64)
    points = np.zeros(games, dtype=np.int64)
    while True:
        here, which = np.unique(state, return_inverse=True)
        parts = [space.parts(s) for s in here.tolist()]
        if parts[0][0] == full:  # every game is as far as every other: a turn each
            return points + V[state].round().astype(np.int64)
        mask, u, flags = (np.array(a, dtype=np.int64) for a in zip(*parts))
        found = forward.outcomes(solver, V, mask, u, flags)
        sizes = np.array([len(o[0]) for o in found])
        starts = np.concatenate(([0], np.cumsum(sizes)[:-1]))
        after = np.concatenate([o[0] for o in found])
        gained = np.concatenate([o[1] for o in found])
        # each state's outcomes' chances summed along, each state's run lifted by its number: one search for all
        cdf = np.concatenate([np.minimum(np.cumsum(o[2]), 1.0) + k for k, o in enumerate(found)])
        pick = np.searchsorted(cdf, which + rng.random(games) * (1 - 1e-12), side="right")
        pick = np.minimum(pick, starts[which] + sizes[which] - 1)
        state, points = after[pick], points + gained[pick]


#: The fixed positions (players, boxes open each before the round, players who have played this round): early,
#: middle and late, two, three and six players.
POSITIONS = [(2, 12, 1), (3, 11, 2), (6, 12, 3), (2, 8, 0), (3, 7, 1), (6, 8, 4), (2, 4, 1), (3, 3, 0), (6, 4, 2)]


def simulated_chances(solver: Solver, V: np.ndarray, sheets, games: int, rng) -> tuple[np.ndarray, np.ndarray]:
    """Each player's share of the win over ``games`` games played out from ``sheets`` (players are independent:
    no instant win in the Yahtzee family), and its standard error."""
    return shares(np.stack([sum(s.values()) + play_out(solver, V, solver.space.state_of(s), games, rng)
                            for s in sheets]))


def shares(ends: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Each player's share of the win over games (players x games of final totals; a tie shared), and its
    standard error."""
    best = ends.max(axis=0)
    share = (ends == best) / (ends == best).sum(axis=0)
    return share.mean(axis=1), share.std(axis=1) / math.sqrt(ends.shape[1])


def write_positions(solver: Solver, V: np.ndarray, games: int, path: str) -> None:
    """The fixed positions' chances from ``games`` simulated games each (seeded), written for tests/."""
    import json

    rules, ids = solver.rules, [b.id for b in solver.rules.boxes]
    rng, pyrng = np.random.default_rng(2026), random.Random(2026)
    out = []
    for players, open_boxes, ahead in POSITIONS:
        sheets = []
        for seat in range(players):
            left = open_boxes - (seat < ahead)
            sheets.append(rules.check_sheet({b: pyrng.choice(sorted(rules.possible_points[b]))
                                             for b in pyrng.sample(ids, len(ids) - left)}))
        t = time.process_time()
        chances, error = simulated_chances(solver, V, sheets, games, rng)
        print(f"  {players} players, {open_boxes} open: {np.round(chances, 4)} "
              f"(standard errors {np.round(error, 4)}), {time.process_time() - t:.1f} CPU-s")
        out.append({"players": players, "open": open_boxes, "played_this_round": ahead, "sheets": sheets,
                    "chances": [round(float(c), 6) for c in chances],
                    "standard_errors": [round(float(e), 6) for e in error]})
    with open(path, "w") as f:
        json.dump({"variant": "yahtzee", "games": games, "seed": 2026,
                   "made_by": f"python bench/chances_yahtzee.py --games {games} --write-positions {path}",
                   "positions": out}, f, indent=1)
        f.write("\n")


def sampled(solver: Solver, V: np.ndarray, repeats: int) -> None:
    """6.: what a server does before the last rounds (anotador.solver.sampled): the outcomes file written by the
    build process, then the nine fixed positions' chances, the first answer (no sheet kept) and a poll after a
    turn (one sheet new), medians of ``repeats`` with the spread, against the reference; one advise call beside."""
    import json
    import os
    import resource
    import subprocess
    import tempfile

    from anotador.rules import Game
    from anotador.rules.boxes import count
    from anotador.solver.advise import advise
    from anotador.solver.build import outcomes_path
    from anotador.solver.chances import game_chances
    from anotador.solver.folder import key_of, table_path, write_table
    from anotador.solver.late import LateOutlook
    from anotador.solver.sampled import GAMES, SampledOutlook, read_outcomes

    rules = solver.rules
    with tempfile.TemporaryDirectory() as folder:
        path = table_path(folder, key_of(rules))
        with open(path, "wb") as f:
            write_table(f, V, rules)
        root = Path(__file__).resolve().parents[1]
        env = {**os.environ, "PYTHONPATH": str(root), "OPENBLAS_NUM_THREADS": "1"}
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        subprocess.run([sys.executable, "-m", "anotador.solver.build", "--outcomes", json.dumps(rules.spec()), path,
                        repr(time.time())], env=env, check=True)
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        out = outcomes_path(path)
        size = os.path.getsize(out)
        t = time.perf_counter()
        outcomes = read_outcomes(out, solver, V)
        load = time.perf_counter() - t
        print(f"the outcomes, in a build process: {after.ru_utime - before.ru_utime:.1f} CPU-s, {size / 1e6:.0f} MB, "
              f"{len(outcomes.records):,} outcomes, build peak {after.ru_maxrss / 1024:.0f} MiB; a worker loads "
              f"and checks them in {load:.2f} s")
        data = json.loads((root / "tests" / "yahtzee_positions.json").read_text())
        sheet = rules.check_sheet(data["positions"][0]["sheets"][0])
        times = []
        for _ in range(200):
            t = time.perf_counter()
            advise(solver, V, sheet, count([1, 2, 3, 4, 6]), 1)
            times.append((time.perf_counter() - t) * 1e3)
        floor = float(np.median(times))
        worst = 0.0
        print(f"  the fixed positions ({GAMES:,} games a sheet), milliseconds, median of {repeats} (spread), and as "
              f"a ratio to one advise call in the same run ({floor:.3f} ms):")
        for p in data["positions"]:
            sheets = [rules.check_sheet(x) for x in p["sheets"]]
            game = Game(rules, len(sheets), 0, sheets, [{b for b, v in x.items() if v == 0} for x in sheets],
                        sum(len(x) for x in sheets))
            first, poll = [], []
            for _ in range(repeats):
                outlook = SampledOutlook(LateOutlook(solver, V), outcomes)
                t = time.perf_counter()
                found = [c.chance for c in game_chances(outlook, game)]
                first.append((time.perf_counter() - t) * 1e3)
                mover = game.turn()[0] if game.turn() is not None else 0
                moved = dict(sheets[mover])
                moved[next(b.id for b in rules.boxes if b.id not in moved)] = 0  # the mover's turn: one new sheet
                later = Game(rules, len(sheets), 0, [moved if i == mover else x for i, x in enumerate(sheets)],
                             [set() for _ in sheets], game.turns + 1)
                t = time.perf_counter()
                game_chances(outlook, later)
                poll.append((time.perf_counter() - t) * 1e3)
            off = max(abs(a - b) for a, b in zip(found, p["chances"]))
            worst = max(worst, off)
            print(f"  {p['players']} players, {p['open']:2} open: first {_spread(first)} "
                  f"({np.median(first) / floor:.0f}x), after a turn {_spread(poll)} ({np.median(poll) / floor:.0f}x);"
                  f" off the reference by {off * 100:.2f} pp at the most")
        print(f"  the largest difference: {worst * 100:.2f} pp")


def _spread(ms: list[float]) -> str:
    return f"{np.median(ms):6.1f} ({min(ms):.1f}-{max(ms):.1f})"


def reference(solver: Solver, V: np.ndarray, games: int) -> None:
    """5.: the reference simulation, checked from the empty sheet and four boxes from the end."""
    from anotador.rules import Game
    from anotador.solver.chances import game_chances
    from anotador.solver.late import LateOutlook

    rng, rules = np.random.default_rng(2026), solver.rules
    t = time.process_time()
    totals = play_out(solver, V, solver.space.state_of({}), games, rng)
    seconds = time.process_time() - t
    se = totals.std() / math.sqrt(games)
    print(f"reference simulation, {games:,} games from the empty sheet: {seconds:.1f} CPU-s; mean {totals.mean():.3f}"
          f" against the table's {V[0]:.3f} ({(totals.mean() - V[0]) / se:+.1f} standard errors)")
    ids, pyrng = [b.id for b in rules.boxes], random.Random(4)
    worst = 0.0
    for _ in range(3):
        sheets = [rules.check_sheet({b: pyrng.choice(sorted(rules.possible_points[b]))
                                     for b in pyrng.sample(ids, len(ids) - 4)}) for _ in range(3)]
        game = Game(rules, 3, 0, sheets, [{b for b, p in s.items() if p == 0} for s in sheets], 27)
        exact = np.array([c.chance for c in game_chances(LateOutlook(solver, V), game)])
        found, error = simulated_chances(solver, V, sheets, games, rng)
        error = np.maximum(error, 1e-9)
        worst = max(worst, float(np.abs(found - exact).max()))
        print(f"  three players, four open: exact {np.round(exact, 4)}, simulated {np.round(found, 4)}, "
              f"{np.round((found - exact) / error, 1)} standard errors")
    print(f"  the largest difference: {worst * 100:.2f} pp")


def levels(solver: Solver, V: np.ndarray, closed: list[int]) -> None:
    """4.: every state of whole levels' turn outcomes, followed forward together."""
    from anotador.solver import forward

    for boxes in closed:
        mask, u, flags = solver.space.states(boxes)
        t = time.process_time()
        found = forward.outcomes(solver, V, mask, u, flags)
        seconds = time.process_time() - t
        print(f"  every state with {boxes:2} closed: {len(mask):7} states, {seconds / len(mask) * 1e6:5.0f} CPU-us a "
              f"state, {sum(len(o[0]) for o in found) / len(mask):5.1f} outcomes a state")


def served(solver: Solver, V: np.ndarray) -> None:
    """3.: LateOutlook as the server uses it, a game's chances the first time and again."""
    import statistics

    from anotador.rules import Game
    from anotador.rules.boxes import count
    from anotador.solver.advise import advise
    from anotador.solver.chances import game_chances
    from anotador.solver.late import LATE_OPEN, LateOutlook

    rules, ids = solver.rules, [b.id for b in solver.rules.boxes]
    sheet = rules.check_sheet({"ones": 3})
    t = time.perf_counter()
    for _ in range(200):
        advise(solver, V, sheet, count([1, 2, 3, 4, 6]), 1)
    one = (time.perf_counter() - t) / 200 * 1e3
    print(f"the server's chances (LateOutlook), ms; one advise call: {one:.3f} ms")
    for players in (2, 6):
        for open_boxes in range(LATE_OPEN, 0, -1):
            first, again = [], []
            for rep in range(5):
                late, rng = LateOutlook(solver, V), random.Random(rep * 10 + open_boxes)
                game = Game(rules, players, 0)
                game.sheets = [rules.check_sheet({b: rng.choice(sorted(rules.possible_points[b]))
                                                  for b in rng.sample(ids, len(ids) - open_boxes)})
                               for _ in range(players)]
                game.turns = players * (len(ids) - open_boxes)
                for times in (first, again):
                    t = time.perf_counter()
                    game_chances(late, game)
                    times.append((time.perf_counter() - t) * 1e3)
            print(f"  {players} players, {open_boxes} open: first {statistics.median(first):7.1f} "
                  f"({min(first):.1f}-{max(first):.1f}), again {statistics.median(again):5.2f} "
                  f"({min(again):.2f}-{max(again):.2f}); first / advise {statistics.median(first) / one:6.0f}x")


if __name__ == "__main__":
    main()
