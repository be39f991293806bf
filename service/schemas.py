"""Marshmallow schemas: the shapes of requests and responses.

Schemas check *form* (types, required fields, unknown fields); the rules
engine checks *meaning* (how many dice this variant rolls, which boxes this
sheet has, which option values make sense), so no rule is restated here.
"""

from __future__ import annotations

from typing import Any

from marshmallow import Schema, ValidationError, fields, validate, validates_schema

from .rules import BOX_NAMES, LANGUAGES, RuleSet


class StrictBoolean(fields.Boolean):
    """A JSON boolean and nothing else ("yes", 1 and "true" are refused)."""

    def _deserialize(self, value: Any, attr: str | None, data: Any, **kwargs: Any) -> bool:
        if not isinstance(value, bool):
            raise self.make_error("invalid", input=value)
        return value


class StrictDict(fields.Dict):
    """A JSON object (marshmallow's Dict also takes other mappings)."""

    def _deserialize(self, value: Any, attr: str | None, data: Any, **kwargs: Any) -> Any:
        if not isinstance(value, dict):
            raise self.make_error("invalid")
        return super()._deserialize(value, attr, data, **kwargs)


def Die() -> fields.Integer:  # noqa: N802 - a field factory reads like a field
    """A die: an integer from 1 to 6 (not 2.5, "3", true or null)."""
    return fields.Integer(strict=True, validate=validate.Range(1, 6, error="A die is a whole number from 1 to 6."))


class ScoreRequestSchema(Schema):
    """``POST /api/v1/score``: a roll, the rules it is scored under, a sheet."""

    variant = fields.String(metadata={"description": "A built-in variant id."})
    rules = StrictDict(metadata={"description": "House rules: a base variant and option overrides."})
    dice = fields.List(Die(), required=True)
    served = StrictBoolean(load_default=False)
    sheet = StrictDict(keys=fields.String(), values=fields.Integer(strict=True), load_default=dict)
    limit = fields.Integer(strict=True, validate=validate.Range(1, 100))
    groups = fields.List(fields.List(Die()))

    @validates_schema
    def one_rule_source(self, data: dict, **kwargs: Any) -> None:
        """Require exactly one of ``variant`` and ``rules``."""
        if ("variant" in data) == ("rules" in data):
            raise ValidationError("Send exactly one of variant (a built-in id) or rules (house rules).", "variant")


class OptionSchema(Schema):
    category = fields.String()
    points = fields.Integer()


class PlacementSchema(Schema):
    category = fields.String()
    dice = fields.List(fields.Integer())
    points = fields.Integer()


class AssignmentSchema(Schema):
    points = fields.Integer()
    boxes = fields.List(fields.Nested(PlacementSchema), attribute="placements")


class GroupScoreSchema(Schema):
    dice = fields.List(fields.Integer())
    instant_win = fields.Boolean()
    options = fields.List(fields.Nested(OptionSchema))
    scratch = fields.List(fields.String())


class ScoreResponseSchema(Schema):
    """The answer to a roll: options and scratches, or two-box assignments."""

    variant = fields.String()
    rules = fields.Dict()
    dice = fields.List(fields.Integer())
    served = fields.Boolean()
    instant_win = fields.Boolean()
    options = fields.List(fields.Nested(OptionSchema))
    scratch = fields.List(fields.String())
    assignments = fields.List(fields.Nested(AssignmentSchema))
    groups = fields.List(fields.Nested(GroupScoreSchema))


def names(box_id: str) -> dict[str, str]:
    return {lang: BOX_NAMES[box_id][lang] for lang in LANGUAGES}


class BoxSchema(Schema):
    """A box as a rule set resolves it."""

    id = fields.String()
    names = fields.Function(lambda box: names(box.id))
    kind = fields.String()
    face = fields.Integer(allow_none=True)
    points = fields.Integer(attribute="value", allow_none=True)
    served_points = fields.Integer(attribute="served_value", allow_none=True)


class VariantSchema(Schema):
    """A rule set: a built-in variant, or house rules on top of one."""

    id = fields.Function(lambda rs: rs.variant.id)
    names = fields.Function(lambda rs: dict(rs.variant.names))
    description = fields.Function(lambda rs: dict(rs.variant.description))
    dice = fields.Integer()
    boxes_per_turn = fields.Integer()
    rounds = fields.Integer()
    boxes = fields.Method("dump_boxes")
    options = fields.Function(lambda rs: rs.options.as_dict())

    def dump_boxes(self, rs: RuleSet) -> list[dict]:
        boxes = BoxSchema(many=True).dump(rs.boxes)
        for box in boxes:
            box["max_points"] = rs.max_points(box["id"])
        return boxes
