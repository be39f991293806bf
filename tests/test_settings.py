"""ANOTADOR_* settings: read by their type, checked when the app is made, a wrong one named at start."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from anotador import create_app, settings
from anotador.settings import SETTINGS, SettingsError


@pytest.fixture
def make(monkeypatch, tmp_path):
    def make(env: dict | None = None, **config):
        for key in [k for k in os.environ if k.startswith("ANOTADOR_") and k[9:] in SETTINGS]:
            monkeypatch.delenv(key)
        for key, value in (env or {}).items():
            monkeypatch.setenv(key, value)
        return create_app({"TESTING": True, "SQLALCHEMY_DATABASE_URI": f"sqlite:///{tmp_path / 's.sqlite'}",
                           **config})
    return make


def test_a_string_stays_a_string(make):
    app = make({"ANOTADOR_SECRET_KEY": "1234567890", "ANOTADOR_LAN_URL": "http://10.0.0.5:8000/"})
    assert app.config["SECRET_KEY"] == "1234567890" and app.config["LAN_URL"] == "http://10.0.0.5:8000/"
    from flask_migrate import upgrade

    from anotador.extensions import MIGRATIONS

    with app.app_context():
        upgrade(directory=str(MIGRATIONS))
    r = app.test_client().post("/api/v1/games", json={"variant": "generala", "players": ["Ana", "Beto"]})
    assert r.status_code == 201  # a digits-only secret key keyed the address hash, no 500


@pytest.mark.parametrize(("variable", "raw", "value"), [
    ("ANOTADOR_GAMES_PER_MINUTE", " 0 ", 0),
    ("ANOTADOR_DB_POOL_TIMEOUT", "2.5", 2.5),
    ("ANOTADOR_DB_REQUEST_BUDGET", "6", 6.0),
    ("ANOTADOR_SOLVER_BUILD_AHEAD", "false", False),
    ("ANOTADOR_SOLVER_BUILD_AHEAD", "No", False),
    ("ANOTADOR_SOLVER_BUILD_AHEAD", "1", True),
    ("ANOTADOR_SOLVER_DIR", "/srv/tables", "/srv/tables"),
    ("ANOTADOR_TRUSTED_HOSTS", '["a.example", "B.example"]', ["a.example", "b.example"]),
    ("ANOTADOR_TRUSTED_HOSTS", "a.example, b.example", ["a.example", "b.example"]),
])
def test_each_setting_is_read_by_its_type(make, variable, raw, value):
    app = make({variable: raw})
    name = "SERVED_HOSTS" if variable == "ANOTADOR_TRUSTED_HOSTS" else variable[len("ANOTADOR_"):]
    assert app.config[name] == value


@pytest.mark.parametrize(("variable", "raw", "says"), [
    ("ANOTADOR_GAMES_PER_MINUTE", "ten", "a whole number of at least 0"),
    ("ANOTADOR_GAMES_PER_MINUTE", "-1", "a whole number of at least 0"),
    ("ANOTADOR_GAMES_PER_MINUTE", "2.5", "a whole number"),
    ("ANOTADOR_MAX_CONTENT_LENGTH", "10", "a whole number of at least 1024"),
    ("ANOTADOR_DB_POOL_TIMEOUT", "nan", "a number"),
    ("ANOTADOR_SOLVER_BUILD_AHEAD", "maybe", "true or false"),
    ("ANOTADOR_TRUSTED_HOSTS", "[1, 2]", "host names"),
    ("ANOTADOR_TRUSTED_HOSTS", "[not json", "host names"),
    ("ANOTADOR_REQUEST_TIMEOUT", "soon", "a number"),
])
def test_a_wrong_value_is_named_at_start(make, variable, raw, says):
    with pytest.raises(SettingsError) as caught:
        make({variable: raw})
    message = str(caught.value)
    assert message.startswith(f"{variable} must be {says}") and raw.strip() in message, message


@pytest.mark.parametrize(("name", "value"), [("SOLVER_TABLES", "8"), ("SOLVER_BUILD_AHEAD", 1), ("RETRY_AFTER", 0),
                                             ("SECRET_KEY", 1234), ("GAMES_PER_MINUTE", True)])
def test_the_mapping_given_to_create_app_is_checked_too(make, name, value):
    with pytest.raises(SettingsError, match=f"ANOTADOR_{name} must be"):
        make(**{name: value})


def test_any_other_flask_setting_is_still_read_as_json(make):
    app = make({"ANOTADOR_JSON_SORT_KEYS": "true", "ANOTADOR_SOME_LIST": "[1, 2]"})
    assert app.config["JSON_SORT_KEYS"] is True and app.config["SOME_LIST"] == [1, 2]


def test_the_command_says_which_setting_is_wrong_and_exits_2(tmp_path):
    env = {**os.environ, "ANOTADOR_SOLVER_KEEP": "lots", "DATABASE_URL": f"sqlite:///{tmp_path / 'c.sqlite'}"}
    done = subprocess.run([sys.executable, "-m", "anotador", "purge", "--dry-run"], env=env, capture_output=True,
                          text=True, timeout=60)
    assert done.returncode == 2 and "Traceback" not in done.stderr
    assert done.stderr.strip() == "anotador: ANOTADOR_SOLVER_KEEP must be a whole number of at least 1, not 'lots'."


def _anotador(*args: str, **env: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "anotador", *args], env={**os.environ, **env}, capture_output=True,
                          text=True, timeout=120)


def test_the_console_script_says_its_version_and_lists_its_own_commands_only():
    from importlib.metadata import version

    done = _anotador("--version")
    assert done.returncode == 0 and done.stdout.strip() == f"anotador {version('anotador')}"
    listed = _anotador("--help").stdout
    commands = listed.split("Commands:")[1].split()
    for mine in ("serve", "db", "advice", "printables", "purge", "backup", "restore"):
        assert mine in commands
    for flasks in ("run", "shell", "routes"):  # Flask's development server and tools are not the service's
        assert flasks not in commands
    assert "--app" not in listed and "--env-file" not in listed and "--debug" not in listed


def test_a_database_that_does_not_answer_at_start_is_one_line(tmp_path):
    for command in (("db", "upgrade"), ("serve",)):
        done = _anotador(*command, DATABASE_URL="postgresql+psycopg://postgres@127.0.0.1:9/anotador",
                         ANOTADOR_DB_CONNECT_TIMEOUT="2")
        assert done.returncode == 1, done.stderr
        assert "Traceback" not in done.stderr and len(done.stderr.strip().splitlines()) == 1, done.stderr
        assert done.stderr.startswith("anotador: the database cannot be used: ") and "127.0.0.1" in done.stderr


def test_anotador_home_is_the_one_folder_of_what_the_server_keeps(tmp_path, monkeypatch):
    """ANOTADOR_HOME moves the instance folder: the SQLite file, the secret key and the advisor's tables, so a venv
    made again loses nothing."""
    for key in [k for k in os.environ if k.startswith("ANOTADOR_") or k == "DATABASE_URL"]:
        monkeypatch.delenv(key)
    home = tmp_path / "var" / "anotador"
    monkeypatch.setenv("ANOTADOR_HOME", str(home))
    app = create_app({"TESTING": True, "SOLVER_BUILD_AHEAD": False})
    assert app.instance_path == str(home)
    assert app.config["SQLALCHEMY_DATABASE_URI"] == f"sqlite:///{home / 'anotador.sqlite'}"
    assert (home / "secret_key").read_text().strip() == app.config["SECRET_KEY"]
    assert app.extensions["anotador.tables"].folder == str(home / "solver")
    monkeypatch.setenv("ANOTADOR_HOME", "~/anotador-home")
    monkeypatch.setenv("HOME", str(tmp_path))
    assert create_app({"TESTING": True, "SOLVER_BUILD_AHEAD": False}).instance_path == str(tmp_path / "anotador-home")


def test_an_installed_server_keeps_its_data_outside_the_venv_and_finds_what_an_older_one_kept(tmp_path, capsys):
    """Installed (no checkout): $XDG_DATA_HOME/anotador, else ~/.local/share/anotador, never the venv, which may
    be made again; an install that kept its data in the venv (the old default) goes on using it, and says how to
    move it, until the new folder exists. A checkout keeps instance/ (None: Flask's)."""
    venv = tmp_path / "venv"
    assert settings.home({}, checkout=True, prefix=str(venv)) is None
    assert settings.home({"XDG_DATA_HOME": str(tmp_path / "xdg")}, checkout=False,
                         prefix=str(venv)) == str(tmp_path / "xdg" / "anotador")
    assert settings.home({"HOME": "ignored"}, checkout=False, prefix=str(venv)) == os.path.expanduser(
        os.path.join("~", ".local", "share", "anotador"))
    assert capsys.readouterr().err == ""
    older = venv / "var" / "anotador.app-instance"
    older.mkdir(parents=True)
    (older / "anotador.sqlite").write_bytes(b"the games of last year")
    environ = {"XDG_DATA_HOME": str(tmp_path / "xdg")}
    assert settings.home(environ, checkout=False, prefix=str(venv)) == str(older)
    said = capsys.readouterr().err
    assert str(older) in said and str(tmp_path / "xdg" / "anotador") in said and "ANOTADOR_HOME" in said
    (tmp_path / "xdg" / "anotador").mkdir(parents=True)  # moved: the new folder wins
    assert settings.home(environ, checkout=False, prefix=str(venv)) == str(tmp_path / "xdg" / "anotador")
    assert settings.home({**environ, "ANOTADOR_HOME": str(older)}, checkout=False, prefix=str(venv)) == str(older)
