"""Running it: retention (purge), backup and restore, on the databases as deployed."""

from __future__ import annotations

import shutil
import sqlite3
import subprocess
import threading
from datetime import timedelta

import sqlalchemy as sa

from anotador import create_app

from .dbkit import Table, dispose
from .toolkit import require


def _game(client, status_turns=0, players=("Ana", "Beto")):
    table = Table(client, client.post("/api/v1/games", json={"variant": "generala", "players": list(players)})
                  .get_json())
    for i in range(status_turns):
        table.turn(i % 2, ["ones", "twos", "threes", "fours", "fives", "sixes", "straight", "full", "four",
                           "generala"][i // 2], scratch=True)
    return table


def _mesa(client) -> tuple[str, dict]:
    """A table with one finished game (a served generala); its id and its standings."""
    made = client.post("/api/v1/tables", json={"name": "Los domingos"}).get_json()
    auth = {"Authorization": f"Bearer {made['token']}"}
    game = Table(client, client.post("/api/v1/games", json={"variant": "generala", "players": ["Ana", "Beto"],
                                                             "table": made["id"]}, headers=auth).get_json())
    game.turn(game.get()["turn"]["player"], "generala", [5] * 5, served=True)
    standings = client.get(f"/api/v1/tables/{made['id']}").get_json()
    assert standings["games"] == 1
    return made["id"], standings


def _age(app, game_id: str, days: int) -> None:
    from anotador.extensions import db
    from anotador.store.models import GameRow, utcnow

    with app.app_context():
        db.session.execute(sa.update(GameRow).where(GameRow.id == game_id)
                           .values(updated_at=utcnow() - timedelta(days=days)))
        db.session.commit()


def _rows(app, game_id: str) -> dict[str, int]:
    from anotador.extensions import db

    with app.app_context():
        return {t.name: db.session.execute(sa.select(sa.func.count()).select_from(t)
                                           .where(t.c.get("game_id", t.c.get("id")) == game_id)).scalar()
                for t in db.metadata.sorted_tables if "game_id" in t.c or t.name == "games"}


def test_purge_deletes_old_finished_and_abandoned_games_with_everything_under_them(db_app, api):
    old_done = _game(api, 20)          # finished 200 days ago
    new_done = _game(api, 20)          # finished 10 days ago
    abandoned = _game(api, 3)          # unfinished, untouched for 40 days
    playing = _game(api, 3)            # unfinished, played 5 days ago
    api.patch(abandoned.url("/turns/1"), json={"served": True}, headers=abandoned.auth)  # a correction row too
    for table, days in ((old_done, 200), (new_done, 10), (abandoned, 40), (playing, 5)):
        _age(db_app, table.id, days)
    assert old_done.get()["status"] == "finished"
    before = _rows(db_app, abandoned.id)
    assert before["turns"] == 3 and before["corrections"] == 1 and before["players"] == 2

    runner = db_app.test_cli_runner()
    dry = runner.invoke(args=["purge", "--dry-run"])
    assert dry.exit_code == 0 and "would delete 1 finished" in dry.output and "1 unfinished" in dry.output
    assert api.get(old_done.url()).status_code == 200  # a dry run deletes nothing

    out = runner.invoke(args=["purge"])                  # defaults: 180d finished, 30d untouched
    assert out.exit_code == 0, out.output
    assert "deleted 1 finished game(s) older than 180d, 1 unfinished game(s) untouched for 30d and 0 table(s)" \
        in out.output
    assert api.get(old_done.url()).status_code == 404 and api.get(abandoned.url()).status_code == 404
    assert api.get(new_done.url()).status_code == 200 and api.get(playing.url()).status_code == 200
    for gone in (old_done, abandoned):
        assert set(_rows(db_app, gone.id).values()) == {0}
    out = runner.invoke(args=["purge", "--finished-before", "7d", "--untouched-before", "4d"])
    assert "deleted 1 finished" in out.output and "1 unfinished" in out.output
    assert runner.invoke(args=["purge", "--finished-before", "soon"]).exit_code != 0


def _seed(client, n: int) -> list[Table]:
    return [_game(client, 2 + i % 5) for i in range(n)]


def _snapshot(client, tables) -> dict[str, dict]:
    return {t.id: client.get(t.url()).get_json() for t in tables}


def _sqlite_app(tmp_path, sqlite_template):
    """An app on a live SQLite file of its own, migrated, with no rate limit."""
    path = tmp_path / "live.sqlite"
    shutil.copyfile(sqlite_template, path)
    return create_app({"TESTING": True, "SQLALCHEMY_DATABASE_URI": f"sqlite:///{path}", "GAMES_PER_MINUTE": 0})


def test_sqlite_backup_while_serving_then_restore(tmp_path, sqlite_template):
    app = _sqlite_app(tmp_path, sqlite_template)
    client = app.test_client()
    tables = _seed(client, 12)
    mesa, standings = _mesa(client)
    # a writer keeps playing while the backup runs: the copy is a consistent snapshot
    stop = threading.Event()
    busy = _game(client)

    def play():
        writer = app.test_client()
        n = 0
        while not stop.is_set() and n < 8:
            writer.post(busy.url("/turns"), headers=busy.auth,
                        json={"player": n % 2, "category": ["ones", "twos", "threes", "fours"][n // 2],
                              "scratch": True})
            n += 1

    thread = threading.Thread(target=play)
    thread.start()
    backup = tmp_path / "backup.sqlite"
    result = app.test_cli_runner().invoke(args=["backup", str(backup)])
    stop.set()
    thread.join()
    assert result.exit_code == 0, result.output
    assert backup.stat().st_mode & 0o777 == 0o600  # tokens inside: the owner's alone, whatever the umask
    with sqlite3.connect(backup) as check:
        assert check.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
        backed_turns = check.execute("SELECT count(*) FROM turns WHERE game_id = ?", (busy.id,)).fetchone()[0]
    saved = _snapshot(client, tables)
    # after the backup: a game is lost, another changes
    client.delete(tables[0].url("/turns/last"), headers=tables[0].auth)
    later = _game(client)
    assert app.test_cli_runner().invoke(args=["backup", str(backup)]).exit_code != 0  # never overwrites

    result = app.test_cli_runner().invoke(args=["restore", str(backup), "--yes"])
    assert result.exit_code == 0, result.output
    assert _snapshot(client, tables) == saved                  # every game as backed up
    assert client.get(f"/api/v1/tables/{mesa}").get_json() == standings  # and every table
    assert client.get(later.url()).status_code == 404          # what came after is gone
    assert len(client.get(busy.url("/turns")).get_json()["turns"]) == backed_turns
    _game(client)                                              # and it serves on
    dispose(app)


def test_restore_refuses_a_damaged_file(tmp_path, sqlite_template):
    path = tmp_path / "live.sqlite"
    shutil.copyfile(sqlite_template, path)
    app = create_app({"TESTING": True, "SQLALCHEMY_DATABASE_URI": f"sqlite:///{path}"})
    bad = tmp_path / "bad.sqlite"
    bad.write_bytes(b"SQLite format 3\x00" + b"\x00" * 200)
    result = app.test_cli_runner().invoke(args=["restore", str(bad), "--yes"])
    assert result.exit_code != 0
    dispose(app)


def _postgres_app(postgres_url):
    """An app on this process's PostgreSQL database, emptied, once pg_dump and pg_restore are here."""
    require(shutil.which("pg_dump") is not None and shutil.which("pg_restore") is not None,
            "pg_dump and pg_restore are not installed (apt-get install postgresql-client)")
    from .dbkit import run_sql

    run_sql(postgres_url, "TRUNCATE games RESTART IDENTITY CASCADE")
    return create_app({"TESTING": True, "SQLALCHEMY_DATABASE_URI": postgres_url, "GAMES_PER_MINUTE": 0})


def test_postgresql_pg_dump_and_pg_restore(postgres_url, tmp_path):
    app = _postgres_app(postgres_url)
    client = app.test_client()
    tables = _seed(client, 8)
    mesa, standings = _mesa(client)
    client.patch(tables[1].url("/turns/1"), json={"served": True}, headers=tables[1].auth)
    saved = _snapshot(client, tables)
    history = client.get(tables[1].url("/turns")).get_json()
    dispose(app)

    url = sa.engine.make_url(postgres_url)
    libpq = url.set(drivername="postgresql").render_as_string(hide_password=False)
    dump = tmp_path / "anotador.dump"
    subprocess.run(["pg_dump", "--format=custom", "--no-owner", f"--file={dump}", libpq], check=True)
    restored = url.set(database="anotador_restore_test")
    admin = sa.create_engine(url, isolation_level="AUTOCOMMIT")
    app = None
    with admin.connect() as conn:
        conn.execute(sa.text("DROP DATABASE IF EXISTS anotador_restore_test WITH (FORCE)"))
        conn.execute(sa.text("CREATE DATABASE anotador_restore_test"))
    try:
        subprocess.run(["pg_restore", "--no-owner", "--exit-on-error",
                        f"--dbname={restored.set(drivername='postgresql').render_as_string(hide_password=False)}",
                        str(dump)], check=True)
        app = create_app({"TESTING": True, "SQLALCHEMY_DATABASE_URI": restored.render_as_string(hide_password=False)})
        client = app.test_client()
        assert _snapshot(client, tables) == saved
        assert client.get(f"/api/v1/tables/{mesa}").get_json() == standings
        assert client.get(tables[1].url("/turns")).get_json() == history
        ready = client.get("/readyz")
        assert ready.status_code == 200, ready.get_json()
        tables[0].client = client
        tables[0].turn(tables[0].get()["turn"]["player"], "full", scratch=True)  # it plays on
    finally:
        if app is not None:
            dispose(app)
        with admin.connect() as conn:
            conn.execute(sa.text("DROP DATABASE IF EXISTS anotador_restore_test WITH (FORCE)"))
        admin.dispose()


def _rotated(app, folder, keep: int) -> list:
    result = app.test_cli_runner().invoke(args=["backup", "--into", str(folder), "--keep", str(keep)])
    assert result.exit_code == 0, result.output
    return sorted(folder.iterdir())


def test_nightly_backups_are_rotated_and_only_the_owners(tmp_path, sqlite_template):
    app = _sqlite_app(tmp_path, sqlite_template)
    client = app.test_client()
    tables = _seed(client, 3)
    folder = tmp_path / "backups"
    (tmp_path / "backups").mkdir()
    mine = folder / "notes.txt"  # not a backup: never removed
    mine.write_text("keep me")
    made = [_rotated(app, folder, 2) for _ in range(3)]
    assert [len(m) for m in made] == [2, 3, 3]  # the notes, and at most two backups
    left = [p for p in made[-1] if p != mine]
    assert mine.exists() and all(p.name.startswith("anotador-") and p.suffix == ".sqlite" for p in left)
    assert left == sorted(p for p in made[-1] if p != mine) and made[1][0] not in left  # the oldest went
    for backup in left:
        assert backup.stat().st_mode & 0o777 == 0o600
        with sqlite3.connect(backup) as check:
            assert check.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
            assert check.execute("SELECT count(*) FROM games").fetchone()[0] == len(tables)
    refused = app.test_cli_runner().invoke(args=["backup", str(tmp_path / "x.sqlite"), "--into", str(folder)])
    assert refused.exit_code != 0 and "not both" in refused.output
    dispose(app)


def test_postgresql_nightly_backups_by_pg_dump(postgres_url, tmp_path):
    app = _postgres_app(postgres_url)
    tables = _seed(app.test_client(), 2)
    folder = tmp_path / "backups"
    made = [_rotated(app, folder, 1) for _ in range(2)]
    assert [len(m) for m in made] == [1, 1] and made[0] != made[1]
    (dump,) = made[1]
    assert dump.suffix == ".dump" and dump.stat().st_mode & 0o777 == 0o600
    listed = subprocess.run(["pg_restore", "--list", str(dump)], capture_output=True, text=True, check=True).stdout
    assert "TABLE DATA public games" in listed and len(tables) == 2
    dispose(app)


def test_the_changelog_leads_with_what_is_unreleased_then_this_version():
    """The release notes the README promises: "Unreleased" first, then the version the package says it is."""
    import re
    import tomllib
    from pathlib import Path

    root = Path(__file__).resolve().parents[1]
    version = tomllib.loads((root / "pyproject.toml").read_text())["project"]["version"]
    headings = re.findall(r"^## (.+)$", (root / "CHANGELOG.md").read_text(encoding="utf-8"), re.M)
    assert headings[0] == "Unreleased"
    assert re.fullmatch(rf"{re.escape(version)} — \d{{4}}-\d{{2}}-\d{{2}}", headings[1]), headings[1]
    from anotador.ops.console import version as installed

    assert installed() == version
