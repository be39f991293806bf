"""Tables of regulars: seasons played through the API, standings held to a recount, history, players, limits."""

from __future__ import annotations

import random
import threading
from datetime import datetime, timedelta, timezone

import pytest
import sqlalchemy as sa

import shutil
from pathlib import Path

from anotador import create_app
from anotador.rules import find_variant

from .conftest import SOLVER_DIR
from .dbkit import Table, dispose
from .mesakit import Mesa, assert_standings_recount, play_out, play_turn

#: Regulars of a family table: 40-character names in several scripts, and a short one.
ABUELA = "Абуэла Мария Петровна Кузнецова-Смирнова"  # Cyrillic, 40 characters
TIO = "عبد الرحمن بن محمد الفاسي من مدينة فاس ا"  # Arabic, 40 characters
PRIMA = "王小明🎲"
assert len(ABUELA) == 40 and len(TIO) == 40

ROLL_OFF = {"base": "generala", "tie_break": "roll_off"}
#: The one rule set the advisor judges in these tests: plain generala (its table is in each app's folder).
JUDGED = {find_variant("generala").rules().digest}


@pytest.fixture
def db_app(db_url, tmp_path, advice_tables):
    """An app on a migrated database with no per-address limit, whose advisor has generala's table and no
    other (so which games are judged does not depend on what other tests built)."""
    from anotador.solver.folder import key_of

    folder = tmp_path / "solver"
    folder.mkdir()
    key = key_of(find_variant("generala").rules())
    for path in Path(SOLVER_DIR).glob(key + "*"):
        shutil.copy(path, folder / path.name)
    app = create_app({"TESTING": True, "SQLALCHEMY_DATABASE_URI": db_url, "GAMES_PER_MINUTE": 0,
                      "SOLVER_DIR": str(folder)})
    yield app
    dispose(app)


@pytest.fixture
def api(db_app):
    return db_app.test_client()


def test_a_season_adds_up_to_a_recount_after_every_kind_of_write(api, db_app):
    """Thirty games of three variants at one table (28, then one corrected and one rolled off): instant wins,
    a correction that changes the winner, an undone last turn, a roll-off, a purge; after each, the standings
    equal a count made from the games."""
    rng = random.Random(30)
    mesa = Mesa(api, "Los domingos de la abuela")
    people = [ABUELA, TIO, PRIMA]
    plain = next(iter(JUDGED))
    variants = ["generala", "generala-doble", "yacht"]
    for n in range(28):
        order = people[n % 3:] + people[:n % 3]
        game = mesa.game(order, variants[n % 3])
        if n % 3 == 0 and n % 2 == 0:
            # an instant win: a served generala on the first turn
            first = game.get()["turn"]["player"]
            ended = game.turn(first, "generala", [n % 6 + 1] * 5, served=True)
            assert ended["status"] == "finished" and ended["reason"] == "instant_win"
        else:
            ended = play_out(game, rng)
            assert ended["status"] == "finished"
        if n % 9 == 0:
            assert_standings_recount(mesa, JUDGED)
    body = assert_standings_recount(mesa, JUDGED)
    assert sum(r["instant_wins"] for r in body["standings"]) >= 4
    assert {s["variant"] for s in body["rule_sets"]} == set(variants)
    judged = {r["player"]: r["judged_games"] for r in body["standings"]}
    plain_games = len(range(0, 28, 3))  # the plain generala games, which the advisor judges
    assert all(j == plain_games for j in judged.values()), judged

    # a correction that changes who won
    game = mesa.game(people, "yacht")
    ended = play_out(game, rng, five_of_a_kind=0)
    loser = next(s for s in range(3) if s not in ended["winners"])
    turns = api.get(game.url("/turns")).get_json()["turns"]
    theirs = next(t for t in turns if t["player"] == loser and t["boxes"][0]["category"] == "yacht")
    fixed = game.correct(theirs["number"], dice=[6, 6, 6, 6, 6], category="yacht")
    assert fixed["winners"] == [loser]
    assert_standings_recount(mesa, JUDGED)

    # the last turn undone: the game is unfinished again and counts for nobody, then played again
    before = mesa.get()["games"]
    game.undo()
    assert mesa.get()["games"] == before - 1 and mesa.get()["playing"] == 1
    assert_standings_recount(mesa, JUDGED)
    play_out(game, rng)
    assert_standings_recount(mesa, JUDGED)

    # a roll-off: all scratched, every total 0, and the dice decide
    game = mesa.game(people, ROLL_OFF)
    for _ in range(30):
        seat = game.get()["turn"]["player"]
        sheet = game.get()["players"][seat]["sheet"]
        game.turn(seat, next(b for b, v in sheet.items() if v is None), scratch=True)
    tied = game.get()
    assert tied["status"] != "finished" and tied["roll_off"] is not None
    assert mesa.get()["games"] == before  # a game waiting for its roll-off has not been won yet
    for seat, dice in ((0, [6, 6, 6, 6, 5]), (1, [1, 1, 1, 1, 2]), (2, [2, 2, 2, 2, 2])):
        r = api.post(game.url("/roll-off"), json={"player": seat, "dice": dice}, headers=game.auth)
        assert r.status_code == 201, r.get_json()
    assert game.get()["winners"] == [0]
    body = assert_standings_recount(mesa, JUDGED)
    roll_off_rules = [s for s in body["rule_sets"] if s["spec"]["base"] == "generala"
                      and s["spec"]["tie_break"] == "roll_off"]
    assert len(roll_off_rules) == 1 and roll_off_rules[0]["rules"] != plain and roll_off_rules[0]["games"] == 1

    # a purge of every old game leaves the table's games and standings as they were
    from anotador import sheets
    from anotador.extensions import db
    from anotador.store.models import GameRow

    with db_app.app_context():
        db.session.execute(sa.update(GameRow).values(updated_at=datetime.now(timezone.utc) - timedelta(days=900)))
        db.session.commit()
    lone = Table(api, api.post("/api/v1/games", json={"variant": "generala", "players": ["X", "Y"]}).get_json())
    with db_app.app_context():
        db.session.execute(sa.update(GameRow).where(GameRow.id == lone.id)
                           .values(updated_at=datetime.now(timezone.utc) - timedelta(days=900)))
        db.session.commit()
        counts = sheets.purge(timedelta(days=1), timedelta(days=1))
    assert counts["abandoned"] == 1 and counts["tables"] == 0  # the table was opened just now
    assert api.get(lone.url()).status_code == 404
    after = assert_standings_recount(mesa, JUDGED)
    assert after["standings"] == body["standings"]


def test_two_games_at_one_table_finishing_at_the_same_moment_count_once_each(db_app):
    """Two phones end two games of one table at once: each lands once in the standings, no write is lost."""
    api = db_app.test_client()
    mesa = Mesa(api)
    rng = random.Random(2)
    games = [mesa.game(["Ana", "Beto"], "generala") for _ in range(2)]
    for game in games:  # both one turn from the end
        while game.get()["turns"] < 19:
            play_turn(game, rng, five_of_a_kind=0)
    version = mesa.get()["version"]
    barrier = threading.Barrier(2)
    answers = []

    def last(game):
        client = db_app.test_client()
        state = game.get()
        seat = state["turn"]["player"]
        box = next(b for b, v in state["players"][seat]["sheet"].items() if v is None)
        barrier.wait()
        r = client.post(game.url("/turns"), json={"player": seat, "category": box, "scratch": True},
                        headers=game.auth)
        answers.append(r.status_code)

    threads = [threading.Thread(target=last, args=(g,)) for g in games]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert answers == [201, 201]
    body = assert_standings_recount(mesa, JUDGED)
    assert body["games"] == 2 and {r["games"] for r in body["standings"]} == {2}
    assert body["version"] == version + 2  # each finish moved the table on once


def test_a_turn_that_does_not_end_a_game_leaves_the_table_as_it_was(api):
    """A poll of the standings costs a 304 all game long; the game's end changes it."""
    mesa = Mesa(api)
    game = mesa.game(["Ana", "Beto"])
    r = api.get(mesa.url())
    tag = r.headers["ETag"]
    game.turn(game.get()["turn"]["player"], "sixes", [6, 6, 6, 1, 2])
    again = api.get(mesa.url(), headers={"If-None-Match": tag})
    assert again.status_code == 304 and again.headers["ETag"] == tag and not again.data
    history = api.get(mesa.url("/games"))
    assert api.get(mesa.url("/games"), headers={"If-None-Match": history.headers["ETag"]}).status_code == 304
    game.turn(game.get()["turn"]["player"], "generala", [2] * 5, served=True)
    changed = api.get(mesa.url(), headers={"If-None-Match": tag})
    assert changed.status_code == 200 and changed.headers["ETag"] != tag
    assert changed.get_json()["games"] == 1


def test_a_game_joins_a_table_afterwards_with_both_tokens(api):
    mesa, other = Mesa(api), Mesa(api, "Otra mesa")
    lone = Table(api, api.post("/api/v1/games", json={"variant": "generala", "players": ["Ana", "Beto"]}).get_json())
    lone.turn(lone.get()["turn"]["player"], "generala", [4] * 5, served=True)
    body = {"game": lone.id, "token": lone.token}
    assert api.post(mesa.url("/games"), json=body).status_code == 401
    assert api.post(mesa.url("/games"), json=body, headers=other.auth).status_code == 403
    r = api.post(mesa.url("/games"), json={"game": lone.id, "token": "nope"}, headers=mesa.auth)
    assert r.status_code == 403 and "game" in r.get_json()["detail"]
    r = api.post(mesa.url("/games"), json=body, headers=mesa.auth)
    assert r.status_code == 201 and r.get_json()["table"] == mesa.id
    assert r.get_json()["version"] == lone.get()["version"]
    again = api.post(mesa.url("/games"), json=body, headers=mesa.auth)
    assert again.status_code == 200  # already there: nothing changes
    assert mesa.get()["games"] == 1 and mesa.get()["standings"][0]["instant_wins"] == 1
    r = api.post(other.url("/games"), json=body, headers=other.auth)
    assert r.status_code == 409 and r.get_json()["type"].endswith(":in-another-table")
    r = api.post(mesa.url("/games"), json={"game": "nosuchgame", "token": "x"}, headers=mesa.auth)
    assert r.status_code == 404


def test_players_are_recognised_by_name_renamed_and_merged_without_touching_the_sheets(api):
    """"Abu" and "Abuela" are the same person: merged, their games count as one; the games say what they said."""
    rng = random.Random(7)
    mesa = Mesa(api)
    first = mesa.game(["Abu", "Beto"])
    play_out(first, rng)
    second = mesa.game(["ABUELA", "  beto "])  # Beto again: names fold as games fold them
    play_out(second, rng)
    body = mesa.get()
    ids = {p["name"]: p["player"] for p in body["players"]}
    assert set(ids) == {"Abu", "Beto", "ABUELA"}
    r = api.post(mesa.url(f"/players/{ids['Abu']}/merge"), json={"into": ids["ABUELA"]})
    assert r.status_code == 401
    r = api.post(mesa.url(f"/players/{ids['Abu']}/merge"), json={"into": ids["Abu"]}, headers=mesa.auth)
    assert r.status_code == 422 and "into" in r.get_json()["errors"]
    r = api.post(mesa.url(f"/players/{ids['Abu']}/merge"), json={"into": 999999}, headers=mesa.auth)
    assert r.status_code == 422 and "into" in r.get_json()["errors"]
    r = api.post(mesa.url(f"/players/{ids['Abu']}/merge"), json={"into": ids["ABUELA"]}, headers=mesa.auth)
    assert r.status_code == 200, r.get_json()
    merged = next(p for p in r.get_json()["standings"] if p["player"] == ids["ABUELA"])
    assert merged["games"] == 2 and merged["names"] == ["ABUELA", "Abu"]
    assert ids["Abu"] not in {p["player"] for p in r.get_json()["players"]}
    assert_standings_recount(mesa, JUDGED)
    assert first.get()["players"][0]["name"] == "Abu"  # the game's own sheet keeps its name

    r = api.patch(mesa.url(f"/players/{ids['ABUELA']}"), json={"name": "Abuela"}, headers=mesa.auth)
    assert r.status_code == 200
    assert next(p for p in r.get_json()["standings"] if p["player"] == ids["ABUELA"])["name"] == "Abuela"
    r = api.patch(mesa.url(f"/players/{ids['ABUELA']}"), json={"name": "beto"}, headers=mesa.auth)
    assert r.status_code == 409 and r.get_json()["type"].endswith(":name-taken")
    r = api.patch(mesa.url(f"/players/{ids['ABUELA']}"), json={"name": "\u202eabc"}, headers=mesa.auth)
    assert r.status_code == 422 and "name" in r.get_json()["errors"]
    # a later game by any of her names counts for her
    third = mesa.game(["abu", "Beto"])
    play_out(third, rng)
    body = assert_standings_recount(mesa, JUDGED)
    assert next(p for p in body["standings"] if p["player"] == ids["ABUELA"])["games"] == 3
    assert body["usual_players"][:2] in (["Abuela", "Beto"], ["Beto", "Abuela"])


def test_standings_by_variant_rule_set_and_days(api, db_app):
    from anotador.extensions import db
    from anotador.store.models import GameRow

    rng = random.Random(5)
    mesa = Mesa(api, timezone="America/Argentina/Buenos_Aires")
    days = {}
    for when, variant in (("2025-12-28T23:30:00+00:00", "generala"), ("2026-01-04T02:30:00+00:00", "generala"),
                          ("2026-02-01T15:00:00+00:00", "yacht")):
        game = mesa.game(["Ana", "Beto"], variant)
        with db_app.app_context():
            db.session.execute(sa.update(GameRow).where(GameRow.id == game.id)
                               .values(created_at=datetime.fromisoformat(when)))
            db.session.commit()
        play_out(game, rng)
        days[game.id] = when
    history = mesa.history()
    # 02:30 UTC on 4 January is 23:30 on 3 January in Buenos Aires
    assert [g["played_on"] for g in history] == ["2026-02-01", "2026-01-03", "2025-12-28"]
    assert mesa.get()["games"] == 3
    assert mesa.get(variant="generala")["games"] == 2
    assert mesa.get(variant="yacht", since="2026-01-01")["games"] == 1
    assert mesa.get(since="2026-01-01", until="2026-01-31")["games"] == 1
    assert mesa.get(until="2025-12-31")["games"] == 1
    # ranges that cut months: their days are read from the games' results, whole months from the tallies
    assert mesa.get(since="2025-12-15", until="2026-01-03")["games"] == 2
    assert mesa.get(since="2026-01-02", until="2026-01-03")["games"] == 1
    assert mesa.get(since="2026-01-04")["games"] == 1
    assert mesa.get(since="2025-12-29", until="2026-01-02")["games"] == 0
    assert mesa.get(since="2025-12-28", until="2026-02-01")["games"] == 3
    part = mesa.get(since="2025-12-20", until="2026-01-10")
    assert sum(r["games"] for r in part["standings"]) == 4 and [m["month"] for m in part["months"]] == [
        "2025-12", "2026-01"]
    rules = next(s["rules"] for s in mesa.get()["rule_sets"] if s["variant"] == "yacht")
    assert mesa.get(rules=rules)["games"] == 1
    months = mesa.get()["months"]
    assert [m["month"] for m in months] == ["2025-12", "2026-01", "2026-02"]
    assert all(sum(m["played"].values()) == 2 for m in months)
    assert mesa.get(variant="poker")["standings"] == []


@pytest.mark.parametrize("query, field", [
    ({"since": "2026-13-01"}, "since"), ({"until": "yesterday"}, "until"),
    ({"since": "2026-02-01", "until": "2026-01-01"}, "until"), ({"rules": "xyz"}, "rules"),
    ({"colour": "red"}, "colour"),
])
def test_a_standings_query_that_cannot_be_answered_is_a_422_naming_it(api, query, field):
    mesa = Mesa(api)
    r = api.get(mesa.url(), query_string=query)
    assert r.status_code == 422 and r.content_type == "application/problem+json"
    assert field in r.get_json()["errors"]


@pytest.mark.parametrize("query, field", [({"limit": 0}, "limit"), ({"limit": 101}, "limit"),
                                          ({"cursor": "%%%"}, "cursor"), ({"cursor": "WzEsMl0"}, "cursor")])
def test_a_history_page_that_cannot_be_read_is_a_422_naming_it(api, query, field):
    mesa = Mesa(api)
    r = api.get(mesa.url("/games"), query_string=query)
    assert r.status_code == 422 and field in r.get_json()["errors"]


@pytest.mark.parametrize("body, field", [
    ({}, "name"), ({"name": ""}, "name"), ({"name": "x" * 41}, "name"), ({"name": 7}, "name"),
    ({"name": "Mesa\u0000"}, "name"), ({"name": "Mesa", "timezone": "Mars/Olympus"}, "timezone"),
    ({"name": "Mesa", "timezone": "../../etc/passwd"}, "timezone"), ({"name": "Mesa", "timezone": 3}, "timezone"),
])
def test_a_table_is_made_only_with_a_name_as_games_take_them_and_a_known_time_zone(api, body, field):
    r = api.post("/api/v1/tables", json=body)
    assert r.status_code == 422 and field in r.get_json()["errors"], r.get_json()


def test_unknown_tables_and_wrong_tokens_are_refused_and_nothing_changes(api):
    mesa = Mesa(api)
    for path in ("", "/games", "/games.csv"):
        r = api.get(f"/api/v1/tables/nosuchtable{path}")
        assert r.status_code == 404 and r.content_type == "application/problem+json"
    assert api.get("/api/v1/tables/bad%00id").status_code == 404
    body = {"variant": "generala", "players": ["Ana", "Beto"], "table": mesa.id}
    assert api.post("/api/v1/games", json=body).status_code == 401
    r = api.post("/api/v1/games", json=body, headers={"Authorization": "Bearer wrong"})
    assert r.status_code == 403 and "table" in r.get_json()["detail"]
    r = api.post("/api/v1/games", json={**body, "table": "nosuchtable"}, headers=mesa.auth)
    assert r.status_code == 404
    assert mesa.history() == [] and mesa.get()["players"] == []


def test_the_history_pages_thousands_of_games_with_none_twice_or_missing_while_games_are_added(api, db_app):
    """5,000 games (written straight to the database, ten at each instant), read 100 at a time
    while new games start at the table between pages."""
    from anotador.extensions import db
    from anotador.store.models import GameRow, PlayerRow

    from anotador.rules import find_variant

    mesa = Mesa(api)
    at = datetime(2016, 1, 3, 20, 0, tzinfo=timezone.utc)
    rules = find_variant("generala").rules().spec()
    made = {f"old{i:05d}": at + timedelta(days=7 * (i // 10)) for i in range(5000)}  # ten years of Sundays
    with db_app.app_context():
        db.session.execute(sa.insert(GameRow), [
            {"id": gid, "token_hash": "x" * 64, "rules": rules, "start": 0, "turns": 0, "status": "playing",
             "winners": [], "reason": None, "version": 1, "created_at": when, "updated_at": when,
             "mesa_id": mesa.id} for gid, when in made.items()])
        db.session.execute(sa.insert(PlayerRow), [{"game_id": gid, "seat": s, "name": n, "name_key": n.casefold()}
                                                  for gid in made for s, n in enumerate(("Ana", "Beto"))])
        db.session.commit()
    seen, added, query = [], [], {"limit": 100}
    while True:
        page = api.get(mesa.url("/games"), query_string=query).get_json()
        seen += [g["id"] for g in page["games"]]
        added.append(mesa.game(["Ana", "Beto"]).id)  # a new game, between two pages
        if page["next"] is None:
            break
        query = {"limit": 100, "cursor": page["next"]}
    old = [g for g in seen if g in made]
    assert len(old) == len(set(old)) == 5000
    assert old == sorted(made, key=lambda g: (made[g], g), reverse=True)  # newest first, ties by id
    assert not set(added) & set(seen[100:])  # games made while paging are newer than every later page
    assert set(added) <= {g["id"] for g in mesa.history()}  # and a new read from the top shows them


def test_the_history_exports_as_csv_one_row_per_seat(api):
    rng = random.Random(11)
    mesa = Mesa(api)
    game = mesa.game([ABUELA, "=HYPERLINK(\"x\")", PRIMA])
    play_out(game, rng)
    playing = mesa.game([TIO, PRIMA])
    r = api.get(mesa.url("/games.csv"))
    assert r.status_code == 200 and r.headers["Content-Type"] == "text/csv; charset=utf-8"
    assert "attachment" in r.headers["Content-Disposition"]
    text = r.data.decode("utf-8")
    assert text.startswith("\ufeffplayed_on,game,variant,rules,status,reason,seat,player,name,total,won")
    import csv
    import io
    rows = list(csv.DictReader(io.StringIO(text.lstrip("\ufeff"))))
    assert len(rows) == 5
    assert [r["game"] for r in rows[:2]] == [playing.id] * 2  # newest first
    finished = [r for r in rows if r["game"] == game.id]
    assert [r["name"] for r in finished] == [ABUELA, "'=HYPERLINK(\"x\")", PRIMA]  # a formula is never run
    assert sum(int(r["won"]) for r in finished) >= 1
    assert [int(r["total"]) for r in finished] == [p["total"] for p in game.get()["players"]]
    assert {r["total"] for r in rows if r["game"] == playing.id} == {""}
    assert api.get(mesa.url("/games.csv"), headers={"If-None-Match": r.headers["ETag"]}).status_code == 304


def test_a_table_nobody_opens_goes_with_its_games_and_one_in_use_stays(db_app):
    from anotador import sheets
    from anotador.extensions import db
    from anotador.store.models import GameRow, MesaRow

    api = db_app.test_client()
    old, used = Mesa(api, "Vieja"), Mesa(api, "En uso")
    games = [old.game(["Ana", "Beto"]), used.game(["Ana", "Beto"])]
    long_ago = datetime.now(timezone.utc) - timedelta(days=800)
    with db_app.app_context():
        db.session.execute(sa.update(MesaRow).values(seen_at=long_ago))
        db.session.execute(sa.update(GameRow).values(updated_at=long_ago, created_at=long_ago))
        db.session.commit()
    api.get(used.url())  # opened today: its visit is written down
    with db_app.app_context():
        assert sheets.purge(timedelta(days=180), timedelta(days=30), dry_run=True)["tables"] == 1
        counts = sheets.purge(timedelta(days=180), timedelta(days=30))
    assert counts == {"finished": 0, "abandoned": 0, "tables": 1}
    assert api.get(old.url()).status_code == 404 and api.get(games[0].url()).status_code == 404
    assert api.get(used.url()).status_code == 200 and api.get(games[1].url()).status_code == 200


def test_tables_count_against_the_per_address_limit(tmp_path):
    from .dbkit import migrated_app, dispose

    app = migrated_app(f"sqlite:///{tmp_path / 'a.sqlite'}", GAMES_PER_MINUTE=2)
    client = app.test_client()
    assert [client.post("/api/v1/tables", json={"name": "M"}).status_code for _ in range(3)] == [201, 201, 429]
    r = client.post("/api/v1/tables", json={"name": "M"})
    assert "Retry-After" in r.headers and r.get_json()["type"].endswith(":rate-limited")
    assert client.post("/api/v1/games", json={"variant": "generala", "players": ["A", "B"]}).status_code == 201
    dispose(app)
