"""Errors as ``application/problem+json`` (RFC 9457), everywhere.

One handler turns every error into a problem document: Werkzeug's HTTP
errors (404, 405, 413, 415, ...), request validation (422 with field-level
``errors``), and anything unexpected (500, logged, never a stack trace).
"""

from __future__ import annotations

import json
import re
from typing import Any, Iterable, Mapping

from flask import Flask, Response, after_this_request, current_app, g, has_request_context, request
from sqlalchemy import event
from sqlalchemy import exc as sa_exc
from werkzeug.exceptions import BadRequest, HTTPException, RequestEntityTooLarge, UnsupportedMediaType

from ..store.database import DatabaseBusy
from ..store.guard import DatabaseDown
from ..extensions import db

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
    return response


def render(exc: Problem) -> Response:
    """Return the response for a Problem."""
    return problem(exc.status, exc.title, exc.detail, exc.type, exc.errors, exc.headers, exc.extensions)


#: Deepest nesting of arrays and objects a body may have. Our deepest request
#: (a two-box turn) nests 4 levels; the cap keeps every Python version's
#: parser out of its recursion limit and answers them all the same.
MAX_DEPTH = 32

_STRINGS = re.compile(r'"(?:[^"\\]|\\.)*"', re.S)
_SURROGATE_ESCAPE = re.compile(r"\\u[dD][89a-fA-F]")
_SURROGATE = re.compile("[\ud800-\udfff]")
_NOT_TEXT = re.compile("[\x00\ud800-\udfff]")


def not_text(value: str) -> bool:
    """Whether a string the client sent holds a NUL or a lone surrogate: text no database column stores."""
    return _NOT_TEXT.search(value) is not None


def read_body() -> bytes:
    """Return the raw request body, refusing (413) one larger than MAX_CONTENT_LENGTH.

    Werkzeug checks Content-Length; a chunked body has none, so the body is
    read up to one byte past the limit, and that byte means 413 too.
    """
    limit = current_app.config.get("MAX_CONTENT_LENGTH")
    environ = request.environ
    length = request.content_length
    if length is not None and limit is not None:
        # The common case, read straight from the server's stream (werkzeug's
        # limited stream costs more than parsing a roll).
        if length > limit:
            raise RequestEntityTooLarge()
        raw = environ["wsgi.input"].read(length)
        if len(raw) < length:  # the client hung up mid-body
            raise BadRequest("The request body ended before its Content-Length.")
        return raw
    if length is not None or limit is None or not environ.get("wsgi.input_terminated"):
        return request.get_data(cache=True)  # raises 413 past the limit
    # A server that ends chunked bodies itself (gunicorn): read the raw
    # stream, since werkzeug's limited one cannot tell "exactly the limit"
    # from "more".
    raw = environ["wsgi.input"].read(limit + 1)
    if len(raw) > limit:
        raise RequestEntityTooLarge()
    return raw


def json_body() -> Any:
    """Return the request body parsed as strict JSON.

    415 unless the content type is JSON, 413 above MAX_CONTENT_LENGTH, 400
    when the bytes are not JSON text a client can mean: not UTF-8, a byte
    order mark, NaN or Infinity, integers of thousands of digits, duplicate
    keys, strings holding a lone UTF-16 surrogate (not text), or nesting
    deeper than MAX_DEPTH.
    """
    mimetype = request.mimetype or ""
    if not (mimetype == "application/json" or (mimetype.startswith("application/") and mimetype.endswith("+json"))):
        raise UnsupportedMediaType("Send the request body as application/json.")
    raw = read_body()
    try:
        # RFC 8259: JSON exchanged between systems is UTF-8.
        text = raw.decode("utf-8")
        if text.startswith("\ufeff"):
            raise ValueError("JSON text must not start with a byte order mark (RFC 8259)")
        if text.count("[") + text.count("{") > MAX_DEPTH:
            _check_depth(text)
        value = _decoder.decode(text)
        if _SURROGATE_ESCAPE.search(text):
            _check_text(value)
        g.json_body = value  # as parsed: what an Idempotency-Key's fingerprint is taken of
    except (ValueError, RecursionError) as exc:
        # ValueError covers bad UTF-8, too-long integers and the checks
        # above; none is the client's data, so none is kept.
        raise BadRequest(f"The request body is not valid JSON: {_short(exc)}") from None
    return value


def _check_depth(text: str) -> None:
    depth = 0
    for ch in _STRINGS.sub("", text):
        if ch in "[{":
            depth += 1
            if depth > MAX_DEPTH:
                raise ValueError(f"arrays and objects nest deeper than {MAX_DEPTH} levels")
        elif ch in "]}":
            depth -= 1


def _check_text(value: Any) -> None:
    """Refuse strings (keys too) holding a lone surrogate: JSON escapes can
    spell one, but it is not a character, and cannot be stored or echoed."""
    stack = [value]
    while stack:
        item = stack.pop()
        if isinstance(item, str):
            if _SURROGATE.search(item):
                raise ValueError("a string holds a lone UTF-16 surrogate escape, which is not text")
        elif isinstance(item, dict):
            stack.extend(item.keys())
            stack.extend(item.values())
        elif isinstance(item, list):
            stack.extend(item)


def _no_constant(name: str) -> Any:
    raise ValueError(f"{name} is not valid JSON")


def _number(text: str) -> int | float:
    # JSON has one number type, and JSON Schema (so openapi.yaml) counts 3.0
    # as an integer; read it as one, so a die of 3.0 is 3 and 2.5 stays 2.5.
    # 1e400 reads as infinity, which no field accepts: the field says so (422).
    value = float(text)
    return int(value) if value.is_integer() else value


def _object(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    obj = dict(pairs)
    if len(obj) != len(pairs):
        seen: set[str] = set()
        dup = next(k for k, _ in pairs if k in seen or seen.add(k))  # type: ignore[func-returns-value]
        raise ValueError(f"the key {_short_text(dup)!r} appears twice in one object")
    return obj


def _short_text(text: str) -> str:
    return text if len(text) <= 40 else text[:40] + "…"


# One decoder, made once: json.loads with any keyword builds a new one per call.
_decoder = json.JSONDecoder(parse_constant=_no_constant, parse_float=_number, object_pairs_hook=_object)


def _short(exc: Exception) -> str:
    text = str(exc) or type(exc).__name__
    return text if len(text) <= 200 else text[:200] + "…"


#: The database did not answer: unreachable, restarting, a killed connection, a lock or statement held past
#: its timeout. The client may retry; the worker is free.
DATABASE_ERRORS = (sa_exc.OperationalError, sa_exc.InterfaceError, sa_exc.TimeoutError, DatabaseBusy, DatabaseDown)


def _logged_and_rolled_back(what: str, exc: Exception) -> None:
    """Say what the database did (one line, no traceback), and end the request's transaction."""
    current_app.logger.warning("%s on %s %s: %s", what, request.method, request.path, _short(exc).splitlines()[0])
    try:
        db.session.rollback()
    except Exception:  # the connection may be gone; the pool replaces it
        pass


def database_unavailable(exc: Exception) -> Response:
    """A 503 problem with Retry-After, for any of :data:`DATABASE_ERRORS`."""
    _logged_and_rolled_back("Database unavailable", exc)
    retry = str(current_app.config.get("RETRY_AFTER", 2))
    return problem(503, "Service Unavailable",
                   "The database did not answer in time; try again in a moment.",
                   TYPE_BASE + "database-unavailable", headers=[("Retry-After", retry)])


def value_refused(exc: Exception) -> Response:
    """A 422 problem for a value the driver or database would not take (a NUL, a number past a column).

    Each route checks what it takes before a query; this is the net under
    those checks, so a value one of them missed is the client's error, not a 500.
    """
    _logged_and_rolled_back("Database refused a value", exc)
    return problem(422, "Unprocessable Content", "The request holds a value this service cannot store or look up.",
                   TYPE_BASE + "value-refused")


def end_session(response: Response) -> Response:
    """End the request's session while a failure can still be answered as a problem (a 503).

    Flask-SQLAlchemy ends it in the app context's teardown, after the
    answer is made and outside every error handler: a rollback that failed
    there (a connection killed mid-request) reached the server, which sent
    an empty 500. Here it becomes :func:`database_unavailable`'s answer; on
    an answer that is already an error, that answer stands. Either way the
    session is gone, so the teardown finds none. Asked for by the request's
    first transaction (:func:`_session_began`), so the many requests that
    open none (a score, a poll) pay nothing; it runs before the app's
    after-request hooks, which then add their headers to whatever it answers.
    """
    if not db.session.registry.has():
        return response
    try:
        db.session.remove()
    except DATABASE_ERRORS as exc:
        if response.status_code < 500:
            response = database_unavailable(exc)
    finally:
        db.session.registry.clear()
    return response


@event.listens_for(db.session, "after_begin")
def _session_began(_session, _transaction, _connection) -> None:
    """A request's session began a transaction: have :func:`end_session` end it (once per request)."""
    if has_request_context() and not g.get("anotador_end_session"):
        g.anotador_end_session = True
        after_this_request(end_session)


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

    for cls in DATABASE_ERRORS:
        app.register_error_handler(cls, database_unavailable)
    app.register_error_handler(sa_exc.DataError, value_refused)

    @app.errorhandler(Exception)
    def handle_unexpected(exc: Exception) -> Response:
        app.logger.exception("Unhandled error on %s %s", request.method, request.path)
        return problem(500, "Internal Server Error", "Something went wrong on our side; the request was not applied.")
