"""Renaming a table's regular, and merging two of them: writes of the table, never of its games' sheets."""

from __future__ import annotations

from typing import Any

from flask import current_app
from sqlalchemy import delete, func, select, update

from ..extensions import db
from ..store.models import MesaAliasRow, MesaPlayerRow, MesaRow, ResultRow
from ..store.transactions import writing
from ..rules import clean_name
from ..rules.game import name_key
from .errors import NameTaken, SameRegular, TooManyNames, UnknownRegular
from .mesas import lock_mesa, moved_on
from .standings import retally

#: The largest id an Integer column holds on PostgreSQL (SQLite's holds more; none of ours gets near).
MAX_ROW_ID = 2**31 - 1


def _regular(mesa_id: str, player_id: Any, field: str) -> MesaPlayerRow:
    # the column's range on both databases: a larger number is no player, not a driver's overflow
    known = type(player_id) is int and 0 < player_id <= MAX_ROW_ID
    player = db.session.get(MesaPlayerRow, player_id) if known else None
    if player is None or player.mesa_id != mesa_id:
        raise UnknownRegular(f"This table has no player {player_id!r}.", field)
    return player


def rename(mesa_id: str, token: str | None, if_match: Any, player_id: Any, name: Any) -> MesaRow:
    """Give a regular another name to be shown by; the new name stands for them in later games too.

    A name that already stands for another regular is a conflict: merge them instead.
    """
    name = clean_name(name, "name")
    with writing():
        mesa = lock_mesa(mesa_id, token, if_match)
        player = _regular(mesa.id, player_id, "player")
        key = name_key(name)
        holder = db.session.scalar(select(MesaAliasRow.player_id)
                                   .where(MesaAliasRow.mesa_id == mesa.id, MesaAliasRow.name_key == key))
        if holder is not None and holder != player.id:
            raise NameTaken(f"{name!r} already stands for another player of this table: merge them instead.", "name")
        if holder is None:
            limit = current_app.config["NAMES_PER_REGULAR"]
            names = db.session.scalar(select(func.count()).select_from(MesaAliasRow)
                                      .where(MesaAliasRow.player_id == player.id))
            if names >= limit:
                raise TooManyNames(f"This player has {names} names already, as many as one player keeps: rename them "
                                   "to one of those, or merge them into another player.", "name")
            db.session.add(MesaAliasRow(mesa_id=mesa.id, name_key=key, name=name, player_id=player.id))
        player.name = name
        moved_on(mesa.id)
    return mesa


def merge(mesa_id: str, token: str | None, if_match: Any, source: Any, into: Any) -> MesaRow:
    """Count ``source`` as ``into`` ("Abu" is "Abuela"): their names, their games; ``source`` goes."""
    with writing():
        mesa = lock_mesa(mesa_id, token, if_match)
        gone = _regular(mesa.id, source, "player")
        kept = _regular(mesa.id, into, "into")
        if gone.id == kept.id:
            raise SameRegular("A player cannot be merged into themselves.", "into")
        db.session.execute(update(MesaAliasRow).where(MesaAliasRow.player_id == gone.id).values(player_id=kept.id))
        db.session.execute(update(ResultRow).where(ResultRow.player_id == gone.id).values(player_id=kept.id))
        retally(mesa.id, {gone.id, kept.id})
        db.session.execute(delete(MesaPlayerRow).where(MesaPlayerRow.id == gone.id))
        moved_on(mesa.id)
    return mesa
