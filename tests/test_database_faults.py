"""A database that stops answering: 503 with Retry-After, never 500, and recovery without a restart.

PostgreSQL is reached through a TCP proxy the tests break (unreachable,
restarted, connections killed, a host that never answers); locks are held
from another connection. SQLite is locked by another writer.
"""

from __future__ import annotations

import fcntl
import os
import sqlite3
import threading
import time

import pytest
import sqlalchemy as sa

from anotador import create_app

from .dbkit import Table, dispose, run_sql
from .faults import TcpProxy


def _unavailable(r) -> None:
    assert r.status_code == 503, (r.status_code, r.get_data()[:300])
    assert r.mimetype == "application/problem+json"
    problem = r.get_json()
    assert problem["type"].endswith("database-unavailable") and problem["status"] == 503
    assert int(r.headers["Retry-After"]) >= 1


@pytest.fixture
def proxied(postgres_url):
    """An app whose PostgreSQL sits behind a breakable proxy; yields (app, client, proxy)."""
    url = sa.engine.make_url(postgres_url)
    run_sql(postgres_url, "TRUNCATE games RESTART IDENTITY CASCADE")
    proxy = TcpProxy((url.host or "127.0.0.1", url.port or 5432)).start()
    app = create_app({"TESTING": True, "SQLALCHEMY_DATABASE_URI": str(url.set(port=proxy.port)).replace(
        "***", url.password or ""), "DB_CONNECT_TIMEOUT": 2, "DB_LOCK_TIMEOUT_MS": 1000,
        "DB_STATEMENT_TIMEOUT_MS": 2000, "DB_POOL_TIMEOUT": 2})
    yield app, app.test_client(), proxy
    proxy.stop()
    dispose(app)


def _every_endpoint(client, game: Table):
    """One request per kind that needs the database."""
    return [
        client.get(game.url()),
        client.get(game.url(), headers={"If-None-Match": '"1"'}),
        client.get(game.url("/turns")),
        client.post(game.url("/turns"), json={"player": 0, "category": "ones", "scratch": True}, headers=game.auth),
        client.patch(game.url("/turns/1"), json={"served": True}, headers=game.auth),
        client.delete(game.url("/turns/last"), headers=game.auth),
        client.post(game.url("/roll-off"), json={"player": 0, "dice": [1, 2, 3, 4, 5]}, headers=game.auth),
        client.get(game.url("/sheet.pdf")),
        client.post("/api/v1/games", json={"variant": "generala", "players": ["Ana", "Beto"]}),
        client.get("/readyz"),
    ]


def test_unreachable_then_back_without_a_restart(proxied):
    app, client, proxy = proxied
    game = Table(client, client.post("/api/v1/games", json={"variant": "generala", "players": ["A", "B"]}).get_json())
    game.turn(0, "ones", [1, 1, 2, 3, 4])
    proxy.stop()
    t = time.monotonic()
    for r in _every_endpoint(client, game):
        _unavailable(r)
    assert time.monotonic() - t < 30  # each answer within the connect timeout
    # what needs no database still works
    assert client.get("/healthz").status_code == 200
    assert client.post("/api/v1/score", json={"variant": "generala", "dice": [1, 2, 3, 4, 5]}).status_code == 200
    proxy.start()
    assert client.get("/readyz").status_code == 200
    assert game.get()["players"][0]["sheet"]["ones"] == 2  # nothing lost
    game.turn(1, "twos", [2, 2, 1, 3, 4])


def test_killed_connections_cost_no_failed_request(proxied):
    _, client, proxy = proxied
    game = Table(client, client.post("/api/v1/games", json={"variant": "generala", "players": ["A", "B"]}).get_json())
    for round_ in range(3):
        proxy.kill_connections()  # a database restart: every pooled connection is dead
        assert client.get(game.url()).status_code == 200
        game.turn(0, ["ones", "twos", "threes"][round_], scratch=True)
        proxy.kill_connections()
        game.turn(1, ["ones", "twos", "threes"][round_], scratch=True)


def test_a_host_that_never_answers_is_503_within_the_connect_timeout(proxied):
    app, client, proxy = proxied
    game = Table(client, client.post("/api/v1/games", json={"variant": "generala", "players": ["A", "B"]}).get_json())
    proxy.blackhole()
    proxy.kill_connections()
    dispose(app)  # no pooled connection left: the next request must connect
    t = time.monotonic()
    _unavailable(client.get(game.url()))
    assert time.monotonic() - t < 30  # connect_timeout 2 s (libpq may try twice), not TCP's minutes
    proxy.blackhole(False)
    assert client.get(game.url()).status_code == 200


def test_a_table_lock_is_503_after_the_lock_timeout_and_frees_the_worker(proxied, postgres_url):
    _, client, _ = proxied
    game = Table(client, client.post("/api/v1/games", json={"variant": "generala", "players": ["A", "B"]}).get_json())
    engine = sa.create_engine(postgres_url)
    conn = engine.connect()
    tx = conn.begin()
    conn.execute(sa.text("LOCK TABLE games IN ACCESS EXCLUSIVE MODE"))  # held as long as this test likes
    try:
        for do in (lambda: client.get(game.url()),
                   lambda: game.client.post(game.url("/turns"), headers=game.auth,
                                            json={"player": 0, "category": "ones", "scratch": True})):
            t = time.monotonic()
            _unavailable(do())
            assert time.monotonic() - t < 20  # lock_timeout 1 s, not the lock's 40
    finally:
        tx.rollback()
        conn.close()
        engine.dispose()
    assert game.turn(0, "ones", scratch=True)["players"][0]["sheet"]["ones"] == 0


# -- SQLite -------------------------------------------------------------------------


@pytest.fixture
def sqlite_app(tmp_path, sqlite_template):
    import shutil

    path = tmp_path / "faults.sqlite"
    shutil.copyfile(sqlite_template, path)
    app = create_app({"TESTING": True, "SQLALCHEMY_DATABASE_URI": f"sqlite:///{path}", "DB_BUSY_TIMEOUT_MS": 500})
    yield app, app.test_client(), path
    dispose(app)


def test_sqlite_another_writer_holding_the_lock_is_503_for_writes_only(sqlite_app):
    _, client, path = sqlite_app
    game = Table(client, client.post("/api/v1/games", json={"variant": "generala", "players": ["A", "B"]}).get_json())
    other = sqlite3.connect(path, isolation_level=None)
    other.execute("BEGIN IMMEDIATE")  # another process's writer, stuck mid-transaction
    try:
        t = time.monotonic()
        _unavailable(client.post(game.url("/turns"), headers=game.auth,
                                 json={"player": 0, "category": "ones", "scratch": True}))
        assert time.monotonic() - t < 15  # busy timeout 0.5 s; the lock is held until the test lets go
        assert client.get(game.url()).status_code == 200  # WAL: readers never wait for a writer
    finally:
        other.execute("ROLLBACK")
        other.close()
    game.turn(0, "ones", scratch=True)


def test_sqlite_a_stuck_writer_in_another_worker_is_503_not_a_hang(sqlite_app):
    _, client, path = sqlite_app
    game = Table(client, client.post("/api/v1/games", json={"variant": "generala", "players": ["A", "B"]}).get_json())
    fd = os.open(f"{path}.write-lock", os.O_RDWR | os.O_CREAT, 0o600)
    fcntl.flock(fd, fcntl.LOCK_EX)  # the write lock of anotador/store/database.py, held by a stuck worker
    try:
        results = []
        threads = [threading.Thread(target=lambda: results.append(client.post(
            game.url("/turns"), headers=game.auth, json={"player": 0, "category": "ones", "scratch": True})))
            for _ in range(3)]
        t = time.monotonic()
        for th in threads:
            th.start()
        for th in threads:
            th.join()
        assert time.monotonic() - t < 15  # busy timeout 0.5 s; the lock is held until the test lets go
        for r in results:
            _unavailable(r)
    finally:
        os.close(fd)
    game.turn(0, "ones", scratch=True)


def test_sqlite_every_write_holds_the_write_lock_until_its_commit_has_returned(sqlite_app):
    """The lock goes after COMMIT (and its fsync), never before: the next writer would meet SQLite's busy sleeps.

    Every statement a write runs is traced; at each one the test tries the
    write lock from another file description. Creating a game, a turn, a
    correction and an undo all write.
    """
    from sqlalchemy import event

    from anotador.extensions import db

    app, client, path = sqlite_app
    seen: list[tuple[str, str]] = []

    def probe(statement: str) -> None:
        kind = statement.strip().split()[0].upper()
        if kind not in ("COMMIT", "INSERT", "UPDATE", "DELETE"):
            return
        fd = os.open(f"{path}.write-lock", os.O_RDWR | os.O_CREAT, 0o600)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            seen.append((kind, "free"))
        except BlockingIOError:
            seen.append((kind, "held"))
        finally:
            os.close(fd)  # closing lets go of a lock this probe took

    with app.app_context():
        event.listen(db.engine, "connect", lambda dbapi, _: dbapi.set_trace_callback(probe))
        db.engine.dispose()  # every connection from now on is traced
    names = ["Guillermina Fernández de la Serna Ortiz", "李小龍"]
    game = Table(client, client.post("/api/v1/games", json={"variant": "generala", "players": names}).get_json())
    game.turn(game.body["first_player"], "ones", [1, 1, 2, 3, 4])
    game.correct(1, dice=[1, 1, 1, 3, 4])
    game.undo()
    assert ("COMMIT", "held") in seen and ("INSERT", "held") in seen
    assert [s for s in seen if s[1] != "held"] == []
    seen.clear()
    game.turn(game.body["first_player"], "ones", [1, 1, 2, 3, 4])
    game.turn(1 - game.body["first_player"], "ones", [2, 2, 2, 3, 4])
    assert ("COMMIT", "held") in seen and [s for s in seen if s[1] != "held"] == []


def test_readyz_says_when_the_schema_is_behind(tmp_path):
    app = create_app({"TESTING": True, "SQLALCHEMY_DATABASE_URI": f"sqlite:///{tmp_path / 'new.sqlite'}"})
    r = app.test_client().get("/readyz")
    assert r.status_code == 503 and r.mimetype == "application/problem+json" and "Retry-After" in r.headers
    from flask_migrate import upgrade

    with app.app_context():
        upgrade(revision="0001_games")
    r = app.test_client().get("/readyz")
    assert r.status_code == 503 and r.get_json()["type"].endswith("not-ready")
    with app.app_context():
        upgrade()
    r = app.test_client().get("/readyz")
    assert r.status_code == 200 and r.get_json()["database"] == "sqlite"
    dispose(app)


def test_healthz_needs_no_database(tmp_path):
    app = create_app({"TESTING": True, "SQLALCHEMY_DATABASE_URI": "postgresql+psycopg://nobody@127.0.0.1:1/none"})
    r = app.test_client().get("/healthz")
    assert r.status_code == 200 and r.get_json() == {"status": "ok"}
    _unavailable(app.test_client().get("/readyz"))
    _unavailable(app.test_client().get("/api/v1/games/abc"))


@pytest.mark.parametrize("key", [None, "a-tap"])
def test_sqlite_a_turn_failing_mid_write_is_503_and_stores_nothing(sqlite_app, key):
    """A turn's statements go to the driver itself (sheets.backends.SQLite.turn_writes); its errors still become SQLAlchemy's.

    The entries' table vanishes behind the app's back, so the turn's third
    statement fails after the game has moved: a 503, the game as it was,
    the key not kept; once the table is back, the same request is stored.
    """
    _, client, path = sqlite_app
    names = ["Guillermina Fernández de la Serna Ortiz", "李小龍", "Đặng Thị Ngọc Hân Nguyễn Phạm Trần Lê Võ",
             "أحمد بن محمد بن عبد الله الهاشمي القرشي", "Αλέξανδρος Παπαδόπουλος-Καραμανλής Βλ", "Zoë"]
    game = Table(client, client.post("/api/v1/games", json={"variant": "generala", "players": names}).get_json())
    first = game.body["first_player"]
    game.turn(first, "ones", [1, 1, 2, 3, 4])
    before = game.get()
    other = sqlite3.connect(path, isolation_level=None)
    headers = {**game.auth, **({"Idempotency-Key": key} if key else {})}
    turn = {"player": (first + 1) % 6, "category": "ones", "dice": [1, 2, 2, 3, 4]}
    try:
        other.execute("ALTER TABLE entries RENAME TO entries_away")
        _unavailable(client.post(game.url("/turns"), json=turn, headers=headers))
    finally:
        other.execute("ALTER TABLE entries_away RENAME TO entries")
        other.close()
    assert game.get() == before
    r = client.post(game.url("/turns"), json=turn, headers=headers)
    assert r.status_code == 201, r.get_json()
    assert r.get_json()["version"] == before["version"] + 1


@pytest.mark.parametrize("suffix", ["/turns", "/analysis", "/sheet.pdf"])
def test_a_connection_killed_before_the_request_ends_its_session_is_a_503_problem(postgres_url, advice_tables,
                                                                                  suffix):
    """The rollback that ends a read's session fails on a killed connection: a 503 problem, never an empty 500."""
    from anotador.extensions import db

    run_sql(postgres_url, "TRUNCATE games RESTART IDENTITY CASCADE")
    app = create_app({"TESTING": True, "SQLALCHEMY_DATABASE_URI": postgres_url, "GAMES_PER_MINUTE": 0})
    armed, killed = [], []

    @app.before_request
    def hook():  # asked for before the view, so it runs after it and before the session ends
        from flask import after_this_request

        after_this_request(kill)

    def kill(response):
        if armed and not killed and db.session.registry.has() and db.session().in_transaction():
            pid = db.session.connection().connection.driver_connection.info.backend_pid
            run_sql(postgres_url, f"SELECT pg_terminate_backend({pid})")
            deadline = time.monotonic() + 5
            while time.monotonic() < deadline and backend_alive(postgres_url, pid):
                time.sleep(0.01)
            killed.append(pid)
        return response

    client = app.test_client()
    game = Table(client, client.post("/api/v1/games", json={"variant": "generala", "players": ["Ana", "Beto"]})
                 .get_json())
    game.turn(game.body["first_player"], "ones", [1, 1, 2, 3, 4])
    armed.append(True)
    try:
        r = client.get(game.url(suffix))
        assert killed, "the read held no transaction to kill"
        _unavailable(r)
        assert client.get(game.url(suffix)).status_code == 200  # the pool let the dead connection go
    finally:
        dispose(app)


def backend_alive(url: str, pid: int) -> bool:
    """Whether backend ``pid`` is still there."""
    engine = sa.create_engine(url)
    with engine.connect() as conn:
        alive = conn.execute(sa.text("SELECT count(*) FROM pg_stat_activity WHERE pid = :p"), {"p": pid}).scalar()
    engine.dispose()
    return bool(alive)


# -- a network partition: packets dropped, nothing closed ------------------------------------------

#: The request budget the partition test gives the server, and how long the partition lasts: longer.
BUDGET, PARTITION = 6, 14


@pytest.mark.slow
def test_a_partition_costs_503s_within_the_budget_and_nothing_else_waits(postgres_url, tmp_path):
    """The database's packets dropped for longer than the budget, under a real server and steady load.

    Every request that needs the database gives up within the budget (503);
    scoring, the variants, the page, the spec and /healthz answer as usual
    throughout; when the packets flow again, so do reads, without a restart.
    """
    import statistics

    from bench._http import request

    from .test_serving import serve

    url = sa.engine.make_url(postgres_url)
    proxy = TcpProxy((url.host or "127.0.0.1", url.port or 5432)).start()
    through = url.set(port=proxy.port).render_as_string(hide_password=False)
    env = {"DATABASE_URL": through, "ANOTADOR_DB_CONNECT_TIMEOUT": "2", "ANOTADOR_DB_REQUEST_BUDGET": str(BUDGET),
           "ANOTADOR_GAMES_PER_MINUTE": "0"}
    with serve(tmp_path, env=env) as (_, port):
        status, _, game = request(port, "POST", "/api/v1/games", {"variant": "generala", "players": ["Ana", "Beto"]})
        assert status == 201
        path = f"/api/v1/games/{game['id']}"
        stop = threading.Event()
        database: list = []   # (status, seconds) of requests that need the database
        others: list = []     # (path, status, seconds) of requests that need none
        free = [("POST", "/api/v1/score", {"variant": "generala", "dice": [1, 2, 3, 4, 5]}),
                ("GET", "/api/v1/variants", None), ("GET", "/", None), ("GET", "/openapi.yaml", None),
                ("GET", "/healthz", None)]

        def needs_database(headers):
            while not stop.is_set():
                t = time.monotonic()
                try:
                    status = request(port, "GET", path, headers=headers, timeout=30)[0]
                except OSError:
                    status = "no answer"
                database.append((t, status, time.monotonic() - t))
                stop.wait(0.2)

        def needs_none():
            n = 0
            while not stop.is_set():
                method, where, body = free[n % len(free)]
                t = time.monotonic()
                try:
                    status = request(port, method, where, body, timeout=30)[0]
                except OSError:
                    status = "no answer"
                others.append((where, status, time.monotonic() - t))
                n += 1
                stop.wait(0.1)

        threads = [threading.Thread(target=needs_database, args=(h,)) for h in ({}, {"If-None-Match": '"1"'}) * 6]
        threads += [threading.Thread(target=needs_none) for _ in range(2)]
        for t in threads:
            t.start()
        try:
            time.sleep(2)
            frozen_at = time.monotonic()
            proxy.freeze()
            time.sleep(PARTITION)
            proxy.freeze(False)
            thawed_at = time.monotonic()
            time.sleep(BUDGET + 6)
        finally:
            stop.set()
            for t in threads:
                t.join(timeout=60)
            proxy.stop()
    during = [(s, d) for t, s, d in database if frozen_at <= t <= thawed_at - BUDGET]
    assert during and all(s in (200, 304, 503) for s, _ in during), during
    assert max(d for _, d in during) <= BUDGET + 1.5, sorted(d for _, d in during)[-5:]
    assert sum(s == 503 for s, _ in during) >= len(during) * 0.8
    slow = [(p, s, round(d, 2)) for p, s, d in others if s != 200 or d > 1.0]
    assert len(slow) <= len(others) * 0.05 and all(s == 200 for _, s, _ in slow), slow
    assert statistics.median(d for _, _, d in others) < 0.2
    after = [s for t, s, _ in database if t > thawed_at + BUDGET]
    assert len(after) >= 10 and set(after[-10:]) <= {200, 304}, after  # back, with no restart
    print(f"partition: {len(during)} database requests, {sum(s == 503 for s, _ in during)} 503, slowest "
          f"{max(d for _, d in during):.2f} s; {len(others)} others, median "
          f"{statistics.median(d for _, _, d in others) * 1000:.1f} ms, slowest {max(d for _, _, d in others):.2f} s")
