"""Whole games through the API, on SQLite and on PostgreSQL."""

from __future__ import annotations

import io

import pytest

from anotador.rules import VARIANTS, find_variant

from .toolkit import needs

#: A roll that qualifies for each box, and what it scores there (not served).
QUALIFYING = {
    "ones": ([1, 1, 1, 2, 3], 3), "twos": ([2, 2, 1, 3, 4], 4), "threes": ([3, 3, 3, 1, 2], 9),
    "fours": ([4, 4, 1, 2, 3], 8), "fives": ([5, 5, 5, 5, 1], 20), "sixes": ([6, 6, 6, 1, 2], 18),
    "straight": ([1, 2, 3, 4, 5], 20), "full": ([2, 2, 2, 3, 3], 30), "four": ([4, 4, 4, 4, 1], 40),
    "generala": ([5, 5, 5, 5, 5], 50), "double_generala": ([6, 6, 6, 6, 6], 100),
    "small_general": ([2, 2, 2, 2, 2], 60),
}
CAMEROON = {
    "ones": [1, 1, 2, 3, 4], "twos": [2, 2, 2, 1, 3], "threes": [3, 3, 1, 2, 4], "fours": [4, 4, 4, 1, 2],
    "fives": [5, 5, 1, 2, 3], "sixes": [6, 6, 6, 6, 1], "five_of_a_kind": [4, 4, 4, 4, 4],
    "big_cameroon": [2, 3, 4, 5, 6], "little_cameroon": [1, 2, 3, 4, 5], "full": [6, 6, 6, 5, 5],
}


@pytest.mark.parametrize("variant", [v for v in VARIANTS
                                     if VARIANTS[v].boxes_per_turn == 1 and VARIANTS[v].family == "generala"])
def test_a_whole_game_of_every_one_box_variant(new_game, variant):
    rules = find_variant(variant).rules()
    table = new_game(variant, ["Ana", "Beto", "Ceci"])
    expected = [0, 0, 0]
    for rnd in range(1, rules.rounds + 1):
        for p in range(3):
            game = table.get()
            assert game["turn"] == {"player": p, "round": rnd}
            box = rules.boxes[rnd - 1].id
            if p == 2:  # Ceci scratches everything
                table.turn(p, box, scratch=True)
                continue
            dice, points = QUALIFYING[box]
            if variant == "generala-wiki" and box == "straight":
                dice = [1, 2, 4, 5, 6]  # circular straights count here
            game = table.turn(p, box, dice)
            assert game["players"][p]["sheet"][box] == points
            expected[p] += points
    game = table.get()
    assert game["status"] == "finished" and game["turn"] is None
    assert [pl["total"] for pl in game["players"]] == expected
    assert game["players"][2]["scratched"] == [b.id for b in rules.boxes]
    assert (game["winners"], game["reason"]) == ([0, 1], "tie_shared" if rules.options.tie_break == "share"
                                                 else "draw")
    table.turn(0, "ones", [1, 1, 1, 1, 1], expect=409)  # the game is over


#: The Yahtzee family: per variant, a roll and its points for every box, in the order Ana fills them.
#: Her upper boxes add up to exactly 63, the threshold of the upper bonus.
FAMILY = {
    "yahtzee": [
        ("yahtzee", [4, 4, 4, 4, 4], 50), ("ones", [1, 1, 1, 2, 3], 3), ("twos", [2, 2, 2, 5, 6], 6),
        ("threes", [3, 3, 3, 1, 2], 9), ("fours", [4, 4, 4, 1, 2], 12), ("fives", [5, 5, 5, 1, 2], 15),
        ("sixes", [6, 6, 6, 1, 2], 18), ("three_of_a_kind", [2, 2, 2, 6, 5], 17),
        ("four_of_a_kind", [3, 3, 3, 3, 6], 18), ("full_house", [2, 2, 5, 5, 5], 25),
        ("small_straight", [1, 2, 3, 4, 6], 30), ("large_straight", [2, 3, 4, 5, 6], 40),
        ("chance", [6, 6, 5, 5, 4], 26),
    ],
    "yatzy": [
        ("ones", [1, 1, 1, 2, 3], 3), ("twos", [2, 2, 2, 5, 6], 6), ("threes", [3, 3, 3, 1, 2], 9),
        ("fours", [4, 4, 4, 1, 2], 12), ("fives", [5, 5, 5, 1, 2], 15), ("sixes", [6, 6, 6, 1, 2], 18),
        ("one_pair", [6, 6, 5, 5, 1], 12), ("two_pairs", [6, 6, 5, 5, 1], 22),
        ("three_of_a_kind", [4, 4, 4, 4, 1], 12), ("four_of_a_kind", [5, 5, 5, 5, 5], 20),
        ("small_straight", [1, 2, 3, 4, 5], 15), ("large_straight", [2, 3, 4, 5, 6], 20),
        ("full_house", [6, 6, 6, 5, 5], 28), ("chance", [6, 6, 5, 5, 4], 26), ("yatzy", [1, 1, 1, 1, 1], 50),
    ],
    "yacht": [
        ("ones", [1, 1, 1, 2, 3], 3), ("twos", [2, 2, 2, 5, 6], 6), ("threes", [3, 3, 3, 1, 2], 9),
        ("fours", [4, 4, 4, 1, 2], 12), ("fives", [5, 5, 5, 1, 2], 15), ("sixes", [6, 6, 6, 1, 2], 18),
        ("full_house", [6, 6, 6, 5, 5], 28), ("four_of_a_kind", [5, 5, 5, 5, 2], 20),
        ("little_straight", [1, 2, 3, 4, 5], 30), ("big_straight", [2, 3, 4, 5, 6], 30),
        ("choice", [6, 6, 5, 5, 4], 26), ("yacht", [3, 3, 3, 3, 3], 50),
    ],
}
FAMILY["kniffel"] = FAMILY["yahtzee"]


@pytest.mark.parametrize("variant", sorted(FAMILY))
def test_a_whole_game_of_every_yahtzee_family_variant(new_game, variant):
    """Six players: Ana scores every box, the others scratch theirs; subtotal and bonus in the body."""
    rules = find_variant(variant).rules()
    plan = FAMILY[variant]
    assert sorted(box for box, _, _ in plan) == sorted(b.id for b in rules.boxes)
    for box, dice, points in plan:  # the table agrees with the engine before it plays
        assert (box, points) in [(o.category, o.points) for o in rules.score(dice, False, {}).options]
    names = ["Ana", "Beto", "Ceci", "Dani", "Eli", "Fede"]
    table = new_game(variant, names)
    game = table.get()
    upper = {"yahtzee": 35, "kniffel": 35, "yatzy": 50, "yacht": None}[variant]
    assert [b["id"] for b in game["bonuses"]] == (
        ["upper_bonus", "yahtzee_bonus"] if variant in ("yahtzee", "kniffel")
        else ["upper_bonus"] if upper else [])
    for rnd, (box, dice, points) in enumerate(plan, start=1):
        game = table.turn(0, box, dice)
        assert game["players"][0]["sheet"][box] == points
        for p in range(1, 6):
            table.turn(p, rules.boxes[rnd - 1].id, scratch=True)
        if box == "sixes" and upper:  # the six upper boxes are in: 63, the bonus is earned
            game = table.get()
            assert game["players"][0]["subtotals"] == {"upper_bonus": 63}
            assert game["players"][0]["bonuses"]["upper_bonus"] == upper
            assert game["players"][1]["bonuses"]["upper_bonus"] == 0
    game = table.get()
    ana = game["players"][0]
    boxes_total = sum(points for _, _, points in plan)
    assert game["status"] == "finished" and game["winners"] == [0] and game["reason"] == "highest_total"
    assert ana["total"] == boxes_total + (upper or 0)
    assert [pl["total"] for pl in game["players"][1:]] == [0] * 5
    if upper:
        assert ana["bonuses"]["upper_bonus"] == upper
    else:
        assert ana["subtotals"] == {} and ana["bonuses"] == {}


@pytest.mark.parametrize("variant", ["yahtzee", "kniffel"])
def test_further_yahtzees_earn_100_and_play_as_jokers(new_game, variant):
    """The forced joker through the API: matching upper box first, then any lower box; undo and fix."""
    table = new_game(variant, ["Ana", "Beto"])
    table.turn(0, "yahtzee", [5, 5, 5, 5, 5])
    table.turn(1, "yahtzee", [2, 2, 3, 3, 1], scratch=True)  # Beto's Yahtzee box holds 0
    # Ana's second Yahtzee of fives must go in fives while it is free.
    problem = table.turn(0, "chance", [5, 5, 5, 5, 5], expect=422)
    assert "fives" in problem["detail"]
    game = table.turn(0, "fives", [5, 5, 5, 5, 5])
    ana = game["players"][0]
    assert ana["sheet"]["fives"] == 25 and ana["bonuses"]["yahtzee_bonus"] == 100
    assert ana["total"] == 50 + 25 + 100
    turns = table.client.get(table.url("/turns")).get_json()["turns"]
    assert turns[-1]["boxes"][0]["bonus"] == 100 and turns[0]["boxes"][0]["bonus"] == 0
    # Beto's Yahtzee box holds 0: his further Yahtzee is a joker with no bonus.
    game = table.turn(1, "fours", [4, 4, 4, 4, 4])
    assert game["players"][1]["bonuses"]["yahtzee_bonus"] == 0 and game["players"][1]["total"] == 20
    # A third Yahtzee of fives, fives closed: a lower box at full value, with the bonus.
    game = table.turn(0, "large_straight", [5, 5, 5, 5, 5])
    ana = game["players"][0]
    assert ana["sheet"]["large_straight"] == 40 and ana["bonuses"]["yahtzee_bonus"] == 200
    assert ana["total"] == 50 + 25 + 40 + 200
    # Undo takes the bonus back with the box.
    game = table.undo()
    assert game["players"][0]["bonuses"]["yahtzee_bonus"] == 100
    assert game["players"][0]["sheet"]["large_straight"] is None
    # A correction of the second turn into a plain roll takes its bonus away.
    ana = table.correct(3, category="fives", dice=[5, 5, 5, 1, 2])["players"][0]
    assert ana["sheet"]["fives"] == 15 and ana["bonuses"]["yahtzee_bonus"] == 0
    assert ana["total"] == 50 + 15


def test_yahtzee_bonus_off_and_free_joker(new_game):
    """House rules: no Yahtzee bonus, and the free joker (any box, joker values only with the upper one closed)."""
    table = new_game({"base": "yahtzee", "yahtzee_bonus": 0, "joker": "free"}, ["Ana", "Beto"])
    table.turn(0, "yahtzee", [6, 6, 6, 6, 6])
    table.turn(1, "chance", [1, 2, 3, 4, 6])
    game = table.turn(0, "chance", [5, 5, 5, 5, 5])  # free: chance though fives is open
    ana = game["players"][0]
    assert ana["sheet"]["chance"] == 25 and ana["total"] == 75
    assert ana["bonuses"].get("yahtzee_bonus", 0) == 0
    # With fives open, a free joker does not make a straight of five fives: it is not offered.
    table.turn(1, "ones", [1, 1, 2, 3, 4])
    problem = table.turn(0, "large_straight", [5, 5, 5, 5, 5], expect=422)
    assert "does not qualify for large_straight" in problem["detail"]
    table.turn(0, "fives", [5, 5, 1, 2, 3])
    table.turn(1, "twos", [2, 2, 1, 3, 4])
    # Fives closed: now the same roll is a joker, worth the full 40 there.
    game = table.turn(0, "large_straight", [5, 5, 5, 5, 5])
    assert game["players"][0]["sheet"]["large_straight"] == 40 and game["players"][0]["total"] == 50 + 25 + 10 + 40


def test_a_whole_game_of_double_cameroon(new_game):
    rules = find_variant("double-cameroon").rules()
    table = new_game("double-cameroon", ["Ana", "Beto"])
    boxes = [b.id for b in rules.boxes]
    for rnd in range(rules.rounds):
        a, b = boxes[2 * rnd], boxes[2 * rnd + 1]
        for p in range(2):
            r = table.client.post(table.url("/turns"), headers=table.auth, json={
                "player": p, "dice": CAMEROON[a] + CAMEROON[b],
                "boxes": [{"category": a, "dice": CAMEROON[a]},
                          {"category": b, "dice": CAMEROON[b], "scratch": p == 1}],
            })
            assert r.status_code == 201, r.get_json()
    game = table.get()
    assert game["status"] == "finished" and game["rounds"] == 5
    # Ana scored all ten boxes; Beto only the first group of each turn.
    ana, beto = game["players"][0], game["players"][1]
    assert ana["sheet"] == {"ones": 2, "twos": 6, "threes": 6, "fours": 12, "fives": 10, "sixes": 24,
                            "five_of_a_kind": 50, "big_cameroon": 30, "little_cameroon": 21, "full": 28}
    assert beto["scratched"] == ["twos", "fours", "sixes", "big_cameroon", "full"]
    assert game["winners"] == [0] and game["reason"] == "highest_total"


def test_instant_win_and_its_undo(new_game):
    table = new_game("generala", ["Ana", "Beto"])
    table.turn(0, "sixes", [6, 6, 6, 1, 2])
    game = table.turn(1, "generala", [3, 3, 3, 3, 3], served=True)
    assert (game["status"], game["winners"], game["reason"], game["turn"]) == ("finished", [1], "instant_win", None)
    assert game["players"][1]["sheet"]["generala"] == 50
    assert game["players"][0]["sheet"]["ones"] is None  # open boxes stay open
    table.turn(0, "ones", [1, 1, 1, 1, 1], expect=409)
    game = table.undo()
    assert (game["status"], game["winners"], game["reason"]) == ("playing", [], None)
    assert game["turn"] == {"player": 1, "round": 1}
    assert game["players"][1]["sheet"]["generala"] is None
    game = table.turn(1, "generala", [3, 3, 3, 3, 3])  # not served this time: plays on
    assert game["status"] == "playing"


def test_undo_walks_back_to_the_start(new_game):
    table = new_game("generala", ["Ana", "Beto"])
    table.turn(0, "straight", [1, 2, 3, 4, 5], served=True)
    table.turn(1, "ones", scratch=True)
    game = table.undo()
    assert game["turn"] == {"player": 1, "round": 1} and game["players"][1]["sheet"]["ones"] is None
    game = table.undo()
    assert game["turn"] == {"player": 0, "round": 1} and game["players"][0]["total"] == 0
    r = table.client.delete(table.url("/turns/last"), headers=table.auth)
    assert r.status_code == 409 and "nothing to undo" in r.get_json()["detail"]


def test_correction_and_history(new_game):
    table = new_game("generala", ["Ana", "Beto"])
    table.turn(0, "full", [6, 6, 6, 1, 1], served=True)
    table.turn(1, "ones", [1, 1, 2, 3, 4])
    table.turn(0, "twos", [2, 2, 2, 5, 6])
    # Ana's first roll was not served after all, and goes in sixes.
    game = table.correct(1, category="sixes", served=False)
    assert game["players"][0]["sheet"]["full"] is None
    assert game["players"][0]["sheet"]["sixes"] == 18
    assert game["players"][0]["total"] == 18 + 6
    history = table.client.get(table.url("/turns")).get_json()["turns"]
    assert [t["number"] for t in history] == [1, 2, 3]
    first = history[0]
    assert first["served"] is False and first["boxes"][0]["category"] == "sixes"
    assert first["corrected_at"] is not None
    assert first["corrections"][0]["served"] is True
    assert first["corrections"][0]["boxes"] == [{"category": "full", "points": 35, "scratch": False, "dice": None,
                                                  "bonus": 0}]
    # dice only: the box stays
    game = table.correct(2, dice=[1, 1, 1, 3, 4])
    assert game["players"][1]["sheet"]["ones"] == 3


def test_correction_that_a_later_turn_no_longer_fits_is_refused(new_game):
    table = new_game("generala", ["Ana", "Beto"])
    table.turn(0, "full", [6, 6, 6, 1, 1])
    table.turn(1, "ones", [1, 1, 2, 3, 4])
    table.turn(0, "twos", [2, 2, 2, 5, 6])
    before = table.get()
    r = table.client.patch(table.url("/turns/1"), json={"category": "twos", "dice": [2, 2, 3, 4, 5]},
                           headers=table.auth)
    assert r.status_code == 409 and "turn 3" in r.get_json()["detail"]
    r = table.client.patch(table.url("/turns/1"), json={"category": "straight"}, headers=table.auth)
    assert r.status_code == 422 and "category" in r.get_json()["errors"]  # 6-6-6-1-1 is no straight
    after = table.get()
    assert after["players"] == before["players"] and after["version"] == before["version"]


def test_correction_can_turn_a_later_turn_into_an_instant_win(new_game):
    table = new_game("generala-doble", ["Ana", "Beto"])
    table.turn(0, "generala", [4, 4, 4, 4, 4])   # Ana closes generala
    table.turn(1, "ones", [1, 2, 2, 3, 4])
    game = table.turn(0, "four", [5, 5, 5, 5, 5], served=True)  # generala closed: no instant win
    assert game["status"] == "playing" and game["players"][0]["sheet"]["four"] == 45
    # Her first turn was really a scratch of ones: generala stays open, so
    # the served generala of turn 3 wins the game.
    game = table.correct(1, category="ones", scratch=True)
    assert (game["status"], game["winners"], game["reason"]) == ("finished", [0], "instant_win")


def test_first_player_and_ties_re_rolled(new_game, api):
    table = new_game("general-pr", ["Ana", "Beto", "Ceci"], first_rolls=[4, 2, 5])
    assert table.body["first_player"] == 1 and table.body["turn"] == {"player": 1, "round": 1}
    r = api.post("/api/v1/games", json={"variant": "generala", "players": ["Ana", "Beto"], "first_rolls": [6, 6]})
    assert r.status_code == 422 and "first_rolls" in r.get_json()["errors"]
    table = new_game("generala", ["Ana", "Beto"], first_rolls=[6, 5])
    assert table.body["first_player"] == 0


@pytest.mark.parametrize(
    ("variant", "first", "tied", "again", "start"),
    [
        ("generala", [6, 6, 3], [0, 1], [2, 1], 0),
        ("generala", [6, 6, 3], [0, 1], [1, 2], 1),
        ("general-pr", [1, 4, 1, 1], [0, 2, 3], [3, 2, 6], 2),      # lowest die
        ("double-cameroon", [2, 5, 2], [0, 2], [6, 4], 2),
    ],
)
def test_a_tie_for_the_first_player_is_rolled_again_by_the_tied_seats_only(
        api, new_game, variant, first, tied, again, start):
    names = ["Ana", "Beto", "Ceci", "Dani"][:len(first)]
    r = api.post("/api/v1/games", json={"variant": variant, "players": names, "first_rolls": first})
    problem = r.get_json()
    assert r.status_code == 422 and r.mimetype == "application/problem+json"
    assert problem["tied"] == tied and "first_rolls" in problem["errors"]
    assert "roll again" in problem["detail"]
    # The page sends the tied seats' dice as a further round.
    table = new_game(variant, names, first_rolls=[first, again])
    assert table.body["first_player"] == start and table.body["turn"]["player"] == start
    # still tied: 422 again, naming who rolls once more
    r = api.post("/api/v1/games", json={"variant": variant, "players": names,
                                        "first_rolls": [first, [again[0]] * len(tied)]})
    assert r.status_code == 422 and r.get_json()["tied"] == tied


def test_a_number_box_scored_zero_shows_as_scratched(new_game):
    table = new_game("generala", ["Ana", "Beto"])
    game = table.turn(0, "ones", [2, 3, 4, 5, 6])
    ana = game["players"][0]
    assert ana["sheet"]["ones"] == 0 and ana["scratched"] == ["ones"]
    history = table.client.get(table.url("/turns")).get_json()["turns"]
    # the history keeps what was said (scored in ones); a correction of its dice would score it again
    assert history[0]["boxes"] == [{"category": "ones", "points": 0, "scratch": False, "dice": None, "bonus": 0}]
    game = table.correct(1, dice=[1, 1, 4, 5, 6])
    assert game["players"][0]["sheet"]["ones"] == 2 and game["players"][0]["scratched"] == []
    game = table.correct(1, dice=[2, 3, 4, 5, 6])
    # the filled record crosses it out like any scratch: no "0" drawn in the
    # cell, only the two totals
    pdf = table.client.get(table.url("/sheet.pdf?lang=en"))
    assert pdf.status_code == 200 and pdf.mimetype == "application/pdf"
    PdfReader = needs("pypdf", "pip install pypdf").PdfReader
    text = PdfReader(io.BytesIO(pdf.data)).pages[0].extract_text()
    assert [line for line in text.splitlines() if line.strip() == "0"] == ["0", "0"], text


def test_general_pr_big_general_wins_from_the_four_box(new_game):
    table = new_game("general-pr", ["Ana", "Beto"], first_rolls=[2, 5])
    r = table.client.post(table.url("/turns"), headers=table.auth,
                          json={"player": 0, "dice": [4, 4, 4, 4, 4], "served": True, "category": "small_general"})
    assert r.status_code == 422 and "category" in r.get_json()["errors"]
    game = table.turn(0, "four", [4, 4, 4, 4, 4], served=True)
    assert game["players"][0]["sheet"]["four"] == 45
    assert (game["status"], game["winners"], game["reason"]) == ("finished", [0], "instant_win")


def test_most_generalas_breaks_a_tie(new_game):
    table = new_game("generala-doble", ["Ana", "Beto"])
    table.turn(0, "generala", [5, 5, 5, 5, 5])
    table.turn(1, "sixes", [6, 6, 6, 6, 6])
    table.turn(0, "ones", scratch=True)
    table.turn(1, "fives", [5, 5, 5, 5, 1])
    rules = find_variant("generala-doble").rules()
    while (turn := table.get()["turn"]) is not None:
        sheet = table.get()["players"][turn["player"]]["sheet"]
        table.turn(turn["player"], next(b.id for b in rules.boxes if sheet[b.id] is None), scratch=True)
    game = table.get()
    assert [p["total"] for p in game["players"]] == [50, 50]
    assert (game["winners"], game["reason"]) == ([0], "most_generalas")


def test_roll_off(new_game):
    table = new_game({"base": "generala", "tie_break": "roll_off"}, ["Ana", "Beto"])
    rules = find_variant("generala").rules()
    for _ in range(rules.rounds):
        for p in range(2):
            sheet = table.get()["players"][p]["sheet"]
            table.turn(p, next(b.id for b in rules.boxes if sheet[b.id] is None), scratch=True)
    game = table.get()
    assert (game["status"], game["turn"], game["roll_off"]) == \
        ("playing", None, {"players": [0, 1], "rolled": {}, "round": 1})

    def roll(player, dice, expect=201):
        r = table.client.post(table.url("/roll-off"), json={"player": player, "dice": dice}, headers=table.auth)
        assert r.status_code == expect, r.get_json()
        if expect == 201:  # the roll is listed in the game's history: its Location
            assert r.headers["Location"] == f"/api/v1/games/{table.id}/turns"
        return r.get_json()

    roll(0, [6, 6, 6, 6, 6])
    roll(0, [6, 6, 6, 6, 6], expect=409)
    game = roll(1, [6, 6, 6, 6, 6])          # tied again: both roll again, in a second round
    assert game["roll_off"] == {"players": [0, 1], "rolled": {}, "round": 2}
    roll(1, [1, 1, 1, 1, 2])
    game = roll(0, [1, 1, 1, 1, 3])
    assert (game["status"], game["winners"], game["reason"], game["roll_off"]) == ("finished", [0], "roll_off", None)
    roll(1, [6, 6, 6, 6, 6], expect=409)
    history = table.client.get(table.url("/turns")).get_json()
    assert [r["player"] for r in history["roll_offs"]] == [0, 1, 1, 0]
    # undoing the last turn reopens the game and forgets the roll-off
    game = table.undo()
    assert game["status"] == "playing" and game["roll_off"] is None and game["turn"]["round"] == 10


def test_a_roll_off_that_keeps_tying_ends_shared_and_says_so(new_game):
    """Ten rounds of ties through the API: the game ends shared, and a further roll is a 409 that says why."""
    from anotador.rules.game import MAX_ROLL_OFF_ROUNDS

    names = ["Ana", "Beto", "Ceci", "Dani", "Eli", "Fede"]
    table = new_game({"base": "generala", "tie_break": "roll_off"}, names)
    rules = find_variant("generala").rules()
    first = table.body["first_player"]
    for i in range(rules.rounds * len(names)):  # every box scratched: six totals of 0
        table.turn((first + i) % len(names), rules.boxes[i // len(names)].id, scratch=True)
    for _ in range(MAX_ROLL_OFF_ROUNDS):
        for player in range(len(names)):
            game = table.client.post(table.url("/roll-off"), json={"player": player, "dice": [4, 4, 4, 4, 4]},
                                     headers=table.auth).get_json()
    assert (game["status"], game["winners"], game["reason"]) == ("finished", list(range(6)), "tie_shared")
    r = table.client.post(table.url("/roll-off"), json={"player": 0, "dice": [6, 6, 6, 6, 6]}, headers=table.auth)
    assert r.status_code == 409 and f"after {MAX_ROLL_OFF_ROUNDS} rounds" in r.get_json()["detail"]
    assert len(table.client.get(table.url("/turns")).get_json()["roll_offs"]) == MAX_ROLL_OFF_ROUNDS * 6
