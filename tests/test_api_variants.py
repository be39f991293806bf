"""GET /api/v1/variants and /api/v1/variants/{id}."""

from __future__ import annotations

import pytest

from anotador.rules import LANGUAGES, VARIANTS, find_variant


def test_list_has_every_variant_in_order(client):
    r = client.get("/api/v1/variants")
    assert r.status_code == 200
    assert [v["id"] for v in r.get_json()] == list(VARIANTS)


@pytest.mark.parametrize("variant_id", list(VARIANTS))
def test_variant_matches_the_engine(client, variant_id):
    body = client.get(f"/api/v1/variants/{variant_id}").get_json()
    rules = find_variant(variant_id).rules()
    assert body["id"] == variant_id
    assert set(body["names"]) == set(LANGUAGES)
    assert body["dice"] == rules.dice
    assert body["boxes_per_turn"] == rules.boxes_per_turn
    assert body["rounds"] == rules.rounds
    assert [b["id"] for b in body["boxes"]] == [b.id for b in rules.boxes]
    assert body["options"] == rules.options.as_dict()
    for box in body["boxes"]:
        assert box["max_points"] == rules.max_points(box["id"])
        assert set(box["names"]) == set(LANGUAGES)


def test_generala_doble_boxes(client):
    boxes = {b["id"]: b for b in client.get("/api/v1/variants/generala-doble").get_json()["boxes"]}
    assert boxes["double_generala"] == {
        "id": "double_generala",
        "names": {"en": "Double generala", "es": "Generala doble", "pt": "General dupla", "de": "Doppelte Generala",
                  "sv": "Dubbel generala", "fr": "Generala double", "it": "Generala doppia", "nl": "Dubbele generala"},
        "short_names": {"en": "DG", "es": "GD", "pt": "GD", "de": "DG", "sv": "DG", "fr": "GD", "it": "GD", "nl": "DG"},
        "kind": "fixed", "face": None, "points": 100, "served_points": 105, "max_points": 105,
    }
    assert boxes["fours"]["kind"] == "number" and boxes["fours"]["face"] == 4
    assert boxes["fours"]["points"] is None and boxes["fours"]["max_points"] == 20
    assert boxes["four"]["names"]["es"] == "Póker"


def test_short_names_and_what_wins_on_the_spot(client):
    variants = {v["id"]: v for v in client.get("/api/v1/variants").get_json()}
    short = {b["id"]: b["short_names"]["es"] for b in variants["generala-doble"]["boxes"]}
    assert short == {"ones": "1", "twos": "2", "threes": "3", "fours": "4", "fives": "5", "sixes": "6",
                     "straight": "Esc", "full": "Full", "four": "Póker", "generala": "G", "double_generala": "GD"}
    assert variants["generala"]["instant_win_names"] == {"en": "Served generala", "es": "Generala servida",
                                                         "pt": "General de boca", "de": "Servierte Generala",
                                                         "sv": "Servad generala", "fr": "Generala sèche",
                                                         "it": "Generala servita", "nl": "Generala in één worp"}
    assert variants["general-pr"]["instant_win_names"]["es"] == "General grande"
    assert variants["double-cameroon"]["instant_win_names"] is None


def test_double_cameroon_full_is_a_sum(client):
    boxes = {b["id"]: b for b in client.get("/api/v1/variants/double-cameroon").get_json()["boxes"]}
    assert boxes["full"]["kind"] == "sum" and boxes["full"]["max_points"] == 28


def test_unknown_variant_is_a_404_problem(client):
    r = client.get("/api/v1/variants/bunco")
    assert r.status_code == 404 and r.mimetype == "application/problem+json"
    assert "generala-doble" in r.get_json()["detail"]


@pytest.mark.parametrize("path", ["/api/v1/variants", "/api/v1/variants/generala", "/openapi.yaml"])
def test_conditional_get(client, path):
    first = client.get(path)
    assert first.headers["ETag"] and "max-age" in first.headers["Cache-Control"]
    again = client.get(path, headers={"If-None-Match": first.headers["ETag"]})
    assert again.status_code == 304 and again.get_data() == b""
    assert client.get(path, headers={"If-None-Match": '"stale"'}).status_code == 200


def test_families_house_rules_and_served(client):
    """What a client needs to build a start screen: the family, which options apply, whether to ask "served"."""
    variants = {v["id"]: v for v in client.get("/api/v1/variants").get_json()}
    assert [v for v in variants if variants[v]["family"] == "yahtzee"] == ["yahtzee", "kniffel", "yatzy", "yacht"]
    assert variants["yahtzee"]["house_rules"] == ["points", "tie_break", "first_player", "joker", "yahtzee_bonus"]
    assert variants["yatzy"]["house_rules"] == ["points", "tie_break", "first_player"]
    assert "joker" not in variants["generala"]["house_rules"] and "straight" in variants["generala"]["house_rules"]
    sample = {"points": {}, "served_bonus": 10, "straight": "circular", "ace_as_two": True, "double_generala": 100,
              "double_generala_after": "scored", "served_generala": "none", "served_generala_points": 80,
              "three_of_a_kind": "sum", "tie_break": "roll_off", "first_player": "as_listed", "joker": "free",
              "yahtzee_bonus": 50}
    assert set(sample) == set(variants["generala"]["options"])
    for v in variants.values():  # an option not listed is refused for that variant, by name
        dice = [1, 2, 3, 4, 5] * (v["dice"] // 5)
        for name in sample.keys() - set(v["house_rules"]):
            r = client.post("/api/v1/score", json={"rules": {"base": v["id"], name: sample[name]}, "dice": dice})
            assert r.status_code == 422 and f"rules.{name}" in r.get_json()["errors"], (v["id"], name, r.get_json())
        rules = {"base": v["id"], **{name: sample[name] for name in ("tie_break", "first_player", "points")}}
        assert client.post("/api/v1/score", json={"rules": rules, "dice": dice}).status_code == 200
    assert {v: variants[v]["served_matters"] for v in variants} == {
        "generala": True, "generala-doble": True, "generala-wiki": True, "general-pr": True,
        "double-cameroon": False, "yahtzee": False, "kniffel": False, "yatzy": False, "yacht": False}
