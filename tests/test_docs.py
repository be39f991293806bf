"""The project's own documents stay true to the engine and to each other.

docs/rules.md is the rules reference users read; these tests read it back
and compare it with the rule objects, so a rule changed in one place and not
the other fails here.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from anotador.rules import BOX_NAMES, LANGUAGES, OPTION_NAMES, VARIANTS, find_variant
from anotador.rules import options as option_values

ROOT = Path(__file__).resolve().parents[1]
RULES_DOC = ROOT / "docs" / "rules.md"


@pytest.fixture(scope="module")
def doc() -> str:
    return RULES_DOC.read_text(encoding="utf-8")


def section(doc: str, heading: str) -> str:
    """The text under ``heading`` (a markdown heading line) up to the next heading of any level."""
    start = doc.index(heading + "\n") + len(heading) + 1
    nxt = re.search(r"^#{1,3} ", doc[start:], re.M)
    return doc[start:start + nxt.start()] if nxt else doc[start:]


def table_rows(text: str) -> list[list[str]]:
    """The body rows of the first markdown table in ``text``, cells stripped."""
    rows = [line for line in text.splitlines() if line.startswith("|")]
    return [[c.strip() for c in row.strip("|").split("|")] for row in rows[2:]]


def test_every_identifier_of_the_engine_is_documented(doc):
    words = set(re.findall(r"`([^`]+)`", doc))
    missing = [v for v in VARIANTS if v not in words]
    missing += [b for b in BOX_NAMES if b not in words]
    missing += [o for o in OPTION_NAMES if o not in words]
    for values in (option_values.STRAIGHTS, option_values.DOUBLE_AFTER, option_values.SERVED_GENERALA,
                   option_values.TIE_BREAKS, option_values.FIRST_PLAYER, option_values.JOKERS):
        missing += [v for v in values if v not in words]
    assert missing == [], f"docs/rules.md does not mention {missing}"


@pytest.mark.parametrize("variant_id", list(VARIANTS))
def test_each_variant_table_matches_its_boxes(doc, variant_id):
    rules = find_variant(variant_id).rules()
    rows = table_rows(section(doc, f"### `{variant_id}`"))
    assert [r[0].strip("`") for r in rows] == [b.id for b in rules.boxes]
    for (box_id, names, scores, served), box in zip(rows, rules.boxes):
        assert names == " · ".join(rules.names_of(box.id)[lang] for lang in LANGUAGES)
        if box.kind == "number":
            assert scores == f"sum of the {box.face}s (max {rules.max_points(box.id)})"
        elif box.kind == "sum":
            assert scores == f"total of the five dice (max {rules.max_points(box.id)})"
        elif box.kind == "matching":
            assert scores == f"the dice that make it (max {rules.max_points(box.id)})"
        else:
            assert scores == str(box.value)
        if box.kind != "fixed" or box.served_value == box.value and box.role != "generala":
            assert served == "no bonus"
        elif box.served_value == 0:
            assert served == "does not qualify"
        elif box.role == "generala":
            policy = rules.options.served_generala
            assert served == {"win_always": "wins the game", "win_if_open": "wins while open",
                              "win_unless_scratched": "wins unless scratched"}[policy]
        else:
            assert served == str(box.served_value)


def test_the_variant_list_says_each_variant_once(doc):
    rows = table_rows(section(doc, "## Built-in variants"))
    assert [r[0].strip("`") for r in rows] == list(VARIANTS)


def test_option_table_lists_every_option_with_generala_defaults(doc):
    rows = table_rows(section(doc, "## House rules (options)"))
    assert [r[0].strip("`") for r in rows] == list(OPTION_NAMES)
    defaults = find_variant("generala").rules().options.as_dict()
    for name, _values, _meaning, default in rows:
        value = defaults[name.strip("`")]
        if isinstance(value, str):
            assert default == f"`{value}`"
        elif isinstance(value, bool):
            assert default == f"`{str(value).lower()}`"
        elif value is None:
            assert default.startswith("`null`")
        elif isinstance(value, int):
            assert default == str(value)


def _parse_example(variant_cell: str, sheet_cell: str):
    ids = re.findall(r"`([^`]+)`", variant_cell)
    overrides = {}
    for opt in ids[1:]:
        name, _, value = opt.partition(": ")
        overrides[name] = int(value) if value else True
    sheet = {k: int(v) for k, v in re.findall(r"`(\w+)` (\d+)", sheet_cell)}
    return find_variant(ids[0]).rules(overrides), sheet


def test_worked_examples_are_what_the_engine_answers(doc):
    rows = table_rows(section(doc, "## Worked examples"))
    assert len(rows) >= 12
    for variant_cell, dice_cell, served_cell, sheet_cell, offered in rows:
        rules, sheet = _parse_example(variant_cell, sheet_cell)
        served = served_cell == "yes"
        claimed = [(k, int(v)) for k, v in re.findall(r"`(\w+)` (\d+)", offered)]
        if rules.boxes_per_turn == 2:
            dice = [int(d) for d in re.findall(r"\d", dice_cell)]
            best = rules.assignments(dice, served, sheet, limit=1)[0]
            assert [(p.category, p.points) for p in best.placements] == claimed[:2], variant_cell
            continue
        dice = [int(d) for d in dice_cell.split("-")]
        result = rules.score(dice, served, sheet)
        assert result.instant_win == ("wins the game" in offered), (variant_cell, dice_cell)
        options = [(o.category, o.points) for o in result.options]
        if "(served: " in offered:  # the same dice served, in brackets
            plain, _, extra = offered.partition("(served: ")
            served_claims = [(k, int(v)) for k, v in re.findall(r"`(\w+)` (\d+)", extra)]
            served_options = [(o.category, o.points) for o in rules.score(dice, True, sheet).options]
            assert all(c in served_options for c in served_claims)
            claimed = [(k, int(v)) for k, v in re.findall(r"`(\w+)` (\d+)", plain)]
        if "may still go in" in offered:
            assert all(c in options for c in claimed), (dice_cell, options)
        elif "not open yet" in offered:
            assert options == claimed[:len(options)] and "double_generala" not in dict(options)
        elif "only" in offered:
            assert options == claimed, (dice_cell, options)
        else:
            assert options[:len(claimed)] == claimed, (variant_cell, dice_cell, options)


def test_readme_and_spec_point_to_the_rules_reference():
    assert "docs/rules.md" in (ROOT / "README.md").read_text(encoding="utf-8")
    assert "docs/rules.md" in (ROOT / "openapi.yaml").read_text(encoding="utf-8")
    assert "../shared" not in (ROOT / "README.md").read_text(encoding="utf-8")


def test_the_expected_scores_are_the_solvers(doc):
    """Small tables are solved here; the big ones are the published values tests/test_solver.py recomputes."""
    from anotador.solver import Solver

    from .conftest import solved
    from .test_solver import PUBLISHED

    section = doc.split("## Expected scores under optimal play")[1].split("\n## ")[0]
    rows = dict(re.findall(r"^\| `([\w-]+)` \| ([\d.]+)", section, re.M))
    assert set(rows) == set(VARIANTS)
    published = {v: x for v, o, x, _ in PUBLISHED if o.get("joker") != "free"}  # the variants' own rules
    published["kniffel"] = published["yahtzee"]  # the same rules (tests/test_solver.py)
    for variant, text in rows.items():
        rules = find_variant(variant).rules()
        if Solver(rules).space.size <= 10_000:
            assert float(text) == round(float(solved(rules)[1][0]), 4), variant
        else:
            assert float(text) == published[variant], variant
    assert ("yahtzee", {"joker": "free"}, 254.5896, 4) in PUBLISHED and "254.5896 with `joker: free`" in section
