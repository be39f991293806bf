"""House-rule options of RULES.md: each value changes what it says, bad ones are refused."""

from __future__ import annotations

import pytest

from anotador.rules import InvalidOptionError, RulesError, UnknownBoxError, build_rules, find_variant

from .conftest import points_of

ROWS = [
    # (overrides on generala, dice, served, box, points)
    ({"served_bonus": 0}, [4, 4, 4, 2, 2], True, "full", 30),
    ({"served_bonus": 10}, [4, 4, 4, 2, 2], True, "full", 40),
    ({"served_bonus": 10}, [1, 2, 3, 4, 5], True, "straight", 30),
    ({"served_bonus": 10}, [2, 2, 2, 2, 5], True, "four", 50),
    ({"served_bonus": 10}, [2, 2, 2, 2, 5], True, "twos", 8),        # never on number boxes
    ({"served_bonus": 10}, [2, 2, 2, 2, 2], True, "generala", 50),   # nor on generala
    # straight
    ({"straight": "ending_in_1"}, [3, 4, 5, 6, 1], False, "straight", 20),
    ({"straight": "ending_in_1"}, [1, 2, 3, 4, 5], False, "straight", 20),
    ({"straight": "ending_in_1"}, [1, 2, 4, 5, 6], False, "straight", 0),
    ({"straight": "circular"}, [1, 2, 4, 5, 6], True, "straight", 25),
    ({"straight": "circular"}, [1, 1, 2, 3, 4], False, "straight", 0),
    # ace_as_two: a 1 may stand for a 2 in a straight.
    ({"ace_as_two": True}, [1, 1, 3, 4, 5], False, "straight", 20),
    ({"ace_as_two": True}, [1, 3, 4, 5, 6], False, "straight", 20),
    ({"ace_as_two": True}, [1, 1, 1, 4, 5], False, "straight", 0),
    ({"ace_as_two": True}, [1, 1, 2, 3, 4], False, "straight", 0),
    ({"ace_as_two": True, "straight": "circular"}, [1, 1, 3, 4, 6], False, "straight", 20),
    ({"ace_as_two": False}, [1, 1, 3, 4, 5], False, "straight", 0),
    # points
    ({"points": {"generala": 60}}, [5, 5, 5, 5, 5], False, "generala", 60),
    ({"points": {"straight": 25}}, [2, 3, 4, 5, 6], True, "straight", 30),
    ({"points": {"straight": 25}}, [4, 4, 4, 2, 2], False, "full", 30),  # others keep the variant's
    # three_of_a_kind
    ({"three_of_a_kind": "sum"}, [3, 3, 3, 1, 2], False, "three", 12),
    ({"three_of_a_kind": "sum"}, [3, 3, 3, 1, 2], True, "three", 12),   # a sum line takes no bonus
    ({"three_of_a_kind": "sum"}, [6, 6, 6, 6, 5], False, "three", 29),
    ({"three_of_a_kind": "sum"}, [3, 3, 1, 1, 2], False, "three", 0),
    ({"three_of_a_kind": 25}, [3, 3, 3, 1, 2], False, "three", 25),
    ({"three_of_a_kind": 25}, [3, 3, 3, 1, 2], True, "three", 30),       # a fixed one does
    ({"three_of_a_kind": 25, "served_bonus": 10}, [4, 4, 4, 4, 4], True, "three", 35),
    # double_generala as a value on the generala sheet (once generala is closed: see sheet tests)
    ({"double_generala": None}, [5, 5, 5, 5, 5], False, "double_generala", 0),
]


@pytest.mark.parametrize(("overrides", "dice", "served", "box", "points"), ROWS)
def test_option_changes_points(overrides, dice, served, box, points):
    result = find_variant("generala").rules(overrides).score(dice, served)
    assert points_of(result).get(box, 0) == points


def test_a_null_double_generala_removes_the_line():
    ids = [b.id for b in find_variant("generala-doble").rules(double_generala=None).boxes]
    assert "double_generala" not in ids and len(ids) == 10


def test_double_generala_value_and_served_bonus_follow_the_variant():
    doble = find_variant("generala-doble").rules(double_generala=120, served_bonus=10).box("double_generala")
    assert (doble.value, doble.served_value) == (120, 130)
    plain = find_variant("generala").rules(double_generala=120).box("double_generala")
    assert (plain.value, plain.served_value) == (120, 120)


def test_options_are_frozen_into_an_equal_shared_rule_set():
    a = find_variant("generala").rules(served_bonus=10, points={"generala": 60})
    b = find_variant("generala").rules({"points": {"generala": 60}, "served_bonus": 10})
    assert a is b  # memoised: identical house rules cost nothing after first use
    with pytest.raises(AttributeError):
        a.options.served_bonus = 5  # type: ignore[misc]


def test_effective_options_round_trip():
    # Stored effective options rebuild the same rule set (shared sheets rely on this).
    for variant_id in ("generala", "generala-doble", "generala-wiki", "general-pr", "double-cameroon"):
        rs = find_variant(variant_id).rules()
        assert build_rules(rs.spec()) is rs
    house = build_rules({"base": "generala", "served_bonus": 10, "three_of_a_kind": "sum"})
    assert build_rules(house.spec()) is house


def test_any_answers_effective_rules_can_be_sent_back():
    for variant_id in ("generala", "generala-doble", "double-cameroon"):
        rs = find_variant(variant_id).rules()
        assert build_rules({"base": variant_id, **rs.options.as_dict()}) is rs
    with pytest.raises(InvalidOptionError):
        build_rules({"base": "double-cameroon", "straight": "circular"})  # a value still is refused


def test_build_rules_from_a_request_shape():
    rs = build_rules({"base": "generala", "served_bonus": 10, "straight": "circular", "points": {"generala": 60}})
    assert rs.variant.id == "generala"
    assert (rs.options.served_bonus, rs.options.straight, rs.box("generala").value) == (10, "circular", 60)


@pytest.mark.parametrize(
    ("spec", "error", "field"),
    [
        ({"base": "generala", "served_generala": "points"}, InvalidOptionError, "served_generala_points"),
        ({"base": "generala", "served_generala_points": 80}, InvalidOptionError, "served_generala_points"),
        ({"base": "generala", "served_bonus": -5}, InvalidOptionError, "served_bonus"),
        ({"base": "generala", "served_bonus": 5.5}, InvalidOptionError, "served_bonus"),
        ({"base": "generala", "served_bonus": True}, InvalidOptionError, "served_bonus"),
        ({"base": "generala", "served_bonus": "5"}, InvalidOptionError, "served_bonus"),
        ({"base": "generala", "points": {"chance": 20}}, UnknownBoxError, "points.chance"),
        ({"base": "generala", "points": {"small_general": 60}}, UnknownBoxError, "points.small_general"),
        ({"base": "generala", "points": {"ones": 5}}, InvalidOptionError, "points.ones"),
        ({"base": "generala", "points": {"generala": 0}}, InvalidOptionError, "points.generala"),
        ({"base": "generala", "points": {"generala": -60}}, InvalidOptionError, "points.generala"),
        ({"base": "generala", "points": ["generala"]}, InvalidOptionError, "points"),
        ({"base": "generala-doble", "points": {"double_generala": 120}}, InvalidOptionError, "points.double_generala"),
        ({"base": "generala", "three_of_a_kind": "sum", "points": {"three": 20}}, InvalidOptionError, "points.three"),
        ({"base": "generala", "three_of_a_kind": "max"}, InvalidOptionError, "three_of_a_kind"),
        ({"base": "generala", "three_of_a_kind": 0}, InvalidOptionError, "three_of_a_kind"),
        ({"base": "generala", "straight": "diagonal"}, InvalidOptionError, "straight"),
        ({"base": "generala", "ace_as_two": "yes"}, InvalidOptionError, "ace_as_two"),
        ({"base": "generala", "double_generala": -100}, InvalidOptionError, "double_generala"),
        ({"base": "generala", "double_generala_after": "never"}, InvalidOptionError, "double_generala_after"),
        ({"base": "generala", "served_generala": "maybe"}, InvalidOptionError, "served_generala"),
        ({"base": "generala", "tie_break": "coin"}, InvalidOptionError, "tie_break"),
        ({"base": "generala", "first_player": "youngest"}, InvalidOptionError, "first_player"),
        ({"base": "generala", "chance": True}, InvalidOptionError, "chance"),
        ({"base": "double-cameroon", "straight": "circular"}, InvalidOptionError, "straight"),
        ({"base": "double-cameroon", "served_bonus": 5}, InvalidOptionError, "served_bonus"),
        ({"base": "double-cameroon", "double_generala": 100}, InvalidOptionError, "double_generala"),
        ({"base": "bunco"}, InvalidOptionError, "base"),
        ({"served_bonus": 5}, InvalidOptionError, "base"),
    ],
)
def test_nonsense_is_refused_with_a_reason(spec, error, field):
    with pytest.raises(error) as info:
        build_rules(spec)
    assert isinstance(info.value, (RulesError, ValueError))
    assert info.value.field == field
    assert info.value.message  # a sentence a person can act on


def test_double_cameroon_takes_points_and_tie_rules():
    rs = build_rules({"base": "double-cameroon", "points": {"five_of_a_kind": 60}, "tie_break": "roll_off"})
    assert rs.box("five_of_a_kind").value == 60 and rs.options.tie_break == "roll_off"
