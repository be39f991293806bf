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
