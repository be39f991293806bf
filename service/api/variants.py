"""``/api/v1/variants``: the built-in rule sets and their effective options."""

from __future__ import annotations

from flask import Blueprint, jsonify

from ..advice import tables
from ..rules import VARIANTS, RuleSet, find_variant
from ..schemas import VariantSchema
from .common import cacheable

bp = Blueprint("variants", __name__, url_prefix="/variants")


@bp.get("")
def list_variants():
    """List every built-in variant, in a stable order."""
    return cacheable(jsonify([describe(v.rules()) for v in VARIANTS.values()]))


@bp.get("/<variant_id>")
def get_variant(variant_id: str):
    """Describe one built-in variant."""
    return cacheable(jsonify(describe(find_variant(variant_id).rules())))


def describe(rules: RuleSet) -> dict:
    """A variant as the API shows it, with its expected score once the advisor's table exists."""
    expected = tables().expected_score(rules)
    expected = None if expected is None else round(expected, 6)
    out = {}
    for key, value in VariantSchema().dump(rules).items():
        if key == "options":  # the contract's order: expected_score just before the options
            out["expected_score"] = expected
        out[key] = value
    return out
