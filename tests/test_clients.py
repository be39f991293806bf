"""The contract as other apps use it: clients generated from openapi.yaml by real generators play a game.

- openapi-python-client (from PyPI, in a venv of its own) generates a client
  with no warning, and a whole game played through it, checked by
  ``mypy --strict``, comes out as the server says;
- openapi-typescript types and openapi-fetch calls (from the npm registry)
  play the same game, checked by ``tsc --strict``, under Node;
- Spectral's ``spectral:oas`` rules find nothing, not even a hint, nor do
  Redocly's ``recommended`` rules, not even a warning.

The tools are installed by the tests themselves (kept in build/clients);
without the registries, or without Node, the tests skip saying so (fail in CI).
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import threading
from pathlib import Path

import pytest
from werkzeug.serving import make_server

from .conftest import ROOT
from .dbkit import dispose, migrated_app
from .toolkit import run

@pytest.fixture(scope="module")
def server(tmp_path_factory):
    """Anotador on a real socket (a thread of werkzeug's server), on a fresh SQLite database."""
    folder = tmp_path_factory.mktemp("clients")
    app = migrated_app(f"sqlite:///{folder / 'c.sqlite'}", GAMES_PER_MINUTE=0, SOLVER_DIR=str(folder / "solver"))
    httpd = make_server("127.0.0.1", 0, app, threaded=True)
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{httpd.server_port}"
    httpd.shutdown()
    dispose(app)


@pytest.fixture(scope="module")
def python_client(python_tools, tmp_path_factory):
    """The client openapi-python-client makes of openapi.yaml, with the README's settings."""
    out = tmp_path_factory.mktemp("pyclient")
    made = run(python_tools / "bin" / "openapi-python-client", "generate", "--path", ROOT / "openapi.yaml",
               "--output-path", out / "anotador_client", "--meta", "none",
               "--config", ROOT / "clients" / "openapi-python-client.yaml", "--fail-on-warning")
    return out, made


def test_openapi_python_client_generates_without_a_warning(python_client):
    out, made = python_client
    assert made.returncode == 0, made.stdout + made.stderr
    assert "Warning" not in made.stdout + made.stderr, made.stdout + made.stderr
    models = {p.stem for p in (out / "anotador_client" / "models").glob("*.py")}
    # every answer the issue found dropped is a model now
    assert {"game", "game_created", "score_response", "variant", "options", "effective_rules",
            "validation_problem", "advice_response", "history"} <= models
    # an open enum is one named enum of the known values (the rest read as str), not copies
    assert {"known_end_reason", "known_straight", "known_joker", "known_served_generala", "known_box_id",
            "known_variant_id"} <= models
    assert not [m for m in models if m.startswith("options_straight") or "type_0" in m or "type_1" in m]
    # every operation answers with a typed model (or bytes)
    api = out / "anotador_client" / "api"
    for module in api.rglob("*.py"):
        text = module.read_text()
        if "def sync_detailed" in text:
            assert "omitted" not in text, module


def check_game(seen: dict) -> None:
    """What the game scripts must have seen (tests/clients/python_game.py and ts/game.ts play the same game)."""
    assert {"generala", "yahtzee", "double-cameroon"} <= set(seen["variants"])
    assert seen["full_served"] == 35  # 30 + the served bonus of 5
    assert seen["circular_straight"] == 20  # 3-4-5-6-1 under circular, no served bonus
    assert seen["problem"]["status"] == 422 and seen["problem"]["fields"] == ["dice"]
    assert seen["turns"] == 6 * seen["boxes"] + 1  # every box of six players, and the turn undone played again
    assert seen["totals"] == [21, 42, 63, 21, 42, 63]
    assert seen["reason"] == "tie_shared"  # seats 2 and 5, 63 each: generala shares a tie
    assert seen["names"][0] == "Guillermina Fernández de la Serna Ortiz" and seen["names"][1] == "李小龍"
    assert seen["poll"] == [304, 200]
    assert seen["pdf"] == "%PDF-"
    assert seen["later"] == ["a-new-variant", "a_new_reason", "a_new_status", "a_new_straight"]


def test_a_whole_game_through_the_generated_python_client_typed(python_tools, python_client, server):
    out, made = python_client
    assert made.returncode == 0, made.stdout + made.stderr
    script = ROOT / "tests" / "clients" / "python_game.py"
    env = {**os.environ, "PYTHONPATH": str(out), "MYPYPATH": str(out)}
    env.pop("VIRTUAL_ENV", None)
    checked = run(python_tools / "bin" / "python", "-m", "mypy", "--strict", "--no-incremental",
                  "--follow-imports=silent", script, env=env, cwd=out)
    assert checked.returncode == 0, checked.stdout + checked.stderr
    played = run(python_tools / "bin" / "python", script, server, env=env, cwd=out, timeout=120)
    assert played.returncode == 0, played.stdout + played.stderr
    check_game(json.loads(played.stdout.strip().splitlines()[-1]))


def test_a_whole_game_through_a_typescript_client_strictly_typed(node_tools, server, tmp_path):
    for name in ("game.ts", "tsconfig.json", "package.json"):
        shutil.copy(ROOT / "tests" / "clients" / "ts" / name, tmp_path / name)
    (tmp_path / "node_modules").symlink_to(node_tools)
    bin_ = node_tools / ".bin"
    # --default-non-nullable false: a request field with a default stays optional (README)
    made = run(bin_ / "openapi-typescript", ROOT / "openapi.yaml", "-o", tmp_path / "schema.d.ts",
               "--default-non-nullable", "false", cwd=tmp_path)
    assert made.returncode == 0, made.stdout + made.stderr
    checked = run(bin_ / "tsc", "-p", tmp_path, cwd=tmp_path)
    assert checked.returncode == 0, checked.stdout + checked.stderr
    assert '"strict": true' in (tmp_path / "tsconfig.json").read_text()
    played = run("node", tmp_path / "out" / "game.js", server, cwd=tmp_path, timeout=120)
    assert played.returncode == 0, played.stdout + played.stderr
    check_game(json.loads(played.stdout.strip().splitlines()[-1]))


def spectral(node_tools, spec: Path, folder: Path) -> tuple[list, subprocess.CompletedProcess]:
    ruleset = folder / ".spectral.yaml"
    ruleset.write_text('extends: ["spectral:oas"]\n')
    linted = run(node_tools / ".bin" / "spectral", "lint", spec, "--ruleset", ruleset,
                 "--format", "json", "--fail-severity", "hint", cwd=folder)
    found, _ = json.JSONDecoder().raw_decode(linted.stdout[linted.stdout.index("["):])
    return found, linted


def test_spectral_finds_nothing_in_the_spec(node_tools, tmp_path):
    found, linted = spectral(node_tools, ROOT / "openapi.yaml", tmp_path)
    assert found == [] and linted.returncode == 0, linted.stdout + linted.stderr
    # and it would say so: the same spec without its contact and one description
    broken = (ROOT / "openapi.yaml").read_text().replace("  contact:\n", "  x-contact:\n", 1)
    broken = broken.replace("      description: One built-in variant, as in the list; 404 for an unknown id.\n", "")
    (tmp_path / "broken.yaml").write_text(broken)
    found, linted = spectral(node_tools, tmp_path / "broken.yaml", tmp_path)
    assert sorted(f["code"] for f in found) == ["info-contact", "operation-description"] and linted.returncode


def redocly(node_tools, spec: Path, folder: Path) -> tuple[dict, subprocess.CompletedProcess]:
    linted = run(node_tools / ".bin" / "redocly", "lint", spec, "--extends", "recommended", "--format", "json",
                 cwd=folder)
    found, _ = json.JSONDecoder().raw_decode(linted.stdout[linted.stdout.index("{"):])
    return found, linted


def test_redocly_recommended_finds_nothing_in_the_spec(node_tools, tmp_path):
    found, linted = redocly(node_tools, ROOT / "openapi.yaml", tmp_path)
    assert found["totals"] == {"errors": 0, "warnings": 0, "ignored": 0}, linted.stdout
    assert linted.returncode == 0, linted.stdout + linted.stderr
    # and it would say so: a public operation that does not say so, and one with no 4XX answer
    broken = (ROOT / "openapi.yaml").read_text().replace(
        "      operationId: getHealth\n      security: []\n", "      operationId: getHealth\n", 1)
    broken = broken.replace('        "400": {$ref: "#/components/responses/UnknownHost"}\n', "", 1)
    (tmp_path / "broken.yaml").write_text(broken)
    found, linted = redocly(node_tools, tmp_path / "broken.yaml", tmp_path)
    assert sorted(p["ruleId"] for p in found["problems"]) == ["operation-4xx-response", "security-defined"]
    assert linted.returncode
