"""Errors as ``application/problem+json`` (RFC 9457), everywhere.

One handler turns every error into a problem document: Werkzeug's HTTP
errors (404, 405, 413, 415, ...), request validation (422 with field-level
``errors``), and anything unexpected (500, logged, never a stack trace).
"""

from __future__ import annotations

import json
from typing import Any, Iterable, Mapping

from flask import Flask, Response, current_app, request
from werkzeug.exceptions import BadRequest, HTTPException, UnsupportedMediaType

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


def problem(status: int, title: str, detail: str, type_: str = "about:blank",
            errors: Mapping[str, list[str]] | None = None, headers: Iterable[tuple[str, str]] = (),
            extensions: Mapping[str, Any] | None = None) -> Response:
    """Return a problem+json response."""
    body: dict[str, Any] = {"type": type_, "title": title, "status": status, "detail": detail}
    if errors is not None:
        body["errors"] = dict(errors)
    if extensions:
        body.update(extensions)
    response = current_app.response_class(json.dumps(body, ensure_ascii=False), status=status, mimetype=PROBLEM)
    for name, value in headers:
        response.headers[name] = value
    return response


def render(exc: Problem) -> Response:
    """Return the response for a Problem."""
    return problem(exc.status, exc.title, exc.detail, exc.type, exc.errors, exc.headers, exc.extensions)


def json_body() -> Any:
    """Return the request body parsed as strict JSON.

    415 unless the content type is JSON, 413 above MAX_CONTENT_LENGTH, 400
    when the bytes are not JSON (NaN and Infinity included: they are not JSON).
    """
    mimetype = request.mimetype or ""
    if not (mimetype == "application/json" or (mimetype.startswith("application/") and mimetype.endswith("+json"))):
        raise UnsupportedMediaType("Send the request body as application/json.")
    raw = request.get_data(cache=True)  # raises 413 past MAX_CONTENT_LENGTH
    try:
        # RFC 8259: JSON exchanged between systems is UTF-8.
        return _decoder.decode(raw.decode("utf-8"))
    except (ValueError, RecursionError) as exc:
        # ValueError covers bad UTF-8 and too-long integers, RecursionError
        # absurd nesting; neither is the client's data, so neither is kept.
        raise BadRequest(f"The request body is not valid JSON: {_short(exc)}") from None


def _no_constant(name: str) -> Any:
    raise ValueError(f"{name} is not valid JSON")


def _number(text: str) -> int | float:
    # JSON has one number type, and JSON Schema (so openapi.yaml) counts 3.0
    # as an integer; read it as one, so a die of 3.0 is 3 and 2.5 stays 2.5.
    value = float(text)
    return int(value) if value.is_integer() else value


# One decoder, made once: json.loads with any keyword builds a new one per call.
_decoder = json.JSONDecoder(parse_constant=_no_constant, parse_float=_number)


def _short(exc: Exception) -> str:
    text = str(exc) or type(exc).__name__
    return text if len(text) <= 200 else text[:200] + "…"


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
