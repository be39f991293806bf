"""``/api/v1/advice`` and ``/api/v1/games/{id}/analysis``: the optimal advisor.

The objective is solitaire and exact: the expected final total of one
player's own sheet (see :mod:`anotador.solver.solve`). Views load, ask the
solver, dump; tables come from :mod:`anotador.advisor.tables`.
"""

from __future__ import annotations

from typing import Any

from flask import Blueprint, jsonify

from .. import sheets
from ..advisor.outlooks import outlooks
from ..advisor.tables import tables
from ..http.errors import ValidationProblem
from ..rules import RulesError
from ..rules.errors import NoFreeBoxError
from ..solver.chances import NotExact
from ..solver.sampled import refusal
from ..solver.towin import TooMuchToWeigh, to_win, to_win_now
from ..advisor.weighing import budget
from .schemas import AdviceRequestSchema, FastLoader
from ..solver.advise import advise, judge_game
from .common import DIGITS, client_key, load, resolve_rules, rounded, rules_error
from .reads import version_read

bp = Blueprint("advice", __name__)

_request = FastLoader(AdviceRequestSchema())

#: Said with every analysis: what its figures mean.
NOTE = ("Every figure is an expected final total in points: the points on the sheet plus the average of what "
        "is still to come if the player plays on at best from there. A decision's cost is how much less its "
        "choice expected than the best one; luck is how much more (or less) the dice gave than the position "
        "the player had chosen expected, so over many games everybody's luck averages zero. Where a turn "
        "records only its final dice, only its box is judged (judged: box).")


@bp.post("/advice")
def advice():
    """The best box and the best keep for a roll, with the expected final total of each."""
    data = load(_request)
    if "opponents" in data:  # a play to win past its budget is refused before any other work
        budget().check(client_key())
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
    others = _opponents(rules, data["opponents"]) if "opponents" in data and rules.boxes_per_turn == 1 else None
    why = refusal(rules) if others and not all(len(s) == len(rules.boxes) for s, _ in others) else None
    if why is not None:  # play to win while others play reads the chances: refused before any table is asked for
        raise NotExact(why)
    table = tables().get(rules, client_key)  # the address hashed only if a build must start
    found = advise(table.solver, table.values, sheet, counts, roll, data.get("limit", 10), DIGITS)
    body: dict[str, Any] = {"variant": rules.variant.id}
    if "rules" in data:
        body["rules"] = {"base": rules.variant.id, **rules.options.as_dict()}
    body |= {"dice": data["dice"], "roll": roll, "expected_final": rounded(found.expected_final)}
    # the advice's own lists, their figures rounded already: made for this answer alone
    if rules.boxes_per_turn > 1:
        body["splits"] = found.splits
    else:
        body["boxes"] = found.boxes
    if roll < 3:
        body["keeps"] = found.keeps
    body["best"] = {**found.best, "expected": rounded(found.best["expected"])}
    body["instant_win"] = found.instant_win
    if "opponents" in data:
        _play_to_win(body, table, rules, sheet, others, data.get("bonus", 0), counts, roll)
    return jsonify(body)


#: The most other players a play-to-win request may name (a game's seats, less the player's own).
MAX_OPPONENTS = 11


def _play_to_win(body: dict[str, Any], table, rules, sheet, others, earned: int, counts, roll: int) -> None:
    """Each option's chance of winning beside its expected total, and the move that plays to win (``to_win``)."""
    if rules.boxes_per_turn > 1:
        raise ValidationProblem({"opponents": [f"{rules.variant.id} fills two boxes a turn: play to win is for "
                                               "one-box variants."]})
    if all(len(s) == len(rules.boxes) for s, _ in others):
        method = "exact"
        try:
            with budget().weigh(client_key()):
                boxes, keeps = to_win(table.solver, sheet, earned, others, counts, roll)
        except TooMuchToWeigh as exc:
            raise ValidationProblem({"sheet": [f"Play to win weighs every sheet this one can reach: {exc}. Ask "
                                               "again with fewer boxes open."]}) from None
    else:  # others still play: this decision for the chance, every later one for points (docs/chances.md)
        method = "approximate"
        outlook = outlooks().chances_outlook(rules, [sheet, *(s for s, _ in others)], client_key())
        with budget().weigh(client_key()):
            boxes, keeps = to_win_now(table.solver, table.values, outlook, sheet, earned, others, counts, roll)
    for b in body["boxes"]:
        b["chance"] = rounded(boxes[b["category"]])
    for k in body.get("keeps", []):
        k["chance"] = rounded(keeps[tuple(k["keep"])])
    # the best chance; among moves as likely to win, the one expected to score more (scoring before a keep)
    moves = [({"category": b["category"]}, b["chance"], b["expected"] + 1e-9) for b in body["boxes"]] + \
        [({"keep": k["keep"]}, k["chance"], k["expected"]) for k in body.get("keeps", [])]
    move, chance, _ = max(moves, key=lambda m: (m[1], m[2]))
    body["to_win"] = {**move, "chance": chance, "method": method}


def _opponents(rules, sent: Any) -> list[tuple[dict[str, int], int]]:
    """The other players' sheets, each checked as a sheet of these rules (full ones too), with their bonuses."""
    if not isinstance(sent, list) or not 1 <= len(sent) <= MAX_OPPONENTS:
        raise ValidationProblem({"opponents": [f"opponents lists 1 to {MAX_OPPONENTS} other players: "
                                               "[{\"sheet\": {...}, \"bonus\": 0}, ...]."]})
    out = []
    for i, other in enumerate(sent):
        path = f"opponents.{i}"
        if not isinstance(other, dict) or not isinstance(other.get("sheet"), dict) or set(other) - {"sheet", "bonus"}:
            raise ValidationProblem({path: ["Each opponent is {\"sheet\": {box: points}, \"bonus\": points}."]})
        bonus = other.get("bonus", 0)
        if type(bonus) is not int or not 0 <= bonus <= 10_000:
            raise ValidationProblem({f"{path}.bonus": ["bonus is a whole number of points from 0 to 10000."]})
        try:
            rules.check_sheet(other["sheet"])
        except NoFreeBoxError:
            pass  # a finished sheet: what play to win is for
        except RulesError as exc:
            raise rules_error(exc, path) from None
        out.append(({k: v for k, v in other["sheet"].items() if v is not None}, bonus))
    return out


@bp.get("/games/<game_id>/analysis")
def analysis(game_id: str):
    """Every recorded turn judged: the box chosen, the best box for the same dice, the points it cost."""
    return version_read(game_id, "analysis", analysis_body)


def _decision(d) -> dict[str, Any]:
    return {"roll": d.roll, "dice": d.dice, "chosen": d.chosen, "best": d.best,
            "expected_chosen": rounded(d.expected_chosen), "expected_best": rounded(d.expected_best),
            "lost": rounded(d.lost), "best_points": d.best_points}


def _opt(x: float | None) -> float | None:
    return None if x is None else rounded(x)


def analysis_body(game) -> dict[str, Any]:
    rules = sheets.rules_of(game)
    table = tables().get(rules, client_key(), game=True)
    recorded = sheets.recorded_turns(game)
    judgement = judge_game(table.solver, table.values, len(game.players), recorded)
    turns = []
    for turn, judged in zip(recorded, judgement.turns):
        box = judged.box
        turns.append({
            "number": judged.number, "player": judged.player, "round": turn.round, "dice": judged.dice,
            "served": judged.served, "chosen": judged.chosen, "points": judged.points, "judged": judged.judged,
            "best": None if box is None else _names(box.best),
            "expected_chosen": None if box is None else rounded(box.expected_chosen),
            "expected_best": None if box is None else rounded(box.expected_best),
            "lost": _opt(judged.lost), "luck": _opt(judged.luck), "unjudged": _opt(judged.unjudged),
            "expected_before": rounded(judged.expected_before), "expected_after": rounded(judged.expected_after),
            "decisions": [_decision(d) for d in judged.decisions],
        })
    players = [{"name": p.name, "expected_start": rounded(judgement.expected_start),
                "expected_now": rounded(judgement.expected_now[seat]), "lost": rounded(judgement.lost[seat]),
                "luck": rounded(judgement.luck[seat]), "unjudged": rounded(judgement.unjudged[seat])}
               for seat, p in enumerate(game.players)]
    return {"game": game.id, "variant": rules.variant.id, "status": game.status,
            "note": NOTE, "players": players, "turns": turns}


def _names(move: dict[str, Any]) -> list[str] | None:
    """The box (or boxes) a best move scores in; None when the best was to throw again."""
    if "category" in move:
        return [move["category"]]
    return list(move["split"]) if "split" in move else None
