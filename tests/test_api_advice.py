"""POST /api/v1/advice, GET /api/v1/games/{id}/analysis, and how tables are built and kept."""

from __future__ import annotations

import fcntl
import json
import random
import re
import time

import pytest

from anotador import create_app
from anotador.rules import find_variant

from .test_solver import random_sheet


def advise(client, expect=200, **body):
    r = client.post("/api/v1/advice", json=body)
    assert r.status_code == expect, r.get_json()
    return r.get_json()


def fresh_app(tmp_path, folder, **config):
    return create_app({"TESTING": True, "SQLALCHEMY_DATABASE_URI": f"sqlite:///{tmp_path / 'a.sqlite'}",
                       "SOLVER_DIR": str(folder), **config})


def wait_for(client, body, seconds=60):
    """Ask until the table is built: every answer meanwhile is a 503 with Retry-After."""
    deadline = time.time() + seconds
    while True:
        r = client.post("/api/v1/advice", json=body)
        if r.status_code == 200:
            return r.get_json()
        assert r.status_code == 503 and r.mimetype == "application/problem+json"
        assert r.get_json()["type"].endswith("table-building") and int(r.headers["Retry-After"]) >= 1
        assert time.time() < deadline, "the table was never built"
        time.sleep(0.2)


# -- answers ---------------------------------------------------------------------------------


def test_three_threes_on_the_first_roll(client, advice_tables):
    body = advise(client, variant="generala", sheet={"ones": 3, "generala": 0}, dice=[3, 3, 3, 5, 6], roll=1)
    assert list(body) == ["variant", "dice", "roll", "expected_final", "boxes", "keeps", "best", "instant_win"]
    boxes = {b["category"]: b for b in body["boxes"]}
    assert set(boxes) == {"twos", "threes", "fours", "fives", "sixes", "straight", "full", "four"}
    assert boxes["threes"]["points"] == 9 and boxes["straight"]["points"] == 0  # a scratch is a choice too
    keeps = [k["keep"] for k in body["keeps"]]
    assert len(keeps) == len(set(map(tuple, keeps))) == 4 * 2 * 2 - 1  # distinct, proper: 3 threes x 5 x 6
    assert body["best"] == {"keep": [3, 3, 3], "expected": body["keeps"][0]["expected"]}
    assert [b["expected"] for b in body["boxes"]] == sorted((b["expected"] for b in body["boxes"]), reverse=True)
    assert not body["instant_win"]


def test_the_empty_sheet_expects_the_variants_expected_score(client, advice_tables):
    body = advise(client, variant="generala", dice=[1, 2, 3, 4, 6], roll=3)
    variant = client.get("/api/v1/variants/generala").get_json()
    assert variant["expected_score"] == body["expected_final"] == pytest.approx(float(
        advice_tables["generala"].values[0]), abs=1e-6)
    assert "keeps" not in body and body["best"]["category"] == body["boxes"][0]["category"]


def test_a_served_generala_wins_and_is_valued_as_thrown_later(client, advice_tables):
    body = advise(client, variant="generala", dice=[5, 5, 5, 5, 5], roll=1)
    assert body["instant_win"] and body["best"]["category"] == "generala"
    later = advise(client, variant="generala", dice=[5, 5, 5, 5, 5], roll=2)
    assert body["boxes"][0]["expected"] == later["boxes"][0]["expected"]


def test_a_third_roll_adds_up_to_the_next_sheets_expectation(client, advice_tables):
    """Each box's expected is the new sheet's expected_final: what the next turn starts from."""
    rules = find_variant("generala").rules()
    rng = random.Random(3)
    for _ in range(6):
        sheet = random_sheet(rules, rng.randint(2, 10), rng)
        dice = [rng.randint(1, 6) for _ in range(5)]
        body = advise(client, variant="generala", sheet=sheet, dice=dice, roll=3)
        for box in body["boxes"]:
            after = advise(client, variant="generala", sheet={**sheet, box["category"]: box["points"]},
                           dice=[1, 1, 1, 1, 2], roll=3)
            assert box["expected"] == pytest.approx(after["expected_final"], abs=2e-6)


def test_best_is_the_best_of_every_box_and_keep(client, advice_tables):
    rng = random.Random(5)
    rules = find_variant("generala").rules()
    for _ in range(20):
        body = advise(client, variant="generala", sheet=random_sheet(rules, rng.randint(1, 10), rng),
                      dice=[rng.randint(1, 6) for _ in range(5)], roll=rng.randint(1, 2))
        top = max([b["expected"] for b in body["boxes"]] + [k["expected"] for k in body["keeps"]])
        assert body["best"]["expected"] == top


@pytest.mark.parametrize("variant", ["generala", "double-cameroon"])
def test_a_turns_answers_are_the_same_kept_or_not(client, advice_tables, variant):
    """A turn's advice, asked throw by throw as the page asks it (the later throws read what the first worked
    out, kept), is what each throw gets asked on its own, in any order, with nothing kept."""
    from anotador.advisor.tables import tables

    rules = find_variant(variant).rules()
    rng = random.Random(8)
    with client.application.app_context():
        solver = tables().get(rules).solver
    for _ in range(6):
        n = rules.boxes_per_turn
        sheet = random_sheet(rules, rng.randrange(n, len(rules.boxes) + 1, n), rng)  # boxes left free
        throws = [[rng.randint(1, 6) for _ in range(rules.dice)] for _ in range(3)]
        in_turn = [advise(client, variant=variant, sheet=sheet, dice=d, roll=r) for r, d in enumerate(throws, 1)]
        alone = {}
        for r in (3, 2, 1):
            solver._turns_kept.clear()
            alone[r] = advise(client, variant=variant, sheet=sheet, dice=throws[r - 1], roll=r)
        assert in_turn == [alone[1], alone[2], alone[3]]


def test_double_cameroon_splits_and_keeps(client, advice_tables):
    dice = [1, 2, 3, 4, 5, 2, 3, 4, 5, 6]
    body = advise(client, variant="double-cameroon", dice=dice, roll=2, limit=5)
    assert "boxes" not in body and len(body["splits"]) == 5 and len(body["keeps"]) == 5
    top = body["splits"][0]
    assert sorted(top["boxes"][0]["dice"] + top["boxes"][1]["dice"]) == sorted(dice)
    assert top["points"] == sum(b["points"] for b in top["boxes"])
    assert body["best"]["expected"] == max(top["expected"], body["keeps"][0]["expected"])
    assert ("split" in body["best"]) == (top["expected"] >= body["keeps"][0]["expected"])
    last = advise(client, variant="double-cameroon", dice=dice, roll=3)
    assert len(last["splits"]) == 10 and "keeps" not in last and last["best"]["split"] == last["splits"][0]["boxes"]


@pytest.mark.parametrize(("body", "field"), [
    ({"variant": "generala", "dice": [1, 2, 3, 4, 5]}, "roll"),
    ({"variant": "generala", "dice": [1, 2, 3, 4, 5], "roll": 0}, "roll"),
    ({"variant": "generala", "dice": [1, 2, 3, 4, 5], "roll": 4}, "roll"),
    ({"variant": "generala", "dice": [1, 2, 3, 4, 5], "roll": "1"}, "roll"),
    ({"variant": "generala", "dice": [1, 2, 3, 4, 7], "roll": 1}, "dice.4"),
    ({"variant": "generala", "dice": [1, 2, 3, 4], "roll": 1}, "dice"),
    ({"variant": "generala", "dice": [1, 2, 3, 4, 5], "roll": 1, "sheet": {"straight": 21}}, "sheet.straight"),
    ({"variant": "generala", "dice": [1, 2, 3, 4, 5], "roll": 1, "sheet": {"nope": 1}}, "sheet.nope"),
    ({"variant": "generala", "dice": [1, 2, 3, 4, 5], "roll": 1, "limit": 3}, "limit"),
    ({"variant": "nope", "dice": [1, 2, 3, 4, 5], "roll": 1}, "variant"),
    ({"rules": {"base": "generala", "served_bonus": -1}, "dice": [1, 2, 3, 4, 5], "roll": 1}, "rules.served_bonus"),
    ({"variant": "generala", "rules": {"base": "generala"}, "dice": [1, 2, 3, 4, 5], "roll": 1}, "variant"),
    ({"variant": "generala", "dice": [1, 2, 3, 4, 5], "roll": 1, "extra": 1}, "extra"),
])
def test_what_score_refuses_advice_refuses_the_same_way(client, body, field):
    problem = advise(client, 422, **body)
    assert field in problem["errors"], problem


def test_a_full_sheet_has_nothing_to_advise(client, advice_tables):
    sheet = {b.id: 0 for b in find_variant("generala").rules().boxes}
    assert "sheet" in advise(client, 422, variant="generala", dice=[1, 2, 3, 4, 5], roll=1, sheet=sheet)["errors"]


# -- tables: built in the background, kept on disk, bounded -------------------------------------


def test_a_table_is_built_in_the_background_and_kept(tmp_path):
    folder = tmp_path / "tables"
    body = {"rules": {"base": "generala", "served_bonus": 10}, "dice": [2, 2, 3, 3, 3], "roll": 1}
    client = fresh_app(tmp_path, folder).test_client()
    r = client.post("/api/v1/advice", json=body)
    assert r.status_code == 503 and 1 <= int(r.headers["Retry-After"]) <= 2  # a Generala table: a second
    assert client.get("/api/v1/variants/generala").get_json()["expected_score"] is None
    started = time.time()
    first = wait_for(client, body)
    assert first["rules"]["served_bonus"] == 10 and time.time() - started < 20
    # a restart reads it from disk: no 503 at all
    again = fresh_app(tmp_path, folder).test_client()
    assert again.post("/api/v1/advice", json=body).get_json() == first
    assert len(list(folder.glob("*.table"))) == 1 and len(list(folder.glob("*[!e].json"))) == 1  # and rate.json


def test_a_table_another_process_builds_is_waited_for_not_built_twice(tmp_path):
    from anotador.solver.folder import key_of

    folder = tmp_path / "tables"
    folder.mkdir()
    rules = find_variant("general-pr").rules()
    lock = open(folder / (key_of(rules) + ".table.lock"), "a+")
    fcntl.flock(lock, fcntl.LOCK_EX)
    lock.write(json.dumps({"pid": 1, "started": time.time()}))
    lock.flush()
    app = fresh_app(tmp_path, folder)
    client = app.test_client()
    for _ in range(3):
        r = client.post("/api/v1/advice", json={"variant": "general-pr", "dice": [1, 1, 1, 1, 1], "roll": 1})
        assert r.status_code == 503
    assert app.extensions["anotador.tables"].builds == {}  # nothing spawned: the other process builds it
    fcntl.flock(lock, fcntl.LOCK_UN)
    lock.close()
    assert wait_for(client, {"variant": "general-pr", "dice": [1, 1, 1, 1, 1], "roll": 1})["instant_win"]


def test_builds_wait_their_turn_and_the_folder_keeps_the_last_used(tmp_path):
    folder = tmp_path / "tables"
    app = fresh_app(tmp_path, folder, SOLVER_BUILDS=1, SOLVER_CLIENT_BUILDS=3, SOLVER_KEEP=2)
    client = app.test_client()
    bodies = [{"rules": {"base": "generala", "served_bonus": n}, "dice": [1, 2, 3, 4, 5], "roll": 3}
              for n in (0, 10, 20)]
    assert client.post("/api/v1/advice", json=bodies[0]).status_code == 503
    r = client.post("/api/v1/advice", json=bodies[1])  # one build at a time: this one waits longer
    assert r.status_code == 503 and int(r.headers["Retry-After"]) >= 2
    assert len(app.extensions["anotador.tables"].builds) == 1
    for body in bodies:
        wait_for(client, body)
    time.sleep(0.05)
    wait_for(client, bodies[2])  # the last used, loaded again: the folder keeps two
    assert len(list(folder.glob("*.table"))) == 2


def test_an_unreadable_table_is_set_aside_and_built_again(tmp_path):
    from anotador.solver.folder import key_of

    folder = tmp_path / "tables"
    folder.mkdir()
    rules = find_variant("generala").rules(served_bonus=0)
    (folder / (key_of(rules) + ".table")).write_bytes(b"not a table")
    client = fresh_app(tmp_path, folder).test_client()
    body = {"rules": {"base": "generala", "served_bonus": 0}, "dice": [1, 2, 3, 4, 5], "roll": 3}
    assert client.post("/api/v1/advice", json=body).status_code == 503
    assert (folder / (key_of(rules) + ".table.bad")).exists()
    assert wait_for(client, body)["expected_final"] > 100


# -- a game, analysed -------------------------------------------------------------------------


def test_a_whole_game_analysed(new_game, advice_tables):
    rules = find_variant("generala").rules()
    table = new_game("generala", ["Ana", "Beto"])
    client = table.client
    rng = random.Random(11)
    for rnd in range(rules.rounds):
        for p in range(2):
            dice = [rng.randint(1, 6) for _ in range(5)]
            if p == 0:  # Ana takes the advisor's box for her dice
                best = advise(client, variant="generala", dice=dice, roll=3,
                              sheet={k: v for k, v in table.get()["players"][0]["sheet"].items() if v is not None})
                box = best["best"]["category"]
                points = next(b["points"] for b in best["boxes"] if b["category"] == box)
                table.turn(0, box, dice, scratch=points == 0)
            else:  # Beto scratches the first free box, whatever he threw
                free = [b for b, v in table.get()["players"][1]["sheet"].items() if v is None]
                table.turn(1, free[0], dice, scratch=True)
    r = client.get(table.url("/analysis"))
    assert r.status_code == 200, r.get_json()
    body = r.get_json()
    assert body["status"] == "finished" and "only its box is judged" in body["note"]
    assert {t["judged"] for t in body["turns"]} == {"box"}  # final dice only: no keep is judged
    assert len(body["turns"]) == 2 * rules.rounds
    ana, beto = body["players"]
    assert ana["lost"] == pytest.approx(0, abs=1e-6)  # she always took the best box
    assert beto["lost"] > 20
    game = table.get()
    for player, total in zip(body["players"], [p["total"] for p in game["players"]]):
        assert player["expected_now"] == pytest.approx(total, abs=1e-6)  # a full sheet: its total
        # the keeps are not known: what the dice and the keeps did together is unjudged, not luck
        assert player["luck"] == 0
        assert player["unjudged"] == pytest.approx(total - player["expected_start"] + player["lost"], abs=1e-5)
        assert player["expected_start"] == pytest.approx(float(advice_tables["generala"].values[0]), abs=1e-6)
    for turn in body["turns"]:
        assert turn["lost"] == pytest.approx(turn["expected_best"] - turn["expected_chosen"], abs=1e-5)
    # cached by the game's version
    assert client.get(table.url("/analysis"), headers={"If-None-Match": r.headers["ETag"]}).status_code == 304


def test_analysis_of_a_game_in_play_and_a_scratch_without_dice(new_game, advice_tables):
    table = new_game("generala", ["Ana", "Beto"])
    table.turn(0, "generala", scratch=True)
    table.turn(1, "sixes", [6, 6, 6, 1, 2])
    body = table.client.get(table.url("/analysis")).get_json()
    first, second = body["turns"]
    assert first["dice"] is None and first["best"] is None and first["lost"] is None
    assert second["chosen"] == ["sixes"] and second["points"] == 18 and second["lost"] >= 0
    assert body["status"] == "playing"
    assert table.client.get("/api/v1/games/nope/analysis").status_code == 404
    # a box scratched though the dice scored there: judged at what was recorded (0), not at what it could hold
    table.turn(0, "generala", [6, 6, 6, 6, 6], scratch=True, expect=409)  # closed already: refused
    table.turn(0, "four", [6, 6, 6, 6, 2], scratch=True)
    third = table.client.get(table.url("/analysis")).get_json()["turns"][2]
    assert third["chosen"] == ["four"] and third["points"] == 0 and third["best"] == ["four"] and third["lost"] > 20


def test_environment_names_the_folder(monkeypatch, tmp_path):
    monkeypatch.setenv("ANOTADOR_SOLVER_DIR", str(tmp_path / "elsewhere"))
    app = create_app({"TESTING": True, "SQLALCHEMY_DATABASE_URI": "sqlite://"})
    assert app.extensions["anotador.tables"].folder == str(tmp_path / "elsewhere")


def test_the_command_line_builds_tables_before_anyone_asks(tmp_path):
    folder = tmp_path / "tables"
    app = fresh_app(tmp_path, folder)
    result = app.test_cli_runner().invoke(args=["advice", "generala", "general-pr"])
    assert result.exit_code == 0, result.output
    assert re.search(r"^generala: expected score 1\d\d\.\d{4} \(", result.output, re.M)
    assert len(list(folder.glob("*.table"))) == 2
    client = app.test_client()  # asked now: answered at once
    assert client.post("/api/v1/advice", json={"variant": "general-pr", "dice": [1, 2, 3, 4, 5], "roll": 1}
                       ).status_code == 200
    assert client.get("/api/v1/variants/general-pr").get_json()["expected_score"] > 100
    bad = app.test_cli_runner().invoke(args=["advice", "nope"])
    assert bad.exit_code == 2 and "nope" in bad.output
