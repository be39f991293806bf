"""scripts/serve as people run it: slow clients, crashes, stops, the LAN.

Each test starts the real script (granian with its settings, anotador/ops/serving.py) on a
free port with a throwaway SQLite file, and talks to it over loopback with
raw sockets where the point is what a client sends and when.
"""

from __future__ import annotations

import http.client
import json
import os
import re
import signal
import socket
import subprocess
import threading
import time
from contextlib import contextmanager
from pathlib import Path

import pytest

from bench._http import free_port, request


ROOT = Path(__file__).resolve().parents[1]
SERVE = ROOT / "scripts" / "serve"


def wait_until_up(port: int, proc: subprocess.Popen | None = None, seconds: float = 60) -> None:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if proc is not None and proc.poll() is not None:
            raise RuntimeError(f"scripts/serve exited with {proc.returncode}")
        try:
            status, _, _ = request(port, "GET", "/healthz", timeout=2)
            if status == 200:
                return
        except OSError:
            pass
        time.sleep(0.1)
    raise RuntimeError(f"nothing answered on port {port}")


@contextmanager
def serve(tmp_path: Path, *args: str, port: int | None = None, env: dict | None = None, wait: bool = True):
    """Run scripts/serve (its own process group); yield (process, port); stop it with SIGTERM."""
    port = port or free_port()
    environ = {**os.environ, "PORT": str(port), "DATABASE_URL": f"sqlite:///{tmp_path / 'serve.sqlite'}",
               **(env or {})}
    log = open(tmp_path / f"serve-{port}.log", "ab")
    proc = subprocess.Popen([str(SERVE), *args], cwd=ROOT, env=environ, stdout=log, stderr=subprocess.STDOUT,
                            start_new_session=True)
    proc.port, proc.log_path = port, tmp_path / f"serve-{port}.log"  # type: ignore[attr-defined]
    try:
        if wait:
            wait_until_up(port, proc)
        yield proc, port
    finally:
        try:
            os.killpg(proc.pid, signal.SIGTERM)
            proc.wait(timeout=30)
        except (ProcessLookupError, subprocess.TimeoutExpired):
            try:
                os.killpg(proc.pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
        log.close()


def worker_pids(main: int) -> list[int]:
    """The worker processes of granian's main process."""
    out = subprocess.run(["ps", "-o", "pid=", "--ppid", str(main)], capture_output=True, text=True).stdout
    return [int(p) for p in out.split()]


def _raw(port: int, data: bytes, timeout: float = 10) -> bytes:
    """Send ``data`` and read until the server closes (each request here asks it to, or is refused)."""
    with socket.create_connection(("127.0.0.1", port), timeout=timeout) as s:
        s.sendall(data)
        out = b""
        while chunk := s.recv(65536):
            out += chunk
    return out


def test_chunked_bodies_pipelining_and_keep_alive(tmp_path):
    with serve(tmp_path) as (_, port):
        body = json.dumps({"variant": "generala", "dice": [6, 6, 6, 1, 1]}).encode()
        chunked = b"".join(b"%x\r\n%s\r\n" % (len(body[i:i + 7]), body[i:i + 7]) for i in range(0, len(body), 7))
        out = _raw(port, b"POST /api/v1/score HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
                         b"Transfer-Encoding: chunked\r\nConnection: close\r\n\r\n" + chunked + b"0\r\n\r\n")
        assert out.startswith(b"HTTP/1.1 200") and b'"full"' in out
        # over the cap, chunked: 413 like a Content-Length body
        big = b'{"variant": "generala", "dice": [1, 2, 3, 4, 5], "x": "' + b"a" * 20000 + b'"}'
        out = _raw(port, b"POST /api/v1/score HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
                         b"Transfer-Encoding: chunked\r\nConnection: close\r\n\r\n"
                         + b"%x\r\n%s\r\n0\r\n\r\n" % (len(big), big))
        assert out.startswith(b"HTTP/1.1 413"), out[:200]
        # two requests in one packet, then a third on the same connection
        two = (b"GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n"
               b"POST /api/v1/score HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: "
               + str(len(body)).encode() + b"\r\n\r\n" + body)
        with socket.create_connection(("127.0.0.1", port), timeout=10) as s:
            s.sendall(two[:60])
            time.sleep(0.3)          # the second request arrives in pieces
            s.sendall(two[60:])
            got = b""
            while got.count(b"HTTP/1.1 200") < 2:
                got += s.recv(65536)
            s.sendall(b"GET /api/v1/variants/generala HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n")
            while chunk := s.recv(65536):
                got += chunk
        assert got.count(b"HTTP/1.1 200") == 3 and b'"status":"ok"' in got and b"generala" in got


def accept_queue(port: int) -> int:
    """Connections the kernel holds for the listener on ``port`` that no worker has accepted yet."""
    out = subprocess.run(["ss", "-ltnH", f"sport = :{port}"], capture_output=True, text=True).stdout.split()
    return int(out[1]) if len(out) > 1 else 0


@pytest.mark.slow
def test_sigterm_finishes_the_requests_in_flight(tmp_path):
    """Requests a worker holds at SIGTERM (their bodies still arriving) are answered, then the server exits 0.

    Connections the kernel had queued but no worker accepted yet are reset
    when granian closes its listener (gunicorn's old worker took them on
    its way out): the page's outbox sends such a write again with its key.
    """
    with serve(tmp_path) as (proc, port):
        body = json.dumps({"variant": "generala", "dice": [2, 3, 4, 5, 6], "served": True}).encode()

        def connect():
            s = socket.create_connection(("127.0.0.1", port), timeout=20)
            s.sendall(b"POST /api/v1/score HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
                      b"Content-Length: %d\r\n\r\n%s" % (len(body), body[:10]))
            return s

        socks = [connect() for _ in range(3)]  # bodies still arriving
        deadline = time.monotonic() + 30
        while accept_queue(port) and time.monotonic() < deadline:
            time.sleep(0.05)  # until a worker has taken each of them
        assert accept_queue(port) == 0
        time.sleep(0.3)
        os.killpg(proc.pid, signal.SIGTERM)
        time.sleep(1.0)  # stopping: no new connections, the old ones are waited for
        for s in socks:
            s.sendall(body[10:])
        answers = []
        for s in socks:
            data = b""
            while b"\r\n\r\n" not in data or len(data.split(b"\r\n\r\n", 1)[1]) < 10:
                chunk = s.recv(65536)
                if not chunk:
                    break
                data += chunk
            answers.append(data)
            s.close()
        assert all(a.startswith(b"HTTP/1.1 200") and b'"straight"' in a for a in answers), answers
        assert proc.wait(timeout=30) == 0


def test_sighup_starts_new_workers_while_the_server_answers(tmp_path):
    """``systemctl reload`` (HUP, deploy/systemd): every worker is replaced, one at a time, while a client
    reads on, and a live stream held by an old worker ends, for the page to open it again.

    Every answer is a 200. A connection the kernel handed to a stopping worker in its last instant may be
    dropped unanswered (about one in several thousand requests here); the page polls again, and its outbox
    sends a write again with its key, so only the errors are counted, not asserted.
    """
    with serve(tmp_path, env={"WORKERS": "2"}) as (proc, port):
        before = set(worker_pids(proc.pid))
        status, _, game = request(port, "POST", "/api/v1/games", {"variant": "generala", "players": ["Ana", "Beto"]})
        assert status == 201 and len(before) == 2
        answers: list[int] = []
        dropped: list[str] = []
        stop = threading.Event()

        def reader():
            while not stop.is_set():
                try:
                    answers.append(request(port, "GET", f"/api/v1/games/{game['id']}", timeout=20)[0])
                except (OSError, http.client.HTTPException) as exc:
                    dropped.append(repr(exc))

        stream = socket.create_connection(("127.0.0.1", port), timeout=60)
        stream.sendall(f"GET /api/v1/games/{game['id']}/events HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n".encode())
        assert stream.recv(65536).startswith(b"HTTP/1.1 200")
        client = threading.Thread(target=reader)
        client.start()
        try:
            os.kill(proc.pid, signal.SIGHUP)
            deadline = time.monotonic() + 60
            while time.monotonic() < deadline:
                now = set(worker_pids(proc.pid))
                if len(now) == 2 and not now & before:
                    break
                time.sleep(0.1)
            ended = False
            while not ended and time.monotonic() < deadline:  # heartbeats, then the end
                ended = not stream.recv(65536)
            served_after = len(answers)
            while len(answers) < served_after + 20 and time.monotonic() < deadline:
                time.sleep(0.05)
        finally:
            stop.set()
            client.join()
            stream.close()
        assert len(now) == 2 and not now & before, (before, now)
        assert ended
        assert set(answers) == {200} and len(answers) >= served_after + 20, set(answers)
        assert proc.poll() is None
        print(f"\n{len(answers)} answers across the reload, {len(dropped)} connections dropped: {dropped[:3]}")


@pytest.mark.slow
def test_after_kill_9_of_the_main_process_the_next_serve_starts_and_serves(tmp_path):
    port = free_port()
    stop = threading.Event()
    failures: list[str] = []

    def load():
        while not stop.is_set():
            try:
                request(port, "GET", "/healthz", timeout=2)
            except OSError:
                pass

    # the orphan finishes what it holds (2 s at most for a request still arriving), then lets go of the port
    with serve(tmp_path, port=port, env={"WORKERS": "1", "ANOTADOR_REQUEST_TIMEOUT": "2"}) as (first, _):
        workers = worker_pids(first.pid)
        assert workers
        loaders = [threading.Thread(target=load, daemon=True) for _ in range(4)]
        for t in loaders:
            t.start()
        # a request still arriving keeps the orphan busy finishing it for seconds
        slow = socket.create_connection(("127.0.0.1", port), timeout=30)
        slow.sendall(b"POST /api/v1/score HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 60\r\n\r\n{")
        time.sleep(1)
        os.kill(first.pid, signal.SIGKILL)  # the main process only: its workers are orphaned, holding the port
        first.wait(timeout=10)
        with serve(tmp_path, port=port) as (second, _):
            stop.set()
            for t in loaders:
                t.join()
            # the orphans go; the new server keeps serving
            deadline = time.monotonic() + 15
            while any(_alive(p) for p in workers) and time.monotonic() < deadline:
                time.sleep(0.2)
            assert not any(_alive(p) for p in workers), f"orphaned workers did not exit: {proc_log(first)}"
            slow.close()
            wait_until_up(port, second)  # it waited for the port, and has it now
            for _ in range(20):
                try:
                    status, _, _ = request(port, "GET", "/healthz", timeout=2)
                    assert status == 200
                except OSError as exc:
                    failures.append(str(exc))
                time.sleep(0.05)
    assert failures == []


def catches_sigterm(pid: int) -> bool | None:
    """Whether ``pid`` has a handler for SIGTERM (None: the process is gone)."""
    try:
        status = Path(f"/proc/{pid}/status").read_text()
    except OSError:
        return None
    caught = int(re.search(r"^SigCgt:\s*([0-9a-f]+)$", status, re.M).group(1), 16)
    return bool(caught & (1 << (signal.SIGTERM - 1)))


def importing(pid: int) -> bool:
    """Whether ``pid`` has begun importing the app: numpy is mapped (granian's main process never loads it)."""
    try:
        return "numpy" in Path(f"/proc/{pid}/maps").read_text()
    except OSError:
        return False


def test_a_stop_while_the_workers_start_ends_them_at_once(tmp_path):
    """SIGTERM while the workers still import the app ends them then, and the server exits: a forked worker
    inherits the main process's handler, which only notes the stop, and served on until the kill timeout."""
    with serve(tmp_path, wait=False) as (proc, _):
        deadline = time.monotonic() + 60
        while True:  # both workers importing the app (numpy loaded): their start takes seconds, the poll 5 ms
            workers = worker_pids(proc.pid)
            if len(workers) == 2 and all(importing(w) for w in workers):
                break
            assert time.monotonic() < deadline and proc.poll() is None, proc_log(proc)
            time.sleep(0.005)
        assert not any(catches_sigterm(w) for w in workers), "a starting worker keeps the inherited handler"
        os.killpg(proc.pid, signal.SIGTERM)
        proc.wait(timeout=60)
        log = proc_log(proc)
    assert "refused to gracefully stop" not in log and "Killing worker" not in log, log
    assert "Granian shutdown completed" in log


def _alive(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().split()[2] != "Z"
    except FileNotFoundError:
        return False


def test_lan_prints_the_address_and_share_links_use_it(tmp_path):
    with serve(tmp_path, "--lan") as (proc, port):
        log = proc.log_path.read_text(encoding="utf-8")  # type: ignore[attr-defined]
        status, _, game = request(port, "POST", "/api/v1/games", {"variant": "generala", "players": ["Ana", "Beto"]})
    match = re.search(r"open\s+(http://[\d.]+:\d+/)", log)
    assert match, log
    lan = match.group(1)
    assert not lan.startswith("http://127.") and lan.endswith(f":{port}/")
    assert "█" in log and "▀" in log   # the QR code, drawn in block characters
    assert status == 201
    # started from the machine itself (127.0.0.1), the links name the LAN address
    assert game["links"]["read"] == f"{lan}g/{game['id']}"
    assert game["links"]["write"].startswith(f"{lan}g/{game['id']}#token=")


def test_serve_listens_on_loopback_only_without_lan(tmp_path):
    with serve(tmp_path) as (_, port):
        status, _, game = request(port, "POST", "/api/v1/games", {"variant": "generala", "players": ["Ana", "Beto"]})
        assert game["links"]["read"].startswith(f"http://127.0.0.1:{port}/g/")
        out = subprocess.run(["ss", "-ltnH", f"sport = :{port}"], capture_output=True, text=True).stdout
        assert f"127.0.0.1:{port}" in out and f"0.0.0.0:{port}" not in out


def proc_log(proc) -> str:
    return proc.log_path.read_text(encoding="utf-8", errors="replace")[-30000:]


@pytest.fixture(scope="module")
def served(tmp_path_factory):
    """One scripts/serve for the tests that only send it requests."""
    with serve(tmp_path_factory.mktemp("served")) as (_, port):
        yield port


@pytest.mark.parametrize(("request_bytes", "status"), [
    (b"GET /api/v1/variants/" + b"a" * 5000 + b" HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n", 414),
    (b"GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n" + b"".join(b"X-%d: 1\r\n" % i for i in range(60)) + b"\r\n", 431),
])


def test_requests_past_the_limits_are_refused_with_problem_documents(served, request_bytes, status):
    out = _raw(served, request_bytes)
    head, _, body = out.partition(b"\r\n\r\n")
    assert head.startswith(b"HTTP/1.1 %d " % status), out[:300]
    assert b"content-type: application/problem+json" in head.lower(), out[:300]
    problem = json.loads(body)
    assert problem["status"] == status and problem["detail"].startswith("The server could not read this request")


@pytest.mark.parametrize("request_bytes", [
    b"GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Bad\x01Name: 1\r\n\r\n",
    b"GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Bad: a\x00b\r\n\r\n",
    b"GET /healthz HTTP/9.9\r\nHost: 127.0.0.1\r\n\r\n",
    b"GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n" + b"".join(b"X-%d: 1\r\n" % i for i in range(120)) + b"\r\n",
])


def test_bytes_that_are_not_http_are_refused_and_the_connection_closed(served, request_bytes):
    """What granian cannot parse it refuses itself (an empty 400 or 431) and closes; the app never sees it."""
    out = _raw(served, request_bytes)
    assert re.match(rb"HTTP/1.1 4(00|31) ", out), out[:300]
    assert request(served, "GET", "/healthz")[0] == 200


def test_serve_says_where_it_listens_and_refuses_a_taken_port(tmp_path):
    """A second copy on the same port, or a port another program holds: exit 1 and why, never a silent share."""
    with serve(tmp_path) as (first, port):
        assert f"Anotador is listening at http://127.0.0.1:{port}/" in proc_log(first)
        second = subprocess.run([str(SERVE)], cwd=ROOT, capture_output=True, text=True, timeout=60,
                                env={**os.environ, "PORT": str(port),
                                     "DATABASE_URL": f"sqlite:///{tmp_path / 'serve.sqlite'}"})
        assert second.returncode == 1
        assert f"cannot listen on 127.0.0.1:{port}" in second.stderr and "another copy" in second.stderr
        assert request(port, "GET", "/healthz")[0] == 200  # the first one serves on, alone
    with socket.socket() as other:  # any other program
        other.bind(("127.0.0.1", 0))
        other.listen()
        taken = other.getsockname()[1]
        third = subprocess.run([str(SERVE)], cwd=ROOT, capture_output=True, text=True, timeout=60,
                               env={**os.environ, "PORT": str(taken),
                                    "DATABASE_URL": f"sqlite:///{tmp_path / 'serve.sqlite'}"})
    assert third.returncode == 1 and f"cannot listen on 127.0.0.1:{taken}" in third.stderr


@pytest.mark.parametrize(("network", "bind", "said"), [
    (None, "127.0.0.1:8123", "serving on 127.0.0.1 only"),
    ("192.168.1.20", "0.0.0.0:8123", "http://192.168.1.20:8123/"),
])


def test_lan_binds_what_it_says(monkeypatch, tmp_path, capsys, network, bind, said):
    """``serve --lan`` on a machine with no network listens on 127.0.0.1, as it says; with one, everywhere."""
    from click.testing import CliRunner

    from anotador.ops import console, lan

    ran = {}

    def execv(path, argv):
        ran["argv"], ran["bind"] = argv, os.environ["BIND"]
        ran["lan_url"] = os.environ.get("ANOTADOR_LAN_URL")
        raise SystemExit(0)

    monkeypatch.setattr(lan, "lan_address", lambda: network)
    monkeypatch.setattr(console.os, "execv", execv)
    for name in ("BIND", "ANOTADOR_LAN_URL"):  # unset now, and unset again after (serve sets them)
        monkeypatch.setenv(name, "")
        monkeypatch.delenv(name)
    monkeypatch.setenv("PORT", "8123")
    monkeypatch.setenv("DATABASE_URL", f"sqlite:///{tmp_path / 'lan.sqlite'}")
    result = CliRunner().invoke(console.serve, ["--lan"])
    assert result.exit_code == 0, result.output
    assert ran["bind"] == bind and said in result.output + capsys.readouterr().err
    assert ran["lan_url"] == (None if network is None else f"http://{network}:8123/")
    assert ran["argv"][-1] == "anotador.ops.asgi:create" and ran["argv"][1:3] == ["-m", "granian"]
    assert ran["argv"][ran["argv"].index("--host") + 1] == bind.split(":")[0]


def test_every_answer_has_a_request_id_and_the_access_log_its_time(tmp_path):
    """X-Request-ID: the one sent (nginx's $request_id) or a new one, on every answer, a poll's 304 and a problem
    included; the access line names it with the milliseconds the answer took."""
    with serve(tmp_path) as (proc, port):
        status, headers, game = request(port, "POST", "/api/v1/games", {"variant": "generala", "players": ["A", "B"]},
                                        headers={"X-Request-ID": "nginx-0123abcd"})
        assert status == 201 and headers["X-Request-ID"] == "nginx-0123abcd"
        status, headers, _ = request(port, "GET", f"/api/v1/games/{game['id']}", headers={
            "If-None-Match": headers["ETag"], "X-Request-ID": "a b\tc"})  # not an id: replaced
        assert status == 304 and re.fullmatch(r"[0-9a-f]{16}", headers["X-Request-ID"])
        status, problem_headers, _ = request(port, "GET", "/api/v1/games/nope")
        assert status == 404 and re.fullmatch(r"[0-9a-f]{16}", problem_headers["X-Request-ID"])
        assert problem_headers["X-Request-ID"] != headers["X-Request-ID"]
        wanted = ("id=nginx-0123abcd ", f" id={problem_headers['X-Request-ID']} ")
        deadline = time.monotonic() + 30
        # a request's line is written once its answer has gone: wait for the last one asked
        while not all(w in proc.log_path.read_text(encoding="utf-8") for w in wanted) and time.monotonic() < deadline:
            time.sleep(0.1)
        log = proc.log_path.read_text(encoding="utf-8")
    assert re.search(r'"POST /api/v1/games HTTP/1.1" 201 \d+ \d+ms id=nginx-0123abcd ', log), log[-2000:]
    assert f" id={problem_headers['X-Request-ID']} " in log


def test_the_address_the_workers_and_the_timeout_come_from_the_environment():
    from anotador.ops.serving import address, command

    assert address({}) == ("127.0.0.1", 8000)
    assert address({"PORT": "8123"}) == ("127.0.0.1", 8123)
    assert address({"BIND": "[::]:9000", "PORT": "8123"}) == ("::", 9000)
    with pytest.raises(SystemExit, match="BIND must be host:port"):
        address({"BIND": "localhost"})
    argv = command({"WORKERS": "3", "ANOTADOR_REQUEST_TIMEOUT": "2.5"}, ["--log-level", "warning"])
    assert argv[argv.index("--workers") + 1] == "3"
    assert argv[argv.index("--http1-header-read-timeout") + 1] == "2500"
    assert argv[-3:] == ["--log-level", "warning", "anotador.ops.asgi:create"]  # the caller's word is the last
