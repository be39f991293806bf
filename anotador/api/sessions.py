"""The request's database session, ended while a failure can still be answered as a problem (a 503).

Flask-SQLAlchemy ends it in the app context's teardown, after the answer
is made and outside every error handler: a rollback that failed there (a
connection killed mid-request) reached the server, which sent an empty
500. Here it is ended after the view, and a database that fails then
answers through the error table (:mod:`anotador.api.problems`).
"""

from __future__ import annotations

from flask import Flask, Response, after_this_request, g, has_request_context
from sqlalchemy import event

from ..extensions import db
from .problems import DATABASE_ERRORS, answer


def end_session(response: Response) -> Response:
    """End the request's session; a database that fails now turns a success into its 503.

    On an answer that is already an error, that answer stands. Either way
    the session is gone, so the teardown finds none. Asked for by the
    request's first transaction (:func:`session_began`), so the many
    requests that open none (a score, a poll) pay nothing; it runs before
    the app's after-request hooks, which then add their headers to whatever
    it answers.
    """
    if not db.session.registry.has():
        return response
    try:
        db.session.remove()
    except DATABASE_ERRORS as exc:
        if response.status_code < 500:
            response = answer(exc)
    finally:
        db.session.registry.clear()
    return response


def session_began(_session, _transaction, _connection) -> None:
    """A request's session began a transaction: have :func:`end_session` end it (once per request)."""
    if has_request_context() and not g.get("anotador_end_session"):
        g.anotador_end_session = True
        after_this_request(end_session)


def init_app(app: Flask) -> None:
    """Listen for the sessions' transactions (once: the scoped session is every app's)."""
    if not event.contains(db.session, "after_begin", session_began):
        event.listen(db.session, "after_begin", session_began)
