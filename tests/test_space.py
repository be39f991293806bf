"""How the solver numbers a rule set's states: the reachable ones only, densely, one number each.

A table holds one value per number, so a number two states share would
give one of them the other's advice, and a reachable state without one
would have none.
"""

from __future__ import annotations

import random

import numpy as np
import pytest

from anotador.rules import VARIANTS, find_variant
from anotador.solver import Space


@pytest.fixture(scope="module", params=list(VARIANTS))
def space(request) -> Space:
    return Space(find_variant(request.param).rules())


def test_every_reachable_state_has_its_own_number_and_no_number_is_left_over(space):
    numbers = np.concatenate([space.index(*space.states(closed)) for closed in range(space.nb + 1)])
    assert len(numbers) == space.size
    assert np.array_equal(np.sort(numbers), np.arange(space.size))


def test_a_number_gives_back_its_state(space):
    every = space.size <= 10_000
    for closed in range(space.nb + 1):
        masks, us, flags = space.states(closed)
        picks = range(len(masks)) if every else random.Random(closed).sample(range(len(masks)), min(300, len(masks)))
        for k in picks:
            state = (int(masks[k]), int(us[k]), int(flags[k]))
            assert space.parts(space.index(*state)) == state


def test_a_states_batches_are_runs_of_numbers_in_order(space):
    """A build writes each batch's values where they lie: a mask's states are one run, listed in order."""
    for closed in range(space.nb + 1):
        for mask, u, flags in space.batches(closed, 4096):
            for m in np.unique(mask):
                numbers = space.index(mask[mask == m], u[mask == m], flags[mask == m])
                assert np.array_equal(numbers, np.arange(numbers[0], numbers[0] + len(numbers)))


@pytest.mark.parametrize("variant", ["yahtzee", "yatzy", "generala-wiki"])
def test_every_sheet_a_game_can_have_is_a_numbered_state(variant):
    """Sheets of random boxes and points each box can hold (checked by the rules): their state's number
    reads back the closed boxes, the capped subtotals and which held boxes hold points."""
    rules = find_variant(variant).rules()
    space = Space(rules)
    rng = random.Random(variant)
    for _ in range(2000):
        closed = rng.sample(range(space.nb), rng.randint(0, space.nb))
        sheet = {rules.boxes[b].id: rng.choice(space.possible[b]) for b in closed}
        if len(sheet) < space.nb:  # (a full sheet is refused for having no box left to play)
            rules.check_sheet(sheet)
        state = space.state_of(sheet)
        assert 0 <= state < space.size
        mask, u, flags = space.parts(state)
        assert mask == sum(1 << b for b in closed)
        for i, (boxes, threshold, _) in enumerate(space.sections):
            total = sum(sheet[rules.boxes[b].id] for b in boxes if b in closed)
            assert (u // space.strides[i]) % (threshold + 1) == min(threshold, total)
        assert flags == sum(bit for b, bit in space.held_bit.items() if sheet.get(rules.boxes[b].id))


def test_yahtzee_holds_about_half_of_every_mask_subtotal_and_flag():
    """What reachable-only saves: a Yahtzee sheet's upper subtotal is one its closed upper boxes can make, and
    its Yahtzee box holds points only once closed."""
    space = Space(find_variant("yahtzee").rules())
    assert space.size == 536_448 and (1 << space.nb) * space.U * space.F == 1_048_576


def test_without_the_table_of_patterns_the_numbers_are_the_same(monkeypatch):
    """A rule set with several big sections numbers its states from the ranks each time: the same numbers."""
    rules = find_variant("yahtzee").rules()
    quick = Space(rules)
    monkeypatch.setattr(Space, "PATTERNS_MAX", 0)
    ranked = Space(rules)
    assert quick._within is not None and ranked._within is None
    for closed in range(quick.nb + 1):
        states = quick.states(closed)
        assert np.array_equal(quick.index(*states), ranked.index(*states))
    assert quick.index(5, 3, 0) == ranked.index(5, 3, 0)  # one state, as advice asks


# -- states alike: a build solves one of each (Space.alike) ---------------------------------------------------


def _yahtzee_state(space: Space, open_ids: set[str], u: int, flags: int = 0):
    mask = sum(1 << i for i, b in enumerate(space.rules.boxes) if b.id not in open_ids)
    return np.array([mask]), np.array([u]), np.array([flags])


@pytest.mark.parametrize("open_ids, u1, u2, alike", [
    ({"sixes", "chance"}, 40, 41, True),      # sixes add 0, 6, ..., 30: needing 23 or 22, only 24 and 30 do
    ({"sixes", "chance"}, 38, 39, False),     # needing 25 (30 only) or 24 (24 and 30)
    ({"ones", "chance"}, 10, 20, True),       # out of reach either way
    ({"ones", "chance"}, 58, 59, False),      # needing 5 or 4: four ones reach only the second
    ({"chance", "yahtzee"}, 63, 63, True),    # the same state
    ({"chance", "yahtzee"}, 0, 63, False),    # no upper box left: the bonus is earned or not
])
def test_subtotals_are_alike_when_the_same_futures_earn_the_bonus(open_ids, u1, u2, alike):
    space = Space(find_variant("yahtzee").rules())
    k1 = space.alike(*_yahtzee_state(space, open_ids, u1))
    k2 = space.alike(*_yahtzee_state(space, open_ids, u2))
    assert (k1 == k2).all() == alike


def test_states_alike_have_the_same_value_as_if_each_were_solved():
    """Yahtzee's last three turns built (one state of each key solved) and solved state by state: the same
    values, and alike states equal to the bit."""
    from anotador.solver import Solver

    solver = Solver(find_variant("yahtzee").rules())
    space = solver.space
    V = solver.build(turns=3)
    merged = 0
    for closed in range(space.nb - 1, space.nb - 4, -1):
        mask, u, flags = space.states(closed)
        key = space.alike(mask, u, flags)
        merged += len(key) - len(np.unique(key))
        mine = V[space.index(mask, u, flags)]
        each = np.concatenate([solver.turn(V, mask[i:i + 64], u[i:i + 64], flags[i:i + 64]).value
                               for i in range(0, len(mask), 64)])
        np.testing.assert_allclose(mine, each, rtol=0, atol=1e-11)
        order = np.argsort(key, kind="stable")
        same = key[order][1:] == key[order][:-1]
        assert np.array_equal(mine[order][1:][same], mine[order][:-1][same])
    assert merged > 5_000  # many of these levels' states are another's twin
