"""The adapters (anotador/support/adapters.py, anotador/ops/serving.py) still fit the packages they lean on.

Each test here fails, loudly, the day a new release of Flask-SQLAlchemy,
marshmallow or gunicorn moves what an adapter uses: the adapter must then be
brought up to date (or dropped) before that release is allowed in.
"""

from __future__ import annotations

import inspect

from marshmallow import Schema, fields, pre_load, validates
from marshmallow.decorators import PRE_LOAD, VALIDATES

from anotador import create_app
from anotador.support import adapters
from anotador.extensions import db


def test_flask_sqlalchemy_teardown_is_replaced_by_the_light_one(tmp_path):
    app = create_app({"TESTING": True, "SQLALCHEMY_DATABASE_URI": f"sqlite:///{tmp_path / 'a.sqlite'}"})
    # Flask-SQLAlchemy's own teardown was found and swapped, not kept beside or instead of ours
    assert db._teardown_session not in app.teardown_appcontext_funcs
    assert isinstance(db.session.registry.registry, dict)
    assert any(f.__qualname__.startswith("light_teardown") for f in app.teardown_appcontext_funcs)
    # a second app: the adapter reports whether it applied
    other = create_app({"TESTING": True, "SQLALCHEMY_DATABASE_URI": f"sqlite:///{tmp_path / 'b.sqlite'}"})
    assert adapters.light_teardown(other, db) is False  # already replaced on this app


def test_marshmallow_hooks_are_seen():
    class Hooked(Schema):
        n = fields.Integer()

        @pre_load
        def strip(self, data, **kwargs):
            return data

        @validates("n")
        def check(self, value, **kwargs):
            pass

    class Plain(Schema):
        n = fields.Integer()

    hooks = adapters.schema_hooks(Hooked())
    assert hooks.get(PRE_LOAD) and hooks.get(VALIDATES)
    assert not any(adapters.schema_hooks(Plain()).values())


def _params(func) -> list[str]:
    return list(inspect.signature(func).parameters)


def test_gunicorn_threaded_worker_has_what_the_buffering_worker_uses():
    from gunicorn.http.unreader import Unreader
    from gunicorn.workers import gthread

    from anotador.ops.serving import BufferingWorker

    assert issubclass(BufferingWorker, gthread.ThreadWorker)
    worker = gthread.ThreadWorker
    # the methods it overrides or calls, with the arguments it passes
    assert _params(worker.accept) == ["self", "listener"]
    assert _params(worker.on_client_socket_readable) == ["self", "conn", "client"]
    assert _params(worker.finish_request) == ["self", "conn", "fs"]
    assert _params(worker.enqueue_req) == ["self", "conn"]
    assert _params(worker.set_accept_enabled) == ["self", "enabled"]
    for name in ("init_process", "murder_pending", "is_parent_alive"):
        assert _params(getattr(worker, name)) == ["self"], name
    # the attributes a worker sets up in __init__ / init_process
    source = inspect.getsource(worker.__init__) + inspect.getsource(worker.init_process)
    for attribute in ("self.poller", "self.keepalived_conns", "self.nr_conns", "self.worker_connections"):
        assert attribute in source, attribute
    # a graceful stop turns accepting off after the loop, with alive already False: the backlog is drained then
    assert "self.set_accept_enabled(False)" in inspect.getsource(worker.run).split("while self.alive:", 1)[1]
    # a connection, and the marker of a connection handed back to the loop
    assert _params(gthread.TConn.__init__) == ["self", "cfg", "sock", "client", "server"]
    assert callable(gthread.TConn.init) and callable(gthread.TConn.close)
    assert "self.data_ready" in inspect.getsource(gthread.TConn.__init__)
    # the marker a handled connection hands back to the loop, and the one finish_request looks for
    assert "return _DEFER" in inspect.getsource(worker.handle)
    assert "_DEFER" in inspect.getsource(worker.finish_request) and gthread._DEFER is not None
    assert _params(Unreader.unread) == ["self", "data"] and _params(Unreader.take_buffered) == ["self"]


def test_gunicorn_error_page_is_still_the_one_rewritten_as_a_problem():
    """handle_error writes util.write_error's page to the socket it is given; problem_page reads that page."""
    import json
    import socket

    from gunicorn import util
    from gunicorn.workers import base

    from anotador.ops.serving import _ProblemSocket

    assert _params(base.Worker.handle_error) == ["self", "req", "client", "addr", "exc"]
    assert "util.write_error(client," in inspect.getsource(base.Worker.handle_error)
    ours, theirs = socket.socketpair()
    with ours, theirs:
        util.write_error(_ProblemSocket(ours), 431, "Request Header Fields Too Large", "Error parsing <headers>")
        ours.shutdown(socket.SHUT_WR)
        head, _, body = theirs.recv(65536).partition(b"\r\n\r\n")
    assert head.startswith(b"HTTP/1.1 431 ") and b"Content-Type: application/problem+json" in head
    assert json.loads(body)["detail"].endswith("Error parsing <headers>")
