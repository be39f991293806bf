"""Recording a turn: the write every table makes most.

The engine checks whose turn it is and which boxes the dice go in. A turn
is first played on the game as read, without a lock, and stored only if
the game is still at that version (:func:`played_unlocked`, in its
database's :meth:`~anotador.sheets.backends.Backend.unlocked_turn`); if
other writes keep landing first, it takes the lock like every other write.
"""

from __future__ import annotations

from enum import Enum
from typing import Any

from ..extensions import db
from ..store.models import GameRow
from ..store.transactions import writing
from ..rules import Choice, Game, InvalidTurnError, Play, RuleSet
from .backends import backend
from .errors import Moved
from .keys import Idempotency, Written, answer_of, key_params
from .rows import outcome, show
from .standings import follow
from .state import keep, names_of, state_of
from .writes import READ, checked, lock, writes

#: How often a turn starts again from a newer version before it takes the lock.
UNLOCKED_TRIES = 3


class Unstored(Enum):
    """Why :func:`played_unlocked` stored nothing."""

    MOVED = "another write landed first: try again from the newer version"
    LOCK = "it ends a table's game, whose standings change in the same transaction: take the lock"


@writes
def record_turn(game_id: str, token: str | None, if_match: Any, data: dict[str, Any],
                idem: Idempotency | None = None) -> Written:
    """Record the next turn (``data`` as the API takes it): the game and its new state."""
    for _ in range(UNLOCKED_TRIES):
        done = played_unlocked(game_id, token, if_match, data, idem)
        if isinstance(done, Written):
            return done
        if done is Unstored.LOCK:
            break
    with writing():
        game = lock(game_id, token, if_match, idem)
        state, play, values = played(game, data)
        show(game, values)  # before the answer under a key is rendered
        answer = answer_of(idem, game, state)
        backend().turn_writes(game, state.turns, play, values, keyed=key_params(game, idem, answer))()
        follow(game, state)  # a table's standings, in this transaction
    keep(game, state)
    return Written(game, state, answer)


def played(game: GameRow, data: dict[str, Any]) -> tuple[Game, Play, dict[str, Any]]:
    """The engine's state after the turn in ``data``, the turn as played, and the game row's new columns."""
    state = state_of(game)
    choices = turn_choices(data, state.rules)
    # With the throws recorded, what is not said (the dice, served) is read from them.
    served = data.get("served", None if "rolls" in data else False)
    play = state.play(data["player"], data.get("dice"), served, choices, data.get("rolls"))
    return state, play, outcome(game, state)


def played_unlocked(game_id: str, token: str | None, if_match: Any, data: dict[str, Any],
                    idem: Idempotency | None) -> Written | Unstored:
    """Check and play the turn on the game as read, then store it only if the game is still at that version.

    Everything but the writes (the checks, a replay of the game, a keyed
    answer's rendering) happens before anything is locked. When nothing is
    stored, the reason (:class:`Unstored`).

    A table's game that this turn would end takes the lock instead (its
    standings change with it), so nothing of a table changes here. How each database reads
    and stores, and where its transactions begin and end, is its
    :meth:`~anotador.sheets.backends.Backend.unlocked_turn`.
    """
    store_with = backend()
    try:
        with store_with.unlocked_turn():
            game = checked(READ, game_id, token, if_match, idem)
            names_of(game)  # loaded now: the row leaves the session before the write
            state, play, values = played(game, data)  # Moved: a write landed between the row and its entries
            if game.mesa_id is not None and values["status"] == "finished":
                return Unstored.LOCK
            expected = game.version
            show(game, values)
            answer = answer_of(idem, game, state)
            db.session.expunge(game)
            store_with.store_turn(
                store_with.turn_writes(game, state.turns, play, values, expected, key_params(game, idem, answer)))
    except Moved:
        return Unstored.MOVED
    keep(game, state)
    return Written(game, state, answer)


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
