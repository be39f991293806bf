"""A crowd of slow sockets from one address, run as its own process by tests/test_serving.py.

    python tests/crowd.py PORT N SOURCE

Opens ``N`` sockets from ``SOURCE`` to 127.0.0.1:PORT; each sends a request
line, then a header line every 2 s, and is re-opened as soon as the server
closes it. Prints ``ready`` once all are open; on a line on stdin it stops
and prints ``{"opened": ..., "dropped": ...}``.
"""

from __future__ import annotations

import json
import selectors
import socket
import sys
import threading
import time


def main(port: int, n: int, source: str) -> None:
    counts = {"opened": 0, "dropped": 0}
    stop = threading.Event()
    sel = selectors.DefaultSelector()

    def open_one() -> socket.socket:
        s = socket.socket()
        s.setblocking(False)
        s.bind((source, 0))
        try:
            s.connect(("127.0.0.1", port))
        except BlockingIOError:
            pass
        sel.register(s, selectors.EVENT_READ)
        counts["opened"] += 1
        return s

    socks = {open_one(): False for _ in range(n)}  # socket → whether its request line went
    print("ready", flush=True)
    threading.Thread(target=lambda: (sys.stdin.readline(), stop.set()), daemon=True).start()
    last = 0.0
    while not stop.is_set():
        for key, _ in sel.select(timeout=0.1):  # readable: closed by the server
            sel.unregister(key.fileobj)
            key.fileobj.close()
            socks.pop(key.fileobj, None)
            counts["dropped"] += 1
        while len(socks) < n:
            socks[open_one()] = False
        trickle = time.monotonic() - last > 2
        if trickle:
            last = time.monotonic()
        for sock, started in list(socks.items()):
            if started and not trickle:
                continue
            try:
                sock.send(b"X-Slow: x\r\n" if started else b"GET /healthz HTTP/1.1\r\n")
                socks[sock] = True
            except OSError:
                pass
    for sock in socks:
        sock.close()
    print(json.dumps(counts), flush=True)


if __name__ == "__main__":
    import resource

    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (max(soft, min(hard, 8192)), hard))
    main(int(sys.argv[1]), int(sys.argv[2]), sys.argv[3])
