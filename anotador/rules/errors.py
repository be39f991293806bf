"""One exception class per way a rules question can be wrong.

Every class subclasses :class:`RulesError`, itself a :class:`ValueError`, so a
caller that only cares that the input was wrong catches one class. ``field``
names what was wrong as a dotted path relative to the thing being checked
(``"dice.4"``, ``"sheet.straight"``, ``"straight"`` for an option), so the web
layer can report it against the request without parsing messages.
"""

from __future__ import annotations

from collections.abc import Sequence


class RulesError(ValueError):
    """Base class: the rules cannot answer this question as asked."""

    def __init__(self, message: str, field: str | None = None):
        super().__init__(message)
        self.message = message
        self.field = field


class UnknownVariantError(RulesError):
    """No built-in variant has this id."""


class InvalidOptionError(RulesError):
    """A house-rule option is unknown, has a bad value, or contradicts another."""


class UnknownBoxError(RulesError):
    """A box id that the rule set's sheet does not have."""


class InvalidDiceError(RulesError):
    """Wrong number of dice, or a die that is not an integer from 1 to 6."""


class InvalidSheetError(RulesError):
    """A sheet entry that box can never hold, or an impossible sheet."""


class NoFreeBoxError(RulesError):
    """The sheet has no free box left for a turn."""


class InvalidGroupsError(RulesError):
    """A split of the dice into groups that is not a split of these dice."""


class NotYourTurnError(RulesError):
    """Another player is to play (a conflict with the game's state)."""


class BoxClosedError(RulesError):
    """The box already holds an entry for this player."""


class GameOverError(RulesError):
    """The game has ended; no turn can be recorded."""


class NotQualifiedError(RulesError):
    """The roll does not qualify for the chosen box (and it is not a scratch)."""


class InvalidTurnError(RulesError):
    """A turn that is malformed for this rule set (wrong number of boxes, ...)."""


class InvalidNameError(RulesError):
    """A player's name that is not 1-40 characters of visible text, or one already at the table."""


class FirstPlayerTieError(RulesError):
    """The first-player dice still end tied at the top (or bottom): ``seats`` roll again."""

    def __init__(self, message: str, field: str | None, seats: Sequence[int]):
        super().__init__(message, field)
        self.seats = tuple(seats)


class RollOffError(RulesError):
    """A roll-off roll that does not fit: none under way, not a contender, ..."""


class InvalidRollsError(RulesError):
    """A turn's throws that cannot have happened: a keep not among the dice, a throw that lost a kept die, ..."""
