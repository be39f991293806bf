"""The schemas' fast path loads exactly what marshmallow would load."""

from __future__ import annotations

import pytest

from .toolkit import needs

needs("hypothesis", "pip install hypothesis")
from hypothesis import given, settings
from hypothesis import strategies as st
from marshmallow import Schema, ValidationError, fields, validates_schema

from anotador.api.schemas import (
    FastLoader,
    GameCreateSchema,
    RollOffSchema,
    ScoreRequestSchema,
    SheetRequestSchema,
    TurnSchema,
)

SCHEMAS = [ScoreRequestSchema, TurnSchema, GameCreateSchema, RollOffSchema, SheetRequestSchema]

json_values = st.recursive(
    st.none() | st.booleans() | st.integers(-3, 120) | st.floats(allow_nan=False) | st.text(max_size=6),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=4), inner, max_size=3),
    max_leaves=8,
)


def bodies(schema: Schema):
    keys = st.sampled_from(sorted(schema.load_fields) + ["unknown"])
    return st.dictionaries(keys, json_values, max_size=6) | json_values


@pytest.mark.parametrize("schema_cls", SCHEMAS)
def test_fast_path_equals_marshmallow(schema_cls):
    schema = schema_cls()
    loader = FastLoader(schema)

    @settings(max_examples=300, deadline=None)
    @given(bodies(schema))
    def check(body):
        fast = loader._fast(body)
        try:
            slow = schema.load(body)
        except ValidationError:
            assert fast is None, f"fast path accepted what marshmallow refuses: {body!r}"
            return
        if fast is not None:
            assert fast == slow

    check()


def test_a_well_formed_score_request_takes_the_fast_path():
    loader = FastLoader(ScoreRequestSchema())
    body = {"variant": "generala", "dice": [1, 2, 3, 4, 5], "served": True, "sheet": {"ones": 1}}
    assert loader._fast(body) == {**body}
    assert loader._fast({"variant": "generala", "dice": [1] * 5}) == {
        "variant": "generala", "dice": [1] * 5, "served": False, "sheet": {}}
    assert loader._fast({"variant": "generala", "dice": [1] * 5, "served": 1}) is None  # for marshmallow to explain


def test_schemas_it_cannot_mirror_are_refused():
    class Hooked(Schema):
        a = fields.String()

        @validates_schema
        def check(self, data, **kwargs):
            pass

    with pytest.raises(TypeError):
        FastLoader(Hooked())
