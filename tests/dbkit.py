"""The databases the tests use: a migrated SQLite template, this process's own PostgreSQL database, a fresh one
of each kind per test (``db_url``), and games made through the API (``new_game``). A pytest plugin of
conftest.py."""

from __future__ import annotations

import os
import re
import shutil

import pytest
from sqlalchemy.engine import make_url

from anotador import create_app

from .conftest import RUN, WORKER
from .toolkit import require


# -- databases --------------------------------------------------------------------

#: The PostgreSQL server the tests may use (its database is only where to connect to make their own).
PG_SERVER = os.environ.get("ANOTADOR_TEST_POSTGRES_URL", "postgresql+psycopg://postgres@127.0.0.1:5432/test")
#: The database of this process of this run: made by the first test that needs it, dropped at the end, so
#: two suites (or two workers of one) never touch each other's tables.
PG_DATABASE = f"anotador_test_{RUN}_{WORKER}".lower()
PG_URL = make_url(PG_SERVER).set(database=PG_DATABASE).render_as_string(hide_password=False)


def _tables() -> tuple[str, ...]:
    from anotador.store import models  # noqa: F401 - registers every table
    from anotador.extensions import db

    return tuple(t.name for t in db.metadata.sorted_tables)


TABLES = _tables()


def _maintenance():
    """A connection to the server (autocommit), to make and drop databases: its ``postgres`` database."""
    import psycopg

    url = make_url(PG_SERVER).set(drivername="postgresql", database="postgres")
    return psycopg.connect(url.render_as_string(hide_password=False), connect_timeout=3, autocommit=True)


def pg_reachable() -> bool:
    try:
        _maintenance().close()
        return True
    except Exception:
        return False


def _drop_orphans(conn) -> None:
    """Drop the databases of earlier runs whose process is gone (killed before it could drop its own)."""
    names = [r[0] for r in conn.execute("SELECT datname FROM pg_database WHERE datname LIKE 'anotador_test_%'")]
    for name in names:
        found = re.fullmatch(r"anotador_test_(\d+)_\w+", name)
        if found and not os.path.exists(f"/proc/{found.group(1)}"):
            conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


def dispose(app) -> None:
    """Close the app's database connections (for SQLite: checkpoint the WAL)."""
    from anotador.extensions import db

    with app.app_context():
        db.engine.dispose()
    app.extensions["anotador.heads"].close()


def run_sql(url: str, statement: str) -> None:
    """Run one statement on ``url`` outside any app."""
    import sqlalchemy as sa

    engine = sa.create_engine(url)
    with engine.begin() as conn:
        conn.execute(sa.text(statement))
    engine.dispose()


def migrated_app(url: str, **config):
    """An app on ``url`` with the schema made by the migrations, as in production."""
    from flask_migrate import upgrade

    app = create_app({"TESTING": True, "SQLALCHEMY_DATABASE_URI": url, **config})
    with app.app_context():
        upgrade()
    return app


@pytest.fixture(scope="session")
def sqlite_template(tmp_path_factory):
    path = tmp_path_factory.mktemp("db") / "template.sqlite"
    dispose(migrated_app(f"sqlite:///{path}"))  # the WAL checkpointed into the file we copy
    return path


@pytest.fixture(scope="session")
def postgres_url():
    """This process's own PostgreSQL database, migrated; dropped when the session ends."""
    require(pg_reachable(), f"PostgreSQL is not reachable at {PG_SERVER} (set ANOTADOR_TEST_POSTGRES_URL)")
    with _maintenance() as conn:
        _drop_orphans(conn)
        conn.execute(f'DROP DATABASE IF EXISTS "{PG_DATABASE}" WITH (FORCE)')
        conn.execute(f'CREATE DATABASE "{PG_DATABASE}"')
    dispose(migrated_app(PG_URL))
    yield PG_URL
    with _maintenance() as conn:
        conn.execute(f'DROP DATABASE IF EXISTS "{PG_DATABASE}" WITH (FORCE)')


@pytest.fixture(params=["sqlite", "postgresql"])
def db_url(request, tmp_path, sqlite_template):
    """A freshly migrated, empty database: SQLite, then PostgreSQL."""
    if request.param == "sqlite":
        path = tmp_path / "anotador.sqlite"
        shutil.copyfile(sqlite_template, path)
        return f"sqlite:///{path}"
    url = request.getfixturevalue("postgres_url")
    run_sql(url, f"TRUNCATE {', '.join(TABLES)} RESTART IDENTITY CASCADE")
    return url


@pytest.fixture
def db_app(db_url):
    app = create_app({"TESTING": True, "SQLALCHEMY_DATABASE_URI": db_url})
    yield app
    dispose(app)


@pytest.fixture
def api(db_app):
    """A test client on a migrated database (each test runs on both kinds)."""
    return db_app.test_client()


class Table:
    """A game created through the API, with helpers to play it."""

    def __init__(self, client, body):
        self.client = client
        self.body = body
        self.id = body["id"]
        self.token = body["token"]
        self.auth = {"Authorization": f"Bearer {self.token}"}

    def url(self, suffix=""):
        return f"/api/v1/games/{self.id}{suffix}"

    def get(self):
        r = self.client.get(self.url())
        assert r.status_code == 200, r.get_json()
        return r.get_json()

    def turn(self, player, category=None, dice=None, served=False, scratch=False, expect=201, **extra):
        body = {"player": player, "served": served, **extra}
        if category is not None:
            body["category"] = category
        if dice is not None:
            body["dice"] = dice
        if scratch:
            body["scratch"] = True
        r = self.client.post(self.url("/turns"), json=body, headers=self.auth)
        assert r.status_code == expect, r.get_json()
        return r.get_json()

    def undo(self, expect=200):
        r = self.client.delete(self.url("/turns/last"), headers=self.auth)
        assert r.status_code == expect, r.get_json()
        return r.get_json()

    def correct(self, number, expect=200, **body):
        r = self.client.patch(self.url(f"/turns/{number}"), json=body, headers=self.auth)
        assert r.status_code == expect, r.get_json()
        return r.get_json()


@pytest.fixture
def new_game(api):
    """Factory: ``new_game("generala", ["Ana", "Beto"])`` → a Table."""

    def make(variant="generala", players=("Ana", "Beto"), **extra):
        body = {"players": list(players), **extra}
        if isinstance(variant, dict):
            body["rules"] = variant
        else:
            body["variant"] = variant
        r = api.post("/api/v1/games", json=body)
        assert r.status_code == 201, r.get_json()
        return Table(api, r.get_json())

    return make
