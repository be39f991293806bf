"""``/api/v1/games/{id}/chances``: who is winning, each player's chance to win from where the game stands.

The model is :mod:`anotador.solver.chances` (everyone plays on as the
advisor would); this view loads the game, asks it, dumps. A read like the
game's: the version is the ETag, a poll costs a 304, and a version's body is
made once per worker.
"""

from __future__ import annotations

from typing import Any

from flask import Blueprint

from .. import sheets
from ..advice import tables
from ..solver.chances import PERCENTILES, game_chances
from .advice import _round  # answers round their figures alike
from .common import client_key
from .games import version_read

bp = Blueprint("chances", __name__)

#: Said with every answer: what the figures mean.
NOTE = ("Each chance is the probability that the player ends as the winner if, from here, everyone plays on as "
        "the advisor would (the keep and the box that make their own expected final total highest). An instant "
        "win ends the game for the first player in turn order to throw it; otherwise the highest total wins and "
        "a shared win counts its share. The chances add up to 1. expected_final and final_total describe each "
        "player's own sheet played to its end.")


@bp.get("/games/<game_id>/chances")
def chances(game_id: str):
    """Each player's chance to win, expected final total and spread of final totals, for this version."""
    return version_read(game_id, "chances", chances_body)


def chances_body(game) -> dict[str, Any]:
    state = sheets.state_of(game)
    rules = state.rules
    ended = state.outcome()
    # a game that is over (or down to a roll-off) needs no table: its chances are its winners' shares
    over = ended.status == "finished" or ended.roll_off is not None
    found = game_chances(None if over else tables().outlook(rules, client_key(), game=True), state)
    return {
        "game": game.id, "variant": rules.variant.id, "status": game.status, "version": game.version,
        "turns": state.turns, "method": "exact", "note": NOTE,
        "players": [{"name": name, "chance": _round(c.chance), "instant_win": _round(c.instant), "total": c.total,
                     "expected_final": _round(c.expected),
                     "final_total": {f"p{q}": c.percentiles[q] for q in PERCENTILES}}
                    for name, c in zip(sheets.names_of(game), found)],
    }
