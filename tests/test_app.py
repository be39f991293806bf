"""What the app adds to Flask for speed, kept honest: sessions still closed, JSON unchanged, hooks still run."""

from __future__ import annotations

import datetime
import json
import threading

import flask.app
import pytest
from flask import jsonify

import anotador.app
from anotador.extensions import db

SIX = [name[:40].ljust(40, ".") for name in (
    "Ana María Castañeda Villanueva de la Sierra", "Ωμέγα Παπαδοπούλου-Χατζηγεωργίου Αλεξάνδρα",
    "Дмитрий Александрович Воскресенский-Соколов", "شهرزاد عبد الرحمن الحسيني البغدادي الكبيرة",
    "山田太郎左衛門之助藤原朝臣源平橘山田太郎左衛門之助藤原朝臣源平橘山田太郎左衛門之助藤原",
    "Beto 🎲🎲🎲🎲🎲 el de los dados de la mesa del fondo")]


def sessions() -> dict:
    """Flask-SQLAlchemy's open sessions, by app context."""
    return db.session.registry.registry


def test_a_request_that_used_the_database_closes_its_session(db_app, new_game):
    table = new_game("generala", SIX)
    assert not sessions()
    for seat in range(6):
        table.turn(seat, "ones", [1, 1, 2, 3, 4])
        # The turn's session was closed and its connection is back in the pool.
        assert not sessions()
        with db_app.app_context():
            assert db.engine.pool.checkedout() == 0
    assert table.get()["players"][5]["total"] == 2


def test_a_session_held_elsewhere_is_left_alone_and_ours_is_still_closed(db_app, new_game):
    """Another app context (a thread of the same worker) holding a session: requests close only their own."""
    table = new_game("generala", SIX[:2])
    held, release, done = threading.Event(), threading.Event(), {}

    def other_request():
        with db_app.app_context():
            done["session"] = db.session()
            db.session.execute(db.text("SELECT 1"))
            held.set()
            release.wait(10)
            done["alive"] = db.session() is done["session"]  # still this context's session

    thread = threading.Thread(target=other_request)
    thread.start()
    assert held.wait(10)
    try:
        score = table.client.post("/api/v1/score", json={"variant": "generala", "dice": [6, 6, 6, 6, 6]})
        assert score.status_code == 200  # used no session
        table.turn(0, "sixes", [6, 6, 6, 1, 2])  # used one, and closed it
        assert list(sessions().values()) == [done["session"]]
    finally:
        release.set()
        thread.join(10)
    assert done["alive"] and not sessions()


def test_json_answers_are_written_as_flask_writes_them(app, monkeypatch):
    body = {"zeta": 1, "alfa": "Castañeda 🎲", "lista": [1.5, None, True], "anidado": {"b": 2, "a": 1}}
    plain = {"zeta": 1, "lista": [1.5, None, True, 192.648234, 1 / 3, 1e22, -0.0], "anidado": {"b": 2, "a": 1},
             "ok": False, 7: "a key that is no string"}
    stamp = datetime.datetime(2026, 12, 5, 12, 0, tzinfo=datetime.timezone.utc)
    real = anotador.app.orjson.dumps
    with app.test_request_context():
        # Compact, keys in the order made, non-ASCII escaped: as Flask's default provider with sort_keys off,
        # whether orjson wrote it (plain, an advice's figures) or json (non-ASCII, a number past 64 bits)
        for sent in (body, plain, {"big": 2 ** 70, "n": [1, 2]}, [1, "dos"]):
            assert jsonify(sent).get_data(as_text=True) == json.dumps(sent, separators=(",", ":")) + "\n"
        assert jsonify(1, "dos").get_data(as_text=True) == '[1,"dos"]\n'
        assert jsonify(a=1).get_data(as_text=True) == '{"a":1}\n'
        # dates as Flask writes them (an HTTP date), not as orjson would (ISO 8601)
        assert json.loads(jsonify({"at": stamp}).get_data()) == {"at": "Sat, 05 Dec 2026 12:00:00 GMT"}
        # and orjson writes what it can: an advice's figures, a score's options
        written = []
        monkeypatch.setattr(anotador.app.orjson, "dumps", lambda *a, **k: written.append(a[0]) or real(*a, **k))
        assert jsonify(plain).status_code == 200 and written == [plain]
        assert app.json.dumps(body) == json.dumps(body)
        assert app.json.dumps(body, indent=2) == json.dumps(body, indent=2)
        app.debug = True  # for people: indented, as Flask does in debug
        assert jsonify(body).get_data(as_text=True) == json.dumps(body, indent=2) + "\n"


def test_whether_a_hook_is_a_coroutine_is_asked_once_per_function(client, monkeypatch):
    asked = []
    real = flask.app.iscoroutinefunction
    monkeypatch.setattr(flask.app, "iscoroutinefunction", lambda f: asked.append(f) or real(f))
    roll = {"variant": "generala", "dice": [1, 2, 3, 4, 5]}
    assert client.post("/api/v1/score", json=roll).status_code == 200
    first = len(asked)
    for _ in range(3):
        assert client.post("/api/v1/score", json=roll).status_code == 200
    # The view and every hook were asked about on the first request (unless an
    # earlier test's request did), never again, and the hooks still ran.
    assert len(asked) == first
    r = client.post("/api/v1/score", json=roll)
    assert r.headers["Cache-Control"] == "no-store" and r.headers["X-Content-Type-Options"] == "nosniff"


def test_functions_made_per_request_are_not_all_remembered(app):
    from flask import after_this_request

    @app.get("/made-per-request")
    def made():
        @after_this_request
        def stamp(response):  # a new function every request
            response.headers["X-Stamp"] = "1"
            return response
        return jsonify(ok=True)

    client = app.test_client()
    for _ in range(app.SYNC_KEPT + 50):
        assert client.get("/made-per-request").headers["X-Stamp"] == "1"
    assert len(app._sync) <= app.SYNC_KEPT


def _decoded(r) -> bytes:
    import gzip

    import brotli

    from anotador.http.compression import zstd

    coding = r.headers.get("Content-Encoding")
    return {"gzip": gzip.decompress, "br": brotli.decompress, "zstd": zstd.decompress,
            None: lambda b: b}[coding](r.data)


def headers_of(response, *but: str) -> list[tuple[str, str]]:
    """Its headers but ``but`` and X-Request-ID (each answer's own), in order."""
    return sorted((h, v) for h, v in response.headers.items() if h not in (*but, "X-Request-ID"))


@pytest.mark.parametrize(("accept", "coding", "quick"), [
    ("gzip, deflate, br, zstd", "zstd", True),  # a browser's
    ("gzip, deflate", "gzip", True),            # most HTTP libraries'
    ("br", "br", False),                        # brotli: Flask-Compress's own path
])
def test_answers_made_for_one_request_are_compressed_quickly_and_the_same(app, monkeypatch, accept, coding, quick):
    """Once Flask-Compress has chosen an encoding for a client's Accept-Encoding, the answers made for one
    request alone (a ten-dice score, a POST) are compressed by the same codec without its general path: each
    decodes to the answer sent plain, with the headers Flask-Compress gives (Content-Encoding, Vary, the
    length). A read with validators still goes through Flask-Compress."""
    from anotador.extensions import compress

    calls = []
    real = compress.after_request
    monkeypatch.setattr(compress, "after_request", lambda response: calls.append(1) or real(response))
    client = app.test_client()
    for k in range(6):
        body = {"variant": "double-cameroon", "dice": [1, 2, 3, 4, 5, 6, 6, 6, 2, (k % 6) + 1]}
        plain = client.post("/api/v1/score", json=body)
        r = client.post("/api/v1/score", json=body, headers={"Accept-Encoding": accept})
        assert r.headers["Content-Encoding"] == coding and _decoded(r) == plain.data, k
        assert int(r.headers["Content-Length"]) == len(r.data) < len(plain.data)
        assert r.headers["Vary"] == "Accept-Encoding" and r.headers["Cache-Control"] == "no-store"
        assert headers_of(r, "Content-Encoding", "Content-Length", "Vary") == headers_of(plain, "Content-Length")
    assert len(calls) == (1 if quick else 6)  # the first answer tells which encoding it chooses for this client
    r = client.get("/openapi.yaml", headers={"Accept-Encoding": accept})  # a kept text, with an ETag
    assert r.headers["Content-Encoding"] == coding and r.headers["ETag"].endswith(f':{coding}"')
    assert len(calls) == (2 if quick else 7)


def test_quick_compression_from_threads_gives_whole_frames():
    """Each thread's zstd context makes whole frames: answers compressed at once from four threads each
    decode alone to themselves, as do the gzip ones."""
    from concurrent.futures import ThreadPoolExecutor

    from anotador.http.compression import Quick, zstd

    quick = Quick({"COMPRESS_ZSTD_LEVEL": 3, "COMPRESS_LEVEL": 6})
    texts = [("{\"n\": %d, \"pad\": \"%s\"}" % (i, "ab" * (i * 37 % 900))).encode() for i in range(200)]
    with ThreadPoolExecutor(4) as pool:
        made = list(pool.map(lambda t: (quick("zstd", t), quick("gzip", t)), texts))
    import gzip

    for text, (z, g) in zip(texts, made):
        assert zstd.decompress(z) == text and gzip.decompress(g) == text


@pytest.mark.parametrize(("body", "compressed"), [
    ({"variant": "generala", "dice": [1, 2, 3, 4, 5]}, False),  # a score: ~200 bytes
    ({"variant": "generala", "dice": [1, 2, 3, 4, 9]}, False),  # a problem
    ({"variant": "double-cameroon", "dice": [1, 2, 3, 4, 5, 6, 6, 6, 2, 2]}, True),  # ten dice: ~1.5 KB
])
def test_only_answers_worth_compressing_are_compressed(app, body, compressed):
    import gzip

    client = app.test_client()
    plain = client.post("/api/v1/score", json=body)
    r = client.post("/api/v1/score", json=body, headers={"Accept-Encoding": "gzip"})
    assert (len(plain.data) >= app.config["COMPRESS_MIN_SIZE"]) is compressed
    assert r.headers["Cache-Control"] == "no-store" and r.status_code == plain.status_code
    if compressed:
        assert r.headers["Content-Encoding"] == "gzip" and gzip.decompress(r.data) == plain.data
        assert int(r.headers["Content-Length"]) == len(r.data) < len(plain.data)
    else:
        # Sent as it is, with the headers of a client that asked for no encoding: no Vary for an
        # answer no cache keeps.
        assert r.data == plain.data and headers_of(r) == headers_of(plain)
        assert "Content-Encoding" not in r.headers and "Vary" not in r.headers
