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
from ..advisor.outlooks import outlooks
from ..rules import Game
from ..solver.chances import PERCENTILES, NotExact, game_chances
from ..solver.late import LateOutlook, is_late
from ..solver.sampled import SampledOutlook, sampled_for
from .common import client_key, rounded
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


def outlook_of(state: Game, history: bool = False):
    """The outlook of the game's rule set: every state's (:class:`~anotador.solver.chances.Outlook`), or for the
    Yahtzee family the last rounds' (:class:`~anotador.solver.late.LateOutlook`) and before them the sampled one
    (:class:`~anotador.solver.sampled.SampledOutlook`), which a ``history`` (every turn from the first) needs
    too; refused (a 501) for house rules neither follows, before any table is asked for."""
    rules = state.rules
    if history and sampled_for(rules):
        return outlooks().sampled_outlook(rules, client_key(), game=True)
    return outlooks().chances_outlook(rules, [state.sheets[i] for i in range(state.players)], client_key(),
                                    game=True)


def method_of(outlook, state: Game) -> str:
    """``sampled`` when a player's figures are (a Yahtzee-family sheet before the last rounds), else ``exact``."""
    if isinstance(outlook, SampledOutlook) and state.outcome().status != "finished":
        return "sampled" if any(outlook.sampled(outlook.row_of(state.sheets[i])) for i in range(state.players)) \
            else "exact"
    return "exact"


def history(game, final: Game, outlook) -> list[dict[str, Any]]:
    """Each player's chance before the first turn and after each turn, the game replayed a turn at a time; a
    roll-off's result last. Under the Yahtzee family's rules sampled until every player has at most four boxes
    open; null then under house rules whose early turns are not followed (from the last rounds' outlook)."""
    step = Game(final.rules, final.players, final.start)
    out = [{"turn": 0, "player": None, "round": None, "served": False, "boxes": [],
            "chances": _chances(outlook, step)}]
    turns = sheets.turns_of(game)
    for k, turn in enumerate(turns):
        for e in turn.entries:
            sheets.apply_entry(step, turn.player, e.box, e.points, e.scratch, e.bonus)
        step.turns += 1
        if k == len(turns) - 1 and final.instant_winner is not None:
            step.instant_winner = final.instant_winner
        out.append({"turn": turn.number, "player": turn.player, "round": turn.round, "served": turn.served,
                    "boxes": [{"category": e.box, "points": e.points, "scratch": e.scratch} for e in turn.entries],
                    "chances": _chances(outlook, step)})
    if final.roll_offs:
        out.append({"turn": len(turns) + 1, "player": None, "round": None, "served": False, "boxes": [],
                    "roll_off": True, "chances": _chances(outlook, final)})
    return out


def _chances(outlook, state: Game) -> list[float] | None:
    if isinstance(outlook, LateOutlook) and not is_late(state):
        return None
    return [rounded(c.chance) for c in game_chances(outlook, state)]
