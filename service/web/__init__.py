"""The phone page: one HTML shell, plain CSS and JavaScript, the public API.

The page is served at ``/`` (start a game) and ``/g/<id>`` (a game's sheet);
everything it shows comes from ``/api/v1`` like any other client's. Every
asset is served from here: no CDN, no build step.
"""

from __future__ import annotations

from flask import Blueprint, Flask, Response, render_template

bp = Blueprint("web", __name__, template_folder="templates", static_folder="static",
               static_url_path="/static")

#: Only this origin's scripts, styles and API; no framing; no referrer.
CSP = ("default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; "
       "object-src 'none'; base-uri 'none'; frame-ancestors 'none'; form-action 'self'")


def page() -> Response:
    response = Response(render_template("index.html"), mimetype="text/html")
    response.headers["Content-Security-Policy"] = CSP
    response.headers["Referrer-Policy"] = "no-referrer"
    response.headers["X-Content-Type-Options"] = "nosniff"
    response.headers["Cache-Control"] = "no-cache"
    return response


@bp.get("/")
def home():
    """Start a game, or reopen a recent one."""
    return page()


@bp.get("/g/<game_id>")
def game(game_id: str):
    """A game's sheet; the write token, if any, is in the URL fragment."""
    return page()


def init_app(app: Flask) -> None:
    app.register_blueprint(bp)
