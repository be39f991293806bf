"""A game's state for the rules engine: replayed from its stored entries, kept per version by each worker.

A version never changes once written, so the replayed state of each
version this worker has written or read is kept (:class:`States`) and
handed out as copies; so are each game's player names (:class:`Names`),
which never change once the game is made.
"""

from __future__ import annotations

from sqlalchemy import bindparam, select

from ..extensions import db
from ..support.lru import LRU
from ..store.models import EntryRow, GameRow, RollOffRow
from ..rules import Game, RuleSet, build_rules
from .errors import Moved
from .times import iso


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


def keep(game: GameRow, state: Game) -> None:
    """Keep ``state`` as the state of the version ``game`` was just written at: the next write starts from it."""
    states().put(version_key(game), state.copy())


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
        apply_entry(state, player, box, points, scratch, bonus)
    state.turns = game.turns
    if game.reason == "instant_win":
        state.instant_winner = game.winners[0]
    if state.turns >= state.total_turns:  # roll-offs only follow a full game
        state.roll_offs = [(player, tuple(dice)) for _, player, dice in _at(game, _ROLL_OFFS) if player is not None]
    return state


def apply_entry(state: Game, player: int, box: str, points: int, scratch: bool, bonus: int | None) -> None:
    """Put one stored entry on the engine's state (the turn count is the caller's)."""
    state.sheets[player][box] = points
    state.bonuses[player] += bonus or 0
    if scratch or points == 0:  # a number box scored 0 is a scratch (RULES.md)
        state.scratched[player].add(box)


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
