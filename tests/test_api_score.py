"""POST /api/v1/score: answers, and every way a request can be wrong."""

from __future__ import annotations

import json

import pytest


def test_issue_example(score):
    r = score(variant="generala-doble", dice=[3, 3, 3, 3, 3], served=True, sheet={"generala": 0, "ones": 3})
    assert r.status_code == 200
    assert r.mimetype == "application/json"
    body = r.get_json()
    assert body == {
        "variant": "generala-doble",
        "dice": [3, 3, 3, 3, 3],
        "served": True,
        "instant_win": False,
        "options": [
            {"category": "double_generala", "points": 105},
            {"category": "four", "points": 45},
            {"category": "threes", "points": 15},
        ],
        "scratch": ["twos", "threes", "fours", "fives", "sixes", "straight", "full", "four", "double_generala"],
    }


def test_served_defaults_to_false_and_sheet_to_empty(score):
    body = score(variant="generala", dice=[4, 4, 4, 2, 2]).get_json()
    assert body["served"] is False
    assert body["options"][0] == {"category": "full", "points": 30}
    assert len(body["scratch"]) == 10


def test_instant_win(score):
    body = score(variant="generala", dice=[6, 6, 6, 6, 6], served=True).get_json()
    assert body["instant_win"] is True
    assert body["options"][0] == {"category": "generala", "points": 50}


def test_house_rules(score):
    r = score(
        rules={"base": "generala", "served_bonus": 10, "straight": "circular", "points": {"generala": 60}},
        dice=[1, 2, 4, 5, 6], served=True,
    )
    assert r.status_code == 200, r.get_json()
    body = r.get_json()
    assert body["variant"] == "generala"
    assert body["options"][0] == {"category": "straight", "points": 30}
    assert body["rules"]["base"] == "generala"
    assert body["rules"]["served_bonus"] == 10
    assert body["rules"]["points"]["generala"] == 60
    assert body["rules"]["straight"] == "circular"


def test_double_cameroon_assignments(score):
    body = score(variant="double-cameroon", dice=[1, 2, 3, 4, 5, 2, 3, 4, 5, 6], limit=2).get_json()
    assert "options" not in body
    assert body["assignments"][0] == {
        "points": 51,
        "boxes": [
            {"category": "big_cameroon", "dice": [2, 3, 4, 5, 6], "points": 30},
            {"category": "little_cameroon", "dice": [1, 2, 3, 4, 5], "points": 21},
        ],
    }
    assert len(body["assignments"]) == 2
    assert len(score(variant="double-cameroon", dice=[1] * 10).get_json()["assignments"]) == 10


def test_double_cameroon_groups(score):
    r = score(variant="double-cameroon", dice=[6, 6, 6, 5, 5, 1, 2, 3, 4, 5],
              groups=[[5, 6, 5, 6, 6], [5, 4, 3, 2, 1]], sheet={"full": 0, "ones": 1})
    assert r.status_code == 200, r.get_json()
    g1, g2 = r.get_json()["groups"]
    assert g1["dice"] == [5, 5, 6, 6, 6]
    assert g1["options"][0] == {"category": "sixes", "points": 18}   # full is closed
    assert g2["options"][0] == {"category": "little_cameroon", "points": 21}
    assert "full" not in g2["scratch"] and "ones" not in g2["scratch"]


def problem(r, status):
    assert r.status_code == status, r.get_data(as_text=True)
    assert r.mimetype == "application/problem+json"
    body = r.get_json()
    assert body["status"] == status
    assert body["type"] and body["title"] and body["detail"]
    return body


@pytest.mark.parametrize(
    ("body", "field"),
    [
        ({"variant": "generala", "dice": [1, 2, 3, 4]}, "dice"),
        ({"variant": "generala", "dice": [1, 2, 3, 4, 5, 6]}, "dice"),
        ({"variant": "double-cameroon", "dice": [1, 2, 3, 4, 5]}, "dice"),
        ({"variant": "generala", "dice": [1, 2, 3, 4, 0]}, "dice.4"),
        ({"variant": "generala", "dice": [1, 2, 3, 4, 7]}, "dice.4"),
        ({"variant": "generala", "dice": [1, 2, 3, 4, 2.5]}, "dice.4"),
        ({"variant": "generala", "dice": [1, 2, 3, 4, "3"]}, "dice.4"),
        ({"variant": "generala", "dice": [1, 2, 3, 4, True]}, "dice.4"),
        ({"variant": "generala", "dice": [1, 2, 3, 4, None]}, "dice.4"),
        ({"variant": "generala", "dice": "12345"}, "dice"),
        ({"variant": "generala"}, "dice"),
        ({"variant": "generala", "dice": [1, 2, 3, 4, 5], "served": "yes"}, "served"),
        ({"variant": "generala", "dice": [1, 2, 3, 4, 5], "served": 1}, "served"),
        ({"variant": "generala", "dice": [1, 2, 3, 4, 5], "colour": "red"}, "colour"),
        ({"variant": "bunco", "dice": [1, 2, 3, 4, 5]}, "variant"),
        ({"dice": [1, 2, 3, 4, 5]}, "variant"),
        ({"variant": "generala", "rules": {"base": "generala"}, "dice": [1, 2, 3, 4, 5]}, "variant"),
        ({"rules": {"base": "generala", "served_bonus": -5}, "dice": [1, 2, 3, 4, 5]}, "rules.served_bonus"),
        ({"rules": {"base": "generala", "served_generala": "points"}, "dice": [1, 2, 3, 4, 5]},
         "rules.served_generala_points"),
        ({"rules": {"base": "generala", "points": {"chance": 20}}, "dice": [1, 2, 3, 4, 5]}, "rules.points.chance"),
        ({"rules": {"base": "generala", "wild": 1}, "dice": [1, 2, 3, 4, 5]}, "rules.wild"),
        ({"rules": {"served_bonus": 5}, "dice": [1, 2, 3, 4, 5]}, "rules.base"),
        ({"rules": "generala", "dice": [1, 2, 3, 4, 5]}, "rules"),
        ({"variant": "generala", "dice": [1, 2, 3, 4, 5], "sheet": {"straight": 17}}, "sheet.straight"),
        ({"variant": "generala", "dice": [1, 2, 3, 4, 5], "sheet": {"ones": 6}}, "sheet.ones"),
        ({"variant": "generala", "dice": [1, 2, 3, 4, 5], "sheet": {"chance": 6}}, "sheet.chance"),
        ({"variant": "generala", "dice": [1, 2, 3, 4, 5], "sheet": {"ones": "1"}}, "sheet.ones"),
        ({"variant": "generala", "dice": [1, 2, 3, 4, 5], "sheet": [1]}, "sheet"),
        ({"variant": "generala", "dice": [1, 2, 3, 4, 5],
          "sheet": {b: 0 for b in ["ones", "twos", "threes", "fours", "fives", "sixes", "straight", "full",
                                   "four", "generala"]}}, "sheet"),
        ({"variant": "generala", "dice": [1, 2, 3, 4, 5], "limit": 3}, "limit"),
        ({"variant": "generala", "dice": [1, 2, 3, 4, 5], "groups": [[1, 2, 3, 4, 5]]}, "groups"),
        ({"variant": "double-cameroon", "dice": [1] * 10, "limit": 0}, "limit"),
        ({"variant": "double-cameroon", "dice": [1] * 10, "limit": 101}, "limit"),
        ({"variant": "double-cameroon", "dice": [1] * 10, "groups": [[1] * 5, [1, 1, 1, 1, 2]]}, "groups"),
        ({"variant": "double-cameroon", "dice": [1] * 10, "groups": [[1] * 5, [1, 1, 1, 1, 9]]}, "groups.1.4"),
    ],
)
def test_semantic_errors_are_422_with_the_field(score, body, field):
    b = problem(score(**body), 422)
    assert field in b["errors"], b
    assert all(isinstance(m, str) and m for msgs in b["errors"].values() for m in msgs)


def test_integral_numbers_are_integers(client):
    # JSON Schema (and so the spec) counts 3.0 as an integer; so does the API.
    r = client.post("/api/v1/score", data='{"variant": "generala", "dice": [3.0, 3, 3, 3, 3e0]}',
                    content_type="application/json")
    assert r.status_code == 200 and r.get_json()["dice"] == [3, 3, 3, 3, 3]
    r = client.post("/api/v1/score", data='{"variant": "generala", "dice": [1e400, 3, 3, 3, 3]}',
                    content_type="application/json")
    assert r.status_code == 422 and "dice.0" in r.get_json()["errors"]


def test_body_that_is_not_an_object(client):
    b = problem(client.post("/api/v1/score", json=[1, 2, 3]), 422)
    assert "body" in b["errors"]


@pytest.mark.parametrize(
    "raw",
    [b"{", b"", b"{'dice': [1]}", b'{"dice": [NaN]}', b'{"dice": [Infinity]}', b"\xff\xfe",
     b"[" * 5000 + b"]" * 5000, b'{"dice": [' + b"9" * 5000 + b"]}"],
)
def test_malformed_json_is_400(client, raw):
    problem(client.post("/api/v1/score", data=raw, content_type="application/json"), 400)


@pytest.mark.parametrize("content_type", ["text/plain", "application/x-www-form-urlencoded", None])
def test_other_content_types_are_415(client, content_type):
    kwargs = {"content_type": content_type} if content_type else {}
    problem(client.post("/api/v1/score", data=json.dumps({"variant": "generala", "dice": [1] * 5}), **kwargs), 415)


def test_json_suffix_types_are_json(client):
    r = client.post("/api/v1/score", data=json.dumps({"variant": "generala", "dice": [1] * 5}),
                    content_type="application/merge-patch+json; charset=utf-8")
    assert r.status_code == 200


def test_large_body_is_413(client, app):
    big = json.dumps({"variant": "generala", "dice": [1] * 5, "pad": "x" * app.config["MAX_CONTENT_LENGTH"]})
    b = problem(client.post("/api/v1/score", data=big, content_type="application/json"), 413)
    assert str(app.config["MAX_CONTENT_LENGTH"]) in b["detail"]


def test_unknown_path_and_method(client):
    problem(client.get("/api/v1/nowhere"), 404)
    r = client.get("/api/v1/score")
    problem(r, 405)
    assert "POST" in r.headers["Allow"]
    problem(client.delete("/api/v1/variants"), 405)


def test_unexpected_errors_are_a_500_problem_without_a_trace(app, monkeypatch):
    from anotador.rules import ruleset

    def boom(*a, **k):
        raise RuntimeError("secret internals")

    monkeypatch.setattr(ruleset.RuleSet, "score", boom)
    app.config["PROPAGATE_EXCEPTIONS"] = False
    r = app.test_client().post("/api/v1/score", json={"variant": "generala", "dice": [1] * 5})
    b = problem(r, 500)
    assert "secret" not in r.get_data(as_text=True) and "Traceback" not in r.get_data(as_text=True)
    assert b["title"] == "Internal Server Error"


def test_a_games_sheet_is_sent_as_it_is_free_boxes_null(new_game, advice_tables):
    """One sheet type: players[].sheet (null = free) is what /score and /advice take, as the closed boxes alone."""
    table = new_game("generala", ["Ана", "李"])
    table.turn(0, "ones", [1, 1, 1, 2, 3])
    table.turn(1, "sixes", [6, 6, 6, 2, 3])
    game = table.get()
    as_read = game["players"][0]["sheet"]
    assert as_read["ones"] == 3 and as_read["twos"] is None
    closed = {box: points for box, points in as_read.items() if points is not None}
    for path, body in (("/api/v1/score", {"variant": "generala", "dice": [2, 2, 2, 5, 5]}),
                       ("/api/v1/advice", {"variant": "generala", "dice": [2, 2, 2, 5, 5], "roll": 2})):
        sent = table.client.post(path, json={**body, "sheet": as_read})
        assert sent.status_code == 200, sent.get_json()
        assert sent.get_json() == table.client.post(path, json={**body, "sheet": closed}).get_json()
    # a null is still only for a box the sheet has
    bad = table.client.post("/api/v1/score", json={"variant": "generala", "dice": [1, 2, 3, 4, 5],
                                                   "sheet": {"yahtzee": None}})
    assert bad.status_code == 422 and "sheet.yahtzee" in bad.get_json()["errors"]
