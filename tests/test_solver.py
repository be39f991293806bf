"""The solver: exact against brute force, the published values, and what any table must satisfy."""

from __future__ import annotations

import random

import numpy as np
import pytest

from anotador.rules import FIXED, SUM, BoxSpec, Options, SectionBonus, Variant, VARIANTS, find_variant
from anotador.rules.variants import NUMBER_BOXES
from anotador.solver import Solver, dice
from anotador.solver.advise import Position, advise

from .bruteforce import Brute
from .conftest import solved


def random_sheet(rules, free: int, rng: random.Random) -> dict:
    """A valid sheet with exactly ``free`` boxes left, its values drawn from what each box can hold."""
    assert free % rules.boxes_per_turn == 0, "a two-box sheet has an even number of boxes left"
    while True:
        ids = [b.id for b in rules.boxes]
        closed = rng.sample(ids, len(ids) - free)
        sheet = {b: rng.choice(sorted(rules.possible_points[b])) for b in closed}
        try:
            return dict(rules.check_sheet(sheet))
        except ValueError:
            continue


def solver_to_come(solver, V, sheet) -> float:
    return float(V[solver.space.state_of(sheet)])


# -- one state at a time (advice) -------------------------------------------------------


@pytest.mark.parametrize("variant", [v for v in VARIANTS if find_variant(v).rules().boxes_per_turn == 1])
def test_one_state_is_solved_to_the_bit_as_in_a_batch(variant):
    """Advice solves one state's turn by a path of its own (a few array operations, judgements kept per
    state of the watched boxes; states x rolls where a batch is rolls x states). Every stage is the
    batch's to the bit: the same sums in the same order. Only the value, a dot product whose order BLAS
    picks by the batch's size, agrees to 1e-12."""
    rules = find_variant(variant).rules()
    solver = Solver(rules)
    solver.POINTS_KEPT = 16  # the special rolls' points kept per sheet: read back, made anew and let go here
    V = np.random.default_rng(7).random(solver.space.size) * 100  # any table: the paths must agree on it
    rng = np.random.default_rng(11)
    for closed in range(solver.space.nb):
        mask, u, flags = solver.space.states(closed)
        pick = rng.choice(len(mask), min(12, len(mask)), replace=False)
        if len(pick) < 2:
            pick = np.concatenate([pick, pick])  # a batch of two: the batch's path
        batch = solver.turn(V, mask[pick], u[pick], flags[pick])
        for k, i in enumerate(pick):
            one = solver.turn(V, mask[i:i + 1], u[i:i + 1], flags[i:i + 1])
            for name, a, b in zip(one._fields, one, batch):
                if name == "value":
                    assert np.allclose(a, b[k], rtol=1e-12, atol=0), (variant, closed, name)
                else:
                    assert np.array_equal(a[0], b[k]), (variant, closed, name)
            # advice for a throw asks only the stages that lead to its keeps: the same numbers
            for throw, stage in ((1, one.keep1), (2, one.keep2)):
                keeps = solver.keeps_at(V, int(mask[i]), int(u[i]), int(flags[i]), throw)
                assert np.array_equal(keeps, stage[0]), (variant, closed, throw)
    assert len(solver._points_kept) <= 16


def test_ten_dice_advice_asks_only_the_stages_its_keeps_need_and_gets_the_same_numbers():
    solver = Solver(find_variant("double-cameroon").rules())
    V = np.random.default_rng(3).random(solver.space.size) * 100
    for closed in (0, 4, 8):
        mask, u, flags = solver.space.states(closed)
        for i in (0, len(mask) // 2, len(mask) - 1):
            one = solver.turn(V, mask[i:i + 1], u[i:i + 1], flags[i:i + 1])
            for throw, stage in ((1, one.keep1), (2, one.keep2)):
                assert np.array_equal(solver.keeps_at(V, int(mask[i]), int(u[i]), int(flags[i]), throw), stage[0])


# -- the dice -------------------------------------------------------------------------


@pytest.mark.parametrize("n", [5, 10])
def test_rolls_keeps_and_chances(n):
    d = dice(n)
    assert len(d.rolls) == {5: 252, 10: 3003}[n] and len(d.keeps) == {5: 210, 10: 5005}[n]
    assert d.first.sum() == pytest.approx(1.0)
    ones = np.ones((1, len(d.rolls)))
    assert np.allclose(d.expect(ones), 1.0)  # every keep leads somewhere, with certainty
    # the best keep within a roll, by the lattice, is the maximum over its sub-multisets, spelled out
    rng = np.random.default_rng(1)
    values = rng.random((2, len(d.keeps)))
    best = d.best_within(values)
    for r in rng.choice(len(d.rolls), 40):
        assert best[0, r] == max(values[0, k] for k in d.sub_keeps(d.rolls[r]))


# -- what the solver relies on the engine for ----------------------------------------------


@pytest.mark.parametrize("variant", list(VARIANTS))
def test_only_the_rolls_the_engine_names_look_at_the_sheet(variant):
    """Every other roll scores its plain row in any free box; only held_matters boxes' values count."""
    rules = find_variant(variant).rules()
    rng = random.Random(variant)
    for _ in range(30):
        step = rules.boxes_per_turn
        sheet = random_sheet(rules, rng.randrange(step, len(rules.boxes) + 1, step), rng)
        free = [b.id for b in rules.boxes if b.id not in sheet]
        flipped = {k: (0 if v else max(rules.possible_points[k])) for k, v in sheet.items()}
        for counts in dice(5).rolls:
            for served in (False, True):
                score = rules.score_counts(counts, served, sheet)
                if not rules.depends_on_sheet(counts):
                    row = rules.row(counts, served)
                    assert list(score.scratch) == free and not score.instant_win and score.bonus == 0
                    assert dict(score.options) == {b: row[rules.index[b]] for b in free if row[rules.index[b]]}
                # a box outside held_matters may hold anything: the roll scores the same
                for box, value in flipped.items():
                    if rules.index[box] in rules.held_matters:
                        continue
                    other = {**sheet, box: value}
                    try:
                        rules.check_sheet(other)
                    except ValueError:
                        continue
                    assert rules.score_counts(counts, served, other) == score, (box, value)


# -- exact: brute force on sheets near their end -------------------------------------------


@pytest.mark.slow
@pytest.mark.parametrize("variant", list(VARIANTS))
def test_the_solver_agrees_with_brute_force_near_the_end(variant):
    """One and two boxes left (one turn for ten dice), sheets drawn at random: equal to 1e-9."""
    rules = find_variant(variant).rules()
    solver = Solver(rules)
    V = solver.build(turns=2)
    brute = Brute(rules)
    rng = random.Random(variant)
    frees = [2] if rules.boxes_per_turn == 2 else [1, 1, 1, 2, 2]
    for free in frees:
        sheet = random_sheet(rules, free, rng)
        assert solver_to_come(solver, V, sheet) == pytest.approx(brute.to_come(sheet), abs=1e-9), sheet


@pytest.mark.slow
@pytest.mark.parametrize("options", [{"joker": "free"}, {"joker": "forced"}, {"yahtzee_bonus": 0}])
def test_yahtzee_jokers_and_bonus_agree_with_brute_force(options):
    """The joker's cases near the end: a Yahtzee box at 50 or 0 with its upper box free or closed."""
    rules = find_variant("yahtzee").rules(**options)
    solver = Solver(rules)
    V = solver.build(turns=2)
    brute = Brute(rules)
    full = {"ones": 3, "twos": 6, "threes": 9, "fours": 12, "fives": 15, "sixes": 18, "three_of_a_kind": 20,
            "four_of_a_kind": 22, "full_house": 25, "small_straight": 30, "large_straight": 40, "chance": 21}
    for held in (50, 0):
        for free in (["fives"], ["large_straight"], ["fives", "full_house"], ["chance", "sixes"]):
            sheet = {**{k: v for k, v in full.items() if k not in free}, "yahtzee": held}
            assert solver_to_come(solver, V, sheet) == pytest.approx(brute.to_come(sheet), abs=1e-9), (held, free)


#: A family written as data, not known to the solver: a six-line Yacht with its own small bonus.
MINI = Variant(
    id="mini-yacht",
    names={"en": "Mini yacht", "es": "Mini yacht", "pt": "Mini yacht", "de": "Mini-Yacht", "sv": "Mini-yacht"},
    description={"en": "", "es": "", "pt": "", "de": "", "sv": ""},
    boxes=NUMBER_BOXES[:3] + (
        BoxSpec("full_house", "full", SUM),
        BoxSpec("yacht", "five", FIXED),
        BoxSpec("chance", "any", SUM),
    ),
    defaults=Options(points=(("yacht", 50),), served_bonus=0, served_generala="none"),
    bonuses=(SectionBonus("upper_bonus", ("ones", "twos", "threes"), threshold=12, points=15),),
)


@pytest.mark.slow
def test_a_family_written_as_data_is_solved_exactly():
    rules = MINI.rules()
    solver = Solver(rules)
    V = solver.build()
    brute = Brute(rules)
    rng = random.Random(7)
    for free in (1, 1, 2, 2, 3):
        sheet = random_sheet(rules, free, rng)
        assert solver_to_come(solver, V, sheet) == pytest.approx(brute.to_come(sheet), abs=1e-9), sheet
    assert 40 < V[0] < 6 + 12 + 9 + 30 + 50 + 30 + 15


# -- the published values ------------------------------------------------------------------


PUBLISHED = [
    ("yahtzee", {"joker": "free"}, 254.5896, 4),     # Verhoeff 1999
    ("yahtzee", {"joker": "forced"}, 254.5877, 4),   # the official joker
    ("yatzy", {}, 248.44, 2),                        # Scandinavian Yatzy
]


@pytest.mark.slow
@pytest.mark.parametrize(("variant", "options", "expected", "places"), PUBLISHED)
def test_the_published_expected_scores(variant, options, expected, places):
    _, V = solved(find_variant(variant).rules(**options))
    assert round(float(V[0]), places) == expected


def test_kniffel_is_yahtzee_under_other_names():
    """So its table is Yahtzee's (and its expected score); only the names differ."""
    kniffel, yahtzee = find_variant("kniffel").rules(), find_variant("yahtzee").rules()
    assert {k: v for k, v in kniffel.spec().items() if k != "base"} == \
        {k: v for k, v in yahtzee.spec().items() if k != "base"}
    assert [(b.id, b.kind, b.value, b.role) for b in kniffel.boxes] == \
        [(b.id, b.kind, b.value, b.role) for b in yahtzee.boxes]
    assert kniffel.bonuses == yahtzee.bonuses


# -- what any table satisfies ------------------------------------------------------------------


@pytest.mark.parametrize("variant", ["generala", "generala-doble", "generala-wiki", "general-pr",
                                     "double-cameroon", "yacht", pytest.param("yahtzee", marks=pytest.mark.slow)])
def test_a_scratch_never_raises_what_is_still_to_come(variant):
    """One more box closed with nothing in it leaves fewer points to come, from every reachable state."""
    solver, V = solved(find_variant(variant).rules())
    space = solver.space
    step = solver.rules.boxes_per_turn
    for closed in range(0, space.nb - step + 1, step):
        mask, u, flags = space.states(closed)
        here = V[space.index(mask, u, flags)]
        for box in range(space.nb):
            free = (mask >> box) & 1 == 0
            if step == 2:
                for other in range(box + 1, space.nb):
                    both = free & ((mask >> other) & 1 == 0)
                    after = V[space.index(mask[both] | (1 << box) | (1 << other), u[both], flags[both])]
                    assert np.all(after <= here[both] + 1e-9)
            else:
                after = V[space.close(mask[free], u[free], flags[free], box, 0)]
                assert np.all(after <= here[free] + 1e-9)


@pytest.mark.parametrize("variant", ["generala", "general-pr", "generala-doble"])
def test_advice_best_is_the_best_of_boxes_and_keeps_and_roll_3_adds_up(variant):
    rules = find_variant(variant).rules()
    solver, V = solved(rules)
    rng = random.Random(variant)
    for _ in range(40):
        sheet = random_sheet(rules, rng.randint(1, len(rules.boxes)), rng)
        counts = dice(5).rolls[rng.randrange(252)]
        roll = rng.randint(1, 3)
        a = advise(solver, V, sheet, counts, roll)
        options = [b["expected"] for b in a.boxes] + [k["expected"] for k in a.keeps]
        assert a.best["expected"] == max(options)
        assert (roll == 3) == (a.keeps == [])
        # best first; keeps worth the same to the bit (3-3-3-5 and 3-3-3-6 often are): more dice, lower faces
        order = [(-k["expected"], -len(k["keep"]), k["keep"]) for k in a.keeps]
        assert order == sorted(order)
        if roll == 3:  # a box's expected: the sheet, the box's points, and the expected rest of the new sheet
            for b in a.boxes:
                new = {**sheet, b["category"]: b["points"]}
                rest = float(V[solver.space.state_of(new)])
                assert b["expected"] == pytest.approx(sum(new.values()) + rest, abs=1e-9)
        # the expectation over the first roll is the start of the turn's expected total
        if roll == 1:
            pos = Position(solver, V, sheet)
            assert pos.turn.roll1 @ dice(5).first == pytest.approx(pos.expected - pos.points, abs=1e-9)


def test_keeps_worth_the_same_come_in_a_stated_order():
    """3-3-3-5 and 3-3-3-6 are worth the same to the bit here (the sums go in one order): lower faces first."""
    rules = find_variant("generala").rules()
    solver, V = solved(rules)
    a = advise(solver, V, rules.check_sheet({"ones": 3, "generala": 0}), (0, 0, 3, 0, 1, 1), 1)
    assert [k["keep"] for k in a.keeps[:3]] == [[3, 3, 3], [3, 3, 3, 5], [3, 3, 3, 6]]
    assert a.keeps[1]["expected"] == a.keeps[2]["expected"]
