"""The JSON API under ``/api/v1``: one blueprint module per resource."""

from __future__ import annotations

from flask import Blueprint, Flask

from .. import sheets
from ..advice import FolderFull, TableBuilding, TooManyBuilds
from ..errors import TYPE_BASE, Problem, ValidationProblem, render
from ..printing import SheetOptionError
from ..solver.chances import NotExact
from ..weighing import TooMuchWeighing
from ..rules import RulesError, UnknownVariantError
from ..rules.game import BoxClosedError, FirstPlayerTieError, GameOverError, NotYourTurnError, RollOffError
from . import games as games_api
from . import advice, chances, health, pdfs, score, spec, tables, variants
from .common import rules_error

#: Rules errors that are a clash with the game's state, not a bad request.
CONFLICTS = {
    NotYourTurnError: "not-your-turn",
    BoxClosedError: "box-closed",
    GameOverError: "game-over",
    RollOffError: "roll-off",
}


class DomainProblem(Problem):
    """A problem raised by the game service or the rules, with its own type."""

    def __init__(self, status: int, slug: str, title: str, detail: str, headers=()):
        super().__init__(detail, status=status, headers=headers)
        self.type = TYPE_BASE + slug
        self.title = title


def domain_problem(exc: Exception) -> Problem:
    """Map a domain error (games, rules) to its problem document."""
    if isinstance(exc, sheets.MesaNotFound):
        return DomainProblem(404, "not-found", "Not Found", "No table with this id.")
    if isinstance(exc, sheets.UnknownRegular):
        return ValidationProblem({exc.field: [exc.message]}, detail=exc.message)
    if isinstance(exc, sheets.GameNotFound):
        return DomainProblem(404, "not-found", "Not Found", "No game (or turn) with this id.")
    if isinstance(exc, UnknownVariantError):
        # Only a variant id in the path gets here: a body's is a 422 already.
        return DomainProblem(404, "not-found", "Not Found", exc.message)
    if isinstance(exc, sheets.Unauthorized):  # a game's, or a table's (exc.what)
        return DomainProblem(401, "unauthorized", "Unauthorized",
                             f"Writing to a {exc.what} needs its token: Authorization: Bearer <token>.",
                             headers=[("WWW-Authenticate", 'Bearer realm="anotador"')])
    if isinstance(exc, sheets.Forbidden):
        return DomainProblem(403, "forbidden", "Forbidden", f"This token does not write to this {exc.what}.")
    if isinstance(exc, sheets.PreconditionFailed):
        return DomainProblem(412, "stale", "Precondition Failed",
                             f"The {exc.what} changed since the version in If-Match; reload it and try again.")
    if isinstance(exc, sheets.IdempotencyMismatch):
        return ValidationProblem({"Idempotency-Key": [
            "This key was used for another request; send a new key for a new request."]},
            detail="This Idempotency-Key was used for another request (another body or URL).")
    if isinstance(exc, sheets.TooManyGames):
        return DomainProblem(429, "rate-limited", "Too Many Requests", exc.message,
                             headers=[("Retry-After", str(exc.retry_after)), *exc.quota.headers()])
    if isinstance(exc, sheets.TooManyCorrections):
        return DomainProblem(409, "correction-limit", "Conflict", exc.message)
    if isinstance(exc, sheets.InOtherMesa):
        return DomainProblem(409, "in-another-table", "Conflict", exc.message)
    if isinstance(exc, sheets.TooManyNames):
        return DomainProblem(409, "name-limit", "Conflict", exc.message)
    if isinstance(exc, sheets.NameTaken):
        return DomainProblem(409, "name-taken", "Conflict", exc.message)
    if isinstance(exc, sheets.Conflict):
        return DomainProblem(409, "conflict", "Conflict", exc.message)
    for cls, slug in CONFLICTS.items():
        if isinstance(exc, cls):
            return DomainProblem(409, slug, "Conflict", exc.message)
    if isinstance(exc, TooManyBuilds):
        return DomainProblem(429, "build-limit", "Too Many Requests", exc.message,
                             headers=[("Retry-After", str(exc.retry_after)), *exc.quota.headers()])
    if isinstance(exc, TooMuchWeighing):
        return DomainProblem(429, "play-to-win-limit", "Too Many Requests", exc.message,
                             headers=[("Retry-After", str(exc.retry_after))])
    if isinstance(exc, FolderFull):
        return DomainProblem(503, "advisor-folder-full", "Service Unavailable", str(exc),
                             headers=[("Retry-After", str(exc.retry_after))])
    if isinstance(exc, TableBuilding):
        return DomainProblem(503, "table-building", "Service Unavailable", str(exc),
                             headers=[("Retry-After", str(exc.retry_after))])
    if isinstance(exc, NotExact):
        return DomainProblem(501, "chances-not-exact", "Not Implemented", f"{exc}.")
    if isinstance(exc, SheetOptionError):
        return ValidationProblem({exc.field: [exc.message]}, detail=exc.message)
    if isinstance(exc, FirstPlayerTieError):
        tie = rules_error(exc)
        tie.extensions["tied"] = list(exc.seats)  # the seats that roll again
        return tie
    if isinstance(exc, RulesError):
        return rules_error(exc)
    raise exc  # pragma: no cover - only registered for the classes above


def init_app(app: Flask) -> None:
    """Register every API blueprint, and turn domain errors into problems."""
    api = Blueprint("api", __name__, url_prefix="/api/v1")
    api.register_blueprint(variants.bp)
    api.register_blueprint(score.bp)
    api.register_blueprint(games_api.bp)
    api.register_blueprint(pdfs.bp)
    api.register_blueprint(advice.bp)
    api.register_blueprint(chances.bp)
    api.register_blueprint(tables.bp)
    app.register_blueprint(api)
    app.register_blueprint(spec.bp)
    app.register_blueprint(health.bp)
    for cls in (RulesError, SheetOptionError, sheets.GameNotFound, sheets.MesaNotFound, sheets.UnknownRegular, sheets.Unauthorized, sheets.Forbidden,
                sheets.PreconditionFailed, sheets.Conflict, sheets.TooManyGames, sheets.IdempotencyMismatch,
                TableBuilding, FolderFull, TooManyBuilds, TooMuchWeighing, NotExact):
        app.register_error_handler(cls, lambda exc: render(domain_problem(exc)))
