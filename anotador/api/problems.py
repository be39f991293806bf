"""Every domain error the API answers, as one table: exception class → problem document (RFC 9457).

A raised error is looked up along its class's MRO, so a subclass with a
type of its own (``NameTaken``) comes before its base (``Conflict``), and a
new subclass answers as its base until it is given a row. The handlers are
registered from the table's keys. A database that does not answer, or
refuses a value, is a row too: it is logged in one line and the request's
transaction ended before the answer.
"""

from __future__ import annotations

from typing import Callable, NamedTuple, Sequence

from flask import Flask, Response, current_app, request
from sqlalchemy import exc as sa_exc

from .. import sheets
from ..extensions import db
from ..advisor.builds import FolderFull, TableBuilding, TooManyBuilds
from ..http.bodies import short
from ..http.errors import TYPE_BASE, Problem, ValidationProblem, render
from ..printing import SheetOptionError
from ..rules import RulesError, UnknownVariantError
from ..rules.game import BoxClosedError, FirstPlayerTieError, GameOverError, NotYourTurnError, RollOffError
from ..solver.chances import NotExact
from ..advisor.weighing import TooMuchWeighing
from ..store.database import DatabaseBusy
from ..store.guard import DatabaseDown
from .common import rules_error


def message(exc: Exception) -> str:
    return getattr(exc, "message", None) or str(exc)


def no_headers(exc: Exception) -> Sequence[tuple[str, str]]:
    return ()


def retry(exc) -> Sequence[tuple[str, str]]:
    return [("Retry-After", str(exc.retry_after))]


def retry_and_quota(exc) -> Sequence[tuple[str, str]]:
    return [*retry(exc), *(exc.quota.headers() if exc.quota is not None else ())]


def retry_later(exc) -> Sequence[tuple[str, str]]:
    return [("Retry-After", str(current_app.config.get("RETRY_AFTER", 2)))]


class Kind(NamedTuple):
    """How an error answers: its status, its type (``TYPE_BASE`` + slug), its title, its detail and headers;
    ``logged``: what the log says of it (one line, no traceback), the request's transaction ended first."""

    status: int
    slug: str
    title: str
    detail: Callable[[Exception], str] = message
    headers: Callable[[Exception], Sequence[tuple[str, str]]] = no_headers
    logged: str = ""


def fixed(text: str) -> Callable[[Exception], str]:
    return lambda exc: text


def field_error(exc) -> ValidationProblem:
    """A 422 naming the field the error is about (its own ``field``)."""
    return ValidationProblem({exc.field: [exc.message]}, detail=exc.message)


def tie(exc: FirstPlayerTieError) -> Problem:
    """A tie for who starts: a 422 naming the seats that roll again."""
    found = rules_error(exc)
    found.extensions["tied"] = list(exc.seats)
    return found


CONFLICT = "Conflict"
TOO_MANY = "Too Many Requests"
UNAVAILABLE = "Service Unavailable"

#: The database did not answer: unreachable, restarting, a killed connection, a lock or statement held past
#: its timeout. The client may retry; the worker is free.
DATABASE_DOWN = Kind(503, "database-unavailable", UNAVAILABLE,
                     fixed("The database did not answer in time; try again in a moment."), retry_later,
                     logged="Database unavailable")
DATABASE_ERRORS = (sa_exc.OperationalError, sa_exc.InterfaceError, sa_exc.TimeoutError, DatabaseBusy, DatabaseDown)

#: Every domain error's answer: a :class:`Kind`, or for a 422 naming its field, what makes its problem.
PROBLEMS: dict[type[Exception], Kind | Callable[[Exception], Problem]] = {
    sheets.GameNotFound: Kind(404, "not-found", "Not Found", fixed("No game (or turn) with this id.")),
    sheets.MesaNotFound: Kind(404, "not-found", "Not Found", fixed("No table with this id.")),
    UnknownVariantError: Kind(404, "not-found", "Not Found"),  # a variant id in the path: a body's is a 422 already
    sheets.Unauthorized: Kind(401, "unauthorized", "Unauthorized",
                              lambda exc: f"Writing to a {exc.what} needs its token: Authorization: Bearer <token>.",
                              lambda exc: [("WWW-Authenticate", 'Bearer realm="anotador"')]),
    sheets.Forbidden: Kind(403, "forbidden", "Forbidden", lambda exc: f"This token does not write to this {exc.what}."),
    sheets.PreconditionFailed: Kind(412, "stale", "Precondition Failed", lambda exc: (
        f"The {exc.what} changed since the version in If-Match; reload it and try again.")),
    sheets.Conflict: Kind(409, "conflict", CONFLICT),
    sheets.TooManyCorrections: Kind(409, "correction-limit", CONFLICT),
    sheets.InOtherMesa: Kind(409, "in-another-table", CONFLICT),
    sheets.TooManyNames: Kind(409, "name-limit", CONFLICT),
    sheets.NameTaken: Kind(409, "name-taken", CONFLICT),
    NotYourTurnError: Kind(409, "not-your-turn", CONFLICT),
    BoxClosedError: Kind(409, "box-closed", CONFLICT),
    GameOverError: Kind(409, "game-over", CONFLICT),
    RollOffError: Kind(409, "roll-off", CONFLICT),
    sheets.TooManyGames: Kind(429, "rate-limited", TOO_MANY, headers=retry_and_quota),
    TooManyBuilds: Kind(429, "build-limit", TOO_MANY, headers=retry_and_quota),
    TooMuchWeighing: Kind(429, "play-to-win-limit", TOO_MANY, headers=retry),
    NotExact: Kind(501, "chances-not-exact", "Not Implemented", lambda exc: f"{exc}."),
    TableBuilding: Kind(503, "table-building", UNAVAILABLE, headers=retry),
    FolderFull: Kind(503, "advisor-folder-full", UNAVAILABLE, headers=retry),
    **dict.fromkeys(DATABASE_ERRORS, DATABASE_DOWN),
    # A value the driver or database would not take (a NUL, a number past a column). Each route checks what
    # it takes before a query; this is the net under those checks: the client's error, not a 500.
    sa_exc.DataError: Kind(422, "value-refused", "Unprocessable Content",
                           fixed("The request holds a value this service cannot store or look up."),
                           logged="Database refused a value"),
    # 422s that name their field
    sheets.UnknownRegular: field_error,
    SheetOptionError: field_error,
    sheets.IdempotencyMismatch: lambda exc: ValidationProblem({"Idempotency-Key": [
        "This key was used for another request; send a new key for a new request."]},
        detail="This Idempotency-Key was used for another request (another body or URL)."),
    FirstPlayerTieError: tie,
    RulesError: rules_error,
}


class DomainProblem(Problem):
    """A problem of a :class:`Kind`."""

    def __init__(self, kind: Kind, exc: Exception):
        super().__init__(kind.detail(exc), status=kind.status, headers=kind.headers(exc))
        self.type = TYPE_BASE + kind.slug
        self.title = kind.title
        self.logged = kind.logged


def problem_of(exc: Exception) -> Problem:
    """The problem document of an error of the table: the row for the nearest class of its MRO."""
    for cls in type(exc).__mro__:
        found = PROBLEMS.get(cls)
        if isinstance(found, Kind):
            return DomainProblem(found, exc)
        if found is not None:
            return found(exc)
    raise exc  # pragma: no cover - only registered for the table's classes


def logged_and_rolled_back(what: str, exc: Exception) -> None:
    """Say what the database did (one line, no traceback), and end the request's transaction."""
    current_app.logger.warning("%s on %s %s: %s", what, request.method, request.path, short(exc).splitlines()[0])
    try:
        db.session.rollback()
    except Exception:  # the connection may be gone; the pool replaces it
        pass


def answer(exc: Exception) -> Response:
    """The answer to an error of the table: its problem, once a database's failure is logged and the request's
    transaction ended (its kind's ``logged``)."""
    problem = problem_of(exc)
    if isinstance(problem, DomainProblem) and problem.logged:
        logged_and_rolled_back(problem.logged, exc)
    return render(problem)


def init_app(app: Flask) -> None:
    """Answer every error of the table with its problem."""
    for cls in PROBLEMS:
        app.register_error_handler(cls, answer)
