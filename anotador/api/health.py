"""``/healthz``, ``/readyz`` and ``/metrics``: for load balancers, systemd, uptime checks and Prometheus.

Liveness says the process answers (no database: a database outage must not
get healthy app servers restarted). Readiness says this server can serve:
the database answers within the configured timeouts, with the schema of
this code (``flask db upgrade`` has run).
"""

from __future__ import annotations

from functools import lru_cache

from flask import Blueprint, Response, current_app, jsonify
from sqlalchemy import text
from sqlalchemy.exc import ProgrammingError

from ..http.errors import TYPE_BASE, problem
from ..extensions import MIGRATIONS, db
from ..store.transactions import reading

bp = Blueprint("health", __name__)


@bp.get("/healthz")
def healthz():
    """Alive: the process answers. Never touches the database."""
    return jsonify({"status": "ok"})


@bp.get("/readyz")
def readyz():
    """Ready: the database answers and its schema is this code's (else 503)."""
    with reading():
        try:
            version = db.session.execute(text("SELECT version_num FROM alembic_version")).scalar()
        except ProgrammingError:  # PostgreSQL: no such table yet (SQLite says OperationalError: 503 too)
            version = None
    if version != schema_head():
        return problem(503, "Service Unavailable",
                       f"The database schema is at {version!r}, not {schema_head()!r}: run flask db upgrade.",
                       TYPE_BASE + "not-ready",
                       headers=[("Retry-After", str(current_app.config["RETRY_AFTER"]))])
    return jsonify({"status": "ready", "database": db.engine.dialect.name, "schema": version})


@bp.get("/metrics")
def metrics():
    """Prometheus's text format (:mod:`anotador.ops.metrics`); 404 unless ``ANOTADOR_METRICS`` is on."""
    found = current_app.extensions.get("anotador.metrics")
    if found is None:
        return problem(404, "Not Found", "This server does not serve metrics (ANOTADOR_METRICS turns them on).",
                       TYPE_BASE + "not-found")
    return Response(found.exposition(), content_type=found.content_type, headers={"Cache-Control": "no-store"})


@lru_cache(maxsize=1)
def schema_head() -> str:
    """The newest migration this code ships."""
    from alembic.config import Config
    from alembic.script import ScriptDirectory

    cfg = Config()
    cfg.set_main_option("script_location", str(MIGRATIONS))
    return ScriptDirectory.from_config(cfg).get_current_head()
