"""Shared score sheets: create games, record turns, undo, correct, roll off.

Each write runs in one transaction that first locks the game (SQLite:
``BEGIN IMMEDIATE``; PostgreSQL: ``SELECT ... FOR UPDATE``), takes the
game's state (kept by this worker for the version it found, or rebuilt from
the stored entries), lets the rules engine check and apply the change, and
writes the result with a new version. A turn, the write that every table
makes most, does all of that but the writing before it locks anything, and
writes only if the game is still at the version it read
(:func:`_turn_unlocked`). Nothing here scores a roll: the engine does.
"""

from __future__ import annotations

import functools
import hashlib
import hmac
import secrets
import math
from datetime import datetime, timedelta, timezone
from dataclasses import dataclass
from typing import Any, Callable, Sequence

from flask import current_app
from sqlalchemy import bindparam, delete, func, insert, select, union_all, update
from sqlalchemy.orm.attributes import set_committed_value
from sqlalchemy.exc import IntegrityError

from .database import DriverStatement, begin_write, driver_connection
from .extensions import db
from .lru import LRU
from .models import CorrectionRow, EntryRow, GameRow, IdempotencyRow, PlayerRow, RollOffRow, TurnRow, utcnow
from .rules import Choice, Game, InvalidTurnError, Play, RuleSet, RulesError, build_rules, clean_names, first_player
from .rules.game import name_key



class GameNotFound(LookupError):
    """No game has this id."""


class Unauthorized(PermissionError):
    """No write token was sent (401)."""


class Forbidden(PermissionError):
    """The token is not this game's (403)."""


class Conflict(Exception):
    """The change does not fit the game's current state (409)."""

    def __init__(self, message: str, field: str | None = None):
        super().__init__(message)
        self.message, self.field = message, field


class TooManyCorrections(Conflict):
    """The game has had as many corrections as one game keeps (409)."""


class TooManyGames(Exception):
    """GAMES_PER_MINUTE reached for this client address (429)."""

    def __init__(self, message: str, retry_after: int):
        super().__init__(message)
        self.message, self.retry_after = message, retry_after


class PreconditionFailed(Exception):
    """If-Match named a version that is no longer current (412)."""


#: How long the answer to a write is kept for retries with its Idempotency-Key.
IDEMPOTENCY_TTL = timedelta(hours=24)


@dataclass
class Idempotency:
    """A write sent with an ``Idempotency-Key`` (IETF httpapi draft semantics).

    ``fingerprint`` identifies the request (method, path, body); ``render``
    makes the answer (status, JSON body, ETag) from the game as written,
    stored in the same transaction as the change.
    """

    key: str
    fingerprint: str
    render: Callable[[GameRow, Game], tuple[int, str, str]]
    stored: tuple[int, str, str] | None = None


class Replay(Exception):
    """This key's write was applied before: answer as then, apply nothing."""

    def __init__(self, status: int, body: str, etag: str):
        super().__init__(status)
        self.status, self.body, self.etag = status, body, etag


class IdempotencyMismatch(Exception):
    """The key was used before with another request (422)."""


# -- tokens ---------------------------------------------------------------------

def new_token() -> str:
    """A write secret: 256 random bits, URL-safe."""
    return secrets.token_urlsafe(32)


def hash_token(token: str) -> str:
    """Only this is stored; a leaked database gives no write access."""
    return hashlib.sha256(token.encode("utf-8")).hexdigest()


def check_token(game: GameRow, token: str | None) -> None:
    """Raise Unauthorized without a token, Forbidden with the wrong one."""
    if not token:
        raise Unauthorized()
    if not hmac.compare_digest(hash_token(token), game.token_hash):
        raise Forbidden()


# -- state ------------------------------------------------------------------------

def rules_of(game: GameRow) -> RuleSet:
    return build_rules(game.rules)


class States(LRU[tuple, Game]):
    """The replayed state of each game version this worker has written or read: a version never changes.

    Keyed by :func:`version_key`. A write finds the state of the version it
    locked here instead of reading every entry of the game and replaying
    them; a version this worker has not seen (another worker wrote it) is
    replayed as before. Held states are never handed out, only copies.
    """


def states() -> States:
    """This app's :class:`States` (one per worker process)."""
    return States.of_app("anotador.states", "GAME_STATES")


class Names(LRU[str, tuple]):
    """Each game's player names in seat order, by game id: a game's players never change once it is made."""


def names_of(game: GameRow) -> tuple[str, ...]:
    """The players' names in seat order; read from the database once per worker and game."""
    kept = Names.of_app("anotador.names", "GAME_STATES")
    names = kept.get(game.id)
    if names is None:
        names = tuple(p.name for p in game.players)  # loads them: the write's lock leaves them out
        kept.put(game.id, names)
    return names


def version_key(game: GameRow) -> tuple:
    """What names this version of the game in the workers' caches: its id, version and when it was made.

    A backup restored and played on could reach a version number again,
    never at the same instant.
    """
    return game.id, game.version, iso(game.updated_at)


def state_of(game: GameRow) -> Game:
    """The engine's state of ``game`` as stored: this worker's copy of the version, or a replay."""
    key = version_key(game)
    kept = states().get(key)
    if kept is None:
        kept = replayed(game)
        states().put(key, kept)
    return kept.copy()


def replayed(game: GameRow) -> Game:
    """Rebuild the engine's state of ``game`` from its stored entries.

    Each query reads the game's version beside what it replays, in one
    statement, so one snapshot: if that is not the version of ``game`` as
    read (PostgreSQL, outside a lock or a snapshot read: another write
    landed in between), this raises :class:`Moved` rather than replay one
    version's entries as another's, a state that the caches would keep.
    """
    state = Game(rules_of(game), len(names_of(game)), game.start)
    for version, player, box, points, scratch, bonus in _at(game, _ENTRIES):
        if player is None:
            continue  # the game's own row: no entries yet
        state.sheets[player][box] = points
        state.bonuses[player] += bonus or 0
        if scratch or points == 0:  # a number box scored 0 is a scratch (RULES.md)
            state.scratched[player].add(box)
    state.turns = game.turns
    if game.reason == "instant_win":
        state.instant_winner = game.winners[0]
    if state.turns >= state.total_turns:  # roll-offs only follow a full game
        state.roll_offs = [(player, tuple(dice)) for _, player, dice in _at(game, _ROLL_OFFS) if player is not None]
    return state


class Moved(Conflict):
    """The game changed between reading its row and reading what it holds: read it again."""

    def __init__(self) -> None:
        super().__init__("This game changed while it was read; try again.")


def _at(game: GameRow, query) -> list:
    """The rows of ``query`` (the game's version first in each), if the game is still at ``game.version``."""
    rows = db.session.execute(query, {"game": game.id}).all()
    if not rows or rows[0][0] != game.version:  # no row at all: the game is gone
        raise Moved()
    return rows


_GAMES, _ENTRY, _ROLL = GameRow.__table__, EntryRow.__table__, RollOffRow.__table__
#: What a replay reads: the game's version beside each of its entries (one row of NULLs when none yet),
#: plain rows, not ORM objects.
_ENTRIES = select(_GAMES.c.version, *(_ENTRY.c[c] for c in ("player", "box", "points", "scratch", "bonus"))) \
    .select_from(_GAMES.outerjoin(_ENTRY, _ENTRY.c.game_id == _GAMES.c.id)).where(_GAMES.c.id == bindparam("game"))
#: ... and its roll-off rolls in order.
_ROLL_OFFS = select(_GAMES.c.version, _ROLL.c.player, _ROLL.c.dice) \
    .select_from(_GAMES.outerjoin(_ROLL, _ROLL.c.game_id == _GAMES.c.id)).where(_GAMES.c.id == bindparam("game")) \
    .order_by(_ROLL.c.seq)


def _apply_outcome(game: GameRow, state: Game) -> None:
    """Write where the game stands now (one UPDATE), and show it on the loaded row without a flush."""
    values = _outcome(game, state)
    _move(game, values)
    _show(game, values)


def _move(game: GameRow, values: dict[str, Any]) -> None:
    """The one UPDATE of the game row that every write makes, on the game this write has locked.

    Core statements run on the session's connection, not through the
    session: its ORM layer costs about 20 us a statement, inside SQLite's
    write lock. (A turn moves the game in :func:`_turn_writes`.)
    """
    db.session.connection().execute(_move_statement(tuple(values), False), _move_params(game, values))


def _move_params(game: GameRow, values: dict[str, Any], expected: int | None = None) -> dict[str, Any]:
    """The parameters of :func:`_move_statement`: the game, the version it must be at, its new ``values``."""
    return {"game": game.id, "expected": expected} | {f"game_{k}": v for k, v in values.items()}


@functools.cache
def _move_statement(columns: tuple[str, ...], guarded: bool):
    """The game row's UPDATE of ``columns``, built once with bound parameters.

    Statements are built once throughout this module: on SQLite, building
    this UPDATE cost twice what running it did (450 us against 140 us), all
    of it inside the write lock.
    """
    games = GameRow.__table__
    where = [games.c.id == bindparam("game")] + ([games.c.version == bindparam("expected")] if guarded else [])
    return update(games).where(*where).values({c: bindparam(f"game_{c}") for c in columns})


def _outcome(game: GameRow, state: Game) -> dict[str, Any]:
    """The game row's columns once ``state`` is stored: where it stands, and the next version."""
    out = state.outcome()
    return {"status": out.status, "winners": list(out.winners), "reason": out.reason, "turns": state.turns,
            "version": game.version + 1, "updated_at": utcnow()}


def _show(game: GameRow, values: dict[str, Any]) -> None:
    """Set what was written on the loaded row, as stored: no flush, no read back."""
    for name, value in values.items():
        set_committed_value(game, name, value)


# -- reading ----------------------------------------------------------------------

def _possible_id(game_id: Any) -> bool:
    """Whether ``game_id`` could name a game at all (ids are short strings)."""
    return isinstance(game_id, str) and len(game_id) <= 32


def get(game_id: str) -> GameRow:
    """The game's row, for a request that only reads.

    On PostgreSQL the request's reads become one snapshot (REPEATABLE READ,
    read only: nothing to conflict with), as a read transaction is on SQLite:
    what it reads next (the entries a replay needs, the turns, corrections
    and roll-offs of the history) is of the version this row names, even
    while a write lands.
    """
    if _postgres() and not db.session().in_transaction():
        db.session.connection(execution_options={"isolation_level": "REPEATABLE READ"})
    game = db.session.get(GameRow, game_id) if _possible_id(game_id) else None
    if game is None:
        raise GameNotFound(game_id)
    return game


def head_of(game_id: str) -> tuple[int, str]:
    """The current version and when it was made: all a poll needs, by the primary key alone.

    On the app's :class:`~service.database.Heads` (a plain connection) where
    it can; through the session otherwise (an in-memory SQLite database).
    """
    if not _possible_id(game_id):
        raise GameNotFound(game_id)
    heads = current_app.extensions["anotador.heads"]
    if heads.enabled:
        row = heads.get(game_id)
    else:
        row = db.session.execute(select(GameRow.version, GameRow.updated_at).where(GameRow.id == game_id)).first()
    if row is None:
        raise GameNotFound(game_id)
    return row[0], iso_stored(row[1])


def iso_stored(made: datetime | str) -> str:
    """:func:`iso` of a time as a plain driver connection hands it back (sqlite3: the text SQLAlchemy stored)."""
    if isinstance(made, str):
        made = datetime.fromisoformat(made)
    return iso(made)


def turns_of(game: GameRow) -> list[TurnRow]:
    return list(db.session.scalars(select(TurnRow).where(TurnRow.game_id == game.id).order_by(TurnRow.number)))


def corrections_of(game: GameRow) -> dict[int, list[CorrectionRow]]:
    """Turn id → what that turn was before each correction, oldest first."""
    out: dict[int, list[CorrectionRow]] = {}
    for row in db.session.scalars(
            select(CorrectionRow).where(CorrectionRow.game_id == game.id).order_by(CorrectionRow.id)):
        out.setdefault(row.turn_id, []).append(row)
    return out


def roll_offs_of(game: GameRow) -> list[RollOffRow]:
    return list(db.session.scalars(
        select(RollOffRow).where(RollOffRow.game_id == game.id).order_by(RollOffRow.seq)))


# -- writing ----------------------------------------------------------------------

def create(rules: RuleSet, names: Any, first_rolls: Any, creator: str | None = None) -> tuple[GameRow, str]:
    """Create a game; return it and its write token (shown once).

    ``creator`` (a keyed hash of the client address) counts against
    ``GAMES_PER_MINUTE``.
    """
    players = clean_names(names, rules.variant.min_players)
    start = first_player(rules, first_rolls, len(players))
    # A writer like any other: on SQLite, an INSERT in a transaction begun as
    # a reader waited for the write lock in SQLite's own busy handler (sleeps
    # of up to 100 ms) instead of in line, and the rate check and the insert
    # are one step.
    begin_write()
    if creator is not None:
        _check_rate(creator)
    token = new_token()
    game = GameRow(
        id=secrets.token_urlsafe(12), token_hash=hash_token(token), rules=rules.spec(), start=start,
        turns=0, status="playing", winners=[], reason=None, version=1, creator=creator,
    )
    game.players = [PlayerRow(seat=i, name=name, name_key=name_key(name)) for i, name in enumerate(players)]
    db.session.add(game)
    db.session.commit()
    return game, token


def _check_rate(creator: str) -> None:
    """Refuse a game past GAMES_PER_MINUTE from one address, saying when to try again."""
    limit = current_app.config["GAMES_PER_MINUTE"]
    if not limit:
        return
    now = utcnow()
    since = now - timedelta(minutes=1)
    recent = list(db.session.scalars(
        select(GameRow.created_at).where(GameRow.creator == creator, GameRow.created_at > since)
        .order_by(GameRow.created_at.desc()).limit(limit)))
    if len(recent) >= limit:
        oldest = recent[-1] if recent[-1].tzinfo else recent[-1].replace(tzinfo=timezone.utc)
        wait = max(1, math.ceil((oldest + timedelta(minutes=1) - now).total_seconds()))
        raise TooManyGames(f"This address has created {limit} games in the last minute; try again in {wait} s.",
                           wait)


#: The game row alone (its players' names come from names_of: they never change)...
_READ = select(GameRow).where(GameRow.id == bindparam("game"))
#: ... and locked.
_LOCK = _READ.with_for_update()


def _lock(game_id: str, token: str | None, if_match: Any, idem: Idempotency | None = None) -> GameRow:
    """Begin a write: lock the game, check the token, replay a known key, check If-Match.

    The key is looked up under the game's lock, so a retry racing its own
    original waits for it and then replays its answer. It comes before
    If-Match: the original changed the version a retry still names.
    """
    begin_write()
    return _checked(_LOCK, game_id, token, if_match, idem)


def _checked(statement, game_id: str, token: str | None, if_match: Any, idem: Idempotency | None) -> GameRow:
    """The game read with ``statement``, once the token, a known key and If-Match are checked.

    Read without a lock (:data:`_READ`), a keyed request's stored answer
    comes in the same statement (:data:`_READ_KEYED`): one round trip, and
    the row and the key of one moment. Under the lock the key needs a
    statement of its own, after the lock is had: a join would read the key
    as it was before a concurrent original committed.
    """
    if not _possible_id(game_id):
        raise GameNotFound(game_id)
    stored = None
    if idem is not None and statement is _READ:
        row = db.session.execute(_READ_KEYED, {"game": game_id, "key": idem.key}).first()
        game, stored = (None, None) if row is None else (row[0], row[1:])
    else:
        game = db.session.scalars(statement, {"game": game_id}).first()
    if game is None:
        raise GameNotFound(game_id)
    check_token(game, token)
    if idem is not None:
        if statement is not _READ:
            stored = db.session.execute(_KEY_ROW, {"game": game.id, "key": idem.key}).first()
        if stored is not None and stored[0] is not None:
            _replay(idem, *stored)
    if if_match is not None and str(game.version) not in if_match and "*" not in if_match:
        raise PreconditionFailed()
    return game


def _replay(idem: Idempotency, fingerprint: str, status: int, body: str, etag: str) -> None:
    """Answer a key's write again as it was answered, writing nothing; refuse a key reused for another request."""
    db.session.rollback()  # nothing to write: let the game go
    if fingerprint != idem.fingerprint:
        raise IdempotencyMismatch()
    raise Replay(status, body, etag)


def _remember(game: GameRow, state: Game, idem: Idempotency | None, answer: tuple | None = None) -> None:
    """Store the answer (``answer``, or rendered now) under the key, in the write's transaction; forget keys past
    their day."""
    params = _key_params(game, state, idem, answer)
    if params is None:
        return
    conn = db.session.connection()
    old = _forgets(game, params)
    if _postgres():
        conn.execute(_REMEMBER_AND_FORGET if old else _REMEMBER, params)  # one round trip
        return
    if old:
        conn.execute(_FORGET, params)
    conn.execute(_REMEMBER, params)


def _forgets(game: GameRow, keyed: dict | None) -> bool:
    """Whether a write keyed with ``keyed`` (:func:`_key_params`) should forget the game's keys past their day.

    A key is never older than its game: a game younger than a day has none.
    """
    return keyed is not None and _aware(game.created_at) < keyed["expired"]


def _key_params(game: GameRow, state: Game, idem: Idempotency | None, answer: tuple | None) -> dict | None:
    """What :data:`_REMEMBER` and :data:`_FORGET` store and forget for a keyed write (None without a key)."""
    if idem is None:
        return None
    status, body, etag = idem.stored = answer or idem.render(game, state)
    now = utcnow()
    return {"game": game.id, "key": idem.key, "fingerprint": idem.fingerprint, "status": status, "body": body,
            "etag": etag, "created_at": now, "expired": now - IDEMPOTENCY_TTL}


def _postgres() -> bool:
    """Whether the session's database is PostgreSQL: a round trip costs more there than a statement."""
    return db.session.get_bind().dialect.name == "postgresql"


_KEYS = IdempotencyRow.__table__
#: A key's stored answer.
_KEY_ROW = select(_KEYS.c.fingerprint, _KEYS.c.status, _KEYS.c.body, _KEYS.c.etag).where(
    _KEYS.c.game_id == bindparam("game"), _KEYS.c.key == bindparam("key"))
#: The game row and, beside it, a key's stored answer (NULLs when there is none).
_READ_KEYED = select(GameRow, *_KEY_ROW.selected_columns).outerjoin(
    _KEYS, (_KEYS.c.game_id == GameRow.id) & (_KEYS.c.key == bindparam("key"))).where(GameRow.id == bindparam("game"))
#: The keys of a game past their day.
_FORGET = delete(_KEYS).where(_KEYS.c.game_id == bindparam("game"), _KEYS.c.created_at < bindparam("expired"))
#: What a key's row holds beside its game...
_STORED = ("key", "fingerprint", "status", "body", "etag", "created_at")
#: ... stored: a write's answer under its key.
_REMEMBER = insert(_KEYS).values({"game_id": bindparam("game"), **{c: bindparam(c) for c in _STORED}})
#: PostgreSQL: both in one statement (the DELETE as a data-modifying WITH query).
_REMEMBER_AND_FORGET = _REMEMBER.add_cte(_FORGET.cte("forgotten"))


def _commit(game: GameRow, state: Game) -> None:
    """Commit the write; keep its state as the new version's (the next write starts from it)."""
    db.session.commit()
    states().put(version_key(game), state.copy())


def _writes(change: Callable) -> Callable:
    """Mark a change of a game: a row the database's own constraints refuse is a 409, and nothing is kept.

    The constraints catch what the checks did not see (a row written behind
    the application's back, a concurrent writer), whichever statement of the
    write meets them.
    """

    @functools.wraps(change)
    def guarded(*args, **kwargs):
        try:
            return change(*args, **kwargs)
        except IntegrityError:
            db.session.rollback()
            raise Conflict("Another change to this game landed first; reload and try again.") from None

    return guarded


def _entries(game: GameRow, play: Play) -> list[EntryRow]:
    """The rows a played turn writes, one per box it filled."""
    return [EntryRow(game_id=game.id, player=play.player, box=p.category, points=p.points, scratch=p.scratch,
                     dice=None if p.dice is None else list(p.dice), bonus=p.bonus)
            for p in play.boxes]


def entry_json(entry: EntryRow) -> dict[str, Any]:
    """A box a turn filled, as the history shows it."""
    return {"category": entry.box, "points": entry.points, "scratch": entry.scratch, "dice": entry.dice,
            "bonus": entry.bonus or 0}


def _turn_writes(game: GameRow, number: int, play: Play, outcome: dict[str, Any], expected: int | None = None,
                 keyed: dict | None = None) -> Callable[[], bool]:
    """A played turn's writes, ready to run in the write transaction its caller begins.

    They insert the turn and its entries, move the game on to ``outcome``
    and, with ``keyed`` (from :func:`_key_params`), store the answer under
    its key. Everything is built before anything is locked. PostgreSQL: one
    statement (:func:`_turn_statement`), one round trip. SQLite, in
    process: the statements one by one, straight to the driver
    (:class:`DriverStatement`), as few Python steps as can be inside the
    lock every writer waits for. With ``expected``, the function writes
    only if the game is still at that version, and says whether it wrote.
    """
    turn = {"game_id": game.id, "number": number, "player": play.player, "round": play.round,
            "dice": None if play.dice is None else list(play.dice), "served": play.served,
            "recorded_at": outcome["updated_at"]}
    boxes = [{"game_id": game.id, "player": play.player, "box": p.category, "points": p.points,
              "scratch": p.scratch, "dice": None if p.dice is None else list(p.dice), "bonus": p.bonus}
             for p in play.boxes]
    forget = _forgets(game, keyed)
    if _postgres():
        params = {f"turn_{k}": v for k, v in turn.items()} | _move_params(game, outcome, expected)
        if keyed is not None:  # prefixed: a bare "created_at" would join the game's SET clause
            params |= {f"key_{k}": v for k, v in keyed.items()} | {"expired": keyed["expired"]}
        for i, box in enumerate(boxes):
            params |= {f"box{i}_{k}": v for k, v in box.items()}
        statement = _turn_statement(tuple(turn), tuple(boxes[0]), len(boxes), tuple(outcome), expected is not None,
                                    keyed is not None, forget)
        return lambda: db.session.execute(statement, params).rowcount == len(boxes)

    move = DriverStatement.of(_move_statement(tuple(outcome), expected is not None), ())
    moved = move.row(_move_params(game, outcome, expected))
    insert_turn = DriverStatement.of(_INSERT_TURN, tuple(turn))
    turn_row = insert_turn.row(turn)
    insert_entry = DriverStatement.of(_INSERT_ENTRY, ("turn_id", *boxes[0]))
    at = insert_entry.names.index("turn_id")  # filled in once the turn has its id
    entry_rows = [insert_entry.row({**box, "turn_id": None}) for box in boxes]
    keys = []  # the answer under its key, once the keys past their day are forgotten
    for statement in ((_FORGET,) if forget else ()) + ((_REMEMBER,) if keyed is not None else ()):
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


_INSERT_TURN = insert(TurnRow.__table__)
_INSERT_ENTRY = insert(EntryRow.__table__)


@functools.cache
def _turn_statement(turn: tuple[str, ...], entry: tuple[str, ...], boxes: int, outcome: tuple[str, ...],
                    guarded: bool, keyed: bool, forget: bool):
    """PostgreSQL: a turn, its ``boxes`` entries and the game's update in one statement, built once per shape.

    ``turn``, ``entry`` and ``outcome`` name the columns :func:`_turn_writes`
    fills, so the statement always writes what the SQLite path writes. The
    game's update, the turn and (``keyed``) the answer under its key are
    data-modifying WITH queries, each row taken from the one before: with
    ``guarded``, the game moves only from version ``expected``, and if it
    does not, nothing else is written either (the statement inserts no
    entry). With ``forget``, the game's keys past their day are deleted too.
    Bound parameters only, so each request just fills them in.
    """
    turns, entries = TurnRow.__table__, EntryRow.__table__
    moved = _move_statement(outcome, guarded).returning(GameRow.__table__.c.id).cte("moved")
    written = insert(turns).from_select(
        list(turn), select(*(bindparam(f"turn_{c}", type_=turns.c[c].type) for c in turn)).select_from(moved)) \
        .returning(turns.c.id).cte("written")
    rows = [select(written.c.id, *(bindparam(f"box{i}_{c}", type_=entries.c[c].type) for c in entry))
            for i in range(boxes)]
    statement = insert(entries).from_select(["turn_id", *entry], union_all(*rows) if boxes > 1 else rows[0])
    if keyed:
        remembered = insert(_KEYS).from_select(
            ["game_id", *_STORED],
            select(moved.c.id, *(bindparam(f"key_{c}", type_=_KEYS.c[c].type) for c in _STORED)))
        statement = statement.add_cte(remembered.cte("remembered"), *([_FORGET.cte("forgotten")] if forget else []))
    return statement.execution_options(preserve_rowcount=True)  # SQLAlchemy keeps an INSERT's count only if asked


@_writes
def record_turn(game_id: str, token: str | None, if_match: Any, data: dict[str, Any],
                idem: Idempotency | None = None) -> tuple[GameRow, Game]:
    """Record the next turn; the engine checks whose turn and which boxes.

    A turn is first played on the game as read, without a lock, and stored
    only if the game is still at that version (:func:`_turn_unlocked`); if
    other writes keep landing first, it takes the lock like every other write.
    """
    for _ in range(UNLOCKED_TRIES):
        done = _turn_unlocked(game_id, token, if_match, data, idem)
        if done is not None:
            return done
    game = _lock(game_id, token, if_match, idem)
    state, play, outcome = _played(game, data)
    _show(game, outcome)  # before the answer under a key is rendered
    _turn_writes(game, state.turns, play, outcome, keyed=_key_params(game, state, idem, None))()
    _commit(game, state)
    return game, state


#: How often a turn starts again from a newer version before it takes the lock.
UNLOCKED_TRIES = 3


def _played(game: GameRow, data: dict[str, Any]) -> tuple[Game, Play, dict[str, Any]]:
    """The engine's state after the turn in ``data``, the turn as played, and the game row's new columns."""
    state = state_of(game)
    choices = turn_choices(data, state.rules)
    play = state.play(data["player"], data.get("dice"), data.get("served", False), choices)
    return state, play, _outcome(game, state)


def _turn_unlocked(game_id: str, token: str | None, if_match: Any, data: dict[str, Any],
                   idem: Idempotency | None) -> tuple[GameRow, Game] | None:
    """Check and play the turn on the game as read, then store it only if the game is still at that version.

    Everything but the writes (the checks, a replay of the game, a keyed
    answer's rendering) happens before anything is locked. None, with
    nothing written, when another write landed first.

    SQLite: the reads are one read transaction; then the turn takes the
    write lock, which every writer of the database shares, only to write.
    PostgreSQL: every statement stands alone (autocommit), the game's row is
    never locked, and the turn is stored by one statement that moves the
    game from the version read or writes nothing: two round trips for a turn
    instead of four (BEGIN, the lock, the write, COMMIT).
    """
    postgres = _postgres()
    if postgres:
        db.session.connection(execution_options={"isolation_level": "AUTOCOMMIT"})
    try:
        game = _checked(_READ, game_id, token, if_match, idem)
        names_of(game)  # loaded now: the row leaves the session before the write
        state, play, outcome = _played(game, data)
    except Moved:  # a write landed between the row and its entries
        db.session.rollback()
        return None
    expected = game.version
    _show(game, outcome)
    answer = None if idem is None else idem.render(game, state)
    db.session.expunge(game)
    if not _store(game, state, play, outcome, expected, idem, answer, postgres):
        db.session.rollback()
        return None
    _commit(game, state)
    return game, state


def _store(game: GameRow, state: Game, play: Play, outcome: dict[str, Any], expected: int, idem: Idempotency | None,
           answer: tuple | None, postgres: bool) -> bool:
    """The writes of :func:`_turn_unlocked`, if the game is still at version ``expected``."""
    write = _turn_writes(game, state.turns, play, outcome, expected, _key_params(game, state, idem, answer))
    if not postgres:
        db.session.rollback()  # the read ends; the write begins as a writer
        begin_write()
    return write()


@_writes
def undo_last(game_id: str, token: str | None, if_match: Any,
              idem: Idempotency | None = None) -> tuple[GameRow, Game]:
    """Remove the last turn (an instant win included) and any roll-off after it."""
    game = _lock(game_id, token, if_match, idem)
    last = db.session.scalars(
        select(TurnRow).where(TurnRow.game_id == game.id).order_by(TurnRow.number.desc()).limit(1)).first()
    if last is None:
        raise Conflict("No turn has been recorded yet: there is nothing to undo.")
    db.session.execute(delete(RollOffRow).where(RollOffRow.game_id == game.id))
    db.session.execute(delete(EntryRow).where(EntryRow.turn_id == last.id))
    db.session.execute(delete(TurnRow).where(TurnRow.id == last.id))
    game.reason = None  # a finished game plays again from here
    state = replayed(game)  # what is left once the turn is gone, not the kept state with it
    state.turns = game.turns - 1
    state.instant_winner = None
    state.roll_offs = []
    _apply_outcome(game, state)
    _remember(game, state, idem)
    _commit(game, state)
    return game, state


def turn_choices(data: dict[str, Any], rules: RuleSet) -> list[Choice]:
    """The boxes a turn fills, from ``category``/``scratch`` (one box) or ``boxes``."""
    n = rules.boxes_per_turn
    if n == 1:
        if "boxes" in data:
            raise InvalidTurnError(f"{rules.variant.id} fills one box a turn: send category.", "boxes")
        if "category" not in data:
            raise InvalidTurnError("Name the box this turn goes in.", "category")
        return [Choice(data["category"], data.get("scratch", False))]
    if "category" in data:
        raise InvalidTurnError(f"{rules.variant.id} fills {n} boxes a turn: send boxes.", "category")
    if "boxes" not in data:
        raise InvalidTurnError(f"Name the {n} boxes this turn fills.", "boxes")
    return [Choice(b["category"], b.get("scratch", False), None if b.get("dice") is None else tuple(b["dice"]))
            for b in data["boxes"]]


def _choices_of(turn: TurnRow) -> list[Choice]:
    return [Choice(e.box, e.scratch, None if e.dice is None else tuple(e.dice)) for e in turn.entries]


@_writes
def correct_turn(game_id: str, token: str | None, if_match: Any, number: int,
                 data: dict[str, Any], idem: Idempotency | None = None) -> tuple[GameRow, Game]:
    """Correct turn ``number`` and re-check every turn from the start.

    ``data`` may hold ``dice``, ``served``, and the box (``category`` and
    ``scratch``, or ``boxes``); what it does not hold stays as recorded. A
    correction that a later turn no longer fits is refused whole (409),
    naming that turn.
    """
    game = _lock(game_id, token, if_match, idem)
    turns = turns_of(game)
    if not 1 <= number <= len(turns):
        raise GameNotFound(f"turn {number}")
    limit = current_app.config["MAX_CORRECTIONS"]
    done = db.session.scalar(select(func.count()).select_from(CorrectionRow).where(CorrectionRow.game_id == game.id))
    if done >= limit:
        raise TooManyCorrections(f"This game has had {done} corrections, the most one game keeps ({limit}); "
                                 "start a new game to go on.")
    target = turns[number - 1]
    if "player" in data and data["player"] != target.player:
        raise InvalidTurnError(
            f"Turn {number} was player {target.player}'s; a correction cannot change whose turn it was.", "player")
    if "scratch" in data and "category" not in data:
        raise InvalidTurnError("Send the category with scratch.", "scratch")
    if not {"dice", "served", "category", "boxes"} & set(data):
        raise InvalidTurnError("Send what to correct: dice, served, category or boxes.", None)
    rules = rules_of(game)
    choices = turn_choices(data, rules) if {"category", "boxes"} & set(data) else _choices_of(target)
    history = [(t.player, t.dice, t.served, _choices_of(t)) for t in turns]
    new = (target.player, data.get("dice", target.dice), data.get("served", target.served), choices)
    history[number - 1] = new
    before = state_of(game)
    try:
        state, plays = Game.replay(rules, len(names_of(game)), game.start, history)
    except RulesError as exc:
        at = getattr(exc, "turn", number)
        if at == number:
            raise  # the corrected turn itself is wrong: a validation error
        raise Conflict(f"With this correction turn {at} no longer fits: {exc.message}", "turn") from None

    db.session.add(CorrectionRow(game_id=game.id, turn_id=target.id, dice=target.dice, served=target.served,
                                 boxes=[entry_json(e) for e in target.entries],
                                 recorded_at=target.corrected_at or target.recorded_at))
    target.dice = None if new[1] is None else list(new[1])
    target.served = bool(new[2])
    target.corrected_at = utcnow()
    # Later turns keep their boxes but their points follow the corrected
    # sheet (a double generala, an instant win); rewrite every entry.
    db.session.execute(delete(EntryRow).where(EntryRow.game_id == game.id))
    db.session.flush()
    for turn, play in zip(turns, plays):
        for entry in _entries(game, play):
            entry.turn_id = turn.id
            db.session.add(entry)
    # Roll-off rolls settle one tie; if the correction changed who is tied,
    # they no longer mean anything.
    if before.roll_offs and before.leaders() == state.leaders():
        state.roll_offs = before.roll_offs
    elif before.roll_offs:
        db.session.execute(delete(RollOffRow).where(RollOffRow.game_id == game.id))
    _apply_outcome(game, state)
    db.session.expire(target, ["entries"])
    _remember(game, state, idem)
    _commit(game, state)
    return game, state


@_writes
def roll_off(game_id: str, token: str | None, if_match: Any, player: int, dice: Any,
             idem: Idempotency | None = None) -> tuple[GameRow, Game]:
    """Record one tie-break roll; the game ends when one player is highest."""
    game = _lock(game_id, token, if_match, idem)
    state = state_of(game)
    state.roll_off(player, dice)
    db.session.add(RollOffRow(game_id=game.id, seq=len(state.roll_offs), player=player, dice=list(dice)))
    _apply_outcome(game, state)
    _remember(game, state, idem)
    _commit(game, state)
    return game, state


def iso(dt: datetime | None) -> str | None:
    """An RFC 3339 UTC timestamp (``...Z``), or None."""
    if dt is None:
        return None
    return _aware(dt).isoformat().replace("+00:00", "Z")


def _aware(dt: datetime) -> datetime:
    """``dt`` in UTC: SQLite hands back naive datetimes it stored as UTC."""
    return dt.replace(tzinfo=timezone.utc) if dt.tzinfo is None else dt


# -- retention ----------------------------------------------------------------------

def purge(finished_age: timedelta, untouched_age: timedelta, dry_run: bool = False,
          batch: int = 500) -> dict[str, int]:
    """Delete finished games older than ``finished_age`` and unfinished ones untouched for ``untouched_age``.

    Ages count from the last change (``updated_at``). Deleting a game
    deletes its players, turns, entries, corrections and roll-offs (the
    foreign keys cascade). In batches, so no lock is held long.
    """
    now = utcnow()
    rules = {
        "finished": (GameRow.status == "finished") & (GameRow.updated_at < now - finished_age),
        "abandoned": (GameRow.status != "finished") & (GameRow.updated_at < now - untouched_age),
    }
    counts = {}
    for kind, where in rules.items():
        if dry_run:
            counts[kind] = db.session.scalar(select(func.count()).select_from(GameRow).where(where))
            continue
        counts[kind] = 0
        while True:
            ids = list(db.session.scalars(select(GameRow.id).where(where).limit(batch)))
            db.session.rollback()  # end the read; the delete takes the write lock
            if not ids:
                break
            begin_write()
            # checked again under the lock: a turn may have landed meanwhile
            result = db.session.execute(delete(GameRow).where(GameRow.id.in_(ids), where))
            db.session.commit()
            counts[kind] += result.rowcount
    db.session.rollback()
    return counts
