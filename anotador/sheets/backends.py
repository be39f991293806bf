"""What SQLite and PostgreSQL do differently in a game's writes, behind one small interface.

Everything else in :mod:`anotador.sheets` is the same code on both. The
differences are all about what a round trip costs:

- PostgreSQL, over a socket, pays for each round trip: a turn is one
  statement (data-modifying WITH queries), its reads stand alone
  (autocommit), a keyed write stores its answer and forgets old keys in one
  statement, and a read of a game's history is one REPEATABLE READ snapshot.
- SQLite, in process, pays for each Python step inside the one write lock
  every writer shares: a turn's statements go one by one straight to the
  driver (:class:`~anotador.store.database.DriverStatement`), built before the lock,
  and the lock is taken (:func:`~anotador.store.transactions.writing`) only to write.

Each one's :meth:`Backend.unlocked_turn` is where a turn's transactions
begin and end; every other write's are :mod:`anotador.store.transactions`'.

:func:`backend` gives the one for the session's database.
"""

from __future__ import annotations

import functools
from contextlib import contextmanager
from typing import Any, Callable, Iterator

from sqlalchemy import bindparam, insert, select, union_all

from ..store.database import DriverStatement, driver_connection
from ..extensions import db
from ..store.models import EntryRow, GameRow, TurnRow
from ..rules import Play
from ..store.transactions import writing
from .errors import Moved
from .keys import FORGET, KEYS, REMEMBER, STORED
from .rows import move_params, move_statement

#: A turn's writes: run inside the write transaction, True if they wrote (the game was at the expected version).
Writes = Callable[[], bool]


class Backend:
    """The interface: how a database reads a game, stores a turn and remembers a key."""

    name = ""

    def snapshot(self) -> None:
        """Make the request's coming reads one snapshot of the game, if they are not already."""

    def unlocked_turn(self) -> Iterator[None]:
        """The block of a turn played without a lock: its reads, then (:meth:`store_turn`) its write.

        Whatever the block raises ends its transaction; so does its end.
        """
        raise NotImplementedError

    def store_turn(self, write: Writes) -> None:
        """In :meth:`unlocked_turn`, once the reads are done: run a turn's writes (built with ``expected``) and
        commit them, or raise :class:`~anotador.sheets.errors.Moved` if the game moved on and nothing was written."""
        raise NotImplementedError

    def remember(self, params: dict[str, Any]) -> None:
        """Store a keyed write's answer (:func:`~anotador.sheets.keys.key_params`), and forget the game's old keys."""
        raise NotImplementedError

    def turn_writes(self, game: GameRow, number: int, play: Play, outcome: dict[str, Any],
                    expected: int | None = None, keyed: dict | None = None) -> Writes:
        """A played turn's writes, built now and run later in the write transaction its caller begins.

        They insert the turn and its entries, move the game on to
        ``outcome`` and, with ``keyed``, store the answer under its key.
        With ``expected``, they write only if the game is still at that
        version, and say whether they wrote.
        """
        raise NotImplementedError


def _turn_rows(game: GameRow, number: int, play: Play, outcome: dict[str, Any]) -> tuple[dict, list[dict]]:
    """The turn's row and one row per box it fills, as column → value (the entries' ``turn_id`` left out)."""
    turn = {"game_id": game.id, "number": number, "player": play.player, "round": play.round,
            "dice": None if play.dice is None else list(play.dice), "served": play.served,
            "rolls": None if play.rolls is None else [t.as_dict() for t in play.rolls],
            "recorded_at": outcome["updated_at"]}
    boxes = [{"game_id": game.id, "player": play.player, "box": p.category, "points": p.points,
              "scratch": p.scratch, "dice": None if p.dice is None else list(p.dice), "bonus": p.bonus}
             for p in play.boxes]
    return turn, boxes


_INSERT_TURN = insert(TurnRow.__table__)
_INSERT_ENTRY = insert(EntryRow.__table__)


class SQLite(Backend):
    """In process: as few Python steps as can be inside the write lock."""

    name = "sqlite"

    @contextmanager
    def unlocked_turn(self) -> Iterator[None]:
        # The reads are one read transaction; the store ends it before it
        # takes the write lock, which every writer of the database shares.
        try:
            yield
        finally:
            db.session.rollback()  # the reads, if the block ended before its store

    def store_turn(self, write: Writes) -> None:
        db.session.rollback()  # the read ends; the write begins as a writer, in line for the lock
        with writing():
            if not write():
                raise Moved()

    def remember(self, params: dict[str, Any]) -> None:
        conn = db.session.connection()
        conn.execute(FORGET, params)
        conn.execute(REMEMBER, params)

    def turn_writes(self, game, number, play, outcome, expected=None, keyed=None) -> Writes:
        turn, boxes = _turn_rows(game, number, play, outcome)
        move = DriverStatement.of(move_statement(tuple(outcome), expected is not None), ())
        moved = move.row(move_params(game, outcome, expected))
        insert_turn = DriverStatement.of(_INSERT_TURN, tuple(turn))
        turn_row = insert_turn.row(turn)
        insert_entry = DriverStatement.of(_INSERT_ENTRY, ("turn_id", *boxes[0]))
        at = insert_entry.names.index("turn_id")  # filled in once the turn has its id
        entry_rows = [insert_entry.row({**box, "turn_id": None}) for box in boxes]
        keys = []  # the answer under its key, once the keys past their day are forgotten
        for statement in (FORGET, REMEMBER) if keyed is not None else ():
            statement = DriverStatement.of(statement, ())
            keys.append((statement, statement.row(keyed)))

        def write() -> bool:
            driver = driver_connection()
            if move.run(driver, [moved]).rowcount != 1:
                return False
            turn_id = insert_turn.run(driver, [turn_row]).lastrowid
            insert_entry.run(driver, [row[:at] + (turn_id,) + row[at + 1:] for row in entry_rows])
            for statement, row in keys:
                statement.run(driver, [row])
            return True

        return write


class PostgreSQL(Backend):
    """Over a socket: as few round trips as can be."""

    name = "postgresql"
    #: A keyed write's two statements as one (the DELETE as a data-modifying WITH query).
    REMEMBER_AND_FORGET = REMEMBER.add_cte(FORGET.cte("forgotten"))

    def snapshot(self) -> None:
        # Read only, so nothing to conflict with; what the request reads
        # after the game's row (a replay's entries, the history) is of the
        # version that row names, even while a write lands.
        if not db.session().in_transaction():
            db.session.connection(execution_options={"isolation_level": "REPEATABLE READ"})

    @contextmanager
    def unlocked_turn(self) -> Iterator[None]:
        # Every statement stands alone (autocommit), the write included: one
        # statement that moves the game on from the version read, or writes nothing.
        db.session.connection(execution_options={"isolation_level": "AUTOCOMMIT"})
        try:
            yield
        finally:
            db.session.rollback()  # nothing open to roll back: this gives the connection back

    def store_turn(self, write: Writes) -> None:
        if not write():
            raise Moved()

    def remember(self, params: dict[str, Any]) -> None:
        db.session.connection().execute(self.REMEMBER_AND_FORGET, params)

    def turn_writes(self, game, number, play, outcome, expected=None, keyed=None) -> Writes:
        turn, boxes = _turn_rows(game, number, play, outcome)
        params = {f"turn_{k}": v for k, v in turn.items()} | move_params(game, outcome, expected)
        if keyed is not None:  # prefixed: a bare "created_at" would join the game's SET clause
            params |= {f"key_{k}": v for k, v in keyed.items()} | {"expired": keyed["expired"], "keep": keyed["keep"]}
        for i, box in enumerate(boxes):
            params |= {f"box{i}_{k}": v for k, v in box.items()}
        statement = _turn_statement(tuple(turn), tuple(boxes[0]), len(boxes), tuple(outcome), expected is not None,
                                    keyed is not None)
        return lambda: db.session.execute(statement, params).rowcount == len(boxes)


@functools.cache
def _turn_statement(turn: tuple[str, ...], entry: tuple[str, ...], boxes: int, outcome: tuple[str, ...],
                    guarded: bool, keyed: bool):
    """PostgreSQL: a turn, its ``boxes`` entries and the game's update in one statement, built once per shape.

    ``turn``, ``entry`` and ``outcome`` name the columns the SQLite path
    fills, so both write the same. The game's update, the turn and
    (``keyed``) the answer under its key are data-modifying WITH queries,
    each row taken from the one before: with ``guarded``, the game moves
    only from version ``expected``, and if it does not, nothing else is
    written either (the statement inserts no entry). With ``keyed``, the
    game's old keys are deleted too (:data:`~anotador.sheets.keys.FORGET`). Bound parameters only, so
    each request just fills them in.
    """
    turns, entries = TurnRow.__table__, EntryRow.__table__
    moved = move_statement(outcome, guarded).returning(GameRow.__table__.c.id).cte("moved")
    written = insert(turns).from_select(
        list(turn), select(*(bindparam(f"turn_{c}", type_=turns.c[c].type) for c in turn)).select_from(moved)) \
        .returning(turns.c.id).cte("written")
    rows = [select(written.c.id, *(bindparam(f"box{i}_{c}", type_=entries.c[c].type) for c in entry))
            for i in range(boxes)]
    statement = insert(entries).from_select(["turn_id", *entry], union_all(*rows) if boxes > 1 else rows[0])
    if keyed:
        remembered = insert(KEYS).from_select(
            ["game_id", *STORED],
            select(moved.c.id, *(bindparam(f"key_{c}", type_=KEYS.c[c].type) for c in STORED)))
        statement = statement.add_cte(remembered.cte("remembered"), FORGET.cte("forgotten"))
    return statement.execution_options(preserve_rowcount=True)  # SQLAlchemy keeps an INSERT's count only if asked


_BACKENDS: dict[str, Backend] = {b.name: b for b in (SQLite(), PostgreSQL())}


def backend() -> Backend:
    """The backend of the session's database."""
    return _BACKENDS[db.session.get_bind().dialect.name]
