"""openapi.yaml is valid, matches the app's routes, and the app honours it."""

from __future__ import annotations

import atexit
import re
import shutil
import tempfile
from pathlib import Path

import pytest

from .toolkit import needs

needs("hypothesis", "pip install hypothesis")
needs("schemathesis", "pip install schemathesis")
needs("openapi_spec_validator", "pip install openapi-spec-validator")
import schemathesis  # noqa: E402
import yaml
from hypothesis import HealthCheck, settings
from openapi_spec_validator import validate


ROOT = Path(__file__).resolve().parents[1]
SPEC = yaml.safe_load((ROOT / "openapi.yaml").read_text(encoding="utf-8"))
IGNORED_METHODS = {"HEAD", "OPTIONS"}


def test_spec_is_valid_openapi_3_1():
    assert SPEC["openapi"].startswith("3.1")
    validate(SPEC)


#: Every key a schema of the spec may hold (JSON Schema 2020-12 as OpenAPI 3.1 uses it).
SCHEMA_KEYS = {"type", "description", "enum", "const", "default", "minimum", "maximum", "exclusiveMinimum",
               "exclusiveMaximum", "minLength", "maxLength", "pattern", "format", "items", "prefixItems", "properties",
               "required", "additionalProperties", "allOf", "oneOf", "anyOf", "not", "$ref", "minItems", "maxItems",
               "uniqueItems", "examples", "readOnly", "writeOnly", "deprecated", "title", "discriminator",
               "propertyNames", "minProperties", "maxProperties", "multipleOf", "patternProperties"}


def _schemas(node, where="#"):
    """Every schema in the spec's components and operations, with where it is."""
    if isinstance(node, dict):
        if "type" in node or "$ref" in node:
            yield where, node
        for key, value in node.items():
            if key in ("properties", "patternProperties"):  # names, not keywords
                for name, schema in (value or {}).items():
                    yield from _schemas(schema, f"{where}/{key}/{name}")
            elif key not in ("examples", "example", "default", "enum", "const", "securitySchemes"):
                yield from _schemas(value, f"{where}/{key}")
    elif isinstance(node, list):
        for n, value in enumerate(node):
            yield from _schemas(value, f"{where}/{n}")


def test_no_description_is_cut_into_a_stray_key():
    """YAML splits a flow mapping at a comma: an unquoted description holding one is cut, and its tail becomes
    a key of the schema (which generated clients then show)."""
    stray = {where: sorted(set(schema) - SCHEMA_KEYS) for where, schema in _schemas(SPEC)
             if set(schema) - SCHEMA_KEYS and not all(k.startswith("x-") for k in set(schema) - SCHEMA_KEYS)}
    assert stray == {}


def test_every_operation_says_who_may_call_it():
    """Public (``security: []``) or a token, as linters and generated clients read it."""
    undeclared = [f"{method.upper()} {path}" for path, item in SPEC["paths"].items() for method, op in item.items()
                  if method in ("get", "post", "put", "patch", "delete") and "security" not in op]
    assert undeclared == []
    tokens = {f"{m.upper()} {p}" for p, item in SPEC["paths"].items() for m, op in item.items()
              if isinstance(op, dict) and {"bearer": []} in op.get("security", [])}
    assert "POST /api/v1/games/{game_id}/turns" in tokens and "GET /api/v1/games/{game_id}" not in tokens
    # creating a game is public (generated clients must not need a token), and says when a table's is needed
    assert "POST /api/v1/games" not in tokens
    assert "that table's token" in SPEC["paths"]["/api/v1/games"]["post"]["description"]


def test_spec_paths_and_methods_equal_the_routes(app):
    routes = set()
    for rule in app.url_map.iter_rules():
        if rule.endpoint.endswith("static"):
            continue  # files (CSS, JavaScript), not endpoints
        path = re.sub(r"<(?:[^:>]+:)?([^>]+)>", r"{\1}", rule.rule)
        routes |= {(path, m.lower()) for m in rule.methods - IGNORED_METHODS}
    documented = {(path, method) for path, item in SPEC["paths"].items() for method in item
                  if method in {"get", "post", "put", "patch", "delete"}}
    assert documented == routes


def test_spec_served_is_the_file(client):
    r = client.get("/openapi.yaml")
    assert r.status_code == 200 and r.mimetype == "application/yaml"
    assert yaml.safe_load(r.get_data(as_text=True)) == SPEC


def test_every_value_the_engine_knows_is_in_the_spec():
    from anotador.rules import BOX_NAMES, OPTION_NAMES, REASONS, VARIANTS
    from anotador.rules import options as o

    schemas = SPEC["components"]["schemas"]
    assert schemas["KnownVariantId"]["enum"] == list(VARIANTS)
    assert set(schemas["KnownBoxId"]["enum"]) == set(BOX_NAMES)
    assert set(schemas["KnownOptionName"]["enum"]) == set(OPTION_NAMES)
    assert schemas["KnownEndReason"]["enum"] == list(REASONS)
    for name, values in (("Straight", o.STRAIGHTS), ("DoubleGeneralaAfter", o.DOUBLE_AFTER), ("Joker", o.JOKERS),
                         ("ServedGenerala", o.SERVED_GENERALA), ("TieBreak", o.TIE_BREAKS),
                         ("FirstPlayer", o.FIRST_PLAYER)):
        assert schemas[f"Known{name}"]["enum"] == list(values), name


# Enums an answer may carry that stay closed, and why: a value outside them would be another game.
CLOSED_IN_ANSWERS = {"AdviceResponse.properties.roll": "a turn has at most three rolls in every variant",
                     "IdempotentReplayed.schema": "a header present only on a replay, and then true"}


def _enums_in_answers():
    """Every enum reachable from a response, as (where, the enum's schema, the schema it was reached through)."""
    seen, found = set(), []

    def walk(node, where, through):
        if isinstance(node, list):
            for item in node:
                walk(item, where, through)
        if not isinstance(node, dict):
            return
        if "$ref" in node:
            kind, name = node["$ref"].split("/")[-2:]
            target = SPEC["components"][kind][name]
            if name not in seen:
                seen.add(name)
                walk(target, name, name)
            return
        if "enum" in node:
            found.append((where, node, through))
        for key, value in node.items():
            walk(value, f"{where}.{key}", through)

    for path, item in SPEC["paths"].items():
        for method, op in item.items():
            if isinstance(op, dict):
                walk(op.get("responses", {}), f"{method} {path}", None)
    return found


def test_every_enum_in_an_answer_is_open():
    """A later version may add a variant, a box, an option value, an end reason: a client generated from
    this spec must read it (as a plain string) rather than raise. So each enum in an answer is a Known*
    schema that only ever appears beside a plain string in an anyOf."""
    schemas = SPEC["components"]["schemas"]
    wrappers = {}
    for name, schema in schemas.items():
        refs = [alt.get("$ref", "").split("/")[-1] for alt in schema.get("anyOf", [])]
        plain = [alt for alt in schema.get("anyOf", []) if alt.get("type") == "string" and "enum" not in alt]
        for ref in refs:
            if ref and plain:
                wrappers[ref] = name
    found = _enums_in_answers()
    assert len(found) >= 12
    for where, node, through in found:
        if where in CLOSED_IN_ANSWERS:
            continue
        assert through is not None and through.startswith("Known") and where == through, where
        assert wrappers.get(through) == through.removeprefix("Known"), f"{through} is not opened by an anyOf"
    # no Known* schema is used bare anywhere but in its own open wrapper
    text = yaml.safe_dump(SPEC)
    for known, wrapper in wrappers.items():
        assert text.count(f"#/components/schemas/{known}'") == 1, known


def test_the_effective_rules_are_the_options_and_a_base():
    """EffectiveRules spells out Options' fields (no allOf with siblings, for generators): they must agree."""
    schemas = SPEC["components"]["schemas"]
    options, effective = schemas["Options"], schemas["EffectiveRules"]
    assert effective["properties"] == {"base": {"$ref": "#/components/schemas/VariantId"},
                                       **options["properties"]}
    assert effective["required"] == ["base", *options["required"]]
    # and both are what the service says: every option of every variant, with its base
    from anotador.rules import find_variant

    assert set(options["properties"]) == set(find_variant("generala").rules().options.as_dict())


def _walk(node):
    if isinstance(node, dict):
        yield node
        for value in node.values():
            yield from _walk(value)
    elif isinstance(node, list):
        for value in node:
            yield from _walk(value)


def test_the_spec_is_shaped_for_code_generators():
    """What generators stumble on: allOf beside properties, inline objects in unions, enums that hold null."""
    for name, schema in SPEC["components"]["schemas"].items():
        for node in _walk(schema):
            if "allOf" in node:
                assert not {"properties", "required"} & set(node), name
            for union in ("oneOf", "anyOf"):
                for branch in node.get(union, []):
                    assert "$ref" in branch or branch.get("type") != "object", (name, union)
            if "enum" in node:
                assert None not in node["enum"], name
            if "not" in node:
                raise AssertionError(f"{name}: 'not' makes untyped models")


def _operations_with_defaults() -> dict[str, tuple[str, str, dict]]:
    """operationId → (path, method, the defaults its JSON body's schema states) where there are any."""
    found = {}
    for path, item in SPEC["paths"].items():
        for method, op in item.items():
            body = op.get("requestBody", {}).get("content", {}).get("application/json") if isinstance(op, dict) else None
            if not body:
                continue
            ref = body["schema"]["$ref"].rsplit("/", 1)[-1]
            defaults = {k: v["default"] for k, v in SPEC["components"]["schemas"][ref]["properties"].items()
                        if "default" in v}
            if defaults:
                found[op["operationId"]] = (path, method, defaults)
    return found


# A minimal valid body for each operation whose body has defaults ({game_id}: a new game's).
MINIMAL = {
    "scoreRoll": {"variant": "generala", "dice": [1, 2, 3, 4, 5]},
    "makeSheet": {"variant": "generala"},
    "recordTurn": {"player": 0, "category": "ones", "dice": [1, 1, 3, 4, 5]},
    "createTable": {"name": "Los domingos"},
}


def test_every_operation_with_defaults_is_checked():
    assert set(_operations_with_defaults()) == set(MINIMAL)


@pytest.mark.parametrize("operation", sorted(MINIMAL))
def test_every_default_the_spec_states_is_accepted(api, operation):
    """A generated client sends every default: the server must take each (ScoreRequest.limit's was refused)."""
    path, method, defaults = _operations_with_defaults()[operation]
    body, headers = dict(MINIMAL[operation]), {}
    if "{game_id}" in path:
        game = api.post("/api/v1/games", json={"variant": "generala", "players": ["Ana", "Beto"]}).get_json()
        path, headers = path.replace("{game_id}", game["id"]), {"Authorization": f"Bearer {game['token']}"}
        body["player"] = game["turn"]["player"]
    r = api.open(path, method=method.upper(), json={**body, **defaults}, headers=headers)
    assert r.status_code in (200, 201), (defaults, r.get_json())


def _fuzz_app():
    """An app on a migrated SQLite file that lives as long as the test run."""
    from .dbkit import migrated_app

    folder = tempfile.mkdtemp(prefix="anotador-fuzz-")
    atexit.register(shutil.rmtree, folder, ignore_errors=True)
    # The fuzzer creates hundreds of games from one address: no rate limit here
    # (tests/test_games_limits.py tests it).
    # The WSGI transport does not decode compressed answers: compression is
    # tested over real HTTP (tests/test_deploy.py, tests/test_page.py).
    return migrated_app(f"sqlite:///{folder}/fuzz.sqlite", GAMES_PER_MINUTE=0, COMPRESS_REGISTER=False)


#: Bodies whose meaning the engine checks beyond what JSON Schema can say
#: (the points a box can hold in this variant, an option this base has no use
#: for, a turn out of order): a schema-valid request may still be a 422 there.
#: Every such 422 has tests of its own; everywhere else a schema-valid request
#: must be accepted.
MEANING_CHECKED = ["scoreRoll", "adviseRoll", "createGame", "recordTurn", "correctTurn", "rollOff", "makeSheet",
                   "getVariantSheet",
                   # names and time zones as games check them, days in order, cursors of ours, regulars of the table
                   "createTable", "getTable", "listTableGames", "addTableGame", "renameTablePlayer",
                   "mergeTablePlayer",
                   # a schema-valid If-Match that is not the game's version (the stateful phase has the game)
                   "undoTurn"]
#: The advisor answers 503 with Retry-After while a rule set's table is built
#: (documented): the fuzzer's house rules start builds of their own.
ADVISOR = ["adviseRoll", "analyseGame", "gameChances", "getGameSheet"]
FUZZ_CONFIG = schemathesis.config.SchemathesisConfig.from_dict({"operations": [
    {"include-operation-id": MEANING_CHECKED,
     "checks": {"positive_data_acceptance": {
         "expected-statuses": ["2xx", "3xx", "401", "403", "404", "409", "412", "422", "429", "5xx"]},
         # a stale If-Match is a 412 before the body is read (RFC 9110 13.2.1: preconditions come before the
         # content is processed), whatever the body holds
         "negative_data_rejection": {
             "expected-statuses": ["400", "401", "403", "404", "405", "406", "409", "412", "415", "422", "428",
                                   "429", "5xx"]}}},
    {"include-operation-id": ADVISOR,
     "checks": {"not_a_server_error": {"expected-statuses": ["2xx", "3xx", "4xx", "503"]}}},
]})

fuzz_app = _fuzz_app()
schema = schemathesis.openapi.from_wsgi("/openapi.yaml", fuzz_app, config=FUZZ_CONFIG)


@pytest.mark.slow
@schema.parametrize()
@settings(max_examples=150, deadline=None, suppress_health_check=list(HealthCheck))
def test_schemathesis_fuzz(case):
    """Every check on, every phase: no 500, every answer as the spec says."""
    case.call_and_validate()


#: Write tokens of the games and tables the stateful phase created, by id.
TOKENS: dict[str, str] = {}


class Sessions(schema.as_state_machine()):
    """Schemathesis' stateful phase with the tokens a client keeps: each write goes with the token of the game or
    table it names (created earlier in the sequence), so the sequences reach turns, chances, tables of regulars
    and their players, not only 401s."""

    def before_call(self, case):
        for name in ("game_id", "mesa_id"):
            token = TOKENS.get((case.path_parameters or {}).get(name))
            if token is not None:
                case.headers = {**(case.headers or {}), "Authorization": f"Bearer {token}"}

    def after_call(self, response, case):
        if response.status_code == 201:
            body = response.json()
            if isinstance(body, dict) and isinstance(body.get("id"), str) and isinstance(body.get("token"), str):
                TOKENS[body["id"]] = body["token"]


@pytest.mark.slow
def test_schemathesis_stateful_with_real_ids_and_tokens():
    """Sequences of calls chained by the spec's links (a game or table created, then read, played, brought
    to a table, renamed, merged), every check on: no 500, every answer as the spec says."""
    Sessions.run(settings=settings(max_examples=60, stateful_step_count=8, deadline=None,
                                   suppress_health_check=list(HealthCheck)))
    assert TOKENS  # the sequences created games and tables, and wrote with their tokens
