"""Reads keyed by a game's version, for every blueprint: a version never changes, so its body is rendered once
per worker and its ETag is the version, a poll's 304 known from the primary key alone."""

from __future__ import annotations

from typing import Any, Callable

from flask import Response, current_app, g, request

from .. import sheets
from ..http.headers import API_CSP
from ..support.lru import LRU
from ..store.models import GameRow
from .common import tags_sent

#: Polling clients must revalidate every time; a 304 costs one small query.
NO_CACHE = "no-cache"


def etag(version: int) -> str:
    return f'"{version}"'


#: The headers of a game read besides its ETag, 304 and 200 alike: the view sends them, and so does
#: anotador.api.polls, which answers a poll before Flask...
READ_HEADERS = (("Cache-Control", NO_CACHE), ("Vary", "Accept-Encoding"), ("X-Content-Type-Options", "nosniff"))
#: ... and what a 200 adds (with its length and any Content-Encoding).
BODY_HEADERS = (("Content-Type", "application/json"), ("Content-Security-Policy", API_CSP))


class Bodies(LRU[tuple, str]):
    """The rendered body of each game version this worker has sent or read: a version never changes.

    Keyed by the game's id, version and the time that version was made (a
    backup restored and played on could reach a version number again, never
    at the same instant). Reads look the key up with one primary-key query and
    send the text kept; a miss renders the game and keeps it. Bounded: the
    least recently used go first.
    """


def bodies() -> Bodies:
    """This app's :class:`Bodies` (one per worker process)."""
    return Bodies.of_app("anotador.bodies", "GAME_BODIES", len)


def json_response(text: str, key: tuple, status: int = 200, kind: str = "game") -> Response:
    """A game version's JSON text (its body, or another ``kind`` of read) as an answer: the version as the ETag,
    revalidated on every use."""
    response = current_app.response_class(text, status=status, mimetype="application/json")
    response.headers["ETag"] = etag(key[1])
    response.headers.extend(READ_HEADERS)
    response.headers.extend(BODY_HEADERS[1:])  # the type, the response class sets
    g.compress_key = kept_key(key, kind)  # its compressed forms are kept too
    return response


def version_read(game_id: str, kind: str, render: Callable[[GameRow], Any]) -> Response:
    """A read derived from one version of a game (its history, its analysis), priced like a poll.

    The ETag is the version, known from the primary key alone before any
    work: a client that has this version gets its 304 for the cost of a
    poll. A version's body is rendered once per worker and kept with the
    game bodies (a version never changes), its compressed forms too; only
    a version not seen yet reads the game's rows and calls ``render``.
    """
    version, made = sheets.head_of(game_id)
    unchanged = not_modified(version)
    if unchanged is not None:
        return unchanged
    key = (game_id, version, made)
    text = bodies().get((kind, *key))
    if text is None:
        game = sheets.get(game_id)
        # a write may have landed since the head was read: name what was rendered
        key = sheets.version_key(game)
        text = current_app.json.dumps(render(game))
        bodies().put((kind, *key), text)
    return json_response(text, key, kind=kind)


def not_modified(version: int) -> Response | None:
    """A game read's 304, if the client's If-None-Match names ``version`` (weakly: any encoding of it)."""
    seen = tags_sent(request.if_none_match, weak=True)
    if not (seen and (str(version) in seen or "*" in seen)):
        return None
    response = Response(status=304)
    response.headers["ETag"] = etag(version)
    response.headers.extend(READ_HEADERS)
    return response


def kept_key(key: tuple, kind: str = "game") -> str:
    """The name a game version's compressed forms (of its body, or another ``kind`` of read) are kept under
    (anotador.http.compression)."""
    return f"{kind}:" + ":".join(map(str, key))
