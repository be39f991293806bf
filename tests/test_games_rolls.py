"""A turn's throws and keeps, recorded with the turn: checked, stored, corrected, and judged by the analysis."""

from __future__ import annotations

import random

import pytest

from .test_analysis import at_random, optimal, play_turn

ROLLS = [{"dice": [6, 6, 2, 3, 1], "keep": [6, 6]}, {"dice": [6, 6, 6, 4, 1], "keep": [6, 6, 6]},
         {"dice": [6, 6, 6, 6, 2]}]


def post(table, expect=201, **body):
    r = table.client.post(table.url("/turns"), json=body, headers=table.auth)
    assert r.status_code == expect, r.get_json()
    return r.get_json()


def test_the_throws_are_stored_with_the_turn_and_give_its_dice(new_game):
    table = new_game("generala", ["Ana", "Beto"])
    post(table, player=0, category="four", rolls=ROLLS)  # dice and served read from the throws
    post(table, player=1, category="straight", rolls=[{"dice": [5, 4, 3, 2, 1]}])  # one throw: served
    first, second = table.client.get(table.url("/turns")).get_json()["turns"]
    assert first["dice"] == [2, 6, 6, 6, 6] and first["served"] is False
    assert first["rolls"] == [{"dice": [1, 2, 3, 6, 6], "keep": [6, 6]}, {"dice": [1, 4, 6, 6, 6], "keep": [6, 6, 6]},
                              {"dice": [2, 6, 6, 6, 6]}]
    assert first["boxes"][0]["points"] == 40
    assert second["served"] is True and second["boxes"][0]["points"] == 25  # served straight: 20 + 5
    post(table, player=0, category="ones", dice=[1, 1, 2, 3, 4])
    assert table.client.get(table.url("/turns")).get_json()["turns"][2]["rolls"] is None  # paper style still works


@pytest.mark.parametrize(("rolls", "extra", "field"), [
    ("66", {}, "rolls"),
    ([], {}, "rolls"),
    (ROLLS + [{"dice": [6, 6, 6, 6, 2]}], {}, "rolls"),
    ([{"dice": [6, 6, 2, 3, 1], "keep": [6, 6]}], {}, "rolls.0.keep"),  # the last throw keeps nothing
    ([{"dice": [6, 6, 2, 3, 1], "keep": None}], {}, "rolls.0.keep"),  # not even null: the spec's keep is a list
    ([{"dice": [6, 6, 2, 3, 1], "keep": None}, {"dice": [6, 6, 6, 6, 2]}], {}, "rolls.0.keep"),
    ([{"dice": [6, 6, 2, 3, 1]}, {"dice": [6, 6, 6, 6, 2]}], {}, "rolls.0.keep"),  # a keep is needed before a throw
    ([{"dice": [6, 6, 2, 3, 1], "keep": [6, 6, 6]}, {"dice": [6, 6, 6, 6, 2]}], {}, "rolls.0.keep"),  # not rolled
    ([{"dice": [6, 6, 2, 3, 1], "keep": [6, 6, 2, 3, 1]}, {"dice": [6, 6, 2, 3, 1]}], {}, "rolls.0.keep"),  # all
    ([{"dice": [6, 6, 2, 3, 1], "keep": [6, 6]}, {"dice": [6, 5, 5, 5, 2]}], {}, "rolls.1.dice"),  # lost a kept 6
    ([{"dice": [6, 6, 2, 3], "keep": [6, 6]}, {"dice": [6, 6, 5, 5, 2]}], {}, "rolls.0.dice"),
    ([{"dice": [6, 6, 2, 3, 9], "keep": [6]}, {"dice": [6, 6, 5, 5, 2]}], {}, "rolls.0.dice.4"),
    ([{"dice": [6, 6, 2, 3, 1], "keep": [6, True]}, {"dice": [6, 6, 5, 5, 2]}], {}, "rolls.0.keep.1"),
    ([{"dice": [6, 6, 2, 3, 1], "keep": [6], "why": 1}, {"dice": [6, 6, 5, 5, 2]}], {}, "rolls.0"),
    ([["dice"], {"dice": [6, 6, 5, 5, 2]}], {}, "rolls.0"),
    ([{"keep": [6]}, {"dice": [6, 6, 5, 5, 2]}], {}, "rolls.0.dice"),
    (ROLLS, {"dice": [6, 6, 6, 6, 1]}, "rolls.2.dice"),  # the last throw is not the turn's dice
    (ROLLS, {"served": True}, "rolls"),  # three throws are not served
])
def test_throws_that_cannot_have_happened_are_refused_and_change_nothing(new_game, rolls, extra, field):
    table = new_game("generala", ["Ana", "Beto"])
    body = post(table, 422, player=0, category="four", rolls=rolls, **extra)
    assert field in body["errors"], body
    assert table.get()["version"] == 1


def test_a_ten_dice_turn_keeps_up_to_nine(new_game):
    table = new_game("double-cameroon", ["Ana", "Beto"], first_rolls=[6, 1])
    first = [1, 1, 1, 1, 1, 2, 2, 2, 2, 3]
    final = [1, 1, 1, 1, 1, 2, 2, 2, 2, 2]
    rolls = [{"dice": first, "keep": first[:9]}, {"dice": final}]
    post(table, player=table.body["first_player"], rolls=rolls, boxes=[{"category": "ones", "dice": final[:5]},
                                                                      {"category": "twos", "dice": final[5:]}])
    turn = table.client.get(table.url("/turns")).get_json()["turns"][0]
    assert turn["dice"] == final and turn["rolls"][0]["keep"] == first[:9]


def test_a_correction_of_the_dice_drops_the_throws_unless_new_ones_come_with_it(new_game):
    table = new_game("generala", ["Ana", "Beto"])
    post(table, player=0, category="four", rolls=ROLLS)
    table.correct(1, category="sixes")  # the box only: the throws still lead to these dice
    history = table.client.get(table.url("/turns")).get_json()["turns"][0]
    assert history["rolls"] == [{k: sorted(v) for k, v in t.items()} for t in ROLLS]
    table.correct(1, dice=[6, 6, 6, 6, 3])  # other dice: the throws no longer fit, and go
    turn = table.client.get(table.url("/turns")).get_json()["turns"][0]
    assert turn["rolls"] is None and turn["corrections"][-1]["rolls"] == history["rolls"]
    fixed = ROLLS[:2] + [{"dice": [6, 6, 6, 6, 3]}]
    table.correct(1, rolls=fixed)
    assert table.client.get(table.url("/turns")).get_json()["turns"][0]["rolls"][2] == {"dice": [3, 6, 6, 6, 6]}
    table.correct(1, rolls=None)
    assert table.client.get(table.url("/turns")).get_json()["turns"][0]["rolls"] is None
    body = table.correct(1, 422, dice=[6, 6, 6, 6, 3], rolls=[{"dice": [1, 1, 1, 1, 1]}])  # not the turn's dice
    assert "rolls.0.dice" in body["errors"]


def test_a_whole_game_through_the_api_judges_every_keep(new_game, advice_tables):
    """Ana takes the advisor's move at every throw, Beto plays at random; both record their throws."""
    solver, V = advice_tables["generala"]
    table = new_game("generala", ["Ana", "Beto"])
    rng = random.Random(4)
    sheets = [{}, {}]
    while (due := table.get()["turn"]) is not None:
        seat = due["player"]
        throws, box, points = play_turn(solver, V, sheets[seat], optimal if seat == 0 else at_random, rng)
        rolls = [t.as_dict() for t in throws]
        post(table, player=seat, category=box, rolls=rolls, scratch=points == 0 and box not in
             {"ones", "twos", "threes", "fours", "fives", "sixes"})
        sheets[seat][box] = points
    body = table.client.get(table.url("/analysis")).get_json()
    ana, beto = body["players"]
    assert {t["judged"] for t in body["turns"]} == {"every_decision"}
    mine = [t for t in body["turns"] if t["player"] == 0]
    assert all(d["lost"] == 0 for t in mine for d in t["decisions"])
    assert any(d["chosen"].get("keep") is not None for t in mine for d in t["decisions"])
    assert ana["lost"] == 0 and beto["lost"] > 10 and ana["unjudged"] == beto["unjudged"] == 0
    totals = [p["total"] for p in table.get()["players"]]
    for player, total in zip(body["players"], totals):
        if body["status"] == "finished" and table.get().get("reason") != "instant_win":
            assert player["expected_now"] == pytest.approx(total, abs=1e-5)
        assert player["expected_now"] == pytest.approx(player["expected_start"] + player["luck"] - player["lost"],
                                                       abs=1e-4)
    for t in body["turns"]:
        assert t["lost"] == pytest.approx(sum(d["lost"] for d in t["decisions"]), abs=1e-5)
        assert t["expected_after"] == pytest.approx(t["expected_before"] + t["luck"] - t["lost"], abs=1e-5)
