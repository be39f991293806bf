"""``/api/v1/games``: shared score sheets that every phone at the table sees.

Reading is open to anyone with the game's id; writing needs the game's token
(``Authorization: Bearer``). Every write answers with the whole game, and
every game representation carries its version as an ETag, so phones poll
cheaply with ``If-None-Match`` (304 while nothing changed) and writers can
guard against lost updates with ``If-Match`` (412 when stale).
"""

from __future__ import annotations

import hashlib
import json
import re
from typing import Any, Callable

from flask import Blueprint, Response, current_app, g, jsonify, request, url_for
from werkzeug.exceptions import BadRequest

from .. import sheets
from ..live import HEADERS, last_seen, opening
from ..rules import Game
from ..rules.table import offline_table
from ..store.models import GameRow
from ..support.lru import LRU
from .common import bearer, client_key, etag_of, fixed, load, public_url, resolve_rules, tags_sent
from .game_bodies import game_body, game_response, rendered, turn_body
from .reads import NO_CACHE, bodies, etag, json_response, not_modified, version_read
from .schemas import FastLoader, GameCreateSchema, RollOffSchema, TurnPatchSchema, TurnSchema

bp = Blueprint("games", __name__, url_prefix="/games")

_create = GameCreateSchema()
_turn = FastLoader(TurnSchema())
_patch = TurnPatchSchema()
_roll_off = RollOffSchema()


# -- conditional requests and idempotency ---------------------------------------

#: An Idempotency-Key: visible ASCII but quotes and backslashes (the
#: draft's string), at most 255 characters (a UUID fits).
_KEY = re.compile(r"[\x21\x23-\x5b\x5d-\x7e]{1,255}")


def key_sent() -> tuple[str, str] | None:
    """The request's ``Idempotency-Key`` and the fingerprint of the request it names (None without one)."""
    raw = request.headers.get("Idempotency-Key")
    if raw is None:
        return None
    key = raw
    if len(key) >= 2 and key[0] == key[-1] == '"':
        key = key[1:-1]
    if not _KEY.fullmatch(key):
        raise BadRequest("Idempotency-Key must be 1 to 255 visible ASCII characters (a UUID, say).")
    body = g.get("json_body")
    canonical = "" if body is None else json.dumps(body, sort_keys=True, separators=(",", ":"))
    return key, hashlib.sha256(f"{request.method} {request.path}\n{canonical}".encode("utf-8")).hexdigest()


def idempotency(status: int) -> sheets.Idempotency | None:
    """The request's ``Idempotency-Key``, with what identifies the request and renders its answer.

    Quoted (``"8e03..."``, the draft's structured string) or bare. The
    fingerprint covers the method, the path and the JSON body in canonical
    form, so a retry that serializes the same body differently still matches.
    """
    sent = key_sent()
    if sent is None:
        return None
    key, digest = sent

    def render(game: GameRow, state: Game) -> sheets.Answer:
        return sheets.Answer(status, rendered(game, state), etag(game.version))

    return sheets.Idempotency(key, digest, render)


def answered(answer: sheets.Answer, replayed: bool, cache: str = NO_CACHE) -> Response:
    """A keyed write's stored answer, as it was first sent (and marked when it is sent again)."""
    response = current_app.response_class(answer.body, status=answer.status, mimetype="application/json")
    response.headers["ETag"] = answer.etag
    response.headers["Cache-Control"] = cache
    if replayed:
        response.headers["Idempotent-Replayed"] = "true"
    return response


def write(status: int, change, locate: Callable[[str, int], str] | None = None) -> Response:
    """Run a write (``change(if_match, idem)``); answer with the game, or with the answer stored under its key.

    ``locate(game_id, turns)``: the ``Location`` of what a 201 made, from the
    game's id and its number of turns once made (a replay's from its body).
    """
    done: sheets.Written = change(tags_sent(request.if_match, weak=False), idempotency(status))
    if done.answer is None:
        response = game_response(done.game, done.state, status)
    else:
        response = answered(done.answer, done.replayed)
    if locate is not None:
        if done.replayed:
            made = json.loads(done.answer.body)
            response.headers["Location"] = locate(made["id"], made["turns"])
        else:
            response.headers["Location"] = locate(done.game.id, done.state.turns)
    return response


# -- views ----------------------------------------------------------------------

@bp.post("")
def create_game():
    """Create a game; the answer holds the write token, shown only here (and to this client's keyed retries)."""
    data = load(_create)
    rules = resolve_rules(data)
    sent = key_sent()
    creator = client_key()
    key = None if sent is None else sheets.creation_key(sent[0], creator, sent[1])

    def render(game: GameRow, token: str) -> sheets.Answer:
        # The phone page's address; the token rides in the fragment, which
        # browsers never send, so it stays out of every server log.
        page = f"{public_url()}g/{game.id}"
        body = game_body(game)
        body["token"] = token
        body["links"] = {"read": page, "write": f"{page}#token={token}"}
        text = current_app.json.dumps(body, separators=(",", ":")) + "\n"  # as jsonify
        return sheets.Answer(201, text, etag(game.version))

    mesa = None if data.get("table") is None else (data["table"], bearer())
    done = sheets.create(rules, data["players"], data.get("first_rolls"), creator, key, render, mesa)
    answer = done.answer or render(done.game, done.token)
    response = answered(answer, done.replayed, cache="no-store")  # it holds the token
    for name, value in done.quota.headers() if done.quota is not None else ():
        response.headers[name] = value
    game_id = json.loads(answer.body)["id"] if done.replayed else done.game.id
    response.headers["Location"] = url_for(".get_game", game_id=game_id)
    return response


@bp.get("/<game_id>")
def get_game(game_id: str):
    """The shared sheet; 304 while the ETag sent is still current."""
    version, made = sheets.head_of(game_id)
    unchanged = not_modified(version)
    if unchanged is not None:
        return unchanged
    text = bodies().get((game_id, version, made))
    if text is not None:
        return json_response(text, (game_id, version, made))
    return game_response(sheets.get(game_id))


@bp.get("/<game_id>/events")
def game_events(game_id: str):
    """The game's version as a Server-Sent Event, and ``retry``: held open under the ASGI server
    (:mod:`anotador.live.streams`), answered at once here, so the browser comes back in a second."""
    version, _ = sheets.head_of(game_id)
    return Response(opening(version, last_seen(request.headers.get("Last-Event-ID"))), headers=list(HEADERS))


@bp.post("/<game_id>/turns")
def record_turn(game_id: str):
    """Record the next turn; the server computes the points."""
    data = load(_turn)
    return write(201, lambda if_match, idem: sheets.record_turn(game_id, bearer(), if_match, data, idem),
                 lambda made, turns: url_for(".get_turn", game_id=made, number=turns))


@bp.get("/<game_id>/turns")
def list_turns(game_id: str):
    """Every turn in order, with what corrections changed; then any roll-off rolls."""
    return version_read(game_id, "turns", history_body)


def history_body(game: GameRow) -> dict[str, Any]:
    history = sheets.corrections_of(game)
    return {
        "turns": [turn_body(t, history.get(t.id, ())) for t in sheets.turns_of(game)],
        "roll_offs": [{"player": r.player, "dice": r.dice, "recorded_at": sheets.iso(r.recorded_at)}
                      for r in sheets.roll_offs_of(game)],
    }


@bp.delete("/<game_id>/turns/last")
def undo_turn(game_id: str):
    """Undo the last turn, an instant win included."""
    return write(200, lambda if_match, idem: sheets.undo_last(game_id, bearer(), if_match, idem))


@bp.get("/<game_id>/turns/<int(signed=True):number>")
def get_turn(game_id: str, number: int):
    """One recorded turn, with what corrections changed: where a recorded turn's ``Location`` points."""
    game = sheets.get(game_id)
    for turn in sheets.turns_of(game):
        if turn.number == number:
            return jsonify(turn_body(turn, sheets.corrections_of(game).get(turn.id, ())))
    raise sheets.GameNotFound(game_id)


@bp.patch("/<game_id>/turns/<int(signed=True):number>")
def correct_turn(game_id: str, number: int):
    """Correct a recorded turn; every later turn is checked again."""
    data = load(_patch)
    return write(200, lambda if_match, idem: sheets.correct_turn(game_id, bearer(), if_match, number, data, idem))


@bp.post("/<game_id>/roll-off")
def roll_off(game_id: str):
    """One tied player's roll-off roll (``tie_break: roll_off``)."""
    data = load(_roll_off)
    # A roll-off roll is listed in the game's history (roll_offs): that is where it is.
    return write(201, lambda if_match, idem: sheets.roll_off(game_id, bearer(), if_match, data["player"],
                                                             data["dice"], idem),
                 lambda made, _turns: url_for(".list_turns", game_id=made))


#: Each rule set's offline table as JSON, with its ETag: games under the same rules share it.
_tables: LRU[str, tuple[str, str]] = LRU(64)


@bp.get("/<game_id>/scoring")
def scoring_table(game_id: str):
    """What the page needs to score this game's rolls with no connection (rules/table.py).

    It depends on the rules only, so it never changes: cacheable, and the page keeps it.
    """
    game = sheets.get(game_id)
    key = json.dumps(game.rules, sort_keys=True)
    kept = _tables.get(key)
    if kept is None:
        text = current_app.json.dumps(offline_table(sheets.rules_of(game)))
        kept = (text, etag_of(text))
        _tables.put(key, kept)
    return fixed(kept[0], kept[1], "application/json")
