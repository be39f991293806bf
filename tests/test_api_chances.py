"""GET /api/v1/games/{id}/chances: who is winning, as a read like the game's (ETag, 304), on both databases."""

from __future__ import annotations

import random
import time

import pytest

from anotador.rules.boxes import count
from anotador.rules.variants import find_variant
from anotador.solver.advise import advise

NAMES_12 = ["Абу Бакр Мухаммад ибн Закария ар-Рази Ив", "أبو عبد الله محمد بن موسى الخوارزمي الف",
            "李白杜甫王维白居易苏轼李清照辛弃疾陆游杜牧李商隐王安石欧阳修柳宗元韩愈孟浩然王昌龄岑参高适"[:40], "🎲🎲 Beto 🎲🎲",
            "Ana", "Zoë", "Ñandú", "Ölçer", "Þór", "Ἀλέξανδρος", "José María de la Santísima Trinidad Ruiz",
            "ज्ञानेश्वर"]


def read_when_built(table, suffix: str):
    """A read that needs house rules' table: asked again after each 503's Retry-After until it is built.

    A 429 is waited out too: the tests share one address, and another test's
    build for it may still be under way (one build at a time per address).
    """
    deadline = time.monotonic() + 120  # a table, then the chances' outlook: each a 503 while being made
    while True:
        r = table.client.get(table.url(suffix))
        if r.status_code not in (429, 503) or time.monotonic() > deadline:
            assert r.status_code == 200, r.get_json() if r.is_json else r.status
            return r
        time.sleep(min(2, int(r.headers["Retry-After"])))


def advised_turn(table, advice_tables, rng):
    """Play the turn due as the advisor would (one throw per turn is enough here: any legal turn)."""
    game = table.get()
    seat = game["turn"]["player"]
    sheet = {k: v for k, v in game["players"][seat]["sheet"].items() if v is not None}
    solver, V = advice_tables["generala"]
    dice = sorted(rng.randint(1, 6) for _ in range(5))
    best = advise(solver, V, sheet, count(dice), 3).best
    scores = dict(solver.rules.score_counts(count(dice), False, sheet).options)
    box = best["category"]
    scratch = scores.get(box, 0) == 0 and solver.rules.box(box).kind != "number"
    return table.turn(seat, box, None if scratch else dice, scratch=scratch)


def test_chances_of_a_game_as_it_goes_sum_to_one_and_poll_for_a_304(new_game, advice_tables):
    table = new_game("generala", ["Ana", "Beto", "Caro"])
    r = read_when_built(table, "/chances")  # a worker's first answer for these rules may be a 503: being made
    body = r.get_json()
    assert body["method"] == "exact" and body["version"] == table.get()["version"]
    assert [p["name"] for p in body["players"]] == ["Ana", "Beto", "Caro"]
    assert sum(p["chance"] for p in body["players"]) == pytest.approx(1, abs=1e-5)
    # at the start every sheet expects the rule set's expected score, and the spread is around it
    expected = float(advice_tables["generala"][1][0])
    for p in body["players"]:
        assert p["expected_final"] == pytest.approx(expected, abs=1e-6)
        f = p["final_total"]
        assert f["p5"] < f["p25"] <= f["p50"] <= f["p75"] < f["p95"]
    etag = r.headers["ETag"]
    assert r.headers["Cache-Control"] == "no-cache"
    again = table.client.get(table.url("/chances"), headers={"If-None-Match": etag})
    assert again.status_code == 304 and again.headers["ETag"] == etag
    rng = random.Random(3)
    advised_turn(table, advice_tables, rng)
    moved = table.client.get(table.url("/chances"), headers={"If-None-Match": etag})
    assert moved.status_code == 200 and moved.headers["ETag"] != etag
    assert moved.get_json()["turns"] == 1


def test_a_finished_game_gives_its_winner_everything(new_game, advice_tables):
    table = new_game("generala", ["Ana", "Beto"])
    table.turn(0, "generala", [4, 4, 4, 4, 4], served=True)  # an instant win
    body = read_when_built(table, "/chances").get_json()
    assert body["status"] == "finished"
    assert [p["chance"] for p in body["players"]] == [1, 0]
    assert [p["instant_win"] for p in body["players"]] == [1, 0]
    assert body["players"][0]["final_total"] == {q: 50 for q in ("p5", "p25", "p50", "p75", "p95")}


def test_twelve_players_with_names_in_every_script(new_game, advice_tables):
    table = new_game("generala", NAMES_12)
    rng = random.Random(12)
    for _ in range(30):
        advised_turn(table, advice_tables, rng)
    body = read_when_built(table, "/chances").get_json()
    assert [p["name"] for p in body["players"]] == [p["name"] for p in table.get()["players"]]
    assert sum(p["chance"] for p in body["players"]) == pytest.approx(1, abs=1e-5)
    totals = [p["total"] for p in table.get()["players"]]
    assert [p["total"] for p in body["players"]] == totals


def test_rule_sets_not_worked_out_answer_501_with_a_problem(new_game, advice_tables):
    """Yahtzee whose ties go to the most Yahtzees: neither the exact nor the sampled outlook follows that tie-break;
    refused before any table is asked for."""
    table = new_game({"base": "yahtzee", "tie_break": "most_generalas"}, ["Ana", "Beto"])
    r = table.client.get(table.url("/chances"))
    assert r.status_code == 501
    assert r.content_type == "application/problem+json"
    problem = r.get_json()
    assert problem["type"].endswith("chances-not-exact") and "yahtzee" in problem["detail"]
    assert "most generalas" in problem["detail"]
    variant = table.client.get("/api/v1/variants/yahtzee").get_json()
    assert variant["chances"] is True and variant["chances_exact"] is False


def test_an_unknown_game_is_a_404(api):
    r = api.get("/api/v1/games/nope/chances")
    assert r.status_code == 404 and r.content_type == "application/problem+json"


def test_house_rules_chances_follow_their_tie_break(new_game, advice_tables):
    """Two sheets tied at 115 with only the sixes left, Ana holding a generala and Beto none: under
    most_generalas Ana wins every tie in the sixes, under share a tie is split."""
    got = {}
    for tie_break in ("most_generalas", "share"):
        table = new_game({"base": "generala", "tie_break": tie_break}, ["Ana", "Beto"])
        plays = [("ones", [1, 2, 3, 4, 6]), ("twos", [2, 3, 4, 5, 6]), ("threes", [3, 1, 2, 4, 6]),
                 ("fours", [4, 1, 2, 3, 6]), ("straight", [1, 2, 3, 4, 5]), ("full", [2, 2, 3, 3, 3])]
        for box, dice in plays:
            table.turn(0, box, dice)
            table.turn(1, box, dice)
        table.turn(0, "fives", [5, 1, 2, 3, 4])
        table.turn(1, "fives", [5, 5, 5, 1, 2])     # Beto 10 more in the fives...
        table.turn(0, "four", scratch=True)
        table.turn(1, "four", [6, 6, 6, 6, 1])      # ... and 40 in the four
        table.turn(0, "generala", [6, 6, 6, 6, 6])  # Ana 50 in the generala, not served
        game = table.turn(1, "generala", scratch=True)
        assert [p["total"] for p in game["players"]] == [115, 115]
        r = read_when_built(table, "/chances")
        got[tie_break] = [p["chance"] for p in r.get_json()["players"]]
        assert sum(got[tie_break]) == pytest.approx(1, abs=1e-5)
    # the same sixes for both (about one game in six): Ana's under most_generalas, half hers under share
    assert got["most_generalas"][0] - got["share"][0] == pytest.approx(got["share"][1] - got["most_generalas"][1])
    assert 0.05 < got["most_generalas"][0] - got["share"][0] < 0.15


def test_a_finished_game_has_its_history_turn_by_turn(new_game, advice_tables):
    """Each entry is the chances of the game as it stood after that turn, worked out again from the sheets; the
    served generala that ends the game takes its thrower to 1."""
    table = new_game("generala", ["Ana", "Beto", "Caro"])
    rng = random.Random(29)
    for _ in range(7):
        advised_turn(table, advice_tables, rng)
    in_play = read_when_built(table, "/chances").get_json()
    assert in_play["history"] is None
    seat = table.get()["turn"]["player"]
    table.turn(seat, "generala", [2, 2, 2, 2, 2], served=True)
    body = read_when_built(table, "/chances").get_json()
    h = body["history"]
    assert [x["turn"] for x in h] == list(range(9))
    assert h[0]["player"] is None and h[0]["chances"][0] > 0
    assert all(abs(sum(x["chances"]) - 1) < 1e-5 for x in h)
    assert h[7]["chances"] == in_play_chances(in_play)
    last = h[-1]
    assert last["player"] == seat and last["served"] and last["boxes"] == [
        {"category": "generala", "points": 50, "scratch": False}]
    assert last["chances"][seat] == 1 and sum(last["chances"]) == 1
    # the turns are the history's: the same players, rounds and boxes
    turns = table.client.get(table.url("/turns")).get_json()["turns"]
    assert [(x["player"], x["round"]) for x in h[1:]] == [(x["player"], x["round"]) for x in turns]


def in_play_chances(body):
    return [p["chance"] for p in body["players"]]


def test_a_roll_off_settles_the_last_entry(new_game, advice_tables):
    table = new_game({"base": "generala", "tie_break": "roll_off"}, ["Ana", "Beto"])
    for box in ("ones", "twos", "threes", "fours", "fives", "sixes", "straight", "full", "four", "generala"):
        table.turn(0, box, scratch=True)
        table.turn(1, box, scratch=True)
    tied = read_when_built(table, "/chances").get_json()
    assert tied["status"] == "playing" and in_play_chances(tied) == [0.5, 0.5] and tied["history"] is None
    r = table.client.post(table.url("/roll-off"), json={"player": 0, "dice": [1, 1, 1, 2, 2]}, headers=table.auth)
    assert r.status_code == 201
    r = table.client.post(table.url("/roll-off"), json={"player": 1, "dice": [6, 6, 6, 2, 2]}, headers=table.auth)
    assert r.status_code == 201 and r.get_json()["winners"] == [1]
    body = read_when_built(table, "/chances").get_json()
    assert in_play_chances(body) == [0, 1]
    h = body["history"]
    assert h[-2]["chances"] == [0.5, 0.5]  # after the last turn: tied, the roll-off to come
    assert h[-1]["roll_off"] is True and h[-1]["chances"] == [0, 1]


# -- on paper: the chart under a filled sheet ----------------------------------------------------------

def test_a_filled_sheet_can_carry_the_chances_turn_by_turn(new_game, advice_tables):
    from .test_printing_scripts import pdftotext

    names = ["Ana", "Beto", "Абу Бакр", "محمد الفارسي", "李小龍", "Zoë 🎲"]
    table = new_game("generala", names)
    rng = random.Random(6)
    for _ in range(14):
        advised_turn(table, advice_tables, rng)
    plain = table.client.get(table.url("/sheet.pdf?lang=en"))
    drawn = read_when_built(table, "/sheet.pdf?lang=en&chances=true")
    assert plain.status_code == drawn.status_code == 200 and drawn.content_type == "application/pdf"
    assert plain.headers["ETag"] != drawn.headers["ETag"]
    assert "Chance to win, turn by turn" not in pdftotext(plain.data)
    text = pdftotext(drawn.data)
    assert "Chance to win, turn by turn" in text and "turn 14" in text
    for name in ("Ana", "Beto", "Абу Бакр", "李小龍"):  # the key names everyone (the sheet's header does too)
        assert text.count(name) >= 2, name
    again = table.client.get(table.url("/sheet.pdf?lang=en&chances=true"), headers={"If-None-Match": drawn.headers["ETag"]})
    assert again.status_code == 304


def test_the_chart_is_refused_for_rules_whose_chances_are_not_worked_out(new_game, advice_tables):
    table = new_game({"base": "yahtzee", "tie_break": "most_generalas"}, ["Ana", "Beto"])
    r = table.client.get(table.url("/sheet.pdf?chances=true"))
    assert r.status_code == 501 and r.content_type == "application/problem+json"
    assert table.client.get(table.url("/sheet.pdf?chances=nope")).status_code == 422


def test_double_cameroon_splits_ten_dice_and_its_chances_are_exact_too(new_game, advice_tables):
    table = new_game("double-cameroon", ["Ana", "Beto", "Caro"])
    table.turn(0, dice=[1, 2, 3, 4, 5, 2, 3, 4, 5, 6], boxes=[
        {"category": "little_cameroon", "dice": [1, 2, 3, 4, 5]}, {"category": "big_cameroon", "dice": [2, 3, 4, 5, 6]}])
    body = read_when_built(table, "/chances").get_json()
    assert body["method"] == "exact" and sum(p["chance"] for p in body["players"]) == pytest.approx(1, abs=1e-5)
    ana = body["players"][0]
    assert ana["total"] == 51 and ana["chance"] > body["players"][1]["chance"]
    assert body["players"][1]["expected_final"] == pytest.approx(float(advice_tables["double-cameroon"][1][0]),
                                                                 abs=1e-6)


@pytest.mark.slow
def test_a_yahtzee_game_has_sampled_chances_before_its_last_four_rounds_and_exact_ones_then(new_game, advice_tables):
    """The Yahtzee family: sampled while a player has five boxes open or more (each player's total from 40,000
    games, the expected total still the table's), exact from the last four rounds; the finished game's curve has
    every turn, each as it was answered then."""
    from .conftest import built_in_run_outcomes, solved

    built_in_run_outcomes("yahtzee")
    solver, V = solved(find_variant("yahtzee").rules())
    table = new_game("yahtzee", ["Ana", "Beto"])
    # Ana three of each face, Beto two: Ana will have the upper bonus, Beto not
    plays = [("ones", [1, 1, 1, 2, 3], [1, 1, 2, 3, 4]), ("twos", [2, 2, 2, 5, 6], [2, 2, 1, 5, 6]),
             ("threes", [3, 3, 3, 1, 2], [3, 3, 1, 2, 4]), ("fours", [4, 4, 4, 1, 2], [4, 4, 1, 2, 3]),
             ("fives", [5, 5, 5, 1, 2], [5, 5, 1, 2, 3]), ("sixes", [6, 6, 6, 1, 2], [6, 6, 1, 2, 3]),
             ("three_of_a_kind", [4, 4, 4, 2, 3], [5, 5, 5, 6, 6]), ("full_house", [2, 2, 3, 3, 3], [4, 4, 6, 6, 6]),
             ("chance", [6, 5, 4, 6, 5], [6, 6, 5, 5, 4]), ("four_of_a_kind", [2, 2, 2, 2, 5], None),
             ("small_straight", [1, 2, 3, 4, 6], None), ("large_straight", None, [2, 3, 4, 5, 6]),
             ("yahtzee", None, None)]
    answered = {}  # turn -> chances as answered then
    for n, (box, ana, beto) in enumerate(plays):
        for seat_turn in range(2):
            r = read_when_built(table, "/chances")
            body = r.get_json()
            game = table.get()
            open_most = max(13 - sum(v is not None for v in p["sheet"].values()) for p in game["players"])
            assert body["method"] == ("exact" if open_most <= 4 else "sampled"), (n, open_most)
            assert body["history"] is None
            assert sum(p["chance"] for p in body["players"]) == pytest.approx(1, abs=1e-5)
            for p, mine in zip(body["players"], game["players"]):
                sheet = {k: v for k, v in mine["sheet"].items() if v is not None}
                rest = float(V[solver.space.state_of(sheet)])
                # the table's, not the samples' mean (a section bonus earned counts in the total, and in the table's)
                assert p["expected_final"] == pytest.approx(sum(sheet.values()) + rest, abs=2e-6)
                assert p["final_total"]["p5"] <= p["final_total"]["p50"] <= p["final_total"]["p95"]
            answered[body["turns"]] = [p["chance"] for p in body["players"]]
            again = table.client.get(table.url("/chances"), headers={"If-None-Match": r.headers["ETag"]})
            assert again.status_code == 304
            seat = game["turn"]["player"]
            dice = ana if seat == 0 else beto
            table.turn(seat, box, dice, scratch=dice is None)
    assert answered[0] == [0.5, 0.5]  # two empty sheets: the same samples, an even game
    ahead = max(range(2), key=lambda i: table.get()["players"][i]["total"])
    assert answered[16][ahead] > 0.5  # Ana's upper bonus coming, before the last rounds
    final = table.get()
    assert final["status"] == "finished"
    body = table.client.get(table.url("/chances")).get_json()
    history = body["history"]
    assert [x["turn"] for x in history] == list(range(27))
    for turn, chances in answered.items():
        assert history[turn]["chances"] == pytest.approx(chances, abs=1e-6), turn  # as it was answered then
    assert history[-1]["chances"] == [1.0 if i in final["winners"] else 0.0 for i in range(2)]
    drawn = table.client.get(table.url("/sheet.pdf?lang=en&chances=true"))
    assert drawn.status_code == 200 and drawn.mimetype == "application/pdf"
    from .test_printing_scripts import pdftotext

    text = pdftotext(drawn.data)
    assert "Chance to win, turn by turn" in text and "turn 26" in text


def test_the_chart_is_worked_out_once_per_version_and_its_304_costs_a_poll(new_game, advice_tables, monkeypatch):
    """A conditional GET of the PDF with its chart answers 304 without working out any chance, and another
    language of the same version draws the chances already worked out."""
    from anotador.api import pdfs

    table = new_game("generala", ["Ana", "Beto", "Caro"])
    rng = random.Random(9)
    for _ in range(6):
        advised_turn(table, advice_tables, rng)
    worked = []
    real = pdfs.chances_history
    monkeypatch.setattr(pdfs, "chances_history", lambda *a: worked.append(1) or real(*a))
    drawn = read_when_built(table, "/sheet.pdf?lang=en&chances=true")
    assert len(worked) == 1
    for _ in range(3):
        again = table.client.get(table.url("/sheet.pdf?lang=en&chances=true"),
                                 headers={"If-None-Match": drawn.headers["ETag"]})
        assert again.status_code == 304 and again.headers["ETag"] == drawn.headers["ETag"]
    spanish = table.client.get(table.url("/sheet.pdf?lang=es&chances=true"))
    assert spanish.status_code == 200 and spanish.content_type == "application/pdf"
    assert len(worked) == 1
    advised_turn(table, advice_tables, rng)  # a new version: its chances are worked out anew
    newer = table.client.get(table.url("/sheet.pdf?lang=en&chances=true"), headers={"If-None-Match": drawn.headers["ETag"]})
    assert newer.status_code == 200 and newer.headers["ETag"] != drawn.headers["ETag"]
    assert len(worked) == 2
