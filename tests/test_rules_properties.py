"""Properties that hold for every roll on every sheet under every rule set."""

from __future__ import annotations

from collections import Counter

from .toolkit import needs

needs("hypothesis", "pip install hypothesis")
from hypothesis import given, settings
from hypothesis import strategies as st

from anotador.rules import VARIANTS, Variant, find_variant

die = st.integers(min_value=1, max_value=6)
five_dice = st.lists(die, min_size=5, max_size=5)
ONE_BOX = [v for v in VARIANTS.values() if v.boxes_per_turn == 1]

#: Option overrides worth exploring: every value the rules reference names.
generala_overrides = st.fixed_dictionaries(
    {},
    optional={
        "served_bonus": st.sampled_from([0, 5, 10]),
        "straight": st.sampled_from(["standard", "ending_in_1", "circular"]),
        "ace_as_two": st.booleans(),
        "double_generala": st.sampled_from([None, 100, 120]),
        "double_generala_after": st.sampled_from(["closed", "scored"]),
        "served_generala": st.sampled_from(["win_always", "win_if_open", "win_unless_scratched", "none"]),
        "three_of_a_kind": st.sampled_from([None, "sum", 20, 25]),
        "points": st.sampled_from([{}, {"straight": 25}, {"four": 45}]),
    },
)
yahtzee_overrides = st.fixed_dictionaries(
    {},
    optional={
        "joker": st.sampled_from(["forced", "free"]),
        "yahtzee_bonus": st.sampled_from([0, 100]),
        "points": st.sampled_from([{}, {"full_house": 30}, {"large_straight": 45}]),
    },
)


def overrides_for(variant):
    if variant.boxes_per_turn > 1:
        return st.just({})
    if "joker" in variant.applicable:
        return yahtzee_overrides
    if variant.family == "yahtzee":
        return st.just({})
    return generala_overrides


@st.composite
def rules_and_sheet(draw, variants=ONE_BOX):
    """A rule set, and a sheet of that rule set that a game could reach."""
    variant: Variant = draw(st.sampled_from(variants))
    rules = variant.rules(draw(overrides_for(variant)))
    per_turn = rules.boxes_per_turn
    closed_n = draw(st.integers(0, rules.rounds - 1)) * per_turn
    closed = draw(st.permutations([b.id for b in rules.boxes]))[:closed_n]
    sheet = {}
    for box_id in closed:
        sheet[box_id] = draw(st.sampled_from(sorted(rules.possible_points[box_id])))
    # Drop double-generala points the sheet could not have reached.
    double = "double_generala"
    if sheet.get(double):
        try:
            rules.check_sheet(sheet)
        except ValueError:
            sheet[double] = 0
    return rules, sheet


@given(rules_and_sheet(), five_dice, st.booleans())
def test_scratch_is_offered_for_every_free_box(rs, dice, served):
    rules, sheet = rs
    result = rules.score(dice, served, sheet)
    allowed = rules.allowed(tuple(dice.count(f) for f in range(1, 7)), sheet)  # a forced Yahtzee joker
    assert result.scratch == tuple(b.id for b in rules.boxes if b.id not in sheet
                                   and (allowed is None or b.id in allowed))
    assert result.scratch  # a turn always has somewhere to go


@given(rules_and_sheet(), five_dice, st.booleans())
def test_options_are_free_positive_and_best_first(rs, dice, served):
    rules, sheet = rs
    result = rules.score(dice, served, sheet)
    order = {b.id: i for i, b in enumerate(rules.boxes)}
    assert all(o.points > 0 and o.category not in sheet for o in result.options)
    keys = [(-o.points, order[o.category]) for o in result.options]
    assert keys == sorted(keys)


@given(rules_and_sheet(), five_dice)
def test_served_never_scores_less(rs, dice):
    rules, sheet = rs
    plain = {o.category: o.points for o in rules.score(dice, False, sheet).options}
    result = rules.score(dice, True, sheet)
    served = {o.category: o.points for o in result.options}
    for box, pts in plain.items():
        if result.instant_win and rules.variant.big_general and rules.box(box).role == "generala":
            # general-pr: served, it is the Big General, which wins instead
            assert box not in served
            continue
        assert served.get(box, 0) >= pts


@given(rules_and_sheet(), five_dice, st.booleans())
def test_points_never_exceed_the_box_maximum(rs, dice, served):
    rules, sheet = rs
    for o in rules.score(dice, served, sheet).options:
        assert o.points <= rules.max_points(o.category)
        assert o.points in rules.possible_points[o.category]


@given(rules_and_sheet(), five_dice, st.booleans(), st.randoms(use_true_random=False))
def test_dice_order_never_matters(rs, dice, served, rnd):
    rules, sheet = rs
    shuffled = list(dice)
    rnd.shuffle(shuffled)
    assert rules.score(dice, served, sheet) == rules.score(shuffled, served, sheet)


@given(rules_and_sheet(), five_dice, st.booleans())
def test_instant_win_needs_five_equal_served_dice(rs, dice, served):
    rules, sheet = rs
    if rules.score(dice, served, sheet).instant_win:
        assert served and len(set(dice)) == 1


@settings(max_examples=40, deadline=None)
@given(rules_and_sheet([find_variant("double-cameroon")]), st.lists(die, min_size=10, max_size=10),
       st.integers(1, 100))
def test_cameroon_assignments_are_legal(rs, dice, limit):
    rules, sheet = rs
    found = rules.assignments(dice, sheet=sheet, limit=limit)
    free = {b.id for b in rules.boxes} - set(sheet)
    assert 1 <= len(found) <= limit
    assert [a.points for a in found] == sorted((a.points for a in found), reverse=True)
    for a in found:
        (b1, b2) = a.placements
        assert b1.category != b2.category and {b1.category, b2.category} <= free
        assert Counter(b1.dice) + Counter(b2.dice) == Counter(dice)
        assert a.points == b1.points + b2.points
        # The placements score what the player's own split would score there.
        g1, g2 = rules.score_groups(dice, [list(b1.dice), list(b2.dice)], sheet=sheet)
        assert dict((o.category, o.points) for o in g1.options).get(b1.category, 0) == b1.points
        assert dict((o.category, o.points) for o in g2.options).get(b2.category, 0) == b2.points
