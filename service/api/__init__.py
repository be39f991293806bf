"""The JSON API under ``/api/v1``: one blueprint module per resource."""

from __future__ import annotations

from flask import Blueprint, Flask

from . import score, spec, variants


def init_app(app: Flask) -> None:
    """Register every API blueprint."""
    api = Blueprint("api", __name__, url_prefix="/api/v1")
    api.register_blueprint(variants.bp)
    api.register_blueprint(score.bp)
    app.register_blueprint(api)
    app.register_blueprint(spec.bp)
