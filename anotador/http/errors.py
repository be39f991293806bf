"""Errors as ``application/problem+json`` (RFC 9457), everywhere.

One handler turns every error into a problem document: Werkzeug's HTTP
errors (404, 405, 413, 415, ...), request validation (422 with field-level
``errors``), and anything unexpected (500, logged, never a stack trace).
Domain and database errors answer through the table of
:mod:`anotador.api.problems`; request bodies are read in
:mod:`anotador.http.bodies`.
"""

from __future__ import annotations

import json
from http import HTTPStatus
from typing import Any, Iterable, Mapping

from flask import Flask, Response, current_app, has_request_context, request
from werkzeug.exceptions import HTTPException

from ..locales import CODES, SOURCE
from ..locales.sayings import say

PROBLEM = "application/problem+json"
#: Problem types are tag URIs (RFC 4151): stable identifiers, not links.
TYPE_BASE = "tag:anotador,2026:problem:"


class Problem(Exception):
    """An error the API reports as a problem document."""

    status = 400
    type = "about:blank"
    title = "Bad Request"

    def __init__(self, detail: str, errors: Mapping[str, list[str]] | None = None, status: int | None = None,
                 headers: Iterable[tuple[str, str]] = (), extensions: Mapping[str, Any] | None = None):
        super().__init__(detail)
        self.detail = detail
        self.errors = errors
        self.headers = tuple(headers)
        #: RFC 9457 extension members, beside the standard ones.
        self.extensions = dict(extensions or {})
        if status is not None:
            self.status = status


class ValidationProblem(Problem):
    """A request that is well-formed JSON but semantically wrong (422)."""

    status = 422
    type = TYPE_BASE + "validation-error"
    title = "Invalid request"

    def __init__(self, errors: Mapping[str, list[str]], detail: str | None = None):
        if detail is None:
            fields_ = sorted(errors)
            first = errors[fields_[0]][0] if fields_ else ""
            detail = f"{fields_[0]}: {first}" if len(fields_) == 1 else (
                f"{len(fields_)} fields are invalid: {', '.join(fields_)}."
            )
        super().__init__(detail, errors)


def flatten(messages: Any, prefix: str = "") -> dict[str, list[str]]:
    """Flatten marshmallow's nested messages into ``{"dice.4": [...]}``."""
    out: dict[str, list[str]] = {}
    if isinstance(messages, Mapping):
        for key, value in messages.items():
            if key == "_schema" or (prefix and key in ("key", "value")):
                # marshmallow files whole-object errors under _schema and a
                # dict entry's errors under key/value: report the entry itself.
                path = prefix or "body"
            else:
                path = f"{prefix}.{key}" if prefix else str(key)
            for k, v in flatten(value, path).items():
                out.setdefault(k, []).extend(v)
    elif isinstance(messages, (list, tuple)) and all(isinstance(m, str) for m in messages):
        out[prefix or "body"] = list(messages)
    else:
        out[prefix or "body"] = [str(messages)]
    return out


def spoken() -> str:
    """The language a problem is written in: the request's Accept-Language among those offered, English
    when it names none of them (or only "*")."""
    if not has_request_context():
        return SOURCE
    return request.accept_languages.best_match(CODES) or SOURCE


def problem(status: int, title: str, detail: str, type_: str = "about:blank",
            errors: Mapping[str, list[str]] | None = None, headers: Iterable[tuple[str, str]] = (),
            extensions: Mapping[str, Any] | None = None) -> Response:
    """Return a problem+json response, its title, detail and field messages in the request's language
    (:func:`spoken`); its type stays as it is."""
    lang = spoken()
    if lang != SOURCE:
        title, detail = say(title, lang, "problem.title"), say(detail, lang)
        if errors is not None:
            errors = {field: [say(message, lang) for message in messages] for field, messages in errors.items()}
    body: dict[str, Any] = {"type": type_, "title": title, "status": status, "detail": detail}
    if errors is not None:
        body["errors"] = dict(errors)
    if extensions:
        body.update(extensions)
    text = json.dumps(body, ensure_ascii=False)
    try:
        data = text.encode("utf-8")
    except UnicodeEncodeError:
        # Text the client sent that is not text (a lone surrogate) must not
        # turn an error answer into a 500: escape it, still valid JSON.
        data = json.dumps(body).encode("ascii")
    response = current_app.response_class(data, status=status, mimetype=PROBLEM)
    for name, value in headers:
        response.headers[name] = value
    response.headers["Content-Language"] = lang  # no Vary: no cache keeps a problem (no-store)
    return response


async def send_problem(send, status: int, detail: str, type_: str = "about:blank",
                       headers: Iterable[tuple[bytes, bytes]] = ()) -> None:
    """Send a problem document through an ASGI ``send``, then close: for answers made before (or beside)
    Flask, by the live streams and the request gate."""
    body = json.dumps({"type": type_, "title": HTTPStatus(status).phrase, "status": status,
                       "detail": detail}).encode()
    await send({"type": "http.response.start", "status": status,
                "headers": [(b"content-type", PROBLEM.encode()), (b"content-length", str(len(body)).encode()),
                            *headers, (b"cache-control", b"no-store"), (b"connection", b"close")]})
    await send({"type": "http.response.body", "body": body, "more_body": False})


def render(exc: Problem) -> Response:
    """Return the response for a Problem."""
    return problem(exc.status, exc.title, exc.detail, exc.type, exc.errors, exc.headers, exc.extensions)


def init_app(app: Flask) -> None:
    """Register the one error handler for every error."""

    app.register_error_handler(Problem, render)

    @app.errorhandler(HTTPException)
    def handle_http(exc: HTTPException) -> Response:
        headers = [(k, v) for k, v in exc.get_headers() if k.lower() in ("allow", "retry-after", "www-authenticate")]
        detail = exc.description or exc.name
        if exc.code == 413:
            limit = current_app.config.get("MAX_CONTENT_LENGTH")
            detail = f"The request body is larger than the {limit} bytes this API accepts."
        return problem(exc.code or 500, exc.name, detail, headers=headers)

    @app.errorhandler(Exception)
    def handle_unexpected(exc: Exception) -> Response:
        app.logger.exception("Unhandled error on %s %s", request.method, request.path)
        return problem(500, "Internal Server Error", "Something went wrong on our side; the request was not applied.")
