"""The adapters (anotador/support/adapters.py) still fit the packages they lean on.

Each test here fails, loudly, the day a new release of Flask-SQLAlchemy,
marshmallow moves what an adapter uses: the adapter must then be
brought up to date (or dropped) before that release is allowed in.
"""

from __future__ import annotations

import inspect

from marshmallow import Schema, fields, pre_load, validates
from marshmallow.decorators import PRE_LOAD, VALIDATES

from anotador import create_app
from anotador.support import adapters
from anotador.extensions import db


def test_flask_sqlalchemy_teardown_is_replaced_by_the_light_one(tmp_path):
    app = create_app({"TESTING": True, "SQLALCHEMY_DATABASE_URI": f"sqlite:///{tmp_path / 'a.sqlite'}"})
    # Flask-SQLAlchemy's own teardown was found and swapped, not kept beside or instead of ours
    assert db._teardown_session not in app.teardown_appcontext_funcs
    assert isinstance(db.session.registry.registry, dict)
    assert any(f.__qualname__.startswith("light_teardown") for f in app.teardown_appcontext_funcs)
    # a second app: the adapter reports whether it applied
    other = create_app({"TESTING": True, "SQLALCHEMY_DATABASE_URI": f"sqlite:///{tmp_path / 'b.sqlite'}"})
    assert adapters.light_teardown(other, db) is False  # already replaced on this app


def test_marshmallow_hooks_are_seen():
    class Hooked(Schema):
        n = fields.Integer()

        @pre_load
        def strip(self, data, **kwargs):
            return data

        @validates("n")
        def check(self, value, **kwargs):
            pass

    class Plain(Schema):
        n = fields.Integer()

    hooks = adapters.schema_hooks(Hooked())
    assert hooks.get(PRE_LOAD) and hooks.get(VALIDATES)
    assert not any(adapters.schema_hooks(Plain()).values())


def _params(func) -> list[str]:
    return list(inspect.signature(func).parameters)
