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
"""

from __future__ import annotations

from typing import Any

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
