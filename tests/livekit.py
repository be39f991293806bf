"""A stream reader for the tests of live sheets: Server-Sent Events over a raw socket, as a phone reads them."""

from __future__ import annotations

import asyncio
import json
from concurrent.futures import ThreadPoolExecutor
from typing import Any, Coroutine


def run(coroutine: Coroutine) -> Any:
    """Run ``coroutine`` to its end in a thread of its own: the thread a test runs in may have an event loop
    running already (Playwright's sync API keeps one)."""
    with ThreadPoolExecutor(1) as pool:
        return pool.submit(asyncio.run, coroutine).result()


class Stream:
    """One open ``GET .../events``: its status, headers, and the events as they come."""

    def __init__(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter, status: int, headers: dict,
                 body: bytes = b"") -> None:
        self.reader, self.writer, self.status, self.headers, self.body = reader, writer, status, headers, body
        self.comments = 0

    async def event(self, timeout: float = 10.0) -> dict:
        """The next event within ``timeout`` seconds (comment lines counted, not returned): its fields,
        ``data`` read as JSON."""
        fields: dict = {}
        end = asyncio.get_running_loop().time() + timeout
        while True:
            left = end - asyncio.get_running_loop().time()
            line = (await asyncio.wait_for(self.reader.readline(), max(left, 0.001))).decode()
            if not line:
                raise EOFError("the stream ended")
            line = line.rstrip("\n")
            if line == "":
                if fields:
                    if "data" in fields:
                        fields["data"] = json.loads(fields["data"])
                    return fields
                continue
            if line.startswith(":"):
                self.comments += 1
                continue
            name, _, value = line.partition(": ")
            fields[name] = value

    async def version(self, timeout: float = 10.0) -> int:
        """The version the next ``version`` event names, within ``timeout`` seconds (``retry`` lines skipped)."""
        end = asyncio.get_running_loop().time() + timeout
        while True:
            event = await self.event(max(end - asyncio.get_running_loop().time(), 0.001))
            if event.get("event") == "version":
                return event["data"]["version"]

    @property
    def ended_cleanly(self) -> bool:
        """Whether the server ended the body (its last chunk came) rather than the connection being cut."""
        return bool(getattr(self.reader, "clean", False))

    def close(self) -> None:
        self.writer.close()


async def open_stream(port: int, path: str, headers: dict | None = None, source: str | None = None) -> Stream:
    """Open ``path`` on the server (from the loopback address ``source``) and read its status line and
    headers (a refused one's body too)."""
    reader, writer = await asyncio.open_connection("127.0.0.1", port,
                                                   local_addr=(source, 0) if source else None)
    lines = "".join(f"{k}: {v}\r\n" for k, v in {"Host": f"127.0.0.1:{port}", "Accept": "text/event-stream",
                                                 **(headers or {})}.items())
    writer.write(f"GET {path} HTTP/1.1\r\n{lines}\r\n".encode())
    await writer.drain()
    head = (await asyncio.wait_for(reader.readuntil(b"\r\n\r\n"), 10)).decode("latin-1").split("\r\n")
    status = int(head[0].split()[1])
    fields = {k.lower(): v for k, _, v in (h.partition(": ") for h in head[1:] if h)}
    body = b""
    if status != 200 and "content-length" in fields:
        body = await reader.readexactly(int(fields["content-length"]))
    if fields.get("transfer-encoding", "").lower() == "chunked":
        reader = dechunked(reader)
    return Stream(reader, writer, status, fields, body)


def dechunked(raw: asyncio.StreamReader) -> asyncio.StreamReader:
    """A reader of the body that ``raw`` sends in chunks (HTTP/1.1's chunked coding), fed as chunks arrive."""
    out = asyncio.StreamReader()
    out.clean = False

    async def feed() -> None:
        try:
            while True:
                line = await raw.readline()
                if not line:
                    break  # the connection ended mid-body
                size = int(line.split(b";")[0].strip(), 16)
                if size == 0:
                    out.clean = True  # the server ended the body: not a connection cut
                    break
                out.feed_data(await raw.readexactly(size))
                await raw.readexactly(2)
        except (asyncio.IncompleteReadError, ConnectionError, ValueError):
            pass
        out.feed_eof()

    out.task = asyncio.ensure_future(feed())  # kept, so it is not collected mid-stream
    return out
