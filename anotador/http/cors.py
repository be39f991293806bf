"""Cross-origin access (CORS): off unless ``ANOTADOR_CORS_ORIGINS`` lists the web apps allowed to call the API.

Off, a page on another site cannot read any answer (no header says it may).
On, each listed origin (``https://scores.example``, exactly: scheme, host
and port) may call every ``/api/`` endpoint from a browser: reads, and
writes with the write token in ``Authorization`` (no cookie is involved,
so no credentials mode), an ``Idempotency-Key``, ``If-Match`` and
``If-None-Match``; it can read the headers a client needs (``ETag``,
``Location``, ``Retry-After``, the RateLimit fields, ``Idempotent-Replayed``).
A preflight is cached by the browser for two hours.
"""

from __future__ import annotations

from urllib.parse import urlsplit

from flask import Flask, Response, request

from ..config import listed
from ..settings import SettingsError

METHODS = "GET, HEAD, POST, PATCH, DELETE"
ALLOWED_HEADERS = "Authorization, Content-Type, If-Match, If-None-Match, Idempotency-Key"
EXPOSED_HEADERS = "ETag, Location, Retry-After, RateLimit, RateLimit-Policy, Idempotent-Replayed"
#: Seconds a browser may keep a preflight's answer (Chromium keeps two hours at most).
MAX_AGE = 7200


def origins(value) -> frozenset[str]:
    """``CORS_ORIGINS`` as a set of origins; :class:`SettingsError` for anything that is not one."""
    out = set()
    for origin in listed(value):
        parts = urlsplit(origin)
        if parts.scheme not in ("http", "https") or not parts.hostname or parts.path not in ("", "/") or (
                parts.query or parts.fragment or parts.username):
            raise SettingsError(f"ANOTADOR_CORS_ORIGINS must list origins such as https://scores.example, "
                                f"not {origin!r}.")
        out.add(f"{parts.scheme}://{parts.netloc.lower()}")
    return frozenset(out)


class Cors:
    """Adds the CORS headers to the API's answers for the listed origins."""

    def __init__(self, allowed: frozenset[str]) -> None:
        self.allowed = allowed

    def __call__(self, response: Response) -> Response:
        if not request.path.startswith("/api/"):
            return response
        response.vary.add("Origin")  # the answer differs by Origin: shared caches must keep them apart
        origin = request.headers.get("Origin")
        if origin is None or origin.lower() not in self.allowed:
            return response
        response.headers["Access-Control-Allow-Origin"] = origin
        if request.method == "OPTIONS" and "Access-Control-Request-Method" in request.headers:
            response.headers["Access-Control-Allow-Methods"] = METHODS
            response.headers["Access-Control-Allow-Headers"] = ALLOWED_HEADERS
            response.headers["Access-Control-Max-Age"] = str(MAX_AGE)
        else:
            response.headers["Access-Control-Expose-Headers"] = EXPOSED_HEADERS
        return response


def init_app(app: Flask) -> None:
    """With ``CORS_ORIGINS`` set, answer the listed origins (after every other header is set)."""
    allowed = app.extensions["anotador.cors"] = origins(app.config.get("CORS_ORIGINS"))
    if allowed:
        app.after_request(Cors(allowed))
