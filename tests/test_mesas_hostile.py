"""Tables of regulars under hostile input: every id, cursor, date and integer a route takes is bounded and
checked before it reaches a query, on both databases; nothing stored changes."""

from __future__ import annotations

import base64
import json

import pytest

from .mesakit import Mesa


def _cursor(made, gid) -> str:
    raw = json.dumps([made, gid]).encode()
    return base64.urlsafe_b64encode(raw).decode().rstrip("=")


def _problem(r, status: int, field: str | None = None) -> dict:
    assert r.status_code == status, (r.status_code, r.get_data(as_text=True)[:300])
    assert r.content_type == "application/problem+json"
    body = r.get_json()
    if field is not None:
        assert field in body["errors"], body
    return body


@pytest.mark.parametrize("query", [
    {"until": "9999-12-31"}, {"since": "9999-12-31"}, {"since": "0001-01-01"}, {"until": "0001-01-01"},
    {"since": "0001-01-01", "until": "9999-12-31"}, {"since": "9999-12-01", "until": "9999-12-31"},
])
def test_the_first_and_last_days_a_date_can_name_are_answered(api, query):
    mesa = Mesa(api)
    game = mesa.game(["Ana", "Beto"])
    assert game.get()["status"] == "playing"
    r = api.get(mesa.url(), query_string=query)
    assert r.status_code == 200, r.get_json()
    assert r.get_json()["standings"] == []


@pytest.mark.parametrize("cursor", [
    _cursor("2026-01-01T00:00:00", "\ud800"), _cursor("2026-01-01T00:00:00", "a\u0000b"),
    _cursor("2026-01-01T00:00:00", "x" * 33), _cursor("2026-01-01T00:00:00", 7),
    _cursor("2026-01-01T00:00:00", None), _cursor("9999-99-99T00:00:00", "abc"),
    _cursor("\ud800", "abc"),
])
def test_a_cursor_holding_what_no_game_id_or_time_can_be_is_a_422(api, cursor):
    mesa = Mesa(api)
    _problem(api.get(mesa.url("/games"), query_string={"cursor": cursor}), 422, "cursor")


@pytest.mark.parametrize("path, key", [
    ("", "variant"), ("", "rules"), ("", "since"), ("/games", "cursor"), ("/games", "limit"),
])
def test_a_nul_in_any_query_value_is_a_422_naming_it(api, path, key):
    mesa = Mesa(api)
    _problem(api.get(mesa.url(path) + f"?{key}=%00"), 422, key)
    _problem(api.get(mesa.url(path) + f"?{key}=gen%00erala"), 422, key)


def test_a_table_id_no_table_can_have_is_a_404_on_every_route(api, new_game):
    mesa = Mesa(api)
    game = new_game()
    for bad in ("%00", "a%00b", "x" * 33):
        r = api.post(f"/api/v1/tables/{bad}/games", json={"game": game.id, "token": game.token}, headers=mesa.auth)
        _problem(r, 404)
        r = api.patch(f"/api/v1/tables/{bad}/players/1", json={"name": "Ana"}, headers=mesa.auth)
        _problem(r, 404)
    assert game.get().get("table") is None


@pytest.mark.parametrize("number", [0, 2**31 - 1, 2**31, 2**63, 2**64, 10**30])
def test_player_numbers_past_any_column_are_players_the_table_does_not_have(api, number):
    mesa = Mesa(api)
    table = mesa.game(["Ana", "Beto"])
    assert table.get()["status"] == "playing"
    before = api.get(mesa.url()).get_json()
    players = [p["player"] for p in before["players"]]
    r = api.patch(mesa.url(f"/players/{number}"), json={"name": "Otra"}, headers=mesa.auth)
    _problem(r, 422, "player")
    r = api.post(mesa.url(f"/players/{players[0]}/merge"), json={"into": number}, headers=mesa.auth)
    _problem(r, 422, "into")
    r = api.post(mesa.url(f"/players/{number}/merge"), json={"into": players[1]}, headers=mesa.auth)
    assert r.status_code in (404, 422) and r.content_type == "application/problem+json"
    assert api.get(mesa.url()).get_json()["players"] == before["players"]


@pytest.mark.parametrize("zone", ["localtime", "Factory", "posixrules"])
def test_a_time_zone_that_is_no_place_is_refused(api, zone):
    _problem(api.post("/api/v1/tables", json={"name": "Mesa", "timezone": zone}), 422, "timezone")


def test_a_stale_if_match_on_a_table_speaks_of_the_table(api):
    mesa = Mesa(api)
    mesa.game(["Ana", "Beto"])
    player = mesa.get()["players"][0]["player"]
    r = api.patch(mesa.url(f"/players/{player}"), json={"name": "Ana María"},
                  headers={**mesa.auth, "If-Match": '"999"'})
    body = _problem(r, 412)
    assert "table changed" in body["detail"] and "game" not in body["detail"]


def test_a_value_the_driver_refuses_is_a_422_and_the_session_goes_on(db_app):
    """The net under every route's own checks: a DataError (a NUL PostgreSQL cannot store, a number past a
    column) is the client's error, and the next request on that worker reads as before."""
    import sqlalchemy as sa

    from anotador.extensions import db

    @db_app.get("/test-data-error")
    def _refused():
        db.session.execute(sa.text("SELECT 1"))
        raise sa.exc.DataError("SELECT :x", {"x": "\x00"}, ValueError("NUL"))

    client = db_app.test_client()
    mesa = Mesa(client)
    body = _problem(client.get("/test-data-error"), 422)
    assert body["type"].endswith(":value-refused") and "Traceback" not in body["detail"]
    assert client.get(mesa.url()).status_code == 200


# -- what a read costs: bounded caches, one render per read and version --------------------------------------

def test_a_regular_keeps_a_bounded_number_of_names(tmp_path):
    """Each rename to a new name adds one the standings list for ever: past NAMES_PER_REGULAR it is a 409,
    while a name they already have is still theirs to take back."""
    from .dbkit import dispose, migrated_app

    app = migrated_app(f"sqlite:///{tmp_path}/n.sqlite", NAMES_PER_REGULAR=4)
    try:
        api = app.test_client()
        mesa = Mesa(api)
        mesa.game(["Ana", "Beto"])
        ana = next(p["player"] for p in mesa.get()["players"] if p["name"] == "Ana")
        for name in ("Anita", "Ana María", "Anaí"):  # "Ana" is the first of four
            assert api.patch(mesa.url(f"/players/{ana}"), json={"name": name}, headers=mesa.auth).status_code == 200
        r = api.patch(mesa.url(f"/players/{ana}"), json={"name": "Nana"}, headers=mesa.auth)
        body = _problem(r, 409)
        assert body["type"].endswith(":name-limit") and "merge" in body["detail"]
        r = api.patch(mesa.url(f"/players/{ana}"), json={"name": "ANITA"}, headers=mesa.auth)
        assert r.status_code == 200  # one of hers, folded as names fold
        standing = next(p for p in mesa.get()["players"] if p["player"] == ana)
        assert standing["name"] == "ANITA" and len(standing["names"]) == 4
    finally:
        dispose(app)


def test_reads_of_a_table_are_kept_by_their_filters_within_a_byte_bound(tmp_path):
    """Distinct query strings are distinct reads only when their filters differ; however many there are, the
    worker keeps at most READ_CACHE_BYTES of them."""
    from anotador.api.tables import _reads

    from .dbkit import dispose, migrated_app

    bound = 64 * 1024
    app = migrated_app(f"sqlite:///{tmp_path}/r.sqlite", READ_CACHE_BYTES=bound, GAMES_PER_MINUTE=0)
    try:
        api = app.test_client()
        mesa = Mesa(api)
        for k in range(3):
            mesa.game(["Ana", "Beto", f"Invitado {k}"])
        same = ["?since=2026-01-01&until=2026-12-31", "?until=2026-12-31&since=2026-01-01",
                "?since=2026-01-01&until=2026-12-31&since=2026-01-01"]
        for q in same:
            assert api.get(mesa.url() + q).status_code == 200
        with app.app_context():
            kept = _reads()
            assert len(kept) == 1  # one read, however its query string was written
        for k in range(400):  # every distinct filter a new read, each about 1 KB
            assert api.get(mesa.url(), query_string={"variant": f"v{k}"}).status_code == 200
        with app.app_context():
            kept = _reads()
            assert 0 < kept.bytes <= bound
            assert kept.bytes == sum(len(text) for _, text, _ in kept.items.values())
            assert len(kept) < 400
    finally:
        dispose(app)


@pytest.mark.parametrize("path", ["/games.csv", ""])
def test_readers_asking_for_a_new_version_at_once_wait_for_one_render(api, db_app, monkeypatch, path):
    """Eight clients miss the same version of a table's export (or standings) at the same moment: it is made
    once, and each gets the same text."""
    import threading

    from anotador.api import tables as tables_api

    mesa = Mesa(api)
    mesa.game(["Ana", "Beto"])
    made = []
    name = "history_csv" if path else "_standings_of"
    real = getattr(tables_api, name)

    def slow(*args):
        made.append(1)
        threading.Event().wait(0.5)  # long enough that every reader arrives while it is made
        return real(*args)

    monkeypatch.setattr(tables_api, name, slow)
    start, answers = threading.Barrier(8), []

    def read():
        client = db_app.test_client()
        start.wait()
        r = client.get(mesa.url(path))
        answers.append((r.status_code, r.get_data()))

    threads = [threading.Thread(target=read) for _ in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(60)
    assert len(answers) == 8 and {status for status, _ in answers} == {200}
    assert len({body for _, body in answers}) == 1
    assert len(made) == 1


# -- the family's spreadsheet ---------------------------------------------------------------------------------

@pytest.mark.parametrize("lang, sep, head, yes", [
    ("es", ";", "Fecha", "sí"), ("pt", ";", "Data", "sim"), ("de", ";", "Datum", "ja"), ("sv", ";", "Datum", "ja"),
    ("en", ",", "Date", "yes"), ("fr", ";", "Date", "oui"), ("it", ";", "Data", "sì"), ("nl", ";", "Datum", "ja"),
])
def test_the_export_in_a_language_reads_in_that_languages_spreadsheet(api, lang, sep, head, yes):
    """Headers, the variant and house rules by name, the locale's separator, UTF-8 with BOM, named after the
    table: read back by Python's csv with that separator, every cell where it belongs."""
    import csv
    import io
    import random
    from urllib.parse import unquote

    from anotador.api.exports import COLUMNS
    from anotador.api.exports import HEADERS as NAMED
    from anotador.printing.words import UI
    from anotador.rules import find_variant

    from .mesakit import play_out

    mesa = Mesa(api, name="Los del domingo, ñandú")
    plain = mesa.game(["Abuela Pilar", "María José", "=1+1"])
    play_out(plain, random.Random(3))
    house = mesa.game(["Abuela Pilar", "Tío Beto"], variant={"base": "generala", "served_bonus": 10})
    r = api.get(mesa.url("/games.csv"), query_string={"lang": lang})
    assert r.status_code == 200 and r.headers["Content-Type"] == "text/csv; charset=utf-8"
    disposition = r.headers["Content-Disposition"]
    assert "filename*=UTF-8''" in disposition
    assert unquote(disposition.split("filename*=UTF-8''")[1]) == "Los del domingo, ñandú.csv"
    assert 'filename="Los del domingo, nandu.csv"' in disposition  # the plain-ASCII fallback
    text = r.data.decode("utf-8")
    assert text.startswith("\ufeff" + head + sep)
    rows = list(csv.reader(io.StringIO(text.lstrip("\ufeff")), delimiter=sep))
    HEADERS = {lang: [NAMED[column][lang] for column in COLUMNS]}
    assert rows[0] == list(HEADERS[lang]) and all(len(row) == 11 for row in rows)
    body = [dict(zip(HEADERS[lang], row)) for row in rows[1:]]
    assert len(body) == 5
    rules_col, won_col, name_col, seat_col = HEADERS[lang][3], HEADERS[lang][10], HEADERS[lang][8], HEADERS[lang][6]
    newest = [row for row in body if row[HEADERS[lang][1]] == house.id]
    assert [row[seat_col] for row in newest] == ["1", "2"] and {row[won_col] for row in newest} == {""}
    assert all("10" in row[rules_col] and row[rules_col] != house.body["rules"] for row in newest)
    finished = [row for row in body if row[HEADERS[lang][1]] == plain.id]
    assert [row[name_col] for row in finished] == ["Abuela Pilar", "María José", "'=1+1"]
    assert {row[won_col] for row in finished} <= {yes, UI["no"][lang]} and yes in {row[won_col] for row in finished}
    assert {row[HEADERS[lang][2]] for row in body} == {find_variant("generala").names[lang]}
    # another language of the same version is its own file; the API's own stays as it was
    assert api.get(mesa.url("/games.csv")).data.decode("utf-8").startswith("\ufeffplayed_on,game,")
    assert api.get(mesa.url("/games.csv"), query_string={"lang": "xx"}).status_code == 422
