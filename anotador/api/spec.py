"""``/openapi.yaml``: the API contract, served as written."""

from __future__ import annotations

from functools import lru_cache
from pathlib import Path

from flask import Blueprint

from .common import etag_of, fixed

SPEC = Path(__file__).resolve().parents[1] / "openapi.yaml"  # the checkout's ./openapi.yaml links to it

bp = Blueprint("spec", __name__)


@lru_cache(maxsize=1)
def spec_text() -> tuple[str, str]:
    """Return openapi.yaml as text and its ETag (read once: it ships with the code)."""
    text = SPEC.read_text(encoding="utf-8")
    return text, etag_of(text)


@bp.get("/openapi.yaml")
def openapi():
    """Serve the OpenAPI 3.1 description of this API."""
    return fixed(*spec_text(), mimetype="application/yaml")
