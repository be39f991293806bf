"""The package as a user installs it: a wheel and an sdist, installed into a fresh venv away from the checkout.

Built with ``python -m build`` (the dev extra), installed with pip into a
venv in a temporary folder, and run from another folder: nothing of the
checkout is on the path. On an empty SQLite file and an empty PostgreSQL
database: ``anotador db upgrade``, ``anotador serve``, a short game, the
page, a static file and the spec.
"""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
import tarfile
import time
import zipfile
from pathlib import Path

import pytest

from bench._http import free_port, request

from .conftest import RUN, WORKER
from .dbkit import PG_SERVER, _maintenance, pg_reachable
from .toolkit import needs, require

ROOT = Path(__file__).resolve().parents[1]

needs("build", "pip install build (the dev extra)")

pytestmark = pytest.mark.slow

#: What the service reads at run time; a wheel without one of them serves 404s and 500s.
SHIPPED = ("anotador/openapi.yaml", "anotador/web/templates/index.html", "anotador/web/static/js/main.js",
           "anotador/web/static/app.css", "anotador/web/static/sw.js", "anotador/store/migrations/alembic.ini",
           "anotador/store/migrations/script.py.mako", "anotador/store/migrations/env.py",
           "anotador/store/migrations/versions/0001_games.py", "anotador/printing/typefaces/FiraGO-Bold.ttf",
           "anotador/printing/typefaces/DroidSansFallback.ttf", "anotador/printing/typefaces/Symbola.ttf",
           "anotador/deploy/systemd/anotador.service", "anotador/deploy/nginx/anotador-site.conf",
           "anotador/deploy/env.example")


@pytest.fixture(scope="module")
def dist(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("dist")
    subprocess.run([sys.executable, "-m", "build", "--sdist", "--wheel", "--outdir", str(out), str(ROOT)],
                   check=True, capture_output=True, cwd=out)
    return out


#: What the wheel installed with no extra did, before its ``postgres`` extra was added (:func:`venv`).
PLAIN: dict[str, subprocess.CompletedProcess] = {}


@pytest.fixture(scope="module")
def venv(dist, tmp_path_factory) -> Path:
    """The wheel, installed with its dependencies into a venv of its own: first alone (what it does then is kept
    in :data:`PLAIN`), then with the ``postgres`` extra."""
    where = tmp_path_factory.mktemp("elsewhere") / "venv"
    subprocess.run([sys.executable, "-m", "venv", str(where)], check=True)
    wheel = next(dist.glob("anotador-*.whl"))
    pip = [str(where / "bin" / "python"), "-m", "pip", "install", "--quiet", "--disable-pip-version-check"]
    subprocess.run([*pip, str(wheel)], check=True, capture_output=True)
    env = {k: v for k, v in os.environ.items() if not k.startswith(("ANOTADOR_", "PYTHON"))}
    PLAIN["modules"] = subprocess.run(
        [str(where / "bin" / "python"), "-c", "import importlib.util as u; "
         "print(*(m for m in ('psycopg', 'segno', 'yaml', 'prometheus_client') if u.find_spec(m)))"], capture_output=True, text=True,
        env=env, cwd=where)
    PLAIN["postgres"] = subprocess.run([str(where / "bin" / "anotador"), "db", "upgrade"], capture_output=True,
                                       text=True, env=env | {"DATABASE_URL": "postgresql://nobody@127.0.0.1/none"},
                                       cwd=where)
    PLAIN["metrics"] = subprocess.run([str(where / "bin" / "anotador"), "db", "upgrade"], capture_output=True,
                                      text=True, cwd=where, env=env | {"ANOTADOR_METRICS": "true",
                                                                       "DATABASE_URL": f"sqlite:///{where}/m.sqlite"})
    subprocess.run([*pip, f"{wheel}[postgres,metrics]"], check=True, capture_output=True)
    return where


def test_a_plain_install_has_no_database_driver_but_sqlites_and_says_which_extra(venv):
    """psycopg's binary (PostgreSQL), segno (the LAN's QR code), prometheus_client (the metrics) and PyYAML (the
    tests') are extras: a server on SQLite installs none of them, and a PostgreSQL URL without its driver, or
    metrics without theirs, is one line naming the extra."""
    assert PLAIN["modules"].returncode == 0, PLAIN["modules"].stderr
    assert PLAIN["modules"].stdout.split() == []
    refused = PLAIN["postgres"]
    assert refused.returncode == 2, refused.stderr
    assert "anotador[postgres]" in refused.stderr and len(refused.stderr.strip().splitlines()) == 1, refused.stderr
    refused = PLAIN["metrics"]
    assert refused.returncode == 2 and "anotador[metrics]" in refused.stderr, refused.stderr
    assert len(refused.stderr.strip().splitlines()) == 1, refused.stderr


def test_the_wheel_and_the_sdist_hold_what_the_service_reads(dist):
    with zipfile.ZipFile(next(dist.glob("anotador-*.whl"))) as wheel:
        names = set(wheel.namelist())
        entry_points = next(n for n in names if n.endswith("entry_points.txt"))
        assert "anotador = anotador.ops.console:main" in wheel.read(entry_points).decode()
    assert set(SHIPPED) <= names, set(SHIPPED) - names
    assert not any(n.startswith(("tests/", "service/", "bench/")) for n in names)
    with tarfile.open(next(dist.glob("anotador-*.tar.gz"))) as sdist:
        inside = {n.split("/", 1)[1] for n in sdist.getnames() if "/" in n}
    assert set(SHIPPED) <= inside and "pyproject.toml" in inside and "README.md" in inside


@pytest.fixture(params=["sqlite", "postgresql"])
def database(request, tmp_path):
    """An empty database: no table at all."""
    if request.param == "sqlite":
        yield f"sqlite:///{tmp_path / 'fresh.sqlite'}"
        return
    require(pg_reachable(), "PostgreSQL is not reachable")
    from sqlalchemy.engine import make_url

    name = f"anotador_test_{RUN}_{WORKER}_pkg".lower()
    with _maintenance() as conn:
        conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
        conn.execute(f'CREATE DATABASE "{name}"')
    yield make_url(PG_SERVER).set(database=name).render_as_string(hide_password=False).replace("+psycopg", "")
    with _maintenance() as conn:
        conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


def test_the_installed_package_upgrades_an_empty_database_and_serves_a_game(venv, database, tmp_path):
    port = free_port()
    run_in = tmp_path / "run"  # not the checkout: nothing of it on the path
    run_in.mkdir()
    env = {k: v for k, v in os.environ.items() if not k.startswith(("ANOTADOR_", "PYTHON"))}
    env |= {"DATABASE_URL": database, "PORT": str(port), "ANOTADOR_SOLVER_BUILD_AHEAD": "false",
            "ANOTADOR_SOLVER_DIR": str(tmp_path / "solver"), "PATH": f"{venv / 'bin'}:{env['PATH']}",
            "ANOTADOR_METRICS": "true", "ANOTADOR_HOME": str(tmp_path / "home")}
    upgraded = subprocess.run(["anotador", "db", "upgrade"], cwd=run_in, env=env, capture_output=True, text=True)
    assert upgraded.returncode == 0, upgraded.stderr
    log = open(tmp_path / "serve.log", "wb")
    server = subprocess.Popen(["anotador", "serve"], cwd=run_in, env=env, stdout=log, stderr=subprocess.STDOUT,
                              start_new_session=True)
    try:
        deadline = time.monotonic() + 60
        while True:
            try:
                if request(port, "GET", "/healthz")[0] == 200:
                    break
            except OSError:
                pass
            assert server.poll() is None and time.monotonic() < deadline, (tmp_path / "serve.log").read_text()
            time.sleep(0.2)
        status, headers, page = request(port, "GET", "/")
        assert status == 200 and b'<script type="module"' in page
        assert request(port, "GET", "/static/js/main.js")[0] == 200
        status, _, spec = request(port, "GET", "/openapi.yaml")
        assert status == 200 and spec.startswith(b"openapi: 3.")
        status, _, body = request(port, "POST", "/api/v1/games", {"variant": "generala", "players": ["Ana", "Ольга"]})
        assert status == 201, body
        game = body
        auth = {"Authorization": f"Bearer {game['token']}"}
        status, _, body = request(port, "POST", f"/api/v1/games/{game['id']}/turns",
                                {"player": game["turn"]["player"], "dice": [3, 3, 3, 5, 6], "category": "threes"},
                                auth)
        assert status == 201, body
        status, _, body = request(port, "GET", f"/api/v1/games/{game['id']}")
        assert status == 200 and body["players"][game["turn"]["player"]]["sheet"]["threes"] == 9
        assert request(port, "GET", "/readyz")[0] == 200  # the schema is this code's
        status, _, pdf = request(port, "GET", f"/api/v1/games/{game['id']}/sheet.pdf")
        assert status == 200 and b"FiraGO-Bold" in pdf  # the Cyrillic name, in the font the wheel ships
        status, _, metrics = request(port, "GET", "/metrics")  # both workers' figures, whichever answers
        assert status == 200, metrics
        assert (b'anotador_requests_total{method="POST",route="/api/v1/games/<game_id>/turns",status="201"} 1.0'
                in metrics), metrics.decode()[:3000]
    finally:
        os.killpg(server.pid, signal.SIGTERM)
        server.wait(timeout=30)
        log.close()
    assert not (run_in / "instance").exists() or not any((run_in / "instance").iterdir())
    assert any((tmp_path / "home" / "metrics").glob("counter_*.db"))  # in ANOTADOR_HOME, never the venv


def test_an_installed_server_keeps_its_games_when_its_venv_is_made_again(dist, tmp_path):
    """No ANOTADOR_HOME: the data goes to $XDG_DATA_HOME/anotador, outside the venv, so a venv deleted and made
    again (an upgrade, a new Python) finds every game; ``anotador deploy-files`` writes this install's files."""
    wheel = next(dist.glob("anotador-*.whl"))
    where, run_in = tmp_path / "venv", tmp_path / "run"
    run_in.mkdir()
    env = {k: v for k, v in os.environ.items() if not k.startswith(("ANOTADOR_", "PYTHON", "XDG_"))}
    env.pop("DATABASE_URL", None)
    env |= {"XDG_DATA_HOME": str(tmp_path / "xdg"), "ANOTADOR_SOLVER_BUILD_AHEAD": "false"}
    play = ("from anotador import create_app; c = create_app().test_client(); import sys; "
            "r = c.post('/api/v1/games', json={'variant': 'generala', 'players': ['Ana', 'Zoë']}) "
            "if len(sys.argv) < 2 else c.get('/api/v1/games/' + sys.argv[1]); "
            "print(r.status_code, r.json['id'], *(p['name'] for p in r.json['players']))")

    def install() -> None:
        subprocess.run([sys.executable, "-m", "venv", str(where)], check=True)
        subprocess.run([str(where / "bin" / "python"), "-m", "pip", "install", "--quiet", "--disable-pip-version-check",
                        str(wheel)], check=True, capture_output=True)

    install()
    upgraded = subprocess.run([str(where / "bin" / "anotador"), "db", "upgrade"], cwd=run_in, env=env,
                              capture_output=True, text=True)
    assert upgraded.returncode == 0, upgraded.stderr
    assert (tmp_path / "xdg" / "anotador" / "anotador.sqlite").exists()
    made = subprocess.run([str(where / "bin" / "python"), "-c", play], cwd=run_in, env=env, capture_output=True,
                          text=True)
    status, game, *names = made.stdout.split()
    assert status == "201" and names == ["Ana", "Zoë"], made.stderr
    files = subprocess.run([str(where / "bin" / "anotador"), "deploy-files", str(tmp_path / "files")], cwd=run_in,
                           env=env, capture_output=True, text=True)
    assert files.returncode == 0, files.stderr
    unit = (tmp_path / "files" / "systemd" / "anotador.service").read_text()
    assert f"ExecStart={where}/bin/anotador serve" in unit and "ANOTADOR_HOME=/var/lib/anotador" in unit
    assert (tmp_path / "files" / "nginx" / "anotador-locations.conf").exists()

    shutil.rmtree(where)
    install()
    read = subprocess.run([str(where / "bin" / "python"), "-c", play, game], cwd=run_in, env=env,
                          capture_output=True, text=True)
    assert read.stdout.split() == ["200", game, "Ana", "Zoë"], read.stderr
    assert not (where / "var").exists()
