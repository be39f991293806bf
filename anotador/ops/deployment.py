"""``anotador deploy-files DIR``: the systemd units, the nginx site and the settings file for this install.

The files in ``anotador/deploy/`` (``deploy/`` in a checkout) are written
for a checkout in ``/srv/anotador`` with its venv; a server installed
from the wheel has no checkout. This writes the same files with this
install's paths: its ``anotador`` command, the data folder (``--home``,
``/var/lib/anotador`` by default, made by systemd's ``StateDirectory=``)
and the folder the nginx site includes its locations from. Nothing else
changes, so what the tests check of the shipped files holds for these.
"""

from __future__ import annotations

import os
import sys
from importlib import resources
from pathlib import Path

#: The checkout's paths in the shipped files, and what each stands for.
CHECKOUT_BIN = "/srv/anotador/.venv/bin"
CHECKOUT_HOME = "/srv/anotador/instance"
CHECKOUT_CODE = "/srv/anotador"
CHECKOUT_FILES = "/srv/anotador/deploy"
#: The data folder systemd makes for the service (``StateDirectory=anotador``).
STATE = "/var/lib/anotador"


def shipped() -> dict[str, str]:
    """The shipped deployment files by their path under ``deploy/`` (``systemd/anotador.service``...)."""
    root = resources.files("anotador") / "deploy"
    found = {"env.example": (root / "env.example").read_text(encoding="utf-8")}
    for folder in ("systemd", "nginx"):
        for item in (root / folder).iterdir():
            if item.is_file():
                found[f"{folder}/{item.name}"] = item.read_text(encoding="utf-8")
    return found


def adapted(name: str, text: str, bin_dir: str, home: str, target: str) -> str:
    """``text`` (the shipped file ``name``) with this install's paths in place of the checkout's."""
    text = (text.replace(CHECKOUT_BIN, bin_dir).replace(CHECKOUT_HOME, home)
            .replace(CHECKOUT_FILES, target).replace(f"WorkingDirectory={CHECKOUT_CODE}", f"WorkingDirectory={home}"))
    if name.startswith("systemd/") and name.endswith(".service"):
        if home == STATE:  # systemd makes the folder, owned by the service's user, and lets it write there
            text = text.replace("[Service]\n", "[Service]\nStateDirectory=anotador\nStateDirectoryMode=0700\n", 1)
        text = text.replace("# The code in /srv/anotador (a checkout with its .venv: scripts/serve made it),",
                            f"# The code: the package installed in {os.path.dirname(bin_dir)},")
    if CHECKOUT_CODE in text:
        raise ValueError(f"{name} names {CHECKOUT_CODE} where this install has no counterpart")
    return f"# Written by `anotador deploy-files` for the install in {os.path.dirname(bin_dir)}.\n{text}"


def write(target: str, home: str = STATE, bin_dir: str | None = None) -> list[Path]:
    """Write every deployment file under ``target`` for this install; return the paths written."""
    bin_dir = bin_dir or os.path.dirname(sys.executable)  # a venv's bin, where pip put `anotador` too
    out = Path(target).absolute()
    written = []
    for name, text in sorted(shipped().items()):
        path = out / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(adapted(name, text, bin_dir, os.path.abspath(home), str(out)), encoding="utf-8")
        written.append(path)
    return written
