"""Why a read or a write of a game is refused: one exception per cause.

The API's one error handler (:mod:`anotador.api`) turns each into its
problem document; nothing here knows about HTTP beyond the status each
docstring names.
"""

from __future__ import annotations


class GameNotFound(LookupError):
    """No game has this id (404)."""


class Unauthorized(PermissionError):
    """No write token was sent (401)."""

    #: What the token writes to, as the problem says it.
    what = "game"


class Forbidden(PermissionError):
    """The token is not this game's (403)."""

    what = "game"


class MesaNotFound(LookupError):
    """No table of regulars has this id (404)."""


class MesaUnauthorized(Unauthorized):
    """A table's write with no token (401)."""

    what = "table"


class MesaForbidden(Forbidden):
    """The token is not this table's (403)."""

    what = "table"


class Conflict(Exception):
    """The change does not fit the game's current state (409)."""

    def __init__(self, message: str, field: str | None = None):
        super().__init__(message)
        self.message, self.field = message, field


class InOtherMesa(Conflict):
    """The game belongs to another table already (409)."""


class NameTaken(Conflict):
    """The name already stands for another of the table's players (409): merge them instead."""


class TooManyNames(Conflict):
    """The regular has as many names as one regular keeps (409): rename to one of them, or merge."""


class UnknownRegular(Exception):
    """The table has no player with this id (422, naming the field)."""

    def __init__(self, message: str, field: str):
        super().__init__(message)
        self.message, self.field = message, field


class BadQuery(UnknownRegular):
    """A read's query parameter cannot be used (422, naming it): a cursor not ours, a day that is not one."""


class SameRegular(UnknownRegular):
    """A player merged into themselves (422)."""


class TooManyCorrections(Conflict):
    """The game has had as many corrections as one game keeps (409)."""


class Moved(Conflict):
    """The game changed between reading its row and reading what it holds: read it again."""

    def __init__(self) -> None:
        super().__init__("This game changed while it was read; try again.")


class TooManyGames(Exception):
    """GAMES_PER_MINUTE reached for this client address (429)."""

    def __init__(self, message: str, retry_after: int, quota=None):
        super().__init__(message)
        self.message, self.retry_after, self.quota = message, retry_after, quota


class PreconditionFailed(Exception):
    """If-Match named a version that is no longer current (412)."""

    #: What changed, as the problem says it.
    what = "game"


class MesaPreconditionFailed(PreconditionFailed):
    """If-Match named a version of a table that is no longer current (412)."""

    what = "table"


class IdempotencyMismatch(Exception):
    """The key was used before with another request (422)."""
