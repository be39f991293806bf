"""A build's shortcuts over a batch of states: the numbers the plain path gives for each state alone."""

from __future__ import annotations

import numpy as np
import pytest

from anotador.rules import VARIANTS, find_variant
from anotador.solver import Solver, solve

ONE_BOX = [v for v in VARIANTS if find_variant(v).rules().boxes_per_turn == 1]


@pytest.mark.parametrize("variant", ONE_BOX)
def test_a_builds_batch_is_worth_what_each_states_turn_says(variant):
    """A build weighs keeps in pieces of a batch (:data:`solve.LATTICE` states) and keeps no stage: any table
    (random here), states of every level, sections, held flags, served rolls and rolls the engine scores by
    the sheet, each state's value is its own turn's, to the last sum (over first rolls, BLAS's order)."""
    solver = Solver(find_variant(variant).rules())
    V = np.random.default_rng(7).random(solver.space.size) * 100
    rng = np.random.default_rng(13)
    scratch = solve.Scratch()
    for closed in range(solver.space.nb):
        mask, u, flags = solver.space.states(closed)
        pick = rng.choice(len(mask), min(3 * solve.LATTICE, len(mask)), replace=False)
        got = solver._values(V, mask[pick], u[pick], flags[pick], scratch)
        for k in rng.choice(len(pick), min(8, len(pick)), replace=False):
            i = pick[k]
            one = solver.turn(V, mask[i:i + 1], u[i:i + 1], flags[i:i + 1]).value
            assert np.allclose(got[k], one, rtol=1e-13, atol=0), (variant, closed, i)


def test_the_special_rolls_of_many_sheets_at_once_are_each_sheets():
    """The build asks the engine once per state of the boxes a Yahtzee watches and places forced jokers for
    every sheet of a batch at once: the same points and bonuses as each sheet asked alone, and a forced
    joker goes where the engine places it on that sheet."""
    solver = Solver(find_variant("yahtzee").rules())
    space = solver.space
    rng = np.random.default_rng(3)
    mask = rng.integers(0, 1 << space.nb, 600)
    flags = rng.integers(0, space.F, 600) * ((mask >> space.held[0]) & 1)
    for served in (False, True):
        points, bonus = solver._special_many(served, mask, flags)
        for i in range(0, 600, 7):
            one_points, one_bonus, *_ = solver._special_made(served, int(mask[i]), int(flags[i]))
            assert np.array_equal(points[i], one_points) and np.array_equal(bonus[i], one_bonus)
        forced = 0
        for i in range(0, 600, 11):
            sheet = space.sheet_of(int(mask[i]), int(flags[i]))
            for j, r in enumerate(solver.special.tolist()):
                counts = solver.group.rolls[r]
                allowed = solver.rules.allowed(counts, sheet)
                ids = {solver.rules.boxes[b].id for b in np.flatnonzero(points[i, j] >= 0)}
                free = {b.id for b in solver.rules.boxes if b.id not in sheet}
                assert ids == (free if allowed is None else set(allowed)), (i, r)
                forced += allowed is not None
    assert forced > 20  # the sample holds forced jokers, not only free ones


def test_first_free_answers_many_sheets_as_each_one():
    rules = find_variant("yahtzee").rules()
    order = ((0,), (6, 7, 8, 9, 10, 11, 12), (1, 2, 3, 4, 5))
    free = np.arange(1 << len(rules.boxes))
    many = rules.first_free(order, free)
    assert many.tolist() == [rules.first_free(order, int(f)) for f in free]
    assert rules.first_free(order, 0b10) == 0b10 and rules.first_free(order, 0b11) == 0b1


@pytest.mark.parametrize("variant", ["yahtzee", "yatzy", "generala"])
def test_a_levels_batches_list_each_state_once_whole_masks_a_batch(variant):
    """Batches are made of runs kept per closed boxes of each section and of the held boxes: every state once
    (a run kept under a wrong key would number some twice and miss others), each mask in one batch."""
    space = Solver(find_variant(variant).rules()).space
    index, masks = [], set()
    for closed in range(space.nb + 1):
        for mask, u, flags in space.batches(closed, 300):
            index.append(space.index(mask, u, flags))
            assert masks.isdisjoint(mask.tolist())
            masks.update(mask.tolist())
    assert sorted(np.concatenate(index).tolist()) == list(range(space.size))


HOUSE = [("generala", {"served_generala": "points", "served_generala_points": 80}),
         ("generala", {"double_generala": 200}), ("yahtzee", {"yahtzee_bonus": 0}), ("yahtzee", {})]


@pytest.mark.parametrize("variant, options", HOUSE)
def test_special_rolls_read_the_values_after_the_boxes_already_gathered(variant, options):
    """A build weighs the rolls the engine scores by the sheet from the values after each box that scoring the
    other rolls gathered; points no plain roll scores in a box get their value after anew. Both ways, the best
    of :meth:`Solver.special_boxes` plus the bonus, to the bit."""
    solver = Solver(find_variant(variant).rules(options))
    V = np.random.default_rng(5).random(solver.space.size) * 100
    rng = np.random.default_rng(17)
    for closed in range(solver.space.nb):
        mask, u, flags = solver.space.states(closed)
        pick = rng.choice(len(mask), min(300, len(mask)), replace=False)
        m, uu, ff = mask[pick], u[pick], flags[pick]
        for served in (False, True):
            _, bonus, values = solver.special_boxes(V, m, uu, ff, served)
            expected = values.max(axis=2) + bonus
            kept: dict = {}
            for _ in solver.each_box(V, m, uu, ff, served, kept=kept):
                pass
            assert np.array_equal(solver._special_kept(V, m, uu, ff, served, kept), expected)
            strange = {b: (after, None if vals is None else vals + 0.5) for b, (after, vals) in kept.items()}
            assert np.array_equal(solver._special_kept(V, m, uu, ff, served, strange), expected)
