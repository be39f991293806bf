"""What keeps one game, or one client, from growing without bound.

Corrections are rows appended one at a time (a correction costs the same
whatever came before) and capped per game; games are capped per client
address per minute. On SQLite and PostgreSQL.
"""

from __future__ import annotations

import json
import re

import pytest
import sqlalchemy as sa

from anotador import create_app

from .dbkit import Table, dispose


@pytest.fixture
def limited(db_url):
    """Factory: a client on an app with its own limits."""
    apps = []

    def make(**config):
        app = create_app({"TESTING": True, "SQLALCHEMY_DATABASE_URI": db_url, **config})
        apps.append(app)
        return app, app.test_client()

    yield make
    for app in apps:
        dispose(app)


def _new(client, players=("Ana", "Beto"), remote="10.0.0.1"):
    r = client.post("/api/v1/games", json={"variant": "generala", "players": list(players)},
                    environ_base={"REMOTE_ADDR": remote})
    return r


class Statements:
    """Every SQL statement an engine runs, with the size of its parameters."""

    def __init__(self, engine):
        self.seen: list[tuple[str, int]] = []
        sa.event.listen(engine, "before_cursor_execute", self._record)
        self.engine = engine

    def _record(self, conn, cursor, statement, parameters, context, executemany):
        self.seen.append((statement.split()[0].upper(), len(json.dumps(parameters, default=str))))

    def close(self):
        sa.event.remove(self.engine, "before_cursor_execute", self._record)


def test_a_correction_costs_the_same_after_hundreds(limited):
    from anotador.extensions import db

    app, client = limited(MAX_CORRECTIONS=1000)
    table = Table(client, _new(client).get_json())
    table.turn(0, "ones", [1, 1, 2, 3, 4])
    table.turn(1, "twos", [2, 2, 1, 3, 4])
    with app.app_context():
        engine = db.engine
    costs = []
    for i in range(300):
        watch = Statements(engine) if i in (1, 299) else None
        category = "ones" if i % 2 else "threes"
        table.correct(1, category=category, dice=[1, 1, 3, 3, 4])
        if watch:
            costs.append(watch.seen)
            watch.close()
    first, last = costs
    # the same statements, and none writes more as the history grows
    assert [kind for kind, _ in first] == [kind for kind, _ in last]
    assert max(size for _, size in last) <= max(size for _, size in first) + 16
    history = client.get(table.url("/turns")).get_json()
    assert len(history["turns"][0]["corrections"]) == 300
    assert [c["boxes"][0]["category"] for c in history["turns"][0]["corrections"][:3]] == ["ones", "threes", "ones"]


def test_corrections_are_capped_per_game(limited):
    _, client = limited(MAX_CORRECTIONS=4)
    table = Table(client, _new(client).get_json())
    table.turn(0, "ones", [1, 1, 2, 3, 4])
    table.turn(1, "twos", [2, 2, 1, 3, 4])
    for i in range(4):
        table.correct(1 + i % 2, served=bool(i % 3))
    version = table.get()["version"]
    r = client.patch(table.url("/turns/1"), json={"served": True}, headers=table.auth)
    problem = r.get_json()
    assert r.status_code == 409 and problem["type"].endswith("correction-limit")
    assert "4 corrections" in problem["detail"]
    assert table.get()["version"] == version  # nothing changed
    # the game plays on: turns and undo still work
    table.turn(0, "threes", [3, 3, 3, 1, 2])
    table.undo()


def test_games_per_address_per_minute(limited):
    _, client = limited(GAMES_PER_MINUTE=3)
    for left in (2, 1, 0):  # each answer says what is left of the minute (IETF httpapi RateLimit fields)
        made = _new(client)
        assert made.status_code == 201 and made.headers["RateLimit-Policy"] == '"games";q=3;w=60'
        assert re.fullmatch(rf'"games";r={left};t=([1-9]|[1-5][0-9]|60)', made.headers["RateLimit"])
    r = _new(client)
    assert r.status_code == 429 and r.mimetype == "application/problem+json"
    assert r.get_json()["type"].endswith("rate-limited")
    assert 1 <= int(r.headers["Retry-After"]) <= 60
    assert r.headers["RateLimit-Policy"] == '"games";q=3;w=60'
    assert r.headers["RateLimit"] == '"games";r=0;t=' + r.headers["Retry-After"]
    assert _new(client, remote="10.0.0.2").status_code == 201    # another address is not held back
    # refused requests do not count, and a bad request is still a 422 first
    assert client.post("/api/v1/games", json={"variant": "generala", "players": ["Solo"]},
                       environ_base={"REMOTE_ADDR": "10.0.0.1"}).status_code == 422


def test_games_per_minute_zero_is_no_limit(limited):
    _, client = limited(GAMES_PER_MINUTE=0)
    assert all(_new(client).status_code == 201 for _ in range(25))


def test_the_creator_is_stored_as_a_keyed_hash_not_the_address(limited):
    from anotador.extensions import db
    from anotador.store.models import GameRow

    app, client = limited()
    game = _new(client, remote="192.168.1.77").get_json()
    with app.app_context():
        creator = db.session.get(GameRow, game["id"]).creator
    assert creator and "192.168" not in creator and len(creator) == 32


def test_migration_moves_json_corrections_into_rows(tmp_path):
    """A database made by 0001, with corrections as JSON, upgrades without losing them."""
    from flask_migrate import upgrade

    url = f"sqlite:///{tmp_path / 'old.sqlite'}"
    app = create_app({"TESTING": True, "SQLALCHEMY_DATABASE_URI": url})
    with app.app_context():
        upgrade(revision="0001_games")
        from anotador.extensions import db

        with db.engine.begin() as conn:
            conn.execute(sa.text(
                "INSERT INTO games (id, token_hash, rules, start, turns, status, winners, version, created_at, "
                "updated_at) VALUES ('g1', 'x', '{\"base\": \"generala\"}', 0, 1, 'playing', '[]', 3, "
                "'2026-01-01 10:00:00', '2026-01-01 10:00:00')"))
            conn.execute(sa.text("INSERT INTO players (game_id, seat, name, name_key) VALUES "
                                 "('g1', 0, 'Ana', 'ana'), ('g1', 1, 'Beto', 'beto')"))
            history = [{"dice": [6, 6, 6, 1, 1], "served": True, "recorded_at": "2026-01-01T10:00:01Z",
                        "boxes": [{"category": "full", "points": 35, "scratch": False, "dice": None}]},
                       {"dice": [6, 6, 6, 1, 1], "served": False, "recorded_at": "2026-01-01T10:00:02Z",
                        "boxes": [{"category": "full", "points": 30, "scratch": False, "dice": None}]}]
            conn.execute(sa.text(
                "INSERT INTO turns (id, game_id, number, player, round, dice, served, recorded_at, corrected_at, "
                "corrections) VALUES (1, 'g1', 1, 0, 1, '[6, 6, 6, 1, 1]', 0, '2026-01-01 10:00:00', "
                "'2026-01-01 10:00:03', :c)"), {"c": json.dumps(history)})
            conn.execute(sa.text("INSERT INTO entries (game_id, turn_id, player, box, points, scratch) VALUES "
                                 "('g1', 1, 0, 'sixes', 18, 0)"))
        upgrade()
    turns = app.test_client().get("/api/v1/games/g1/turns").get_json()["turns"]
    assert [(c["served"], c["boxes"][0]["points"], c["recorded_at"]) for c in turns[0]["corrections"]] == [
        (True, 35, "2026-01-01T10:00:01Z"), (False, 30, "2026-01-01T10:00:02Z")]
    assert app.test_client().get("/api/v1/games/g1").get_json()["players"][0]["sheet"]["sixes"] == 18
    dispose(app)


@pytest.mark.parametrize("suffix", ["/turns", "/analysis"])
def test_history_and_analysis_are_kept_by_version_and_revalidated_for_the_cost_of_a_poll(limited, advice_tables,
                                                                                        suffix):
    """Twelve players and dozens of corrections: only a version's first read reads the game's rows."""
    from anotador.extensions import db

    app, client = limited(MAX_CORRECTIONS=1000, GAMES_PER_MINUTE=0)
    names = [f"Jugador {i} — Игрок 玩家 {i}" for i in range(12)]
    table = Table(client, _new(client, players=names).get_json())
    first = table.body["first_player"]
    for i in range(12):
        table.turn((first + i) % 12, "ones", [1, 1, 2, 3, 4])
    for i in range(40):
        table.correct(1 + i % 12, served=bool(i % 2))
    with app.app_context():
        engine = db.engine
    watch = Statements(engine)
    r = client.get(table.url(suffix))
    assert r.status_code == 200, r.get_json()
    assert len(watch.seen) >= 2  # the game and its rows, once
    tag, body = r.headers["ETag"], r.get_data()
    for headers, status in (({}, 200), ({"If-None-Match": tag}, 304), ({"If-None-Match": f'"0", {tag}'}, 304)):
        watch.seen.clear()
        again = client.get(table.url(suffix), headers=headers)
        assert again.status_code == status and watch.seen == [], (status, watch.seen)
        assert again.headers["ETag"] == tag and again.headers["Cache-Control"] == "no-cache"
        assert again.get_data() == (body if status == 200 else b"")
    watch.close()
    # a new version is read anew, never the kept one
    table.turn((first + 12) % 12, "twos", [2, 2, 3, 4, 5])
    newer = client.get(table.url(suffix), headers={"If-None-Match": tag})
    assert newer.status_code == 200 and newer.headers["ETag"] != tag
    turns = newer.get_json()["turns"]
    assert len(turns) == 13 and turns[-1]["player"] == (first + 12) % 12


def test_the_kept_reads_of_one_version_are_never_each_others_compressed_forms(limited, advice_tables):
    """The body, the history and the analysis of one version, gzipped and kept: each decompresses to itself."""
    import gzip

    app, client = limited(GAMES_PER_MINUTE=0)
    names = [f"Jugadora número {i} — Игрок 玩家" for i in range(6)]
    table = Table(client, _new(client, players=names).get_json())
    for i in range(6):
        table.turn((table.body["first_player"] + i) % 6, "ones", [1, 1, 2, 3, 4])
    plain = {suffix: client.get(table.url(suffix)).get_data() for suffix in ("", "/turns", "/analysis")}
    for _ in range(2):  # the second time from the kept compressed forms
        for suffix, data in plain.items():
            r = client.get(table.url(suffix), headers={"Accept-Encoding": "gzip"})
            assert r.headers.get("Content-Encoding") == "gzip", suffix
            assert gzip.decompress(r.get_data()) == data, suffix
