"""``/api/v1/tables``: a group's table of regulars ("mesa"): its standings, its history, its players.

The same capability model as games: anyone with a table's id reads it;
its write token (``Authorization: Bearer``, shown once when it is made)
starts games at it, adds games to it, renames and merges its players.
Every read carries the table's version as its ETag (a strong one for each
URL: the standings under each filter, each page of the history), so a
phone polls with ``If-None-Match`` and gets 304 for one primary-key read.
"""

from __future__ import annotations

from typing import Any

from flask import Blueprint, Response, current_app, request, url_for

from .. import sheets
from ..live import HEADERS, last_seen, opening
from ..support.lru import LRU
from .schemas import (ExportQuerySchema, HistoryQuerySchema, MergeSchema, RenameSchema, StandingsQuerySchema,
                       TableCreateSchema, TableGameSchema)
from .common import bearer, client_key, load, public_url, query, tags_sent
from .exports import attachment, history_csv
from .game_bodies import game_response
from .reads import NO_CACHE, etag, not_modified

bp = Blueprint("tables", __name__, url_prefix="/tables")

_create = TableCreateSchema()
_standings = StandingsQuerySchema()
_history = HistoryQuerySchema()
_export = ExportQuerySchema()
_add = TableGameSchema()
_rename = RenameSchema()
_merge = MergeSchema()


class Reads(LRU[tuple, tuple]):
    """Each table read this worker rendered (its version, text and headers), by table, the version asked
    about and the read's canonical form (what it is and its filters as parsed, never the URL as sent: a
    query string rewritten is the same read). Bounded in bytes; one render per key at a time."""


def _reads() -> Reads:
    return Reads.of_app("anotador.table_reads", "GAME_BODIES", lambda found: len(found[1]))


def _read(mesa_id: str, what: tuple, render) -> Response:
    """A table read: 304 for its version by the primary key alone; else the text kept for this version and
    read (``what``: its kind and parsed filters), or ``render(mesa)`` made now and kept. Readers that ask
    for a version not rendered yet at the same moment wait for the one render."""
    version = sheets.mesa_head(mesa_id)
    unchanged = not_modified(version)
    if unchanged is not None:
        return unchanged

    def make() -> tuple:
        mesa = sheets.get_mesa(mesa_id)
        body, headers = render(mesa)
        # a write may have landed since the head was read: the version rendered is the one answered
        return mesa.version, current_app.json.dumps(body), tuple(headers)

    rendered, text, headers = _reads().get_or_make((mesa_id, version, what), make)
    response = current_app.response_class(text, mimetype="application/json")
    response.headers["ETag"] = etag(rendered)
    response.headers["Cache-Control"] = NO_CACHE
    for name, value in headers:
        response.headers[name] = value
    return response


def _links(mesa_id: str, token: str | None = None) -> dict[str, str]:
    page = f"{public_url()}m/{mesa_id}"
    return {"read": page, **({"write": f"{page}#token={token}"} if token else {})}


def _standings_of(mesa, data: dict[str, Any]) -> dict[str, Any]:
    body = sheets.standings(mesa, data)
    body["usual_players"] = sheets.usual_players(mesa.id)
    body["links"] = _links(mesa.id)
    return body


@bp.post("")
def create_table():
    """Make a table; the answer holds its write token, shown only here."""
    data = load(_create)
    mesa, token, quota = sheets.create_mesa(data["name"], data["timezone"], client_key())
    body = _standings_of(mesa, {})
    body["token"] = token
    body["links"] = _links(mesa.id, token)
    response = current_app.response_class(current_app.json.dumps(body), status=201, mimetype="application/json")
    response.headers["Location"] = url_for(".get_table", mesa_id=mesa.id)
    response.headers["ETag"] = etag(mesa.version)
    response.headers["Cache-Control"] = "no-store"  # it holds the token
    for name, value in quota.headers() if quota is not None else ():
        response.headers[name] = value
    return response


@bp.get("/<mesa_id>")
def get_table(mesa_id: str):
    """The standings: every regular ranked, within a variant, a rule set and a range of days if asked."""
    data = query(_standings)
    what = ("standings", *(data.get(k) for k in ("variant", "rules", "since", "until")))
    return _read(mesa_id, what, lambda mesa: (_standings_of(mesa, data), []))


@bp.get("/<mesa_id>/events")
def table_events(mesa_id: str):
    """The table's version as a Server-Sent Event, and ``retry``: held open under the ASGI server
    (:mod:`anotador.live.streams`), answered at once here, so the browser comes back in a second."""
    version = sheets.mesa_head(mesa_id)
    return Response(opening(version, last_seen(request.headers.get("Last-Event-ID"))), headers=list(HEADERS))


@bp.get("/<mesa_id>/games")
def list_games(mesa_id: str):
    """The history, newest first, a page at a time: ``Link: <...>; rel="next"`` while more are left."""
    data = query(_history)
    after = sheets.read_cursor(data["cursor"]) if "cursor" in data else None

    def render(mesa):
        games, nxt = sheets.history(mesa, after, data["limit"])
        headers = []
        if nxt is not None:
            link = url_for(".list_games", mesa_id=mesa.id, limit=data["limit"], cursor=nxt)
            headers.append(("Link", f'<{link}>; rel="next"'))
        return {"games": games, "next": nxt}, headers

    return _read(mesa_id, ("games", data["limit"], after), render)


#: The last exports made by this worker, by table and version: a table of ten years of Sundays is about
#: 1 MB and 0.3 s of work, so a client that keeps asking for it gets the same text again, and clients
#: asking at the same moment wait for one export.
_exports: LRU[tuple, str] = LRU(8, 32 * 1024 * 1024, len)


@bp.get("/<mesa_id>/games.csv")
def export_games(mesa_id: str):
    """The whole history as CSV (UTF-8 with a byte-order mark, so spreadsheets read every script), one row
    per seat of each game, newest first: with ``lang``, as a spreadsheet of that language reads it (see
    :mod:`.exports`), named after the table; without, columns and values as the API names them."""
    lang = query(_export).get("lang")
    version = sheets.mesa_head(mesa_id)
    unchanged = not_modified(version)
    if unchanged is not None:
        return unchanged
    mesa = sheets.get_mesa(mesa_id)
    body = _exports.get_or_make((mesa.id, mesa.version, lang), lambda: history_csv(mesa, lang))
    response = Response(body, mimetype="text/csv")
    response.headers["Content-Type"] = "text/csv; charset=utf-8"
    response.headers["Content-Disposition"] = (f'attachment; filename="anotador-{mesa.id}.csv"' if lang is None
                                               else attachment(mesa.name))
    response.headers["ETag"] = etag(mesa.version)
    response.headers["Cache-Control"] = NO_CACHE
    return response


@bp.post("/<mesa_id>/games")
def add_game(mesa_id: str):
    """Add a game to the table: the table's token in Authorization, the game's in the body."""
    data = load(_add)
    game, state, moved = sheets.join_mesa(mesa_id, bearer(), data["game"], data["token"],
                                          tags_sent(request.if_match, weak=False))
    return game_response(game, state, 201 if moved else 200)


@bp.patch("/<mesa_id>/players/<int:player>")
def rename_player(mesa_id: str, player: int):
    """Show a regular by another name; the new name stands for them in later games too."""
    data = load(_rename)
    mesa = sheets.rename(mesa_id, bearer(), tags_sent(request.if_match, weak=False), player, data["name"])
    return _written(mesa)


@bp.post("/<mesa_id>/players/<int:player>/merge")
def merge_player(mesa_id: str, player: int):
    """Count one regular as another ("Abu" is "Abuela"): their names and games go to ``into``."""
    data = load(_merge)
    mesa = sheets.merge(mesa_id, bearer(), tags_sent(request.if_match, weak=False), player, data["into"])
    return _written(mesa)


def _written(mesa) -> Response:
    mesa = sheets.get_mesa(mesa.id)
    response = current_app.response_class(current_app.json.dumps(_standings_of(mesa, {})),
                                          mimetype="application/json")
    response.headers["ETag"] = etag(mesa.version)
    response.headers["Cache-Control"] = NO_CACHE
    return response
