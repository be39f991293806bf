"""Advice's path for one sheet (anotador/solver/one.py): its shortcuts give what the general steps give."""

from __future__ import annotations

import numpy as np
import pytest

from anotador.rules import VARIANTS, find_variant
from anotador.solver import Solver

ONE_BOX = [v for v in VARIANTS if find_variant(v).rules().boxes_per_turn == 1]
HOUSE = [("generala", {"served_generala": "points", "served_generala_points": 80}),
         ("generala", {"double_generala": 200}), ("yahtzee", {"yahtzee_bonus": 0}), ("yahtzee", {})]


def _states(solver: Solver, rng, each: int = 20):
    """Some reachable states of every level: (mask, subtotals, flags) as plain numbers."""
    for closed in range(solver.space.nb):
        mask, u, flags = solver.space.states(closed)
        for i in rng.choice(len(mask), min(each, len(mask)), replace=False):
            yield int(mask[i]), int(u[i]), int(flags[i])


@pytest.mark.parametrize("variant", ONE_BOX)
def test_a_sheets_next_states_are_close_manys(variant):
    """:meth:`Space.close_moves` (a section's digit moved by a minimum, the patterns' row read once per move)
    finds the states :meth:`Space.close_many` does, for every (box, points) a roll scores, served or not."""
    solver = Solver(find_variant(variant).rules())
    space = solver.space
    for served in (False, True):
        e = solver.entries[served]
        assert e.moves is not None  # the built-in variants all have the patterns' table
        for mask, u, flags in _states(solver, np.random.default_rng(1)):
            assert np.array_equal(space.close_moves(mask, u, flags, e.moves),
                                  space.close_many(mask, u, flags, e.box, e.points)), (variant, mask, u, flags)


def test_without_the_patterns_table_a_sheet_reads_the_ranks(monkeypatch):
    """A rule set whose patterns' table would be too big (Space.PATTERNS_MAX) reads each state's number from
    the ranks: no moves worked out, the same values after each box."""
    rules = find_variant("yahtzee").rules()
    solver = Solver(rules)
    V = np.random.default_rng(2).random(solver.space.size)
    monkeypatch.setattr(type(solver.space), "PATTERNS_MAX", 0)
    small = Solver(rules)
    assert small.entries[False].moves is None
    for mask, u, flags in _states(solver, np.random.default_rng(4), 5):
        assert np.array_equal(small.after_one(V, mask, u, flags), solver.after_one(V, mask, u, flags))


@pytest.mark.parametrize("variant, options", HOUSE)
def test_special_rolls_read_their_values_after_among_the_entries(variant, options):
    """A special roll's value after a box is read among the plain rolls' entries when its points there are
    some plain roll's, else worked out anew: both ways the same numbers, and the points and bonuses are
    :meth:`_special_many`'s for that sheet."""
    solver = Solver(find_variant(variant).rules(options))
    V = np.random.default_rng(5).random(solver.space.size) * 100
    outside = 0
    for mask, u, flags in _states(solver, np.random.default_rng(9), 12):
        for served in (False, True):
            points, bonus, place, reach = solver._special_made(served, mask, flags)
            outside += place is None
            many_points, many_bonus = solver._special_many(served, np.array([mask]), np.array([flags]))
            assert np.array_equal(points, many_points[0]) and np.array_equal(bonus, many_bonus[0])
            solver._points_kept.clear()
            got = solver._special_one(V, mask, u, flags, served)
            solver._points_kept[(served, mask, flags)] = (points, bonus, None, reach)  # without the entries
            anew = solver._special_one(V, mask, u, flags, served)
            solver._points_kept.clear()
            for a, b in zip(got, anew):
                assert np.array_equal(a, b), (variant, options, mask, u, flags, served)
    # a Yahtzee's jokers score what plain rolls score in those boxes; a double generala's 200 points are no
    # plain roll's in its box: those sheets' values after come anew
    assert (outside > 0) == ("double_generala" in options)


@pytest.mark.parametrize("variant", ONE_BOX)
def test_a_sheets_parts_are_its_states(variant):
    """Advice reads a sheet's (mask, subtotals, flags) from the sheet: the parts of its state's number."""
    rules = find_variant(variant).rules()
    space = Solver(rules).space
    rng = np.random.default_rng(6)
    for _ in range(200):
        sheet = {}
        for b in rng.permutation(len(rules.boxes))[:rng.integers(0, len(rules.boxes))]:
            sheet[rules.boxes[b].id] = int(rng.choice(space.possible[b]))
        state = space.state_of(sheet)
        assert space.parts_of(sheet) == space.parts(state)


@pytest.fixture(scope="module", params=["generala", "yahtzee", "double-cameroon"])
def solver_and_values(request):
    """A solver and a table of made-up values (a turn's steps read any table the same way)."""
    solver = Solver(find_variant(request.param).rules())
    return solver, np.random.default_rng(11).random(solver.space.size) * 100


def test_a_kept_turn_gives_a_whole_turns_numbers(solver_and_values):
    """A state's kept turn (what a turn's advice calls share) gives :meth:`Solver.turn`'s numbers to the bit,
    whichever throw is asked for first; a second call finds the same turn, its arrays read-only."""
    solver, V = solver_and_values
    rng = np.random.default_rng(12)
    states = list(_states(solver, rng, 3))
    # the same boxes closed at each subtotal they reach: turns told apart by their whole state
    mask, u, flags = solver.space.states(3)
    same = np.flatnonzero((mask == mask[0]) & (flags == flags[0]))
    states += [(int(mask[i]), int(u[i]), int(flags[i])) for i in same[:8]]
    solver._turns_kept.clear()
    for k, (mask, u, flags) in enumerate(states):
        whole = solver.turn(V, np.array([mask]), np.array([u]), np.array([flags]))
        kept = solver.turn_one(V, mask, u, flags)
        first, second = (1, 2) if k % 2 else (2, 1)  # either throw's keeps may be asked for first
        stage = {1: whole.keep1[0], 2: whole.keep2[0]}
        assert np.array_equal(kept.keeps(first), stage[first])
        assert np.array_equal(kept.keeps(second), stage[second])
        assert np.array_equal(kept.plain, whole.now_plain[0])
        if solver.pairs is None:
            assert np.array_equal(kept.after, solver.after_one(V, mask, u, flags))
        assert solver.turn_one(V, mask, u, flags) is kept
        with pytest.raises(ValueError):
            kept.keeps(1)[0] = 0.0  # shared by every answer: nobody writes in it


def test_turns_kept_are_bounded_and_the_oldest_goes_first(solver_and_values, monkeypatch):
    """At most ``turns_max`` turns are kept (a night's turns under way, not every sheet asked about), the oldest
    let go first; a table of other values (another build for the same rules) finds none of them."""
    solver, V = solver_and_values
    monkeypatch.setattr(solver, "turns_max", 4)
    solver._turns_kept.clear()
    states = list(_states(solver, np.random.default_rng(13), 1))[:10]
    for mask, u, flags in states:
        solver.turn_one(V, mask, u, flags).keeps(2)
    assert list(solver._turns_kept) == states[-4:]
    other = V + 1.0
    mask, u, flags = states[-1]
    again = solver.turn_one(other, mask, u, flags)
    assert list(solver._turns_kept) == [states[-1]]
    assert np.array_equal(again.keeps(2), solver.turn(other, np.array([mask]), np.array([u]), np.array([flags])).keep2[0])


def test_turns_kept_hold_at_most_their_bytes(solver_and_values):
    """The turns kept, every stage worked out, hold at most TURNS_BYTES (ten dice keep fewer turns)."""
    solver, V = solver_and_values
    solver._turns_kept.clear()
    states = [s for _, s in zip(range(solver.turns_max + 5), _states(solver, np.random.default_rng(17), 200))]
    assert len(states) == solver.turns_max + 5
    for mask, u, flags in states:
        solver.turn_one(V, mask, u, flags).keeps(1)
    held = sum(a.nbytes for t in solver._turns_kept.values() for a in (t._after, t._plain, t._keep2, t._keep1)
               if a is not None)
    assert len(solver._turns_kept) == solver.turns_max and held <= solver.TURNS_BYTES


def test_turns_kept_under_threads(solver_and_values, monkeypatch):
    """A worker's threads share the kept turns: asked from four threads at once over more states than are
    kept, every answer is the state's own and the bound holds."""
    from concurrent.futures import ThreadPoolExecutor

    solver, V = solver_and_values
    monkeypatch.setattr(solver, "turns_max", 8)
    solver._turns_kept.clear()
    states = list(_states(solver, np.random.default_rng(14), 2))[:24]
    want = {s: solver.keeps_at(V, *s, 2) for s in states}

    def ask(k):
        s = states[k % len(states)]
        return s, solver.turn_one(V, *s).keeps(2)

    with ThreadPoolExecutor(4) as pool:
        for s, got in pool.map(ask, range(400)):
            assert np.array_equal(got, want[s])
    assert len(solver._turns_kept) <= 8


@pytest.mark.parametrize("variant", ["generala", "double-cameroon"])
def test_advice_rounded_is_the_exact_advice_rounded(variant):
    """Advice's figures rounded at once (``digits``) are each exact figure rounded as round() rounds it, in
    the same order, and the best move is chosen on the exact numbers (``top``)."""
    import random

    from anotador.solver.advise import advise

    from .conftest import solved
    from .test_solver import random_sheet

    rules = find_variant(variant).rules()
    solver, V = solved(rules)
    rng = random.Random(18)
    n = rules.boxes_per_turn
    for _ in range(40):
        sheet = random_sheet(rules, rng.randrange(n, len(rules.boxes) + 1, n), rng)
        counts = rules.check_dice([rng.randint(1, 6) for _ in range(rules.dice)], rules.dice, "dice")
        roll = rng.randint(1, 3)
        exact, shown = advise(solver, V, sheet, counts, roll), advise(solver, V, sheet, counts, roll, digits=6)
        assert shown.best == exact.best
        for name in ("boxes", "keeps", "splits"):
            want = [{**o, "expected": round(o["expected"], 6)} for o in getattr(exact, name)]
            assert getattr(shown, name) == want, (name, sheet, counts, roll)
        for name in ("boxes", "keeps"):
            if getattr(exact, name):
                assert getattr(shown, name).top == getattr(exact, name)[0]["expected"]
