"""A game as every phone sees it: its body (rules, sheets, totals, turn, outcome) rendered once per version,
and its turns as its history lists them. The games' views answer with it, and so does a table that a game
joins."""

from __future__ import annotations

import weakref
from typing import Any

from flask import Response, current_app

from .. import sheets
from ..rules import Game, RuleSet
from ..solver.sampled import worked_out
from ..store.models import GameRow
from .reads import bodies, json_response
from .schemas import VariantSchema


def game_body(game: GameRow, state: Game | None = None) -> dict[str, Any]:
    """The game as every phone sees it: sheets in sheet order, totals, turn, outcome."""
    state = state or sheets.state_of(game)
    return {**_head(game, state.rules), **described(state.rules), **_tail(game, state)}


def _head(game: GameRow, rules: RuleSet) -> dict[str, Any]:
    return {"id": game.id, "variant": rules.variant.id}


def _tail(game: GameRow, state: Game) -> dict[str, Any]:
    """What follows the rule set's part of a game body: the players' sheets and where the game stands."""
    rules: RuleSet = state.rules
    totals = state.totals()
    turn = state.turn()
    return {
        "served_matters": rules.served_matters,
        "players": [
            {
                "name": name,
                "sheet": {b.id: state.sheets[seat].get(b.id) for b in rules.boxes},
                "scratched": [b.id for b in rules.boxes if b.id in state.scratched[seat]],
                "subtotals": rules.subtotals(state.sheets[seat]),
                "bonuses": player_bonuses(rules, state, seat),
                "total": totals[seat],
            }
            for seat, name in enumerate(sheets.names_of(game))
        ],
        "first_player": game.start,
        "turn": None if turn is None else {"player": turn[0], "round": turn[1]},
        "rounds": rules.rounds,
        "turns": state.turns,
        "status": game.status,
        "table": game.mesa_id,
        "winners": list(game.winners),
        "reason": game.reason,
        "roll_off": state.roll_off_state(),
        "version": game.version,
        "created_at": sheets.iso(game.created_at),
        "updated_at": sheets.iso(game.updated_at),
    }


#: A rule set's options, boxes and bonuses as a game shows them, and as JSON text (the braces left off):
#: the same for every game and version.
_described: "weakref.WeakKeyDictionary[RuleSet, tuple[dict, str]]" = weakref.WeakKeyDictionary()


def described(rules: RuleSet) -> dict[str, Any]:
    """``rules``, ``boxes``, ``bonuses`` and ``chances`` of a game body, made once per rule set.

    Neither marshmallow nor ``dataclasses.asdict`` is free: rebuilding these
    took a tenth of a turn's CPU.
    """
    return _described_of(rules)[0]


def _described_of(rules: RuleSet) -> tuple[dict[str, Any], str]:
    found = _described.get(rules)
    if found is None:
        schema = VariantSchema()
        part = {"rules": {"base": rules.variant.id, **rules.options.as_dict()},
                "boxes": schema.dump_boxes(rules), "bonuses": schema.dump_bonuses(rules),
                "chances": worked_out(rules)}
        found = _described[rules] = part, current_app.json.dumps(part)[1:-1]
    return found


def player_bonuses(rules: RuleSet, state: Game, seat: int) -> dict[str, int]:
    """A player's bonuses: each section's (0 until its threshold), and the bonuses of rolls."""
    out = rules.section_bonuses(state.sheets[seat])
    if rules.options.yahtzee_bonus:
        out["yahtzee_bonus"] = state.bonuses[seat]
    return out


def rendered(game: GameRow, state: Game | None = None) -> str:
    """The game's body as JSON text, from :class:`Bodies` when this version was rendered already."""
    key = sheets.version_key(game)
    text = bodies().get(key)
    if text is None:
        # game_body as JSON: the rule set's part, most of the text, was dumped once (same separators).
        state = state or sheets.state_of(game)
        dumps = current_app.json.dumps
        text = f"{dumps(_head(game, state.rules))[:-1]}, {_described_of(state.rules)[1]}, " \
               f"{dumps(_tail(game, state))[1:]}"
        bodies().put(key, text)
    return text


def game_response(game: GameRow, state: Game | None = None, status: int = 200) -> Response:
    return json_response(rendered(game, state), sheets.version_key(game), status)


def correction_json(row) -> dict[str, Any]:
    """What a turn was before one correction."""
    return {"dice": row.dice, "served": row.served, "rolls": row.rolls, "boxes": row.boxes,
            "recorded_at": sheets.iso(row.recorded_at)}


def turn_body(turn, corrections=()) -> dict[str, Any]:
    return {
        "number": turn.number,
        "player": turn.player,
        "round": turn.round,
        "dice": turn.dice,
        "served": turn.served,
        "rolls": turn.rolls,
        "boxes": [sheets.entry_json(e) for e in turn.entries],
        "recorded_at": sheets.iso(turn.recorded_at),
        "corrected_at": sheets.iso(turn.corrected_at),
        "corrections": [correction_json(c) for c in corrections],
    }
