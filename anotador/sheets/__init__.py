"""Shared score sheets: every read and write of a stored game, one module per concern.

==================  ===========================================================
where               what it owns
==================  ===========================================================
``create``          a new game, its players and its write token
``creation_keys``   Idempotency-Keys on creating a game (the answer sealed)
``turns``           recording a turn (played unlocked, stored if still current)
``undo``            undoing the last turn
``corrections``     correcting a recorded turn, keeping what it was
``rolloffs``        tie-break rolls after a tied game
``purge``           deleting old games and tables (retention)
``mesas``           tables of regulars: made, read, locked; their players found by name
``regulars``        a table's players renamed and merged
``join``            adding a game to a table afterwards
``standings``       a table's results (kept by every write of its games), standings, history
``writes``          what every write of a game does around its change: lock, check, replay a key
``rows``            the game row's one UPDATE per write
``keys``            Idempotency-Key answers stored with the write; ``Written``, what a write returns
``tokens``          write tokens: made, hashed, compared
``rate``            the per-address limit on new games
``state``           a game's engine state, replayed and kept per version
``reads``           a game's row, its poll head and its history
``backends``        what SQLite and PostgreSQL do differently, behind one interface
``errors``          one exception per reason a request is refused
==================  ===========================================================

Nothing here scores a roll or decides a rule: :mod:`anotador.rules` does.
Every write runs in ``with writing():`` (:mod:`anotador.store.transactions`);
only a turn played unlocked begins and ends its own, in its backend.
The API imports what it needs from this package's top level.
"""

from __future__ import annotations

from .corrections import correct_turn
from .create import create
from .creation_keys import creation_key
from .errors import (BadQuery, Conflict, Forbidden, GameNotFound, IdempotencyMismatch, InOtherMesa, MesaForbidden,
                     MesaNotFound, MesaUnauthorized, Moved, NameTaken, PreconditionFailed, SameRegular,
                     TooManyCorrections, TooManyGames, TooManyNames, Unauthorized, UnknownRegular)
from .join import join_mesa
from .mesas import create_mesa, get_mesa, mesa_head, players_of, usual_players
from .regulars import merge, rename
from .standings import all_games, history, read_cursor, rule_sets, standings
from .keys import IDEMPOTENCY_TTL, Answer, Idempotency, Written
from .purge import purge
from .reads import corrections_of, entry_json, get, head_of, recorded_turns, roll_offs_of, turns_of
from .rolloffs import roll_off
from .state import apply_entry, names_of, replayed, rules_of, state_of, states, version_key
from .times import iso, iso_stored
from .tokens import check_token, hash_token, new_token
from .turns import UNLOCKED_TRIES, record_turn, turn_choices
from .undo import undo_last

__all__ = [
    "BadQuery", "InOtherMesa", "MesaForbidden", "MesaNotFound", "MesaUnauthorized", "NameTaken", "SameRegular",
    "UnknownRegular", "all_games", "create_mesa", "get_mesa", "history", "join_mesa", "merge", "mesa_head",
    "players_of", "read_cursor", "rename", "rule_sets", "standings", "usual_players",
    "IDEMPOTENCY_TTL", "UNLOCKED_TRIES", "Conflict", "Forbidden", "GameNotFound", "Idempotency",
    "IdempotencyMismatch", "Moved", "PreconditionFailed", "Written", "Answer", "TooManyCorrections", "TooManyGames", "TooManyNames",
    "Unauthorized", "check_token", "correct_turn", "corrections_of", "create", "creation_key", "entry_json", "get", "hash_token",
    "apply_entry", "head_of", "iso", "iso_stored", "names_of", "new_token", "purge", "record_turn", "recorded_turns", "replayed", "roll_off",
    "roll_offs_of", "rules_of", "state_of", "states", "turn_choices", "turns_of", "undo_last", "version_key",
]
