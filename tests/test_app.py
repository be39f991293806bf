"""What the app adds to Flask for speed, kept honest: sessions still closed, JSON unchanged, hooks still run."""

from __future__ import annotations

import pytest

@pytest.mark.parametrize(("body", "compressed"), [
    ({"variant": "generala", "dice": [1, 2, 3, 4, 5]}, False),  # a score: ~200 bytes
    ({"variant": "generala", "dice": [1, 2, 3, 4, 9]}, False),  # a problem
    ({"variant": "double-cameroon", "dice": [1, 2, 3, 4, 5, 6, 6, 6, 2, 2]}, True),  # ten dice: ~1.5 KB
])
def test_only_answers_worth_compressing_are_compressed(app, body, compressed):
    import gzip

    client = app.test_client()
    plain = client.post("/api/v1/score", json=body)
    r = client.post("/api/v1/score", json=body, headers={"Accept-Encoding": "gzip"})
    assert (len(plain.data) >= app.config["COMPRESS_MIN_SIZE"]) is compressed
    assert r.headers["Cache-Control"] == "no-store" and r.status_code == plain.status_code
    if compressed:
        assert r.headers["Content-Encoding"] == "gzip" and gzip.decompress(r.data) == plain.data
        assert int(r.headers["Content-Length"]) == len(r.data) < len(plain.data)
    else:
        # Sent as it is, with the headers of a client that asked for no encoding: no Vary for an
        # answer no cache keeps.
        assert r.data == plain.data and sorted(r.headers.items()) == sorted(plain.headers.items())
        assert "Content-Encoding" not in r.headers and "Vary" not in r.headers
