"""What a server makes ahead so that a new game's first figures come at once: the built-in tables, the
Yahtzee family's outcomes (their early chances), and in each worker the chances of the exact rule sets."""

from __future__ import annotations

import threading

import pytest

from anotador.ops import asgi
from anotador.advisor.outlooks import Outlooks
from anotador.advisor.tables import TableBuilding, Tables
from anotador.rules import VARIANTS
from anotador.solver.build import BUSY, _ahead_outcomes, ahead_files, builtin_rules
from anotador.solver.chances import exact_for
from anotador.solver.folder import key_of

from .conftest import SOLVER_DIR, built_in_run_folder
from .test_api_advice import fresh_app

EXACT = sorted(v.id for v in VARIANTS.values() if exact_for(v.rules()) is None)


def test_the_plan_is_every_table_then_the_yahtzee_familys_outcomes(tmp_path):
    plan = ahead_files(str(tmp_path))
    tables = [path for _, path, table in plan if table is None]
    followed = [path for _, path, table in plan if table is not None]
    assert plan[:len(tables)] == [p for p in plan if p[2] is None]  # the tables first: the outcomes read them
    assert all(p[2] in tables and path == p[2][:-len(".table")] + ".outcomes.table"
               for p in plan for path in [p[1]] if p[2] is not None)
    assert tables == [str(tmp_path / f"{key_of(r)}.table") for r in builtin_rules()]
    by_key = {key_of(v.rules()): v.id for v in VARIANTS.values()}
    assert sorted(by_key[p.rsplit("/", 1)[1].split(".")[0]] for p in followed) == ["kniffel", "yahtzee", "yatzy"]
    assert all(p.endswith(".outcomes.table") for p in followed)
    assert [p for _, p, table in ahead_files(str(tmp_path), outcomes=False) if table is not None] == []


def test_outcomes_wait_for_their_table_and_for_the_folders_one_place(tmp_path):
    spec, _, table = next(p for p in ahead_files(str(tmp_path)) if p[2] is not None)
    assert _ahead_outcomes(str(tmp_path), spec, table) == BUSY  # no table yet: looked at again later
    assert not (tmp_path / "outcomes.lock").exists()


def test_an_app_starts_no_builder_when_everything_planned_is_there(tmp_path):
    folder = tmp_path / "t"
    folder.mkdir()
    for _, path, _ in ahead_files(str(folder)):
        open(path, "wb").close()  # stand-ins: this test is about the plan, not the builds
    assert fresh_app(tmp_path, folder, SOLVER_BUILD_AHEAD=True).extensions["anotador.tables"].ahead_process is None
    (folder / next(p for p in ahead_files(str(folder)) if p[2] is not None)[1].rsplit("/", 1)[1]).unlink()
    # one outcomes file missing: built ahead, unless the operator said tables only
    only_tables = fresh_app(tmp_path, folder, SOLVER_BUILD_AHEAD=True, SOLVER_OUTCOMES_AHEAD=False)
    assert only_tables.extensions["anotador.tables"].ahead_process is None
    tables = fresh_app(tmp_path, folder, SOLVER_BUILD_AHEAD=True).extensions["anotador.tables"]
    try:
        assert tables.ahead_process is not None
    finally:
        tables.ahead_process.kill()
        tables.ahead_process.wait(timeout=10)


def test_a_worker_makes_the_exact_chances_ahead_so_the_first_request_finds_them():
    for variant in EXACT:
        built_in_run_folder(variant)
    cold = Outlooks(Tables(SOLVER_DIR, ahead=False))
    with pytest.raises(TableBuilding):  # asked first, as a new game's page does: made meanwhile
        cold.outlook(VARIANTS["generala"].rules())
    warm = Outlooks(Tables(SOLVER_DIR, ahead=False))
    assert sorted(warm.warm(pause=0.05, give_up=300)) == EXACT
    for variant in EXACT:
        warm.outlook(VARIANTS[variant].rules())  # at once: no TableBuilding


def test_each_served_worker_starts_making_them_when_it_starts(tmp_path):
    folder = tmp_path / "t"
    folder.mkdir()
    for _, path, _ in ahead_files(str(folder)):
        open(path, "wb").close()
    app = fresh_app(tmp_path, folder, SOLVER_BUILD_AHEAD=True)
    started = threading.Event()
    app.extensions["anotador.outlooks"].warm = started.set  # what it makes is the test above's
    asgi.ahead(app.extensions["anotador.outlooks"])
    assert started.wait(10)
    off = fresh_app(tmp_path, folder, SOLVER_BUILD_AHEAD=False)
    off.extensions["anotador.outlooks"].warm = started.clear
    asgi.ahead(off.extensions["anotador.outlooks"])
    assert started.is_set()
