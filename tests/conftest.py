"""The run's set-up (one BLAS thread, the run's name, its advisor folder) and the shared fixtures: the app, its
test client, the advisor's tables and rule-set factories. The rest, by concern, are plugins: the databases
(dbkit), the browser (browserkit), the test tools and services (toolkit)."""

from __future__ import annotations

import atexit
import os
import secrets
import shutil
import subprocess
import tempfile
from pathlib import Path

# One BLAS thread per process, set before numpy loads: the suite runs a process a core already, and
# OpenBLAS's own threads on top made a Yahtzee table cost 33 CPU-seconds instead of 19.
for _name in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_name, "1")

import pytest  # noqa: E402

from anotador import create_app
from anotador.rules import find_variant

ROOT = Path(__file__).resolve().parents[1]
ROOT_SPEC = ROOT / "openapi.yaml"

#: Which xdist worker this process is ("main" without xdist), and which run of the suite: the first process
#: (xdist's controller, or the only one) names the run, and its workers inherit the name.
WORKER = os.environ.get("PYTEST_XDIST_WORKER", "main")
RUN = os.environ.setdefault("ANOTADOR_TEST_RUN", f"{os.getpid()}_{secrets.token_hex(3)}")

# The advisor's tables of the whole run in one folder of its own (never the
# instance folder of a developer's checkout): every app the tests make, and
# every server they start, in every worker, reads and builds them there (the
# store locks a table while one process builds it). Made and removed by the
# first process.
if "ANOTADOR_TEST_SOLVER_DIR" not in os.environ:
    os.environ["ANOTADOR_TEST_SOLVER_DIR"] = tempfile.mkdtemp(prefix="anotador-solver-")
    atexit.register(shutil.rmtree, os.environ["ANOTADOR_TEST_SOLVER_DIR"], ignore_errors=True)
    # A built-in table asked for by a test is built to the end, for nobody once the run is over:
    # stopped with the run rather than left to slow the next one (atexit runs last-registered first).
    _builds = f"anotador.solver.build .*{os.environ['ANOTADOR_TEST_SOLVER_DIR']}"
    atexit.register(subprocess.run, ["pkill", "-f", _builds], check=False)
SOLVER_DIR = os.environ["ANOTADOR_SOLVER_DIR"] = os.environ["ANOTADOR_TEST_SOLVER_DIR"]
# Every app would otherwise build all the built-in tables (two minutes of a core) in each folder it
# is given; the tests that are about building ahead turn it on for a folder of their own.
os.environ["ANOTADOR_SOLVER_BUILD_AHEAD"] = "false"


@pytest.fixture
def app(tmp_path):
    """An app on a throwaway SQLite file."""
    return create_app({"TESTING": True, "SQLALCHEMY_DATABASE_URI": f"sqlite:///{tmp_path / 'test.sqlite'}"})


@pytest.fixture
def client(app):
    return app.test_client()


def built_in_run_folder(variant: str, wait: float = 300):
    """The advisor's table of ``variant`` in the run's one folder, as a server would have it built ahead: the
    first worker to ask builds it, the others wait for it (the store says TableBuilding while one builds)."""
    import time

    from anotador.advisor.tables import TableBuilding, Tables

    store, deadline = Tables(SOLVER_DIR), time.monotonic() + wait
    while True:
        try:
            return store.build_now(find_variant(variant).rules())
        except TableBuilding:
            if time.monotonic() > deadline:
                raise
            time.sleep(0.2)


def built_in_run_outcomes(variant: str, wait: float = 600):
    """The outcomes of ``variant`` (anotador.solver.sampled: the Yahtzee family's early chances) in the run's one
    folder beside its table, as a server would have them: the first worker to ask follows every state's turn
    (a minute for Yahtzee), the others wait for it. Returns their path."""
    import time

    from anotador.solver.build import BUSY, build_outcomes, outcomes_path
    from anotador.solver.folder import key_of, table_path

    built_in_run_folder(variant)
    rules = find_variant(variant).rules()
    path, deadline = table_path(SOLVER_DIR, key_of(rules)), time.monotonic() + wait
    while build_outcomes(rules.spec(), path) == BUSY:
        if time.monotonic() > deadline:
            raise TimeoutError(f"nobody finished {variant}'s outcomes in {wait} s")
        time.sleep(0.5)
    return outcomes_path(path)


@pytest.fixture(scope="session")
def advice_tables():
    """The advisor's tables of generala and double-cameroon, built once for the run (5 s)."""
    return {v: built_in_run_folder(v) for v in ("generala", "double-cameroon")}


_SOLVED: dict = {}


def solved(rules):
    """``(solver, table)`` of ``rules``, built once per process: a test only reads a table.

    Yahtzee's takes 18 s and Yatzy's 40 s; several tests check the same one.
    """
    import json

    from anotador.solver import Solver

    key = json.dumps(rules.spec(), sort_keys=True)
    if key not in _SOLVED:
        solver = Solver(rules)
        _SOLVED[key] = solver, solver.build()
    return _SOLVED[key]


@pytest.fixture
def rules():
    """Factory: ``rules("generala", served_bonus=10)`` → a frozen rule set."""

    def make(variant_id: str, **overrides):
        return find_variant(variant_id).rules(overrides)

    return make


@pytest.fixture
def score(client):
    """Factory: POST /api/v1/score with a JSON body, return the response."""

    def post(**body):
        return client.post("/api/v1/score", json=body)

    return post


def points_of(result) -> dict[str, int]:
    """Box → points of a Score's options."""
    return {o.category: o.points for o in result.options}


def pytest_collection_modifyitems(items):
    """Every test that drives the browser is marked ``browser`` (CI runs those on one Python only: the page is
    the same JavaScript on each, and the server it talks to is tested on each without it). Then the modules
    with slow tests first, each kept whole: scripts/test hands whole modules to its workers (``--dist
    loadfile``), so the longest start at once and the rest fill in around them."""
    for item in items:
        if "browser" in getattr(item, "fixturenames", ()):
            item.add_marker(pytest.mark.browser)
    slow = {item.path for item in items if item.get_closest_marker("slow")}
    items.sort(key=lambda item: item.path not in slow)


#: The fixtures by concern, in modules of their own.
pytest_plugins = ["tests.toolkit", "tests.dbkit", "tests.browserkit"]
