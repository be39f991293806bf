"""Headers every response gets: no sniffing, no framing, no caching by default.

Each view sets what it means (an ETag and Cache-Control where a response may
be cached and revalidated: variants, the spec, static files, game reads);
whatever a response does not say here is the safe choice.
"""

from __future__ import annotations

import re
import secrets

from typing import NamedTuple

from flask import Flask, Response, current_app, g, request
from werkzeug.sansio.utils import host_is_trusted

from .compression import Encodings, Quick
from .errors import Problem
from ..extensions import compress

#: Data, never a document: nothing in it may load, run or be framed.
API_CSP = "default-src 'none'; frame-ancestors 'none'; base-uri 'none'; form-action 'none'"


class Secure:
    """Compress what is worth it, then add the headers that fit each response, keeping any the view set.

    One hook for both, and header names looked at once: werkzeug answers a
    missing header by raising an exception, which on a 304 costs more than the
    rest of the answer. Made once per app, with what it needs of the app's
    settings: every answer passes here.
    """

    def __init__(self, app: Flask) -> None:
        on = app.config.get("COMPRESS_ANSWERS", True)
        #: The types compressed (none with compression off).
        self.compressible = frozenset(app.config["COMPRESS_MIMETYPES"]) if on else frozenset()
        #: Flask-Compress declines shorter answers.
        self.min_size = int(app.config["COMPRESS_MIN_SIZE"])
        #: What it chose for each Accept-Encoding, for anotador.api.polls.
        self.encodings = app.extensions["anotador.encodings"] = Encodings()
        self.quick = Quick(app.config)

    def __call__(self, response: Response) -> Response:
        mimetype = response.mimetype or ""
        compressible = mimetype in self.compressible
        have = {name.lower() for name in response.headers.keys()}
        if compressible and 200 <= response.status_code < 300 and not self._too_short(response, have) \
                and (accept := request.environ.get("HTTP_ACCEPT_ENCODING")):
            eligible = "content-encoding" not in have and not response.is_streamed
            chosen = self.encodings.chosen.get(accept)
            if eligible and chosen in Quick.ENCODINGS and request.method not in ("GET", "HEAD") \
                    and "etag" not in have and "last-modified" not in have and not g.get("compress_key"):
                # an answer for this request alone: Flask-Compress's choice for this client, made quickly
                response.direct_passthrough = False
                response.set_data(self.quick(chosen, response.get_data()))  # and its Content-Length
                response.headers["Content-Encoding"] = chosen
                vary = response.headers.get("Vary", "")
                if "accept-encoding" not in vary.lower():  # as Flask-Compress says it
                    response.headers["Vary"] = f"{vary}, Accept-Encoding" if vary else "Accept-Encoding"
                have |= {"content-encoding", "vary"}
            else:
                response = compress.after_request(response)
                have = {name.lower() for name in response.headers.keys()}
                if eligible:  # nothing else could make it decline: its choice, or that it chose none
                    self.encodings.saw(accept, response.headers.get("Content-Encoding"))
        add = response.headers.add
        if "x-content-type-options" not in have:
            add("X-Content-Type-Options", "nosniff")
        stored = "cache-control" in have  # the view says how a cache may keep it
        if not stored:
            # An answer to a write, a score, an error: never stored by a cache.
            add("Cache-Control", "no-store")
        if compressible and stored and "vary" not in have:
            # What a cache must key this answer by; one that no cache stores needs no key.
            add("Vary", "Accept-Encoding")
        if (mimetype.endswith("json") or mimetype == "application/yaml") and "content-security-policy" not in have:
            add("Content-Security-Policy", API_CSP)
        if mimetype in ("text/html", "application/pdf") and response.status_code != 304:
            # A document: it may be framed, and the requests it makes (links,
            # its own files) would tell where it came from. Data does neither,
            # and every header costs each answer a few us on the server and on
            # the client. (A 304 has no body, and no type of its own: the
            # headers of the answer the client kept still apply.)
            if "x-frame-options" not in have:
                add("X-Frame-Options", "DENY")
            if "referrer-policy" not in have:
                add("Referrer-Policy", "no-referrer")
        return response

    def _too_short(self, response: Response, have: set[str]) -> bool:
        """Whether the answer's length is known and below COMPRESS_MIN_SIZE, so Flask-Compress would decline it.

        A score, a turn's answer, most errors: a few hundred bytes. Asking
        Flask-Compress costs a request its look-up, to be told no and be given a
        ``Vary`` no cache needs (a ``no-store`` answer) or that :class:`Secure`
        adds anyway (a cacheable one).
        """
        length = response.content_length if "content-length" in have else None
        return length is not None and length < self.min_size


class Hosts:
    """The Host names served (``TRUSTED_HOSTS``, made a list by :func:`anotador.config.hosts`; None: any).

    Checked here rather than by werkzeug's ``host_is_trusted``, which cuts an
    IPv6 entry such as ``[::1]`` at its first colon and so never matches it.
    A name starting with a dot also matches its subdomains.
    """

    def __init__(self, names: list[str] | None) -> None:
        self.names = None if names is None else tuple(n.lower() for n in names)

    def allow(self, host: str | None) -> bool:
        """Whether a ``Host`` header (``name[:port]``) names this service."""
        if self.names is None:
            return True
        if not host or not host_is_trusted(host):  # characters and port checked: no match for junk
            return False
        host = host.lower()
        name = host[:host.index("]") + 1] if host.startswith("[") and "]" in host else host.partition(":")[0]
        return any(name == n or (n.startswith(".") and (name.endswith(n) or name == n[1:])) for n in self.names)


def check_host() -> None:
    """Refuse a Host that is not served (400) before a view can reflect it in a link."""
    host = request.headers.get("Host") or request.environ.get("SERVER_NAME")
    if not current_app.extensions["anotador.hosts"].allow(host):
        host = (host or "")[:100]
        raise Problem(f"This server does not answer to the host name {host!r}. Open it under one of its "
                      "own names; an operator adds names with ANOTADOR_TRUSTED_HOSTS (SECURITY.md).",
                      extensions={"host": host})


def init_app(app: Flask) -> None:
    """Apply :class:`Secure` to every response, errors included; check the Host against TRUSTED_HOSTS.

    After the compression settings are final (``COMPRESS_ANSWERS``).
    """
    hosts = app.extensions["anotador.hosts"] = Hosts(app.config.get("SERVED_HOSTS"))
    if hosts.names is not None:
        app.before_request(check_host)
    app.after_request(Secure(app))


class Quota(NamedTuple):
    """A client's share of one limit, as the IETF httpapi draft's ``RateLimit-Policy`` and ``RateLimit`` say it."""

    policy: str     # the limit's name
    limit: int      # requests allowed in a window (q)
    window: int     # the window, in seconds (w)
    remaining: int  # left in this window (r)
    reset: int      # seconds until the window frees one again (t)

    def headers(self) -> list[tuple[str, str]]:
        return [("RateLimit-Policy", f'"{self.policy}";q={self.limit};w={self.window}'),
                ("RateLimit", f'"{self.policy}";r={self.remaining};t={self.reset}')]


#: A request id taken as sent (by nginx's ``$request_id``, or a client): short, and safe in a log line.
REQUEST_ID = re.compile(r"[A-Za-z0-9._:-]{1,128}")


class RequestIds:
    """Every answer carries ``X-Request-ID``: the one the request came with, or a new one, so an access log
    line, the client's report and the proxy's log name the same request. The outermost layer of the app (the
    poll's fast path included); the access log writes it (anotador/ops/gate.py)."""

    def __init__(self, app) -> None:
        self.app = app

    def __call__(self, environ: dict, start_response):
        sent = environ.get("HTTP_X_REQUEST_ID")
        rid = sent if sent and REQUEST_ID.fullmatch(sent) else secrets.token_hex(8)
        environ["HTTP_X_REQUEST_ID"] = rid

        def respond(status, headers, exc_info=None):
            headers.append(("X-Request-ID", rid))
            return start_response(status, headers, exc_info)

        return self.app(environ, respond)
