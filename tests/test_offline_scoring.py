"""The page's offline scoring equals /api/v1/score: every roll, every variant, many sheets.

With no connection the pad scores from the game's scoring table
(``GET /api/v1/games/{id}/scoring``, worked out by ``anotador.rules.table``)
through ``static/js/scoring.js``. Here that very module runs under Node on
every group of five dice, served and not, of every variant, on sheets that
put each watched box (generala, yahtzee, the joker's upper box) in every
state, on sheets whose lower or upper section is full (a forced joker's
later groups) and on random sheets; each answer must equal the engine's
(what /api/v1/score sends), and on one sheet per variant the real endpoint's.
"""

from __future__ import annotations

import json
import random
import shutil
import subprocess
from pathlib import Path

import pytest

from anotador.rules import VARIANTS, find_variant
from anotador.rules.spec import GROUP, expand, groups_of
from anotador.rules.table import offline_table
from anotador.api.schemas import dump_score

from .conftest import ROOT
from .toolkit import require

SCORING_JS = ROOT / "anotador" / "web" / "static" / "js" / "scoring.js"
RUNNER = """
import { readFileSync } from "node:fs";
import { scoreOffline } from "%s";
const { table, cases } = JSON.parse(readFileSync(process.argv[2], "utf8"));
const out = cases.map(([dice, served, sheet]) => scoreOffline(table, dice, served, sheet));
process.stdout.write(JSON.stringify(out));
"""


def sheets_for(rules, rng: random.Random) -> list[dict[str, int]]:
    """Sheets that reach every case of the table, and random ones, each one a sheet the engine accepts."""
    ids = [b.id for b in rules.boxes]
    possible = rules.possible_points
    upper = [b.id for b in rules.boxes if b.kind == "number"]
    lower = [i for i in ids if i not in upper]

    def some(box: str) -> int:
        return rng.choice(sorted(v for v in possible[box] if v > 0) or [0])

    found: list[dict[str, int]] = [{}]
    watched = {w for counts in groups_of(GROUP) for w in rules.watched(counts)}
    for box in sorted(watched):
        found += [{box: 0}, {box: some(box)}]
        for other in sorted(watched - {box}):
            found += [{box: 0, other: 0}, {box: some(box), other: some(other)}]
    for key in [k for k in ids if "yahtzee" in k or "generala" in k][:1]:
        # a forced joker's later groups: its upper box closed, then the lower section full too
        for face_box in upper:
            found.append({key: some(key), face_box: 0})
        found.append({key: some(key), **{b: 0 for b in upper[:5]}, **{b: 0 for b in lower if b != key}})
        found.append({key: 0, **{b: 0 for b in lower if b != key}})
    for _ in range(12):
        closed = rng.sample(ids, rng.randrange(0, len(ids) - rules.boxes_per_turn + 1, rules.boxes_per_turn))
        found.append({b: rng.choice(sorted(possible[b])) for b in closed})
    checked = []
    for sheet in found:
        try:
            rules.check_sheet(sheet)
        except Exception:  # a combination no real sheet has (a double generala held before its time)
            continue
        checked.append(sheet)
    return checked


def engine(rules, counts, served, sheet):
    return dump_score(rules.score_counts(counts, served, rules.check_sheet(sheet)))


@pytest.fixture(scope="module")
def node():
    require(shutil.which("node") is not None, "Node.js is not installed: the offline scoring test runs scoring.js")
    return shutil.which("node")


def run_js(node, folder: Path, table, cases):
    (folder / "run.mjs").write_text(RUNNER % SCORING_JS.as_uri())
    (folder / "cases.json").write_text(json.dumps({"table": table, "cases": cases}))
    done = subprocess.run([node, str(folder / "run.mjs"), str(folder / "cases.json")], capture_output=True,
                          text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


@pytest.mark.parametrize("variant_id", list(VARIANTS))
def test_the_offline_answer_is_the_engines_for_every_roll(variant_id, node, tmp_path):
    rules = find_variant(variant_id).rules()
    table = json.loads(json.dumps(offline_table(rules)))  # as the page gets it
    rng = random.Random(variant_id)
    sheets = sheets_for(rules, rng)
    assert len(sheets) >= 12
    cases, wanted = [], []
    for sheet in sheets:
        for counts in groups_of(GROUP):
            for served in (False, True):
                dice = list(expand(counts))
                rng.shuffle(dice)  # as tapped, in any order
                cases.append([dice, served, {**{b.id: None for b in rules.boxes[:2]}, **sheet}])
                wanted.append(engine(rules, counts, served, sheet))
    got = run_js(node, tmp_path, table, cases)
    wrong = [(c, g, w) for c, g, w in zip(cases, got, wanted) if g != w]
    assert not wrong, f"{len(wrong)} of {len(cases)} differ, e.g. {wrong[:3]}"


def test_the_table_reaches_every_rule_that_reads_the_sheet():
    """The cases exist where the rules look at the sheet: a served generala, a double, a joker."""
    generala = offline_table(find_variant("generala-doble").rules())["rolls"]
    assert len(generala["66666s"]) == 3 and len(generala["12345"]) == 1
    yahtzee = offline_table(find_variant("yahtzee").rules())["rolls"]
    assert len(yahtzee["44444"]) == 9 and yahtzee["44444"][-1]["order"][0] == ["fours"]
    assert {c["bonus"] for c in yahtzee["44444"]} == {0, 100}


def test_the_endpoint_serves_the_table_that_scores_as_score_does(api, node, tmp_path):
    """Through HTTP: a game's table, and /api/v1/score, agree on every roll of a mid-game sheet."""
    rng = random.Random(7)
    for variant_id in ("generala", "yahtzee", "yatzy"):
        created = api.post("/api/v1/games", json={"variant": variant_id, "players": ["Ana", "Beto"]})
        assert created.status_code == 201, created.get_json()
        got = api.get(f"/api/v1/games/{created.get_json()['id']}/scoring")
        assert got.status_code == 200 and got.headers["ETag"] and "max-age" in got.headers["Cache-Control"]
        again = api.get(f"/api/v1/games/{created.get_json()['id']}/scoring",
                           headers={"If-None-Match": got.headers["ETag"]})
        assert again.status_code == 304
        rules = find_variant(variant_id).rules()
        sheet = sheets_for(rules, rng)[-1]
        cases, wanted = [], []
        for counts in groups_of(GROUP):
            for served in (False, True):
                dice = list(expand(counts))
                answer = api.post("/api/v1/score", json={"variant": variant_id, "dice": dice, "served": served,
                                                            "sheet": sheet}).get_json()
                cases.append([dice, served, sheet])
                wanted.append({k: answer[k] for k in ("instant_win", "options", "scratch", "bonus") if k in answer})
        assert run_js(node, tmp_path, got.get_json(), cases) == wanted
    assert api.get("/api/v1/games/nope/scoring").status_code == 404
