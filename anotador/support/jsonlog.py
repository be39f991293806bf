"""Log lines as JSON objects, one a line (``ANOTADOR_LOG_FORMAT=json``), for a log shipper to read without a pattern.

One form for every line a server writes: its access lines (:mod:`anotador.ops.gate`),
the app's warnings and errors, granian's own lines (``anotador serve`` gives
granian a logging set-up with this formatter), the migrations run at start,
and the line that says where it listens.
"""

from __future__ import annotations

import json
import logging
from datetime import datetime, timezone


class JSONLines(logging.Formatter):
    """The time (UTC) and an access line's fields, or any other line's level, logger and message (and its
    traceback, if it has one)."""

    def format(self, record: logging.LogRecord) -> str:
        when = datetime.fromtimestamp(record.created, timezone.utc).isoformat(timespec="milliseconds")
        fields = getattr(record, "access", None)
        if fields is None:
            fields = {"level": record.levelname.lower(), "logger": record.name, "message": record.getMessage()}
            if record.exc_info:
                fields["exception"] = self.formatException(record.exc_info)
        return json.dumps({"time": when.replace("+00:00", "Z"), **fields}, ensure_ascii=False)


def json_line(message: str, logger: str = "anotador", level: str = "INFO") -> str:
    """``message`` as :class:`JSONLines` writes it, for a line written before any logging is set up."""
    return JSONLines().format(logging.makeLogRecord({"msg": message, "name": logger, "levelname": level}))


def as_json(logger: logging.Logger) -> None:
    """Have every handler of ``logger`` write JSON lines."""
    for handler in logger.handlers:
        handler.setFormatter(JSONLines())
