"""The error table (anotador/api/problems.py): each domain error's problem, found along its class's MRO."""

from __future__ import annotations

import pytest

from anotador import sheets
from anotador.api.problems import PROBLEMS, Kind, problem_of
from anotador.http.errors import TYPE_BASE
from anotador.rules.errors import FirstPlayerTieError, InvalidDiceError, NotYourTurnError, UnknownVariantError
from anotador.sheets.errors import MesaForbidden, MesaPreconditionFailed, MesaUnauthorized, Moved


@pytest.mark.parametrize(("exc", "status", "slug", "words"), [
    (sheets.NameTaken("Ana is taken here."), 409, "name-taken", "Ana is taken here."),
    (Moved(), 409, "conflict", "changed while it was read"),  # no row of its own: its base's (Conflict)
    (NotYourTurnError("It is player 0's turn."), 409, "not-your-turn", "player 0"),
    (UnknownVariantError("No variant 'x'."), 404, "not-found", "No variant"),  # a RulesError, but its own row
    (InvalidDiceError("Five dice.", "dice"), 422, "validation-error", "Five dice."),  # RulesError's row
    (MesaUnauthorized(), 401, "unauthorized", "Writing to a table needs its token"),
    (MesaForbidden(), 403, "forbidden", "this table"),
    (MesaPreconditionFailed(), 412, "stale", "The table changed"),
    (sheets.PreconditionFailed(), 412, "stale", "The game changed"),
])
def test_each_error_answers_the_row_of_its_nearest_class(exc, status, slug, words):
    problem = problem_of(exc)
    assert (problem.status, problem.type) == (status, TYPE_BASE + slug)
    assert words in problem.detail


def test_a_tie_for_who_starts_names_the_seats_that_roll_again():
    problem = problem_of(FirstPlayerTieError("Seats 0, 1 are tied.", "first_rolls", [0, 1]))
    assert problem.status == 422 and problem.extensions["tied"] == [0, 1]
    assert problem.errors == {"first_rolls": ["Seats 0, 1 are tied."]}


def test_every_row_has_a_handler_and_every_kind_a_status_of_its_class(app):
    handlers = {cls for by_code in app.error_handler_spec[None].values() for cls in by_code}
    assert set(PROBLEMS) <= handlers
    for cls, kind in PROBLEMS.items():
        if isinstance(kind, Kind):
            assert 400 <= kind.status < 600 and kind.slug and kind.title, cls


def test_the_api_answers_through_the_table(api):
    client = api
    r = client.get("/api/v1/variants/nope")
    assert r.status_code == 404 and r.get_json()["type"] == TYPE_BASE + "not-found"
    r = client.get("/api/v1/tables/abcdefghijklmnop")
    assert r.status_code == 404 and r.get_json()["detail"] == "No table with this id."
