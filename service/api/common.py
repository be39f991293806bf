"""Helpers shared by the API views: loading requests and resolving rules."""

from __future__ import annotations

import hashlib
import hmac
from typing import Any, Mapping

from flask import Response, current_app, request
from marshmallow import Schema, ValidationError

from ..errors import ValidationProblem, flatten, json_body
from ..schemas import FastLoader
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


def cacheable(response: Response, max_age: int | None = None) -> Response:
    """Add a strong ETag and Cache-Control, answering 304 when it matches."""
    if max_age is None:
        max_age = current_app.config["VARIANTS_MAX_AGE"]
    response.add_etag()
    response.cache_control.public = True
    response.cache_control.max_age = max_age
    return response.make_conditional(request)


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
