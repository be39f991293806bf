"""``/api/v1/score``: the legal boxes and points for one roll of real dice."""

from __future__ import annotations

from flask import Blueprint, jsonify

from ..http.errors import ValidationProblem
from ..rules import RulesError
from .schemas import FastLoader, ScoreRequestSchema, dump_assignment, dump_group, dump_score
from .common import load, resolve_rules, rules_error

bp = Blueprint("score", __name__)

_request = FastLoader(ScoreRequestSchema())


@bp.post("/score")
def score():
    """Score a roll: every box it may go in, or for ten dice, every split."""
    data = load(_request)
    rules = resolve_rules(data)
    body = {"variant": rules.variant.id}
    if "rules" in data:
        body["rules"] = {"base": rules.variant.id, **rules.options.as_dict()}
    body |= {"dice": data["dice"], "served": data["served"]}

    multi = rules.boxes_per_turn > 1
    for name in ("limit", "groups"):
        if name in data and not multi:
            raise ValidationProblem(
                {name: [f"{rules.variant.id} fills one box a turn; {name} applies only to two-box variants."]}
            )
    try:
        if not multi:
            body |= dump_score(rules.score(data["dice"], data["served"], data["sheet"]))
        elif "groups" in data:
            results = rules.score_groups(data["dice"], data["groups"], data["served"], data["sheet"])
            body["instant_win"] = any(r.instant_win for r in results)
            body["groups"] = [dump_group(g, r) for g, r in zip(data["groups"], results)]
        else:
            found = rules.assignments(data["dice"], data["served"], data["sheet"], data.get("limit", 10))
            body |= {"instant_win": False, "assignments": [dump_assignment(a) for a in found]}
    except RulesError as exc:
        raise rules_error(exc) from None
    return jsonify(body)
