"""Live sheets: every phone hears of a stored change the moment it is stored.

A game (and a table of regulars) carries a version that every write moves
on; the version is the truth, and an event only says "version N is
stored". The pieces, in the order a change meets them:

- :mod:`.feeds`: how this process hears of a change, whichever server made
  it: PostgreSQL's ``LISTEN`` (a trigger notifies as each write commits), or
  SQLite's ``data_version`` watched on a connection of its own.
- :mod:`.changes`: who in this process waits for which key's next version.
- :mod:`.streams`: the Server-Sent Events stream each phone holds open, on
  the event loop of an ASGI server: an idle stream costs a coroutine and a
  socket, no thread (``anotador/ops/asgi.py`` puts it in front of the app).

Without an ASGI server, the app's own view (``GET .../events`` in
:mod:`anotador.api.games`) answers the current version and asks the
browser to come back in a second: polling, in the same words.
"""

from __future__ import annotations

import json
import re

#: A version as Last-Event-ID names it: ASCII digits only (str.isdigit takes other scripts' digits too).
_VERSION = re.compile(r"[0-9]{1,12}")

#: What the browser waits before it opens a stream again (milliseconds): the
#: poll's own period, so a server without streams is polled as before.
RETRY_MS = 1000

#: The answer's headers, in both servers: never cached or buffered by a proxy (nginx reads X-Accel-Buffering).
HEADERS = (("Content-Type", "text/event-stream; charset=utf-8"), ("Cache-Control", "no-store"),
           ("X-Accel-Buffering", "no"), ("X-Content-Type-Options", "nosniff"))


def game_key(game_id: str) -> str:
    return f"g:{game_id}"


def mesa_key(mesa_id: str) -> str:
    return f"m:{mesa_id}"


def retry() -> bytes:
    """The stream's first line: when to reconnect after it drops."""
    return f"retry: {RETRY_MS}\n\n".encode()


def version_event(version: int) -> bytes:
    """The event a stream sends when ``version`` is stored (its id is the version: Last-Event-ID resumes)."""
    return f"id: {version}\nevent: version\ndata: {json.dumps({'version': version})}\n\n".encode()


def opening(version: int, seen: int | None) -> bytes:
    """A stream's first bytes: ``retry``, and ``version`` unless the browser's Last-Event-ID (``seen``) names it."""
    return retry() + (b"" if seen == version else version_event(version))


def last_seen(header: str | None) -> int | None:
    """The version a resuming browser names in Last-Event-ID, or None."""
    if header is None or not _VERSION.fullmatch(header.strip()):
        return None
    return int(header.strip())
