"""Turns on SQLite are played before the write lock and stored guarded by their version.

Another write that lands in between (another phone, another worker) must
make the turn start again from what that write left, never store a turn
played on a game that no longer exists.
"""

from __future__ import annotations

import pytest
from flask import current_app

from service import create_app, sheets
from service.extensions import db
from service.models import EntryRow, TurnRow

from .conftest import Table, dispose

NAMES = ["Guillermina Fernández de la Serna Ortiz", "李小龍", "Ñandú"]


@pytest.fixture
def two_apps(tmp_path, sqlite_template):
    """Two workers on one SQLite file: a and b."""
    import shutil

    path = tmp_path / "races.sqlite"
    shutil.copyfile(sqlite_template, path)
    apps = [create_app({"TESTING": True, "SQLALCHEMY_DATABASE_URI": f"sqlite:///{path}", "GAMES_PER_MINUTE": 0})
            for _ in range(2)]
    yield apps
    for app in apps:
        dispose(app)


def between_read_and_write(monkeypatch, app, *changes):
    """Run each of ``changes`` (once each, in order) just before a write of ``app`` takes the write lock.

    Returns how many changes were left at each of ``app``'s writes.
    """
    pending = list(changes)
    calls = []
    real = sheets.begin_write

    def begin_write():
        if current_app._get_current_object() is app:
            calls.append(len(pending))
            if pending:
                pending.pop(0)()
        real()

    monkeypatch.setattr(sheets, "begin_write", begin_write)
    return calls


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
    # three tries overtaken, then the locked path (whose begin_write meets the fourth correction first)
    assert calls == [4, 3, 2, 1]
    assert len(calls) == sheets.UNLOCKED_TRIES + 1
    assert body["version"] == 7 and body["players"][first]["sheet"]["ones"] == 1
    assert body["players"][second]["sheet"]["twos"] == 4
    assert body == b.get(table.url()).get_json()
