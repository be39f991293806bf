"""Shared fixtures: the app, its test client, and rule-set factories."""

from __future__ import annotations

import atexit
import importlib
import os
import re
import secrets
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

# One BLAS thread per process, set before numpy loads: the suite runs a process a core already, and
# OpenBLAS's own threads on top made a Yahtzee table cost 33 CPU-seconds instead of 19.
for _name in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_name, "1")

import pytest  # noqa: E402
from sqlalchemy.engine import make_url  # noqa: E402

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

    from anotador.advice import TableBuilding, Tables

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


# -- skips that must not hide in CI ---------------------------------------------

NO_SKIP = os.environ.get("ANOTADOR_NO_SKIP") == "1"


def needs(module: str, install: str):
    """Import a test tool a module cannot run without, or skip that module saying how to install it.

    Called at the top of a test module before it imports the tool, so a
    missing Playwright, pypdf, hypothesis or schemathesis skips the modules
    that need it instead of breaking the collection of the whole suite. In
    CI (ANOTADOR_NO_SKIP=1) a missing tool is an error.
    """
    try:
        return importlib.import_module(module)
    except ImportError:
        if NO_SKIP:
            raise
        pytest.skip(f"{module} is not installed ({install})", allow_module_level=True)


def require(condition: bool, reason: str) -> None:
    """Skip the calling test with ``reason`` unless ``condition``; fail in CI.

    Tests that need PostgreSQL or a browser call this. Locally a missing
    service is a clear skip; .ci/run sets ANOTADOR_NO_SKIP=1 so CI cannot go
    green by skipping what it was meant to check.
    """
    if condition:
        return
    if NO_SKIP:
        pytest.fail(f"{reason} (ANOTADOR_NO_SKIP=1: this must run in CI)")
    pytest.skip(reason)


# -- databases --------------------------------------------------------------------

#: The PostgreSQL server the tests may use (its database is only where to connect to make their own).
PG_SERVER = os.environ.get("ANOTADOR_TEST_POSTGRES_URL", "postgresql+psycopg://postgres@127.0.0.1:5432/test")
#: The database of this process of this run: made by the first test that needs it, dropped at the end, so
#: two suites (or two workers of one) never touch each other's tables.
PG_DATABASE = f"anotador_test_{RUN}_{WORKER}".lower()
PG_URL = make_url(PG_SERVER).set(database=PG_DATABASE).render_as_string(hide_password=False)


def _tables() -> tuple[str, ...]:
    from anotador import models  # noqa: F401 - registers every table
    from anotador.extensions import db

    return tuple(t.name for t in db.metadata.sorted_tables)


TABLES = _tables()


def _maintenance():
    """A connection to the server (autocommit), to make and drop databases: its ``postgres`` database."""
    import psycopg

    url = make_url(PG_SERVER).set(drivername="postgresql", database="postgres")
    return psycopg.connect(url.render_as_string(hide_password=False), connect_timeout=3, autocommit=True)


def pg_reachable() -> bool:
    try:
        _maintenance().close()
        return True
    except Exception:
        return False


def _drop_orphans(conn) -> None:
    """Drop the databases of earlier runs whose process is gone (killed before it could drop its own)."""
    names = [r[0] for r in conn.execute("SELECT datname FROM pg_database WHERE datname LIKE 'anotador_test_%'")]
    for name in names:
        found = re.fullmatch(r"anotador_test_(\d+)_\w+", name)
        if found and not os.path.exists(f"/proc/{found.group(1)}"):
            conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


def dispose(app) -> None:
    """Close the app's database connections (for SQLite: checkpoint the WAL)."""
    from anotador.extensions import db

    with app.app_context():
        db.engine.dispose()
    app.extensions["anotador.heads"].close()


def run_sql(url: str, statement: str) -> None:
    """Run one statement on ``url`` outside any app."""
    import sqlalchemy as sa

    engine = sa.create_engine(url)
    with engine.begin() as conn:
        conn.execute(sa.text(statement))
    engine.dispose()


def migrated_app(url: str, **config):
    """An app on ``url`` with the schema made by the migrations, as in production."""
    from flask_migrate import upgrade

    app = create_app({"TESTING": True, "SQLALCHEMY_DATABASE_URI": url, **config})
    with app.app_context():
        upgrade()
    return app


@pytest.fixture(scope="session")
def sqlite_template(tmp_path_factory):
    path = tmp_path_factory.mktemp("db") / "template.sqlite"
    dispose(migrated_app(f"sqlite:///{path}"))  # the WAL checkpointed into the file we copy
    return path


@pytest.fixture(scope="session")
def postgres_url():
    """This process's own PostgreSQL database, migrated; dropped when the session ends."""
    require(pg_reachable(), f"PostgreSQL is not reachable at {PG_SERVER} (set ANOTADOR_TEST_POSTGRES_URL)")
    with _maintenance() as conn:
        _drop_orphans(conn)
        conn.execute(f'DROP DATABASE IF EXISTS "{PG_DATABASE}" WITH (FORCE)')
        conn.execute(f'CREATE DATABASE "{PG_DATABASE}"')
    dispose(migrated_app(PG_URL))
    yield PG_URL
    with _maintenance() as conn:
        conn.execute(f'DROP DATABASE IF EXISTS "{PG_DATABASE}" WITH (FORCE)')


@pytest.fixture(params=["sqlite", "postgresql"])
def db_url(request, tmp_path, sqlite_template):
    """A freshly migrated, empty database: SQLite, then PostgreSQL."""
    if request.param == "sqlite":
        path = tmp_path / "anotador.sqlite"
        shutil.copyfile(sqlite_template, path)
        return f"sqlite:///{path}"
    url = request.getfixturevalue("postgres_url")
    run_sql(url, f"TRUNCATE {', '.join(TABLES)} RESTART IDENTITY CASCADE")
    return url


@pytest.fixture
def db_app(db_url):
    app = create_app({"TESTING": True, "SQLALCHEMY_DATABASE_URI": db_url})
    yield app
    dispose(app)


@pytest.fixture
def api(db_app):
    """A test client on a migrated database (each test runs on both kinds)."""
    return db_app.test_client()


class Table:
    """A game created through the API, with helpers to play it."""

    def __init__(self, client, body):
        self.client = client
        self.body = body
        self.id = body["id"]
        self.token = body["token"]
        self.auth = {"Authorization": f"Bearer {self.token}"}

    def url(self, suffix=""):
        return f"/api/v1/games/{self.id}{suffix}"

    def get(self):
        r = self.client.get(self.url())
        assert r.status_code == 200, r.get_json()
        return r.get_json()

    def turn(self, player, category=None, dice=None, served=False, scratch=False, expect=201, **extra):
        body = {"player": player, "served": served, **extra}
        if category is not None:
            body["category"] = category
        if dice is not None:
            body["dice"] = dice
        if scratch:
            body["scratch"] = True
        r = self.client.post(self.url("/turns"), json=body, headers=self.auth)
        assert r.status_code == expect, r.get_json()
        return r.get_json()

    def undo(self, expect=200):
        r = self.client.delete(self.url("/turns/last"), headers=self.auth)
        assert r.status_code == expect, r.get_json()
        return r.get_json()

    def correct(self, number, expect=200, **body):
        r = self.client.patch(self.url(f"/turns/{number}"), json=body, headers=self.auth)
        assert r.status_code == expect, r.get_json()
        return r.get_json()


@pytest.fixture
def new_game(api):
    """Factory: ``new_game("generala", ["Ana", "Beto"])`` → a Table."""

    def make(variant="generala", players=("Ana", "Beto"), **extra):
        body = {"players": list(players), **extra}
        if isinstance(variant, dict):
            body["rules"] = variant
        else:
            body["variant"] = variant
        r = api.post("/api/v1/games", json=body)
        assert r.status_code == 201, r.get_json()
        return Table(api, r.get_json())

    return make


# -- the page in a browser ---------------------------------------------------------

CHROMIUM = os.environ.get("ANOTADOR_CHROMIUM", "/usr/bin/chromium")
SHOTS = ROOT / "build" / "screenshots"
PHONE = {"viewport": {"width": 360, "height": 740}, "device_scale_factor": 2, "is_mobile": True, "has_touch": True}


def serve_app(app, prefix: str = ""):
    """Serve ``app`` from a thread on a free port (under ``prefix``, as behind a proxy); return (url, server)."""
    import threading

    from werkzeug.exceptions import NotFound
    from werkzeug.middleware.dispatcher import DispatcherMiddleware
    from werkzeug.serving import make_server

    wsgi = DispatcherMiddleware(NotFound(), {prefix: app}) if prefix else app
    server = make_server("127.0.0.1", 0, wsgi, threaded=True)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return f"http://127.0.0.1:{server.server_port}", server


@pytest.fixture(scope="session")
def page_app(tmp_path_factory):
    """The app the browser tests talk to, on a migrated SQLite file."""
    folder = tmp_path_factory.mktemp("page")
    # one address plays every test: no per-address limit here
    return migrated_app(f"sqlite:///{folder}/page.sqlite", GAMES_PER_MINUTE=0, TO_WIN_SHARE=4,
                        TO_WIN_CLIENT_SHARE=4, TO_WIN_BURST=600, TO_WIN_AT_ONCE=8)


@pytest.fixture(scope="session")
def base_url(page_app):
    url, server = serve_app(page_app)
    yield url
    server.shutdown()


@pytest.fixture(scope="session")
def browser():
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:  # pragma: no cover
        sync_playwright = None
    require(sync_playwright is not None, "Playwright is not installed (pip install playwright)")
    require(os.path.exists(CHROMIUM) or shutil.which("chromium") is not None,
            f"Chromium is not installed at {CHROMIUM} (apt-get install chromium)")
    with sync_playwright() as pw:
        b = pw.chromium.launch(executable_path=CHROMIUM if os.path.exists(CHROMIUM) else shutil.which("chromium"),
                               args=["--no-sandbox", "--disable-gpu", "--disable-background-networking",
                                     "--disable-component-update", "--disable-sync", "--no-first-run"])
        yield b
        b.close()


@pytest.fixture
def phone(browser, base_url):
    """Factory: a new phone (browser context): ``phone(locale, width=, height=, url=, **context options)``."""
    contexts = []

    def make(locale="en-US", width=360, height=740, url=None, **options):
        where = url or base_url
        ctx = browser.new_context(locale=locale, base_url=where,
                                  **{**PHONE, "viewport": {"width": width, "height": height}, **options})
        ctx.grant_permissions(["clipboard-read", "clipboard-write"], origin=where)
        contexts.append(ctx)
        page = ctx.new_page()
        page.errors, page.aborted = [], []
        page.on("pageerror", lambda exc: page.errors.append(str(exc)))
        page.on("dialog", lambda d: (page.errors.append(f"dialog: {d.message}"), d.dismiss()))
        page.on("requestfailed", lambda r: page.aborted.append(f"{r.method} {r.url} {r.failure}"))
        return page

    yield make
    for ctx in contexts:
        ctx.close()


def shot(page, name, full_page=False):
    SHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SHOTS / f"{name}.png"), full_page=full_page)


# -- axe-core, for the accessibility audits (tests/pagekit.py: audit) ----------------------

AXE_VERSION = "4.14.1"
AXE_DIR = ROOT / "build" / f"axe-core-{AXE_VERSION}"


@pytest.fixture(scope="session")
def axe_source():
    """axe-core's script, from the npm registry (installed into build/ once, not vendored)."""
    import tarfile

    path = AXE_DIR / "axe.min.js"
    if not path.exists():
        require(shutil.which("npm") is not None, "npm is not installed: axe-core comes from the npm registry")
        AXE_DIR.mkdir(parents=True, exist_ok=True)
        out = subprocess.run(["npm", "pack", f"axe-core@{AXE_VERSION}", "--pack-destination", str(AXE_DIR),
                              "--silent"], capture_output=True, text=True, timeout=300)
        require(out.returncode == 0, f"npm pack axe-core failed: {out.stderr.strip()[:300]}")
        tgz = AXE_DIR / out.stdout.strip().splitlines()[-1]
        with tarfile.open(tgz) as tar:
            path.write_bytes(tar.extractfile("package/axe.min.js").read())
    return path.read_text(encoding="utf-8")


# -- client generators (tests/test_clients.py, tests/test_readme.py) ---------------------

CLIENTS = ROOT / "build" / "clients"  # kept between runs: the registries are slow, the versions pinned
PYTHON_GENERATOR = "openapi-python-client==0.29.1"
MYPY = "mypy==1.19.1"


def run(*cmd, timeout=600, **kw) -> subprocess.CompletedProcess:
    return subprocess.run([str(c) for c in cmd], capture_output=True, text=True, timeout=timeout, **kw)


@pytest.fixture(scope="session")
def python_tools():
    """A venv with openapi-python-client and mypy (made once, kept in build/clients)."""
    venv = CLIENTS / f"py{sys.version_info[0]}{sys.version_info[1]}-venv"
    python = venv / "bin" / "python"
    stamp = venv / ".ready"
    wanted = f"{PYTHON_GENERATOR} {MYPY}"
    if not (stamp.exists() and stamp.read_text() == wanted):
        made = run(sys.executable, "-m", "venv", "--clear", venv)
        assert made.returncode == 0, made.stderr
        got = run(python, "-m", "pip", "install", "-q", "--disable-pip-version-check", PYTHON_GENERATOR, MYPY)
        require(got.returncode == 0, f"pip could not install {wanted} from the registry: {got.stderr[-400:]}")
        stamp.write_text(wanted)
    return venv


@pytest.fixture(scope="session")
def node_tools():
    """node_modules with openapi-typescript, openapi-fetch, TypeScript and Spectral, as tests/clients/ts pins them."""
    require(shutil.which("npm") is not None and shutil.which("node") is not None,
            "Node.js and npm are not installed: the TypeScript client and Spectral checks need them")
    folder = CLIENTS / "node"
    folder.mkdir(parents=True, exist_ok=True)
    wanted = (ROOT / "tests" / "clients" / "ts" / "package.json").read_text()
    stamp = folder / ".ready"
    if not (stamp.exists() and stamp.read_text() == wanted and (folder / "node_modules").is_dir()):
        (folder / "package.json").write_text(wanted)
        got = run("npm", "install", "--no-audit", "--no-fund", "--loglevel=error", cwd=folder)
        require(got.returncode == 0, f"npm could not install the TypeScript tools: {got.stderr[-400:]}")
        stamp.write_text(wanted)
    return folder / "node_modules"
