"""The internet deployment: real nginx (deploy/nginx/) in front of two Anotador servers on one PostgreSQL.

nginx is Debian's package; the configuration is the project's own
(``deploy/nginx/anotador-http.conf`` and ``anotador-locations.conf``),
included from a test server block on a free port without TLS. Marked slow:
it starts three servers.
"""

from __future__ import annotations

import gzip
import hashlib
import hmac
import http.client
import json
import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest
import sqlalchemy as sa

from bench._http import Headers, free_port

from .conftest import ROOT
from .dbkit import run_sql
from .toolkit import require
from anotador.ops.serving import command

from .test_serving import wait_until_up
from .test_serving_slow import slow_clients, unanswered

DEPLOY = ROOT / "deploy"
NGINX = shutil.which("nginx") or "/usr/sbin/nginx"
SECRET = "0123456789abcdef" * 4
HOST = "anotador.test"

pytestmark = pytest.mark.slow


def nginx_conf(tmp: Path, port: int, prefix_port: int, upstreams: list[int]) -> str:
    servers = "\n".join(f"        server 127.0.0.1:{p} max_fails=3 fail_timeout=5s;" for p in upstreams)
    temp = "\n".join(f"    {kind}_temp_path {tmp}/{kind};" for kind in ("client_body", "proxy", "fastcgi", "uwsgi",
                                                                         "scgi"))
    return f"""
user root;
worker_processes 1;
pid {tmp}/nginx.pid;
error_log {tmp}/error.log warn;
events {{ worker_connections 1024; }}
http {{
    include /etc/nginx/mime.types;
    log_format up '$request_method $uri $status $upstream_addr';
    access_log {tmp}/access.log up;
{temp}
    include {DEPLOY}/nginx/anotador-http.conf;
    upstream anotador {{
{servers}
        keepalive 32;
    }}
    server {{
        listen 127.0.0.1:{port};
        server_name _;
        include {DEPLOY}/nginx/anotador-locations.conf;
    }}
    # Under a path prefix, as README shows.
    server {{
        listen 127.0.0.1:{prefix_port};
        server_name _;
        location /anotador/ {{
            proxy_pass http://anotador/;
            proxy_http_version 1.1;
            proxy_set_header Connection "";
            proxy_set_header Host $host;
            proxy_set_header X-Forwarded-For $proxy_add_x_forwarded_for;
            proxy_set_header X-Forwarded-Proto $scheme;
            proxy_set_header X-Forwarded-Host $host;
            proxy_set_header X-Forwarded-Prefix /anotador;
        }}
    }}
}}
"""


def start_nginx(tmp: Path, upstreams: list[int]) -> tuple[subprocess.Popen, int, int]:
    """nginx with the project's configuration in front of ``upstreams``, once it listens: the process, its port,
    and the port that serves under a path prefix."""
    port, prefix_port = free_port(), free_port()
    conf = tmp / "nginx.conf"
    conf.write_text(nginx_conf(tmp, port, prefix_port, upstreams))
    nginx = subprocess.Popen([NGINX, "-c", str(conf), "-g", "daemon off;"], stdout=subprocess.DEVNULL,
                             stderr=open(tmp / "nginx.out", "wb"), start_new_session=True)
    deadline = time.monotonic() + 10
    while True:
        try:
            socket.create_connection(("127.0.0.1", port), timeout=0.2).close()
            return nginx, port, prefix_port
        except OSError:
            if time.monotonic() > deadline or nginx.poll() is not None:
                raise RuntimeError((tmp / "nginx.out").read_text() + (tmp / "error.log").read_text())
            time.sleep(0.05)


@pytest.fixture(scope="module")
def stack(tmp_path_factory, request):
    """nginx on two servers as ``anotador serve`` runs them (anotador/ops/serving.py) on one migrated PostgreSQL."""
    require(os.path.exists(NGINX), "nginx is not installed (apt-get install nginx)")
    pg = request.getfixturevalue("postgres_url")
    run_sql(pg, "TRUNCATE games RESTART IDENTITY CASCADE")
    tmp = tmp_path_factory.mktemp("deploy")
    ports = [free_port(), free_port()]
    procs = []
    for p in ports:
        env = {**os.environ, "BIND": f"127.0.0.1:{p}", "WORKERS": "2", "DATABASE_URL": pg,
               "ANOTADOR_PROXY_HOPS": "1", "ANOTADOR_TRUSTED_HOSTS": f"{HOST},127.0.0.1",
               "ANOTADOR_SECRET_KEY": SECRET, "ANOTADOR_GAMES_PER_MINUTE": "0",
               # what anotador serve does for its workers' figures (anotador/ops/metrics.py)
               "ANOTADOR_METRICS": "true", "PROMETHEUS_MULTIPROC_DIR": str(tmp / f"metrics-{p}")}
        os.makedirs(env["PROMETHEUS_MULTIPROC_DIR"])
        log = open(tmp / f"server-{p}.log", "wb")
        procs.append(subprocess.Popen(command(env), cwd=ROOT, env=env, stdout=log, stderr=log,
                                      start_new_session=True))
    for p, proc in zip(ports, procs):
        wait_until_up(p, proc)
    nginx, port, prefix_port = start_nginx(tmp, ports)
    yield {"port": port, "prefix_port": prefix_port, "upstreams": ports, "tmp": tmp, "pg": pg}
    for proc in [nginx, *procs]:
        try:
            os.killpg(proc.pid, signal.SIGTERM)
            proc.wait(timeout=30)
        except (ProcessLookupError, subprocess.TimeoutExpired):
            os.killpg(proc.pid, signal.SIGKILL)


def call(port, method, path, body=None, headers=None, timeout=10, source="127.0.0.1"):
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=timeout, source_address=(source, 0))
    try:
        hdrs = {"Host": HOST, **(headers or {})}
        data = None if body is None else json.dumps(body).encode()
        if data is not None:
            hdrs["Content-Type"] = "application/json"
        conn.request(method, path, body=data, headers=hdrs)
        resp = conn.getresponse()
        raw = resp.read()
        if resp.getheader("Content-Encoding") == "gzip":
            raw = gzip.decompress(raw)
        ctype = resp.getheader("Content-Type", "")
        return resp.status, Headers(resp.getheaders()), (json.loads(raw) if raw and "json" in ctype else raw)
    finally:
        conn.close()


def test_whole_games_across_two_app_servers_each_turn_once(stack):
    port = stack["port"]
    games = []
    for players in (["Ana", "Beto"], ["Ceci", "Dani", "Eli"], ["Fede", "Gabi"]):
        status, _, body = call(port, "POST", "/api/v1/games", {"variant": "generala", "players": players})
        assert status == 201, body
        games.append(body)
    seen: dict[str, int] = {}
    stop = threading.Event()
    errors: list[str] = []

    def watch(game):
        etag = None
        while not stop.is_set():
            status, headers, body = call(port, "GET", f"/api/v1/games/{game['id']}",
                                         headers={"If-None-Match": etag} if etag else {})
            if status == 200:
                etag = headers["ETag"]
                seen[game["id"]] = body["version"]
            elif status != 304:
                errors.append(f"poll {status}")
            time.sleep(0.3)

    watchers = [threading.Thread(target=watch, args=(g,)) for g in games for _ in range(2)]
    for w in watchers:
        w.start()
    boxes = ["ones", "twos", "threes", "fours", "fives", "sixes", "straight", "full", "four", "generala"]
    try:
        for game in games:
            auth = {"Authorization": f"Bearer {game['token']}"}
            n = len(game["players"])
            for turn in range(10 * n):
                status, _, body = call(port, "POST", f"/api/v1/games/{game['id']}/turns",
                                       {"player": (game["first_player"] + turn) % n, "category": boxes[turn // n],
                                        "scratch": True}, auth)
                assert status == 201, body
            assert body["status"] == "finished"
        time.sleep(1)
    finally:
        stop.set()
        for w in watchers:
            w.join()
    assert errors == []
    for game in games:
        _, _, history = call(port, "GET", f"/api/v1/games/{game['id']}/turns")
        numbers = [t["number"] for t in history["turns"]]
        assert numbers == list(range(1, 10 * len(game["players"]) + 1))  # every turn landed once
        assert seen[game["id"]] == 1 + len(numbers)                      # the watchers saw the last one
    # the turns alternated between the two app servers
    log = (stack["tmp"] / "access.log").read_text()
    used = set(re.findall(r"^POST /api/v1/games/\S+/turns 201 127\.0\.0\.1:(\d+)$", log, re.M))
    assert used == {str(p) for p in stack["upstreams"]}


def test_fifty_slow_connections_through_nginx_do_not_slow_a_normal_request(stack):
    port = stack["port"]
    stop = threading.Event()
    trickler = slow_clients(port, 50, 2.0, stop)
    try:
        time.sleep(3)
        for _ in range(3):  # answered while every slow request is still coming in (nginx gives them 10 s)
            status, _, _ = call(port, "POST", "/api/v1/score", {"variant": "generala", "dice": [1, 2, 3, 4, 5]})
            assert status == 200
        assert unanswered(trickler.socks) == 50
    finally:
        stop.set()
        trickler.join()


def test_proxy_headers_are_trusted_once_and_hosts_are_checked(stack):
    port, pg = stack["port"], stack["pg"]
    # share links name the public host nginx saw
    status, headers, body = call(port, "POST", "/api/v1/games", {"variant": "generala", "players": ["Ana", "Beto"]},
                                 {"X-Forwarded-For": "203.0.113.9"})
    assert status == 201
    assert body["links"]["read"] == f"http://{HOST}/g/{body['id']}"
    assert headers["Location"] == f"/api/v1/games/{body['id']}"
    # a forged X-Forwarded-For is not the client: the app keys the address nginx saw (127.0.0.1)
    engine = sa.create_engine(pg)
    with engine.connect() as conn:
        creator = conn.execute(sa.text("SELECT creator FROM games WHERE id = :id"), {"id": body["id"]}).scalar()
    engine.dispose()
    expected = hmac.new(SECRET.encode(), b"127.0.0.1", hashlib.sha256).hexdigest()[:32]
    assert creator == expected
    # a forged Host is refused, not reflected into a link
    status, _, problem = call(port, "POST", "/api/v1/games", {"variant": "generala", "players": ["Ana", "Beto"]},
                              {"Host": "evil.example"})
    assert status == 400 and problem["host"] == "evil.example" and "TRUSTED_HOSTS" in problem["detail"]


def test_serving_under_a_path_prefix(stack):
    port = stack["prefix_port"]
    status, headers, body = call(port, "POST", "/anotador/api/v1/games",
                                 {"variant": "generala", "players": ["Ana", "Beto"]})
    assert status == 201, body
    assert body["links"]["read"] == f"http://{HOST}/anotador/g/{body['id']}"
    assert headers["Location"] == f"/anotador/api/v1/games/{body['id']}"
    status, _, page = call(port, "GET", f"/anotador/g/{body['id']}")
    assert status == 200
    html = page.decode()
    assert 'href="/anotador/static/' in html and 'src="/anotador/static/' in html
    assert 'data-root="/anotador"' in html
    assert call(port, "GET", "/anotador/static/app.css")[0] == 200


def test_text_is_compressed_and_limits_answer_as_problems(stack):
    port = stack["port"]
    status, headers, body = call(port, "GET", "/api/v1/variants", headers={"Accept-Encoding": "gzip"})
    assert status == 200 and headers.get("Content-Encoding") == "gzip" and isinstance(body, list)
    # a body over the cap: nginx refuses it as the app would
    status, _, problem = call(port, "POST", "/api/v1/score", {"variant": "generala", "dice": [1] * 5,
                                                              "x": "a" * 20000})
    assert status == 413 and problem["status"] == 413
    # creating games past the per-address limit: 429 with Retry-After, as problem+json
    answers = [call(port, "POST", "/api/v1/games", {"variant": "generala", "players": ["Ana", "Beto"]})
               for _ in range(25)]
    limited = [a for a in answers if a[0] == 429]
    assert limited, [a[0] for a in answers]
    status, headers, problem = limited[0]
    assert problem["type"].endswith("rate-limited") and int(headers["Retry-After"]) >= 1
    policy = re.fullmatch(r'"(create|heavy|api)";q=(\d+);w=(\d+)', headers["RateLimit-Policy"])
    assert policy, headers
    assert headers["RateLimit"] == f'"{policy.group(1)}";r=0;t={headers["Retry-After"]}'


@pytest.mark.parametrize("path", ["/metrics", "/METRICS/", "//metrics"])
def test_the_metrics_are_kept_from_the_internet_and_scraped_on_the_app_port(stack, path):
    status, headers, problem = call(stack["port"], "GET", path)
    assert status == 404 and headers["Content-Type"] == "application/problem+json" and problem["status"] == 404
    status, headers, text = call(stack["upstreams"][0], "GET", "/metrics", headers={"Host": "127.0.0.1"})
    assert status == 200 and headers["Content-Type"].startswith("text/plain")
    assert b"anotador_requests_total{" in text


@pytest.mark.parametrize(("request_bytes", "status"), [
    (b"GET /api/v1/variants/" + b"a" * 20000 + b" HTTP/1.1\r\nHost: " + HOST.encode() + b"\r\n\r\n", 414),
    (b"GET /healthz HTTP/1.1\r\nHost: " + HOST.encode() + b"\r\nX-Big: " + b"a" * 20000 + b"\r\n\r\n", 431),
    (b"GET /healthz HTTP/1.1\r\nHost: " + HOST.encode() + b"\r\nHost: " + HOST.encode() + b"\r\n\r\n", 400),
    (b"GET\x01 / HTTP/1.1\r\n\r\n", 400),
])
def test_nginx_own_refusals_are_problem_documents(stack, request_bytes, status):
    with socket.create_connection(("127.0.0.1", stack["port"]), timeout=10) as s:
        s.sendall(request_bytes)
        out = b""
        while chunk := s.recv(65536):
            out += chunk
    head, _, body = out.partition(b"\r\n\r\n")
    assert head.startswith(b"HTTP/1.1 %d " % status), out[:300]
    assert b"application/problem+json" in head, out[:300]
    assert json.loads(body)["status"] == status


#: Every spelling of a rate-limited view that reaches it, and the most requests its zone lets through at once
#: (burst + 1: rate 10/min and 60/min let none more in a second; 20/s refills 20 more a second, sent one by one).
SPELLINGS = [
    ("POST", path, {"variant": "generala", "players": ["Ana", "Beto"]}, 11)
    for path in ("/api/v1/games", "/api/v1/games/", "/api/v1/games//", "//api//v1//games", "/api/v1/%67ames",
                 "/api/v1/game%73/", "/API/V1/GAMES")
] + [
    ("POST", path, {"variant": "generala"}, 21)
    for path in ("/api/v1/advice/", "/api/v1//advice", "/api/v1/advic%65", "/api/v1/sheets/")
] + [
    ("GET", path, None, 21)
    for path in ("/api/v1/variants/generala/sheet.pdf/", "/api/v1/games/nope/sheet.pdf/",
                 "/api/v1/games/nope/analysis/", "/api/v1/games/nope//analysis", "/api/v1/games/nope/%61nalysis")
] + [("DELETE", "/api/v1/games/nope/turns/last/", None, 150)]


#: Each zone's burst + 1 (by the figure above) and its rate a second: what it lets through is at most the first
#: and what the second refilled while the requests were sent.
ZONES = {11: (11, 10 / 60), 21: (21, 1.0), 150: (101, 20.0)}


@pytest.mark.parametrize(("method", "path", "body", "most"), SPELLINGS)
def test_no_spelling_of_a_limited_view_escapes_its_limit(stack, method, path, body, most):
    """Each spelling from an address of its own (127.0.0.x): past the zone's burst, 429 problems.

    Sent by four clients at once until the first 429 (a loaded machine answering slowly must not let the zone
    refill as fast as one client sends); how many got through before it is held to what the zone allows in
    the time it took, not to a count that assumed a fast machine."""
    import threading

    source = f"127.0.0.{10 + SPELLINGS.index((method, path, body, most))}"
    base, rate = ZONES[most]
    answers, lock, refused = [], threading.Lock(), threading.Event()
    started = time.monotonic()

    def send():
        while not refused.is_set() and time.monotonic() - started < 120 and len(answers) < 5000:
            answer = call(stack["port"], method, path, body, source=source)
            with lock:
                answers.append(answer)
            if answer[0] == 429:
                refused.set()

    clients = [threading.Thread(target=send) for _ in range(4)]
    for c in clients:
        c.start()
    for c in clients:
        c.join(150)
    elapsed = time.monotonic() - started
    statuses = [a[0] for a in answers]
    assert 429 in statuses, statuses
    through = statuses.index(429)
    assert through <= base + rate * elapsed + 4, (through, base, rate, elapsed)  # 4: one in flight a client
    status, headers, problem = answers[through]
    assert problem["type"].endswith("rate-limited") and int(headers["Retry-After"]) >= 1
