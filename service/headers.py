"""Headers every response gets: no sniffing, no framing, no caching by default.

Each view sets what it means (an ETag and Cache-Control where a response may
be cached and revalidated: variants, the spec, static files, game reads);
whatever a response does not say here is the safe choice.
"""

from __future__ import annotations

from flask import Flask, Response, current_app, request

#: Data, never a document: nothing in it may load, run or be framed.
API_CSP = "default-src 'none'; frame-ancestors 'none'; base-uri 'none'; form-action 'none'"


def secure(response: Response) -> Response:
    """Add the headers that fit this response, keeping any the view set."""
    headers = response.headers
    headers.setdefault("X-Content-Type-Options", "nosniff")
    headers.setdefault("Referrer-Policy", "no-referrer")
    if "Cache-Control" not in headers:
        # An answer to a write, a score, an error: never stored by a cache.
        headers["Cache-Control"] = "no-store"
    mimetype = response.mimetype or ""
    if mimetype.endswith("json") or mimetype == "application/yaml":
        headers.setdefault("Content-Security-Policy", API_CSP)
    if mimetype in ("text/html", "application/pdf"):
        headers.setdefault("X-Frame-Options", "DENY")
    return response


def check_host() -> None:
    """With TRUSTED_HOSTS set, refuse any other Host (400) before a view can reflect it."""
    if current_app.config.get("TRUSTED_HOSTS"):
        request.host  # noqa: B018 - werkzeug raises SecurityError (400) for an untrusted host


def init_app(app: Flask) -> None:
    """Apply :func:`secure` to every response, errors included, and check the Host."""
    app.before_request(check_host)
    app.after_request(secure)
