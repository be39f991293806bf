"""The JSON API under ``/api/v1``: one blueprint module per resource."""

from __future__ import annotations

from flask import Blueprint, Flask

from . import games as games_api
from . import advice, chances, health, pdfs, problems, score, sessions, spec, tables, variants


def init_app(app: Flask) -> None:
    """Register every API blueprint, turn domain and database errors into problems (:mod:`.problems`), and
    end each request's database session while its failure can still be answered (:mod:`.sessions`)."""
    api = Blueprint("api", __name__, url_prefix="/api/v1")
    api.register_blueprint(variants.bp)
    api.register_blueprint(score.bp)
    api.register_blueprint(games_api.bp)
    api.register_blueprint(pdfs.bp)
    api.register_blueprint(advice.bp)
    api.register_blueprint(chances.bp)
    api.register_blueprint(tables.bp)
    app.register_blueprint(api)
    app.register_blueprint(spec.bp)
    app.register_blueprint(health.bp)
    problems.init_app(app)
    sessions.init_app(app)
