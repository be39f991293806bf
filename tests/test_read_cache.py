"""What the speed work must not break: a kept body is never served for a newer version, and a 304
never answers a request whose validators do not match."""

from __future__ import annotations

import json
import random

import pytest

from flask import current_app

from anotador import create_app, sheets
from anotador.api.game_bodies import game_body, rendered
from anotador.rules.variants import VARIANTS
from anotador.sheets import iso_stored

from .dbkit import Table, dispose, run_sql


@pytest.fixture
def two_workers(db_url):
    """Two apps on one database: two workers, each with a cache of its own."""
    apps = [create_app({"TESTING": True, "SQLALCHEMY_DATABASE_URI": db_url, "GAMES_PER_MINUTE": 0})
            for _ in range(2)]
    yield [a.test_client() for a in apps]
    for a in apps:
        dispose(a)


def read(client, game_id, **headers):
    r = client.get(f"/api/v1/games/{game_id}", headers=headers)
    return r


def play(table, turns):
    """Play turns in order: in round r each player fills the r-th box (a number) with r, 2, 3, 4, 5."""
    for _ in range(turns):
        state = table.client.get(table.url()).get_json()
        face = state["turn"]["round"]
        table.turn(state["turn"]["player"], category=state["boxes"][face - 1]["id"], dice=[face, 2, 3, 4, 5])


def fresh(db_url, game_id):
    """The game as an app that never saw it renders it: the truth a kept body must equal."""
    app = create_app({"TESTING": True, "SQLALCHEMY_DATABASE_URI": db_url})
    try:
        return app.test_client().get(f"/api/v1/games/{game_id}").get_json()
    finally:
        dispose(app)


def test_every_change_is_what_the_next_read_returns_in_either_worker(two_workers, db_url):
    writer, reader = two_workers
    r = writer.post("/api/v1/games", json={"rules": {"base": "generala", "tie_break": "roll_off"},
                                           "players": ["Ana", "Beto"], "first_rolls": [6, 1]})
    table = Table(writer, r.get_json())
    gid = table.id

    def check(expect_version):
        for client in (reader, writer):  # each worker reads, and keeps, what it read
            body = read(client, gid).get_json()
            assert body["version"] == expect_version
        assert read(reader, gid).get_json() == read(writer, gid).get_json() == fresh(db_url, gid)

    check(1)
    table.turn(0, "sixes", [6, 6, 6, 1, 2])
    check(2)
    table.undo()
    check(3)
    table.turn(0, "fives", [5, 5, 1, 2, 3])
    check(4)
    assert table.correct(1, category="fives", dice=[5, 5, 5, 2, 3])["version"] == 5
    check(5)
    assert read(reader, gid).get_json()["players"][0]["sheet"]["fives"] == 15
    # play to a tie (Beto's fives 15 against Ana's), then the roll-off: each roll is a new version
    for box in ["ones", "twos", "threes", "fours", "sixes", "straight", "full", "four", "generala"]:
        table.turn(1, box, scratch=True) if box != "ones" else table.turn(1, "fives", [5, 5, 5, 1, 2])
        table.turn(0, box, scratch=True)
    table.turn(1, "ones", scratch=True)
    body = read(reader, gid).get_json()
    assert body["roll_off"]["players"] == [0, 1] and body["status"] == "playing"
    check(body["version"])
    r = writer.post(table.url("/roll-off"), json={"player": 0, "dice": [6, 6, 6, 6, 6]}, headers=table.auth)
    assert r.status_code == 201, r.get_json()
    check(body["version"] + 1)
    assert read(reader, gid).get_json()["roll_off"]["rolled"] == {"0": 30}


def test_writes_alternating_between_workers_start_from_the_stored_game(two_workers, db_url):
    """Each worker keeps the state of the versions it wrote; the other worker's writes make them stale.

    Six players with 40-character names, turns, undos, corrections and a
    failed write, sent by one worker then the other at random: every answer
    equals what an app that never saw the game renders from the database.
    """
    names = [(c * 40)[:40] for c in ("Ωmega", "Ñandú", "日本語の名前", "Zoë", "Ana", "Бето")]
    r = two_workers[0].post("/api/v1/games", json={"variant": "generala", "players": names, "first_rolls": [6, 5, 4, 3, 2, 1]})
    assert r.status_code == 201, r.get_json()
    body, token = r.get_json(), r.get_json()["token"]
    gid, auth = body["id"], {"Authorization": f"Bearer {token}"}
    boxes = [b["id"] for b in body["boxes"]]
    rnd = random.Random(6)
    played = 0
    for step in range(60):
        client = rnd.choice(two_workers)
        current = read(client, gid).get_json() if rnd.random() < 0.3 else None  # sometimes read (and keep) first
        kind = rnd.random()
        if played and kind < 0.15:
            r = client.delete(f"/api/v1/games/{gid}/turns/last", headers=auth)
            played -= 1
        elif played and kind < 0.3:
            number = rnd.randint(1, played)
            r = client.patch(f"/api/v1/games/{gid}/turns/{number}", json={"dice": [number % 6 + 1] * 2 + [1, 2, 3]},
                             headers=auth)
            if r.status_code == 409:  # a later turn no longer fits: refused whole, nothing changed
                assert read(client, gid).get_json() == fresh(db_url, gid)
                continue
        else:
            due = (current or read(client, gid).get_json())["turn"]
            seat, round_ = due["player"], due["round"]
            if rnd.random() < 0.1:  # someone else's turn: refused, and the kept state is not touched
                wrong = client.post(f"/api/v1/games/{gid}/turns", json={
                    "player": (seat + 1) % 6, "category": boxes[0], "scratch": True}, headers=auth)
                assert wrong.status_code == 409
            r = client.post(f"/api/v1/games/{gid}/turns", json={
                "player": seat, "category": boxes[round_ - 1], "dice": [rnd.randint(1, 6) for _ in range(5)],
                "scratch": rnd.random() < 0.5}, headers=auth)
            played += 1
        assert r.status_code in (200, 201), (step, r.get_json())
        assert r.get_json() == fresh(db_url, gid), step
        for other in two_workers:
            assert read(other, gid).get_json() == r.get_json()
    assert played > 10


def test_a_304_only_for_the_current_version(api):
    r = api.post("/api/v1/games", json={"variant": "generala", "players": ["Ana", "Beto"]})
    table = Table(api, r.get_json())
    tag = read(api, table.id).headers["ETag"]
    assert read(api, table.id, **{"If-None-Match": tag}).status_code == 304
    assert read(api, table.id, **{"If-None-Match": f"W/{tag}"}).status_code == 304  # weak comparison
    assert read(api, table.id, **{"If-None-Match": tag[:-1] + ':gzip"'}).status_code == 304  # another encoding
    assert read(api, table.id, **{"If-None-Match": f'"x", {tag}'}).status_code == 304
    table.turn(table.body["first_player"], "ones", [1, 1, 2, 3, 4])
    stale = read(api, table.id, **{"If-None-Match": tag})
    assert stale.status_code == 200 and stale.headers["ETag"] != tag
    for other in ('"0"', '"2 "', 'W/"1"', '"*"', "garbage", '"1:br"'):
        assert read(api, table.id, **{"If-None-Match": other}).status_code == 200, other
    assert read(api, table.id, **{"If-None-Match": "*"}).status_code == 304  # any current representation


def test_static_answers_revalidate_without_changing_and_change_when_they_do(client, tmp_path):
    for path in ("/api/v1/variants", "/api/v1/variants/yatzy", "/openapi.yaml", "/static/app.css"):
        first = client.get(path)
        tag = first.headers["ETag"]
        again = client.get(path, headers={"If-None-Match": tag})
        assert again.status_code == 304 and again.headers["ETag"] == tag and again.get_data() == b""
        assert client.get(path, headers={"If-None-Match": '"other"'}).get_data() == first.get_data()
    # a table built since: the variant's expected_score appears, so its text and ETag change
    from anotador.advisor.tables import Tables
    from anotador.rules import find_variant

    app = create_app({"TESTING": True, "SQLALCHEMY_DATABASE_URI": "sqlite://", "SOLVER_DIR": str(tmp_path)})
    c = app.test_client()
    before = c.get("/api/v1/variants/general-pr")
    assert before.get_json()["expected_score"] is None
    Tables(str(tmp_path)).build_now(find_variant("general-pr").rules())
    after = c.get("/api/v1/variants/general-pr", headers={"If-None-Match": before.headers["ETag"]})
    assert after.status_code == 200 and after.get_json()["expected_score"] > 100
    assert after.headers["ETag"] != before.headers["ETag"]
    listing = c.get("/api/v1/variants", headers={"If-None-Match": before.headers["ETag"]}).get_json()
    assert {v["id"]: v["expected_score"] is not None for v in listing}["general-pr"]


def test_two_gunicorn_workers_never_serve_an_old_version(tmp_path, db_url):
    """Real processes: every read, in whichever worker answers it, shows the last write."""
    from bench._http import request

    from .test_serving import serve

    env = {"DATABASE_URL": db_url, "WORKERS": "2", "ANOTADOR_GAMES_PER_MINUTE": "0"}
    with serve(tmp_path, env=env) as (_, port):
        status, _, game = request(port, "POST", "/api/v1/games", {"variant": "generala", "players": ["A", "B"]})
        assert status == 201
        auth = {"Authorization": f"Bearer {game['token']}"}
        url = f"/api/v1/games/{game['id']}"
        rnd = random.Random(2)
        boxes = [b["id"] for b in game["boxes"]]
        seat = game["first_player"]
        for n in range(9):  # write, then read many times: the answers spread over both workers
            if n % 3 == 2:
                status, _, body = request(port, "DELETE", f"{url}/turns/last", None, auth)
                assert status == 200, body
                seat = 1 - seat
            else:
                status, _, body = request(port, "POST", f"{url}/turns", {
                    "player": seat, "category": boxes[n], "dice": [rnd.randint(1, 6) for _ in range(5)],
                    "scratch": True}, auth)
                assert status == 201, body
                seat = 1 - seat
            for _ in range(8):
                status, headers, now = request(port, "GET", url)
                assert status == 200 and now["version"] == body["version"], (n, now["version"], body["version"])
                assert json.dumps(now, sort_keys=True) == json.dumps(body, sort_keys=True)
                status, _, _ = request(port, "GET", url, headers={"If-None-Match": headers["ETag"]})
                assert status == 304


IMPORTANT = ("ETag", "Cache-Control", "Vary", "X-Content-Type-Options", "Referrer-Policy")


def test_the_poll_answered_before_flask_is_the_views_own_304(tmp_path):
    """anotador/api/polls.py and the view say the same 304; everything else goes on to the view."""
    from .dbkit import migrated_app

    app = migrated_app(f"sqlite:///{tmp_path / 'p.sqlite'}", GAMES_PER_MINUTE=0)
    client = app.test_client()
    table = Table(client, client.post("/api/v1/games", json={"variant": "generala", "players": ["A", "B"]}).get_json())
    tag = read(client, table.id).headers["ETag"]
    fast = read(client, table.id, **{"If-None-Match": tag})
    outer, polls = app.wsgi_app, poll_layer(app)
    app.wsgi_app = polls.app  # the view alone
    try:
        slow = read(client, table.id, **{"If-None-Match": tag})
    finally:
        app.wsgi_app = outer
    assert fast.status_code == slow.status_code == 304
    assert {h: fast.headers.get(h) for h in IMPORTANT} == {h: slow.headers.get(h) for h in IMPORTANT}
    assert fast.get_data() == slow.get_data() == b""
    # what the fast path does not answer, the view does
    assert client.get("/api/v1/games/nope", headers={"If-None-Match": tag}).status_code == 404
    assert client.get(f"/api/v1/games/{table.id}/turns", headers={"If-None-Match": '"9"'}).status_code == 200
    assert client.get(f"/api/v1/games/{table.id}", headers={"If-None-Match": '"9"'}).status_code == 200
    assert client.head(f"/api/v1/games/{table.id}", headers={"If-None-Match": tag}).status_code == 304
    assert client.delete(f"/api/v1/games/{table.id}/turns/last", headers={"If-None-Match": tag}).status_code == 401


def without_date(response):
    """Every header but Date (werkzeug adds one to a compressed answer; gunicorn adds one to every answer) and
    X-Request-ID (each answer's own)."""
    return sorted((k, v) for k, v in response.headers.items() if k not in ("Date", "X-Request-ID"))


def poll_layer(app):
    """The poll's fast path (anotador/api/polls.py) among the app's WSGI layers: the request ids' is outside it."""
    from anotador.api.polls import Polls

    layer = app.wsgi_app
    while not isinstance(layer, Polls):
        layer = layer.app
    return layer


@pytest.mark.parametrize("accept", [None, "gzip", "br;q=1, gzip;q=0.5", "deflate, identity", "identity", "*;q=0"])
@pytest.mark.parametrize("method", ["GET", "HEAD"])
def test_a_kept_body_answered_before_flask_is_the_views_own(tmp_path, accept, method):
    """A version's body rendered once is sent by anotador/api/polls.py, byte for byte and header for header."""
    from .dbkit import migrated_app

    app = migrated_app(f"sqlite:///{tmp_path / 'p.sqlite'}", GAMES_PER_MINUTE=0)
    client = app.test_client()
    names = ["Ñandú", "Guillermina Fernández de la Serna Ortiz", "李小龍", "Ana", "Beto", "Ceci"]
    table = Table(client, client.post("/api/v1/games", json={"variant": "generala", "players": names}).get_json())
    play(table, 6)
    outer, polls = app.wsgi_app, poll_layer(app)
    inner = polls.app
    seen = []

    def view(environ, start_response):
        seen.append(environ["PATH_INFO"])
        return inner(environ, start_response)

    def by_view(**headers):
        app.wsgi_app = inner  # the view alone
        try:
            return client.open(table.url(), method=method, headers=headers)
        finally:
            app.wsgi_app = outer

    polls.app = view
    headers = {"Accept-Encoding": accept} if accept else {}
    slow = by_view(**headers)  # rendered (and compressed) by the view, and kept
    for tags in ({}, {"If-None-Match": '"0", "1:gzip"'}):
        fast = client.open(table.url(), method=method, headers={**headers, **tags})
        assert seen == [], "the kept body came from the view, not before it"
        assert fast.status_code == slow.status_code == 200
        assert fast.get_data() == slow.get_data() and (method == "HEAD") == (fast.get_data() == b"")
        assert without_date(fast) == without_date(slow)
    body = client.get(table.url()).get_json()
    assert body["turn"]["round"] == 2 and [p["name"] for p in body["players"]] == names
    # a turn: the next read is the new version, never the kept one, and again what the view says
    play(table, 1)
    newer = client.open(table.url(), method=method, headers=headers)
    assert newer.headers["ETag"] != slow.headers["ETag"]
    again = by_view(**headers)
    assert newer.get_data() == again.get_data() and without_date(newer) == without_date(again)


def test_the_poll_before_flask_keeps_the_host_check_and_the_503(tmp_path):
    from .dbkit import migrated_app

    url = f"sqlite:///{tmp_path / 'p.sqlite'}"
    app = migrated_app(url, GAMES_PER_MINUTE=0, TRUSTED_HOSTS=["anotador.example"])
    client = app.test_client()
    created = client.post("/api/v1/games", json={"variant": "generala", "players": ["A", "B"]},
                          headers={"Host": "anotador.example"})
    table = Table(client, created.get_json())
    tag = client.get(table.url(), headers={"Host": "anotador.example"}).headers["ETag"]
    assert client.get(table.url(), headers={"Host": "anotador.example", "If-None-Match": tag}).status_code == 304
    forged = client.get(table.url(), headers={"Host": "evil.example", "If-None-Match": tag})
    assert forged.status_code == 400 and forged.mimetype == "application/problem+json"
    # the database gone: the view answers, a 503 problem with Retry-After
    (tmp_path / "p.sqlite").rename(tmp_path / "gone.sqlite")
    app.extensions["anotador.heads"].close()
    dispose(app)
    (tmp_path / "p.sqlite").mkdir()  # not a database any more
    down = client.get(table.url(), headers={"Host": "anotador.example", "If-None-Match": tag})
    assert down.status_code == 503 and down.headers["Retry-After"] and down.mimetype == "application/problem+json"


def test_the_polls_own_lookup_reads_what_the_app_stored_and_outlives_a_dead_connection(db_app, db_url):
    """Heads (the poll's plain driver query) against the ORM's row, and after its kept connection dies."""
    from anotador.store.models import GameRow
    from anotador.extensions import db

    client = db_app.test_client()
    names = ["Guillermina Fernández de la Serna Ortiz", "李小龍", "Ñandú", "Ana", "Beto", "Ceci"]
    table = Table(client, client.post("/api/v1/games", json={"variant": "generala", "players": names}).get_json())
    play(table, 7)
    heads = db_app.extensions["anotador.heads"]
    with db_app.app_context():
        row = db.session.get(GameRow, table.id)
        stored = (row.version, row.updated_at)
    version, made = heads.get(table.id)
    assert version == stored[0] == 8
    assert iso_stored(made) == iso_stored(stored[1])
    assert heads.get("no-such-game") is None
    kept = heads.free[-1]
    # the server (or the file) goes away under the kept connection: the next poll opens another
    if db_url.startswith("sqlite"):
        kept.conn.close()
    else:
        run_sql(db_url, f"SELECT pg_terminate_backend({kept.pgconn.backend_pid})")
    assert heads.get(table.id)[0] == 8
    assert kept not in heads.free
    table.undo()
    assert heads.get(table.id)[0] == 9
    assert read(client, table.id, **{"If-None-Match": '"9"'}).status_code == 304
    assert read(client, table.id, **{"If-None-Match": '"8"'}).status_code == 200


SIX = ["Guillermina Fernández de la Serna Ortiz", "李小龍", "Ñandú", "Ἀλέξανδρος", "محمد بن عبد الله", "O'Brien \"Bee\""]


@pytest.mark.parametrize("variant", [*sorted(VARIANTS), {"base": "yahtzee", "yahtzee_bonus": 100}])
def test_a_rendered_body_is_the_json_of_the_game_body(new_game, db_app, variant):
    """The text kept and sent for a version (its rule set's part dumped once) is game_body's JSON, byte for byte."""
    table = new_game(variant, SIX)
    first = table.body["turn"]["player"]
    if table.body["variant"] != "double-cameroon":  # one box a turn: scratch one, so a sheet holds something
        table.turn(first, category=table.body["boxes"][-1]["id"], scratch=True)
    with db_app.test_request_context():
        game = sheets.get(table.id)
        text = rendered(game)
        assert text == current_app.json.dumps(game_body(game))
        assert json.loads(text) == table.get()
