"""The service's own app plus the floor of a durable write: insert one row, commit.

bench/games.py serves this instead of wsgi:app, so turns and the floor run
under the same gunicorn, on the same database, through the same write path
(SQLite: the write lock and BEGIN IMMEDIATE; PostgreSQL: a transaction).
"""

from __future__ import annotations

import sqlalchemy as sa
from flask import jsonify

from anotador import create_app
from anotador.extensions import db
from anotador.store.transactions import writing

app = create_app()
FLOOR = sa.Table("bench_floor", sa.MetaData(), sa.Column("id", sa.Integer, primary_key=True),
                 sa.Column("body", sa.JSON))


@app.post("/bench/floor")
def floor():
    """One row written and committed durably: what any write costs at least."""
    with writing():
        db.session.execute(FLOOR.insert().values(body={"dice": [1, 2, 3, 4, 5]}))
    return jsonify({"ok": True}), 201


with app.app_context():
    # As a writer: every worker runs this at once, and two SQLite readers
    # that both find no table then both try to write it (database is locked).
    with writing():
        FLOOR.create(db.session.connection(), checkfirst=True)
