"""Tables of regulars ("mesas"): made, read, locked; their players recognised by name, renamed and merged.

A table holds games the way a game holds turns: whoever has its write
token may start games at it, add games to it, rename and merge its
players. Its players are found by name as games fold names
(:func:`~anotador.rules.game.name_key`): each regular has one or more names
(aliases) that stand for them, their own and any merged into them. A
game's own sheet never changes when a regular is renamed or merged: only
whom its seats count for.

The standings, and the rows they are summed from, are
:mod:`~anotador.sheets.standings`; renaming and merging regulars,
:mod:`~anotador.sheets.regulars`.
"""

from __future__ import annotations

import secrets
from datetime import timedelta
from typing import Any, Iterable
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError, available_timezones

from sqlalchemy import bindparam, func, insert, select, update

from ..extensions import db
from ..store.models import GameRow, MesaAliasRow, MesaPlayerRow, MesaRow, ResultRow, utcnow
from ..store.transactions import reading, writing
from ..rules import InvalidNameError, clean_name
from ..rules.game import name_key
from .backends import backend
from .errors import Forbidden, MesaForbidden, MesaNotFound, MesaPreconditionFailed, MesaUnauthorized, Unauthorized
from ..http.headers import Quota
from .rate import check_rate
from .reads import possible_id
from .times import aware
from .tokens import check_token, hash_token, new_token

#: How stale a table's ``seen_at`` may get before a read writes it again: retention counts in days,
#: and a read should not write every time.
SEEN_EVERY = timedelta(days=1)


def check_zone(zone: Any, path: str = "timezone") -> str:
    """An IANA time zone name ("America/Argentina/Buenos_Aires"), or InvalidNameError naming ``path``."""
    if not isinstance(zone, str) or not 1 <= len(zone) <= 64 or zone != zone.strip():
        raise InvalidNameError("A time zone is an IANA name such as America/Argentina/Buenos_Aires.", path)
    try:
        ZoneInfo(zone)
    except (ZoneInfoNotFoundError, ValueError):
        raise InvalidNameError(f"{zone!r} is not a time zone this server knows (an IANA name such as "
                               "America/Argentina/Buenos_Aires).", path) from None
    if zone not in _zones():
        raise InvalidNameError(f"{zone!r} is not a time zone this server knows.", path)
    return zone


_ZONES: set[str] = set()


def _zones() -> set[str]:
    if not _ZONES:
        # "localtime" is the server's own clock, whichever that is; "Factory" is a placeholder, no place's time
        _ZONES.update((available_timezones() | {"UTC"}) - {"localtime", "Factory", "posixrules"})
    return _ZONES


def create_mesa(name: Any, zone: Any = "UTC", creator: str | None = None) -> tuple[MesaRow, str, Quota | None]:
    """Make a table: it, its write token (shown once), and the creator's quota (tables count with games)."""
    name = clean_name(name, "name")
    zone = check_zone(zone)
    with writing():
        quota = check_rate(creator, MesaRow) if creator is not None else None
        token = new_token()
        now = utcnow()
        mesa = MesaRow(id=secrets.token_urlsafe(12), token_hash=hash_token(token), name=name, timezone=zone,
                       version=1, created_at=now, updated_at=now, seen_at=now, creator=creator)
        db.session.add(mesa)
    return mesa, token, quota


_HEAD = select(MesaRow.version, MesaRow.seen_at).where(MesaRow.id == bindparam("mesa"))


def mesa_head(mesa_id: str) -> int:
    """A table's version (its reads' ETag), by its primary key alone; a visit once a day is written down."""
    if not possible_id(mesa_id):
        raise MesaNotFound(mesa_id)
    with reading():
        row = db.session.execute(_HEAD, {"mesa": mesa_id}).first()
    if row is None:
        raise MesaNotFound(mesa_id)
    version, seen = row
    if aware(seen) < utcnow() - SEEN_EVERY:
        with writing():
            db.session.execute(update(MesaRow).where(MesaRow.id == mesa_id).values(seen_at=utcnow()))
    return version


def get_mesa(mesa_id: str) -> MesaRow:
    """A table's row, for a read: what the request reads after it is of the same moment (one snapshot)."""
    backend().snapshot()
    mesa = db.session.get(MesaRow, mesa_id) if possible_id(mesa_id) else None
    if mesa is None:
        raise MesaNotFound(mesa_id)
    return mesa


def lock_mesa(mesa_id: str, token: str | None, if_match: Any = None) -> MesaRow:
    """A write of a table's first step: lock it, check its token and If-Match."""
    if not possible_id(mesa_id):
        raise MesaNotFound(mesa_id)
    mesa = db.session.scalars(select(MesaRow).where(MesaRow.id == mesa_id).with_for_update()).first()
    if mesa is None:
        raise MesaNotFound(mesa_id)
    check_mesa_token(mesa, token)
    if if_match is not None and str(mesa.version) not in if_match and "*" not in if_match:
        raise MesaPreconditionFailed()
    return mesa


def check_mesa_token(mesa: MesaRow, token: str | None) -> None:
    """A game's check of its token, refused in the table's words."""
    try:
        check_token(mesa, token)
    except Unauthorized:
        raise MesaUnauthorized() from None
    except Forbidden:
        raise MesaForbidden() from None


def moved_on(mesa_id: str) -> None:
    """What a table's reads show changed (a game, a name): a new version, in the caller's transaction.

    Callers have the table's row locked (:func:`lock_mesa`, or a game's write
    that locks it through :func:`~anotador.sheets.standings.follow`).
    """
    now = utcnow()
    db.session.execute(update(MesaRow).where(MesaRow.id == mesa_id)
                       .values(version=MesaRow.version + 1, updated_at=now, seen_at=now))


def lock_row(mesa_id: str) -> None:
    """Lock a table's row inside a write that began elsewhere (a game's): PostgreSQL; SQLite's write lock is
    the database's. Locked before its results are touched, as every write of the table does, so two writes
    never wait for each other in opposite orders."""
    if not possible_id(mesa_id):  # before the driver sees it: PostgreSQL refuses a NUL in text
        raise MesaNotFound(mesa_id)
    db.session.execute(select(MesaRow.id).where(MesaRow.id == mesa_id).with_for_update())


# -- its players -------------------------------------------------------------------

def regulars_of(names: Iterable[str], mesa_id: str) -> list[int]:
    """The regular each name stands for, in order; a name the table has never seen becomes a new regular.

    Inside a write (the caller's transaction).
    """
    names = list(names)
    keys = [name_key(n) for n in names]
    found = dict(db.session.execute(
        select(MesaAliasRow.name_key, MesaAliasRow.player_id)
        .where(MesaAliasRow.mesa_id == mesa_id, MesaAliasRow.name_key.in_(keys))).all())
    out = []
    for name, key in zip(names, keys):
        if key not in found:
            player = db.session.execute(insert(MesaPlayerRow).values(mesa_id=mesa_id, name=name)
                                        .returning(MesaPlayerRow.id)).scalar_one()
            db.session.execute(insert(MesaAliasRow).values(mesa_id=mesa_id, name_key=key, name=name,
                                                           player_id=player))
            found[key] = player
        out.append(found[key])
    return out


def players_of(mesa_id: str) -> dict[int, dict[str, Any]]:
    """Every regular of a table: id → name and the names that stand for them."""
    out: dict[int, dict[str, Any]] = {}
    for pid, name in db.session.execute(select(MesaPlayerRow.id, MesaPlayerRow.name)
                                        .where(MesaPlayerRow.mesa_id == mesa_id).order_by(MesaPlayerRow.id)):
        out[pid] = {"id": pid, "name": name, "names": []}
    for pid, alias in db.session.execute(select(MesaAliasRow.player_id, MesaAliasRow.name)
                                         .where(MesaAliasRow.mesa_id == mesa_id).order_by(MesaAliasRow.id)):
        if pid in out:
            out[pid]["names"].append(alias)
    for p in out.values():  # the name they are shown by first, then the others in the order they came
        p["names"].sort(key=lambda n: name_key(n) != name_key(p["name"]))
    return out


def usual_players(mesa_id: str, limit: int = 12) -> list[str]:
    """The names a new game at this table starts with: who played its ten latest finished games, most often first."""
    latest = list(db.session.scalars(
        select(GameRow.id).where(GameRow.mesa_id == mesa_id, GameRow.status == "finished")
        .order_by(GameRow.created_at.desc(), GameRow.id.desc()).limit(10)))
    if not latest:
        return []
    rows = db.session.execute(
        select(MesaPlayerRow.name, func.count())
        .join(ResultRow, ResultRow.player_id == MesaPlayerRow.id)
        .where(ResultRow.game_id.in_(latest))
        .group_by(MesaPlayerRow.id, MesaPlayerRow.name)
        .order_by(func.count().desc(), func.min(ResultRow.seat), MesaPlayerRow.id)).all()
    return [name for name, _ in rows[:limit]]


__all__ = ["check_mesa_token", "check_zone", "create_mesa", "get_mesa", "lock_mesa", "lock_row", "mesa_head",
           "moved_on", "players_of", "regulars_of", "usual_players"]
