"""Idempotency-Key on every game write: a retry answers as the first time and applies nothing.

The IETF httpapi draft's semantics: the same key and request replay the
stored answer (status and body); the same key with another request is 422.
On SQLite and PostgreSQL, in process and under gunicorn with real concurrency.
"""

from __future__ import annotations

import json
import threading
from datetime import datetime, timedelta, timezone

import pytest
import sqlalchemy as sa

from bench._http import gunicorn, request

KEY = "8e03978e-40d5-43e8-bc93-6894a57f9324"


def post(table, suffix, body, key=KEY, method="POST", **headers):
    hdrs = {**table.auth, **headers}
    if key is not None:
        hdrs["Idempotency-Key"] = key
    return table.client.open(table.url(suffix), method=method, json=body, headers=hdrs)


def turns(table):
    return table.client.get(table.url("/turns")).get_json()["turns"]


def test_a_retried_turn_answers_the_same_and_is_recorded_once(new_game):
    table = new_game("generala", ["Ana", "Beto"])
    body = {"player": 0, "dice": [6, 6, 6, 1, 1], "served": True, "category": "full"}
    first = post(table, "/turns", body)
    assert first.status_code == 201 and "Idempotent-Replayed" not in first.headers
    table.turn(1, "ones", [1, 1, 2, 3, 4])               # the game moves on meanwhile
    again = post(table, "/turns", body)
    assert again.status_code == 201 and again.headers["Idempotent-Replayed"] == "true"
    assert again.get_json() == first.get_json() and again.headers["ETag"] == first.headers["ETag"]
    assert [t["player"] for t in turns(table)] == [0, 1]  # applied once
    # the same body serialized another way is the same request
    reordered = table.client.post(table.url("/turns"), headers={**table.auth, "Idempotency-Key": f'"{KEY}"'},
                                  data=json.dumps(dict(reversed(list(body.items())))),
                                  content_type="application/json")
    assert reordered.status_code == 201 and reordered.get_json() == first.get_json()


def test_the_same_key_with_another_request_is_422(new_game):
    table = new_game("generala", ["Ana", "Beto"])
    assert post(table, "/turns", {"player": 0, "dice": [6, 6, 6, 1, 1], "category": "sixes"}).status_code == 201
    version = table.get()["version"]
    r = post(table, "/turns", {"player": 1, "dice": [6, 6, 6, 1, 1], "category": "sixes"})
    assert r.status_code == 422 and "Idempotency-Key" in r.get_json()["errors"]
    r = post(table, "/turns/1", {"served": True}, method="PATCH")   # another URL
    assert r.status_code == 422
    assert table.get()["version"] == version                         # nothing changed


def test_undo_with_a_key_undoes_once(new_game):
    table = new_game("generala", ["Ana", "Beto"])
    for p, box in ((0, "ones"), (1, "ones"), (0, "twos")):
        table.turn(p, box, scratch=True)
    first = post(table, "/turns/last", None, method="DELETE", key="undo-1")
    second = post(table, "/turns/last", None, method="DELETE", key="undo-1")
    assert first.status_code == second.status_code == 200 and second.get_json() == first.get_json()
    assert len(turns(table)) == 2
    assert post(table, "/turns/last", None, method="DELETE", key="undo-2").status_code == 200
    assert len(turns(table)) == 1


def test_corrections_and_roll_offs_take_keys_too(new_game):
    table = new_game({"base": "generala", "tie_break": "roll_off"}, ["Ana", "Beto"])
    table.turn(0, "ones", [1, 1, 2, 3, 4])
    for _ in range(2):
        r = post(table, "/turns/1", {"category": "twos"}, method="PATCH", key="fix-1")
        assert r.status_code == 200
    history = turns(table)
    assert len(history[0]["corrections"]) == 1  # corrected once, not twice
    boxes = ["ones", "twos", "threes", "fours", "fives", "sixes", "straight", "full", "four", "generala"]
    table.undo()
    for i in range(20):
        table.turn(i % 2, boxes[i // 2], scratch=True)
    assert table.get()["roll_off"]["players"] == [0, 1]
    for _ in range(3):
        r = post(table, "/roll-off", {"player": 0, "dice": [6, 6, 6, 6, 5]}, key="roll-ana")
        assert r.status_code == 201
    assert len(table.client.get(table.url("/turns")).get_json()["roll_offs"]) == 1


def test_an_error_is_not_stored_and_a_retry_is_checked_again(new_game):
    table = new_game("generala", ["Ana", "Beto"])
    r = post(table, "/turns", {"player": 1, "category": "ones", "scratch": True}, key="early")
    assert r.status_code == 409  # not Beto's turn yet
    table.turn(0, "ones", scratch=True)
    assert post(table, "/turns", {"player": 1, "category": "ones", "scratch": True}, key="early").status_code == 201


@pytest.mark.parametrize("key", ["", "x" * 256, "clé", "two words", '"'])
def test_a_malformed_key_is_400(new_game, key):
    table = new_game("generala", ["Ana", "Beto"])
    r = post(table, "/turns", {"player": 0, "category": "ones", "scratch": True}, key=key)
    assert r.status_code == 400 and r.mimetype == "application/problem+json"
    assert turns(table) == []


def test_keys_belong_to_one_game_and_are_forgotten_after_a_day(new_game, db_app):
    from anotador.extensions import db
    from anotador.store.models import GameRow, IdempotencyRow, utcnow

    a, b = new_game("generala", ["Ana", "Beto"]), new_game("generala", ["Ceci", "Dani"])
    body = {"player": 0, "category": "ones", "scratch": True}
    assert post(a, "/turns", body).status_code == 201
    assert post(b, "/turns", body).status_code == 201   # the same key in another game is another request
    with db_app.app_context():  # a day on: the games are as old as their keys
        db.session.execute(sa.update(IdempotencyRow).values(created_at=utcnow() - timedelta(hours=25)))
        db.session.execute(sa.update(GameRow).values(created_at=utcnow() - timedelta(hours=25, minutes=5)))
        db.session.commit()
    a.turn(1, "ones", scratch=True)
    post(a, "/turns", {"player": 0, "category": "twos", "scratch": True}, key="fresh")  # clears the old keys
    with db_app.app_context():
        assert db.session.scalar(sa.select(sa.func.count()).select_from(IdempotencyRow)
                                 .where(IdempotencyRow.game_id == a.id)) == 1


def test_concurrent_retries_with_one_key_apply_once_in_process(db_app, new_game):
    table = new_game("generala", ["Ana", "Beto"])
    barrier = threading.Barrier(8)
    answers = []

    def retry():
        client = db_app.test_client()
        barrier.wait()
        r = client.post(table.url("/turns"), json={"player": 0, "dice": [5, 5, 5, 5, 1], "category": "fives"},
                        headers={**table.auth, "Idempotency-Key": "same-tap"})
        answers.append((r.status_code, r.get_data()))

    threads = [threading.Thread(target=retry) for _ in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert {status for status, _ in answers} == {201} and len({body for _, body in answers}) == 1
    assert len(turns(table)) == 1


@pytest.mark.slow
def test_concurrent_retries_with_one_key_apply_once_under_gunicorn(db_url):
    with gunicorn("wsgi:app", workers=4, worker_class="gthread", threads=4,
                  env={"DATABASE_URL": db_url, "ANOTADOR_GAMES_PER_MINUTE": "0"}) as srv:
        status, _, game = request(srv.port, "POST", "/api/v1/games", {"variant": "generala", "players": ["A", "B"]})
        auth = {"Authorization": f"Bearer {game['token']}", "Idempotency-Key": "tap-1"}
        barrier = threading.Barrier(16)
        answers = []

        def retry():
            barrier.wait()
            answers.append(request(srv.port, "POST", f"/api/v1/games/{game['id']}/turns",
                                   {"player": 0, "dice": [2, 2, 2, 3, 3], "category": "full"}, auth))

        threads = [threading.Thread(target=retry) for _ in range(16)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        _, _, history = request(srv.port, "GET", f"/api/v1/games/{game['id']}/turns")
    assert [a[0] for a in answers] == [201] * 16
    assert len({json.dumps(a[2], sort_keys=True) for a in answers}) == 1
    assert len(history["turns"]) == 1
    assert sum(1 for a in answers if a[1].get("Idempotent-Replayed") == "true") == 15


def test_a_game_keeps_its_newest_keys_only_and_a_keyed_write_costs_the_same_after_hundreds(db_url):
    """A write-token holder looping keyed turn and undo: the keys stay capped, each write's statements flat."""
    from anotador import create_app
    from anotador.extensions import db

    from .dbkit import Table, dispose
    from .test_games_limits import Statements

    app = create_app({"TESTING": True, "SQLALCHEMY_DATABASE_URI": db_url, "IDEMPOTENCY_KEYS_PER_GAME": 5,
                      "GAMES_PER_MINUTE": 0})
    client = app.test_client()
    names = [f"Jugadora {i} — Игрок 玩家 😀" for i in range(12)]
    table = Table(client, client.post("/api/v1/games", json={"variant": "generala", "players": names}).get_json())
    first = table.body["first_player"]
    body = {"player": first, "dice": [1, 1, 2, 3, 4], "category": "ones"}
    with app.app_context():
        engine = db.engine
    costs = {}
    try:
        for i in range(120):
            watch = Statements(engine) if i in (10, 118) else None
            assert post(table, "/turns", body, key=f"turn-{i}").status_code == 201
            assert post(table, "/turns/last", None, key=f"undo-{i}", method="DELETE").status_code == 200
            if watch:
                costs[i] = [kind for kind, _ in watch.seen]
                watch.close()
        with app.app_context():
            kept = db.session.execute(sa.text("SELECT key FROM idempotency_keys ORDER BY id")).scalars().all()
        assert kept == ["undo-117", "turn-118", "undo-118", "turn-119", "undo-119"]
        assert costs[10] == costs[118]  # the same statements, whatever came before
        # the newest keys still answer as before; a forgotten one is a new request (here: a turn that fits)
        again = post(table, "/turns/last", None, key="undo-119", method="DELETE")
        assert again.status_code == 200 and again.headers["Idempotent-Replayed"] == "true"
        forgotten = post(table, "/turns", body, key="turn-0")
        assert forgotten.status_code == 201 and "Idempotent-Replayed" not in forgotten.headers
    finally:
        dispose(app)


# -- creating a game -------------------------------------------------------------------------------

GAME = {"variant": "generala", "players": ["Ана", "Beto", "李", "🎲 Dado"]}


def create(api, body=GAME, key=KEY, address="10.1.0.1"):
    headers = {} if key is None else {"Idempotency-Key": key}
    return api.post("/api/v1/games", json=body, headers=headers, environ_base={"REMOTE_ADDR": address})


def count_games(db_url) -> int:
    engine = sa.create_engine(db_url)
    with engine.connect() as conn:
        n = conn.execute(sa.text("SELECT count(*) FROM games")).scalar()
    engine.dispose()
    return n


def test_a_retried_creation_answers_the_same_game_and_token_and_makes_one(api, db_url):
    first = create(api)
    assert first.status_code == 201 and "Idempotent-Replayed" not in first.headers
    again = create(api, body={"players": GAME["players"], "variant": "generala"})  # same body, keys reordered
    assert again.status_code == 201 and again.headers["Idempotent-Replayed"] == "true"
    assert again.get_data() == first.get_data()  # the same id, token and links, byte for byte
    assert again.headers["Location"] == first.headers["Location"] and again.headers["ETag"] == first.headers["ETag"]
    assert again.headers["Cache-Control"] == "no-store"
    assert count_games(db_url) == 1
    # the token replayed writes, as the first one does
    table_auth = {"Authorization": f"Bearer {again.get_json()['token']}"}
    game = again.get_json()
    r = api.post(f"/api/v1/games/{game['id']}/turns", headers=table_auth,
                 json={"player": game["turn"]["player"], "category": "ones", "scratch": True})
    assert r.status_code == 201


def test_a_creation_key_is_the_clients_own(api, db_url):
    """The same key from another address is another request: another game, never the first one's token."""
    first = create(api, address="10.1.0.1")
    other = create(api, address="10.1.0.2")
    assert other.status_code == 201 and "Idempotent-Replayed" not in other.headers
    assert other.get_json()["id"] != first.get_json()["id"]
    assert other.get_json()["token"] != first.get_json()["token"]
    assert count_games(db_url) == 2


def test_a_creation_key_reused_for_another_game_is_422(api, db_url):
    assert create(api).status_code == 201
    r = create(api, body={**GAME, "players": ["Ana", "Beto"]})
    assert r.status_code == 422 and "Idempotency-Key" in r.get_json()["errors"]
    assert count_games(db_url) == 1


def test_the_stored_answer_does_not_hold_the_token_in_the_clear(api, db_url):
    import base64

    token = create(api).get_json()["token"]
    engine = sa.create_engine(db_url)
    with engine.connect() as conn:
        rows = conn.execute(sa.text("SELECT key, sealed FROM creation_keys")).all()
    engine.dispose()
    assert len(rows) == 1
    name, sealed = rows[0]
    assert KEY not in name and "10.1.0.1" not in name
    assert token not in sealed and token.encode() not in base64.b64decode(sealed)


def test_a_creation_key_is_forgotten_after_its_hour(api, db_url):
    first = create(api)
    engine = sa.create_engine(db_url)
    with engine.begin() as conn:
        from anotador.store.models import CreationKeyRow  # the column's own type stores the time, on either database

        two_hours_ago = datetime.now(timezone.utc) - timedelta(hours=2)
        conn.execute(sa.update(CreationKeyRow.__table__).values(created_at=two_hours_ago))
    engine.dispose()
    later = create(api)
    assert later.status_code == 201 and "Idempotent-Replayed" not in later.headers
    assert later.get_json()["id"] != first.get_json()["id"] and count_games(db_url) == 2


def test_concurrent_creations_with_one_key_make_one_game(api, db_url):
    answers: list = []

    def go():
        answers.append(create(api))

    threads = [threading.Thread(target=go) for _ in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert {a.status_code for a in answers} == {201}, [a.get_json() for a in answers if a.status_code != 201]
    assert len({a.get_json()["id"] for a in answers}) == 1 and count_games(db_url) == 1
    assert sum("Idempotent-Replayed" not in a.headers for a in answers) == 1
