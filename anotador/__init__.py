"""Anotador: scoring service and shared score sheet for Generala and its family.

``anotador.rules`` is the pure rules engine; importing it must not import the
web stack, so the factory is imported only when an app is made.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Mapping

if TYPE_CHECKING:  # pragma: no cover
    from flask import Flask


def create_app(test_config: Mapping[str, Any] | None = None) -> "Flask":
    """Create the Flask app (see :func:`anotador.app.create_app`)."""
    from .app import create_app as _create_app

    return _create_app(test_config)
