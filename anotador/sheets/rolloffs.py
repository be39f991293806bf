"""Recording a roll-off roll: players tied at the end roll again until one is highest."""

from __future__ import annotations

from typing import Any

from ..extensions import db
from ..store.models import RollOffRow
from ..store.transactions import writing
from .keys import Idempotency, Written
from .rows import apply_outcome
from .standings import follow
from .state import keep, state_of
from .writes import lock, remember, writes


@writes
def roll_off(game_id: str, token: str | None, if_match: Any, player: int, dice: Any,
             idem: Idempotency | None = None) -> Written:
    """Record one tie-break roll; the game ends when one player is highest."""
    with writing():
        game = lock(game_id, token, if_match, idem)
        state = state_of(game)
        state.roll_off(player, dice)
        db.session.add(RollOffRow(game_id=game.id, seq=len(state.roll_offs), player=player, dice=list(dice)))
        apply_outcome(game, state)
        answer = remember(game, state, idem)
        follow(game, state)  # a table's standings, in this transaction
    keep(game, state)
    return Written(game, state, answer)
