"""What already holds, kept under test: headers, tokens, no CORS, bounded caches."""

from __future__ import annotations

import random
from urllib.parse import quote

import pytest



def test_the_page_allows_only_itself_and_no_framing(client):
    for url in ("/", "/g/abc123"):
        r = client.get(url)
        csp = r.headers["Content-Security-Policy"]
        assert "frame-ancestors 'none'" in csp and "script-src 'self'" in csp and "object-src 'none'" in csp
        assert "unsafe-inline" not in csp and "unsafe-eval" not in csp
        assert r.headers["X-Frame-Options"] == "DENY" and r.headers["X-Content-Type-Options"] == "nosniff"
        assert r.headers["Referrer-Policy"] == "no-referrer"


def test_a_pdf_is_a_document_too(client):
    r = client.get("/api/v1/variants/generala/sheet.pdf")
    assert r.status_code == 200 and r.mimetype == "application/pdf"
    assert r.headers["X-Frame-Options"] == "DENY" and r.headers["Referrer-Policy"] == "no-referrer"


@pytest.mark.parametrize(("method", "url", "body"), [
    ("POST", "/api/v1/score", {"variant": "generala", "dice": [1, 2, 3, 4, 5]}),
    ("POST", "/api/v1/score", {"variant": "generala", "dice": [1, 2, 3, 4, 9]}),
    ("GET", "/api/v1/games/nope", None),
    ("GET", "/api/v1/nothing-here", None),
    ("GET", "/api/v1/variants", None),
    ("GET", "/openapi.yaml", None),
])
def test_api_answers_are_data_and_not_stored_unless_meant_to_be(client, method, url, body):
    r = client.open(url, method=method, json=body)
    assert r.headers["X-Content-Type-Options"] == "nosniff"
    assert r.headers["Content-Security-Policy"].startswith("default-src 'none'")
    # Data is never framed and makes no requests: the document-only headers would only cost.
    assert "X-Frame-Options" not in r.headers and "Referrer-Policy" not in r.headers
    cache = r.headers["Cache-Control"]
    if url in ("/api/v1/variants", "/openapi.yaml"):
        assert "max-age" in cache and r.headers["ETag"]   # cacheable, with a validator
        assert "Accept-Encoding" in r.headers["Vary"]  # and keyed by the encoding a cache holds
    else:
        assert cache == "no-store"
        assert "Vary" not in r.headers  # nothing keys an answer no cache keeps


def test_static_files_are_cacheable_with_validators(client):
    r = client.get("/static/app.css")
    assert r.status_code == 200 and r.headers["ETag"] and r.headers["X-Content-Type-Options"] == "nosniff"
    again = client.get("/static/app.css", headers={"If-None-Match": r.headers["ETag"]})
    assert again.status_code == 304


def test_no_cross_origin_access(client):
    pre = client.open("/api/v1/score", method="OPTIONS", headers={
        "Origin": "https://evil.example", "Access-Control-Request-Method": "POST",
        "Access-Control-Request-Headers": "content-type"})
    assert "Access-Control-Allow-Origin" not in pre.headers
    r = client.post("/api/v1/score", json={"variant": "generala", "dice": [1, 2, 3, 4, 5]},
                    headers={"Origin": "https://evil.example"})
    assert r.status_code == 200 and not any(h.startswith("Access-Control-") for h in r.headers.keys())


def test_tokens_are_compared_in_constant_time(new_game, monkeypatch):
    from anotador.sheets import tokens

    calls = []
    real = tokens.hmac.compare_digest
    monkeypatch.setattr(tokens.hmac, "compare_digest", lambda a, b: calls.append((a, b)) or real(a, b))
    table = new_game("generala", ["Ana", "Beto"])
    for token in ("x", table.token[:-1] + "A", table.token):
        table.client.post(table.url("/turns"), json={"player": 0, "category": "ones", "scratch": True},
                          headers={"Authorization": f"Bearer {token}"})
    # every check went through compare_digest, on hashes of equal length
    assert len(calls) == 3 and all(len(a) == len(b) == 64 for a, b in calls)


def printing_holdings() -> dict[str, int]:
    """What the printing modules hold between requests that nothing bounds, by name: the entries of each
    function cache without a size limit, and the length of every dict, list or set a module keeps. (A cache
    with a limit is checked to be within it.)"""
    import sys

    held = {}
    for name, module in list(sys.modules.items()):
        if not name.startswith("anotador.printing"):
            continue
        for attr, value in vars(module).items():
            if callable(getattr(value, "cache_info", None)):  # a functools cache
                info = value.cache_info()
                if info.maxsize is None:
                    held[f"{name}.{attr}()"] = info.currsize
                else:
                    assert info.currsize <= info.maxsize, (name, attr)
            elif isinstance(value, (dict, list, set)) and not attr.startswith("__"):
                held[f"{name}.{attr}"] = len(value)
    return held


def test_what_printing_keeps_does_not_grow_with_new_names(client):
    """Sheets with new names each (every script, four variants, one to three games): after the first 200,
    200 more leave the printing modules holding nothing more, but in caches with a limit. (The worker's
    resident memory over 1,000 such sheets is a figure of bench/sheets.py.)"""
    rnd = random.Random(5)
    letters = "abcdefghijklmnopqrstuvwxyzñçãõЖШЩΩμ"

    def sheet(i):
        names = "&".join("names=" + quote("".join(rnd.choice(letters) for _ in range(12)) + str(i)) for _ in range(6))
        variant = ["generala", "generala-doble", "general-pr", "double-cameroon"][i % 4]
        r = client.get(f"/api/v1/variants/{variant}/sheet.pdf?players=6&{names}&games={1 + i % 3}&lang=es")
        assert r.status_code == 200 and r.data.startswith(b"%PDF")

    for i in range(200):
        sheet(i)
    before = printing_holdings()
    for i in range(200, 400):
        sheet(i)
    after = printing_holdings()
    assert before and after.keys() == before.keys()
    assert {k: (before[k], v) for k, v in after.items() if v != before[k]} == {}


def _hosts_app(tmp_path, **config):
    from anotador.app import create_app

    return create_app({"TESTING": True, "SQLALCHEMY_DATABASE_URI": f"sqlite:///{tmp_path / 'h.sqlite'}",
                       **config})


@pytest.mark.parametrize(("config", "served", "refused"), [
    # the default: only names that cannot be borrowed by another site's DNS
    ({}, ["localhost", "localhost:8000", "127.0.0.1:8000", "[::1]:8000"],
     ["evil.example", "evil.example:8000", "10.0.0.5:8000", "localhost.evil.example", "127.0.0.1.nip.io"]),
    # --lan: this machine's LAN address and host name too, nobody else's
    ({"LAN_URL": "http://10.0.0.5:8000/"}, ["10.0.0.5:8000", "localhost:8000", "__hostname__"],
     ["evil.example:8000", "10.0.0.6:8000"]),
    # the operator's list is the whole list
    ({"TRUSTED_HOSTS": "anotador.example, www.anotador.example"}, ["anotador.example", "www.anotador.example"],
     ["evil.example", "localhost"]),
    ({"TRUSTED_HOSTS": "*"}, ["evil.example", "localhost"], []),
    # behind a proxy, the proxy chooses the names it forwards
    ({"PROXY_HOPS": 1}, ["anotador.example"], []),
])
def test_only_trusted_host_names_are_served(tmp_path, config, served, refused):
    import socket

    client = _hosts_app(tmp_path, **config).test_client()
    for host in served:
        host = socket.gethostname() if host == "__hostname__" else host
        assert client.get("/api/v1/variants", headers={"Host": host}).status_code == 200, host
    for host in refused:
        r = client.get("/api/v1/variants", headers={"Host": host})
        assert r.status_code == 400 and r.mimetype == "application/problem+json", host
        assert r.get_json()["host"] == host and "ANOTADOR_TRUSTED_HOSTS" in r.get_json()["detail"]


def test_a_forged_host_gets_no_write_link_and_stores_nothing(tmp_path):
    from .dbkit import migrated_app

    app = migrated_app(f"sqlite:///{tmp_path / 'f.sqlite'}", TRUSTED_HOSTS=None)
    client = app.test_client()
    body = {"variant": "generala", "players": ["Ana", "Beto"]}
    forged = client.post("/api/v1/games", json=body, headers={"Host": "evil.example"})
    assert forged.status_code == 400 and "evil.example" not in forged.headers.get("Location", "")
    from anotador.store.models import GameRow as Game

    with app.app_context():
        assert Game.query.count() == 0
    made = client.post("/api/v1/games", json=body, headers={"Host": "127.0.0.1:8000"})
    assert made.status_code == 201 and made.get_json()["links"]["write"].startswith("http://127.0.0.1:8000/")
