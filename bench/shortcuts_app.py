"""The service with some of its speed-ups turned off, for bench/shortcuts.py: ``BENCH_WITHOUT=orjson,polls``.

Each is undone here the way the plain framework would do the job, so the
bench measures what the speed-up buys against what it replaces:

- ``orjson``: Flask's own JSON provider (json's encoder, made per call);
- ``ensure_sync``: Flask's ``ensure_sync``, which asks ``inspect`` each time;
- ``sessions``: Flask's cookie sessions instead of ``NoSessions``;
- ``fastloader``: marshmallow's ``schema.load`` for every body;
- ``polls``: the poll answered by the Flask view, not before Flask;
- ``kept``: a game's state replayed from its entries on every write.
"""

from __future__ import annotations

import os
import sys

from flask import Flask
from flask.json.provider import DefaultJSONProvider
from flask.sessions import SecureCookieSessionInterface

import anotador.app
from anotador.sheets import state
from anotador import create_app
from anotador.api.polls import Polls
from anotador.api.schemas import FastLoader

WITHOUT = set(filter(None, os.environ.get("BENCH_WITHOUT", "").split(",")))
KNOWN = {"orjson", "ensure_sync", "sessions", "fastloader", "polls", "kept"}
assert WITHOUT <= KNOWN, WITHOUT - KNOWN

if "ensure_sync" in WITHOUT:
    anotador.app.Anotador.ensure_sync = Flask.ensure_sync  # type: ignore[method-assign]
if "fastloader" in WITHOUT:
    FastLoader._fast = lambda self, data: None  # type: ignore[method-assign]
if "kept" in WITHOUT:  # in every write module that keeps its new state
    kept = state.keep
    for module in list(sys.modules.values()):
        if module.__name__.startswith("anotador.sheets.") and getattr(module, "keep", None) is kept:
            module.keep = lambda game, new: None

app = create_app()

if "orjson" in WITHOUT:
    app.json = DefaultJSONProvider(app)
    app.json.sort_keys = False  # as the service's: the same text, by json's encoder
if "sessions" in WITHOUT:
    app.session_interface = SecureCookieSessionInterface()
if "polls" in WITHOUT:
    layer = app.wsgi_app
    while not isinstance(getattr(layer, "app", None), Polls):
        layer = layer.app
    layer.app = layer.app.app  # the layer around Polls calls what Polls wrapped
