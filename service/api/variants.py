"""``/api/v1/variants``: the built-in rule sets and their effective options."""

from __future__ import annotations

from flask import Blueprint, jsonify
from ..rules import VARIANTS, find_variant
from ..schemas import VariantSchema
from .common import cacheable

bp = Blueprint("variants", __name__, url_prefix="/variants")


@bp.get("")
def list_variants():
    """List every built-in variant, in a stable order."""
    rule_sets = [v.rules() for v in VARIANTS.values()]
    return cacheable(jsonify(VariantSchema(many=True).dump(rule_sets)))


@bp.get("/<variant_id>")
def get_variant(variant_id: str):
    """Describe one built-in variant."""
    return cacheable(jsonify(VariantSchema().dump(find_variant(variant_id).rules())))
