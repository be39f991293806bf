"""A stored game's chances as the views show them: its rule set's outlook, how its figures were made, and each
player's chance after every turn (the chances' answer, and the chart under a printed sheet)."""

from __future__ import annotations

from typing import Any

from .. import sheets
from ..advisor.outlooks import outlooks
from ..rules import Game
from ..solver.chances import game_chances
from ..solver.late import LateOutlook, is_late
from ..solver.sampled import SampledOutlook, sampled_for
from .common import client_key, rounded


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
