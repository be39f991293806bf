"""A turn followed forward for many states at once (anotador.solver.forward): the same policy and the same
outcomes as one state at a time (anotador.solver.chances.turn_outcomes), whatever batch a state is in.

The Yahtzee family's chances in the last rounds rest on it: the late outlook
worked out in batches is held to the one worked out a state at a time.
"""

from __future__ import annotations

import random

import numpy as np
import pytest

from anotador.rules import Game, find_variant
from anotador.solver import dice, forward
from anotador.solver.chances import game_chances, turn_outcomes

from .conftest import solved


def states(solver, count: int, seed: int, most_open: int | None = None):
    """``count`` random states with at least one box open (at most ``most_open``), as (mask, u, flags) arrays."""
    space = solver.space
    low = 1 if most_open is None else space.nb - most_open
    levels = [space.states(closed) for closed in range(low, space.nb)]
    every = [np.concatenate(a) for a in zip(*levels)]
    pick = np.random.default_rng(seed).choice(len(every[0]), count, replace=False)
    return tuple(a[pick] for a in every)


@pytest.mark.parametrize("variant", [pytest.param("yahtzee", marks=pytest.mark.slow), "yacht"])
def test_each_states_outcomes_are_the_one_state_paths(variant):
    """Where a turn leads and with what points exactly, with what chance to 1e-12, for 300 states of every
    stage (Yahtzee: jokers and further Yahtzees' bonuses, the upper subtotal; Yacht: none of them)."""
    rules = find_variant(variant).rules()
    assert forward.batched(rules)
    solver, V = solved(rules)
    mask, u, flags = states(solver, 300, seed=len(variant))
    for (after, points, chance), m, uu, f in zip(forward.outcomes(solver, V, mask, u, flags), mask, u, flags):
        one = turn_outcomes(solver, V, int(m), int(uu), int(f))
        assert np.array_equal(after, one.after) and np.array_equal(points, one.points)
        assert np.abs(chance - one.chance).max() < 1e-12 and chance.sum() == pytest.approx(1, abs=1e-12)


@pytest.mark.slow
def test_ties_go_where_advice_sends_them():
    """On a table of small whole numbers (every box and keep of a roll often worth exactly the same) the same
    outcomes: the first box in sheet order, and scoring before a keep worth as much, as one state's path."""
    rules = find_variant("yahtzee").rules()
    solver, _ = solved(rules)
    V = np.random.default_rng(11).integers(0, 3, solver.space.size).astype(float)
    mask, u, flags = states(solver, 200, seed=3, most_open=4)
    for (after, points, chance), m, uu, f in zip(forward.outcomes(solver, V, mask, u, flags), mask, u, flags):
        one = turn_outcomes(solver, V, int(m), int(uu), int(f))
        assert np.array_equal(after, one.after) and np.array_equal(points, one.points)
        assert np.abs(chance - one.chance).max() < 1e-12


@pytest.mark.slow
def test_a_states_outcomes_do_not_depend_on_its_batch():
    """The same numbers to the bit alone, in a batch, and in another order: every sum runs in an order of its
    own state's, so the chances of a game do not depend on which other sheets were worked out with it."""
    rules = find_variant("yahtzee").rules()
    solver, V = solved(rules)
    mask, u, flags = states(solver, 150, seed=7)
    together = forward.outcomes(solver, V, mask, u, flags)
    order = np.random.default_rng(1).permutation(150)
    shuffled = forward.outcomes(solver, V, mask[order], u[order], flags[order])
    for k in (0, 17, 149):
        alone = forward.outcomes(solver, V, mask[k:k + 1], u[k:k + 1], flags[k:k + 1])[0]
        again = shuffled[int(np.flatnonzero(order == k)[0])]
        for a, b, c in zip(together[k], alone, again):
            assert np.array_equal(a, b) and np.array_equal(a, c)


def test_the_best_keep_of_many_states_is_advices_keep_for_each():
    """Each roll's keep and value, ties to more dice then lower faces: the one-state choice, state by state,
    on values with many exact ties (whole numbers) and on a table's."""
    d = dice(5)
    rng = np.random.default_rng(5)
    for values in (rng.integers(0, 4, (len(d.keeps), 40)).astype(float), rng.random((len(d.keeps), 40))):
        keep, best = d.best_keep_by_roll(values)
        for s in range(values.shape[1]):
            one_keep, one_best = d.best_keep(values[:, s])
            assert np.array_equal(keep[:, s], one_keep) and np.array_equal(best[:, s], one_best)


def test_throwing_the_rest_a_die_at_a_time_is_throwing_them_together():
    d = dice(5)
    chance = np.random.default_rng(3).random((len(d.keeps), 9))
    chance[chance < 0.6] = 0
    out = d.throw_rest_by_keep(chance)
    assert np.abs(out - (chance.T @ d.after_keep).T).max() < 1e-14
    assert np.allclose(out.sum(axis=0), chance.sum(axis=0), atol=1e-13)


def one_state_at_a_time(solver, V, P: int, state: int, memo: dict) -> np.ndarray:
    """A state's distribution of points to come (P wide), each turn by the one-state path (turn_outcomes) and the
    states it leads to worked out first: what the late outlook worked out before its turns were batched."""
    if state not in memo:
        space = solver.space
        mask, u, flags = space.parts(state)
        sheet = np.zeros(P)
        if mask == (1 << space.nb) - 1:
            sheet[int(space.bonus(np.array([u]))[0])] = 1.0
        else:
            out = turn_outcomes(solver, V, mask, u, flags)
            assert out.instant == 0
            for after, points, p in zip(out.after.tolist(), out.points.tolist(), out.chance.tolist()):
                if points < P:
                    sheet[points:] += p * one_state_at_a_time(solver, V, P, after, memo)[:P - points]
        memo[state] = sheet
    return memo[state]


@pytest.mark.slow
def test_the_late_outlook_in_batches_is_the_one_worked_out_a_state_at_a_time():
    """Six players with four boxes open each: the batched outlook (one level of every player's sheets at a time)
    works out the same states as following each state's turn alone, every distribution to 1e-12."""
    from anotador.solver.late import LateOutlook

    rules = find_variant("yahtzee").rules()
    solver, V = solved(rules)
    ids = [b.id for b in rules.boxes]
    rng = random.Random(29)
    game = Game(rules, 6, 0)
    game.sheets = [rules.check_sheet({b: rng.choice(sorted(rules.possible_points[b])) for b in rng.sample(ids, 9)})
                   for _ in range(6)]
    game.turns = 6 * 9
    batched = LateOutlook(solver, V)
    found = game_chances(batched, game)
    memo: dict = {}
    for sheet in game.sheets:
        one_state_at_a_time(solver, V, batched.P, solver.space.state_of(sheet), memo)
    assert set(batched.kept) == set(memo) and len(memo) > 6
    for state, sheet in memo.items():
        mine, finish, instant = batched.kept[state]
        assert np.abs(mine - sheet).max() < 1e-12 and finish is mine and not instant.any()
    assert sum(c.chance for c in found) == pytest.approx(1, abs=1e-12)


def test_rules_whose_served_rolls_score_apart_have_no_late_outlook(monkeypatch):
    """Every rule set with a section bonus or bonuses of rolls follows its turns in batches; one that did not (a
    served roll scoring apart, which the batched turn does not follow) is refused, not worked out wrong."""
    from anotador.solver import late
    from anotador.solver.chances import NotExact

    rules = find_variant("yacht").rules()
    solver, V = solved(rules)
    monkeypatch.setattr(late.forward, "batched", lambda rules: False)
    with pytest.raises(NotExact, match="served roll"):
        late.LateOutlook(solver, V)
