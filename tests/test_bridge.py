"""Flask served from the event loop (anotador/ops/bridge.py) and the body read before it (anotador/ops/gate.py),
called as an ASGI server calls them; tests/test_live_server.py and tests/test_serving_slow.py serve them for real."""

from __future__ import annotations

import asyncio
import json
import logging
from concurrent.futures import ThreadPoolExecutor

import pytest
from flask import Flask, request
from werkzeug.wrappers import Request

from anotador.ops import gate
from anotador.ops.bridge import Bridge, environ_of


def scope_of(path="/", method="GET", headers=(), query=b"", root=""):
    return {"type": "http", "method": method, "path": path, "raw_path": path.encode(), "root_path": root,
            "query_string": query, "headers": [(k.encode(), v.encode()) for k, v in headers],
            "http_version": "1.1", "scheme": "http", "server": ("127.0.0.1", 8000), "client": ("10.0.0.7", 51234)}


def run(coroutine):
    """``asyncio.run`` in a thread of its own: a browser test's session may hold a loop in this one."""
    with ThreadPoolExecutor(1) as pool:
        return pool.submit(asyncio.run, coroutine).result()


def served(bridge: Bridge, scope: dict, body: bytes = b"") -> tuple[int, dict, bytes]:
    sent: list[dict] = []

    async def send(message):
        sent.append(message)

    run(bridge(scope, body, send))
    assert [m["type"] for m in sent] == ["http.response.start", "http.response.body"]
    headers = {k.decode(): v.decode("latin-1") for k, v in sent[0]["headers"]}
    return sent[0]["status"], headers, sent[1]["body"]


def test_the_environ_reads_as_werkzeug_reads_a_servers():
    body = "{\"nombre\": \"Ñandú\"}".encode()
    scope = scope_of("/anotador/api/v1/games/Ñandú", "POST", root="/anotador", query=b"a=1&b=%C3%B1",
                     headers=[("content-type", "application/json"), ("content-length", "999"),
                              ("transfer-encoding", "chunked"), ("accept", "text/html"), ("accept", "*/*"),
                              ("cookie", "a=1"), ("cookie", "b=2"), ("x-request-id", "abc")])
    environ = environ_of(scope, body)
    read = Request(environ)
    assert read.path == "/api/v1/games/Ñandú" and read.script_root == "/anotador"
    assert read.args.to_dict() == {"a": "1", "b": "ñ"}
    assert read.get_data() == body and read.content_length == len(body)  # the length read, not the one announced
    assert "HTTP_TRANSFER_ENCODING" not in environ
    assert read.headers["Accept"] == "text/html,*/*" and read.cookies.to_dict() == {"a": "1", "b": "2"}
    assert read.mimetype == "application/json" and read.headers["X-Request-ID"] == "abc"
    assert read.remote_addr == "10.0.0.7" and read.host == "127.0.0.1:8000"
    assert environ["wsgi.multithread"] and environ["SERVER_PROTOCOL"] == "HTTP/1.1"


def test_a_get_has_no_length_and_an_empty_post_has_zero():
    assert "CONTENT_LENGTH" not in environ_of(scope_of("/"), b"")
    assert environ_of(scope_of("/", "POST"), b"")["CONTENT_LENGTH"] == "0"


def test_flask_answers_through_the_bridge():
    app = Flask(__name__)

    @app.post("/echo/<name>")
    def echo(name):
        return {"name": name, "got": request.get_json(), "args": request.args.to_dict()}, 201, {"X-Mine": "sí"}

    bridge = Bridge(app, 2)
    status, headers, body = served(bridge, scope_of("/echo/Łódź", "POST", query=b"n=2",
                                                    headers=[("content-type", "application/json")]), b"[1,2]")
    assert status == 201 and headers["x-mine"] == "sí"  # latin-1, as HTTP carries it
    assert json.loads(body) == {"name": "Łódź", "got": [1, 2], "args": {"n": "2"}}
    status, headers, body = served(bridge, scope_of("/echo/x", "HEAD"))
    assert status == 405 and body == b""  # HEAD of a POST-only route: werkzeug's answer, without its body
    bridge.close()


def test_what_a_wsgi_app_writes_and_yields_is_sent_whole_and_its_iterable_closed():
    closed = []

    class Answer:
        def __iter__(self):
            yield b"dos "
            yield b"tres"

        def close(self):
            closed.append(True)

    def app(environ, start_response):
        write = start_response("200 OK", [("Content-Type", "text/plain")])
        write(b"uno ")
        return Answer()

    status, headers, body = served(Bridge(app, 1), scope_of("/"))
    assert (status, headers["content-type"], body, closed) == (200, "text/plain", b"uno dos tres", [True])


def test_an_app_that_fails_costs_a_problem_and_a_log_line_not_the_server():
    def app(environ, start_response):
        raise ZeroDivisionError("inside")

    lines: list[logging.LogRecord] = []
    handler = logging.Handler()
    handler.emit = lines.append
    log = logging.getLogger("anotador.ops.bridge")
    log.addHandler(handler)
    try:
        status, headers, body = served(Bridge(app, 1), scope_of("/roto"))
    finally:
        log.removeHandler(handler)
    assert status == 500 and headers["content-type"] == "application/problem+json"
    assert "inside" not in body.decode() and json.loads(body)["status"] == 500
    assert [r.getMessage() for r in lines] == ["the app failed to answer GET /roto"]
    assert lines[0].exc_info[0] is ZeroDivisionError


def test_each_request_runs_in_a_context_of_its_own():
    import contextvars
    seen = contextvars.ContextVar("seen", default="nothing")
    saw = []

    def app(environ, start_response):
        saw.append(seen.get())
        seen.set(environ["PATH_INFO"])
        start_response("204 No Content", [])
        return []

    bridge = Bridge(app, 1)  # one thread: both requests run in it
    served(bridge, scope_of("/first"))
    served(bridge, scope_of("/second"))
    assert saw == ["nothing", "nothing"]


def receiving(*messages, pause: float = 0.0):
    calls = []

    async def receive():
        calls.append(1)
        if len(calls) > len(messages):
            await asyncio.sleep(3600)
        if pause:
            await asyncio.sleep(pause)
        return messages[len(calls) - 1]
    return receive, calls


def test_a_request_that_announces_no_body_is_not_read():
    receive, calls = receiving()
    assert run(gate.whole(scope_of("/"), receive, 100, 1)) == b"" and calls == []


def test_a_chunked_body_is_read_whole_and_a_long_one_one_byte_past_the_limit():
    chunked = scope_of("/", "POST", headers=[("transfer-encoding", "chunked")])
    parts = [{"type": "http.request", "body": b"ab", "more_body": True},
             {"type": "http.request", "body": b"cd", "more_body": True},
             {"type": "http.request", "body": b"e", "more_body": False}]
    receive, _ = receiving(*parts)
    assert run(gate.whole(chunked, receive, 100, 1)) == b"abcde"
    receive, calls = receiving(*parts)
    assert run(gate.whole(chunked, receive, 3, 1)) == b"abcd" and len(calls) == 2


@pytest.mark.parametrize("why", ["slow", "gone"])
def test_a_body_too_slow_or_abandoned_is_none(why):
    scope = scope_of("/", "POST", headers=[("content-length", "4")])
    if why == "slow":
        receive, _ = receiving({"type": "http.request", "body": b"ab", "more_body": True})
    else:
        receive, _ = receiving({"type": "http.request", "body": b"ab", "more_body": True},
                               {"type": "http.disconnect"})
    assert run(gate.whole(scope, receive, 100, 0.2)) is None
