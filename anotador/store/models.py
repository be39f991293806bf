"""Database models: games, their players, turns, the boxes they filled.

The turns are the record; ``entries`` materialise what each turn wrote in
each box, so that a database constraint guarantees one entry per (game,
player, box) even if the application's own check were bypassed, and reads
need no replay. The game row carries the derived outcome and a version that
changes with every write (the ETag).
"""

from __future__ import annotations

from datetime import datetime, timezone

from sqlalchemy import JSON, Boolean, DateTime, Float, ForeignKey, Index, Integer, String, Text, UniqueConstraint
from sqlalchemy.orm import Mapped, mapped_column, relationship

from ..extensions import db


def utcnow() -> datetime:
    return datetime.now(timezone.utc)


class GameRow(db.Model):
    """One game: its frozen rules, who starts, and where it stands."""

    __tablename__ = "games"
    __table_args__ = (
        # "games this address created in the last minute", and purging by age
        Index("ix_games_creator_created_at", "creator", "created_at"),
        Index("ix_games_updated_at", "updated_at"),
        # a table's history, newest first, a page at a time
        Index("ix_games_mesa_created", "mesa_id", "created_at", "id"),
    )

    id: Mapped[str] = mapped_column(String(32), primary_key=True)
    token_hash: Mapped[str] = mapped_column(String(64))
    rules: Mapped[dict] = mapped_column(JSON)
    start: Mapped[int] = mapped_column(Integer, default=0)
    turns: Mapped[int] = mapped_column(Integer, default=0)
    status: Mapped[str] = mapped_column(String(16), default="playing")
    winners: Mapped[list] = mapped_column(JSON, default=list)
    reason: Mapped[str | None] = mapped_column(String(20), nullable=True)
    version: Mapped[int] = mapped_column(Integer, default=1)
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow)
    updated_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow)
    #: Who created it, as a keyed hash of the client address (never the
    #: address itself): only for the per-address rate limit.
    creator: Mapped[str | None] = mapped_column(String(32), nullable=True)
    #: The table of regulars (:class:`MesaRow`) it belongs to, if any: deleting the table deletes its games.
    mesa_id: Mapped[str | None] = mapped_column(ForeignKey("mesas.id", ondelete="CASCADE"), nullable=True)

    players: Mapped[list["PlayerRow"]] = relationship(
        order_by="PlayerRow.seat", cascade="all, delete-orphan", passive_deletes=True
    )


class MesaRow(db.Model):
    """A table of regulars ("mesa"): a group's games, its players across them, its standings.

    Called a mesa in the code: "table" already names the advisor's tables
    and the database's. Its version changes with every change of what its
    reads show (a game joining, finishing or corrected, a player renamed or
    merged): their ETag.
    """

    __tablename__ = "mesas"

    id: Mapped[str] = mapped_column(String(32), primary_key=True)
    token_hash: Mapped[str] = mapped_column(String(64))
    name: Mapped[str] = mapped_column(String(160))
    #: The IANA zone its games' dates are told in (a Sunday game at 22:00 in Buenos Aires is on Sunday).
    timezone: Mapped[str] = mapped_column(String(64), default="UTC")
    version: Mapped[int] = mapped_column(Integer, default=1)
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow)
    updated_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow)
    #: Last time anyone read or wrote it (a day's precision): retention counts from here.
    seen_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow, index=True)
    creator: Mapped[str | None] = mapped_column(String(32), nullable=True)


class MesaPlayerRow(db.Model):
    """One regular of a table, across its games."""

    __tablename__ = "mesa_players"

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    mesa_id: Mapped[str] = mapped_column(ForeignKey("mesas.id", ondelete="CASCADE"), index=True)
    name: Mapped[str] = mapped_column(String(160))


class MesaAliasRow(db.Model):
    """A name (folded as games fold them) that stands for one regular: their own, and any merged into them."""

    __tablename__ = "mesa_aliases"
    __table_args__ = (UniqueConstraint("mesa_id", "name_key"),)

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    # Indexed by the unique constraint that begins with it.
    mesa_id: Mapped[str] = mapped_column(ForeignKey("mesas.id", ondelete="CASCADE"))
    name_key: Mapped[str] = mapped_column(String(160))
    name: Mapped[str] = mapped_column(String(160))
    player_id: Mapped[int] = mapped_column(ForeignKey("mesa_players.id", ondelete="CASCADE"), index=True)


class ResultRow(db.Model):
    """One seat of one finished game of a table, as its standings count it.

    Written by the write that finishes the game (or corrects, undoes or
    rolls off after it), in that write's transaction, and deleted when the
    game is no longer finished: the standings are sums over these rows, and
    always equal a count made again from the games.
    """

    __tablename__ = "mesa_results"
    __table_args__ = (
        UniqueConstraint("game_id", "seat"),
        Index("ix_mesa_results_mesa_day", "mesa_id", "played_on"),
        Index("ix_mesa_results_mesa_rules", "mesa_id", "rules_key"),
    )

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    mesa_id: Mapped[str] = mapped_column(ForeignKey("mesas.id", ondelete="CASCADE"))
    game_id: Mapped[str] = mapped_column(ForeignKey("games.id", ondelete="CASCADE"))
    seat: Mapped[int] = mapped_column(Integer)
    player_id: Mapped[int] = mapped_column(ForeignKey("mesa_players.id", ondelete="CASCADE"), index=True)
    variant: Mapped[str] = mapped_column(String(32))
    #: The rule set, as the advisor names it (a digest of the rules): "same rules" across games.
    rules_key: Mapped[str] = mapped_column(String(64))
    #: The day the game began, in the table's zone (YYYY-MM-DD): date ranges and the chart by month.
    played_on: Mapped[str] = mapped_column(String(10))
    total: Mapped[int] = mapped_column(Integer)
    #: 1 for a win, 1/n for a win shared by n (a draw, a tie shared), 0 otherwise.
    share: Mapped[float] = mapped_column(Float)
    won: Mapped[bool] = mapped_column(Boolean)
    shared: Mapped[bool] = mapped_column(Boolean)
    instant: Mapped[bool] = mapped_column(Boolean)
    generalas: Mapped[int] = mapped_column(Integer)
    scratches: Mapped[int] = mapped_column(Integer)
    #: The advisor's judgement, where it could judge the game (its table was built): points lost to
    #: decisions against the best, and luck. NULL otherwise.
    lost: Mapped[float | None] = mapped_column(Float, nullable=True)
    luck: Mapped[float | None] = mapped_column(Float, nullable=True)


class TallyRow(db.Model):
    """The running sums of one regular's results at a table, for one rule set and one month.

    Kept by the same writes as the results (each bucket a write touches is
    summed again from its results, in the write's transaction, so it is
    exact by construction): the standings sum a few hundred of these
    instead of every result row. Only a range of days that cuts a month
    reads that month's results themselves.
    """

    __tablename__ = "mesa_tallies"
    __table_args__ = (UniqueConstraint("mesa_id", "player_id", "variant", "rules_key", "month"),)

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    mesa_id: Mapped[str] = mapped_column(ForeignKey("mesas.id", ondelete="CASCADE"))
    player_id: Mapped[int] = mapped_column(ForeignKey("mesa_players.id", ondelete="CASCADE"), index=True)
    variant: Mapped[str] = mapped_column(String(32))
    rules_key: Mapped[str] = mapped_column(String(64))
    #: YYYY-MM
    month: Mapped[str] = mapped_column(String(7))
    games: Mapped[int] = mapped_column(Integer)
    #: Games in which this regular sat first: every game has one, so their sum counts games.
    leads: Mapped[int] = mapped_column(Integer)
    wins: Mapped[int] = mapped_column(Integer)
    shared: Mapped[int] = mapped_column(Integer)
    share: Mapped[float] = mapped_column(Float)
    total_sum: Mapped[int] = mapped_column(Integer)
    best: Mapped[int] = mapped_column(Integer)
    instant: Mapped[int] = mapped_column(Integer)
    generalas: Mapped[int] = mapped_column(Integer)
    scratches: Mapped[int] = mapped_column(Integer)
    judged: Mapped[int] = mapped_column(Integer)
    lost_sum: Mapped[float | None] = mapped_column(Float, nullable=True)
    luck_sum: Mapped[float | None] = mapped_column(Float, nullable=True)
    first_day: Mapped[str] = mapped_column(String(10))
    last_day: Mapped[str] = mapped_column(String(10))


class PlayerRow(db.Model):
    """A seat at the table."""

    __tablename__ = "players"
    __table_args__ = (
        UniqueConstraint("game_id", "seat"),
        UniqueConstraint("game_id", "name_key"),
    )

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    # Indexed by the unique constraint that begins with it.
    game_id: Mapped[str] = mapped_column(ForeignKey("games.id", ondelete="CASCADE"))
    seat: Mapped[int] = mapped_column(Integer)
    name: Mapped[str] = mapped_column(String(160))
    #: The name folded for comparison ("Ana" and "ANA" are one player).
    name_key: Mapped[str] = mapped_column(String(160))


class TurnRow(db.Model):
    """One recorded turn, as it stands; its :class:`CorrectionRow` rows keep what it was before."""

    __tablename__ = "turns"
    __table_args__ = (UniqueConstraint("game_id", "number"),)

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    # Indexed by the unique constraint that begins with it.
    game_id: Mapped[str] = mapped_column(ForeignKey("games.id", ondelete="CASCADE"))
    number: Mapped[int] = mapped_column(Integer)
    player: Mapped[int] = mapped_column(Integer)
    round: Mapped[int] = mapped_column(Integer)
    dice: Mapped[list | None] = mapped_column(JSON, nullable=True)
    served: Mapped[bool] = mapped_column(Boolean, default=False)
    #: The turn's throws and what was kept from each (:mod:`anotador.rules.rolls`), where the table
    #: recorded them; None for a turn entered as its final dice.
    rolls: Mapped[list | None] = mapped_column(JSON, nullable=True)
    recorded_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow)
    corrected_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True), nullable=True)

    entries: Mapped[list["EntryRow"]] = relationship(
        order_by="EntryRow.id", cascade="all, delete-orphan", passive_deletes=True
    )


class EntryRow(db.Model):
    """What one turn wrote in one box of one player's column."""

    __tablename__ = "entries"
    __table_args__ = (UniqueConstraint("game_id", "player", "box"),)

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    # Indexed by the unique constraint that begins with it.
    game_id: Mapped[str] = mapped_column(ForeignKey("games.id", ondelete="CASCADE"))
    turn_id: Mapped[int] = mapped_column(ForeignKey("turns.id", ondelete="CASCADE"), index=True)
    player: Mapped[int] = mapped_column(Integer)
    box: Mapped[str] = mapped_column(String(32))
    points: Mapped[int] = mapped_column(Integer)
    scratch: Mapped[bool] = mapped_column(Boolean, default=False)
    #: The group of five placed here, in a two-box variant.
    dice: Mapped[list | None] = mapped_column(JSON, nullable=True)
    #: Points the roll earned besides the box (Yahtzee's bonus for a further Yahtzee).
    bonus: Mapped[int] = mapped_column(Integer, default=0, server_default="0")


class RollOffRow(db.Model):
    """One tie-break roll (``tie_break: roll_off``)."""

    __tablename__ = "roll_offs"
    __table_args__ = (UniqueConstraint("game_id", "seq"),)

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    # Indexed by the unique constraint that begins with it.
    game_id: Mapped[str] = mapped_column(ForeignKey("games.id", ondelete="CASCADE"))
    seq: Mapped[int] = mapped_column(Integer)
    player: Mapped[int] = mapped_column(Integer)
    dice: Mapped[list] = mapped_column(JSON)
    recorded_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow)


class CorrectionRow(db.Model):
    """What a turn was before one correction: appended, never rewritten.

    One row per correction keeps the cost of a correction the same however
    many came before it (a JSON list on the turn was rewritten whole).
    """

    __tablename__ = "corrections"

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    game_id: Mapped[str] = mapped_column(ForeignKey("games.id", ondelete="CASCADE"), index=True)
    turn_id: Mapped[int] = mapped_column(ForeignKey("turns.id", ondelete="CASCADE"), index=True)
    dice: Mapped[list | None] = mapped_column(JSON, nullable=True)
    served: Mapped[bool] = mapped_column(Boolean, default=False)
    rolls: Mapped[list | None] = mapped_column(JSON, nullable=True)
    boxes: Mapped[list] = mapped_column(JSON)
    #: When the turn took the values now replaced.
    recorded_at: Mapped[datetime] = mapped_column(DateTime(timezone=True))


class IdempotencyRow(db.Model):
    """The answer to a write sent with an ``Idempotency-Key``, kept for its retries.

    Stored in the write's own transaction (a turn: its one statement), so a
    retry finds it and gets the same answer without the change being applied
    twice. A concurrent copy waits for the game's lock, or (a turn) finds the
    game moved past the version it played on, starts again and finds the key.
    """

    __tablename__ = "idempotency_keys"
    __table_args__ = (UniqueConstraint("game_id", "key"),)

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    # Indexed by the unique constraint that begins with it.
    game_id: Mapped[str] = mapped_column(ForeignKey("games.id", ondelete="CASCADE"))
    key: Mapped[str] = mapped_column(String(255))
    #: SHA-256 of the method, path and canonical JSON body.
    fingerprint: Mapped[str] = mapped_column(String(64))
    status: Mapped[int] = mapped_column(Integer)
    body: Mapped[str] = mapped_column(Text)
    etag: Mapped[str] = mapped_column(String(40))
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow)


class CreationKeyRow(db.Model):
    """The answer to a ``POST /api/v1/games`` sent with an ``Idempotency-Key``, kept a short while for its retries.

    The answer holds the game's write token, so it is kept sealed
    (:mod:`anotador.sheets.creation_keys`): its row is named, and its body
    encrypted, under keys made from the server's secret, the client's
    address and the Idempotency-Key, none of which the database holds.
    """

    __tablename__ = "creation_keys"

    #: HMAC of the client address and the Idempotency-Key.
    key: Mapped[str] = mapped_column(String(64), primary_key=True)
    game_id: Mapped[str] = mapped_column(ForeignKey("games.id", ondelete="CASCADE"), index=True)
    #: SHA-256 of the method, path and canonical JSON body.
    fingerprint: Mapped[str] = mapped_column(String(64))
    #: The answer's JSON, encrypted (base64).
    sealed: Mapped[str] = mapped_column(Text)
    etag: Mapped[str] = mapped_column(String(40))
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow, index=True)
