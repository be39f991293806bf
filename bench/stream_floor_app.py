"""Floor for bench/stream_memory.py: an ASGI app that opens a Server-Sent Events stream and holds it, nothing else."""

import asyncio


async def app(scope, receive, send):
    if scope["type"] == "lifespan":
        while (await receive())["type"] != "lifespan.shutdown":
            await send({"type": "lifespan.startup.complete"})
        await send({"type": "lifespan.shutdown.complete"})
        return
    await send({"type": "http.response.start", "status": 200, "headers": [(b"content-type", b"text/event-stream")]})
    await send({"type": "http.response.body", "body": b"retry: 1000\n\n", "more_body": True})
    while (await receive())["type"] != "http.disconnect":
        pass
