"""Undoing the last turn (an instant win included), and any roll-off after it."""

from __future__ import annotations

from typing import Any

from sqlalchemy import delete, select

from ..extensions import db
from ..store.models import EntryRow, RollOffRow, TurnRow
from ..store.transactions import writing
from .errors import Conflict
from .keys import Idempotency, Written
from .rows import apply_outcome
from .standings import follow
from .state import keep, replayed
from .writes import lock, remember, writes


@writes
def undo_last(game_id: str, token: str | None, if_match: Any,
              idem: Idempotency | None = None) -> Written:
    """Remove the last turn; a finished game plays again from there."""
    with writing():
        game = lock(game_id, token, if_match, idem)
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
        apply_outcome(game, state)
        answer = remember(game, state, idem)
        follow(game, state)  # a table's standings, in this transaction
    keep(game, state)
    return Written(game, state, answer)
