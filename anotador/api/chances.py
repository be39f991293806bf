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
from ..solver.chances import PERCENTILES, NotExact, game_chances
from .common import rounded
from .game_chances import history, method_of, outlook_of
from .reads import version_read

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
    finished = ended.status == "finished"
    # A game in play needs its rule set's outlook; a finished one too, for its history. Down to a roll-off, the
    # players still in it share the chances: no outlook. The Yahtzee family's are worked out in the last rounds.
    outlook = None
    if finished or ended.roll_off is None:
        try:
            outlook = outlook_of(state, history=finished)
        except NotExact:
            if not finished:
                raise
            # house rules whose chances are not worked out at all: a finished game's shares, with no curve
    found = game_chances(outlook, state)
    body = {
        "game": game.id, "variant": rules.variant.id, "status": game.status, "version": game.version,
        "turns": state.turns, "method": method_of(outlook, state), "note": NOTE,
        "players": [{"name": name, "chance": rounded(c.chance), "instant_win": rounded(c.instant), "total": c.total,
                     "expected_final": rounded(c.expected),
                     "final_total": {f"p{q}": c.percentiles[q] for q in PERCENTILES}}
                    for name, c in zip(sheets.names_of(game), found)],
        "history": None,
    }
    if finished and outlook is not None:
        body["history"] = history(game, state, outlook)
    return body
