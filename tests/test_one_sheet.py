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
