"""The rule-set model takes new families as data, not as new code paths.

No built-in variant has a chance line, an upper bonus or thirteen lines yet;
this builds one from data alone and checks the engine scores it.
"""

from __future__ import annotations

from anotador.rules import FIXED, SUM, BoxSpec, Options, SectionBonus, Variant
from anotador.rules.names import BOX_NAMES
from anotador.rules.variants import NUMBER_BOXES

from .conftest import points_of

UPPER = tuple(b.id for b in NUMBER_BOXES)

YACHT = Variant(
    id="yacht-like",
    names={"en": "Yacht-like", "es": "Tipo yacht", "pt": "Tipo iate"},
    description={"en": "", "es": "", "pt": ""},
    boxes=NUMBER_BOXES + (
        BoxSpec("three_sum", "three", SUM),
        BoxSpec("four_sum", "four", SUM),
        BoxSpec("full", "full", FIXED),
        BoxSpec("low_run", "run:12345", FIXED),
        BoxSpec("high_run", "run:23456", FIXED),
        BoxSpec("yacht", "five", FIXED, role="generala"),
        BoxSpec("chance", "any", SUM),
    ),
    defaults=Options(points=(("full", 25), ("high_run", 40), ("low_run", 40), ("yacht", 50)),
                     served_bonus=0, served_generala="none"),
    bonuses=(SectionBonus("upper", UPPER, threshold=63, points=35),),
)


def test_a_thirteen_line_sheet_with_chance_and_sums():
    rules = YACHT.rules()
    assert rules.rounds == 13
    result = rules.score([6, 6, 6, 5, 5])
    pts = points_of(result)
    assert pts["chance"] == 28 and pts["three_sum"] == 28 and pts["full"] == 25
    assert "four_sum" not in pts
    assert not result.instant_win  # served_generala "none": no instant win here
    assert points_of(rules.score([1, 2, 3, 4, 5]))["low_run"] == 40


def test_upper_section_bonus_counts_in_the_total():
    rules = YACHT.rules()
    at_63 = {"ones": 3, "twos": 6, "threes": 9, "fours": 12, "fives": 15, "sixes": 18}
    assert rules.total(at_63) == 63 + 35
    assert rules.total({**at_63, "sixes": 12}) == 57


def test_house_rules_apply_to_a_new_family_too():
    rules = YACHT.rules(points={"full": 30})
    assert points_of(rules.score([2, 2, 2, 3, 3]))["full"] == 30


def test_names_follow_rules_md():
    three = ("en", "es", "pt")
    assert {k: BOX_NAMES["four"][k] for k in three} == {"en": "Four of a kind", "es": "Póker", "pt": "Quadra"}
    assert {k: BOX_NAMES["double_generala"][k] for k in three} == {
        "en": "Double generala", "es": "Generala doble", "pt": "General dupla"}
    assert BOX_NAMES["ones"]["es"] == "Al 1" and BOX_NAMES["sixes"]["pt"] == "Seis"
    assert BOX_NAMES["little_cameroon"]["es"] == "Camerún chico"
