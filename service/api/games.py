"""``/api/v1/games``: shared score sheets that every phone at the table sees.

Reading is open to anyone with the game's id; writing needs the game's token
(``Authorization: Bearer``). Every write answers with the whole game, and
every game representation carries its version as an ETag, so phones poll
cheaply with ``If-None-Match`` (304 while nothing changed) and writers can
guard against lost updates with ``If-Match`` (412 when stale).
"""

from __future__ import annotations

from typing import Any

from flask import Blueprint, Response, jsonify, request, url_for

from .. import sheets
from ..models import GameRow
from ..rules import Game, RuleSet
from ..schemas import FastLoader, GameCreateSchema, RollOffSchema, TurnPatchSchema, TurnSchema, VariantSchema
from .common import client_key, load, public_url, resolve_rules

bp = Blueprint("games", __name__, url_prefix="/games")

_create = GameCreateSchema()
_turn = FastLoader(TurnSchema())
_patch = TurnPatchSchema()
_roll_off = RollOffSchema()

#: Polling clients must revalidate every time; a 304 costs one small query.
NO_CACHE = "no-cache"


def bearer() -> str | None:
    """The token of ``Authorization: Bearer <token>``, or None."""
    scheme, _, token = request.headers.get("Authorization", "").partition(" ")
    return token.strip() or None if scheme.lower() == "bearer" else None


def etag(version: int) -> str:
    return f'"{version}"'


# -- representations ------------------------------------------------------------

def game_body(game: GameRow, state: Game | None = None) -> dict[str, Any]:
    """The game as every phone sees it: sheets in sheet order, totals, turn, outcome."""
    state = state or sheets.state_of(game)
    rules: RuleSet = state.rules
    totals = state.totals()
    turn = state.turn()
    return {
        "id": game.id,
        "variant": rules.variant.id,
        "rules": {"base": rules.variant.id, **rules.options.as_dict()},
        "boxes": VariantSchema().dump_boxes(rules),
        "players": [
            {
                "name": p.name,
                "sheet": {b.id: state.sheets[p.seat].get(b.id) for b in rules.boxes},
                "scratched": [b.id for b in rules.boxes if b.id in state.scratched[p.seat]],
                "total": totals[p.seat],
            }
            for p in game.players
        ],
        "first_player": game.start,
        "turn": None if turn is None else {"player": turn[0], "round": turn[1]},
        "rounds": rules.rounds,
        "status": game.status,
        "winners": list(game.winners),
        "reason": game.reason,
        "roll_off": state.roll_off_state(),
        "version": game.version,
        "created_at": sheets.iso(game.created_at),
        "updated_at": sheets.iso(game.updated_at),
    }


def game_response(game: GameRow, state: Game | None = None, status: int = 200) -> Response:
    response = jsonify(game_body(game, state))
    response.status_code = status
    response.headers["ETag"] = etag(game.version)
    response.headers["Cache-Control"] = NO_CACHE
    return response


def correction_json(row) -> dict[str, Any]:
    """What a turn was before one correction."""
    return {"dice": row.dice, "served": row.served, "boxes": row.boxes, "recorded_at": sheets.iso(row.recorded_at)}


def turn_body(turn, corrections=()) -> dict[str, Any]:
    return {
        "number": turn.number,
        "player": turn.player,
        "round": turn.round,
        "dice": turn.dice,
        "served": turn.served,
        "boxes": [sheets.entry_json(e) for e in turn.entries],
        "recorded_at": sheets.iso(turn.recorded_at),
        "corrected_at": sheets.iso(turn.corrected_at),
        "corrections": [correction_json(c) for c in corrections],
    }


# -- views ----------------------------------------------------------------------

@bp.post("")
def create_game():
    """Create a game; the answer holds the write token, shown only here."""
    data = load(_create)
    rules = resolve_rules(data)
    game, token = sheets.create(rules, data["players"], data.get("first_rolls"), client_key())
    # The phone page's address; the token rides in the fragment, which
    # browsers never send, so it stays out of every server log.
    page = f"{public_url()}g/{game.id}"
    body = game_body(game)
    body["token"] = token
    body["links"] = {"read": page, "write": f"{page}#token={token}"}
    response = jsonify(body)
    response.status_code = 201
    response.headers["Location"] = url_for(".get_game", game_id=game.id)
    response.headers["ETag"] = etag(game.version)
    response.headers["Cache-Control"] = "no-store"  # it holds the token
    return response


@bp.get("/<game_id>")
def get_game(game_id: str):
    """The shared sheet; 304 while the ETag sent is still current."""
    if request.if_none_match:
        version = sheets.version_of(game_id)
        if request.if_none_match.contains(str(version)):
            response = Response(status=304)
            response.headers["ETag"] = etag(version)
            response.headers["Cache-Control"] = NO_CACHE
            return response
    return game_response(sheets.get(game_id))


@bp.post("/<game_id>/turns")
def record_turn(game_id: str):
    """Record the next turn; the server computes the points."""
    data = load(_turn)
    return game_response(*sheets.record_turn(game_id, bearer(), request.if_match or None, data), status=201)


@bp.get("/<game_id>/turns")
def list_turns(game_id: str):
    """Every turn in order, with what corrections changed; then any roll-off rolls."""
    game = sheets.get(game_id)
    history = sheets.corrections_of(game)
    response = jsonify({
        "turns": [turn_body(t, history.get(t.id, ())) for t in sheets.turns_of(game)],
        "roll_offs": [{"player": r.player, "dice": r.dice, "recorded_at": sheets.iso(r.recorded_at)}
                      for r in sheets.roll_offs_of(game)],
    })
    response.headers["ETag"] = etag(game.version)
    response.headers["Cache-Control"] = NO_CACHE
    return response.make_conditional(request)


@bp.delete("/<game_id>/turns/last")
def undo_turn(game_id: str):
    """Undo the last turn, an instant win included."""
    return game_response(*sheets.undo_last(game_id, bearer(), request.if_match or None))


@bp.patch("/<game_id>/turns/<int(signed=True):number>")
def correct_turn(game_id: str, number: int):
    """Correct a recorded turn; every later turn is checked again."""
    data = load(_patch)
    return game_response(*sheets.correct_turn(game_id, bearer(), request.if_match or None, number, data))


@bp.post("/<game_id>/roll-off")
def roll_off(game_id: str):
    """One tied player's roll-off roll (``tie_break: roll_off``)."""
    data = load(_roll_off)
    result = sheets.roll_off(game_id, bearer(), request.if_match or None, data["player"], data["dice"])
    return game_response(*result, status=201)
