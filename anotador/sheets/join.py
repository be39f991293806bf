"""Adding a game to a table afterwards: a write of both, by someone who holds both write tokens."""

from __future__ import annotations

from typing import Any

from ..store.models import GameRow
from ..store.transactions import writing
from ..rules import Game
from .errors import InOtherMesa
from .mesas import check_mesa_token, get_mesa, lock_row, moved_on, regulars_of
from .rows import apply_outcome
from .standings import follow
from .state import keep, names_of, state_of
from .writes import lock, writes


@writes
def join_mesa(mesa_id: str, mesa_token: str | None, game_id: str, game_token: str | None,
              if_match: Any = None) -> tuple[GameRow, Game, bool]:
    """Put the game at the table: it, its new state, and whether it moved (False: it was there already).

    The game is locked first, then the table, as every write of a game does
    (:func:`~anotador.sheets.standings.follow`). A finished game counts in
    the standings at once; a game at another table is a conflict.
    """
    with writing():
        game = lock(game_id, game_token, if_match)
        lock_row(mesa_id)
        mesa = get_mesa(mesa_id)
        check_mesa_token(mesa, mesa_token)
        state = state_of(game)
        if game.mesa_id == mesa.id:
            return game, state, False
        if game.mesa_id is not None:
            raise InOtherMesa("This game belongs to another table already.")
        game.mesa_id = mesa.id
        regulars_of(names_of(game), mesa.id)
        moved_on(mesa.id)  # its history shows one game more, finished or not
        apply_outcome(game, state)  # a new version: the game's body names its table
        follow(game, state)  # a table's standings, in this transaction
    keep(game, state)
    return game, state, True
