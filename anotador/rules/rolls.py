"""A turn's throws, when the table records them: what each showed and which dice were kept.

A turn is up to :data:`THROWS` throws. After each throw but the last the
player keeps some of the dice (fewer than all of them: keeping all is
stopping) and throws the rest again; the last throw is the turn's dice. So
a record of throws must hold together: each keep is among its throw's dice,
each next throw still shows the kept dice, and the last throw is the dice
the turn scores. A served roll is a turn of one throw.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from typing import Any, Mapping, Sequence

from .boxes import Counts, count
from .errors import InvalidRollsError

#: Throws in a turn: the first, and up to two more.
THROWS = 3


@dataclass(frozen=True)
class Throw:
    """One throw of a turn: the dice it showed (sorted) and, unless it was the last, the dice kept from it."""

    dice: tuple[int, ...]
    keep: tuple[int, ...] | None = None

    @property
    def counts(self) -> Counts:
        return count(self.dice)

    @classmethod
    def of(cls, stored: Mapping[str, Any]) -> "Throw":
        """A throw as :meth:`as_dict` stored it."""
        return cls(tuple(stored["dice"]), None if stored.get("keep") is None else tuple(stored["keep"]))

    def as_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"dice": list(self.dice)}
        if self.keep is not None:
            out["keep"] = list(self.keep)
        return out


def check_rolls(rules, rolls: Any, dice: Any, served: Any, path: str = "rolls") -> tuple[Throw, ...]:
    """Return ``rolls`` (as the API takes them) checked against the turn's ``dice`` and ``served``.

    ``dice`` and ``served`` may be None (not sent): the last throw is then
    the turn's dice, and the turn was served if it had one throw. Raises
    :class:`InvalidRollsError` (or the dice's own error) naming the field.
    """
    if not isinstance(rolls, (list, tuple)) or not 1 <= len(rolls) <= THROWS:
        raise InvalidRollsError(f"{path} must list the turn's throws in order: 1 to {THROWS} of them.", path)
    out = []
    held: Counter = Counter()
    for i, throw in enumerate(rolls):
        at = f"{path}.{i}"
        if not isinstance(throw, Mapping):
            raise InvalidRollsError(f"{at} must be an object with the dice thrown and the dice kept.", at)
        unknown = set(throw) - {"dice", "keep"}
        if unknown:
            raise InvalidRollsError(f"{at} has unknown fields: {', '.join(sorted(map(str, unknown)))}.", at)
        if "dice" not in throw:
            raise InvalidRollsError(f"{at}.dice is needed: the {rules.dice} dice this throw showed.", f"{at}.dice")
        shown = throw["dice"]
        rules.check_dice(shown, rules.dice, f"{at}.dice")
        showing = Counter(shown)
        if held - showing:
            raise InvalidRollsError(
                f"Throw {i + 1} must still show the dice kept from throw {i} ({_faces(held)}).", f"{at}.dice")
        last = i == len(rolls) - 1
        keep = throw.get("keep")
        if last:
            if "keep" in throw:  # even null: a keep is a list of dice, and the last throw has none
                raise InvalidRollsError(
                    f"The last throw keeps nothing: its dice are the turn's. Add the next throw, or leave out "
                    f"{at}.keep.", f"{at}.keep")
            out.append(Throw(tuple(sorted(shown))))
            break
        if keep is None:
            raise InvalidRollsError(f"{at}.keep is needed: the dice kept before throw {i + 2} (may be []).",
                                    f"{at}.keep")
        if not isinstance(keep, (list, tuple)) or len(keep) >= rules.dice:
            raise InvalidRollsError(
                f"{at}.keep lists the dice kept, fewer than all {rules.dice} (keeping them all is stopping: "
                f"make this the last throw).", f"{at}.keep")
        rules.check_dice(keep, len(keep), f"{at}.keep")  # each die as the turn's own dice are checked
        kept = Counter(keep)
        if kept - showing:
            raise InvalidRollsError(f"{at}.keep must be dice of that throw ({_faces(showing)}).", f"{at}.keep")
        held = kept
        out.append(Throw(tuple(sorted(shown)), tuple(sorted(keep))))
    final = out[-1].dice
    if dice is not None and tuple(sorted(dice)) != final:
        raise InvalidRollsError("The last throw must show the turn's dice.", f"{path}.{len(out) - 1}.dice")
    if served is not None and bool(served) != served_of(out) and rules.served_matters:
        raise InvalidRollsError("A served roll is a turn of one throw: served and the throws disagree.", path)
    return tuple(out)


def served_of(throws: Sequence[Throw]) -> bool:
    """Whether a turn of these throws was served: it stopped at the first."""
    return len(throws) == 1


def _faces(c: Counter) -> str:
    return "-".join(str(f) for f in sorted(c.elements())) or "none"
