"""A TCP proxy between the app and its database that a test can break.

``stop()`` makes the database unreachable (connections refused), ``start()``
brings it back, ``kill_connections()`` cuts every open connection as a
database restart does, ``blackhole()`` accepts connections but never
forwards a byte, like a host that stopped answering, and ``freeze()`` stops
every byte both ways on every connection, open or new, until ``freeze(False)``:
a network partition, where packets are dropped and nothing is closed.
"""

from __future__ import annotations

import select
import socket
import threading
import time


class TcpProxy:
    def __init__(self, target: tuple[str, int]):
        self.target = target
        self.port = 0
        self._listener: socket.socket | None = None
        self._pairs: list[tuple[socket.socket, socket.socket]] = []
        self._held: list[socket.socket] = []
        self._lock = threading.Lock()
        self._blackhole = False
        self._frozen = threading.Event()
        self._stopping = threading.Event()

    # -- control ------------------------------------------------------------

    def start(self) -> "TcpProxy":
        self._listener = socket.socket()
        self._listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        self._listener.bind(("127.0.0.1", self.port))
        self.port = self._listener.getsockname()[1]
        self._listener.listen(64)
        self._stopping.clear()
        threading.Thread(target=self._accept, args=(self._listener,), daemon=True).start()
        return self

    def stop(self) -> None:
        """Unreachable: refuse new connections and cut the open ones."""
        self._stopping.set()
        if self._listener is not None:
            try:
                self._listener.shutdown(socket.SHUT_RDWR)  # wakes the thread blocked in accept()
            except OSError:
                pass
            self._listener.close()
            self._listener = None
        self.kill_connections()

    def kill_connections(self) -> None:
        with self._lock:
            pairs, self._pairs = self._pairs, []
            held, self._held = self._held, []
        for a, b in pairs:
            for s in (a, b):
                try:
                    s.shutdown(socket.SHUT_RDWR)
                except OSError:
                    pass
                s.close()
        for s in held:
            s.close()

    def blackhole(self, on: bool = True) -> None:
        """New connections are accepted and then never answered."""
        self._blackhole = on

    def freeze(self, on: bool = True) -> None:
        """Forward nothing (open connections stay open; new ones are accepted), or again everything."""
        if on:
            self._frozen.set()
        else:
            self._frozen.clear()

    @property
    def url_host(self) -> str:
        return f"127.0.0.1:{self.port}"

    # -- plumbing -----------------------------------------------------------

    def _accept(self, listener: socket.socket) -> None:
        while not self._stopping.is_set():
            try:
                client, _ = listener.accept()
            except OSError:
                return
            if self._blackhole:
                with self._lock:
                    self._held.append(client)
                continue
            try:
                upstream = socket.create_connection(self.target, timeout=5)
            except OSError:
                client.close()
                continue
            with self._lock:
                self._pairs.append((client, upstream))
            threading.Thread(target=self._pump, args=(client, upstream), daemon=True).start()

    def _pump(self, a: socket.socket, b: socket.socket) -> None:
        try:
            while True:
                if self._frozen.is_set():  # partitioned: read nothing, send nothing, close nothing
                    time.sleep(0.02)
                    continue
                ready, _, _ = select.select([a, b], [], [], 0.05)
                for src in ready:
                    data = src.recv(65536)
                    if not data:
                        raise OSError("closed")
                    (b if src is a else a).sendall(data)
        except (OSError, ValueError):
            pass
        finally:
            for s in (a, b):
                try:
                    s.close()
                except OSError:
                    pass
