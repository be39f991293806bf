"""The Yahtzee family as data: Yahtzee, Kniffel, Yatzy and Yacht, every box, every joker case.

Rows are (variant, dice, box, points) on an empty sheet (0: the box does not
take the roll); the joker table spells out every case of a further Yahtzee.
"""

from __future__ import annotations

import itertools

import pytest

from anotador.rules import VARIANTS, Choice, Game, NotQualifiedError, find_variant

from .conftest import points_of

UPPER = ["ones", "twos", "threes", "fours", "fives", "sixes"]

ROWS = [
    # -- Yahtzee (and Kniffel: the same rules) -------------------------------------------
    *[(v, [4, 4, 4, 2, 6], box, pts) for v in ("yahtzee", "kniffel")
      for box, pts in (("fours", 12), ("twos", 2), ("sixes", 6), ("ones", 0))],
    ("yahtzee", [3, 3, 3, 5, 6], "three_of_a_kind", 20),     # the sum of all five dice
    ("yahtzee", [3, 3, 5, 5, 6], "three_of_a_kind", 0),
    ("yahtzee", [2, 2, 2, 2, 6], "four_of_a_kind", 14),
    ("yahtzee", [2, 2, 2, 6, 6], "four_of_a_kind", 0),
    ("yahtzee", [5, 5, 5, 5, 5], "four_of_a_kind", 25),      # five of a kind are four too
    ("yahtzee", [5, 5, 5, 5, 5], "three_of_a_kind", 25),
    ("yahtzee", [2, 2, 2, 3, 3], "full_house", 25),
    ("yahtzee", [5, 5, 5, 5, 5], "full_house", 0),           # not a full house (only a joker can be)
    ("yahtzee", [1, 2, 3, 4, 6], "small_straight", 30),      # four in a run
    ("yahtzee", [3, 4, 5, 6, 6], "small_straight", 30),
    ("yahtzee", [2, 3, 4, 5, 2], "small_straight", 30),
    ("yahtzee", [1, 2, 3, 5, 6], "small_straight", 0),
    ("yahtzee", [1, 2, 3, 4, 5], "large_straight", 40),
    ("yahtzee", [2, 3, 4, 5, 6], "large_straight", 40),
    ("yahtzee", [1, 2, 3, 4, 5], "small_straight", 30),      # a large straight is small too
    ("yahtzee", [1, 2, 3, 4, 6], "large_straight", 0),
    ("yahtzee", [6, 6, 6, 6, 6], "yahtzee", 50),
    ("yahtzee", [6, 6, 6, 6, 5], "yahtzee", 0),
    ("yahtzee", [1, 3, 4, 5, 6], "chance", 19),
    ("kniffel", [2, 2, 2, 3, 3], "full_house", 25),
    ("kniffel", [4, 4, 4, 4, 4], "yahtzee", 50),
    ("kniffel", [1, 1, 2, 3, 4], "chance", 11),
    # -- Yatzy: pairs and kinds score only their dice -------------------------------------
    ("yatzy", [3, 3, 5, 5, 6], "one_pair", 10),              # the highest pair
    ("yatzy", [3, 3, 5, 5, 6], "two_pairs", 16),
    ("yatzy", [4, 4, 4, 4, 1], "two_pairs", 0),              # two pairs of different numbers
    ("yatzy", [2, 2, 2, 5, 5], "two_pairs", 14),             # a full house holds two pairs
    ("yatzy", [1, 2, 3, 4, 6], "one_pair", 0),
    ("yatzy", [3, 3, 3, 5, 6], "three_of_a_kind", 9),
    ("yatzy", [6, 6, 6, 6, 2], "three_of_a_kind", 18),
    ("yatzy", [6, 6, 6, 6, 2], "four_of_a_kind", 24),
    ("yatzy", [5, 5, 5, 5, 5], "four_of_a_kind", 20),
    ("yatzy", [1, 2, 3, 4, 5], "small_straight", 15),
    ("yatzy", [2, 3, 4, 5, 6], "small_straight", 0),         # 1-2-3-4-5 only
    ("yatzy", [2, 3, 4, 5, 6], "large_straight", 20),
    ("yatzy", [1, 2, 3, 4, 5], "large_straight", 0),
    ("yatzy", [2, 2, 2, 6, 6], "full_house", 18),             # the sum of all dice
    ("yatzy", [2, 2, 2, 2, 2], "full_house", 0),             # a real three and two
    ("yatzy", [1, 1, 2, 5, 6], "chance", 15),
    ("yatzy", [2, 2, 2, 2, 2], "yatzy", 50),
    ("yatzy", [6, 6, 6, 6, 5], "fives", 5),
    # -- Yacht (1938) ---------------------------------------------------------------------
    ("yacht", [3, 3, 3, 6, 6], "full_house", 21),
    ("yacht", [3, 3, 3, 3, 6], "full_house", 0),
    ("yacht", [4, 4, 4, 4, 2], "four_of_a_kind", 16),        # the four dice
    ("yacht", [4, 4, 4, 4, 4], "four_of_a_kind", 16),
    ("yacht", [1, 2, 3, 4, 5], "little_straight", 30),
    ("yacht", [2, 3, 4, 5, 6], "big_straight", 30),
    ("yacht", [2, 3, 4, 5, 6], "little_straight", 0),
    ("yacht", [5, 5, 6, 6, 1], "choice", 23),
    ("yacht", [1, 1, 1, 1, 1], "yacht", 50),
    ("yacht", [1, 1, 1, 1, 1], "ones", 5),
]


@pytest.mark.parametrize(("variant", "dice", "box", "points"), ROWS)
def test_box_points(variant, dice, box, points):
    result = find_variant(variant).rules().score(dice)
    assert points_of(result).get(box, 0) == points
    assert not result.instant_win and result.bonus == 0


@pytest.mark.parametrize(("variant", "boxes", "rounds", "best"), [
    ("yahtzee", UPPER + ["three_of_a_kind", "four_of_a_kind", "full_house", "small_straight", "large_straight",
                         "yahtzee", "chance"], 13, None),
    ("kniffel", UPPER + ["three_of_a_kind", "four_of_a_kind", "full_house", "small_straight", "large_straight",
                         "yahtzee", "chance"], 13, None),
    ("yatzy", UPPER + ["one_pair", "two_pairs", "three_of_a_kind", "four_of_a_kind", "small_straight",
                       "large_straight", "full_house", "chance", "yatzy"], 15, 374),
    ("yacht", UPPER + ["full_house", "four_of_a_kind", "little_straight", "big_straight", "choice", "yacht"], 12, None),
])
def test_sheets_rounds_and_the_best_total(variant, boxes, rounds, best):
    rules = find_variant(variant).rules()
    assert [b.id for b in rules.boxes] == boxes and rules.rounds == rounds
    if best:  # Yatzy's best total is 374: every box at its most, and the bonus
        top = {b.id: rules.max_points(b.id) for b in rules.boxes}
        assert rules.total(top) == best


@pytest.mark.parametrize(("variant", "bonus"), [("yahtzee", 35), ("kniffel", 35), ("yatzy", 50), ("yacht", None)])
def test_the_upper_bonus(variant, bonus):
    rules = find_variant(variant).rules()
    at_63 = {"ones": 3, "twos": 6, "threes": 9, "fours": 12, "fives": 15, "sixes": 18}
    assert rules.subtotals(at_63) == ({"upper_bonus": 63} if bonus else {})
    assert rules.total(at_63) == 63 + (bonus or 0)
    assert rules.total({**at_63, "sixes": 12}) == 57   # 62 up top: no bonus


# -- the joker ---------------------------------------------------------------------------
#
# A further Yahtzee (five of a kind with the yahtzee box closed). The cases:
# the yahtzee box holds 50 / 0 / is free; the matching upper box is free /
# closed; the lower boxes are free / closed. Forced (the official rule) and
# free (Verhoeff's convention).

LOWER = ["three_of_a_kind", "four_of_a_kind", "full_house", "small_straight", "large_straight", "chance"]


def _sheet(yahtzee, upper_closed, lower_closed):
    sheet = {} if yahtzee is None else {"yahtzee": yahtzee}
    if upper_closed:
        sheet["fours"] = 8
    if lower_closed:
        sheet.update({"three_of_a_kind": 0, "four_of_a_kind": 0, "full_house": 0, "small_straight": 0,
                      "large_straight": 0, "chance": 0})
    return sheet


JOKER_CASES = []
for joker, yahtzee, upper_closed, lower_closed in itertools.product(("forced", "free"), (50, 0, None),
                                                                     (False, True), (False, True)):
    bonus = 100 if yahtzee == 50 else 0
    if yahtzee is None:
        # not a further Yahtzee: plain scoring, the yahtzee box takes it, no bonus
        expected = {"yahtzee": 50, "fours": 0 if upper_closed else 20}
        if not lower_closed:
            expected.update({"three_of_a_kind": 20, "four_of_a_kind": 20, "chance": 20, "full_house": 0,
                             "small_straight": 0, "large_straight": 0})
        allowed = None
    elif joker == "forced":
        if not upper_closed:                    # the matching upper box, and only it
            expected, allowed = {"fours": 20}, {"fours"}
        elif not lower_closed:                  # any free lower box, at full value
            expected = {"three_of_a_kind": 20, "four_of_a_kind": 20, "full_house": 25, "small_straight": 30,
                        "large_straight": 40, "chance": 20}
            allowed = set(LOWER)
        else:                                   # any free upper box, at 0
            expected, allowed = {b: 0 for b in UPPER if b != "fours"}, {b for b in UPPER if b != "fours"}
    else:                                       # free: any box; 25/30/40 only with the upper box closed
        expected = {"fours": 0 if upper_closed else 20}
        if not lower_closed:
            expected.update({"three_of_a_kind": 20, "four_of_a_kind": 20, "chance": 20,
                             "full_house": 25 if upper_closed else 0, "small_straight": 30 if upper_closed else 0,
                             "large_straight": 40 if upper_closed else 0})
        allowed = None
    JOKER_CASES.append((joker, yahtzee, upper_closed, lower_closed, expected, allowed,
                        bonus if yahtzee is not None else 0))


@pytest.mark.parametrize(("joker", "yahtzee", "upper_closed", "lower_closed", "expected", "allowed", "bonus"),
                         JOKER_CASES)
def test_a_further_yahtzee(joker, yahtzee, upper_closed, lower_closed, expected, allowed, bonus):
    rules = find_variant("yahtzee").rules(joker=joker)
    sheet = _sheet(yahtzee, upper_closed, lower_closed)
    result = rules.score([4, 4, 4, 4, 4], sheet=sheet)
    got = points_of(result)
    for box, pts in expected.items():
        assert got.get(box, 0) == pts, (box, got)
    if allowed is not None:
        assert set(result.scratch) == allowed and set(got) <= allowed
    else:
        assert set(result.scratch) == {b.id for b in rules.boxes if b.id not in sheet}
    assert result.bonus == bonus


def test_the_yahtzee_bonus_can_be_turned_off():
    rules = find_variant("yahtzee").rules(yahtzee_bonus=0)
    assert rules.score([2] * 5, sheet={"yahtzee": 50}).bonus == 0
    assert find_variant("kniffel").rules().score([2] * 5, sheet={"yahtzee": 50}).bonus == 100


def test_a_game_counts_the_bonus_and_holds_the_forced_joker():
    game = Game(find_variant("yahtzee").rules(), 2)
    game.play(0, [6, 6, 6, 6, 6], False, [Choice("yahtzee")])
    game.play(1, None, False, [Choice("chance", True)])
    with pytest.raises(NotQualifiedError):            # the sixes box is free: it must take it
        game.play(0, [6, 6, 6, 6, 6], False, [Choice("large_straight")])
    with pytest.raises(NotQualifiedError):            # nor may another box be scratched instead
        game.play(0, [6, 6, 6, 6, 6], False, [Choice("ones", True)])
    play = game.play(0, [6, 6, 6, 6, 6], False, [Choice("sixes")])
    assert play.boxes[0].points == 30 and play.boxes[0].bonus == 100
    assert game.totals() == [50 + 30 + 100, 0]
    game.play(1, [6, 6, 6, 6, 6], False, [Choice("yahtzee")])
    game.play(0, [6, 6, 6, 6, 6], False, [Choice("large_straight")])   # sixes closed: a lower box at full value
    assert game.sheets[0]["large_straight"] == 40 and game.totals()[0] == 50 + 30 + 100 + 40 + 100


def test_yahtzee_has_no_served_bonus_and_no_instant_win():
    rules = find_variant("yahtzee").rules()
    assert points_of(rules.score([2, 2, 2, 3, 3], served=True))["full_house"] == 25
    assert not rules.score([5] * 5, served=True).instant_win


def test_kniffel_calls_its_five_of_a_kind_kniffel():
    rules = find_variant("kniffel").rules()
    assert rules.names_of("yahtzee")["en"] == "Kniffel" and rules.names_of("chance")["de"] == "Chance"
    assert find_variant("yahtzee").rules().names_of("yahtzee")["en"] == "Yahtzee"


@pytest.mark.parametrize(("variant", "options"), [(v, {}) for v in VARIANTS if VARIANTS[v].dice == 5] + [
    ("generala", {"served_bonus": 0, "served_generala": "none"}),
    ("generala", {"served_bonus": 0, "served_generala": "win_if_open"}),
    ("generala", {"served_bonus": 0, "served_generala": "points", "served_generala_points": 80}),
])
def test_served_matters_exactly_when_some_roll_scores_or_wins_differently(variant, options):
    """What the page and the API say of "served" is what the engine does, roll by roll."""
    rules = find_variant(variant).rules(**options)
    differs = any(rules.score(list(dice), True) != rules.score(list(dice), False)
                  for dice in itertools.combinations_with_replacement(range(1, 7), 5))
    assert rules.served_matters == differs
