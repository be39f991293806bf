"""The shared sheet under a real server: races, crashes, and live watchers.

Each test runs gunicorn on a migrated database (SQLite, then PostgreSQL) and
talks to it over loopback, as phones at a table would.
"""

from __future__ import annotations

import http.client
import threading
import time

import pytest

from bench._http import gunicorn, request


def create(port, players=("Ana", "Beto"), variant="generala"):
    status, _, body = request(port, "POST", "/api/v1/games", {"variant": variant, "players": list(players)})
    assert status == 201, body
    return body["id"], {"Authorization": f"Bearer {body['token']}"}


def test_twenty_clients_post_the_same_turn(db_url):
    with gunicorn("wsgi:app", workers=4, worker_class="gthread", threads=8, env={"DATABASE_URL": db_url}) as srv:
        game, auth = create(srv.port)
        barrier = threading.Barrier(20)
        results = []

        def post(if_match: bool):
            headers = {**auth, **({"If-Match": '"1"'} if if_match else {})}
            barrier.wait()
            results.append(request(srv.port, "POST", f"/api/v1/games/{game}/turns",
                                   {"player": 0, "dice": [6, 6, 6, 1, 1], "category": "full"}, headers)[0])

        threads = [threading.Thread(target=post, args=(i % 2 == 0,)) for i in range(20)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        assert sorted(results).count(201) == 1, results
        assert set(results) <= {201, 409, 412}, results
        _, _, body = request(srv.port, "GET", f"/api/v1/games/{game}")
        assert body["version"] == 2 and body["players"][0]["sheet"]["full"] == 30
        _, _, history = request(srv.port, "GET", f"/api/v1/games/{game}/turns")
        assert len(history["turns"]) == 1


def test_nothing_acknowledged_is_lost_when_the_server_is_killed(db_url):
    env = {"DATABASE_URL": db_url}
    acknowledged: dict[str, int] = {}
    stop = threading.Event()
    with gunicorn("wsgi:app", workers=2, env=env) as srv:
        games = [create(srv.port, ("A", "B", "C")) for _ in range(6)]

        boxes = ["ones", "twos", "threes", "fours", "fives", "sixes", "straight", "full", "four", "generala"]

        def play(game, auth):
            sent = 0
            while not stop.is_set():
                turn = {"player": sent % 3, "category": boxes[sent // 3], "scratch": True}
                try:
                    status, _, _ = request(srv.port, "POST", f"/api/v1/games/{game}/turns", turn, auth, timeout=5)
                except (OSError, http.client.HTTPException):
                    return  # the server died under us: this turn was not acknowledged
                if status != 201:
                    return
                sent += 1
                acknowledged[game] = sent
                if sent == 30:
                    return

        threads = [threading.Thread(target=play, args=g) for g in games]
        for t in threads:
            t.start()
        deadline = time.monotonic() + 30
        while sum(acknowledged.values()) < 40 and time.monotonic() < deadline:
            time.sleep(0.005)
        srv.kill()  # mid-stream: every game still has turns to send
        stop.set()
        for t in threads:
            t.join()
    done = sum(acknowledged.values())
    assert 40 <= done < 30 * len(games), f"the kill did not land mid-stream ({done} turns acknowledged)"
    with gunicorn("wsgi:app", workers=2, env=env) as srv:
        for game, _ in games:
            _, _, history = request(srv.port, "GET", f"/api/v1/games/{game}/turns")
            recorded = len(history["turns"])
            # every 201 is there; at most the one in flight at the kill is extra
            assert acknowledged.get(game, 0) <= recorded <= acknowledged.get(game, 0) + 1
            _, _, body = request(srv.port, "GET", f"/api/v1/games/{game}")
            closed = sum(v is not None for p in body["players"] for v in p["sheet"].values())
            assert closed == recorded


@pytest.mark.parametrize("poll_every", [1.0])
def test_twenty_watchers_see_a_turn_on_their_next_poll(db_url, poll_every):
    """Every poll sent once the turn's answer came back brings the turn: none is answered from an older
    version (a stale 304), whichever worker takes it. Counted in polls, not seconds: a loaded machine
    slows the polls, not what they bring."""
    with gunicorn("wsgi:app", workers=2, env={"DATABASE_URL": db_url}) as srv:
        game, auth = create(srv.port)
        seen: set[int] = set()
        polls: list[tuple[float, int, int]] = []  # (sent at, watcher, version brought or 0 for a 304)
        stop = threading.Event()
        lock = threading.Lock()

        def watch(i: int):
            _, headers, _ = request(srv.port, "GET", f"/api/v1/games/{game}")
            etag = headers["ETag"]
            time.sleep(poll_every * i / 20)  # phones do not poll in step
            while not stop.is_set():
                sent = time.monotonic()
                status, headers, body = request(srv.port, "GET", f"/api/v1/games/{game}", None,
                                                {"If-None-Match": etag})
                with lock:
                    polls.append((sent, i, body["version"] if status == 200 else 0))
                if status == 200 and body["version"] == 2:
                    seen.add(i)
                    return
                time.sleep(poll_every)

        watchers = [threading.Thread(target=watch, args=(i,)) for i in range(20)]
        for t in watchers:
            t.start()
        deadline = time.monotonic() + 60
        while len({i for _, i, _ in polls}) < 20 and time.monotonic() < deadline:
            time.sleep(0.1)  # every watcher has polled and got a 304
        assert len({i for _, i, _ in polls}) == 20
        status, _, _ = request(srv.port, "POST", f"/api/v1/games/{game}/turns",
                               {"player": 0, "category": "ones", "scratch": True}, auth)
        answered = time.monotonic()
        assert status == 201
        for t in watchers:
            t.join(timeout=60)
        stop.set()
        assert len(seen) == 20, f"only {len(seen)} of 20 watchers saw the turn"
        after = [(i, version) for sent, i, version in polls if sent > answered]
        assert after and all(version == 2 for _, version in after), after
