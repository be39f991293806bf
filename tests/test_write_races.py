"""A turn is played without a lock and stored only if the game is still at the version it read.

Another write that lands in between (another phone, another worker) must
make the turn start again from what that write left, never store a turn
played on a game that no longer exists; and a read must show one version as
it was, never one version's row with another's entries. On SQLite and on
PostgreSQL (where the turn runs in autocommit and its read is not one
snapshot unless the code makes it one).
"""

from __future__ import annotations

import functools

import pytest
from flask import current_app

from anotador import create_app, sheets
import anotador.sheets.backends
import anotador.sheets.state
import anotador.sheets.turns
from anotador.extensions import db
from anotador.store.models import EntryRow, GameRow, TurnRow

from .dbkit import Table, dispose

NAMES = ["Guillermina Fernández de la Serna Ortiz", "李小龍", "Ñandú"]


@pytest.fixture
def two_apps(db_url):
    """Two workers on one database: a and b."""
    apps = [create_app({"TESTING": True, "SQLALCHEMY_DATABASE_URI": db_url, "GAMES_PER_MINUTE": 0})
            for _ in range(2)]
    yield apps
    for app in apps:
        dispose(app)


def before(monkeypatch, app, names, *changes):
    """Run each of ``changes`` (once each, in order) as ``app`` calls any of the functions ``names``
    (``module.function`` or ``module.Class.method`` of anotador.sheets).

    Returns how many changes were left at each such call.
    """
    pending = list(changes)
    calls = []

    def hooked(real):
        def run(*args, **kwargs):
            if current_app._get_current_object() is app:
                calls.append(len(pending))
                if pending:
                    pending.pop(0)()
            return real(*args, **kwargs)
        return run

    for name in names:
        *path, function = name.split(".")
        where = functools.reduce(getattr, path, anotador.sheets)
        monkeypatch.setattr(where, function, hooked(getattr(where, function)))
    return calls


def between_read_and_write(monkeypatch, app, *changes):
    """Run ``changes`` after a turn of ``app`` has read and played the game, just before it stores the turn;
    and before it takes the lock, if it does."""
    stores = ("backends.SQLite.store_turn", "backends.PostgreSQL.store_turn")
    return before(monkeypatch, app, (*stores, "turns.writing"), *changes)


def opened(two_apps):
    """A three-player game whose first player has filled ones, through worker a; the same game seen from b.

    Returns the two clients, the game as each sees it (Tables), and the first and second seats.
    """
    a, b = (app.test_client() for app in two_apps)
    table = Table(a, a.post("/api/v1/games", json={"variant": "generala", "players": NAMES}).get_json())
    first = table.body["first_player"]
    table.turn(first, "ones", [1, 1, 2, 3, 4])
    return a, b, table, Table(b, table.body), first, (first + 1) % 3


def stored_turns(app, game_id):
    with app.app_context():
        turns = db.session.query(TurnRow).filter_by(game_id=game_id).order_by(TurnRow.number).all()
        entries = db.session.query(EntryRow).filter_by(game_id=game_id).count()
        return [(t.number, t.player, t.dice) for t in turns], entries


@pytest.mark.parametrize("key", [None, "tap-1"])
def test_an_undo_that_lands_first_makes_the_turn_start_again_and_fail(two_apps, monkeypatch, key):
    a, b, table, other, first, second = opened(two_apps)
    calls = between_read_and_write(monkeypatch, two_apps[0], lambda: other.undo())
    headers = {**table.auth, **({"Idempotency-Key": key} if key else {})}
    r = a.post(table.url("/turns"), json={"player": second, "category": "ones", "dice": [1, 2, 2, 3, 4]},
               headers=headers)
    # played on version 2, which the undo replaced: played again on version 3, where it is not their turn
    assert r.status_code == 409 and r.mimetype == "application/problem+json", r.get_json()
    assert calls[0] == 1
    assert stored_turns(two_apps[0], table.id) == ([], 0)
    for client in (a, b):
        body = client.get(table.url()).get_json()
        assert body["version"] == 3 and body["turn"]["player"] == first
        assert all(p["sheet"]["ones"] is None for p in body["players"])


def test_a_correction_that_lands_first_is_kept_and_the_turn_played_on_it(two_apps, monkeypatch):
    a, b, table, other, first, second = opened(two_apps)
    between_read_and_write(monkeypatch, two_apps[0], lambda: other.correct(1, dice=[1, 1, 1, 1, 4]))
    body = table.turn(second, "twos", [2, 2, 2, 3, 4])
    assert body["version"] == 4
    assert body["players"][first]["sheet"]["ones"] == 4  # the correction
    assert body["players"][second]["sheet"]["twos"] == 6  # the turn, played on it
    assert body == b.get(table.url()).get_json() == a.get(table.url()).get_json()
    assert stored_turns(two_apps[1], table.id) == ([(1, first, [1, 1, 1, 1, 4]), (2, second, [2, 2, 2, 3, 4])], 2)


def test_a_turn_overtaken_again_and_again_queues_for_the_lock(two_apps, monkeypatch):
    a, b, table, other, first, second = opened(two_apps)
    faces = [[1, 1, 1, 3, 4], [1, 1, 1, 1, 4], [1, 1, 1, 1, 1], [1, 2, 3, 4, 5]]
    changes = [lambda d=d: other.correct(1, dice=d) for d in faces]
    calls = between_read_and_write(monkeypatch, two_apps[0], *changes)
    body = table.turn(second, "twos", [2, 2, 3, 4, 5])
    # three tries overtaken, then the locked path (whose transaction begins after the fourth correction)
    assert calls == [4, 3, 2, 1]
    assert len(calls) == sheets.UNLOCKED_TRIES + 1
    assert body["version"] == 7 and body["players"][first]["sheet"]["ones"] == 1
    assert body["players"][second]["sheet"]["twos"] == 4
    assert body == b.get(table.url()).get_json()


def test_a_read_shows_the_version_it_read_while_a_turn_lands(two_apps, monkeypatch):
    a, b, table, other, first, second = opened(two_apps)
    # b has not rendered version 2: it reads the row, then (replaying) the entries; a turn lands in between
    calls = before(monkeypatch, two_apps[1], ("state.names_of",), lambda: table.turn(second, "twos", [2, 2, 3, 4, 5]))
    r = b.get(table.url())
    assert r.status_code == 200 and calls[0] == 1
    body = r.get_json()
    assert body["version"] == 2 and body["turn"]["player"] == second
    assert body["players"][first]["sheet"]["ones"] == 2 and body["players"][second]["sheet"]["twos"] is None
    # what b kept for version 2 is version 2, and version 3 is read afresh
    assert b.get(table.url(), headers={"If-None-Match": '"3"'}).status_code == 304
    after = b.get(table.url()).get_json()
    assert after["version"] == 3 and after["players"][second]["sheet"]["twos"] == 4
    assert after == a.get(table.url()).get_json()


@pytest.mark.parametrize("key", [None, "tap-2"])
def test_an_undo_that_lands_while_a_turn_replays_makes_it_start_again(two_apps, monkeypatch, key):
    a, b, table, other, first, second = opened(two_apps)
    version_2 = a.get(table.url()).get_json()
    # b replays version 2 for its turn (it has no state of it); a's undo lands between b's row and its entries
    calls = before(monkeypatch, two_apps[1], ("state.names_of",), lambda: table.undo())
    headers = {**other.auth, **({"Idempotency-Key": key} if key else {})}
    r = b.post(other.url("/turns"), json={"player": second, "category": "ones", "dice": [1, 2, 2, 3, 4]},
               headers=headers)
    assert r.status_code == 409 and r.mimetype == "application/problem+json", r.get_json()
    assert "not player" in r.get_json()["detail"]  # played again on version 3: the first player's turn
    assert calls[0] == 1
    assert stored_turns(two_apps[0], table.id) == ([], 0)
    with two_apps[1].app_context():
        game = db.session.get(GameRow, table.id)
        assert (game.version, game.turns) == (3, 0)
        # what b keeps as version 2, if anything, is version 2 (the first player's ones), not the undo's empty sheet
        kept = sheets.states().get((table.id, 2, version_2["updated_at"]))
        assert kept is None or kept.sheets[first]["ones"] == 2
    assert b.get(table.url()).get_json() == a.get(table.url()).get_json()
