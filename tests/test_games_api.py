"""The games API's contract: creation, auth, conditional requests, refusals."""

from __future__ import annotations

import re

import pytest
import sqlalchemy as sa

from anotador.extensions import db
from anotador.store.models import GameRow
from anotador.sheets import hash_token


def test_create_answers_201_with_location_token_and_links(api):
    r = api.post("/api/v1/games", json={"variant": "generala", "players": ["Ana", "Beto"]})
    assert r.status_code == 201
    body = r.get_json()
    assert r.headers["Location"] == f"/api/v1/games/{body['id']}"
    assert r.headers["ETag"] == '"1"'
    assert r.headers["Cache-Control"] == "no-store"
    assert body["links"]["read"].endswith(f"/g/{body['id']}")
    assert body["links"]["write"] == f"{body['links']['read']}#token={body['token']}"
    assert body["status"] == "playing" and body["turn"] == {"player": 0, "round": 1}
    assert [p["name"] for p in body["players"]] == ["Ana", "Beto"]
    assert body["players"][0]["sheet"] == dict.fromkeys(
        ["ones", "twos", "threes", "fours", "fives", "sixes", "straight", "full", "four", "generala"])
    assert body["rules"]["base"] == "generala" and body["rules"]["served_bonus"] == 5
    # The token is not in the game as read by others.
    again = api.get(r.headers["Location"]).get_json()
    assert "token" not in again and "links" not in again


def test_token_and_ids_are_unguessable_and_stored_hashed(api, db_app):
    bodies = [api.post("/api/v1/games", json={"variant": "generala", "players": ["A", "B"]}).get_json()
              for _ in range(3)]
    ids = [b["id"] for b in bodies]
    assert len(set(ids)) == 3 and all(re.fullmatch(r"[A-Za-z0-9_-]{16}", i) for i in ids)
    for b in bodies:
        assert len(b["token"]) >= 43  # 32 random bytes, base64url: 256 bits
    with db_app.app_context():
        row = db.session.get(GameRow, ids[0])
        assert row.token_hash == hash_token(bodies[0]["token"]) and bodies[0]["token"] not in row.token_hash


def test_house_rules_are_frozen_with_the_game(api):
    r = api.post("/api/v1/games", json={"rules": {"base": "generala", "served_bonus": 10}, "players": ["A", "B"]})
    body = r.get_json()
    assert body["rules"]["served_bonus"] == 10
    auth = {"Authorization": f"Bearer {body['token']}"}
    game = api.post(f"/api/v1/games/{body['id']}/turns", headers=auth,
                    json={"player": 0, "dice": [2, 2, 2, 3, 3], "served": True, "category": "full"}).get_json()
    assert game["players"][0]["sheet"]["full"] == 40


@pytest.mark.parametrize(
    ("body", "field"),
    [
        ({"variant": "generala", "players": []}, "players"),
        ({"variant": "generala", "players": ["Solo"]}, "players"),   # every source is for two or more
        ({"variant": "generala", "players": ["P"] * 13}, "players"),
        ({"variant": "generala", "players": [f"P{i}" for i in range(13)]}, "players"),
        ({"variant": "generala", "players": ["Ana", "ana"]}, "players.1"),
        ({"variant": "generala", "players": ["Ana", " Ana "]}, "players.1"),
        ({"variant": "generala", "players": ["Ana", ""]}, "players.1"),
        ({"variant": "generala", "players": ["Ana", "   "]}, "players.1"),
        ({"variant": "generala", "players": ["Ana", "x" * 41]}, "players.1"),
        ({"variant": "generala", "players": ["Ana", "a\u0000b"]}, "players.1"),
        ({"variant": "generala", "players": ["Ana", 7]}, "players.1"),
        ({"variant": "generala", "players": "Ana"}, "players"),
        ({"variant": "generala"}, "players"),
        ({"variant": "nope", "players": ["A", "B"]}, "variant"),
        ({"players": ["A", "B"]}, "variant"),
        ({"rules": {"base": "generala", "straight": "diagonal"}, "players": ["A", "B"]}, "rules.straight"),
        ({"variant": "generala", "players": ["A", "B"], "first_rolls": [6]}, "first_rolls"),
        ({"variant": "generala", "players": ["A", "B"], "first_rolls": [6, 0]}, "first_rolls.1"),
        ({"variant": "generala", "players": ["A", "B"], "first_rolls": [6, 6]}, "first_rolls"),
        ({"variant": "generala", "players": ["A", "B"], "colour": "red"}, "colour"),
        # rounds of first-player dice: the wrong count in a round names the round
        ({"variant": "generala", "players": ["A", "B", "C"], "first_rolls": [[6, 6, 3], [2]]}, "first_rolls.1"),
        ({"variant": "generala", "players": ["A", "B", "C"], "first_rolls": [[6, 6, 3], [2, 1, 4]]},
         "first_rolls.1"),
        ({"variant": "generala", "players": ["A", "B", "C"], "first_rolls": [[6, 6], [2, 1]]}, "first_rolls.0"),
        ({"variant": "generala", "players": ["A", "B", "C"], "first_rolls": [[6, 6, 3], [2, 7]]},
         "first_rolls.1.1"),
        ({"variant": "generala", "players": ["A", "B", "C"], "first_rolls": [[6, 5, 3], [2, 1]]},
         "first_rolls.1"),                                   # no tie left to break
        ({"variant": "generala", "players": ["A", "B", "C"], "first_rolls": [[6, 6, 3], 2]}, "first_rolls.1"),
        ({"variant": "generala", "players": ["A", "B"], "first_rolls": []}, "first_rolls"),
        ({"variant": "generala", "players": ["A", "B"], "first_rolls": [[6, 6]] + [[1, 1]] * 50}, "first_rolls"),
        # as_listed ignores the dice but still checks them
        ({"rules": {"base": "generala", "first_player": "as_listed"}, "players": ["A", "B"],
          "first_rolls": [6, 9]}, "first_rolls.1"),
        ({"rules": {"base": "generala", "first_player": "as_listed"}, "players": ["A", "B"],
          "first_rolls": [6]}, "first_rolls"),
        ({"rules": {"base": "generala", "first_player": "as_listed"}, "players": ["A", "B"],
          "first_rolls": [[6, 6], [1, 2]]}, "first_rolls.1"),
    ],
)
def test_bad_games_are_refused(api, body, field):
    r = api.post("/api/v1/games", json=body)
    assert r.status_code == 422 and r.mimetype == "application/problem+json"
    assert field in r.get_json()["errors"], r.get_json()


def test_names_of_any_script_are_kept_as_given(new_game):
    names = ["José", "Zoë", "Đặng", "李雷", "أحمد", "<img src=x onerror=alert(1)>", "x" * 40]
    table = new_game("generala", names)
    assert [p["name"] for p in table.get()["players"]] == names


@pytest.mark.parametrize("headers", [{}, {"Authorization": "Basic abc"}, {"Authorization": "Bearer "}])
def test_writes_without_a_token_are_401(new_game, headers):
    table = new_game()
    r = table.client.post(table.url("/turns"), json={"player": 0, "category": "ones", "scratch": True},
                          headers=headers)
    assert r.status_code == 401 and r.headers["WWW-Authenticate"].startswith("Bearer")
    assert r.mimetype == "application/problem+json"
    for r in (table.client.delete(table.url("/turns/last"), headers=headers),
              table.client.patch(table.url("/turns/1"), json={"served": True}, headers=headers),
              table.client.post(table.url("/roll-off"), json={"player": 0, "dice": [1] * 5}, headers=headers)):
        assert r.status_code == 401
    assert table.get()["version"] == 1


def test_another_games_token_is_403(new_game):
    mine, other = new_game(), new_game()
    r = mine.client.post(mine.url("/turns"), json={"player": 0, "category": "ones", "scratch": True},
                         headers=other.auth)
    assert r.status_code == 403 and r.mimetype == "application/problem+json"
    assert mine.get()["version"] == 1


def test_unknown_game_is_404(api):
    for r in (api.get("/api/v1/games/nope"), api.get("/api/v1/games/nope/turns"),
              api.post("/api/v1/games/nope/turns", json={"player": 0, "category": "ones"},
                       headers={"Authorization": "Bearer x"}),
              api.get("/api/v1/games/" + "x" * 300)):
        assert r.status_code == 404 and r.mimetype == "application/problem+json"


def test_unknown_turn_is_404(new_game):
    table = new_game()
    r = table.client.patch(table.url("/turns/1"), json={"served": True}, headers=table.auth)
    assert r.status_code == 404
    r = table.client.patch(table.url("/turns/-1"), json={"served": True}, headers=table.auth)
    assert r.status_code == 404


def test_etag_polling(new_game):
    table = new_game()
    first = table.client.get(table.url())
    etag = first.headers["ETag"]
    assert etag == '"1"' and first.headers["Cache-Control"] == "no-cache"
    unchanged = table.client.get(table.url(), headers={"If-None-Match": etag})
    assert unchanged.status_code == 304 and unchanged.get_data() == b"" and unchanged.headers["ETag"] == etag
    table.turn(0, "ones", scratch=True)
    changed = table.client.get(table.url(), headers={"If-None-Match": etag})
    assert changed.status_code == 200 and changed.headers["ETag"] == '"2"'
    assert changed.get_json()["turn"]["player"] == 1
    history = table.client.get(table.url("/turns"))
    assert table.client.get(table.url("/turns"), headers={"If-None-Match": history.headers["ETag"]}).status_code == 304


def test_if_match_guards_against_lost_updates(new_game):
    table = new_game()
    stale = {**table.auth, "If-Match": '"1"'}
    r = table.client.post(table.url("/turns"), json={"player": 0, "category": "ones", "scratch": True}, headers=stale)
    assert r.status_code == 201 and r.headers["ETag"] == '"2"'
    r = table.client.post(table.url("/turns"), json={"player": 1, "category": "ones", "scratch": True}, headers=stale)
    assert r.status_code == 412 and r.mimetype == "application/problem+json"
    r = table.client.delete(table.url("/turns/last"), headers=stale)
    assert r.status_code == 412
    assert table.get()["version"] == 2
    r = table.client.delete(table.url("/turns/last"), headers={**table.auth, "If-Match": '"2"'})
    assert r.status_code == 200


@pytest.mark.parametrize(
    ("turn", "status", "key"),
    [
        ({"player": 1, "category": "ones", "scratch": True}, 409, "not-your-turn"),
        ({"player": 0, "dice": [1, 2, 3, 4, 6], "category": "straight"}, 422, "category"),
        ({"player": 0, "dice": [1, 2, 3, 4], "category": "ones"}, 422, "dice"),
        ({"player": 0, "dice": [1, 2, 3, 4, 9], "category": "ones"}, 422, "dice.4"),
        ({"player": 0, "category": "ones"}, 422, "dice"),
        ({"player": 0, "dice": [1] * 5, "category": "chance"}, 422, "category"),
        ({"player": 0, "dice": [1] * 5}, 422, "category"),
        ({"player": 0, "dice": [1] * 5, "boxes": [{"category": "ones"}, {"category": "twos"}]}, 422, "boxes"),
        ({"player": 7, "category": "ones", "scratch": True}, 422, "player"),
        ({"player": "0", "category": "ones", "scratch": True}, 422, "player"),
        ({"category": "ones", "scratch": True}, 422, "player"),
        ({"player": 0, "category": "ones", "scratch": "yes"}, 422, "scratch"),
    ],
)
def test_turn_refusals_say_why_and_change_nothing(new_game, turn, status, key):
    table = new_game()
    r = table.client.post(table.url("/turns"), json=turn, headers=table.auth)
    assert r.status_code == status, r.get_json()
    body = r.get_json()
    assert r.mimetype == "application/problem+json" and body["detail"]
    if status == 422:
        assert key in body["errors"], body
    else:
        assert body["type"].endswith(key)
    assert table.get()["version"] == 1


def test_a_closed_box_is_409(new_game):
    table = new_game("generala", ["Ana", "Beto"])
    table.turn(0, "ones", [1, 1, 1, 2, 3])
    table.turn(1, "twos", [2, 2, 1, 1, 3])
    r = table.client.post(table.url("/turns"), json={"player": 0, "category": "ones", "scratch": True},
                          headers=table.auth)
    assert r.status_code == 409 and r.get_json()["type"].endswith("box-closed")


def test_double_cameroon_turn_refusals(new_game):
    table = new_game("double-cameroon", ["Ana", "Beto"], first_rolls=[1, 6])
    url, auth = table.url("/turns"), table.auth
    dice = [2, 3, 4, 5, 6, 1, 2, 3, 4, 5]
    bad = [
        ({"player": 0, "dice": dice, "category": "ones"}, "category"),
        ({"player": 0, "dice": dice, "boxes": [{"category": "big_cameroon", "dice": [2, 3, 4, 5, 6]}]}, "boxes"),
        ({"player": 0, "dice": dice, "boxes": [{"category": "big_cameroon", "dice": [2, 3, 4, 5, 6]},
                                               {"category": "ones", "dice": [1, 1, 1, 1, 1]}]}, "boxes"),
        ({"player": 0, "dice": dice, "boxes": [{"category": "big_cameroon", "dice": [2, 3, 4, 5, 6]},
                                               {"category": "full", "dice": [1, 2, 3, 4, 5]}]}, "boxes.1.category"),
        ({"player": 0, "dice": dice, "boxes": [{"category": "big_cameroon", "dice": [2, 3, 4, 5]},
                                               {"category": "ones", "dice": [1, 2, 3, 4, 5]}]}, "boxes.0.dice"),
    ]
    for turn, field in bad:
        r = table.client.post(url, json=turn, headers=auth)
        assert r.status_code == 422 and field in r.get_json()["errors"], (turn, r.get_json())
    ok = table.client.post(url, headers=auth, json={"player": 0, "boxes": [
        {"category": "ones", "scratch": True}, {"category": "twos", "scratch": True}]})
    assert ok.status_code == 201
    assert ok.get_json()["players"][0]["scratched"] == ["ones", "twos"]


def test_history_lists_turns_in_order(new_game):
    table = new_game("generala", ["Ana", "Beto"])
    table.turn(0, "straight", [5, 4, 3, 2, 1], served=True)
    table.turn(1, "ones", scratch=True)
    history = table.client.get(table.url("/turns")).get_json()
    assert history["roll_offs"] == []
    first, second = history["turns"]
    assert (first["number"], first["player"], first["round"], first["dice"], first["served"]) == (
        1, 0, 1, [5, 4, 3, 2, 1], True)
    assert first["boxes"] == [{"category": "straight", "points": 25, "scratch": False, "dice": None, "bonus": 0}]
    assert first["corrections"] == [] and first["corrected_at"] is None
    assert re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z", first["recorded_at"])
    assert second["boxes"] == [{"category": "ones", "points": 0, "scratch": True, "dice": None, "bonus": 0}]
    assert second["dice"] is None


def test_corrections_may_not_change_the_player(new_game):
    table = new_game("generala", ["Ana", "Beto"])
    table.turn(0, "ones", [1, 1, 2, 3, 4])
    r = table.client.patch(table.url("/turns/1"), json={"player": 1, "served": True}, headers=table.auth)
    assert r.status_code == 422 and "player" in r.get_json()["errors"]
    r = table.client.patch(table.url("/turns/1"), json={}, headers=table.auth)
    assert r.status_code == 422


def test_the_database_itself_refuses_a_second_entry_in_a_box(new_game, db_app):
    from sqlalchemy.exc import IntegrityError

    from anotador.store.models import EntryRow, TurnRow

    table = new_game("generala", ["Ana", "Beto"])
    table.turn(0, "ones", [1, 1, 2, 3, 4])
    with db_app.app_context():
        turn = db.session.query(TurnRow).filter_by(game_id=table.id).one()
        # Bypass the application: write straight to the table.
        db.session.add(EntryRow(game_id=table.id, turn_id=turn.id, player=0, box="ones", points=3, scratch=False))
        with pytest.raises(IntegrityError):
            db.session.commit()
        db.session.rollback()
        assert db.session.query(EntryRow).filter_by(game_id=table.id).count() == 1


@pytest.mark.parametrize("key", [None, "a-tap"])
def test_a_row_the_database_refuses_mid_write_is_a_409_and_keeps_nothing(new_game, db_app, key):
    """An entry written behind the app's back: the next turn meets the constraint, not the app's checks."""
    from anotador.store.models import EntryRow, IdempotencyRow, TurnRow

    names = ["Guillermina Fernández de la Serna Ortiz", "李小龍"]
    table = new_game("generala", names)
    first = table.body["first_player"]
    table.turn(first, "ones", [1, 1, 2, 3, 4])
    table.turn(1 - first, "ones", [1, 2, 2, 3, 4])
    before = table.get()
    with db_app.app_context():
        turn = db.session.query(TurnRow).filter_by(game_id=table.id, number=1).one()
        db.session.add(EntryRow(game_id=table.id, turn_id=turn.id, player=first, box="twos", points=4,
                                scratch=False))
        db.session.commit()  # the version stays: the worker's kept state does not know
    headers = {**table.auth, **({"Idempotency-Key": key} if key else {})}
    r = table.client.post(table.url("/turns"), json={"player": first, "category": "twos", "dice": [2, 2, 3, 4, 5]},
                          headers=headers)
    assert r.status_code == 409 and r.mimetype == "application/problem+json", r.get_json()
    assert "landed first" in r.get_json()["detail"]
    assert table.get() == before
    with db_app.app_context():
        assert db.session.query(TurnRow).filter_by(game_id=table.id).count() == 2
        assert db.session.query(IdempotencyRow).filter_by(game_id=table.id).count() == 0
    table.turn(first, "threes", [3, 3, 1, 2, 4])  # the game goes on


def test_a_turn_is_stored_as_the_orm_stores_it(new_game, db_app):
    """A turn's rows are written by SQL of its own (SQLite: straight to the driver); the ORM reads them as its own.

    A correction rewrites the turn's entries through the ORM: the rows
    before and after are the same text, column by column; the turn's time,
    dice and served flag read back as written, and a kept copy of the dice
    (the correction's) is stored alike.
    """
    from anotador.store.models import CorrectionRow, TurnRow

    names = ["Guillermina Fernández de la Serna Ortiz", "李小龍", "أحمد بن محمد بن عبد الله الهاشمي القرشي",
             "Đặng Thị Ngọc Hân Nguyễn Phạm Trần Lê Võ", "Αλέξανδρος Παπαδόπουλος-Καραμανλής Βλ", "Zoë"]
    table = new_game("double-cameroon", names, first_rolls=[6, 1, 2, 3, 4, 5])
    dice = [2, 3, 4, 5, 6, 1, 1, 1, 4, 5]
    r = table.client.post(table.url("/turns"), headers=table.auth, json={
        "player": table.body["first_player"], "dice": dice,
        "boxes": [{"category": "big_cameroon", "dice": dice[:5]},
                  {"category": "ones", "dice": dice[5:], "scratch": False}]})
    assert r.status_code == 201, r.get_json()
    text = sa.text("SELECT player, box, CAST(points AS TEXT), CAST(scratch AS TEXT), CAST(dice AS TEXT), "
                   "CAST(bonus AS TEXT) FROM entries ORDER BY box")
    with db_app.app_context():
        written = db.session.execute(text).all()
        turn = db.session.query(TurnRow).one()
        game = db.session.get(GameRow, table.id)
        assert turn.dice == dice and turn.served is False and turn.round == 1
        assert turn.recorded_at == game.updated_at
        assert [(e.box, e.points, e.scratch, e.dice, e.bonus) for e in turn.entries] == [
            ("big_cameroon", 30, False, dice[:5], 0), ("ones", 3, False, dice[5:], 0)]
        recorded, turn_dice = db.session.execute(sa.text("SELECT CAST(recorded_at AS TEXT), CAST(dice AS TEXT) "
                                                         "FROM turns")).one()
    table.correct(1, served=True)
    with db_app.app_context():
        assert db.session.execute(text).all() == written  # rewritten by the ORM, stored alike
        kept = db.session.query(CorrectionRow).one()
        assert kept.dice == dice and kept.recorded_at == turn.recorded_at
        stamp = r"\d{4}-\d\d-\d\d[ T]\d\d:\d\d:\d\d(\.\d+)?"
        assert re.fullmatch(stamp + r"(\+00(:00)?)?", recorded), recorded
        assert db.session.scalar(sa.text("SELECT CAST(dice AS TEXT) FROM corrections")) == turn_dice


#: Ids no game can have: a NUL (which PostgreSQL refuses in text), bytes that are not UTF-8, other scripts,
#: spaces, a path, an id one character too long.
HOSTILE_IDS = ["a%00b", "%00", "a%FFb", "%ED%A0%80", "%C3%B1and%C3%BA", "a%20b", "a%09", "..%2F..", "x" * 33]


@pytest.mark.parametrize(("method", "suffix", "body"), [
    ("GET", "", None), ("GET", "/turns", None), ("GET", "/analysis", None), ("GET", "/sheet.pdf", None),
    ("POST", "/turns", {"player": 0, "category": "ones", "dice": [1, 1, 1, 2, 3]}),
    ("DELETE", "/turns/last", None), ("PATCH", "/turns/1", {"served": True}),
    ("POST", "/roll-off", {"player": 0, "dice": [1, 2, 3, 4, 5]}),
])
def test_an_id_no_game_can_have_is_404_on_both_databases(api, new_game, method, suffix, body):
    table = new_game("generala", ["Ana", "Beto"])  # a real game beside it, untouched
    before = table.get()
    for game_id in HOSTILE_IDS:
        r = api.open(f"/api/v1/games/{game_id}{suffix}", method=method, json=body, headers=table.auth)
        assert r.status_code == 404, (game_id, r.status_code, r.get_data()[:300])
        assert r.mimetype == "application/problem+json" and r.get_json()["status"] == 404
    assert table.get() == before


def test_every_201_says_where_what_it_made_is(new_game):
    """A game: its URL; a turn: its own (GET answers it); a roll-off roll: the history that lists it."""
    table = new_game("generala", ["Ана", "Beto"])
    assert table.client.get(table.url()).status_code == 200
    key = {"Idempotency-Key": "turn-one"}
    first = table.client.post(table.url("/turns"), json={"player": 0, "dice": [3, 3, 3, 5, 6], "category": "threes"},
                              headers={**table.auth, **key})
    assert first.status_code == 201 and first.headers["Location"] == f"/api/v1/games/{table.id}/turns/1"
    assert first.get_json()["turns"] == 1
    table.turn(1, "ones", [1, 1, 2, 3, 4])
    replay = table.client.post(table.url("/turns"), json={"player": 0, "dice": [3, 3, 3, 5, 6], "category": "threes"},
                               headers={**table.auth, **key})
    assert replay.headers["Idempotent-Replayed"] == "true" and replay.headers["Location"] == first.headers["Location"]
    turn = table.client.get(first.headers["Location"])
    assert turn.status_code == 200 and turn.get_json()["number"] == 1 and turn.get_json()["player"] == 0
    assert turn.get_json() == table.client.get(table.url("/turns")).get_json()["turns"][0]
    for missing in (3, 0, -1):
        r = table.client.get(table.url(f"/turns/{missing}"))
        assert r.status_code == 404 and r.mimetype == "application/problem+json"
