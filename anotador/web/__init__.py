"""The phone page: one HTML shell, plain CSS and JavaScript modules, the public API.

The page is served at ``/`` (start a game), ``/g/<id>`` (a game's sheet) and ``/m/<id>`` (a table of regulars);
everything it shows comes from ``/api/v1`` like any other client's. Every
asset is served from here: no CDN, no build step. ``/sw.js`` is the service
worker that keeps the shell on the phone; ``/favicon.ico`` the icon browsers
ask for by themselves.
"""

from __future__ import annotations

import hashlib
import json
import mimetypes
import os
from functools import lru_cache
from pathlib import Path

from flask import Blueprint, Flask, Response, abort, render_template, request, send_from_directory
from jinja2.utils import htmlsafe_json_dumps
from markupsafe import Markup
from werkzeug.security import safe_join

from ..api.common import etag_of, fixed, public_url
from ..locales import LANGUAGES, for_the_page, page_words, word
from ..rules import VARIANTS, WORDS

STATIC = Path(__file__).resolve().parent / "static"


class PageBlueprint(Blueprint):
    """The page's blueprint: its static files answered from memory, 304 without a file read."""

    def send_static_file(self, filename: str) -> Response:
        found = static_file(filename)
        if found is None:
            abort(404)
        data, tag, mimetype = found
        # Revalidated on every use: the service worker keeps them, and a new version must show at once.
        return fixed(data, tag, mimetype, cache_control="no-cache")


def static_file(filename: str) -> tuple[bytes, str, str] | None:
    """A static file's bytes, ETag and type: read once per version of the file (its size and time).

    ``words/<lang>.json`` is a language's catalog as the page reads it.
    """
    if filename.startswith(WORDS_FOLDER):
        return catalog_file(filename)
    path = safe_join(str(STATIC), filename)
    if path is None:
        return None
    try:
        stat = os.stat(path)
    except OSError:
        return None
    if not os.path.isfile(path):
        return None
    return _read_static(path, stat.st_mtime_ns, stat.st_size)


@lru_cache(maxsize=256)
def _read_static(path: str, _mtime: int, _size: int) -> tuple[bytes, str, str]:
    data = Path(path).read_bytes()
    mimetype = mimetypes.guess_type(path)[0] or "application/octet-stream"
    if path.endswith(".webmanifest"):
        mimetype = "application/manifest+json"
    return data, etag_of(data), mimetype


#: Where the page finds each language's words (``words/es.json``): made from its catalog, not a file.
WORDS_FOLDER = "words/"


def catalog_file(filename: str) -> tuple[bytes, str, str] | None:
    lang = filename.removeprefix(WORDS_FOLDER).removesuffix(".json")
    if filename != f"{WORDS_FOLDER}{lang}.json" or lang not in LANGUAGES:
        return None
    data = page_words(lang)
    return data, etag_of(data), "application/json"


bp = PageBlueprint("web", __name__, template_folder="templates", static_folder="static",
                   static_url_path="/static")

#: Only this origin's scripts, styles, API and worker; no framing; no referrer.
CSP = ("default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; "
       "worker-src 'self'; manifest-src 'self'; object-src 'none'; base-uri 'none'; frame-ancestors 'none'; "
       "form-action 'self'")


def page() -> Response:
    lang = request.accept_languages.best_match(LANGUAGES) or "es"
    families = {}
    for v in VARIANTS.values():
        families.setdefault(v.family, {"id": v.family, "names": dict(WORDS[f"family_{v.family}"]), "variants": []})
        families[v.family]["variants"].append({"id": v.id, "names": dict(v.names), "description": dict(v.description)})
    html = render_template("index.html", families=list(families.values()), lang=lang, languages=LANGUAGES,
                           public=public_url(), w=lambda key: word(lang, key), words=shell_words(lang))
    response = Response(html, mimetype="text/html")
    response.headers["Content-Security-Policy"] = CSP
    response.headers["Referrer-Policy"] = "no-referrer"
    response.headers["X-Content-Type-Options"] = "nosniff"
    response.headers["Cache-Control"] = "no-cache"
    response.headers["Vary"] = "Accept-Language"
    return response


@lru_cache(maxsize=len(LANGUAGES))
def shell_words(lang: str) -> Markup:
    """A language's words as the shell carries them: JSON safe inside a script element, made once."""
    return htmlsafe_json_dumps(for_the_page(lang))


@bp.get("/")
def home():
    """Start a game, or reopen a recent one."""
    return page()


@bp.get("/g/<game_id>")
def game(game_id: str):
    """A game's sheet; the write token, if any, is in the URL fragment."""
    return page()


@bp.get("/m/<mesa_id>")
def table(mesa_id: str):
    """A table of regulars: its standings and history; the write token, if any, is in the URL fragment."""
    return page()


@lru_cache(maxsize=1)
def shell_files() -> tuple[tuple[str, ...], str]:
    """The static files the page needs offline, every language's words among them, and a version that changes
    with any of them."""
    files = sorted(p for p in STATIC.rglob("*") if p.is_file() and p.suffix in
                   (".js", ".css", ".svg", ".png", ".webmanifest") and p.name != "sw.js")
    digest = hashlib.sha256()
    for p in files:
        digest.update(p.read_bytes())
    catalogs = [f"{WORDS_FOLDER}{lang}.json" for lang in LANGUAGES]
    for lang in LANGUAGES:
        digest.update(page_words(lang))
    return tuple(p.relative_to(STATIC).as_posix() for p in files) + tuple(catalogs), digest.hexdigest()[:16]


@bp.get("/sw.js")
def service_worker():
    """The service worker, with the shell's file list and version filled in.

    Served from the root (not /static) so that its scope covers the page.
    """
    files, version = shell_files()
    root = request.script_root
    assets = [f"{root}/static/{f}" for f in files]
    script = (STATIC / "sw.js").read_text(encoding="utf-8")
    script = script.replace("__VERSION__", json.dumps(version)).replace("__ROOT__", json.dumps(root))
    script = script.replace("__ASSETS__", json.dumps(assets))
    response = Response(script, mimetype="text/javascript")
    response.headers["Cache-Control"] = "no-cache"
    response.headers["Service-Worker-Allowed"] = f"{root}/"
    response.set_etag(version)
    return response.make_conditional(request)


@bp.get("/favicon.ico")
def favicon():
    """The icon browsers ask for by themselves."""
    return send_from_directory(STATIC / "icons", "favicon.ico", mimetype="image/vnd.microsoft.icon",
                               max_age=86400)


def init_app(app: Flask) -> None:
    app.register_blueprint(bp)
