"""The ``anotador`` console script: Flask's CLI with this app's commands, and ``serve``.

``anotador serve [--lan]``, ``anotador db upgrade``, ``anotador advice``,
``anotador printables``, ``anotador purge``, ``anotador backup`` ... work
from an installed wheel, with no checkout; ``python -m anotador`` is the
same. The commands themselves are in :mod:`anotador.ops.cli`.
"""

from __future__ import annotations

import os
import sys

import click

from ..settings import SettingsError


@click.command("serve", context_settings={"ignore_unknown_options": True, "allow_extra_args": True})
@click.option("--lan", is_flag=True, help="Listen on every interface and print the address (and a QR code) "
                                          "phones on the same network should open.")
@click.argument("granian_args", nargs=-1, type=click.UNPROCESSED)
def serve(lan: bool, granian_args: tuple[str, ...]) -> None:
    """Upgrade the database's schema, then serve with granian (:mod:`anotador.ops.serving`).

    PORT (8000), WORKERS (2), THREADS (8) and BIND come from the
    environment; other arguments go to granian.
    """
    from flask_migrate import upgrade

    from ..app import create_app
    from ..extensions import MIGRATIONS
    from .lan import announce
    from ..support.jsonlog import json_line
    from .serving import address, command, json_logging, listening, refuse_taken

    port = os.environ.get("PORT", "8000")
    if lan:
        url = announce(int(port))
        if url:
            os.environ.setdefault("BIND", f"0.0.0.0:{port}")
            os.environ["ANOTADOR_LAN_URL"] = url
    os.environ.setdefault("BIND", f"127.0.0.1:{port}")
    host, number = address(os.environ)
    refuse_taken(host, number)
    app = create_app()
    with app.app_context():
        upgrade(directory=str(MIGRATIONS))  # an unreachable database: one line (main), not the server's start
    if app.config.get("METRICS"):  # every worker writes its figures where the one scraped adds them up
        from .metrics import prepare_folder

        prepare_folder(app.instance_path, os.environ)
    if app.config.get("LOG_FORMAT") == "json":  # every line a shipper reads is one object
        print(json_line(listening(host, number), "anotador.serve"), file=sys.stderr, flush=True)
        granian_args = (*json_logging(app.instance_path), *granian_args)
    else:
        print(listening(host, number), file=sys.stderr, flush=True)
    argv = command(os.environ, granian_args)
    os.execv(argv[0], argv)


@click.command("deploy-files")
@click.argument("target", type=click.Path(file_okay=False))
@click.option("--home", default="/var/lib/anotador", show_default=True,
              help="The folder the server keeps its data in (ANOTADOR_HOME in the units).")
def deploy_files(target: str, home: str) -> None:
    """Write the systemd units, the nginx site and the settings file for this install into TARGET.

    The same files as the project's deploy/ folder, with this install's
    paths (README, "On the internet").
    """
    from .deployment import write

    for path in write(target, home):
        click.echo(str(path))


def version() -> str:
    """The installed package's version (a checkout's, as pyproject.toml says, once installed into its venv)."""
    from importlib.metadata import PackageNotFoundError, version as installed

    try:
        return installed("anotador")
    except PackageNotFoundError:  # pragma: no cover - run from a tree that was never installed
        return "unknown"


def main(argv: list[str] | None = None) -> None:
    """The ``anotador`` console script."""
    from flask.cli import FlaskGroup
    from sqlalchemy.exc import DBAPIError

    from ..app import create_app

    # Anotador's commands only: not Flask's development server, shell and route list, nor its options for
    # finding an app (--app, --env-file, --debug), which this script does not need.
    group = FlaskGroup(name="anotador", create_app=lambda: create_app(), add_version_option=False,
                       add_default_commands=False, load_dotenv=False,
                       help="Anotador: serve it, upgrade its database, print its sheets.")
    group.params = [p for p in group.params if p.name not in ("app", "env_file", "debug")]
    click.version_option(version(), "--version", prog_name="anotador", message="%(prog)s %(version)s")(group)
    group.add_command(serve)
    group.add_command(deploy_files)
    try:
        group.main(args=argv, prog_name="anotador", standalone_mode=False)
    except SettingsError as exc:  # said at start, naming the variable, not a traceback
        print(f"anotador: {exc}", file=sys.stderr)
        sys.exit(2)
    except DBAPIError as exc:  # the database did not answer (or refused us): one line, not its traceback
        said = str(exc.orig or exc).strip()
        print(f"anotador: the database cannot be used: {said.splitlines()[0] if said else type(exc).__name__}",
              file=sys.stderr)
        sys.exit(1)
    except click.exceptions.Abort:
        sys.exit(1)
    except click.ClickException as exc:
        exc.show()
        sys.exit(exc.exit_code)
