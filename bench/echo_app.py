"""Baseline for the benchmarks: a Flask app that only parses and echoes JSON, or answers a tiny GET."""

from flask import Flask, jsonify, request

app = Flask(__name__)


@app.post("/api/v1/score")
def echo():
    return jsonify(request.get_json())


@app.get("/echo")
def small():
    """The floor of a read: a route, a tiny JSON body, nothing else."""
    return jsonify({"ok": True})


def asgi():
    """The echo served as ``anotador serve`` serves Anotador (granian's ``--factory``): the request read whole
    by the gate, a line in the access log, Flask through the bridge. Its floor, against the WSGI echo's."""
    import os

    from anotador.ops import gate
    from anotador.ops.bridge import Bridge

    bridge = Bridge(app, int(os.environ.get("THREADS", "8")))
    gate.log_to_stderr()

    async def serve(scope, receive, send):
        if scope["type"] == "lifespan":
            while (await receive())["type"] != "lifespan.shutdown":
                await send({"type": "lifespan.startup.complete"})
            await send({"type": "lifespan.shutdown.complete"})
            return
        await gate.through(scope, receive, send, bridge, 16 * 1024, gate.REQUEST_TIMEOUT)
    return serve
