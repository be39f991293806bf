"""``/api/v1/variants``: the built-in rule sets and their effective options."""

from __future__ import annotations

import threading

from flask import Blueprint, current_app

from ..advisor.tables import tables
from ..rules import VARIANTS, RuleSet, find_variant
from .schemas import VariantSchema
from .common import etag_of, fixed

bp = Blueprint("variants", __name__, url_prefix="/variants")


@bp.get("")
def list_variants():
    """List every built-in variant, in a stable order."""
    rule_sets = tuple(v.rules() for v in VARIANTS.values())
    return fixed(*rendered(rule_sets, many=True), mimetype="application/json")


@bp.get("/<variant_id>")
def get_variant(variant_id: str):
    """Describe one built-in variant."""
    return fixed(*rendered((find_variant(variant_id).rules(),), many=False), mimetype="application/json")


#: (rule sets, their expected scores) → (JSON text, ETag). Built-in variants
#: change only when a table gets built (its expected score appears), so a
#: handful of texts serve every request, and a 304 builds nothing.
_texts: dict[tuple, tuple[str, str]] = {}
_lock = threading.Lock()


def rendered(rule_sets: tuple[RuleSet, ...], many: bool) -> tuple[str, str]:
    """The variants' JSON text and ETag, made once for each state of their expected scores."""
    scores = tuple(tables().expected_score(r) for r in rule_sets)
    key = (tuple(map(id, rule_sets)), scores, many)
    found = _texts.get(key)
    if found is None:
        bodies = [describe(r, s) for r, s in zip(rule_sets, scores)]
        text = current_app.json.dumps(bodies if many else bodies[0])
        found = (text, etag_of(text))
        with _lock:
            _texts[key] = found
    return found


def describe(rules: RuleSet, expected: float | None) -> dict:
    """A variant as the API shows it, with its expected score once the advisor's table exists."""
    expected = None if expected is None else round(expected, 6)
    out = {}
    for key, value in VariantSchema().dump(rules).items():
        if key == "options":  # the contract's order: expected_score just before the options
            out["expected_score"] = expected
        out[key] = value
    return out
