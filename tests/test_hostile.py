"""Hostile bytes against every operation of the spec: never a 5xx, nothing lost.

schemathesis sends well-typed JSON; attackers do not. Hypothesis builds raw
request bodies and query strings here: lone UTF-16 surrogate escapes (in keys,
values and nested objects), deep nesting, huge numbers, NaN and Infinity,
duplicate keys, byte order marks, bytes that are not UTF-8, and the API's own
field names filled with all of these. Every answer must be a 4xx (or 2xx)
problem document or success, and an error must leave the game as it was.
"""

from __future__ import annotations

import json
import re
import time

import pytest
import yaml

from .toolkit import needs

needs("hypothesis", "pip install hypothesis")
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from .conftest import ROOT_SPEC as SPEC_PATH

SPEC = yaml.safe_load(SPEC_PATH.read_text(encoding="utf-8"))

#: Every property name the spec knows: hostile values land in real fields too.
FIELDS = sorted({name for schema in SPEC["components"]["schemas"].values()
                 for name in (schema.get("properties") or {})} | {"base", "ones", "generala", "full"})

ESCAPES = ["\\ud800", "\\udfff", "\\udbff\\udc00", "\\ud83d\\ude00", "\\ud83d", "\\u0000", "\\u202e",
           "\\u200b", "\\ufeff", "\\\\", "\\\"", "\\n"]


def _char(c: str) -> str:
    return json.dumps(c)[1:-1]


json_strings = st.lists(
    st.one_of(st.characters(exclude_categories=("Cs",)).map(_char), st.sampled_from(ESCAPES)), max_size=12,
).map(lambda parts: '"' + "".join(parts) + '"')
keys = st.one_of(st.sampled_from(FIELDS).map(json.dumps), json_strings)
numbers = st.one_of(
    st.integers(-3, 12).map(str),
    st.sampled_from(["1e400", "-1e400", "1" + "0" * 5000, "1" + "0" * 400, "3.0", "2.5", "-0", "1E2", "0.1e-400",
                     "NaN", "Infinity", "-Infinity", "123456789012345678901234567890"]),
)
leaves = st.one_of(st.sampled_from(["null", "true", "false"]), numbers, json_strings)
values = st.recursive(
    leaves,
    lambda inner: st.one_of(
        st.lists(inner, max_size=6).map(lambda xs: "[" + ",".join(xs) + "]"),
        # duplicate keys are possible: a list of pairs, not a dict
        st.lists(st.tuples(keys, inner), max_size=6).map(
            lambda kv: "{" + ",".join(f"{k}:{v}" for k, v in kv) + "}"),
    ),
    max_leaves=25,
)
deep = st.integers(20, 6000).flatmap(lambda n: st.sampled_from([
    "[" * n + "]" * n, '{"a":' * n + "1" + "}" * n, '{"dice":' + "[" * n + "]" * n + "}"]))
#: Well-formed bodies of every kind the API takes, to plant hostile pieces in:
#: a body that is otherwise right reaches the deepest code.
VALID = [
    {"variant": "generala", "dice": [1, 2, 3, 4, 5], "served": True, "sheet": {"ones": 3}},
    {"rules": {"base": "generala", "served_bonus": 10, "points": {"generala": 60}}, "dice": [6, 6, 6, 6, 6]},
    {"variant": "double-cameroon", "dice": [1, 2, 3, 4, 5, 2, 3, 4, 5, 6], "groups": [[1, 2, 3, 4, 5], [2, 3, 4, 5, 6]]},
    {"variant": "generala", "players": ["Ana", "Beto"], "first_rolls": [[6, 6], [2, 1]]},
    {"player": 0, "dice": [1, 1, 1, 2, 3], "category": "ones"},
    {"player": 0, "boxes": [{"category": "ones", "dice": [1, 1, 1, 1, 1]}, {"category": "twos", "scratch": True}]},
    {"category": "sixes", "served": False},
    {"player": 0, "dice": [6, 5, 4, 3, 2]},
    {"variant": "generala", "players": 4, "names": ["Ana", "Beto"], "games": 2, "size": "a4", "lang": "es"},
    # play to win, and a table of regulars: its creation, a game brought to it, a rename, a merge
    {"variant": "generala", "dice": [6, 6, 6, 2, 3], "roll": 2, "sheet": {"ones": 3, "generala": 0},
     "opponents": [{"sheet": {"twos": 6}}, {"sheet": {}, "bonus": 5}]},
    {"name": "Los del domingo", "timezone": "America/Argentina/Buenos_Aires"},
    {"game": "abc", "token": "x"},
    {"name": "Abuela Pilar"},
    {"into": 2},
]


def _plant(body, hostile_key: str, hostile_value: str, where: int) -> str:
    """Serialize ``body`` with a hostile key and value planted in its ``where``-th object."""
    count = [0]

    def dump(x) -> str:
        if isinstance(x, dict):
            items = [f"{json.dumps(k)}:{dump(v)}" for k, v in x.items()]
            if count[0] == where:
                items.append(f"{hostile_key}:{hostile_value}")
            count[0] += 1
            return "{" + ",".join(items) + "}"
        if isinstance(x, list):
            return "[" + ",".join(dump(v) for v in x) + "]"
        return json.dumps(x)

    return dump(body)


planted = st.builds(_plant, st.sampled_from(VALID), keys, st.one_of(leaves, values), st.integers(0, 3))
texts = st.one_of(values, planted, planted, deep)
bodies = st.one_of(
    texts.map(lambda t: t.encode("utf-8")),
    texts.map(lambda t: b"\xef\xbb\xbf" + t.encode("utf-8")),                  # a byte order mark
    texts.map(lambda t: t.encode("utf-8") + b"\xff\xfe\xed\xa0\x80"),           # not UTF-8
    st.binary(max_size=64),
)
queries = st.lists(st.tuples(st.sampled_from(["players", "names", "games", "size", "lang", "x", "variant", "rules",
                                              "since", "until", "cursor", "limit", "chances"]),
                             st.one_of(st.text(max_size=8), st.sampled_from(
                                 ["%ED%A0%80", "%00", "%FF", "1e400", "NaN", "-1", "99999999999999999999",
                                  "9999-12-31", "0001-01-01", "2026-02-30", "generala", "true",
                                  "WyIyMDI2LTAxLTAxVDAwOjAwOjAwIiwiXHVkODAwIl0", "0123456789abcdef"]))),
                   max_size=4)


def operations():
    for path, item in SPEC["paths"].items():
        for method in item:
            if method in {"get", "post", "patch", "delete", "put"}:
                yield method.upper(), path


OPS = sorted(operations())


#: The surfaces added last (tables of regulars, win chances, play to win): fuzzed on PostgreSQL too.
SURFACES = [(m, p) for m, p in OPS if "/tables" in p or p.endswith(("/chances", "/advice"))]


class Target:
    """A service under attack: a game of three recorded turns at a table of regulars, with their tokens."""

    def __init__(self, app):
        self.app, self.client = app, app.test_client()
        client = self.client
        r = client.post("/api/v1/tables", json={"name": "Los del domingo"})
        assert r.status_code == 201
        self.mesa = r.get_json()
        self.mesa_auth = {"Authorization": f"Bearer {self.mesa['token']}"}
        r = client.post("/api/v1/games", headers=self.mesa_auth,
                        json={"variant": "generala", "players": ["Ana", "Beto", "Ceci"], "table": self.mesa["id"]})
        assert r.status_code == 201, r.get_json()
        game = r.get_json()
        self.game_id, self.auth = game["id"], {"Authorization": f"Bearer {game['token']}"}
        for player, category in ((0, "ones"), (1, "twos"), (2, "threes")):
            r = client.post(f"/api/v1/games/{self.game_id}/turns", headers=self.auth,
                            json={"player": player, "category": category, "scratch": True})
            assert r.status_code == 201
        self.player = client.get(f"/api/v1/tables/{self.mesa['id']}").get_json()["players"][0]["player"]
        # the chances of these rules, made by a thread of the app's own: wait for them, as a client would
        deadline = time.monotonic() + 60
        while client.get(f"/api/v1/games/{self.game_id}/chances").status_code == 503 and time.monotonic() < deadline:
            time.sleep(0.2)

    def url(self, path: str) -> str:
        return (path.replace("{game_id}", self.game_id).replace("{variant_id}", "generala").replace("{number}", "2")
                .replace("{mesa_id}", self.mesa["id"]).replace("{player}", str(self.player)))

    def headers(self, path: str) -> dict:
        return self.mesa_auth if "/tables/" in path else self.auth

    def stored(self) -> tuple:
        """What is stored, as any client reads it: the game, and the table's standings and history."""
        mesa = f"/api/v1/tables/{self.mesa['id']}"
        return (self.client.get(f"/api/v1/games/{self.game_id}").get_json(), self.client.get(mesa).get_json(),
                self.client.get(mesa + "/games").get_json())


@pytest.fixture(scope="module")
def targets(tmp_path_factory, advice_tables, request):
    """Each database's target, made when first asked for."""
    from .dbkit import dispose, migrated_app

    made = {}

    def target(db: str) -> Target:
        if db not in made:
            if db == "sqlite":
                url = f"sqlite:///{tmp_path_factory.mktemp('hostile')}/h.sqlite"
            else:
                url = request.getfixturevalue("postgres_url")
            made[db] = Target(migrated_app(url))
        return made[db]

    yield target
    for t in made.values():
        dispose(t.app)


@pytest.fixture(scope="module")
def table(targets):
    """The target on SQLite, as (its client, its game's id, the game's token header)."""
    target = targets("sqlite")
    return target.client, target.game_id, target.auth


def _check(r) -> None:
    assert r.status_code < 500, (r.status_code, r.get_data()[:300])
    if r.status_code >= 400:
        assert r.mimetype == "application/problem+json"
        problem = json.loads(r.get_data())
        assert problem["status"] == r.status_code and problem["detail"]
        assert r.headers["X-Content-Type-Options"] == "nosniff"


@pytest.mark.slow
@pytest.mark.parametrize(("db", "method", "path"), [("sqlite", m, p) for m, p in OPS] +
                         [("postgresql", m, p) for m, p in SURFACES])
@settings(max_examples=60, deadline=None, suppress_health_check=list(HealthCheck))
@given(body=bodies, query=queries)
def test_hostile_requests_never_break_the_service(targets, db, method, path, body, query):
    target = targets(db)
    before = target.stored()
    qs = "&".join(f"{k}={v}" for k, v in query)
    r = target.client.open(target.url(path) + (f"?{qs}" if qs else ""), method=method, data=body,
                           content_type="application/json", headers=target.headers(path))
    _check(r)
    after = target.stored()
    if r.status_code >= 400 or method == "GET":
        assert after == before  # an error changes nothing stored
    if after[0]["version"] != before[0]["version"]:
        assert after[0]["players"] != before[0]["players"] or after[0]["status"] != before[0]["status"]


@pytest.mark.parametrize("body", [
    b'{"variant":"generala","dice":[1,2,3,4,5],"\\ud800":1}',
    b'{"variant":"generala","dice":[1,2,3,4,5],"sheet":{"\\udfff":3}}',
    b'{"rules":{"base":"generala","\\ud800":1},"dice":[1,2,3,4,5]}',
    b'{"variant":"generala","players":["Ana","B\\ud800"]}',
    b'{"variant":"\\ud800","dice":[1,2,3,4,5]}',
    b'{"variant":"generala","variant":"generala-doble","dice":[1,2,3,4,5]}',
    b'\xef\xbb\xbf{"variant":"generala","dice":[1,2,3,4,5]}',
    b'{"variant":"generala","dice":[1,2,3,4,NaN]}',
    b'{"variant":"generala","dice":[1,2,3,4,' + b"9" * 5000 + b"]}",
    b"[" * 5000 + b"]" * 5000,
    b'{"a":' * 40 + b"1" + b"}" * 40,
])
@pytest.mark.parametrize("path", ["/api/v1/score", "/api/v1/games", "/api/v1/sheets"])
def test_bodies_that_are_not_json_text_are_400_on_every_python(table, body, path):
    client = table[0]
    r = client.post(path, data=body, content_type="application/json")
    assert r.status_code == 400, r.get_data()
    assert r.mimetype == "application/problem+json" and "not valid JSON" in r.get_json()["detail"]


def test_nesting_within_the_cap_still_parses(table):
    client = table[0]
    # 32 levels are allowed: the answer is about meaning (422), not form (400).
    r = client.post("/api/v1/score", data=b'{"x":' + b"[" * 31 + b"]" * 31 + b"}", content_type="application/json")
    assert r.status_code == 422


def test_a_lone_surrogate_in_the_path_or_query_is_not_a_500(table):
    client = table[0]
    for url in ["/api/v1/games/%ED%A0%80", "/api/v1/variants/%ED%A0%80", "/g/%ED%A0%80",
                "/api/v1/variants/generala/sheet.pdf?names=%ED%A0%80", "/api/v1/games/%ED%A0%80/turns"]:
        r = client.get(url)
        assert r.status_code < 500, url
        assert re.match(r"^(application/problem\+json|text/html|application/pdf)$", r.mimetype)


#: Any letter, mark, number, symbol or punctuation of any script (what the name rule lets through).
NAME_CHARS = st.characters(exclude_categories=("Cc", "Cf", "Cs", "Co", "Cn", "Zl", "Zp"))


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(st.text(NAME_CHARS, min_size=1, max_size=40), min_size=1, max_size=12))
def test_any_name_the_name_rule_accepts_prints(raw):
    """Names of any script, emoji, marks without a letter, mixed directions: the sheet prints, every piece
    fits its cell, and nothing raises (a name no shipped font covers prints as the wide font's boxes)."""
    from anotador.printing import blank_sheet, fonts, layout
    from anotador.rules import find_variant
    from anotador.rules.errors import InvalidNameError
    from anotador.rules.game import clean_name

    names = []
    for i, name in enumerate(raw):
        try:
            names.append(clean_name(name, f"names.{i}"))
        except InvalidNameError:
            continue
    names = list(dict.fromkeys(names)) or ["Ana"]
    rules = find_variant("generala").rules()
    page = layout(rules, players=len(names), names=names)
    for t in page.texts:
        for line in t.lines:
            assert fonts.width(line, t.font, t.size) <= t.w + 0.01, (line, t)
    assert blank_sheet(rules, players=len(names), names=names).startswith(b"%PDF")
