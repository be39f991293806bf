"""The built-in variants of RULES.md, as data, and the registry that finds them.

A :class:`Variant` is a named starting point: a sheet of box specs and the
default options. :meth:`Variant.rules` turns it plus house-rule overrides into
one frozen :class:`~anotador.rules.ruleset.RuleSet`. New families (a Yahtzee
sheet with a chance line and an upper bonus, say) are new entries here, not
new code paths: see :class:`BoxSpec` and ``SectionBonus``.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cached_property, lru_cache
from typing import Any, Mapping

from ..locales import Message
from .boxes import FIXED, MATCHING, NUMBER, SUM
from .errors import InvalidOptionError, UnknownVariantError
from .options import OPTION_NAMES, Options, merge
from .ruleset import RuleSet
from .spec import BoxSpec, SectionBonus


NUMBER_BOXES = tuple(
    BoxSpec(box_id, "any", NUMBER, face=face)
    for face, box_id in enumerate(("ones", "twos", "threes", "fours", "fives", "sixes"), start=1)
)
STRAIGHT = BoxSpec("straight", "straight", FIXED, served_bonus=True)
FULL = BoxSpec("full", "full", FIXED, served_bonus=True)
FOUR = BoxSpec("four", "four", FIXED, served_bonus=True)
GENERALA = BoxSpec("generala", "five", FIXED, role="generala")

#: What the Yahtzee family adds; the Generala family has no use for it.
YAHTZEE_ONLY = frozenset({"joker", "yahtzee_bonus"})
GENERALA_OPTIONS = frozenset(OPTION_NAMES) - YAHTZEE_ONLY
#: Options every family shares.
TABLE_OPTIONS = frozenset({"points", "tie_break", "first_player"})


@dataclass(frozen=True, eq=False)
class Variant:
    """A built-in rule set: its sheet, its defaults, its names."""

    id: str
    names: Mapping[str, str]
    description: Mapping[str, str]
    boxes: tuple[BoxSpec, ...]
    defaults: Options
    dice: int = 5
    boxes_per_turn: int = 1
    applicable: frozenset[str] = GENERALA_OPTIONS
    #: Whether ``double_generala`` takes the served bonus (RULES.md: "where
    #: the variant says so").
    double_generala_served_bonus: bool = False
    #: Whether a served five of a kind is the *Big General* (general-pr): it
    #: wins at once and is never an entry of the generala line, which then
    #: takes five of a kind on a second or third roll only.
    big_general: bool = False
    #: The fewest seats a game takes: every source is written for two or more.
    min_players: int = 2
    #: "generala" or "yahtzee": which family's words (rules reference, legend) describe it.
    family: str = "generala"
    bonuses: tuple[SectionBonus, ...] = field(default=())
    #: Names of boxes this variant calls otherwise than their usual ones
    #: (Kniffel's "Kniffel" for the yahtzee box): box id → language → name.
    box_names: Mapping[str, Mapping[str, str]] = field(default_factory=dict)

    def rules(self, overrides: Mapping[str, Any] | None = None, /, **kwargs: Any) -> RuleSet:
        """Return the frozen rule set of this variant with house-rule overrides."""
        merged = {**(overrides or {}), **kwargs}
        if not merged:
            return self.default_rules
        options = merge(self.defaults, merged, self.applicable, self.id)
        return _build(self, options)

    @cached_property
    def default_rules(self) -> RuleSet:
        """The variant as published, with no house rule: built once."""
        return _build(self, merge(self.defaults, {}, self.applicable, self.id))


@lru_cache(maxsize=512)
def _build(variant: Variant, options: Options) -> RuleSet:
    # Rule sets are immutable, so identical ones are shared; this keeps house
    # rules as cheap to score with as built-in variants after the first use.
    return RuleSet.build(variant, options)


_GENERALA_DEFAULTS = Options(
    points=(("four", 40), ("full", 30), ("generala", 50), ("straight", 20)),
)

VARIANTS: dict[str, Variant] = {
    v.id: v
    for v in (
        Variant(
            id="generala",
            names=Message("variant.generala"),
            description=Message("variant.generala.about"),
            boxes=NUMBER_BOXES + (STRAIGHT, FULL, FOUR, GENERALA),
            defaults=_GENERALA_DEFAULTS,
        ),
        Variant(
            id="generala-doble",
            names=Message("variant.generala-doble"),
            description=Message("variant.generala-doble.about"),
            boxes=NUMBER_BOXES + (STRAIGHT, FULL, FOUR, GENERALA),
            defaults=Options(
                points=_GENERALA_DEFAULTS.points,
                double_generala=100,
                double_generala_after="closed",
                served_generala="win_if_open",
                tie_break="most_generalas",
            ),
            double_generala_served_bonus=True,
        ),
        Variant(
            id="generala-wiki",
            names=Message("variant.generala-wiki"),
            description=Message("variant.generala-wiki.about"),
            boxes=NUMBER_BOXES + (STRAIGHT, FULL, FOUR, GENERALA),
            defaults=Options(
                points=_GENERALA_DEFAULTS.points,
                straight="circular",
                double_generala_after="scored",
                served_generala="win_unless_scratched",
            ),
        ),
        Variant(
            id="general-pr",
            names=Message("variant.general-pr"),
            description=Message("variant.general-pr.about"),
            boxes=NUMBER_BOXES + (STRAIGHT, FULL, FOUR, BoxSpec("small_general", "five", FIXED, role="generala")),
            defaults=Options(
                points=(("four", 40), ("full", 30), ("small_general", 60), ("straight", 20)),
                first_player="lowest_die",
            ),
            big_general=True,
        ),
        Variant(
            id="double-cameroon",
            names=Message("variant.double-cameroon"),
            description=Message("variant.double-cameroon.about"),
            boxes=NUMBER_BOXES
            + (
                BoxSpec("five_of_a_kind", "five", FIXED),
                BoxSpec("big_cameroon", "run:23456", FIXED),
                BoxSpec("little_cameroon", "run:12345", FIXED),
                BoxSpec("full", "full", SUM),
            ),
            defaults=Options(
                points=(("big_cameroon", 30), ("five_of_a_kind", 50), ("little_cameroon", 21)),
                served_bonus=None,
                straight=None,
                ace_as_two=None,
                double_generala_after=None,
                served_generala=None,
                # The seed presents it as a form of General: the lowest die starts.
                first_player="lowest_die",
            ),
            dice=10,
            boxes_per_turn=2,
            applicable=TABLE_OPTIONS,
        ),
    )
}


# -- the Yahtzee family ---------------------------------------------------------------

UPPER = tuple(b.id for b in NUMBER_BOXES)
_NO_GENERALA = dict(served_bonus=None, straight=None, ace_as_two=None, double_generala_after=None,
                    served_generala=None)
_YAHTZEE_BOXES = NUMBER_BOXES + (
    BoxSpec("three_of_a_kind", "three", SUM),
    BoxSpec("four_of_a_kind", "four", SUM),
    BoxSpec("full_house", "full", FIXED),
    BoxSpec("small_straight", "runof:4", FIXED),
    BoxSpec("large_straight", "runof:5", FIXED),
    BoxSpec("yahtzee", "five", FIXED, role="yahtzee"),
    BoxSpec("chance", "any", SUM),
)
_YAHTZEE_DEFAULTS = Options(
    points=(("full_house", 25), ("large_straight", 40), ("small_straight", 30), ("yahtzee", 50)),
    **_NO_GENERALA, joker="forced", yahtzee_bonus=100,
)

FAMILY = (
    Variant(
        id="yahtzee",
        names=Message("variant.yahtzee"),
        description=Message("variant.yahtzee.about"),
        boxes=_YAHTZEE_BOXES,
        defaults=_YAHTZEE_DEFAULTS,
        applicable=TABLE_OPTIONS | YAHTZEE_ONLY,
        bonuses=(SectionBonus("upper_bonus", UPPER, 63, 35),),
        family="yahtzee",
    ),
    Variant(
        id="kniffel",
        names=Message("variant.kniffel"),
        description=Message("variant.kniffel.about"),
        boxes=_YAHTZEE_BOXES,
        defaults=_YAHTZEE_DEFAULTS,
        applicable=TABLE_OPTIONS | YAHTZEE_ONLY,
        bonuses=(SectionBonus("upper_bonus", UPPER, 63, 35),),
        family="yahtzee",
        # Kniffel's sheets call the five of a kind "Kniffel", in every language.
        box_names={"yahtzee": Message("variant.kniffel.box.yahtzee")},
    ),
    Variant(
        id="yatzy",
        names=Message("variant.yatzy"),
        description=Message("variant.yatzy.about"),
        boxes=NUMBER_BOXES + (
            BoxSpec("one_pair", "pairs:1", MATCHING),
            BoxSpec("two_pairs", "pairs:2", MATCHING),
            BoxSpec("three_of_a_kind", "three", MATCHING),
            BoxSpec("four_of_a_kind", "four", MATCHING),
            BoxSpec("small_straight", "run:12345", FIXED),
            BoxSpec("large_straight", "run:23456", FIXED),
            BoxSpec("full_house", "full", SUM),
            BoxSpec("chance", "any", SUM),
            BoxSpec("yatzy", "five", FIXED),
        ),
        defaults=Options(points=(("large_straight", 20), ("small_straight", 15), ("yatzy", 50)), **_NO_GENERALA),
        applicable=TABLE_OPTIONS,
        bonuses=(SectionBonus("upper_bonus", UPPER, 63, 50),),
        family="yahtzee",
    ),
    Variant(
        id="yacht",
        names=Message("variant.yacht"),
        description=Message("variant.yacht.about"),
        boxes=NUMBER_BOXES + (
            BoxSpec("full_house", "full", SUM),
            BoxSpec("four_of_a_kind", "four", MATCHING),
            BoxSpec("little_straight", "run:12345", FIXED),
            BoxSpec("big_straight", "run:23456", FIXED),
            BoxSpec("choice", "any", SUM),
            BoxSpec("yacht", "five", FIXED),
        ),
        defaults=Options(points=(("big_straight", 30), ("little_straight", 30), ("yacht", 50)), **_NO_GENERALA),
        applicable=TABLE_OPTIONS,
        family="yahtzee",
    ),
)
VARIANTS.update((v.id, v) for v in FAMILY)


def find_variant(variant_id: str) -> Variant:
    """Return the built-in variant with this id, or raise UnknownVariantError."""
    try:
        return VARIANTS[variant_id]
    except (KeyError, TypeError):
        raise UnknownVariantError(
            f"Unknown variant {variant_id!r}; the variants are: {', '.join(VARIANTS)}.", "variant"
        ) from None


def build_rules(spec: Mapping[str, Any]) -> RuleSet:
    """Return a rule set from ``{"base": id, <option>: value, ...}``.

    This is the shape house rules take in requests and in storage.
    """
    if not isinstance(spec, Mapping):
        raise InvalidOptionError('rules must be an object such as {"base": "generala"}.', None)
    if "base" not in spec:
        raise InvalidOptionError("rules needs a base variant.", "base")
    try:
        variant = find_variant(spec["base"])
    except UnknownVariantError as exc:
        raise InvalidOptionError(exc.message, "base") from None
    return variant.rules({k: v for k, v in spec.items() if k != "base"})
