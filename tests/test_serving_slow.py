"""Slow clients: the serving worker reads whole requests before a thread takes them (anotador/ops/serving.py), so
trickling sockets hold sockets, not threads; each address has a share of them."""

from __future__ import annotations

import json
import socket
import subprocess
import sys
import threading
import time
from contextlib import contextmanager
from pathlib import Path

import pytest

from bench._http import request

from .toolkit import require
from .test_serving import serve


def slow_clients(port: int, n: int, every: float, stop: threading.Event) -> threading.Thread:
    """``n`` connections that send a request line, then one header line every ``every`` seconds."""
    socks = []
    for _ in range(n):
        s = socket.create_connection(("127.0.0.1", port), timeout=30)
        s.sendall(b"GET /api/v1/variants HTTP/1.1\r\n")
        socks.append(s)

    def trickle():
        i = 0
        while not stop.wait(every):
            for s in socks:
                try:
                    s.sendall(f"X-Slow-{i}: {'x' * 10}\r\n".encode())
                except OSError:
                    pass
            i += 1
        for s in socks:
            s.close()

    t = threading.Thread(target=trickle, daemon=True)
    t.socks = socks  # type: ignore[attr-defined]
    t.start()
    return t


def unanswered(socks: list[socket.socket]) -> int:
    """How many of these connections are still open with nothing answered (their requests still coming in)."""
    import select

    readable, _, _ = select.select(socks, [], [], 0)  # an answer, or a close, makes a socket readable
    return len(socks) - len(readable)


def timed_requests(port: int, n: int = 10) -> list[float]:
    times = []
    for i in range(n):
        t = time.perf_counter()
        if i % 2:
            status, _, _ = request(port, "POST", "/api/v1/score", {"variant": "generala", "dice": [1, 2, 3, 4, 5]},
                                   timeout=10)
        else:
            status, _, _ = request(port, "GET", "/api/v1/variants/generala", timeout=10)
        times.append(time.perf_counter() - t)
        assert status == 200
    return times


@contextmanager
def crowd(port: int, n: int, source: str = "127.0.0.2"):
    """``n`` sockets from ``source`` trickling headers, re-opened as they drop (tests/crowd.py), in a process of
    its own: a thread here would share the interpreter lock with the client being timed. Yields the counts dict,
    filled in when the crowd stops."""
    counts: dict = {}
    proc = subprocess.Popen([sys.executable, str(Path(__file__).with_name("crowd.py")), str(port), str(n), source],
                            stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    try:
        assert proc.stdout.readline().strip() == "ready", "the crowd did not start"
        yield counts
    finally:
        out, _ = proc.communicate("stop\n", timeout=30)
        counts.update(json.loads(out))


@pytest.mark.slow
def test_thousands_of_trickling_sockets_from_one_address_leave_room_for_everybody(tmp_path):
    """2,200 sockets from one address, re-opened as they drop: a normal client is still answered at once."""
    import resource

    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    require(hard >= 3000, f"2,200 sockets need a file limit over 3,000 (hard limit here: {hard})")
    resource.setrlimit(resource.RLIMIT_NOFILE, (max(soft, min(hard, 8192)), hard))
    with serve(tmp_path) as (_, port):
        # "At once" is measured against the same requests without the crowd, in the same run: another test may be
        # loading the machine, and it slows both alike.
        alone = timed_requests(port, 20)
        with crowd(port, 2200) as counts:
            time.sleep(3)
            times = []
            for _ in range(4):
                times += timed_requests(port, 10)
    at_once = max(0.2, 4 * sorted(alone)[int(0.95 * len(alone))])
    fast = sum(x < at_once for x in times) / len(times)
    assert fast >= 0.95, (fast, at_once, sorted(times)[-5:], counts)
    assert counts["dropped"] > 1000  # the server turned most of them away rather than hold them


@pytest.mark.slow
def test_twenty_slow_clients_do_not_stall_scripts_serve(tmp_path):
    """Normal requests are answered while twenty slow ones are still coming in: none waits for them (how fast,
    beside them, is bench/slow_servers.py's figure)."""
    with serve(tmp_path, env={"ANOTADOR_REQUEST_TIMEOUT": "120"}) as (_, port):  # the slow ones stay all along
        stop = threading.Event()
        trickler = slow_clients(port, 20, 2.0, stop)
        try:
            time.sleep(3)  # every slow connection is mid-request now
            timed_requests(port)  # each answered: a stalled server would hold it past its 10 s
            assert unanswered(trickler.socks) == 20
        finally:
            stop.set()
            trickler.join()


@pytest.mark.slow
def test_the_same_slow_clients_stall_plain_sync_workers(tmp_path):
    """The control: gunicorn's default sync workers are what the buffering worker replaces."""
    with serve(tmp_path, "--worker-class", "sync", "--threads", "1") as (_, port):
        stop = threading.Event()
        trickler = slow_clients(port, 20, 2.0, stop)
        try:
            time.sleep(3)
            with pytest.raises((socket.timeout, TimeoutError, OSError)):
                request(port, "GET", "/api/v1/variants/generala", timeout=1.5)
        finally:
            stop.set()
            trickler.join()


def test_a_request_that_never_completes_is_dropped(tmp_path):
    with serve(tmp_path, env={"ANOTADOR_REQUEST_TIMEOUT": "1"}) as (_, port):
        s = socket.create_connection(("127.0.0.1", port), timeout=10)
        s.sendall(b"GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n")
        t = time.monotonic()
        assert s.recv(100) == b""  # closed without an answer (the socket's 10 s would raise), no thread was held
        assert time.monotonic() - t > 0.8
        s.close()


def test_a_second_connection_is_served_while_a_body_trickles(tmp_path):
    """One client sending its body byte by byte holds nothing but its socket."""
    with serve(tmp_path, env={"WORKERS": "1", "THREADS": "1"}) as (_, port):
        s = socket.create_connection(("127.0.0.1", port), timeout=10)
        s.sendall(b"POST /api/v1/score HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
                  b"Content-Length: 40\r\n\r\n{")
        timed_requests(port, 4)  # one worker, one thread: still free (a held thread would keep these 10 s)
        assert unanswered([s]) == 1  # while the body still trickles
        s.close()


def test_a_connection_past_its_addresss_share_is_answered_503_not_dropped(tmp_path):
    """An address with its share of requests still arriving: its next connection gets a 503 problem with
    Retry-After before it is closed (never a silent close); the others' requests are served as ever."""
    with serve(tmp_path, env={"ANOTADOR_BUFFERING_PER_ADDRESS": "2"}) as (_, port):
        trickling = []
        try:
            for _ in range(20):  # each worker has its share and more (the kernel spreads them)
                s = socket.create_connection(("127.0.0.1", port), timeout=10, source_address=("127.0.0.3", 0))
                s.sendall(b"GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n")  # and nothing more
                trickling.append(s)
            answers = []
            for _ in range(6):
                with socket.create_connection(("127.0.0.1", port), timeout=10,
                                              source_address=("127.0.0.3", 0)) as s:
                    s.sendall(b"GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n")
                    out = b""
                    try:
                        while chunk := s.recv(65536):
                            out += chunk
                    except ConnectionResetError:
                        pass
                    answers.append(out)
            refused = [a for a in answers if a.startswith(b"HTTP/1.1 503")]
            assert all(a.startswith((b"HTTP/1.1 503", b"HTTP/1.1 200")) for a in answers), answers
            assert refused, answers
            head, _, body = refused[0].partition(b"\r\n\r\n")
            assert b"Content-Type: application/problem+json" in head and b"Retry-After: 1" in head
            assert json.loads(body)["status"] == 503
            assert request(port, "GET", "/healthz", timeout=10)[0] == 200  # another address: served
        finally:
            for s in trickling:
                s.close()


def test_the_worker_reads_its_settings_when_it_starts():
    from anotador.ops.serving import worker_settings

    assert worker_settings({}) == (10.0, 32)
    assert worker_settings({"ANOTADOR_REQUEST_TIMEOUT": "2.5", "ANOTADOR_BUFFERING_PER_ADDRESS": "4"}) == (2.5, 4)
    assert worker_settings({"ANOTADOR_PROXY_HOPS": "1", "ANOTADOR_BUFFERING_PER_ADDRESS": "4"}) == (10.0, 0)
