"""Live sheets in process: who waits for what, the feeds that hear of changes, and the app's own answer.

The feeds run on both databases: a turn recorded through the app reaches a
waiting key (PostgreSQL: by the trigger's notification; SQLite: by the
file's data_version), and so does one recorded while PostgreSQL's listening
connection was cut. The server that holds streams open is tested in
tests/test_live_server.py.
"""

from __future__ import annotations

import threading

import pytest
import sqlalchemy as sa

from anotador.config import engine_options
from anotador.extensions import db
from anotador.live import feeds, game_key, last_seen, mesa_key
from anotador.live.changes import Changes

from .dbkit import Table, dispose
from .mesakit import Mesa


def test_a_change_wakes_the_waiters_of_its_key_only_and_only_when_newer():
    changes = Changes()
    woken = []
    a1 = changes.subscribe("g:a", lambda: woken.append("a1"))
    changes.subscribe("g:a", lambda: woken.append("a2"))
    changes.subscribe("g:b", lambda: woken.append("b"))
    changes.publish("g:a", 3)
    assert sorted(woken) == ["a1", "a2"] and changes.newest("g:a") == 3
    changes.publish("g:a", 2)  # older: a late or repeated notice
    changes.publish("g:a", 3)
    changes.publish("g:c", 9)  # nobody waits: nothing kept
    assert len(woken) == 2 and changes.newest("g:c") is None
    assert sorted(changes.keys()) == ["g:a", "g:b"] and len(changes) == 3
    changes.unsubscribe(a1)
    assert changes.newest("g:a") == 3 and len(changes) == 2


def test_the_last_waiter_going_forgets_the_key():
    changes = Changes()
    waiter = changes.subscribe("g:a", lambda: None)
    changes.publish("g:a", 5)
    changes.unsubscribe(waiter)
    changes.unsubscribe(waiter)  # twice: no error
    assert changes.keys() == [] and changes.newest("g:a") is None


@pytest.mark.parametrize("header, seen", [("7", 7), (" 12 ", 12), (None, None), ("", None), ("x", None),
                                          ("-1", None), ("9" * 13, None), ("\u0661", None)])
def test_last_event_id_is_a_version_or_nothing(header, seen):
    assert last_seen(header) == seen


class Heard:
    """A waiter that records the versions it is woken for."""

    def __init__(self, changes: Changes, key: str) -> None:
        self.changes, self.key = changes, key
        self.event = threading.Event()
        changes.subscribe(key, self.event.set)

    def wait_for(self, version: int, timeout: float = 15.0) -> int | None:
        """Wait until ``version`` (or later) of the key is heard; the newest heard."""
        while (self.changes.newest(self.key) or 0) < version:
            self.event.clear()
            if (self.changes.newest(self.key) or 0) >= version:
                break
            if not self.event.wait(timeout):
                break
        return self.changes.newest(self.key)


def start_game(api) -> Table:
    r = api.post("/api/v1/games", json={"variant": "generala", "players": ["Ana", "Beto"]})
    assert r.status_code == 201, r.get_json()
    return Table(api, r.get_json())


@pytest.fixture
def feed(db_app):
    changes = Changes()
    with db_app.app_context():
        url = db.engine.url
    running = feeds.start(url, changes, engine_options(db_app.config).get("connect_args"))
    assert running.hearing.wait(15), "the feed did not start hearing"
    yield changes, running
    running.stop()
    running.join(10)


def test_a_turn_recorded_through_the_app_reaches_the_feed(api, feed):
    changes, running = feed
    table = start_game(api)
    heard = Heard(changes, game_key(table.id))
    table.turn(0, "full", [6, 6, 6, 1, 1])
    assert heard.wait_for(2) == 2
    table.turn(1, "full", [2, 2, 3, 3, 3])
    assert heard.wait_for(3) == 3


def test_a_table_of_regulars_moving_on_reaches_the_feed(api, feed):
    changes, _ = feed
    mesa = Mesa(api)
    before = mesa.get()["version"]
    heard = Heard(changes, mesa_key(mesa.id))
    game = mesa.game(["Ana", "Beto"])
    assert game.id
    assert heard.wait_for(before + 1) >= before + 1


@pytest.mark.parametrize("db_url", ["postgresql"], indirect=True)  # SQLite's feed has no connection to cut
def test_a_turn_recorded_while_the_listener_was_cut_is_heard_when_it_listens_again(db_app, api, feed):
    changes, running = feed
    table = start_game(api)
    heard = Heard(changes, game_key(table.id))
    with db_app.app_context():
        with db.engine.connect() as conn:
            cut = conn.execute(sa.text("SELECT pg_terminate_backend(pid) FROM pg_stat_activity "
                                       "WHERE query LIKE 'LISTEN%' AND datname = current_database()")).all()
            conn.commit()
    assert cut and all(row[0] for row in cut)
    table.turn(0, "full", [6, 6, 6, 1, 1])  # perhaps while nobody listens: the resync reads it
    assert heard.wait_for(2) == 2
    assert running.hearing.wait(15)
    table.turn(1, "full", [2, 2, 3, 3, 3])
    assert heard.wait_for(3) == 3


def test_the_app_answers_the_current_version_and_asks_to_be_polled(api):
    table = start_game(api)
    r = api.get(f"/api/v1/games/{table.id}/events")
    assert r.status_code == 200 and r.mimetype == "text/event-stream"
    assert r.headers["Cache-Control"] == "no-store" and r.headers["X-Accel-Buffering"] == "no"
    assert r.data == b'retry: 1000\n\nid: 1\nevent: version\ndata: {"version": 1}\n\n'
    assert api.get(f"/api/v1/games/{table.id}/events", headers={"Last-Event-ID": "1"}).data == b"retry: 1000\n\n"
    table.turn(0, "full", [6, 6, 6, 1, 1])
    r = api.get(f"/api/v1/games/{table.id}/events", headers={"Last-Event-ID": "1"})
    assert b"id: 2\nevent: version" in r.data
    missing = api.get("/api/v1/games/nosuchgame/events")
    assert missing.status_code == 404 and missing.mimetype == "application/problem+json"


@pytest.mark.parametrize("db_url", ["postgresql"], indirect=True)  # SQLite has no guard
def test_the_listening_connection_outlives_a_request_s_budget(db_url):
    """The guard cuts any pooled connection held past DB_REQUEST_BUDGET; the feed's is its own, never cut."""
    from anotador.app import create_app
    from anotador.ops.asgi import Live

    app = create_app({"TESTING": True, "SQLALCHEMY_DATABASE_URI": db_url, "DB_REQUEST_BUDGET": 1,
                      "DB_SUSPECT_SECONDS": 0.1, "SOLVER_BUILD_AHEAD": False})
    live = Live(app, threads=2)
    try:
        assert live.feed.hearing.wait(15)
        client = app.test_client()
        table = start_game(client)
        heard = Heard(live.changes, game_key(table.id))
        threading.Event().wait(3)  # three budgets
        table.turn(0, "full", [6, 6, 6, 1, 1])
        assert heard.wait_for(2) == 2
        assert live.feed.listens == 1  # never cut, never listening again
    finally:
        live.feed.stop()
        live.feed.join(10)
        dispose(app)


def test_the_app_answers_a_table_s_version_too(api):
    mesa = Mesa(api)
    version = mesa.get()["version"]
    r = api.get(mesa.url("/events"))
    assert r.status_code == 200 and r.mimetype == "text/event-stream"
    assert r.data == f'retry: 1000\n\nid: {version}\nevent: version\ndata: {{"version": {version}}}\n\n'.encode()
    missing = api.get("/api/v1/tables/nosuchtable/events")
    assert missing.status_code == 404 and missing.mimetype == "application/problem+json"


def test_a_stream_nobody_reads_is_closed_and_a_write_never_waits_for_it(db_app, api, monkeypatch):
    """The server makes a send wait while the client's socket is full (tests/test_live_server.py holds
    granian to it); a send that waits SEND_SECONDS ends the stream and frees its place. Publishing a
    version only wakes the stream: the feed's thread (and so no write) ever waits on a socket."""
    import asyncio

    from anotador.live import streams as live_streams

    from .livekit import run

    monkeypatch.setattr(live_streams, "SEND_SECONDS", 0.3)
    mesa = Mesa(api)
    changes = Changes()
    streams = live_streams.Streams(db_app, changes)
    key = mesa_key(mesa.id)
    sent: list[dict] = []

    async def send(message: dict) -> None:
        sent.append(message)
        if len(sent) > 2:  # the status line and the opening went out; then the socket is full
            await asyncio.Event().wait()

    async def receive() -> dict:
        await asyncio.Event().wait()  # the client says nothing, and does not go
        return {}

    async def hold() -> tuple[bool, float]:
        stream = asyncio.ensure_future(streams({"client": ("10.0.0.9", 5), "headers": []}, receive, send, key))
        while len(sent) < 2 and not stream.done():
            await asyncio.sleep(0.01)
        assert not stream.done(), stream.result()
        assert streams.open == 1 and changes.keys() == [key]
        changes.publish(key, 10**6)  # returns at once: the stream sends later, on its own
        assert not stream.done() and len(sent) == 2
        return await asyncio.wait_for(stream, 10)

    assert run(hold()) is True
    assert sent[0]["status"] == 200 and b"event: version" in sent[1]["body"]
    assert b"id: 1000000" in sent[2]["body"]  # the send that waited, and was given up
    assert streams.open == 0 and not streams.by_address and changes.keys() == []


def test_streams_opened_together_spread_their_heartbeats(db_app, api):
    """Phones that came together (a server restarted) send their first heartbeat at points spread over the
    period, each within it, so the heartbeats of ten thousand streams do not come in one burst forever."""
    import asyncio

    from anotador.live import streams as live_streams

    from .livekit import run

    mesa = Mesa(api)
    db_app.config["LIVE_HEARTBEAT_SECONDS"] = 0.5
    streams = live_streams.Streams(db_app, Changes())
    opened: dict[int, float] = {}
    first: dict[int, float] = {}

    async def hold() -> float:
        loop = asyncio.get_running_loop()
        start = loop.time()

        def sender(n: int):
            async def send(message: dict) -> None:
                body = message.get("body", b"")
                if body.startswith(b"retry"):
                    opened[n] = loop.time()
                elif body.startswith(b": still here"):
                    first.setdefault(n, loop.time() - opened[n])  # from this stream's own opening
            return send

        async def receive() -> dict:
            await asyncio.Event().wait()
            return {}

        tasks = [asyncio.ensure_future(streams({"client": ("10.0.0.9", n), "headers": []}, receive, sender(n),
                                               mesa_key(mesa.id))) for n in range(12)]
        while len(first) < 12 and loop.time() - start < 10:
            await asyncio.sleep(0.02)
        streams.close_all()
        await asyncio.gather(*tasks)

    run(hold())
    assert len(first) == 12
    # each one the same period after its opening, they would lie within a few milliseconds
    assert max(first.values()) - min(first.values()) > 0.05, first
