"""Helpers shared by the API views: loading requests and resolving rules."""

from __future__ import annotations

import hashlib
import hmac
import re
from typing import Any, Mapping

from flask import Response, current_app, g, request
from marshmallow import Schema, ValidationError

from ..http.bodies import json_body, not_text
from ..http.errors import ValidationProblem, flatten
from .schemas import FastLoader
from ..rules import RuleSet, RulesError, build_rules, find_variant


def load(schema: Schema | FastLoader) -> dict[str, Any]:
    """Parse the JSON body and load it with ``schema``, or raise a 422 problem."""
    body = json_body()
    try:
        return schema.load(body)
    except ValidationError as exc:
        raise ValidationProblem(flatten(exc.messages)) from None


def rules_error(exc: RulesError, prefix: str = "") -> ValidationProblem:
    """Return the 422 problem for a rules error, its field under ``prefix``."""
    field = exc.field or ""
    path = ".".join(p for p in (prefix, field) if p) or "body"
    return ValidationProblem({path: [exc.message]}, detail=exc.message)


def resolve_rules(data: Mapping[str, Any]) -> RuleSet:
    """Return the rule set a request names: ``variant`` or house ``rules`` (exactly one)."""
    if ("variant" in data) == ("rules" in data):
        raise ValidationProblem({"variant": ["Send exactly one of variant (a built-in id) or rules (house rules)."]})
    try:
        if "variant" in data:
            return find_variant(data["variant"]).rules()
        return build_rules(data["rules"])
    except RulesError as exc:
        raise rules_error(exc, "" if "variant" in data else "rules") from None


#: The suffix Flask-Compress gives a strong ETag of a compressed answer
#: ("5" → "5:gzip"): the same representation, in another encoding.
_ENCODED = re.compile(r":(?:gzip|br|zstd|deflate)$")


def tags_sent(tags, weak: bool) -> set[str] | None:
    """The ETags an If-Match (strong) or If-None-Match (weak) header names, encodings aside; "*" for any."""
    if not tags:
        return None
    if tags.star_tag:
        return {"*"}
    # A quoted "*" is an entity tag like any other (no answer of ours has it), not the wildcard.
    return {_ENCODED.sub("", tag) for tag in tags.as_set(include_weak=weak) if tag and tag != "*"}


def fixed(text: str | bytes, tag: str, mimetype: str, cache_control: str | None = None) -> Response:
    """An answer whose text and ETag are already made: 304 when the client has it, else the text.

    Nothing is built or hashed per request: callers keep ``text`` and ``tag``.
    ``cache_control`` by default lets caches keep it ``VARIANTS_MAX_AGE`` seconds.
    """
    seen = tags_sent(request.if_none_match, weak=True)
    response = Response(status=304) if seen and (tag in seen or "*" in seen) else \
        current_app.response_class(text, mimetype=mimetype)
    response.headers["ETag"] = f'"{tag}"'
    response.headers["Cache-Control"] = cache_control or f"public, max-age={current_app.config['VARIANTS_MAX_AGE']}"
    g.compress_key = "fixed:" + tag  # its compressed forms are kept too
    return response


def etag_of(text: str | bytes) -> str:
    """A strong ETag for a text: its digest."""
    data = text.encode("utf-8") if isinstance(text, str) else text
    return hashlib.sha256(data).hexdigest()[:32]


def client_key() -> str:
    """A keyed hash of the client's address: enough to count its requests, not to find it.

    The address is werkzeug's ``remote_addr``: the peer, or with
    ``ANOTADOR_PROXY_HOPS`` the client the trusted proxies name.
    """
    address = (request.remote_addr or "").encode("utf-8", "replace")
    key = current_app.config["SECRET_KEY"].encode("utf-8")
    return hmac.new(key, address, hashlib.sha256).hexdigest()[:32]


LOOPBACK = ("127.0.0.1", "localhost", "::1", "[::1]")


def public_url() -> str:
    """The root URL other phones should open, ending in "/".

    Behind a trusted proxy this is the public scheme, host and path prefix
    (ProxyFix has applied them). A game started on the serving machine
    itself (127.0.0.1) would share a link to the phone's own loopback, so
    with ``LAN_URL`` set (``scripts/serve --lan``) that address is used.
    """
    lan = current_app.config.get("LAN_URL")
    if lan and request.host.rsplit(":", 1)[0] in LOOPBACK:
        return lan.rstrip("/") + request.script_root + "/"
    return request.url_root


def bearer() -> str | None:
    """The token of ``Authorization: Bearer <token>``, or None."""
    scheme, _, token = request.headers.get("Authorization", "").partition(" ")
    return token.strip() or None if scheme.lower() == "bearer" else None


def query(schema: Schema) -> dict[str, Any]:
    """Load the query string with ``schema`` (repeated keys are lists)."""
    raw: dict[str, Any] = {}
    for key in request.args:
        values = request.args.getlist(key)
        if any(not_text(v) for v in values):  # a driver cannot bind these; no id or name holds them
            raise ValidationProblem({key: ["Holds a NUL or a lone surrogate, which no value here can."]})
        raw[key] = values if key == "names" else values[-1]
    try:
        return schema.load(raw)
    except ValidationError as exc:
        raise ValidationProblem(flatten(exc.messages)) from None


#: Decimals of every figure an answer gives.
DIGITS = 6


def rounded(x: float) -> float:
    """A figure as every answer gives it (:data:`DIGITS` decimals)."""
    return round(x, DIGITS)
