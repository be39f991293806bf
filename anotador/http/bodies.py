"""Request bodies: strict JSON, within the size limit, text a client can mean.

Every view that takes a body reads it here (through
:func:`anotador.api.common.load`): 415 unless it is JSON, 413 past
``MAX_CONTENT_LENGTH``, 400 for bytes that are not JSON text.
"""

from __future__ import annotations

import json
import re
from typing import Any

from flask import current_app, g, request
from werkzeug.exceptions import BadRequest, RequestEntityTooLarge, UnsupportedMediaType

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
    # A WSGI server that ends chunked bodies itself (wsgi.input_terminated): read the raw
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
        raise BadRequest(f"The request body is not valid JSON: {short(exc)}") from None
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


def short(exc: Exception) -> str:
    """An exception's text, cut to 200 characters: what an answer or a log line quotes."""
    text = str(exc) or type(exc).__name__
    return text if len(text) <= 200 else text[:200] + "…"
