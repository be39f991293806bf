"""Bare ASGI apps for the measurements of live streams, with nothing of Anotador in them.

- ``app``: opens a Server-Sent Events stream and holds it until the client
  goes (bench/stream_memory.py's floor).
- ``flood``: sends a big body to a client that may not read it, until one
  send waits two seconds, and prints how much went out
  (tests/test_live_server.py holds granian to making a send wait).
"""

import asyncio


async def lifespan(receive, send) -> None:
    while (await receive())["type"] != "lifespan.shutdown":
        await send({"type": "lifespan.startup.complete"})
    await send({"type": "lifespan.shutdown.complete"})


async def app(scope, receive, send):
    if scope["type"] == "lifespan":
        return await lifespan(receive, send)
    await send({"type": "http.response.start", "status": 200, "headers": [(b"content-type", b"text/event-stream")]})
    await send({"type": "http.response.body", "body": b"retry: 1000\n\n", "more_body": True})
    while (await receive())["type"] != "http.disconnect":
        pass


async def flood(scope, receive, send):
    if scope["type"] == "lifespan":
        return await lifespan(receive, send)
    await send({"type": "http.response.start", "status": 200, "headers": [(b"content-type", b"text/plain")]})
    sent = 0
    while sent < 256 << 20:
        try:
            async with asyncio.timeout(2):
                await send({"type": "http.response.body", "body": b"x" * 65536, "more_body": True})
        except TimeoutError:
            break
        sent += 65536
    print("SENT", sent, flush=True)
