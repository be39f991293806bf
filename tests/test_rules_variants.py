"""Every scoring sentence of RULES.md for the built-in variants, as tables.

Each row is (variant, dice, served, box, points): the points that roll scores
in that box on an empty sheet (0 = the box does not take it). Comments cite
the RULES.md sentence or the seed's worked example.
"""

from __future__ import annotations

import pytest

from anotador.rules import VARIANTS, find_variant

from .conftest import points_of

GENERALA_FAMILY = ("generala", "generala-doble", "generala-wiki", "general-pr")

ROWS = [
    # Number boxes: sum of the dice showing that number (4-4-4-2-6).
    *[(v, [4, 4, 4, 2, 6], False, box, pts) for v in GENERALA_FAMILY
      for box, pts in (("fours", 12), ("twos", 2), ("sixes", 6), ("ones", 0), ("threes", 0), ("fives", 0))],
    ("generala", [6, 6, 6, 6, 1], False, "sixes", 24),  # 000: four dice showing 6 → 24
    ("generala", [6, 6, 6, 6, 1], True, "sixes", 24),   # no served bonus on number boxes
    ("generala-doble", [6, 6, 6, 2, 3], False, "sixes", 18),  # 001: three sixes score 18
    # 004 number-box examples.
    ("general-pr", [1, 5, 3, 6, 6], False, "sixes", 12),
    ("general-pr", [2, 4, 5, 1, 3], False, "fives", 5),
    ("general-pr", [4, 1, 6, 4, 4], False, "fours", 12),
    ("general-pr", [3, 1, 5, 6, 3], False, "threes", 6),
    ("general-pr", [4, 5, 4, 3, 1], False, "twos", 0),
    ("general-pr", [5, 1, 4, 6, 6], False, "ones", 1),
    # Straight: standard runs only; fixed value plus the served bonus.
    ("generala", [1, 2, 3, 4, 5], False, "straight", 20),
    ("generala", [5, 4, 3, 2, 1], True, "straight", 25),
    ("generala", [2, 3, 4, 5, 6], False, "straight", 20),
    ("generala", [3, 4, 5, 6, 1], False, "straight", 0),
    ("generala", [1, 2, 4, 5, 6], False, "straight", 0),
    ("generala", [1, 1, 3, 4, 5], False, "straight", 0),   # ace_as_two is off by default
    ("generala", [1, 2, 3, 4, 4], False, "straight", 0),
    ("generala-doble", [2, 3, 4, 5, 6], True, "straight", 25),
    ("general-pr", [2, 3, 4, 5, 6], True, "straight", 25),  # 004: 25 on first throw
    ("general-pr", [2, 3, 4, 5, 6], False, "straight", 20),
    ("general-pr", [3, 4, 5, 6, 1], False, "straight", 0),
    # generala-wiki: circular: any five distinct dice.
    ("generala-wiki", [3, 4, 5, 6, 1], False, "straight", 20),
    ("generala-wiki", [1, 2, 4, 5, 6], False, "straight", 20),
    ("generala-wiki", [1, 2, 3, 4, 6], True, "straight", 25),
    ("generala-wiki", [1, 1, 3, 4, 5], False, "straight", 0),
    # Full: three of one number and two of another; five equal is not a full.
    ("generala", [4, 4, 4, 2, 2], False, "full", 30),
    ("generala", [4, 4, 4, 2, 2], True, "full", 35),
    ("generala-wiki", [5, 5, 5, 3, 3], False, "full", 30),
    ("general-pr", [2, 2, 2, 4, 4], True, "full", 35),
    ("generala", [5, 5, 5, 5, 5], False, "full", 0),
    ("generala", [5, 5, 5, 5, 5], True, "full", 0),
    ("generala", [4, 4, 4, 2, 6], False, "full", 0),
    ("generala", [4, 4, 2, 2, 6], False, "full", 0),
    # Four: at least four equal dice; five equal also qualify.
    ("generala", [2, 2, 2, 2, 6], False, "four", 40),
    ("generala", [2, 2, 2, 2, 6], True, "four", 45),
    ("generala", [5, 5, 5, 5, 5], False, "four", 40),
    ("generala-doble", [5, 5, 5, 5, 5], True, "four", 45),
    ("general-pr", [3, 3, 3, 3, 6], True, "four", 45),
    ("general-pr", [3, 3, 3, 3, 6], False, "four", 40),  # 004: served four rerolled for more → 40
    ("generala", [2, 2, 2, 6, 6], False, "four", 0),
    # Generala: five equal dice, fixed value, no served bonus.
    ("generala", [3, 3, 3, 3, 3], False, "generala", 50),
    ("generala", [3, 3, 3, 3, 3], True, "generala", 50),
    ("generala-wiki", [6, 6, 6, 6, 6], False, "generala", 50),
    ("generala", [3, 3, 3, 3, 2], False, "generala", 0),
    # 004: five 3s on a later throw: Small General 60, Four 40 or Threes 15.
    ("general-pr", [3, 3, 3, 3, 3], False, "small_general", 60),
    ("general-pr", [3, 3, 3, 3, 3], False, "four", 40),
    ("general-pr", [3, 3, 3, 3, 3], False, "threes", 15),
    ("general-pr", [3, 3, 3, 3, 2], False, "small_general", 0),
    # 004: five of a kind on the FIRST throw is the Big General, which wins;
    # it is not a Small General ("on the second or third throw"). It may go
    # in four (45 served) or its number box.
    ("general-pr", [3, 3, 3, 3, 3], True, "small_general", 0),
    ("general-pr", [3, 3, 3, 3, 3], True, "four", 45),
    ("general-pr", [3, 3, 3, 3, 3], True, "threes", 15),
]


@pytest.mark.parametrize(("variant", "dice", "served", "box", "points"), ROWS)
def test_box_points(variant, dice, served, box, points):
    result = find_variant(variant).rules().score(dice, served)
    assert points_of(result).get(box, 0) == points
    assert box in result.scratch  # an empty sheet: every box may be scratched


def test_five_equal_may_go_in_any_box_it_fits():
    # 3-3-3-3-3 → generala, four, or threes 15; highest first.
    result = find_variant("generala").rules().score([3, 3, 3, 3, 3])
    assert [(o.category, o.points) for o in result.options] == [("generala", 50), ("four", 40), ("threes", 15)]


def test_options_are_highest_first_ties_in_sheet_order():
    # 1-2-3-4-5 not served: straight 20, then fives 5, fours 4, ... ones 1.
    result = find_variant("generala").rules().score([1, 2, 3, 4, 5])
    assert [o.category for o in result.options] == ["straight", "fives", "fours", "threes", "twos", "ones"]
    # Ties keep sheet order: 2-2-4-1-3 → twos 4 and fours 4 tie; twos first.
    result = find_variant("generala").rules().score([2, 2, 4, 1, 3])
    assert [(o.category, o.points) for o in result.options][:2] == [("twos", 4), ("fours", 4)]


@pytest.mark.parametrize(
    ("variant", "boxes", "rounds"),
    [
        ("generala", ["ones", "twos", "threes", "fours", "fives", "sixes", "straight", "full", "four", "generala"], 10),
        ("generala-doble", ["ones", "twos", "threes", "fours", "fives", "sixes", "straight", "full", "four",
                            "generala", "double_generala"], 11),
        ("generala-wiki", ["ones", "twos", "threes", "fours", "fives", "sixes", "straight", "full", "four",
                           "generala"], 10),
        ("general-pr", ["ones", "twos", "threes", "fours", "fives", "sixes", "straight", "full", "four",
                        "small_general"], 10),
        ("double-cameroon", ["ones", "twos", "threes", "fours", "fives", "sixes", "five_of_a_kind",
                             "big_cameroon", "little_cameroon", "full"], 5),
    ],
)
def test_sheets_and_rounds(variant, boxes, rounds):
    rules = find_variant(variant).rules()
    assert [b.id for b in rules.boxes] == boxes
    assert rules.rounds == rounds


@pytest.mark.parametrize(
    ("variant", "box", "points", "served_points"),
    [
        ("generala", "straight", 20, 25), ("generala", "full", 30, 35), ("generala", "four", 40, 45),
        ("generala", "generala", 50, 50),
        ("generala-doble", "double_generala", 100, 105),
        ("generala-wiki", "straight", 20, 25),
        ("general-pr", "straight", 20, 25), ("general-pr", "full", 30, 35), ("general-pr", "four", 40, 45),
        ("general-pr", "small_general", 60, 0),   # served, five of a kind is the Big General
        ("double-cameroon", "five_of_a_kind", 50, 50), ("double-cameroon", "big_cameroon", 30, 30),
        ("double-cameroon", "little_cameroon", 21, 21),
    ],
)
def test_fixed_values(variant, box, points, served_points):
    b = find_variant(variant).rules().box(box)
    assert (b.value, b.served_value) == (points, served_points)


def test_general_pr_best_possible_total_is_270():
    # 004: "The best possible score is 270 points."
    rules = find_variant("general-pr").rules()
    assert sum(rules.max_points(b.id) for b in rules.boxes) == 270
    # 5+10+15+20+25+30 + 25 + 35 + 45 + 60
    assert [rules.max_points(b.id) for b in rules.boxes] == [5, 10, 15, 20, 25, 30, 25, 35, 45, 60]


@pytest.mark.parametrize(
    ("variant", "tie_break", "first_player", "served_generala", "straight"),
    [
        ("generala", "share", "highest_die", "win_always", "standard"),
        ("generala-doble", "most_generalas", "highest_die", "win_if_open", "standard"),
        ("generala-wiki", "share", "highest_die", "win_unless_scratched", "circular"),
        ("general-pr", "share", "lowest_die", "win_always", "standard"),
        ("double-cameroon", "share", "lowest_die", None, None),   # a form of General: lowest die starts
    ],
)
def test_variant_options(variant, tie_break, first_player, served_generala, straight):
    o = find_variant(variant).rules().options
    assert (o.tie_break, o.first_player, o.served_generala, o.straight) == (
        tie_break, first_player, served_generala, straight,
    )


def test_variant_defaults_for_double_generala():
    assert find_variant("generala-doble").rules().options.double_generala_after == "closed"
    wiki = find_variant("generala-wiki").rules()
    assert wiki.options.double_generala is None and wiki.options.double_generala_after == "scored"
    assert find_variant("generala").rules().options.served_bonus == 5
    assert find_variant("double-cameroon").rules().options.served_bonus is None


def test_every_variant_and_box_has_names_in_every_language():
    from anotador.rules import BOX_NAMES, BOX_SHORT, LANGUAGES, WORDS

    for variant in VARIANTS.values():
        assert set(variant.names) == set(variant.description) == set(LANGUAGES)
        assert all(variant.names.values()) and all(variant.description.values())
        for box in variant.default_rules.boxes:
            assert set(BOX_NAMES[box.id]) == set(BOX_SHORT[box.id]) == set(LANGUAGES), box.id
            assert all(BOX_NAMES[box.id].values()) and all(BOX_SHORT[box.id].values())
    assert all(set(w) == set(LANGUAGES) for w in WORDS.values())


def test_general_pr_big_general_wins_and_is_no_small_general():
    rules = find_variant("general-pr").rules()
    result = rules.score([5, 5, 5, 5, 5], served=True)
    assert result.instant_win
    assert [(o.category, o.points) for o in result.options] == [("four", 45), ("fives", 25)]
    # on a later throw it is the Small General, and wins nothing
    later = rules.score([5, 5, 5, 5, 5], served=False)
    assert not later.instant_win and later.options[0] == ("small_general", 60)
    # whatever the sheet: the Big General wins even with the Small General closed
    assert rules.score([5, 5, 5, 5, 5], True, {"small_general": 60}).instant_win


@pytest.mark.parametrize(
    ("overrides", "served_points", "wins"),
    [
        ({}, 0, True),
        ({"served_generala": "win_if_open"}, 0, True),
        ({"served_generala": "win_unless_scratched"}, 0, True),
        # a table that plays the Big General for points writes it on the line
        ({"served_generala": "points", "served_generala_points": 80}, 80, False),
        # ... or without any instant win: a plain Small General
        ({"served_generala": "none"}, 60, False),
    ],
)
def test_general_pr_big_general_under_house_rules(overrides, served_points, wins):
    rules = find_variant("general-pr").rules(overrides)
    result = rules.score([2, 2, 2, 2, 2], served=True)
    assert points_of(result).get("small_general", 0) == served_points
    assert result.instant_win is wins


def test_big_general_only_in_general_pr():
    assert [v.id for v in VARIANTS.values() if v.big_general] == ["general-pr"]
    # Generala's served generala is a generala: it may be written on the line.
    assert points_of(find_variant("generala").rules().score([2, 2, 2, 2, 2], True))["generala"] == 50
