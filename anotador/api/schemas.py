"""Marshmallow schemas: the shapes of requests and responses.

Schemas check *form* (types, required fields, unknown fields); the rules
engine checks *meaning* (how many dice this variant rolls, which boxes this
sheet has, which option values make sense), so no rule is restated here.
"""

from __future__ import annotations

from typing import Any

from marshmallow import RAISE, Schema, ValidationError, fields, missing, validate, validates_schema
from marshmallow.decorators import POST_LOAD, PRE_LOAD, VALIDATES, VALIDATES_SCHEMA

from ..support.adapters import schema_hooks
from ..rules import BOX_NAMES, BOX_SHORT, LANGUAGES, OPTION_NAMES, WORDS, Assignment, RuleSet, Score, instant_win_names
from ..solver.chances import exact_for
from ..solver.sampled import worked_out


class StrictBoolean(fields.Boolean):
    """A JSON boolean and nothing else ("yes", 1 and "true" are refused)."""

    def _deserialize(self, value: Any, attr: str | None, data: Any, **kwargs: Any) -> bool:
        if not isinstance(value, bool):
            raise self.make_error("invalid", input=value)
        return value


class JSONObject(fields.Raw):
    """A JSON object, passed on whole for the rules engine to check."""

    default_error_messages = {"invalid": "Not a valid object."}

    def _deserialize(self, value: Any, attr: str | None, data: Any, **kwargs: Any) -> dict:
        if not isinstance(value, dict):
            raise self.make_error("invalid")
        return value


class JSONArray(fields.Raw):
    """A JSON array, passed on whole: the rules engine checks each die.

    The engine already refuses 0, 7, 2.5, "3", true and null with the path of
    the bad die (``dice.4``); checking each item here as well would restate
    that rule and double the cost of every request.
    """

    default_error_messages = {"invalid": "Not a valid list."}

    def _deserialize(self, value: Any, attr: str | None, data: Any, **kwargs: Any) -> list:
        if not isinstance(value, list):
            raise self.make_error("invalid")
        return value


class FastLoader:
    """``schema.load`` for well-formed bodies, without marshmallow's machinery.

    Derived from the schema's own fields, so it restates nothing: a body whose
    every key is a declared field holding a value of exactly that field's JSON
    type, passing that field's validators, loads to the dict marshmallow would
    return; any other body goes through ``schema.load``, which says what is
    wrong. Marshmallow costs more than scoring a roll; this keeps /score's
    hot path for the rules (tests hold both paths equal).
    """

    #: Field classes whose load is "this JSON type, as it is".
    TYPES: dict[type, type] = {}

    def __init__(self, schema: Schema):
        hooks = schema_hooks(schema)
        if any(hooks.get(tag) for tag in (PRE_LOAD, POST_LOAD, VALIDATES, VALIDATES_SCHEMA)) or schema.unknown != RAISE:
            raise TypeError(f"{type(schema).__name__} has hooks or lets unknown fields through")
        self.schema = schema
        self.fields = {}
        self.required = []
        self.defaults = []
        for name, f in schema.load_fields.items():
            key, attr = f.data_key or name, f.attribute or name
            kind = self.TYPES.get(type(f))
            if isinstance(f, fields.Integer) and type(f) is fields.Integer:
                kind = int if f.strict else None
            self.fields[key] = (attr, kind, tuple(f.validators))
            if f.required:
                self.required.append(key)
            if f.load_default is not missing:
                self.defaults.append((attr, f.load_default))

    def load(self, data: Any) -> dict[str, Any]:
        out = self._fast(data)
        return out if out is not None else self.schema.load(data)

    def _fast(self, data: Any) -> dict[str, Any] | None:
        if type(data) is not dict:
            return None
        out = {}
        for key, value in data.items():
            spec = self.fields.get(key)
            if spec is None:
                return None
            attr, kind, validators = spec
            if kind is None or type(value) is not kind:  # exact: True is not an int here
                return None
            try:
                for check in validators:
                    check(value)
            except ValidationError:
                return None
            out[attr] = value
        if any(key not in data for key in self.required):
            return None
        for attr, default in self.defaults:
            if attr not in out:
                out[attr] = default() if callable(default) else default
        return out


FastLoader.TYPES.update({fields.String: str, JSONObject: dict, JSONArray: list, StrictBoolean: bool})


class ScoreRequestSchema(Schema):
    """``POST /api/v1/score``: a roll, the rules it is scored under, a sheet.

    ``dice``, ``groups`` and ``sheet`` are checked for form here and for
    meaning (die values, box ids, points a box can hold) by the engine.
    """

    variant = fields.String(metadata={"description": "A built-in variant id."})
    rules = JSONObject(metadata={"description": "House rules: a base variant and option overrides."})
    dice = JSONArray(required=True)
    served = StrictBoolean(load_default=False)
    sheet = JSONObject(load_default=dict)
    limit = fields.Integer(strict=True, validate=validate.Range(1, 100))
    groups = JSONArray()


class AdviceRequestSchema(Schema):
    """``POST /api/v1/advice``: a roll, which roll of the turn it is, the rules, a sheet."""

    variant = fields.String(metadata={"description": "A built-in variant id."})
    rules = JSONObject(metadata={"description": "House rules: a base variant and option overrides."})
    dice = JSONArray(required=True)
    roll = fields.Integer(strict=True, required=True, validate=validate.Range(1, 3),
                          metadata={"description": "Which roll of the turn produced these dice (1: served)."})
    sheet = JSONObject(load_default=dict)
    limit = fields.Integer(strict=True, validate=validate.Range(1, 100))
    opponents = JSONArray(metadata={"description": "Play to win: the other players' sheets, [{sheet, bonus}]."})
    bonus = fields.Integer(strict=True, validate=validate.Range(0, 10_000),
                           metadata={"description": "Play to win: this sheet's points besides its boxes."})


# -- score responses ---------------------------------------------------------
# The answer to every roll is dumped by these functions rather than by nested
# marshmallow schemas: on this hot path the schemas cost more than scoring
# itself. openapi.yaml's ScoreResponse is the contract; the schemathesis test
# holds these functions to it.


def dump_score(result: Score) -> dict[str, Any]:
    """Return a one-box answer: instant win, options best first, scratches (and a roll's bonus)."""
    body = {
        "instant_win": result.instant_win,
        "options": [{"category": c, "points": p} for c, p in result.options],
        "scratch": list(result.scratch),
    }
    if result.bonus:
        body["bonus"] = result.bonus
    return body


def dump_group(dice: list[int], result: Score) -> dict[str, Any]:
    """Return the answer for one group of a split the player chose."""
    return {"dice": sorted(dice), **dump_score(result)}


def dump_assignment(assignment: Assignment) -> dict[str, Any]:
    """Return one way to place a two-box roll."""
    return {
        "points": assignment.points,
        "boxes": [{"category": c, "dice": list(d), "points": p} for c, d, p in assignment.placements],
    }


def names(box_id: str) -> dict[str, str]:
    return {lang: BOX_NAMES[box_id][lang] for lang in LANGUAGES}


class BoxSchema(Schema):
    """A box as a rule set resolves it."""

    #: The rule set whose boxes are dumped (set by VariantSchema), for its names.
    context_rules: RuleSet | None = None

    id = fields.String()
    names = fields.Method("dump_names")
    short_names = fields.Function(lambda box: {lang: BOX_SHORT[box.id][lang] for lang in LANGUAGES})

    def dump_names(self, box) -> dict[str, str]:
        # a variant may call a box otherwise (Kniffel's "Kniffel"): the dumping rule set says
        rules = self.context_rules
        return dict(rules.names_of(box.id)) if rules is not None else names(box.id)
    kind = fields.String()
    face = fields.Integer(allow_none=True)
    points = fields.Integer(attribute="value", allow_none=True)
    served_points = fields.Integer(attribute="served_value", allow_none=True)


class VariantSchema(Schema):
    """A rule set: a built-in variant, or house rules on top of one."""

    id = fields.Function(lambda rs: rs.variant.id)
    family = fields.Function(lambda rs: rs.variant.family)
    names = fields.Function(lambda rs: dict(rs.variant.names))
    description = fields.Function(lambda rs: dict(rs.variant.description))
    dice = fields.Integer()
    boxes_per_turn = fields.Integer()
    rounds = fields.Integer()
    boxes = fields.Method("dump_boxes")
    bonuses = fields.Method("dump_bonuses")
    served_matters = fields.Function(lambda rs: rs.served_matters)
    options = fields.Function(lambda rs: rs.options.as_dict())
    house_rules = fields.Function(lambda rs: [n for n in OPTION_NAMES if n in rs.variant.applicable])
    instant_win_names = fields.Method("dump_instant_win")
    #: whether a game's chances (who is winning) are worked out for these rules at every point of the game, and
    #: whether exactly throughout (else sampled before the last rounds: anotador.solver.sampled)
    chances = fields.Function(lambda rs: worked_out(rs))
    chances_exact = fields.Function(lambda rs: exact_for(rs) is None)

    def dump_bonuses(self, rs: RuleSet) -> list[dict]:
        """What earns points besides the boxes: a section reaching a threshold, further Yahtzees."""
        out = [{"id": b.id, "names": {lang: WORDS[b.id][lang] for lang in LANGUAGES}, "boxes": list(b.boxes),
                "threshold": b.threshold, "points": b.points,
                "subtotal_names": {lang: WORDS["upper"][lang] for lang in LANGUAGES}} for b in rs.bonuses]
        if rs.options.yahtzee_bonus:  # 0: the house plays without it
            box = next(b.id for b in rs.boxes if b.role == "yahtzee")
            names = {lang: WORDS["yahtzee_bonus"][lang].format(box=rs.names_of(box)[lang]) for lang in LANGUAGES}
            out.append({"id": "yahtzee_bonus", "names": names, "boxes": [box], "threshold": None,
                        "points": rs.options.yahtzee_bonus, "subtotal_names": None})
        return out

    def dump_instant_win(self, rs: RuleSet) -> dict[str, str] | None:
        if rs.variant.boxes_per_turn > 1 or not (rs.options.served_generala or "").startswith("win"):
            return None
        generala = next((b.id for b in rs.boxes if b.role == "generala"), None)
        return instant_win_names(rs.variant.big_general, generala)

    def dump_boxes(self, rs: RuleSet) -> list[dict]:
        schema = BoxSchema(many=True)
        schema.context_rules = rs
        boxes = schema.dump(rs.boxes)
        for box in boxes:
            box["max_points"] = rs.max_points(box["id"])
        return boxes


# -- games --------------------------------------------------------------------


class GameCreateSchema(Schema):
    """``POST /api/v1/games``: rules, players in seat order, first-player dice."""

    variant = fields.String()
    rules = JSONObject()
    players = JSONArray(required=True)
    first_rolls = JSONArray()
    #: A table of regulars to start it at (its write token in Authorization).
    table = fields.String(allow_none=True, validate=validate.Length(min=1, max=32))



class BoxChoiceSchema(Schema):
    """One box of a two-box turn: its category, its five dice, or a scratch."""

    category = fields.String(required=True)
    dice = JSONArray()
    scratch = StrictBoolean(load_default=False)


class TurnSchema(Schema):
    """``POST /api/v1/games/{id}/turns``: a turn as the table played it."""

    player = fields.Integer(strict=True, required=True)
    dice = JSONArray()
    served = StrictBoolean()
    category = fields.String()
    scratch = StrictBoolean(load_default=False)
    boxes = fields.List(fields.Nested(BoxChoiceSchema))
    rolls = JSONArray(metadata={"description": "The turn's throws and what was kept (checked by the engine)."})


class TurnPatchSchema(Schema):
    """``PATCH /api/v1/games/{id}/turns/{n}``: what to correct; the rest stays."""

    player = fields.Integer(strict=True)
    dice = JSONArray()
    served = StrictBoolean()
    category = fields.String()
    scratch = StrictBoolean()
    boxes = fields.List(fields.Nested(BoxChoiceSchema))
    rolls = JSONArray(allow_none=True)


class RollOffSchema(Schema):
    """``POST /api/v1/games/{id}/roll-off``: one tied player's roll of five dice."""

    player = fields.Integer(strict=True, required=True)
    dice = JSONArray(required=True)


# -- tables of regulars ----------------------------------------------------------


class TableCreateSchema(Schema):
    """``POST /api/v1/tables``: a name, and the time zone its days are told in."""

    name = fields.Raw(required=True)
    timezone = fields.Raw(load_default="UTC")


class StandingsQuerySchema(Schema):
    """Query of ``GET /api/v1/tables/{id}``: ``?variant=generala&since=2026-01-01&until=2026-12-31``."""

    variant = fields.String(validate=validate.Length(min=1, max=32))
    rules = fields.String(validate=validate.Regexp(r"^[0-9a-f]{16}$", error="A rule set's digest: 16 hex digits."))
    since = fields.Date()
    until = fields.Date()

    @validates_schema
    def _ordered(self, data, **kwargs):
        if data.get("since") and data.get("until") and data["since"] > data["until"]:
            raise ValidationError("until comes before since.", "until")


class HistoryQuerySchema(Schema):
    """Query of ``GET /api/v1/tables/{id}/games``: ``?limit=20&cursor=...``."""

    limit = fields.Integer(load_default=20, validate=validate.Range(1, 100))
    cursor = fields.String(validate=validate.Length(min=1, max=200))


class ExportQuerySchema(Schema):
    """Query of ``GET /api/v1/tables/{id}/games.csv``: ``?lang=es`` for a spreadsheet in that language."""

    lang = fields.String(validate=validate.OneOf(list(LANGUAGES)))


class TableGameSchema(Schema):
    """``POST /api/v1/tables/{id}/games``: a game to add, with its own write token."""

    game = fields.String(required=True, validate=validate.Length(min=1, max=32))
    token = fields.String(required=True, validate=validate.Length(min=1, max=200))


class RenameSchema(Schema):
    """``PATCH /api/v1/tables/{id}/players/{player}``: the name to show."""

    name = fields.Raw(required=True)


class MergeSchema(Schema):
    """``POST /api/v1/tables/{id}/players/{player}/merge``: the player they are."""

    into = fields.Integer(strict=True, required=True)


# -- printed sheets -----------------------------------------------------------


class SheetRequestSchema(Schema):
    """``POST /api/v1/sheets``: a blank sheet for a variant or house rules."""

    variant = fields.String()
    rules = JSONObject()
    players = fields.Integer(strict=True)
    names = fields.List(fields.String())
    games = fields.Integer(strict=True, load_default=1)
    size = fields.String(load_default="a4")
    lang = fields.String(load_default="es")



class SheetQuerySchema(Schema):
    """Query of ``GET .../sheet.pdf``: ``?players=4&names=Ana&names=Beto&games=2&size=a4&lang=es``."""

    players = fields.Integer()
    names = fields.List(fields.String())
    games = fields.Integer(load_default=1)
    size = fields.String(load_default="a4")
    lang = fields.String(load_default="es")


class FilledSheetQuerySchema(Schema):
    """Query of ``GET /api/v1/games/{id}/sheet.pdf``."""

    size = fields.String(load_default="a4")
    lang = fields.String(load_default="es")
    chances = fields.Boolean(load_default=False, truthy={"true", "1"}, falsy={"false", "0"},
                             metadata={"description": "Draw each player's chance to win, turn by turn, under the sheet."})
