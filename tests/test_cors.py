"""CORS: off by default; with ANOTADOR_CORS_ORIGINS, a web app on another origin plays a game from a browser."""

from __future__ import annotations

import http.server
import threading

import pytest

from anotador import create_app
from anotador.settings import SettingsError

from .browserkit import serve_app
from .dbkit import dispose, migrated_app

PLAY = """async (api) => {
  const json = { "Content-Type": "application/json" };
  const created = await fetch(api + "/api/v1/games", { method: "POST", headers: { ...json, "Idempotency-Key": "k-1" },
    body: JSON.stringify({ variant: "generala", players: ["Ана", "李", "🎲"] }) });
  const game = await created.json();
  const turn = await fetch(`${api}/api/v1/games/${game.id}/turns`, { method: "POST",
    headers: { ...json, Authorization: "Bearer " + game.token, "Idempotency-Key": "k-2" },
    body: JSON.stringify({ player: game.turn.player, category: "ones", scratch: true }) });
  const read = await fetch(`${api}/api/v1/games/${game.id}`);
  const etag = read.headers.get("ETag");
  const again = await fetch(`${api}/api/v1/games/${game.id}`, { headers: { "If-None-Match": etag } });
  const undo = await fetch(`${api}/api/v1/games/${game.id}/turns/last`, { method: "DELETE",
    headers: { Authorization: "Bearer " + game.token, "If-Match": (await turn.headers.get("ETag")) } });
  return { created: created.status, location: created.headers.get("Location"),
           rateLimit: created.headers.get("RateLimit"), turn: turn.status, etag, again: again.status,
           undo: undo.status, players: (await read.json()).players.length };
}"""


@pytest.fixture
def other_origin():
    """A page on another origin (localhost, another port): a web app that is not Anotador."""

    class Page(http.server.BaseHTTPRequestHandler):
        def do_GET(self):  # noqa: N802 - http.server's name
            body = b"<!doctype html><title>another app</title><p>scores elsewhere</p>"
            self.send_response(200)
            self.send_header("Content-Type", "text/html")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *args):
            pass

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Page)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    yield f"http://localhost:{server.server_port}"
    server.shutdown()


def _api(tmp_path, **config):
    app = migrated_app(f"sqlite:///{tmp_path / 'cors.sqlite'}", **config)
    url, server = serve_app(app)
    return app, url, server


def test_a_listed_origin_plays_a_game_from_a_browser(browser, other_origin, tmp_path):
    app, api, server = _api(tmp_path, CORS_ORIGINS=f"https://scores.example, {other_origin}")
    try:
        page = browser.new_page()
        page.goto(other_origin + "/")
        got = page.evaluate(PLAY, api)
        assert got["created"] == 201 and got["location"].startswith("/api/v1/games/")
        assert got["rateLimit"].startswith('"games";r=')  # the exposed headers are readable
        assert got["turn"] == 201 and got["etag"] and got["again"] == 304 and got["undo"] == 200
        assert got["players"] == 3
        page.close()
    finally:
        server.shutdown()
        dispose(app)


@pytest.mark.parametrize("listed", [None, "https://scores.example"])
def test_any_other_origin_reads_nothing(browser, other_origin, tmp_path, listed):
    app, api, server = _api(tmp_path, **({"CORS_ORIGINS": listed} if listed else {}))
    try:
        page = browser.new_page()
        page.goto(other_origin + "/")
        failed = page.evaluate("""async (api) => {
          try { await fetch(api + "/api/v1/variants"); return "read"; } catch (e) { return e.name; }
        }""", api)
        assert failed == "TypeError"  # the browser refused to hand the answer over
        page.close()
    finally:
        server.shutdown()
        dispose(app)


def test_the_preflight_says_what_a_client_may_send_and_is_cached(tmp_path):
    app = create_app({"TESTING": True, "SQLALCHEMY_DATABASE_URI": "sqlite://", "CORS_ORIGINS": ["https://a.example"]})
    r = app.test_client().open("/api/v1/games/abc/turns", method="OPTIONS", headers={
        "Origin": "https://a.example", "Access-Control-Request-Method": "POST",
        "Access-Control-Request-Headers": "authorization, content-type, idempotency-key"})
    assert r.status_code == 200 and r.headers["Access-Control-Allow-Origin"] == "https://a.example"
    allowed = {h.strip().lower() for h in r.headers["Access-Control-Allow-Headers"].split(",")}
    assert {"authorization", "content-type", "idempotency-key", "if-match", "if-none-match"} <= allowed
    assert {"POST", "PATCH", "DELETE"} <= set(r.headers["Access-Control-Allow-Methods"].replace(" ", "").split(","))
    assert int(r.headers["Access-Control-Max-Age"]) >= 600 and "Origin" in r.headers["Vary"]
    page = app.test_client().get("/", headers={"Origin": "https://a.example"})
    assert "Access-Control-Allow-Origin" not in page.headers  # the page is not an API: never shared


@pytest.mark.parametrize("value", ["scores.example", "ftp://scores.example", "https://scores.example/app",
                                   "https://user@scores.example"])
def test_a_setting_that_is_not_an_origin_is_refused_at_start(value):
    with pytest.raises(SettingsError, match="ANOTADOR_CORS_ORIGINS must list origins"):
        create_app({"TESTING": True, "SQLALCHEMY_DATABASE_URI": "sqlite://", "CORS_ORIGINS": value})
