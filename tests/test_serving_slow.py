"""Slow clients: granian reads the headers and the gate the body before a thread takes a request
(anotador/ops/gate.py), so trickling sockets hold sockets, not threads."""

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
    assert counts["opened"] >= 2200  # the crowd was there all along: held by sockets, not threads


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


def test_a_request_that_never_completes_is_dropped(tmp_path):
    """Headers not all there in ANOTADOR_REQUEST_TIMEOUT: dropped by granian. A body not all there: 408."""
    with serve(tmp_path, env={"ANOTADOR_REQUEST_TIMEOUT": "1"}) as (_, port):
        s = socket.create_connection(("127.0.0.1", port), timeout=10)
        s.sendall(b"GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n")
        t = time.monotonic()
        out = b""
        while chunk := s.recv(100):  # closed (the socket's 10 s would raise), no thread was held
            out += chunk
        assert time.monotonic() - t > 0.8 and not out.startswith(b"HTTP/1.1 2")
        s.close()
        with socket.create_connection(("127.0.0.1", port), timeout=10) as s:
            s.sendall(b"POST /api/v1/score HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
                      b"Content-Length: 40\r\n\r\n{")
            out = b""
            while chunk := s.recv(65536):
                out += chunk
        head, _, body = out.partition(b"\r\n\r\n")
        assert head.startswith(b"HTTP/1.1 408 ") and json.loads(body)["status"] == 408, out[:300]


def test_a_second_connection_is_served_while_a_body_trickles(tmp_path):
    """One client sending its body byte by byte holds nothing but its socket."""
    with serve(tmp_path, env={"WORKERS": "1", "THREADS": "1"}) as (_, port):
        s = socket.create_connection(("127.0.0.1", port), timeout=10)
        s.sendall(b"POST /api/v1/score HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
                  b"Content-Length: 40\r\n\r\n{")
        timed_requests(port, 4)  # one worker, one thread: still free (a held thread would keep these 10 s)
        assert unanswered([s]) == 1  # while the body still trickles
        s.close()
