"""The adapters (anotador/support/adapters.py) still fit the packages they lean on.

Each test here fails, loudly, the day a new release of Flask-SQLAlchemy,
marshmallow, SQLAlchemy, psycopg or reportlab moves what an adapter uses: the adapter must then be
brought up to date (or dropped) before that release is allowed in.
"""

from __future__ import annotations

import inspect
import sqlite3
from datetime import datetime, timezone

import pytest
from sqlalchemy import JSON, Boolean, Column, DateTime, Integer, MetaData, Table, bindparam, create_engine, insert, \
    make_url, select

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


def test_positional_parameters_store_what_sqlalchemy_would(tmp_path):
    """A row written by sqlite3 with the adapter's converters reads back as the one SQLAlchemy wrote."""
    table = Table("t", MetaData(), Column("id", Integer, primary_key=True), Column("at", DateTime),
                  Column("data", JSON), Column("flag", Boolean))
    path = tmp_path / "p.sqlite"
    engine = create_engine(f"sqlite:///{path}")
    table.metadata.create_all(engine)
    row = {"id": 1, "at": datetime(2026, 12, 7, 7, 30, 1, 5), "data": {"a": [1, "ñ"]}, "flag": True}
    with engine.begin() as conn:
        conn.execute(insert(table), row)
    compiled = insert(table).compile(dialect=engine.dialect, column_keys=list(row))
    names, converters, fixed = adapters.positional_parameters(compiled, engine.dialect)
    assert sorted(names) == sorted(row) and fixed == {} and str(compiled).count("?") == len(names)
    values = {**row, "id": 2}
    raw = sqlite3.connect(path)
    raw.execute(str(compiled), tuple(values[n] if c is None else c(values[n]) for n, c in zip(names, converters)))
    raw.commit()
    first, second = raw.execute("SELECT at, data, flag FROM t ORDER BY id").fetchall()
    raw.close()
    engine.dispose()
    assert first == second
    # the values the statement holds itself (SQLite's LIMIT 1 OFFSET 0) are the adapter's, the rest the caller's
    limited = select(table.c.id).where(table.c.id == bindparam("id")).limit(1).compile(dialect=engine.dialect)
    names, _, fixed = adapters.positional_parameters(limited, engine.dialect)
    assert "id" in names and "id" not in fixed and sorted(fixed.values()) == [0, 1]


def test_postgres_head_reads_a_version_and_raises_psycopgs_own_errors(postgres_url):
    import psycopg

    app = create_app({"TESTING": True, "SQLALCHEMY_DATABASE_URI": postgres_url})
    game = app.test_client().post("/api/v1/games", json={"variant": "generala", "players": ["Ana", "Beto"]}).json
    target = make_url(postgres_url).set(drivername="postgresql").render_as_string(hide_password=False)
    head = adapters.PostgresHead(target, 5, "-c statement_timeout=5000", {})
    try:
        version, made = head.head(game["id"])
        assert version == 1 and isinstance(made, datetime) and made.tzinfo is not None
        assert made <= datetime.now(timezone.utc)
        assert head.head("no-such-game") is None
        head.conn.execute("DEALLOCATE anotador_head")  # the prepared statement gone: the server's error
        with pytest.raises(psycopg.errors.InvalidSqlStatementName):
            head.head(game["id"])
    finally:
        head.close()
        with app.app_context():
            db.engine.dispose()


def test_reportlab_carries_the_glyphs_of_a_shaped_string():
    from anotador.printing import fonts
    from reportlab.pdfbase.ttfonts import shapeStr

    assert fonts.covers(fonts.WIDE, "محمد")  # the shipped face, registered
    shaped = shapeStr("محمد", fonts.WIDE, 1.0)
    glyphs = adapters.shape_data(shaped)
    assert glyphs and all(g.x_advance > 0 for g in glyphs)
