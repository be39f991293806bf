"""Play to win (anotador.solver.towin and POST /api/v1/advice with opponents): exact, against brute force.

Positions where every other player has finished and the move that wins most often is not the move that scores
most: the chance of every box and of the whole turn is the brute force's (tests/bruteforce.py: every roll and
keep spelled out, the rules engine's answers, a memo per sheet).
"""

from __future__ import annotations

import pytest

from anotador.rules import find_variant
from anotador.rules.boxes import count
from anotador.solver.advise import advise
from anotador.solver.towin import Target, ToWin

from .bruteforce import BruteToWin
from .conftest import solved

FULL = {"ones": 3, "twos": 6, "threes": 9, "fours": 12, "fives": 20, "sixes": 18, "straight": 20, "full": 30,
        "four": 40, "generala": 50}  # 208


def win_of(target: Target):
    import numpy as np

    return lambda total, generalas: float(target.chance(np.array(total), np.array(generalas)))


#: (variant, options, the player's sheet, the others' full sheets, dice at the last throw, the box to win, the box
#: for points)
POSITIONS = [
    # the example: behind by 60 with the fives and the four open, five fives on the last throw
    ("generala", {}, {"ones": 3, "twos": 6, "threes": 9, "fours": 12, "sixes": 18, "straight": 20, "full": 30,
                      "generala": 50}, [FULL], [5, 5, 5, 5, 5], "fives", "four"),
    # two to beat, one of them tied with the other: under share a tie is a third of a win
    ("generala", {}, {"ones": 3, "twos": 6, "threes": 9, "fours": 12, "fives": 15, "straight": 20, "full": 30,
                      "generala": 50}, [FULL, FULL], [6, 6, 6, 6, 2], None, None),
    # most_generalas: a tie on total goes to the one with more generalas
    ("generala-doble", {}, {"ones": 3, "twos": 6, "threes": 9, "fours": 12, "fives": 15, "sixes": 18, "straight": 20,
                            "full": 30, "generala": 50}, [{**FULL, "double_generala": 0}], [4, 4, 4, 4, 1],
     None, None),
]


@pytest.mark.parametrize("variant, options, sheet, others, dice, to_win, for_points", POSITIONS)
def test_the_chance_of_every_box_and_of_the_turn_is_the_brute_forces(variant, options, sheet, others, dice, to_win,
                                                                     for_points):
    rules = find_variant(variant).rules(options)
    solver, V = solved(rules)
    target = Target.of(rules, [(o, 0) for o in others])
    exact = ToWin(solver, sheet, 0, target)
    brute = BruteToWin(rules, 0, win_of(target))
    assert exact.values[exact.start][exact.column()] == pytest.approx(brute.to_come_after(dict(sheet)), abs=1e-12)
    boxes = exact.box_chances(count(dice), False, sheet)
    assert boxes == pytest.approx(brute.box(sheet, dice, False), abs=1e-12)
    if to_win is not None:
        assert max(boxes, key=boxes.get) == to_win
        assert advise(solver, V, sheet, count(dice), 3).best["category"] == for_points


def test_a_served_roll_that_wins_on_the_spot_is_a_win():
    rules = find_variant("generala").rules()
    solver, _ = solved(rules)
    sheet = {k: v for k, v in FULL.items() if k not in ("generala", "four")}
    exact = ToWin(solver, sheet, 0, Target.of(rules, [(FULL, 0)]))
    assert set(exact.box_chances(count([3, 3, 3, 3, 3]), True, sheet).values()) == {1.0}


def advised(client, body: dict):
    """POST /advice, asked again after each 503's Retry-After (the table, then the chances' outlook, being made)."""
    import time

    deadline = time.monotonic() + 120
    while True:
        r = client.post("/api/v1/advice", json=body)
        if r.status_code != 503 or time.monotonic() > deadline:
            return r
        time.sleep(min(2, int(r.headers["Retry-After"])))


def test_advice_with_finished_opponents_names_the_move_that_wins_most_often(client, advice_tables):
    sheet = POSITIONS[0][2]
    r = client.post("/api/v1/advice", json={"variant": "generala", "sheet": sheet, "dice": [5, 5, 5, 5, 5], "roll": 3,
                                            "opponents": [{"sheet": FULL}]})
    assert r.status_code == 200, r.get_json()
    body = r.get_json()
    assert body["best"]["category"] == "four"  # for points
    assert body["to_win"] == {"category": "fives", "chance": pytest.approx(0.290794, abs=1e-6), "method": "exact"}
    chances = {b["category"]: b["chance"] for b in body["boxes"]}
    assert chances["four"] == pytest.approx(0.059481, abs=1e-6)
    # a throw before the last: every keep has its chance too, the best of them is to_win's when no box beats it
    r = client.post("/api/v1/advice", json={"variant": "generala", "sheet": sheet, "dice": [5, 5, 5, 2, 1], "roll": 2,
                                            "opponents": [{"sheet": FULL, "bonus": 0}]})
    body = r.get_json()
    assert all("chance" in k for k in body["keeps"]) and all("chance" in b for b in body["boxes"])
    best_keep = max(body["keeps"], key=lambda k: k["chance"])
    assert body["to_win"]["chance"] >= best_keep["chance"]


@pytest.mark.parametrize("opponents, field, status", [
    ("nope", "opponents", 422),
    ([], "opponents", 422),
    ([{"sheet": {"ones": 7}}], "opponents.0.sheet.ones", 422),
    ([{"sheet": FULL, "bonus": -1}], "opponents.0.bonus", 422),
    ([{"sheet": FULL, "extra": 1}], "opponents.0", 422),
])
def test_bad_opponents_are_problems_naming_the_field(client, advice_tables, opponents, field, status):
    r = client.post("/api/v1/advice", json={"variant": "generala", "sheet": {}, "dice": [5, 5, 5, 5, 5], "roll": 3,
                                            "opponents": opponents})
    assert r.status_code == status, r.get_json()
    assert r.content_type == "application/problem+json"
    if field:
        assert field in r.get_json()["errors"]


def test_a_sheet_with_too_many_boxes_open_is_refused_clearly(client, advice_tables):
    r = client.post("/api/v1/advice", json={"variant": "generala", "sheet": {}, "dice": [5, 5, 5, 5, 5], "roll": 3,
                                            "opponents": [{"sheet": FULL}]})
    assert r.status_code == 422
    assert "fewer boxes open" in r.get_json()["errors"]["sheet"][0]


# -- while others still play: this decision for the chance, later ones for points ---------------------------

def test_while_others_play_a_boxs_chance_is_the_games_chance_once_it_is_scored():
    """Scoring a box ends the turn: what follows is the chances model's game, so the box's chance must be the
    chance /chances gives the game with that box filled (two roads to one number)."""
    from anotador.rules import Game
    from anotador.solver.chances import Outlook, game_chances
    from anotador.solver.towin import to_win_now

    rules = find_variant("generala").rules()
    solver, V = solved(rules)
    outlook = Outlook(solver, V)
    mine = {"ones": 3, "twos": 6, "threes": 9, "fours": 12, "fives": 15, "sixes": 18, "straight": 20}
    rival = {"ones": 2, "twos": 8, "threes": 6, "fours": 16, "fives": 20, "sixes": 24, "full": 30}
    boxes, keeps = to_win_now(solver, V, outlook, mine, 0, [(rival, 0)], count([6, 6, 6, 3, 3]), 3)
    assert set(boxes) == {"full", "four", "generala"} and keeps == {}
    for box, points in (("full", 30), ("four", 0), ("generala", 0)):
        game = Game(rules, 2, 0, [{**mine, box: points}, dict(rival)], [set(), set()], 15)
        assert boxes[box] == pytest.approx(game_chances(outlook, game)[0].chance, abs=1e-12)


def test_behind_with_the_generala_and_the_four_open_the_game_says_keep_the_generala_open(client, advice_tables):
    """Behind by 45 in the last round with the generala and the four open, nothing on the last throw: the points
    say scratch the generala (the four is worth more next turn), the game says scratch the four, since only a
    generala can catch up (the other player, with one turn to go, can still throw theirs)."""
    mine = {"ones": 3, "twos": 6, "threes": 9, "fours": 12, "fives": 15, "sixes": 18, "straight": 20, "full": 30}
    rival = {**mine, "four": 40, "fives": 20}  # the generala left to play, 45 ahead
    r = advised(client, {"variant": "generala", "sheet": mine, "dice": [6, 6, 6, 2, 3], "roll": 3,
                         "opponents": [{"sheet": rival}]})
    assert r.status_code == 200, r.get_json()
    body = r.get_json()
    assert body["best"]["category"] == "generala"
    assert body["to_win"]["method"] == "approximate" and body["to_win"]["category"] == "four"
    chances = {b["category"]: b["chance"] for b in body["boxes"]}
    assert chances["four"] > chances["generala"] + 0.02
    # served, four twos: 45 in the four ties the other player, whose generala is still to come: the game takes it
    r = advised(client, {"variant": "generala", "sheet": mine, "dice": [2, 2, 2, 2, 5], "roll": 1,
                         "opponents": [{"sheet": rival}]})
    body = r.get_json()
    assert body["best"] == {"keep": [2, 2, 2, 2], "expected": body["best"]["expected"]}
    assert body["to_win"]["category"] == "four" and body["to_win"]["chance"] > max(k["chance"] for k in body["keeps"])


def test_play_to_win_while_others_play_needs_rules_whose_chances_are_worked_out(client):
    """Yahtzee whose ties go to the most Yahtzees: refused before any table is asked for (no build starts)."""
    ties = {"base": "yahtzee", "tie_break": "most_generalas"}
    r = client.post("/api/v1/advice", json={"rules": ties, "sheet": {}, "dice": [5, 5, 5, 5, 5], "roll": 3,
                                            "opponents": [{"sheet": {"ones": 3}}]})
    assert r.status_code == 501, r.get_json()
    assert r.content_type == "application/problem+json" and "most generalas" in r.get_json()["detail"]


# -- the Yahtzee family: while others play, sampled before its last four rounds and exact in them ---------------

YAHTZEE_MINE = {"ones": 2, "twos": 6, "threes": 9, "fours": 12, "fives": 15, "three_of_a_kind": 22,
                "small_straight": 30, "chance": 23, "yahtzee": 0}  # 139; the sixes, four, full and large open
YAHTZEE_RIVAL = {"ones": 3, "twos": 8, "threes": 9, "fours": 16, "fives": 20, "sixes": 24, "three_of_a_kind": 25,
                 "four_of_a_kind": 26, "full_house": 25}  # 156 and the bonus made; four open, the other player to go


@pytest.mark.slow
def test_while_others_play_a_yahtzee_boxs_chance_is_the_games_chance_once_it_is_scored():
    """In the last four rounds the Yahtzee family's model works out the game: a box's chance is the chance
    /chances gives the game with that box filled (upper subtotal and bonus included), and a keep's is between
    its best and worst box's at the next throw."""
    from anotador.rules import Game
    from anotador.solver.chances import game_chances
    from anotador.solver.late import LateOutlook
    from anotador.solver.towin import to_win_now

    rules = find_variant("yahtzee").rules()
    solver, V = solved(rules)
    late = LateOutlook(solver, V)
    dice = [6, 6, 6, 6, 2]
    boxes, keeps = to_win_now(solver, V, late, YAHTZEE_MINE, 0, [(YAHTZEE_RIVAL, 0)], count(dice), 2)
    assert set(boxes) == {"sixes", "four_of_a_kind", "full_house", "large_straight"}
    points = dict(rules.score_counts(count(dice), False, YAHTZEE_MINE).options)
    for box, chance in boxes.items():
        sheet = {**YAHTZEE_MINE, box: points.get(box, 0)}
        game = Game(rules, 2, 0, [sheet, dict(YAHTZEE_RIVAL)], [{b for b, p in s.items() if p == 0}
                                                               for s in (sheet, YAHTZEE_RIVAL)], 19)
        assert chance == pytest.approx(game_chances(LateOutlook(solver, V), game)[0].chance, abs=1e-12)
    assert boxes["sixes"] > boxes["large_straight"]  # 24 sixes make the bonus: 59 points for one box
    assert len(keeps) == 9 and all(0 <= k <= 1 for k in keeps.values())  # 0-4 sixes, 0-1 two, not all five
    assert max(keeps.values()) >= keeps[(6, 6, 6, 6)] > keeps[()]


@pytest.mark.slow
def test_play_to_win_for_yahtzee_while_others_play_answers_all_game_long(client, tmp_path):
    """In the last four rounds from the exact distributions; before them from the sampled ones, once the server
    has followed the rule set's turns (a box's chance then is the sampled /chances of the game with that box
    filled, the same figures); never for ties on the most Yahtzees; and an anonymous ask never starts that
    work."""
    import shutil

    from anotador.advisor.outlooks import Outlooks
    from anotador.advisor.tables import Tables
    from anotador.rules import Game
    from anotador.solver.chances import NotExact, game_chances
    from anotador.solver.folder import key_of, table_path
    from anotador.solver.late import LateOutlook
    from anotador.solver.sampled import SampledOutlook, read_outcomes

    from .conftest import SOLVER_DIR, built_in_run_outcomes

    outcomes = built_in_run_outcomes("yahtzee")
    body = {"variant": "yahtzee", "sheet": YAHTZEE_MINE, "dice": [6, 6, 6, 6, 2], "roll": 2,
            "opponents": [{"sheet": YAHTZEE_RIVAL}]}
    r = advised(client, body)
    assert r.status_code == 200, r.get_json()
    answer = r.get_json()
    assert answer["to_win"]["method"] == "approximate"
    assert all(0 <= b["chance"] <= 1 for b in answer["boxes"]) and all("chance" in k for k in answer["keeps"])
    # five boxes open and more: sampled, each box's chance the sampled chance of the game it leaves
    rules = find_variant("yahtzee").rules()
    solver, V = solved(rules)
    mine, rival = {"ones": 3, "chance": 22}, {"twos": 6, "yahtzee": 50}
    early = {**body, "sheet": mine, "opponents": [{"sheet": rival}], "dice": [5, 5, 5, 2, 3]}
    r = advised(client, early)
    assert r.status_code == 200, r.get_json()
    sampled = SampledOutlook(LateOutlook(solver, V), read_outcomes(outcomes, solver, V))
    points = dict(rules.score_counts(count([5, 5, 5, 2, 3]), False, mine).options)
    for b in r.get_json()["boxes"]:
        sheet = {**mine, b["category"]: points.get(b["category"], 0)}
        game = Game(rules, 2, 0, [sheet, dict(rival)], [{k for k, v in x.items() if v == 0} for x in (sheet, rival)], 3)
        assert b["chance"] == pytest.approx(game_chances(sampled, game)[0].chance, abs=1e-6), b
    best = max([b["chance"] for b in r.get_json()["boxes"]] + [k["chance"] for k in r.get_json()["keeps"]])
    assert r.get_json()["to_win"]["chance"] == best
    # a server whose folder has the table but not the outcomes: an anonymous ask is told so, and builds nothing
    shutil.copy(table_path(SOLVER_DIR, key_of(rules)), table_path(str(tmp_path), key_of(rules)))
    bare = Tables(str(tmp_path), ahead=False)
    with pytest.raises(NotExact, match="stored game's /chances"):
        Outlooks(bare).chances_outlook(rules, [mine, rival], "client")
    assert bare.builds == {}
