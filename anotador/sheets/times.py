"""Timestamps as the API writes them: RFC 3339 in UTC, whatever the database handed back."""

from __future__ import annotations

from datetime import datetime, timezone


def iso(dt: datetime | None) -> str | None:
    """An RFC 3339 UTC timestamp (``...Z``), or None."""
    if dt is None:
        return None
    return aware(dt).isoformat().replace("+00:00", "Z")


def iso_stored(made: datetime | str) -> str:
    """:func:`iso` of a time as a plain driver connection hands it back (sqlite3: the text SQLAlchemy stored)."""
    if isinstance(made, str):
        made = datetime.fromisoformat(made)
    return iso(made)  # type: ignore[return-value]


def aware(dt: datetime) -> datetime:
    """``dt`` in UTC: SQLite hands back naive datetimes it stored as UTC."""
    return dt.replace(tzinfo=timezone.utc) if dt.tzinfo is None else dt
