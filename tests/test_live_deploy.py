"""Live streams through the deployment's nginx (deploy/nginx/) on two ASGI servers on one PostgreSQL.

nginx buffers and compresses answers, and cuts a connection quiet for its
read timeout; a stream's location passes each event on as it comes, and the
app's heartbeat keeps it open. Behind one proxy the bound per client is the
address nginx saw, not nginx's own.
"""

from __future__ import annotations

import contextlib
import json
import os
import signal

import pytest

from bench._http import granian, request

from .dbkit import run_sql
from .livekit import open_stream, run
from .test_deploy import HOST, NGINX, SECRET, start_nginx
from .toolkit import require

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def live_stack(tmp_path_factory, request):
    require(os.path.exists(NGINX), "nginx is not installed (apt-get install nginx)")
    pg = request.getfixturevalue("postgres_url")
    run_sql(pg, "TRUNCATE games RESTART IDENTITY CASCADE")
    tmp = tmp_path_factory.mktemp("live-deploy")
    env = {"DATABASE_URL": pg, "ANOTADOR_PROXY_HOPS": "1", "ANOTADOR_TRUSTED_HOSTS": f"{HOST},127.0.0.1",
           "ANOTADOR_SECRET_KEY": SECRET, "ANOTADOR_GAMES_PER_MINUTE": "0", "ANOTADOR_LIVE_HEARTBEAT_SECONDS": "1",
           "ANOTADOR_LIVE_STREAMS_PER_ADDRESS": "3"}
    with contextlib.ExitStack() as stack:
        servers = [stack.enter_context(granian(env=env)) for _ in range(2)]
        nginx, port, _ = start_nginx(tmp, [s.port for s in servers])
        try:
            yield {"port": port, "servers": servers}
        finally:
            os.killpg(nginx.pid, signal.SIGTERM)
            nginx.wait(timeout=30)


def through(port, method, path, body=None, headers=None):
    return request(port, method, path, body, {"Host": HOST, **(headers or {})})


def test_a_stream_through_nginx_carries_each_turn_and_each_heartbeat_as_they_come(live_stack):
    port = live_stack["port"]
    status, _, game = through(port, "POST", "/api/v1/games", {"variant": "generala", "players": ["Ana", "Beto"]})
    assert status == 201
    auth = {"Authorization": f"Bearer {game['token']}"}

    async def watch():
        stream = await open_stream(port, f"/api/v1/games/{game['id']}/events",
                                   {"Host": HOST, "Accept-Encoding": "gzip"})
        assert stream.status == 200 and "content-encoding" not in stream.headers  # never compressed
        assert await stream.version() == 1
        for player, box in ((0, "full"), (1, "full")):
            status, _, body = through(port, "POST", f"/api/v1/games/{game['id']}/turns",
                                      {"player": player, "dice": [6, 6, 6, 1, 1], "category": box}, auth)
            assert status == 201
            assert await stream.version(timeout=10) == body["version"]
        before = stream.comments
        with pytest.raises(TimeoutError):
            await stream.event(timeout=2.5)  # nothing but heartbeats, one a second, each passed on at once
        assert stream.comments - before >= 2
        stream.close()
        # a table's stream too, unbuffered: the game started at it is heard at once
        status, _, mesa = through(port, "POST", "/api/v1/tables", {"name": "Los domingos"})
        assert status == 201
        table = await open_stream(port, f"/api/v1/tables/{mesa['id']}/events", {"Host": HOST})
        assert table.status == 200 and await table.version() == mesa["version"]
        status, _, _ = through(port, "POST", "/api/v1/games", {"variant": "generala", "players": ["Ana", "Beto"],
                                                               "table": mesa["id"]},
                               {"Authorization": f"Bearer {mesa['token']}"})
        assert status == 201 and await table.version(timeout=10) > mesa["version"]
        table.close()

    run(watch())


def test_behind_nginx_the_bound_is_per_client_address(live_stack):
    port = live_stack["port"]
    _, _, game = through(port, "POST", "/api/v1/games", {"variant": "generala", "players": ["Ana", "Beto"]})
    path = f"/api/v1/games/{game['id']}/events"

    async def crowd():
        # two app servers: each holds at most 3 of this address's streams, so at most 6 are held in all
        opened = [await open_stream(port, path, {"Host": HOST}) for _ in range(8)]
        statuses = [s.status for s in opened]
        assert statuses.count(200) <= 6 and statuses.count(429) >= 2, statuses
        refused = next(s for s in opened if s.status == 429)
        assert json.loads(refused.body)["type"].endswith(":too-many-streams")
        # another address (as nginx sees it) still gets its own
        other = await open_stream(port, path, {"Host": HOST}, source="127.0.0.2")
        assert other.status == 200 and await other.version() == 1
        for s in [*opened, other]:
            s.close()

    run(crowd())
