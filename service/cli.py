"""Command-line tools: ``flask --app wsgi printables``."""

from __future__ import annotations

from pathlib import Path

import click
from flask import Flask

from .printing import LANGS, SIZES, blank_sheet
from .rules import VARIANTS

PRINTABLES = Path(__file__).resolve().parents[1] / "printables"
PRINTABLE_PLAYERS = 6


def printable_files() -> dict[str, bytes]:
    """Every ready-to-print sheet: file name → PDF bytes (reproducible)."""
    return {
        f"{variant_id}_{size}_{lang}.pdf": blank_sheet(variant.rules(), players=PRINTABLE_PLAYERS, size=size,
                                                       lang=lang)
        for variant_id, variant in VARIANTS.items() for size in SIZES for lang in LANGS
    }


def init_app(app: Flask) -> None:
    """Register the commands."""

    @app.cli.command("printables")
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
