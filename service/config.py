"""Configuration defaults; the environment and tests override them."""

from __future__ import annotations

import os
import secrets
import time


class Defaults:
    """Safe defaults: a local SQLite file, small request bodies."""

    #: Requests are a few dice and a sheet; 16 KiB is generous and caps abuse.
    MAX_CONTENT_LENGTH = 16 * 1024
    SQLALCHEMY_ENGINE_OPTIONS: dict = {}
    #: Seconds clients and proxies may cache variant descriptions.
    VARIANTS_MAX_AGE = 3600
    #: Corrections one game keeps: a 12-player game has at most 132 turns,
    #: so this is room to fix every turn twice, not a way to grow a game forever.
    MAX_CORRECTIONS = 300
    #: Games one client address may create per minute (0: no limit). On by
    #: default: with no proxy in front (a LAN) nothing else limits it.
    GAMES_PER_MINUTE = 20


def database_url(instance_path: str) -> str:
    """Return ``DATABASE_URL`` (PostgreSQL in production) or the SQLite default.

    ``postgres://`` and ``postgresql://`` are accepted as hosting platforms
    write them, and pointed at the psycopg 3 driver this project installs.
    """
    url = os.environ.get("DATABASE_URL") or os.environ.get("ANOTADOR_DATABASE_URL")
    if not url:
        return "sqlite:///" + os.path.join(instance_path, "anotador.sqlite")
    for prefix in ("postgres://", "postgresql://"):
        if url.startswith(prefix):
            return "postgresql+psycopg://" + url[len(prefix):]
    return url


def secret_key(instance_path: str) -> str:
    """Return the key that hashes client addresses: made once, kept in the instance folder.

    Several app servers must share one: set ``ANOTADOR_SECRET_KEY`` on each.
    """
    path = os.path.join(instance_path, "secret_key")
    os.makedirs(instance_path, exist_ok=True)
    try:
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    except FileExistsError:
        pass
    else:  # the first worker to get here writes it; the others read it
        with os.fdopen(fd, "w") as f:
            f.write(secrets.token_hex(32))
    for _ in range(100):
        with open(path, encoding="ascii") as f:
            key = f.read().strip()
        if key:
            return key
        time.sleep(0.01)  # written a moment ago by another worker
    raise RuntimeError(f"{path} is empty")
