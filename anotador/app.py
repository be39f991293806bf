"""The application factory."""

from __future__ import annotations

import json
import os
from typing import Any, Mapping

import orjson
from flask import Flask, Response, current_app
from flask.json.provider import DefaultJSONProvider
from flask.sessions import SessionInterface
from werkzeug.middleware.proxy_fix import ProxyFix

from . import advisor, config, settings
from .http import cors, errors, headers
from .ops import cli
from .store import database
from .extensions import MIGRATIONS, compress, db, migrate
from .http.headers import RequestIds
from .api.polls import Polls


#: orjson as jsonify writes: a newline after the text, keys that are not strings as json writes them, and
#: dates and dataclasses through Flask's ``default``.
_ORJSON = (orjson.OPT_APPEND_NEWLINE | orjson.OPT_NON_STR_KEYS | orjson.OPT_PASSTHROUGH_DATETIME
           | orjson.OPT_PASSTHROUGH_DATACLASS)


class JSONProvider(DefaultJSONProvider):
    """Flask's JSON, keys in the order made, with the encoders it uses on every answer made once.

    ``json.dumps`` with any argument builds a new encoder on every call: on
    a score, that was the dearest part of writing the answer. Flask's
    ``response`` asks for the compact form (``separators`` only), the views
    for the plain one (no argument); anything else goes to ``json.dumps`` as
    before. Its settings (``ensure_ascii``, ``sort_keys``) are therefore set
    here, on the class.
    """

    sort_keys = False  # keep sheet order and the documented field order
    _COMPACT = {"separators": (",", ":")}

    def __init__(self, app: Flask) -> None:
        super().__init__(app)
        options = {"default": self.default, "ensure_ascii": self.ensure_ascii, "sort_keys": self.sort_keys}
        self._plain = json.JSONEncoder(**options)
        self._compact = json.JSONEncoder(**self._COMPACT, **options)

    def dumps(self, obj: Any, **kwargs: Any) -> str:  # noqa: D102 - Flask's
        if not kwargs:
            return self._plain.encode(obj)
        if kwargs == self._COMPACT:
            return self._compact.encode(obj)
        return super().dumps(obj, **kwargs)

    def response(self, *args: Any, **kwargs: Any) -> Response:  # noqa: D102 - Flask's
        # jsonify's compact answers through orjson (what it buys: docs/speed.md). The same text as json writes,
        # or json writes it: non-ASCII (which orjson cannot
        # escape), what orjson writes otherwise (dates, dataclasses: Flask's ``default`` is asked first) or
        # cannot write (integers past 64 bits).
        app = current_app
        if self.compact is False or (self.compact is None and app.debug) or (args and kwargs):
            return super().response(*args, **kwargs)
        obj = kwargs or (args[0] if len(args) == 1 else list(args) if args else None)
        try:
            data = orjson.dumps(obj, default=self.default, option=_ORJSON)
        except TypeError:  # orjson.JSONEncodeError is one
            data = b""
        if not data.isascii() or not data:
            return super().response(*args, **kwargs)
        return app.response_class(data, mimetype=self.mimetype)


class Anotador(Flask):
    """Flask, with what it checks on every call of a view or hook checked once per function."""

    json_provider_class = JSONProvider
    #: Functions remembered at most: the views, hooks and handlers are a few
    #: dozen; a function made per request (after_this_request) must not grow it.
    SYNC_KEPT = 512

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._sync: dict[Any, Any] = {}

    def ensure_sync(self, func):  # noqa: D102 - Flask's, remembered
        # Flask asks inspect whether each view, hook and teardown is a
        # coroutine function, on every call, three or more a request. The
        # answer never changes for a function (what it buys: docs/speed.md).
        found = self._sync.get(func)
        if found is None:
            found = super().ensure_sync(func)
            if len(self._sync) < self.SYNC_KEPT:
                self._sync[func] = found
        return found


class NoSessions(SessionInterface):
    """Anotador sets no cookie: every request has Flask's null session, made for nothing."""

    def open_session(self, app: Flask, request):  # noqa: D102 - the interface's
        return None

    def save_session(self, app: Flask, session, response) -> None:  # noqa: D102
        return None


def create_app(test_config: Mapping[str, Any] | None = None) -> Flask:
    """Create the app: defaults, then ``ANOTADOR_*`` environment, then ``test_config``."""
    # static_folder=None: the page blueprint serves /static itself. ANOTADOR_HOME: the one folder of what the
    # server keeps (its SQLite file, secret key, advisor's tables), away from a venv that may be made again.
    app = Anotador(__name__, instance_relative_config=True, static_folder=None,
                   instance_path=settings.home(os.environ))
    app.config.from_object(config.Defaults)
    app.config["SQLALCHEMY_DATABASE_URI"] = config.database_url(app.instance_path)
    # ANOTADOR_MAX_CONTENT_LENGTH=65536 and the like: a known setting by its type, any other as JSON.
    app.config.from_prefixed_env("ANOTADOR")
    settings.read_environment(app.config, os.environ)
    if test_config is not None:
        app.config.from_mapping(test_config)
    settings.check(app.config)
    settings.check_driver(app.config["SQLALCHEMY_DATABASE_URI"])
    settings.check_metrics(app.config)
    if not app.config.get("SECRET_KEY"):
        app.config["SECRET_KEY"] = config.secret_key(app.instance_path)
    app.config["SQLALCHEMY_ENGINE_OPTIONS"] = config.engine_options(app.config)
    # The names served; headers.Hosts checks them, since werkzeug's own check (Flask's TRUSTED_HOSTS)
    # cannot match an IPv6 address.
    app.config["SERVED_HOSTS"] = config.hosts(app.config.get("TRUSTED_HOSTS"), app.config.get("LAN_URL"),
                                              int(app.config.get("PROXY_HOPS") or 0))
    app.config["TRUSTED_HOSTS"] = None
    # No cookies, no Flask session: SECRET_KEY keys the hash of client
    # addresses, and must not make every request build a cookie signer.
    app.session_interface = NoSessions()
    app.url_map.strict_slashes = False

    if app.config["SQLALCHEMY_DATABASE_URI"].startswith("sqlite:///"):
        os.makedirs(app.instance_path, exist_ok=True)

    db.init_app(app)
    migrate.init_app(app, db, directory=str(MIGRATIONS))
    database.init_app(app)
    errors.init_app(app)
    # Compression runs inside headers.Secure, only where it can apply (not on a 304);
    # COMPRESS_REGISTER=False (tests) turns it off.
    app.config["COMPRESS_ANSWERS"] = app.config.get("COMPRESS_REGISTER", True)
    app.config["COMPRESS_REGISTER"] = False
    compress.init_app(app)
    cors.init_app(app)  # registered first, so it runs last: after headers.Secure, adding to its Vary
    headers.init_app(app)
    cli.init_app(app)
    advisor.init_app(app)

    from .store import models  # noqa: F401 - the models must be known to migrations

    from .api import init_app as init_api

    init_api(app)

    from . import web

    web.init_app(app)
    if app.config.get("METRICS"):  # once every route is known: requests are counted by route
        from .ops import metrics  # prometheus_client takes a while to import: only when asked for

        metrics.init_app(app)

    # The poll (a 304 for an unchanged game) is answered before Flask: anotador/api/polls.py.
    app.wsgi_app = Polls(app.wsgi_app, app)  # type: ignore[method-assign]
    app.wsgi_app = RequestIds(app.wsgi_app)  # type: ignore[method-assign]
    hops = int(app.config.get("PROXY_HOPS") or 0)
    if hops:
        # Trust exactly this many proxies for the client address, scheme,
        # host and path prefix (X-Forwarded-*); never a header from the client.
        app.wsgi_app = ProxyFix(app.wsgi_app, x_for=hops, x_proto=hops, x_host=hops, x_prefix=hops)  # type: ignore[method-assign]
    return app
