"""The migrations make exactly the schema the models describe, on SQLite and PostgreSQL, and go both ways."""

from __future__ import annotations

import sqlalchemy as sa
from alembic.autogenerate import compare_metadata
from alembic.migration import MigrationContext

from anotador import create_app
from anotador.extensions import db

from .dbkit import dispose


def _differences(app) -> list:
    with app.app_context(), db.engine.connect() as conn:
        return compare_metadata(MigrationContext.configure(conn), db.metadata)


def test_the_migrated_schema_is_the_models(db_url):
    app = create_app({"TESTING": True, "SQLALCHEMY_DATABASE_URI": db_url})
    try:
        assert _differences(app) == []
        with app.app_context():
            indexed = {ix["name"] for t in ("turns", "entries") for ix in sa.inspect(db.engine).get_indexes(t)}
        # a turn's rows are found by the unique (game_id, ...) indexes; an index on game_id alone only costs writes
        assert "ix_turns_game_id" not in indexed and "ix_entries_game_id" not in indexed
        assert "ix_entries_turn_id" in indexed  # undo deletes a turn's entries by it
    finally:
        dispose(app)


def test_downgrade_one_step_and_back(tmp_path):
    from flask_migrate import downgrade, upgrade

    app = create_app({"TESTING": True, "SQLALCHEMY_DATABASE_URI": f"sqlite:///{tmp_path / 'a.sqlite'}"})
    with app.app_context():
        upgrade()
        downgrade(revision="-1")  # 0009: PostgreSQL's change notices (nothing on SQLite: tests/test_live.py)
        assert {t for t in sa.inspect(db.engine).get_table_names()} >= {"games", "mesas"}
        downgrade(revision="-1")  # 0008: the tables of regulars go
        names = set(sa.inspect(db.engine).get_table_names())
        assert not names & {"mesas", "mesa_players", "mesa_aliases", "mesa_results"}
        assert "mesa_id" not in {c["name"] for c in sa.inspect(db.engine).get_columns("games")}
        downgrade(revision="-1")  # 0007: the turns' throws go
        assert "rolls" not in {c["name"] for c in sa.inspect(db.engine).get_columns("turns")}
        downgrade(revision="-1")  # 0006: the creation keys go
        assert "creation_keys" not in sa.inspect(db.engine).get_table_names()
        downgrade(revision="-1")  # 0005: the indexes on game_id come back
        names = {ix["name"] for ix in sa.inspect(db.engine).get_indexes("entries")}
        assert "ix_entries_game_id" in names
        upgrade()
    assert _differences(app) == []
    dispose(app)
