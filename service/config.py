"""Configuration defaults; the environment and tests override them."""

from __future__ import annotations

import os


class Defaults:
    """Safe defaults: a local SQLite file, small request bodies."""

    #: Requests are a few dice and a sheet; 16 KiB is generous and caps abuse.
    MAX_CONTENT_LENGTH = 16 * 1024
    SQLALCHEMY_ENGINE_OPTIONS: dict = {}
    #: Seconds clients and proxies may cache variant descriptions.
    VARIANTS_MAX_AGE = 3600


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
