"""``/openapi.yaml``: the API contract, served as written."""

from __future__ import annotations

from functools import lru_cache
from pathlib import Path

from flask import Blueprint, Response

from .common import cacheable

SPEC = Path(__file__).resolve().parents[2] / "openapi.yaml"

bp = Blueprint("spec", __name__)


@lru_cache(maxsize=1)
def spec_text() -> str:
    """Return openapi.yaml as text (read once: it ships with the code)."""
    return SPEC.read_text(encoding="utf-8")


@bp.get("/openapi.yaml")
def openapi():
    """Serve the OpenAPI 3.1 description of this API."""
    return cacheable(Response(spec_text(), mimetype="application/yaml"))
