"""Where Anotador leans on another package's internals, and why each use stays.

The rule: other packages are used through their public APIs. Where none
offers what a measured gain needs, the use lives in an adapter like this
one, and ``tests/test_adapters.py`` fails loudly (not silently slower) the
day the package changes; ``tests/test_structure.py`` fails on any private
name imported or reached from a third-party package outside the adapters.

The adapters, and the decision on each private use found in the code:

- :func:`light_teardown` (Flask-SQLAlchemy: its teardown function and its
  scoped session's registry). No public hook says "this request opened no
  session". Kept while ``/score`` needs it to stay above 0.9 x the bare
  echo (docs/speed.md).
- gunicorn's threaded worker is no longer reached into: Anotador is served
  by granian through its documented settings (:mod:`anotador.ops.serving`),
  and the body is read on its event loop by :mod:`anotador.ops.gate`.
- :func:`schema_hooks` (marshmallow: a schema's ``_hooks``).
  :class:`anotador.api.schemas.FastLoader` loads well-formed bodies without
  marshmallow's machinery (a score costs less than marshmallow's load) and
  must refuse a schema whose hooks it would skip; marshmallow lists a
  schema's hooks nowhere public.
- Flask-Compress's choice of encoding (``_choose_algorithm``) is no longer
  called: :class:`anotador.http.compression.Encodings` remembers what the public
  ``Compress.after_request`` chose, which is all :mod:`anotador.api.polls` needs.
- ``Flask.ensure_sync`` (overridden by :class:`anotador.app.Anotador`) is a
  documented public method meant to be overridden; not an internal.
- :class:`PostgresHead` (psycopg's low level: ``pgconn.prepare`` and
  ``exec_prepared``, a ``Transformer`` loading the binary row, and
  ``errors.error_from_result``, which psycopg does not document). The poll
  on PostgreSQL asks for a game's version on every request; psycopg's
  ``execute`` costs about twice the client CPU (docs/speed.md). Kept while
  the poll is below its line on PostgreSQL.
- :func:`positional_parameters` (SQLAlchemy: a compiled statement's
  ``positiontup`` and ``binds``, and each type's ``bind_processor``), for
  :class:`anotador.store.database.DriverStatement`: the SQLite writes made
  inside the write lock go straight to sqlite3 with the values SQLAlchemy
  would have sent (its execute costs more than the driver inside the lock:
  docs/speed.md).
- :func:`shape_data` (reportlab: the glyphs a shaped string carries in
  ``__shapeData__``). A shaped name's width is the sum of its glyphs'
  advances, and only that attribute carries them; without it (an older
  reportlab) the width falls back to ``stringWidth``.
"""

from __future__ import annotations

import contextlib
from typing import TYPE_CHECKING, Any, Callable

if TYPE_CHECKING:  # the printing core uses this module too, without the web half
    from flask import Flask


def light_teardown(app: Flask, db: Any) -> bool:
    """Have Flask-SQLAlchemy's end-of-request teardown run only when some request holds a session.

    Most requests never open one: a score, a poll, a kept game body, the
    page's files. Its teardown still looks up the app context and raises and
    catches a KeyError to find nothing, on every request. Its sessions
    are kept in one dict keyed by app context: when that is empty, this
    request has none to close. Returns whether the teardown was replaced;
    on a Flask-SQLAlchemy that keeps either elsewhere, its own stays (and
    the adapter's test fails).
    """
    funcs = app.teardown_appcontext_funcs
    original = getattr(db, "_teardown_session", None)  # equal to the bound method Flask-SQLAlchemy registered
    sessions = getattr(getattr(db.session, "registry", None), "registry", None)
    if original is None or original not in funcs or not isinstance(sessions, dict):
        return False

    def teardown(exc: BaseException | None) -> None:
        if sessions:
            original(exc)

    funcs[funcs.index(original)] = teardown
    return True


def schema_hooks(schema: Any) -> dict:
    """The processors a marshmallow schema runs around a load (``pre_load``, ``validates``, ...), by hook kind."""
    return getattr(schema, "_hooks")


def positional_parameters(compiled: Any, dialect: Any) -> tuple[tuple[str, ...], tuple[Callable | None, ...], dict]:
    """A statement compiled for a positional driver: its parameters' names in the SQL's order, each one's
    converter (the column type's bind processor, as SQLAlchemy's execute would apply it, or None), and the
    values the statement holds itself, by name."""
    names = tuple(compiled.positiontup or ())
    binds = compiled.binds
    converters = tuple(binds[n].type.dialect_impl(dialect).bind_processor(dialect) for n in names)
    return names, converters, {n: binds[n].value for n in names if not binds[n].required}


class PostgresHead:
    """A psycopg connection in autocommit answering :meth:`head` (a game's version and when it was made) with a
    statement prepared once, run through libpq (which waits without the GIL), its binary row loaded by
    psycopg's own loaders."""

    SQL = b"SELECT version, updated_at FROM games WHERE id = $1"
    NAME = b"anotador_head"

    def __init__(self, target: str, timeout: int, options: str, tcp: dict) -> None:
        import psycopg
        from psycopg.adapt import Transformer
        from psycopg.errors import error_from_result

        self.conn = psycopg.connect(target, autocommit=True, connect_timeout=timeout, options=options, **tcp)
        self.pgconn, self.error_from_result = self.conn.pgconn, error_from_result
        self.command_ok, self.tuples_ok = psycopg.pq.ExecStatus.COMMAND_OK, psycopg.pq.ExecStatus.TUPLES_OK
        try:
            self._check(self.pgconn.prepare(self.NAME, self.SQL), self.command_ok)
        except BaseException:
            self.close()
            raise
        self.rows = Transformer(self.conn)

    def head(self, game_id: str) -> tuple | None:
        result = self.pgconn.exec_prepared(self.NAME, [game_id.encode()], result_format=1)
        self._check(result, self.tuples_ok)
        if not result.ntuples:
            return None
        self.rows.set_pgresult(result)
        return self.rows.load_row(0, tuple)

    def _check(self, result, status) -> None:
        if result.status != status:  # the server's own error, as psycopg would raise it
            raise self.error_from_result(result)

    def fileno(self) -> int:
        return self.conn.fileno()

    def close(self) -> None:
        with contextlib.suppress(Exception):  # a connection that broke has nothing left to close
            self.conn.close()


def shape_data(shaped: str) -> list | None:
    """The glyphs (each with its ``x_advance``) of a string reportlab's ``shapeStr`` shaped, or None."""
    return getattr(shaped, "__shapeData__", None)
