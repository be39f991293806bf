"""House-rule options: their names, allowed values and validation.

An :class:`Options` value is the effective set of options of one rule set,
frozen and hashable. :func:`merge` applies overrides (a plain mapping, as it
comes from a request or from stored JSON) to a variant's defaults, checking
each value and refusing combinations that make no sense.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, fields, replace
from typing import Any, Mapping

from .errors import InvalidOptionError

STRAIGHTS = ("standard", "ending_in_1", "circular")
DOUBLE_AFTER = ("closed", "scored")
SERVED_GENERALA = ("win_always", "win_if_open", "win_unless_scratched", "points", "none")
TIE_BREAKS = ("share", "most_generalas", "roll_off")
FIRST_PLAYER = ("highest_die", "lowest_die", "as_listed")
JOKERS = ("forced", "free")

#: Bounds on numbers a table may agree on. Generous, but finite, so that a
#: typo (or a fuzzer) cannot make totals absurd.
MAX_BONUS = 100
MAX_POINTS = 10_000


@dataclass(frozen=True)
class Options:
    """Effective house-rule options of a rule set (see RULES.md).

    ``None`` means absent (``double_generala``, ``three_of_a_kind``,
    ``served_generala_points``) or, for options a variant has no use for
    (``straight`` in ``double-cameroon``), not applicable.
    """

    points: tuple[tuple[str, int], ...] = ()
    served_bonus: int | None = 5
    straight: str | None = "standard"
    ace_as_two: bool | None = False
    double_generala: int | None = None
    double_generala_after: str | None = "closed"
    served_generala: str | None = "win_always"
    served_generala_points: int | None = None
    three_of_a_kind: str | int | None = None
    tie_break: str = "share"
    first_player: str = "highest_die"
    #: Yahtzee family: where a further Yahtzee may go (None where it has no joker).
    joker: str | None = None
    #: Yahtzee family: points for each further Yahtzee while its box holds
    #: points (0: no bonus; None where the variant has none).
    yahtzee_bonus: int | None = None

    def as_dict(self) -> dict[str, Any]:
        """Return the options as JSON-ready data, ``points`` as a mapping."""
        d = asdict(self)
        d["points"] = dict(self.points)
        return d


OPTION_NAMES = tuple(f.name for f in fields(Options))


def _int(name: str, value: Any, low: int, high: int) -> int:
    # bool is an int subclass in Python; a table never means True points.
    if isinstance(value, bool) or not isinstance(value, int):
        raise InvalidOptionError(f"{name} must be a whole number.", name)
    if not low <= value <= high:
        raise InvalidOptionError(f"{name} must be between {low} and {high}.", name)
    return value


def _choice(name: str, value: Any, allowed: tuple[str, ...]) -> str:
    if value not in allowed or not isinstance(value, str):
        raise InvalidOptionError(f"{name} must be one of: {', '.join(allowed)}.", name)
    return value


def _points(value: Any) -> tuple[tuple[str, int], ...]:
    if not isinstance(value, Mapping):
        raise InvalidOptionError("points must map box ids to whole numbers.", "points")
    out = {}
    for box, pts in value.items():
        if not isinstance(box, str):
            raise InvalidOptionError("points must map box ids to whole numbers.", "points")
        out[box] = _int(f"points.{box}", pts, 1, MAX_POINTS)
    return tuple(sorted(out.items()))


def _check(name: str, value: Any) -> Any:
    """Return ``value`` checked for option ``name`` (None allowed where absent is)."""
    if name == "points":
        return _points(value)
    if name == "served_bonus":
        return _int(name, value, 0, MAX_BONUS)
    if name == "straight":
        return _choice(name, value, STRAIGHTS)
    if name == "ace_as_two":
        if not isinstance(value, bool):
            raise InvalidOptionError("ace_as_two must be true or false.", name)
        return value
    if name in ("double_generala", "served_generala_points"):
        return None if value is None else _int(name, value, 1, MAX_POINTS)
    if name == "double_generala_after":
        return _choice(name, value, DOUBLE_AFTER)
    if name == "served_generala":
        return _choice(name, value, SERVED_GENERALA)
    if name == "three_of_a_kind":
        if value is None or value == "sum" and isinstance(value, str):
            return value
        if isinstance(value, str):
            raise InvalidOptionError('three_of_a_kind must be "sum", a number of points, or null.', name)
        return _int(name, value, 1, MAX_POINTS)
    if name == "tie_break":
        return _choice(name, value, TIE_BREAKS)
    if name == "first_player":
        return _choice(name, value, FIRST_PLAYER)
    if name == "joker":
        return _choice(name, value, JOKERS)
    if name == "yahtzee_bonus":
        return _int(name, value, 0, MAX_POINTS)
    raise InvalidOptionError(f"Unknown option {name!r}.", name)  # pragma: no cover


def merge(
    defaults: Options,
    overrides: Mapping[str, Any],
    applicable: frozenset[str],
    variant_id: str,
) -> Options:
    """Return ``defaults`` with ``overrides`` applied, each value checked.

    ``applicable`` names the options this variant understands; setting any
    other one is refused rather than silently ignored, since a table that sets
    it expects it to change something. ``points`` is checked against the sheet
    later, once the boxes are known.
    """
    changes: dict[str, Any] = {}
    for name, value in overrides.items():
        if name not in OPTION_NAMES:
            raise InvalidOptionError(
                f"Unknown option {name!r}; the options are: {', '.join(OPTION_NAMES)}.", name
            )
        if name not in applicable:
            if value is None:
                # null is what an effective rule set says of an option it has
                # no use for; accept it, so any answer's rules can be sent back.
                continue
            raise InvalidOptionError(f"Option {name!r} does not apply to {variant_id}.", name)
        changes[name] = _check(name, value)
    if "points" in changes:
        # points are per box: overriding some keeps the variant's others.
        changes["points"] = tuple(sorted({**dict(defaults.points), **dict(changes["points"])}.items()))
    opts = replace(defaults, **changes)

    if opts.served_generala == "points" and opts.served_generala_points is None:
        raise InvalidOptionError(
            'served_generala "points" needs served_generala_points: how much a served generala scores.',
            "served_generala_points",
        )
    if opts.served_generala != "points" and opts.served_generala_points is not None:
        raise InvalidOptionError(
            'served_generala_points only applies with served_generala "points".',
            "served_generala_points",
        )
    return opts
