"""Baseline for bench/score.py: a Flask app that only parses and echoes JSON."""

from flask import Flask, jsonify, request

app = Flask(__name__)


@app.post("/api/v1/score")
def echo():
    return jsonify(request.get_json())
