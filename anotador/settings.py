"""Every ``ANOTADOR_*`` setting with its type, read and checked when the app is made.

Flask reads ``ANOTADOR_<NAME>`` as JSON, so ``ANOTADOR_SECRET_KEY=1234567890``
became a number and ``ANOTADOR_GAMES_PER_MINUTE=ten`` a string, each a 500
much later. A setting named here is read by its type (a string stays a
string) and checked, whether it came from the environment or from the
mapping given to ``create_app``: a wrong value is :class:`SettingsError` at
start, naming the variable and saying what it takes. Any other
``ANOTADOR_<NAME>`` is still a Flask setting read as JSON.
"""

from __future__ import annotations

import importlib.util
import json
import math
import os
import sys
from typing import Any, Mapping, NamedTuple


class SettingsError(ValueError):
    """A setting with a value it cannot take; the message names the variable."""


class Setting(NamedTuple):
    kind: str          # "int", "number", "bool", "str", "hosts", "choice"
    low: float = 0     # the least value a number may take
    optional: bool = False  # None (unset) allowed
    choices: tuple[str, ...] = ()  # a "choice": the words it takes


#: The settings the service reads, by name (without ``ANOTADOR_``). Defaults: :class:`anotador.config.Defaults`.
SETTINGS: dict[str, Setting] = {
    "MAX_CONTENT_LENGTH": Setting("int", 1024),
    "VARIANTS_MAX_AGE": Setting("int"),
    "MAX_CORRECTIONS": Setting("int"),
    "NAMES_PER_REGULAR": Setting("int", 1),
    "IDEMPOTENCY_KEYS_PER_GAME": Setting("int", 1),
    "GAME_BODIES": Setting("int", 1),
    "GAME_STATES": Setting("int", 1),
    "READ_CACHE_BYTES": Setting("int", 65536),
    "GAMES_PER_MINUTE": Setting("int"),
    "DB_CONNECT_TIMEOUT": Setting("int", 1),
    "DB_STATEMENT_TIMEOUT_MS": Setting("int", 1),
    "DB_LOCK_TIMEOUT_MS": Setting("int", 1),
    "DB_BUSY_TIMEOUT_MS": Setting("int", 1),
    "DB_POOL_TIMEOUT": Setting("number", 0.1),
    "DB_REQUEST_BUDGET": Setting("number", 1),
    "DB_SUSPECT_SECONDS": Setting("number", 0.1),
    "RETRY_AFTER": Setting("int", 1),
    "SOLVER_DIR": Setting("str", optional=True),
    "SOLVER_TABLES": Setting("int", 1),
    "SOLVER_BUILDS": Setting("int", 1),
    "SOLVER_CLIENT_BUILDS": Setting("int", 1),
    "SOLVER_CLIENT_BUILDS_PER_HOUR": Setting("int", 1),
    "SOLVER_KEEP": Setting("int", 1),
    "SOLVER_DISK_BYTES": Setting("int", 1),
    "SOLVER_BUILD_AHEAD": Setting("bool"),
    "SOLVER_OUTCOMES_AHEAD": Setting("bool"),
    "TO_WIN_SHARE": Setting("number", 0.001),
    "TO_WIN_CLIENT_SHARE": Setting("number", 0.001),
    "TO_WIN_BURST": Setting("number", 0.001),
    "TO_WIN_AT_ONCE": Setting("int", 1),
    "LIVE_STREAMS": Setting("int", 1),
    "LIVE_STREAMS_PER_ADDRESS": Setting("int"),
    "LIVE_HEARTBEAT_SECONDS": Setting("number", 0.05),
    "LIVE_STREAM_SECONDS": Setting("number", 1),
    "PROXY_HOPS": Setting("int"),
    "TRUSTED_HOSTS": Setting("hosts", optional=True),
    "LAN_URL": Setting("str", optional=True),
    "CORS_ORIGINS": Setting("hosts", optional=True),
    "SECRET_KEY": Setting("str", optional=True),
    # GET /metrics for Prometheus (anotador/ops/metrics.py), and the access log's form
    "METRICS": Setting("bool"),
    "LOG_FORMAT": Setting("choice", choices=("text", "json")),
    # how long a client has to send its body (anotador/ops/gate.py)
    "REQUEST_TIMEOUT": Setting("number", 0.5, optional=True),
}

_TRUE, _FALSE = {"1", "true", "yes", "on"}, {"0", "false", "no", "off", ""}
_SAYS = {"int": "a whole number", "number": "a number", "bool": "true or false", "str": "text", "choice": "",
         "hosts": "host names, comma-separated or a JSON list"}


def read_environment(config: dict, environ: Mapping[str, str], prefix: str = "ANOTADOR_") -> None:
    """Put each known ``ANOTADOR_<NAME>`` of ``environ`` into ``config``, read by its type."""
    for key, raw in environ.items():
        name = key[len(prefix):]
        if key.startswith(prefix) and name in SETTINGS:
            config[name] = parse(name, raw, f"{prefix}{name}")


def parse(name: str, raw: str, source: str) -> Any:
    """The value of the text ``raw`` for setting ``name``; :class:`SettingsError` names ``source``."""
    setting = SETTINGS[name]
    text = raw.strip()
    try:
        if setting.kind == "str":
            return raw
        if setting.kind == "choice":
            return text.lower()
        if setting.kind == "hosts":
            return json.loads(text) if text.startswith("[") else text
        if setting.kind == "bool":
            if text.lower() in _TRUE | _FALSE:
                return text.lower() in _TRUE
            raise ValueError
        return int(text) if setting.kind == "int" else float(text)
    except ValueError:
        raise _error(source, setting, raw) from None


def check(config: Mapping[str, Any], prefix: str = "ANOTADOR_") -> None:
    """Every known setting in ``config`` has a value of its type: else :class:`SettingsError`."""
    for name, setting in SETTINGS.items():
        if name not in config:
            continue
        value, source = config[name], f"{prefix}{name}"
        if value is None:
            if not setting.optional:
                raise _error(source, setting, value)
            continue
        if setting.kind in ("int", "number"):
            ok = (type(value) is int or (setting.kind == "number" and type(value) is float and math.isfinite(value)))
            if not ok or value < setting.low:
                raise _error(source, setting, value)
        elif setting.kind == "bool" and type(value) is not bool:
            raise _error(source, setting, value)
        elif setting.kind == "str" and not isinstance(value, str):
            raise _error(source, setting, value)
        elif setting.kind == "choice" and value not in setting.choices:
            raise _error(source, setting, value)
        elif setting.kind == "hosts" and not (isinstance(value, str) or (
                isinstance(value, (list, tuple)) and all(isinstance(h, str) for h in value))):
            raise _error(source, setting, value)


def _error(source: str, setting: Setting, value: Any) -> SettingsError:
    says = _SAYS[setting.kind]
    if setting.kind in ("int", "number"):
        says += f" of at least {setting.low:g}"
    if setting.kind == "choice":
        says = " or ".join(setting.choices)
    return SettingsError(f"{source} must be {says}, not {value!r}.")


def check_driver(url: str) -> None:
    """A database URL whose driver is not installed is a wrong setting (one line), not a traceback at the first
    request: PostgreSQL's comes with the ``postgres`` extra."""
    if url.startswith("postgresql") and importlib.util.find_spec("psycopg") is None:
        raise SettingsError("DATABASE_URL names PostgreSQL, whose driver is not installed here: "
                            "pip install 'anotador[postgres]' (in a checkout: pip install -e '.[postgres]').")


def check_metrics(config: Mapping[str, Any]) -> None:
    """``ANOTADOR_METRICS`` on without prometheus_client installed is a wrong setting (one line)."""
    if config.get("METRICS") and importlib.util.find_spec("prometheus_client") is None:
        raise SettingsError("ANOTADOR_METRICS is on, but prometheus_client is not installed here: "
                            "pip install 'anotador[metrics]' (in a checkout: pip install -e '.[metrics]').")


#: A checkout (its pyproject.toml beside the package), where the data folder is ``instance/``.
CHECKOUT = os.path.exists(os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))),
                                       "pyproject.toml"))


def home(environ: Mapping[str, str], checkout: bool = CHECKOUT, prefix: str = sys.prefix) -> str | None:
    """The folder of what the server keeps, as an absolute path: ``ANOTADOR_HOME``; else, in a checkout, None
    (Flask's ``instance/``); else ``$XDG_DATA_HOME/anotador`` (``~/.local/share/anotador``), outside the
    venv, which may be made again.

    An install from before this default kept its data in the venv
    (``<venv>/var/anotador.app-instance``): while that folder holds it and
    the new one does not exist, it is used still, with a warning saying
    how to move it.
    """
    value = environ.get("ANOTADOR_HOME", "").strip()
    if value:
        return os.path.abspath(os.path.expanduser(value))
    if checkout:
        return None
    data = environ.get("XDG_DATA_HOME", "").strip() or os.path.join("~", ".local", "share")
    found = os.path.abspath(os.path.expanduser(os.path.join(data, "anotador")))
    before = os.path.join(prefix, "var", "anotador.app-instance")
    if not os.path.exists(found) and os.path.isdir(before) and os.listdir(before):
        print(f"anotador: the data is still inside the venv, in {before}, where making the venv again would "
              f"delete it: move it to {found} (or set ANOTADOR_HOME).", file=sys.stderr)
        return before
    return found
