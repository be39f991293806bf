"""double-cameroon: ten dice, two groups of five, two different boxes a turn."""

from __future__ import annotations

from collections import Counter

import pytest

from anotador.rules import InvalidDiceError, InvalidGroupsError, NoFreeBoxError, find_variant

from .conftest import points_of


@pytest.fixture
def cameroon():
    return find_variant("double-cameroon").rules()


@pytest.mark.parametrize(
    ("group", "box", "points"),
    [
        ([5, 5, 5, 5, 5], "five_of_a_kind", 50),
        ([2, 3, 4, 5, 6], "big_cameroon", 30),
        ([1, 2, 3, 4, 5], "little_cameroon", 21),
        ([1, 2, 3, 4, 5], "big_cameroon", 0),
        ([2, 3, 4, 5, 6], "little_cameroon", 0),
        ([1, 3, 4, 5, 6], "big_cameroon", 0),   # exact runs, no circular straights
        ([2, 2, 2, 4, 4], "full", 14),          # 004: total of the five dice
        ([6, 6, 6, 5, 5], "full", 28),          # the maximum
        ([5, 5, 5, 5, 5], "full", 0),           # five equal is not a full
        ([1, 5, 3, 6, 6], "sixes", 12),
        ([2, 4, 5, 1, 3], "fives", 5),
        ([4, 1, 6, 4, 4], "fours", 12),
        ([3, 1, 5, 6, 3], "threes", 6),
        ([4, 5, 4, 3, 1], "twos", 0),
        ([5, 1, 4, 6, 6], "ones", 1),
    ],
)
def test_group_points(cameroon, group, box, points):
    other = [1, 1, 2, 2, 3]
    for served in (False, True):  # no served bonus, no instant win
        first, _ = cameroon.score_groups(group + other, [group, other], served)
        assert points_of(first).get(box, 0) == points
        assert not first.instant_win


def test_assignments_put_two_groups_in_two_different_free_boxes(cameroon):
    dice = [1, 2, 3, 4, 5, 2, 3, 4, 5, 6]
    found = cameroon.assignments(dice, limit=100)
    best = found[0]
    assert best.points == 51
    assert {(p.category, p.dice, p.points) for p in best.placements} == {
        ("big_cameroon", (2, 3, 4, 5, 6), 30), ("little_cameroon", (1, 2, 3, 4, 5), 21),
    }
    pairs = set()
    for a in found:
        first, second = a.placements
        assert first.category != second.category
        assert Counter(first.dice) + Counter(second.dice) == Counter(dice)
        assert a.points == first.points + second.points
        pairs.add(frozenset((first.category, second.category)))
    assert len(pairs) == len(found) == 45  # one per pair of the ten free boxes
    assert [a.points for a in found] == sorted((a.points for a in found), reverse=True)


def test_each_assignment_uses_the_best_split_for_its_boxes(cameroon):
    dice = [6, 6, 6, 6, 6, 6, 5, 5, 1, 1]
    found = {frozenset(p.category for p in a.placements): a for a in cameroon.assignments(dice, limit=100)}
    # five sixes in five_of_a_kind and the rest (6,5,5,1,1) in sixes: 50 + 6
    assert found[frozenset({"five_of_a_kind", "sixes"})].points == 56
    # two groups: sixes can take at most five sixes (30); fives the two fives (10)
    assert found[frozenset({"sixes", "fives"})].points == 40


def test_a_group_that_fits_nothing_is_scratched_into_a_box(cameroon):
    sheet = {"ones": 0, "twos": 0, "threes": 0, "fours": 0, "fives": 0, "sixes": 0, "five_of_a_kind": 0, "full": 14}
    found = cameroon.assignments([1, 1, 2, 2, 3, 3, 4, 4, 6, 6], sheet=sheet)
    # only big and little cameroon are free, and neither fits: a double scratch at 0.
    assert len(found) == 1
    assert found[0].points == 0
    assert {p.category for p in found[0].placements} == {"big_cameroon", "little_cameroon"}


def test_limit_and_order(cameroon):
    dice = [1, 2, 3, 4, 5, 2, 3, 4, 5, 6]
    assert len(cameroon.assignments(dice)) == 10
    assert len(cameroon.assignments(dice, limit=3)) == 3
    assert cameroon.assignments(dice, limit=3) == cameroon.assignments(list(reversed(dice)), limit=3)


def test_groups_must_be_the_dice(cameroon):
    dice = [1, 2, 3, 4, 5, 2, 3, 4, 5, 6]
    with pytest.raises(InvalidGroupsError):
        cameroon.score_groups(dice, [[1, 2, 3, 4, 5], [2, 3, 4, 5, 5]])
    with pytest.raises(InvalidGroupsError):
        cameroon.score_groups(dice, [[1, 2, 3, 4, 5, 2, 3, 4, 5, 6]])
    with pytest.raises(InvalidDiceError) as info:
        cameroon.score_groups(dice, [[1, 2, 3, 4], [5, 2, 3, 4, 5, 6]])
    assert info.value.field == "groups.0"
    with pytest.raises(InvalidDiceError) as info:
        cameroon.score_groups(dice, [[1, 2, 3, 4, 5], [2, 3, 4, 5, 7]])
    assert info.value.field == "groups.1.4"


def test_ten_dice_and_two_free_boxes_are_required(cameroon):
    with pytest.raises(InvalidDiceError):
        cameroon.assignments([1, 2, 3, 4, 5])
    with pytest.raises(InvalidDiceError):
        cameroon.score([1, 2, 3, 4, 5, 1, 2, 3, 4, 5])  # one-box question on a two-box variant
    with pytest.raises(NoFreeBoxError):
        cameroon.assignments([1] * 10, sheet={b.id: 0 for b in cameroon.boxes})
    with pytest.raises(InvalidDiceError):
        find_variant("generala").rules().assignments([1] * 10)
