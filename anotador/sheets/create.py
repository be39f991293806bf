"""Creating a game: its players, who starts, and its write token (shown once)."""

from __future__ import annotations

import secrets
from typing import Any, Callable

from sqlalchemy.exc import IntegrityError

from ..extensions import db
from ..store.models import GameRow, PlayerRow
from ..store.transactions import reading, writing
from ..rules import RuleSet, clean_names, first_player
from ..rules.game import name_key
from .creation_keys import CreationKey, remember, replay_if_known
from .errors import MesaNotFound
from .keys import Answer, Written
from .mesas import check_mesa_token, get_mesa, lock_row, moved_on, regulars_of
from .rate import check_rate
from .reads import possible_id
from .tokens import hash_token, new_token
from .writes import replayable


@replayable
def create(rules: RuleSet, names: Any, first_rolls: Any, creator: str | None = None,
           key: CreationKey | None = None,
           render: Callable[[GameRow, str], Answer] | None = None,
           mesa: tuple[str, str | None] | None = None) -> Written:
    """Create a game: it, its write token, with ``key`` its answer as ``render`` made it, and the creator's quota.

    ``creator`` (a keyed hash of the client address) counts against
    ``GAMES_PER_MINUTE``. With an Idempotency-Key (``key``), the answer
    (``render(game, token)``) is kept in the same transaction, and a retry
    is answered with it (a replay) before anything is checked or counted
    again. ``mesa`` (a table's id and write token) starts it at that table:
    its players are the table's regulars.
    """
    players = clean_names(names, rules.variant.min_players)
    start = first_player(rules, first_rolls, len(players))
    try:
        # A writer like any other: on SQLite, an INSERT in a transaction begun
        # as a reader waited for the write lock in SQLite's own busy handler
        # (sleeps of up to 100 ms) instead of in line, and the rate check and
        # the insert are one step.
        with writing():
            if key is not None:
                replay_if_known(key)
            if mesa is not None:
                at = _check_mesa(*mesa)
            quota = check_rate(creator) if creator is not None else None
            token = new_token()
            game = GameRow(
                id=secrets.token_urlsafe(12), token_hash=hash_token(token), rules=rules.spec(), start=start,
                turns=0, status="playing", winners=[], reason=None, version=1, creator=creator,
            )
            game.players = [PlayerRow(seat=i, name=name, name_key=name_key(name)) for i, name in enumerate(players)]
            if mesa is not None:
                game.mesa_id = at.id
                regulars_of(players, at.id)
                moved_on(at.id)  # its history shows the new game
            db.session.add(game)
            answer = None
            if key is not None and render is not None:
                answer = render(game, token)
                remember(key, game.id, answer.body, answer.etag)
    except IntegrityError:
        if key is None:
            raise
        # PostgreSQL: a copy of this request with the same key committed first; answer as it was answered.
        with reading():
            replay_if_known(key)
        raise
    return Written(game, None, answer, token=token, quota=quota)


def _check_mesa(mesa_id: str, token: str | None):
    """The table a new game starts at, locked, once its token is checked."""
    if not possible_id(mesa_id):
        raise MesaNotFound(mesa_id)
    lock_row(mesa_id)
    mesa = get_mesa(mesa_id)
    check_mesa_token(mesa, token)
    return mesa
