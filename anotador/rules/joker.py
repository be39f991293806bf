"""The Yahtzee joker: where a further Yahtzee may go, what it scores there, and its bonus.

A part of :class:`~anotador.rules.ruleset.RuleSet` (its base class), kept
apart because it is the one rule of the Yahtzee family that reads the sheet
beyond which boxes are free.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from functools import cached_property
from typing import TYPE_CHECKING

from .boxes import FIXED, NUMBER, Counts, total
from .spec import GROUP

if TYPE_CHECKING:  # pragma: no cover
    from .boxes import Box
    from .options import Options


class YahtzeeJoker:
    """The joker rules of a rule set (``options.joker``: forced, free, or none)."""

    # RuleSet's, which also gives ``_row`` (a group's plain points) and ``_free`` (the free boxes)
    boxes: "tuple[Box, ...]"
    options: "Options"

    @cached_property
    def _yahtzee(self) -> int | None:
        if not self.options.joker:
            return None
        return next((i for i, b in enumerate(self.boxes) if b.role == "yahtzee"), None)

    def joker(self, counts: Counts, sheet: Mapping[str, int]) -> tuple[list[int], tuple[tuple[int, ...], ...] | None, int] | None:
        """A further Yahtzee: its points in every box, where it may go, and its bonus.

        Five of a kind with the yahtzee box already closed (scored or
        scratched). Its bonus (``yahtzee_bonus``) only while that box holds
        points. ``joker: forced`` (the official rule): the matching upper box
        if free; else any free lower box, at full value (the fixed boxes'
        values, the sum boxes' totals); else any free upper box, at 0 -- an
        order of groups, the roll going in the first group with a free box.
        ``joker: free`` (Verhoeff's convention): any free box (no order);
        the fixed lower boxes count only once the matching upper box is
        closed. None for any other roll.
        """
        y = self._yahtzee
        if y is None or max(counts) < GROUP:
            return None
        held = sheet.get(self.boxes[y].id)
        if held is None:
            return None
        upper = self._upper_of(counts)
        row = list(self._row(counts, False))
        lower = [i for i, b in enumerate(self.boxes) if b.kind != NUMBER and i != y]
        order: tuple[tuple[int, ...], ...] | None = None
        if self.options.joker == "forced":
            # full value in the lower boxes: only offered once the upper box is closed
            for i in lower:
                row[i] = self.boxes[i].value if self.boxes[i].kind == FIXED else total(counts)
            order = ((upper,), tuple(lower), tuple(i for i, b in enumerate(self.boxes) if b.kind == NUMBER))
        else:
            upper_free = self.boxes[upper].id not in sheet
            for i in lower:
                if self.boxes[i].kind == FIXED:
                    row[i] = self.boxes[i].value if not upper_free else 0
        bonus = (self.options.yahtzee_bonus or 0) if held else 0
        return row, order, bonus

    def _upper_of(self, counts: Counts) -> int:
        """The upper box of the face a five of a kind shows."""
        face = counts.index(GROUP) + 1
        return next(i for i, b in enumerate(self.boxes) if b.kind == NUMBER and b.face == face)

    @staticmethod
    def first_free(order, free: int) -> int:
        """The free boxes of the first group in ``order`` that has one (none when no group has), as bits of box
        indices, ``free`` too: where a forced joker may go. A group is a tuple of box indices or their bits; the
        bits and ``free`` may be arrays (a solver asks for every sheet and roll of a batch at once, each with
        an order of its own)."""
        found = free & 0  # an int, or numpy's integers: the same steps for each
        for group in order:
            bits = sum(1 << i for i in group) if isinstance(group, tuple) else group
            found = found | (free & bits) * (found == 0)
        return found

    @classmethod
    def _first_free(cls, order: tuple[tuple[int, ...], ...], free: Sequence[int]) -> frozenset[int]:
        """:meth:`first_free` with box indices."""
        found = cls.first_free(order, sum(1 << i for i in free))
        return frozenset(i for i in free if found >> i & 1)

    def allowed(self, counts: Counts | None, sheet: Mapping[str, int]) -> frozenset[str] | None:
        """The only boxes this roll may go in (a forced joker), or None: any free box."""
        if counts is None:
            return None
        joker = self.joker(counts, sheet)
        if joker is None or joker[1] is None:
            return None
        return frozenset(self.boxes[i].id for i in self._first_free(joker[1], self._free(sheet)))

    def bonus_for(self, counts: Counts | None, sheet: Mapping[str, int]) -> int:
        """Points this roll earns besides its box (a further Yahtzee's bonus)."""
        if counts is None:
            return 0
        joker = self.joker(counts, sheet)
        return joker[2] if joker else 0

