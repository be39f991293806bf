"""``/api/v1/advice`` and ``/api/v1/games/{id}/analysis``: the optimal advisor.

The objective is solitaire and exact: the expected final total of one
player's own sheet (see :mod:`anotador.solver.solve`). Views load, ask the
solver, dump; tables come from :mod:`anotador.advice`.
"""

from __future__ import annotations

from typing import Any

from flask import Blueprint, jsonify

from .. import sheets
from ..advice import tables
from ..errors import ValidationProblem
from ..rules import RulesError
from ..schemas import AdviceRequestSchema, FastLoader
from ..solver.advise import advise, judge_turn
from .common import client_key, load, resolve_rules, rules_error
from .games import version_read

bp = Blueprint("advice", __name__)

_request = FastLoader(AdviceRequestSchema())

#: Said with every analysis: the record holds each turn's final dice only.
KEEPS_NOT_JUDGED = ("Only each turn's final dice are recorded, so the dice kept between rolls are not judged: "
                    "each turn is judged by the box chosen for its final dice.")


def _round(x: float) -> float:
    return round(x, 6)


@bp.post("/advice")
def advice():
    """The best box and the best keep for a roll, with the expected final total of each."""
    data = load(_request)
    rules = resolve_rules(data)
    roll = data["roll"]
    if "limit" in data and rules.boxes_per_turn == 1:
        raise ValidationProblem({"limit": [f"{rules.variant.id} fills one box a turn; limit applies only to "
                                           "two-box variants."]})
    try:
        counts = rules.check_dice(data["dice"], rules.dice, "dice")
        sheet = rules.check_sheet(data["sheet"])
    except RulesError as exc:
        raise rules_error(exc) from None
    table = tables().get(rules, client_key())
    found = advise(table.solver, table.values, sheet, counts, roll, data.get("limit", 10))
    body: dict[str, Any] = {"variant": rules.variant.id}
    if "rules" in data:
        body["rules"] = {"base": rules.variant.id, **rules.options.as_dict()}
    body |= {"dice": data["dice"], "roll": roll, "expected_final": _round(found.expected_final)}
    if rules.boxes_per_turn > 1:
        body["splits"] = [{**s, "expected": _round(s["expected"])} for s in found.splits]
    else:
        body["boxes"] = [{**b, "expected": _round(b["expected"])} for b in found.boxes]
    if roll < 3:
        body["keeps"] = [{**k, "expected": _round(k["expected"])} for k in found.keeps]
    body["best"] = {**found.best, "expected": _round(found.best["expected"])}
    body["instant_win"] = found.instant_win
    return jsonify(body)


@bp.get("/games/<game_id>/analysis")
def analysis(game_id: str):
    """Every recorded turn judged: the box chosen, the best box for the same dice, the points it cost."""
    return version_read(game_id, "analysis", analysis_body)


def analysis_body(game) -> dict[str, Any]:
    rules = sheets.rules_of(game)
    table = tables().get(rules, client_key(), game=True)
    n = len(game.players)
    sheet: list[dict[str, int]] = [{} for _ in range(n)]
    earned = [0] * n
    turns = []
    for turn in sheets.turns_of(game):
        placed = [(e.box, e.points, e.dice) for e in turn.entries]
        bonus = sum(e.bonus or 0 for e in turn.entries)
        judged = judge_turn(table.solver, table.values, sheet[turn.player], earned[turn.player], turn.number,
                            turn.player, turn.dice, turn.served, placed, bonus)
        turns.append({
            "number": turn.number, "player": turn.player, "round": turn.round, "dice": judged.dice,
            "served": turn.served, "chosen": judged.chosen, "points": judged.points, "best": judged.best,
            "expected_chosen": None if judged.expected_chosen is None else _round(judged.expected_chosen),
            "expected_best": None if judged.expected_best is None else _round(judged.expected_best),
            "lost": None if judged.lost is None else _round(judged.lost),
        })
        for box, points, _ in placed:
            sheet[turn.player][box] = points
        earned[turn.player] += bonus
    start = float(table.values[0])
    players = []
    for seat, p in enumerate(game.players):
        lost = sum(t["lost"] or 0 for t in turns if t["player"] == seat)
        state = table.solver.space.state_of(sheet[seat])
        now = sum(sheet[seat].values()) + earned[seat] + float(table.values[state])
        players.append({"name": p.name, "expected_start": _round(start), "expected_now": _round(now),
                        "lost": _round(lost), "luck": _round(now - start + lost)})
    return {"game": game.id, "variant": rules.variant.id, "status": game.status,
            "note": KEEPS_NOT_JUDGED, "players": players, "turns": turns}
