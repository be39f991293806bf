"""Configuration defaults; the environment and tests override them."""

from __future__ import annotations

import os
import secrets
import time

from .http.compression import Compressed, cache_key


class Defaults:
    """Safe defaults: a local SQLite file, small request bodies."""

    #: Requests are a few dice and a sheet; 16 KiB is generous and caps abuse.
    MAX_CONTENT_LENGTH = 16 * 1024
    SQLALCHEMY_ENGINE_OPTIONS: dict = {}
    #: Text answers are compressed (brotli, zstd or gzip, as the client
    #: accepts): scripts/serve has no proxy to do it. Behind nginx too, so
    #: every deployment sends the same bytes.
    COMPRESS_MIMETYPES = ["application/json", "application/problem+json", "application/yaml", "text/html",
                          "text/css", "text/javascript", "application/javascript", "image/svg+xml",
                          "application/manifest+json"]
    COMPRESS_MIN_SIZE = 512
    #: The compressed forms of texts that never change are kept (anotador/http/compression.py).
    COMPRESS_CACHE_BACKEND = Compressed
    COMPRESS_CACHE_KEY = staticmethod(cache_key)
    COMPRESS_STREAMING_ENDPOINT_CONDITIONAL = ["web.static"]
    #: Seconds clients and proxies may cache variant descriptions.
    VARIANTS_MAX_AGE = 3600
    #: Corrections one game keeps: a 12-player game has at most 132 turns,
    #: so this is room to fix every turn twice, not a way to grow a game forever.
    MAX_CORRECTIONS = 300
    #: Names one regular of a table keeps (each rename to a new name adds one, listed with the standings):
    #: a nickname or two and a few spellings, not a way to grow a table's every read without end.
    NAMES_PER_REGULAR = 20
    #: Idempotency-Key answers one game keeps (the newest; older ones are forgotten): a client retries a
    #: write within seconds, and a game's keys must not grow with every tap (a 12-player body is 10 KB).
    IDEMPOTENCY_KEYS_PER_GAME = 100
    #: Game bodies each worker keeps rendered, the last read (a six-player game's is ~6 KB).
    GAME_BODIES = 2048
    #: Bytes each worker's cache of rendered reads (game bodies, tables' standings and history, their
    #: CSV exports) may hold, each cache apart: a count alone let 400 distinct reads of a large table's
    #: standings take a worker past a gigabyte.
    READ_CACHE_BYTES = 32 * 1024 * 1024
    #: Game states each worker keeps, the last written or read (a finished six-player game's is ~8 KB).
    GAME_STATES = 2048
    #: Games one client address may create per minute (0: no limit). On by
    #: default: with no proxy in front (a LAN) nothing else limits it.
    GAMES_PER_MINUTE = 20

    # -- the database: short waits, so a stuck database costs a 503, not a worker
    #: Seconds to open a connection to PostgreSQL.
    DB_CONNECT_TIMEOUT = 3
    #: PostgreSQL: longest statement, and longest wait for a lock, in ms.
    DB_STATEMENT_TIMEOUT_MS = 5000
    DB_LOCK_TIMEOUT_MS = 3000
    #: SQLite: longest wait for the write lock, in ms.
    DB_BUSY_TIMEOUT_MS = 3000
    #: Seconds a request waits for a pooled connection.
    DB_POOL_TIMEOUT = 5
    #: PostgreSQL: seconds a connection may be held by one request before the guard cuts it,
    #: whatever the database says (above the statement and lock timeouts; anotador/store/guard.py).
    DB_REQUEST_BUDGET = 8
    #: PostgreSQL: seconds a connection is held before the guard asks the database whether it
    #: still answers (if not: every connection is cut, and 503 at once until it does).
    DB_SUSPECT_SECONDS = 1
    #: Seconds clients should wait before retrying after a 503.
    RETRY_AFTER = 2

    # -- the advisor
    #: Where the advisor's tables are kept (default: the instance folder's
    #: solver/); app servers may share one folder.
    SOLVER_DIR = None
    #: Tables kept in memory per worker, the last used (a Yahtzee table is 8 MB, Yatzy's 17 MB).
    SOLVER_TABLES = 8
    #: Tables built at once in the folder, each in a process of its own (a Yatzy table takes 9 s of a core);
    #: the built-in variants' tables, built ahead, do not count.
    SOLVER_BUILDS = 2
    #: Of those, at once per client address; a client past it gets 429.
    SOLVER_CLIENT_BUILDS = 1
    #: Tables one client address may have built in an hour (per worker); past it, 429.
    SOLVER_CLIENT_BUILDS_PER_HOUR = 20
    #: Tables kept on disk, the last used, besides the built-in variants' (house rules make any number).
    SOLVER_KEEP = 100
    #: Bytes the advisor's folder may hold: its files, and the builds under way at their most. House rules'
    #: files go first, the used least lately; the built-in variants' (1.3 GB) are kept whatever it says.
    SOLVER_DISK_BYTES = 4 << 30
    #: Play to win (advice with opponents) weighs every sheet a roll leads to against each opponent's:
    #: the share of a core each worker may spend on it, the share one client address may, and the seconds
    #: either may spend at once before it must wait (anotador/advisor/weighing.py; past them, 429).
    TO_WIN_SHARE = 0.25
    TO_WIN_CLIENT_SHARE = 0.05
    TO_WIN_BURST = 2.0
    #: Play-to-win requests each worker weighs at once; one more is refused at once (429), never queued.
    TO_WIN_AT_ONCE = 1
    #: Build the built-in variants' missing tables in the background when the app starts.
    SOLVER_BUILD_AHEAD = True
    #: With it, follow the Yahtzee family's built-in rule sets into their outcomes too (their early chances).
    SOLVER_OUTCOMES_AHEAD = True

    # -- live streams (anotador/live/streams.py; under the ASGI server only)
    #: Streams one process holds at most; past it a stream is refused (503) and the page polls.
    LIVE_STREAMS = 20000
    #: Streams one client address may hold per process (0: no bound); past it a 429 and the page polls.
    LIVE_STREAMS_PER_ADDRESS = 64
    #: Seconds between two heartbeats of a quiet stream (nginx's read timeout must be longer).
    LIVE_HEARTBEAT_SECONDS = 15.0
    #: Seconds a stream lasts before the browser is asked to open a new one (perhaps on another server).
    LIVE_STREAM_SECONDS = 3600.0

    # -- watching it (anotador/ops/metrics.py, anotador/ops/gate.py)
    #: Serve GET /metrics in Prometheus's text format (keep it from the internet: deploy/nginx answers 404).
    METRICS = False
    #: The access log's lines: "text" (one line as nginx writes it) or "json" (one object a line).
    LOG_FORMAT = "text"

    # -- behind a proxy
    #: How many proxies in front to trust for X-Forwarded-For/-Proto/-Host/
    #: -Prefix (0: none; the peer is the client).
    PROXY_HOPS = 0
    #: Host names this service answers to (a list, or comma-separated; "*":
    #: any); other Host headers are refused with 400. Unset: this machine's
    #: own names (localhost; with LAN_URL, also its addresses and host name),
    #: or, behind PROXY_HOPS proxies, whatever host they forward.
    TRUSTED_HOSTS = None
    #: Origins of other web apps allowed to call the API from a browser (a list, or comma-separated;
    #: e.g. "https://scores.example"). Unset: none (no CORS).
    CORS_ORIGINS = None
    #: The address phones should open when a game is started from the
    #: machine itself (scripts/serve --lan sets it to the LAN address).
    LAN_URL = None


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


def engine_options(config) -> dict:
    """SQLAlchemy engine options from the settings above, per database."""
    url = config["SQLALCHEMY_DATABASE_URI"]
    # No pool_pre_ping: its SELECT 1 costs every request a round trip.
    # anotador.store.database looks at a PostgreSQL connection's socket instead;
    # a SQLite file has no connection to lose.
    options = {} if url.startswith("sqlite") else {"pool_timeout": config["DB_POOL_TIMEOUT"]}
    if url.startswith("postgresql"):
        statement, lock = int(config["DB_STATEMENT_TIMEOUT_MS"]), int(config["DB_LOCK_TIMEOUT_MS"])
        options["connect_args"] = {
            "connect_timeout": int(config["DB_CONNECT_TIMEOUT"]),
            "options": f"-c statement_timeout={statement} -c lock_timeout={lock}",
            **tcp_options(config),
        }
    return {**options, **config.get("SQLALCHEMY_ENGINE_OPTIONS", {})}


def listed(value) -> list[str]:
    """A setting that names several things: a list, or comma-separated text; its non-empty items."""
    if not value:
        return []
    items = value.split(",") if isinstance(value, str) else value
    return [item.strip() for item in items if item.strip()]


#: Names that always reach this machine from itself; a web page elsewhere cannot be served under them.
LOCAL_HOSTS = ("localhost", "127.0.0.1", "[::1]")


def tcp_options(config) -> dict:
    """libpq's TCP settings: a connection across a network partition dies in seconds, not at TCP's 15 minutes.

    Keepalives find an idle connection whose peer is gone; ``tcp_user_timeout``
    ends one whose data sent stays unacknowledged past the request budget.
    """
    return {"keepalives": 1, "keepalives_idle": 10, "keepalives_interval": 3, "keepalives_count": 3,
            "tcp_user_timeout": int(float(config["DB_REQUEST_BUDGET"]) * 1000)}


def hosts(value, lan_url: str | None = None, proxy_hops: int = 0) -> list[str] | None:
    """TRUSTED_HOSTS as a list (None: any): JSON list from the environment, "a.example, b.example", or "*".

    Unset, the default trusts only names that cannot be borrowed: a forged
    Host would put its name in share links, and a web page a player visits
    could reach a LAN server through DNS rebinding under a name of its own.
    Behind a proxy, the proxy chooses the hosts it forwards.
    """
    names = [name.lower() for name in listed(value)]
    if names:
        return None if "*" in names else names
    if proxy_hops:
        return None
    if lan_url:
        from .ops.lan import own_names

        return sorted(set(LOCAL_HOSTS) | own_names(lan_url))
    return list(LOCAL_HOSTS)
