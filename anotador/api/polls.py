"""Game reads answered before Flask: the poll's 304, and a version's body already rendered.

Every phone at every table asks once a second whether its game changed, and
the answer is almost always no. That answer needs the game's current version
and nothing else: one primary-key lookup (:class:`~anotador.store.database.Heads`).
When the game did change, every phone at the table reads the same new
version, whose body the first read rendered and kept
(:class:`~anotador.api.reads.Bodies`, with its compressed forms in
:class:`~anotador.http.compression.Compressed`).

This WSGI middleware gives both answers without a request context, routing,
hooks or a response object, in the same words the Flask view would use.
Anything else (another path, a version not rendered yet, an encoding not
compressed yet, an unknown game, a database error, an untrusted Host) goes on
to the app, which answers it as always: the view in :mod:`anotador.api.games`
stays the one definition of a game read, and a test holds the two equal.
"""

from __future__ import annotations

import re
from typing import Any, Callable, Iterable

from werkzeug.http import parse_etags

from .common import tags_sent
from .reads import BODY_HEADERS, READ_HEADERS, kept_key
from ..extensions import compress as flask_compress
from ..sheets import iso_stored
from ..sheets.reads import GAME_ID

#: A game's own URL, as the API names it (ids are short URL-safe strings).
GAME = re.compile(rf"/api/v1/games/({GAME_ID.pattern})/?")

#: An Accept-Encoding whose encoding the view has not chosen yet.
_UNKNOWN = object()


class Polls:
    """WSGI middleware: a game's 304 or its kept body, answered from one primary-key lookup."""

    def __init__(self, app: Callable, flask_app: Any) -> None:
        self.app = app
        self.flask_app = flask_app
        self.heads = flask_app.extensions["anotador.heads"]
        self.hosts = flask_app.extensions["anotador.hosts"]
        self.cors = bool(flask_app.extensions.get("anotador.cors"))
        on = flask_app.config.get("COMPRESS_ANSWERS", True) and flask_compress.cache is not None
        self.compress = flask_compress if on else None
        self.encodings = flask_app.extensions["anotador.encodings"].chosen

    def __call__(self, environ: dict, start_response: Callable) -> Iterable[bytes]:
        method = environ.get("REQUEST_METHOD")
        # A cross-origin read (CORS on) goes to the app, which adds what the browser needs to read it.
        if self.heads.enabled and method in ("GET", "HEAD") and not (self.cors and "HTTP_ORIGIN" in environ):
            match = GAME.fullmatch(environ.get("PATH_INFO", ""))
            if match and self._trusted(environ):
                try:
                    row = self.heads.get(match.group(1))
                except Exception:  # the database is in trouble: the app says so (503)
                    row = None
                if row is not None:
                    answer = self._answer(environ, match.group(1), row, start_response)
                    if answer is not None:
                        return [] if method == "HEAD" else answer
        return self.app(environ, start_response)

    def _answer(self, environ: dict, game_id: str, row: tuple, start_response: Callable) -> list[bytes] | None:
        version = row[0]
        tags = environ.get("HTTP_IF_NONE_MATCH")
        if tags:
            seen = tags_sent(parse_etags(tags), weak=True)
            if seen and (str(version) in seen or "*" in seen):
                start_response("304 NOT MODIFIED", [("ETag", f'"{version}"'), *READ_HEADERS])
                return []
        kept = self.flask_app.extensions.get("anotador.bodies")
        key = (game_id, version, iso_stored(row[1]))
        text = kept.get(key) if kept is not None else None
        if text is None:
            return None  # not rendered in this worker yet: the view renders and keeps it
        tag, data, encoding = f'"{version}"', None, []
        accept = environ.get("HTTP_ACCEPT_ENCODING")
        if accept and self.compress is not None:
            algorithm = self.encodings.get(accept, _UNKNOWN)
            if algorithm is _UNKNOWN:
                return None  # the view asks Flask-Compress, and what it chooses is remembered
            if algorithm is not None:
                data = self.compress.cache.get(f"{algorithm};{kept_key(key)}")
                if data is None:
                    return None  # the view compresses it and keeps that too
                tag, encoding = f'"{version}:{algorithm}"', [("Content-Encoding", algorithm)]
        if data is None:
            data = text.encode("utf-8")
        start_response("200 OK", [*BODY_HEADERS, ("Content-Length", str(len(data))), ("ETag", tag), *encoding,
                                  *READ_HEADERS])
        return [data]

    def _trusted(self, environ: dict) -> bool:
        # an untrusted Host goes on to the app, which answers 400 as for any request
        return self.hosts.allow(environ.get("HTTP_HOST") or environ.get("SERVER_NAME"))
