"""Rules that look at the player's sheet: free boxes, double generala, instant wins."""

from __future__ import annotations

import pytest

from anotador.rules import InvalidSheetError, NoFreeBoxError, UnknownBoxError, find_variant

from .conftest import points_of

FIVE_THREES = [3, 3, 3, 3, 3]


def test_closed_boxes_are_not_offered_and_cannot_be_scratched(rules):
    result = rules("generala").score([6, 6, 6, 1, 1], sheet={"full": 30, "sixes": 0})
    assert "full" not in points_of(result) and "sixes" not in points_of(result)
    assert "full" not in result.scratch and "sixes" not in result.scratch
    assert points_of(result) == {"ones": 2}


def test_scratch_lists_every_free_box_in_sheet_order(rules):
    result = rules("generala").score([1, 2, 3, 4, 6], sheet={"twos": 2, "straight": 0})
    assert result.scratch == ("ones", "threes", "fours", "fives", "sixes", "full", "four", "generala")


# -- double generala ----------------------------------------------------------

@pytest.mark.parametrize(
    ("variant", "overrides", "sheet", "served", "points"),
    [
        # generala-doble: double_generala_after closed: once generala is scored or scratched.
        ("generala-doble", {}, {}, False, None),
        ("generala-doble", {}, {"generala": 50}, False, 100),
        ("generala-doble", {}, {"generala": 0}, False, 100),
        ("generala-doble", {}, {"generala": 0}, True, 105),
        # generala-wiki with the option: only after generala was scored with points.
        ("generala-wiki", {"double_generala": 100}, {}, False, None),
        ("generala-wiki", {"double_generala": 100}, {"generala": 0}, False, None),
        ("generala-wiki", {"double_generala": 100}, {"generala": 50}, False, 100),
        ("generala-wiki", {"double_generala": 100}, {"generala": 50}, True, 100),  # no served bonus there
        # A house rule: generala with double 120, after scored.
        ("generala", {"double_generala": 120, "double_generala_after": "scored"}, {"generala": 50}, True, 120),
        ("generala", {"double_generala": 120, "double_generala_after": "scored"}, {"generala": 0}, True, None),
    ],
)
def test_double_generala_opens_after_generala(rules, variant, overrides, sheet, served, points):
    result = rules(variant, **overrides).score(FIVE_THREES, served, sheet)
    assert points_of(result).get("double_generala") == points
    assert "double_generala" in result.scratch  # a closed-off double can always be scratched


def test_double_generala_needs_five_equal(rules):
    result = rules("generala-doble").score([3, 3, 3, 3, 2], sheet={"generala": 50})
    assert "double_generala" not in points_of(result)


def test_double_generala_sits_after_generala(rules):
    ids = [b.id for b in rules("generala", double_generala=100, three_of_a_kind="sum").boxes]
    assert ids[-2:] == ["generala", "double_generala"]
    assert ids[6] == "three"


# -- served generala ----------------------------------------------------------

@pytest.mark.parametrize(
    ("variant", "overrides", "sheet", "wins"),
    [
        # generala: win_always, whatever the sheet.
        ("generala", {}, {}, True),
        ("generala", {}, {"generala": 0}, True),
        ("generala", {}, {"generala": 50}, True),
        # generala-doble: win_if_open.
        ("generala-doble", {}, {}, True),
        ("generala-doble", {}, {"generala": 50}, False),
        ("generala-doble", {}, {"generala": 0}, False),
        # generala-wiki: win_unless_scratched.
        ("generala-wiki", {}, {}, True),
        ("generala-wiki", {}, {"generala": 50}, True),
        ("generala-wiki", {}, {"generala": 0}, False),
        # general-pr: the Big General wins at once, whatever the sheet.
        ("general-pr", {}, {"small_general": 60}, True),
        ("general-pr", {}, {"small_general": 0}, True),
        # House rules: points, none.
        ("generala", {"served_generala": "points", "served_generala_points": 80}, {}, False),
        ("generala", {"served_generala": "none"}, {}, False),
        ("generala", {"served_generala": "win_if_open"}, {"generala": 0}, False),
        ("generala", {"served_generala": "win_unless_scratched"}, {"generala": 50}, True),
    ],
)
def test_served_generala_instant_win(rules, variant, overrides, sheet, wins):
    r = rules(variant, **overrides)
    assert r.score(FIVE_THREES, True, sheet).instant_win is wins
    # Never without served dice, and never without five equal dice.
    assert r.score(FIVE_THREES, False, sheet).instant_win is False
    assert r.score([3, 3, 3, 3, 4], True, sheet).instant_win is False


def test_an_instant_win_still_lists_the_options(rules):
    result = rules("generala").score(FIVE_THREES, True)
    assert result.instant_win
    assert points_of(result) == {"generala": 50, "four": 45, "threes": 15}


def test_served_generala_closed_scores_normally_in_generala_doble(rules):
    # 001: with generala closed, five of a kind served scores four 45 or double 105.
    result = rules("generala-doble").score(FIVE_THREES, True, {"generala": 0, "ones": 3})
    assert not result.instant_win
    assert [(o.category, o.points) for o in result.options] == [
        ("double_generala", 105), ("four", 45), ("threes", 15),
    ]


def test_served_generala_for_points(rules):
    r = rules("generala", served_generala="points", served_generala_points=80)
    assert points_of(r.score(FIVE_THREES, True))["generala"] == 80
    assert points_of(r.score(FIVE_THREES, False))["generala"] == 50


def test_served_generala_none_scores_as_plain_generala(rules):
    assert points_of(rules("generala", served_generala="none").score(FIVE_THREES, True))["generala"] == 50


def test_generalas_counted_for_the_tie_break(rules):
    r = rules("generala-doble")
    assert r.generalas({"generala": 50, "double_generala": 100}) == 2
    assert r.generalas({"generala": 0, "double_generala": 100}) == 1
    assert r.generalas({"generala": 0, "four": 45}) == 0


# -- sheet checks -------------------------------------------------------------

@pytest.mark.parametrize(
    ("variant", "sheet", "error", "field"),
    [
        ("generala", {"straight": 17}, InvalidSheetError, "sheet.straight"),
        ("generala", {"ones": 6}, InvalidSheetError, "sheet.ones"),
        ("generala", {"sixes": 7}, InvalidSheetError, "sheet.sixes"),
        ("generala", {"generala": 55}, InvalidSheetError, "sheet.generala"),
        ("generala", {"full": -30}, InvalidSheetError, "sheet.full"),
        ("generala", {"full": True}, InvalidSheetError, "sheet.full"),
        ("generala", {"double_generala": 100}, UnknownBoxError, "sheet.double_generala"),
        ("generala", {"chance": 10}, UnknownBoxError, "sheet.chance"),
        ("generala-wiki", {"straight": 25, "small_general": 60}, UnknownBoxError, "sheet.small_general"),
        ("generala-doble", {"double_generala": 100}, InvalidSheetError, "sheet.double_generala"),
        ("generala-doble", {"double_generala": 110}, InvalidSheetError, "sheet.double_generala"),
        ("double-cameroon", {"full": 30}, InvalidSheetError, "sheet.full"),  # max 28
        ("double-cameroon", {"ones": 1}, InvalidSheetError, "sheet"),  # a turn fills two boxes
    ],
)
def test_impossible_sheets_are_refused(variant, sheet, error, field):
    rules = find_variant(variant).rules()
    with pytest.raises(error) as info:
        rules.check_sheet(sheet)
    assert info.value.field == field


def test_double_generala_after_scored_refuses_a_double_over_a_scratch(rules):
    r = rules("generala-wiki", double_generala=100)
    with pytest.raises(InvalidSheetError):
        r.check_sheet({"generala": 0, "double_generala": 100})
    assert r.check_sheet({"generala": 50, "double_generala": 100})
    assert r.check_sheet({"generala": 0, "double_generala": 0})


def test_a_full_sheet_has_no_turn_left(rules):
    r = rules("generala")
    full = {b.id: 0 for b in r.boxes}
    with pytest.raises(NoFreeBoxError):
        r.score([1, 2, 3, 4, 5], sheet=full)
    del full["ones"]
    assert r.score([1, 1, 3, 4, 5], sheet=full).scratch == ("ones",)


def test_sheet_values_each_box_can_hold(rules):
    possible = rules("generala").possible_points
    assert possible["straight"] == {0, 20, 25}
    assert possible["ones"] == {0, 1, 2, 3, 4, 5}
    assert possible["generala"] == {0, 50}
    # Double Cameroon's full scores its total: three a's and two b's, a != b.
    fulls = {3 * a + 2 * b for a in range(1, 7) for b in range(1, 7) if a != b}
    assert rules("double-cameroon").possible_points["full"] == {0} | fulls
    assert max(fulls) == 28


def test_totals(rules):
    r = rules("generala")
    assert r.total({"ones": 3, "straight": 25, "generala": 0}) == 28
    assert r.total({"ones": 3, "sixes": None}) == 3
