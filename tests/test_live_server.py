"""Live streams under the ASGI server (granian, ``anotador/ops/asgi.py``), over loopback as phones hold them.

A turn stored through one server reaches a stream held by another (SQLite:
two processes on one file; PostgreSQL: two servers on one database); a
thousand idle streams are held and a turn reaches those of its game; the
bounds answer problems; everything else is the app as under gunicorn.
"""

from __future__ import annotations

import asyncio
import http.client
import json
import threading

import pytest

from bench._http import granian, request

from .livekit import open_stream, run


def create(port, players=("Ana", "Beto")):
    status, _, body = request(port, "POST", "/api/v1/games", {"variant": "generala", "players": list(players)})
    assert status == 201, body
    return body["id"], {"Authorization": f"Bearer {body['token']}"}


def turn(port, game, auth, player, dice=(6, 6, 6, 1, 1), box="full"):
    status, _, body = request(port, "POST", f"/api/v1/games/{game}/turns",
                              {"player": player, "dice": list(dice), "category": box}, auth)
    assert status == 201, body
    return body["version"]


def test_a_turn_through_one_server_reaches_a_stream_held_by_another(db_url):
    env = {"DATABASE_URL": db_url}
    with granian(env=env, workers=1) as a, granian(env=env, workers=1) as b:
        game, auth = create(a.port)

        async def play():
            stream = await open_stream(b.port, f"/api/v1/games/{game}/events")
            assert stream.status == 200 and stream.headers["content-type"].startswith("text/event-stream")
            assert stream.headers["x-accel-buffering"] == "no"
            assert await stream.version() == 1
            seen = []
            for player in (0, 1, 0):
                stored = await asyncio.to_thread(turn, a.port, game, auth, player,
                                                 box={0: "full", 1: "full"}[player] if not seen else "straight",
                                                 dice=(1, 2, 3, 4, 5) if seen else (6, 6, 6, 1, 1))
                seen.append(await stream.version())
                assert seen[-1] == stored
            stream.close()
            # Resumed with the last version seen: nothing is sent again until the next turn
            again = await open_stream(b.port, f"/api/v1/games/{game}/events", {"Last-Event-ID": str(seen[-1])})
            stored = await asyncio.to_thread(turn, a.port, game, auth, 1, (2, 2, 3, 3, 3))
            assert await again.version() == stored == seen[-1] + 1
            again.close()

            # A table of regulars, the same way: a game started at it through one server moves its version,
            # and a stream held by the other hears it
            status, _, mesa = await asyncio.to_thread(request, a.port, "POST", "/api/v1/tables", {"name": "Los domingos"})
            assert status == 201
            table = await open_stream(b.port, f"/api/v1/tables/{mesa['id']}/events")
            assert table.status == 200 and await table.version() == mesa["version"]
            status, _, _ = await asyncio.to_thread(
                request, a.port, "POST", "/api/v1/games", {"variant": "generala", "players": ["Ana", "Beto"],
                                                          "table": mesa["id"]}, {"Authorization": f"Bearer {mesa['token']}"})
            assert status == 201
            assert await table.version() > mesa["version"]
            table.close()
            missing = await open_stream(b.port, "/api/v1/tables/nosuchtable/events")
            assert missing.status == 404 and missing.headers["content-type"] == "application/problem+json"
            missing.close()

        run(play())


def test_a_thousand_idle_streams_are_held_and_a_turn_reaches_its_game_s(db_url):
    env = {"DATABASE_URL": db_url, "ANOTADOR_LIVE_STREAMS_PER_ADDRESS": "0", "ANOTADOR_LIVE_HEARTBEAT_SECONDS": "1"}
    with granian(env=env, workers=1) as srv:
        games = [create(srv.port) for _ in range(10)]

        async def hold():
            streams = []
            for i in range(1000):
                stream = await open_stream(srv.port, f"/api/v1/games/{games[i % 10][0]}/events")
                assert stream.status == 200
                streams.append(stream)
            assert [await s.version() for s in streams] == [1] * 1000
            await asyncio.sleep(1.5)  # a heartbeat for every quiet stream
            game, auth = games[3]
            stored = await asyncio.to_thread(turn, srv.port, game, auth, 0)
            mine = streams[3::10]
            assert [await s.version() for s in mine] == [stored] * 100
            others = [s for i, s in enumerate(streams) if i % 10 != 3]
            assert all(s.comments >= 1 for s in mine)
            # the other 900 heard nothing but heartbeats, and still answer
            status, _, body = await asyncio.to_thread(request, srv.port, "GET", f"/api/v1/games/{games[0][0]}")
            assert status == 200 and body["version"] == 1
            for s in streams:
                s.close()
            return len(others)

        assert run(hold()) == 900


def test_streams_past_a_client_s_bound_are_refused_with_a_problem(tmp_path, sqlite_template):
    import shutil

    path = tmp_path / "a.sqlite"
    shutil.copyfile(sqlite_template, path)
    env = {"DATABASE_URL": f"sqlite:///{path}", "ANOTADOR_LIVE_STREAMS_PER_ADDRESS": "2"}
    with granian(env=env) as srv:
        game, _ = create(srv.port)

        async def crowd():
            held = [await open_stream(srv.port, f"/api/v1/games/{game}/events") for _ in range(2)]
            refused = await open_stream(srv.port, f"/api/v1/games/{game}/events")
            assert [s.status for s in held] == [200, 200]
            assert refused.status == 429 and refused.headers["content-type"] == "application/problem+json"
            assert refused.headers["retry-after"] == "30"
            problem = json.loads(refused.body)
            assert problem["status"] == 429 and problem["type"].endswith(":too-many-streams")
            held[0].close()
            refused.close()
            await asyncio.sleep(0.5)  # the server sees the first one go
            again = await open_stream(srv.port, f"/api/v1/games/{game}/events")
            assert again.status == 200 and await again.version() == 1
            for s in (held[1], again):
                s.close()

        run(crowd())


def test_everything_else_is_the_app_as_under_gunicorn(tmp_path, sqlite_template):
    import shutil

    path = tmp_path / "a.sqlite"
    shutil.copyfile(sqlite_template, path)
    with granian(env={"DATABASE_URL": f"sqlite:///{path}"}) as srv:
        game, auth = create(srv.port)
        status, headers, body = request(srv.port, "GET", f"/api/v1/games/{game}")
        headers = {k.lower(): v for k, v in headers.items()}  # HTTP's names are not case-sensitive
        assert status == 200 and headers["etag"] == '"1"'
        status, _, _ = request(srv.port, "GET", f"/api/v1/games/{game}", headers={"If-None-Match": '"1"'})
        assert status == 304
        status, headers, body = request(srv.port, "GET", "/api/v1/games/nosuchgame/events")
        assert status == 404 and {k.lower(): v for k, v in headers.items()}["content-type"] == "application/problem+json"
        status, _, body = request(srv.port, "POST", f"/api/v1/games/{game}/turns", {"player": 7}, auth)
        assert status == 422 and body["status"] == 422
        # headers past the server's 8 KiB buffer (--http1-buffer-size 8192): refused, as gunicorn and nginx do
        status, _, _ = request(srv.port, "GET", f"/api/v1/games/{game}", headers={"X-Long": "x" * 12_000})
        assert status == 431
        page = http.client.HTTPConnection("127.0.0.1", srv.port, timeout=30)
        page.request("GET", "/")
        answer = page.getresponse()
        assert answer.status == 200 and answer.getheader("Content-Type").startswith("text/html")
        assert b"<html" in answer.read()
        page.close()


def test_a_stopping_server_ends_its_streams_instead_of_waiting_for_them(tmp_path, sqlite_template):
    """A stream is never answered: without ending them, SIGTERM would wait for the last phone to leave."""
    import shutil
    import signal

    path = tmp_path / "a.sqlite"
    shutil.copyfile(sqlite_template, path)
    with granian(env={"DATABASE_URL": f"sqlite:///{path}"}) as srv:  # one worker: started when it answers
        game, _ = create(srv.port)

        async def hold():
            streams = [await open_stream(srv.port, f"/api/v1/games/{game}/events") for _ in range(6)]
            assert [await s.version() for s in streams] == [1] * 6
            srv.proc.send_signal(signal.SIGTERM)  # as systemd stops it
            for s in streams:
                with pytest.raises(EOFError):
                    await s.event(timeout=20)  # no heartbeat is due for 15 s: the stream ends
            # ended by the server, each with its last chunk: not cut by the worker's kill timeout
            assert [s.ended_cleanly for s in streams] == [True] * 6

        run(hold())
        assert srv.proc.wait(timeout=30) == 0


def test_streams_past_a_process_s_bound_are_refused_and_a_stream_ends_after_its_lifetime(tmp_path, sqlite_template):
    import shutil

    path = tmp_path / "a.sqlite"
    shutil.copyfile(sqlite_template, path)
    env = {"DATABASE_URL": f"sqlite:///{path}", "ANOTADOR_LIVE_STREAMS": "2", "ANOTADOR_LIVE_STREAMS_PER_ADDRESS": "0",
           "ANOTADOR_LIVE_STREAM_SECONDS": "2"}
    with granian(env=env) as srv:
        game, _ = create(srv.port)

        async def full():
            held = [await open_stream(srv.port, f"/api/v1/games/{game}/events") for _ in range(2)]
            refused = await open_stream(srv.port, f"/api/v1/games/{game}/events", source="127.0.0.2")
            assert [s.status for s in held] == [200, 200]
            assert refused.status == 503 and json.loads(refused.body)["type"].endswith(":streams-full")
            assert refused.headers["retry-after"] == "30"
            # two seconds on, each held stream ends, with its last chunk: the browser opens another
            for s in held:
                assert await s.version() == 1
                with pytest.raises(EOFError):
                    await s.event(timeout=15)
                assert s.ended_cleanly
            again = await open_stream(srv.port, f"/api/v1/games/{game}/events")
            assert again.status == 200 and await again.version() == 1
            for s in (refused, again):
                s.close()

        run(full())


def test_the_server_makes_a_send_wait_for_a_client_that_does_not_read():
    """What closes a stream nobody reads (``live/streams.SEND_SECONDS``) rests on granian: a send waits
    while the client's socket is full, rather than keeping the bytes in memory. If a granian release
    buffers instead, this fails: a phone that stops reading would grow the server without bound."""
    import socket
    import subprocess
    import sys

    from bench._http import ROOT, free_port

    port = free_port()
    proc = subprocess.Popen([sys.executable, "-m", "granian", "--interface", "asgi", "--host", "127.0.0.1",
                             "--port", str(port), "--working-dir", str(ROOT / "bench"), "--log-level", "warning",
                             "stream_floor_app:flood"], stdout=subprocess.PIPE, text=True)
    try:
        for _ in range(100):
            try:
                reader = socket.socket()
                reader.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)  # a phone's small window
                reader.connect(("127.0.0.1", port))
                break
            except OSError:
                proc.poll() is None or pytest.fail("granian did not start")
                threading.Event().wait(0.1)
        reader.sendall(b"GET / HTTP/1.1\r\nHost: x\r\n\r\n")  # and never read the answer
        line = proc.stdout.readline()
        reader.close()
        sent = int(line.split()[1])
        assert sent < 64 << 20, f"{sent} bytes went out to a client that read none: the server buffers them"
    finally:
        proc.terminate()
        proc.wait(20)
