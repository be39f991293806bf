"""The app's commands: ``anotador printables | purge | backup | restore | advice`` (:mod:`anotador.ops.console`).

In a checkout ``flask --app wsgi ...`` runs the same commands.
"""

from __future__ import annotations

import os
import re
import sqlite3
from datetime import datetime, timedelta, timezone
from pathlib import Path

import click
from flask import Flask, current_app
from flask.cli import with_appcontext

from ..printing import LANGS, SIZES, blank_sheet
from ..rules import VARIANTS

#: The checkout's printables/ (an installed package writes them where it is run).
_CHECKOUT = Path(__file__).resolve().parents[1]
PRINTABLES = _CHECKOUT / "printables" if (_CHECKOUT / "pyproject.toml").exists() else Path("printables")
PRINTABLE_PLAYERS = 6

#: Unfinished games nobody has touched for this long are abandoned.
UNTOUCHED_DEFAULT = "30d"
#: Finished games are kept this long by default.
FINISHED_DEFAULT = "180d"
#: A table of regulars nobody opens nor plays at for two years goes, with its games.
TABLES_DEFAULT = "730d"
_UNITS = {"m": "minutes", "h": "hours", "d": "days", "w": "weeks"}


def printable_files() -> dict[str, bytes]:
    """Every ready-to-print sheet: file name → PDF bytes (reproducible)."""
    return {
        f"{variant_id}_{size}_{lang}.pdf": blank_sheet(variant.rules(), players=PRINTABLE_PLAYERS, size=size,
                                                       lang=lang)
        for variant_id, variant in VARIANTS.items() for size in SIZES for lang in LANGS
    }


def age(text: str) -> timedelta:
    """``"180d"``, ``"12h"``, ``"2w"``, ``"90m"`` as a duration."""
    match = re.fullmatch(r"\s*(\d+)\s*([mhdw])\s*", text or "")
    if not match:
        raise click.BadParameter(f"{text!r} is not an age such as 180d, 12h, 2w or 90m.")
    return timedelta(**{_UNITS[match.group(2)]: int(match.group(1))})


def _sqlite_path() -> Path:
    from ..extensions import db

    url = db.engine.url
    if url.get_backend_name() != "sqlite" or not url.database or url.database == ":memory:":
        raise click.ClickException(
            "backup TARGET and restore are for the SQLite file; for PostgreSQL use backup --into FOLDER "
            "(pg_dump) and pg_restore (README).")
    return Path(url.database)


@click.command("printables")
@with_appcontext
@click.option("--out", type=click.Path(file_okay=False, path_type=Path), default=PRINTABLES,
              show_default=True, help="Folder to write the PDFs to.")
def printables(out: Path) -> None:
    """Write a blank sheet for every variant, page size and language."""
    out.mkdir(parents=True, exist_ok=True)
    files = printable_files()
    for name, data in files.items():
        (out / name).write_bytes(data)
    for stale in set(p.name for p in out.glob("*.pdf")) - set(files):
        (out / stale).unlink()  # a variant that no longer exists
    click.echo(f"{len(files)} sheets written to {out}")


@click.command("advice")
@with_appcontext
@click.argument("variants", nargs=-1)
def advice(variants: tuple[str, ...]) -> None:
    """Build the advisor's tables of the built-in VARIANTS (all when none is named), once, into SOLVER_DIR.

    Run it when deploying: the first players then get advice at once
    rather than a 503 while a table builds. A table already built is kept.
    """
    import time

    from ..advisor.tables import tables
    from ..rules import UnknownVariantError, find_variant

    for variant_id in variants or tuple(VARIANTS):
        try:
            rules = find_variant(variant_id).rules()
        except UnknownVariantError as exc:
            raise click.BadParameter(exc.message, param_hint="VARIANTS") from None
        started = time.perf_counter()
        table = tables().build_now(rules)
        click.echo(f"{variant_id}: expected score {float(table.values[0]):.4f} "
                   f"({time.perf_counter() - started:.1f} s, {table.values.nbytes / 1e6:.1f} MB)")


@click.command("purge")
@with_appcontext
@click.option("--finished-before", "finished", default=FINISHED_DEFAULT, show_default=True,
              help="Delete finished games last changed longer ago than this (180d, 12h, 2w).")
@click.option("--untouched-before", "untouched", default=UNTOUCHED_DEFAULT, show_default=True,
              help="Delete unfinished games nobody has touched for this long.")
@click.option("--tables-unseen-before", "tables", default=TABLES_DEFAULT, show_default=True,
              help="Delete tables of regulars (with their games) nobody has opened or played at for this long.")
@click.option("--dry-run", is_flag=True, help="Count what would go; delete nothing.")
def purge(finished: str, untouched: str, tables: str, dry_run: bool) -> None:
    """Delete old games with everything under them (players, turns, corrections); a table's games stay
    while the table does."""
    from .. import sheets

    counts = sheets.purge(age(finished), age(untouched), dry_run=dry_run, mesa_age=age(tables))
    verb = "would delete" if dry_run else "deleted"
    click.echo(f"purge: {verb} {counts['finished']} finished game(s) older than {finished}, "
               f"{counts['abandoned']} unfinished game(s) untouched for {untouched} and "
               f"{counts['tables']} table(s) unseen for {tables} (with their games).")


@click.command("backup")
@with_appcontext
@click.argument("target", type=click.Path(dir_okay=False, path_type=Path), required=False)
@click.option("--into", type=click.Path(file_okay=False, path_type=Path),
              help="Write anotador-<time>.sqlite (SQLite) or .dump (PostgreSQL, by pg_dump) into this folder.")
@click.option("--keep", type=click.IntRange(min=1), default=14, show_default=True,
              help="With --into: the backups kept there, the newest; older ones are removed.")
def backup(target: Path | None, into: Path | None, keep: int) -> None:
    """Copy the database to TARGET while it serves (SQLite's online backup), or into a folder of rotated
    backups (--into; PostgreSQL's by pg_dump): what anotador-backup.timer runs.

    A bare copy of the file can miss what is still in its write-ahead
    log, or catch a write half done; the backup API copies a consistent
    snapshot, readers and writers carrying on meanwhile.
    """
    if (target is None) == (into is None):
        raise click.UsageError("Give a TARGET file, or --into a folder (not both).")
    if into is None:
        source = _sqlite_path()
        _sqlite_backup(source, target)
        click.echo(f"backup: {source} -> {target} ({target.stat().st_size} bytes)")
        return
    into.mkdir(parents=True, exist_ok=True, mode=0o700)
    from ..extensions import db

    url = db.engine.url
    stamp = datetime.now(timezone.utc).strftime("%Y%m%dT%H%M%S%fZ")
    if url.get_backend_name() == "sqlite":
        made = into / f"{BACKUP_PREFIX}{stamp}.sqlite"
        _sqlite_backup(_sqlite_path(), made)
    else:
        made = into / f"{BACKUP_PREFIX}{stamp}.dump"
        _pg_dump(url, made)
    old = sorted(p for p in into.iterdir() if p.name.startswith(BACKUP_PREFIX) and p.suffix in (".sqlite", ".dump")
                 and p.is_file())[:-keep]
    for path in old:
        path.unlink()
    click.echo(f"backup: {made} ({made.stat().st_size} bytes); {len(old)} older removed, {keep} kept at most")


#: The name every rotated backup starts with (``backup --into``): only those are ever removed.
BACKUP_PREFIX = "anotador-"


def _sqlite_backup(source: Path, target: Path) -> None:
    try:  # made for the owner alone before a byte goes in: it holds every game's write token
        os.close(os.open(target, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600))
    except FileExistsError:
        raise click.ClickException(f"{target} exists; choose a new file.") from None
    with sqlite3.connect(source) as src, sqlite3.connect(target) as dst:
        src.execute(f"PRAGMA busy_timeout={int(current_app.config['DB_BUSY_TIMEOUT_MS'])}")
        src.backup(dst, pages=1024, sleep=0.005)
    dst.close()


def _pg_dump(url, target: Path) -> None:
    """pg_dump's custom format into ``target`` (the owner's alone), the connection given in libpq's variables so
    the password never shows on a command line."""
    import shutil
    import subprocess

    if shutil.which("pg_dump") is None:
        raise click.ClickException("pg_dump is not installed (apt-get install postgresql-client).")
    env = {**os.environ, "PGHOST": url.host or "", "PGPORT": str(url.port or 5432), "PGUSER": url.username or "",
           "PGPASSWORD": url.password or "", "PGDATABASE": url.database or ""}
    os.close(os.open(target, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600))
    done = subprocess.run(["pg_dump", "--format=custom", "--no-owner", f"--file={target}"], env=env,
                          capture_output=True, text=True)
    if done.returncode != 0:
        target.unlink(missing_ok=True)
        said = done.stderr.strip().splitlines()
        raise click.ClickException(f"pg_dump failed: {said[-1] if said else done.returncode}")


@click.command("restore")
@with_appcontext
@click.argument("source", type=click.Path(exists=True, dir_okay=False, path_type=Path))
@click.option("--yes", is_flag=True, help="Replace the current database without asking.")
def restore(source: Path, yes: bool) -> None:
    """Replace the SQLite database with the backup SOURCE (every game after it is lost)."""
    target = _sqlite_path()
    with sqlite3.connect(f"file:{source}?mode=ro", uri=True) as check:
        if check.execute("PRAGMA integrity_check").fetchone()[0] != "ok":
            raise click.ClickException(f"{source} is damaged (PRAGMA integrity_check).")
    if not yes:
        click.confirm(f"Replace {target} with {source}? Games since the backup are lost.", abort=True)
    with sqlite3.connect(source) as src, sqlite3.connect(target) as dst:
        dst.execute(f"PRAGMA busy_timeout={int(current_app.config['DB_BUSY_TIMEOUT_MS'])}")
        src.backup(dst)
    dst.close()
    click.echo(f"restore: {source} -> {target}")


#: The app's commands, as ``flask --app wsgi NAME`` and ``anotador NAME`` run them.
COMMANDS = (printables, advice, purge, backup, restore)


def init_app(app: Flask) -> None:
    """Register the commands."""
    for command in COMMANDS:
        app.cli.add_command(command)
