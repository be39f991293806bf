"""What a printed sheet says, in every language offered, read off the rule objects.

Every number printed comes from the rule set (a box's value, served value,
maximum; the bonuses; the options); nothing here restates a rule, it only
phrases one. The phrases are the catalogs' ``print.*`` messages.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass

from ..locales import Messages, word
from ..rules import BOX_NAMES, WORDS, RuleSet


#: The sheet's own words: "total", "game", "player", "max", "winner", "house_rules", "bonus_at"...
UI = Messages("print")
#: Why a game was won, as a filled sheet says it.
REASONS = Messages("print.reason")
_SERVED_GENERALA = Messages("print.served_generala")
_TIE = Messages("print.tie")
_FIRST = Messages("print.first")
_OPTION_NAMES = Messages("print.option")
_VALUES = Messages("print.value")
#: How the legend says an option's yes, no and nothing.
_FLAGS = {True: "yes", False: "no", None: "none"}


def _say(key: str, lang: str, **params: object) -> str:
    return word(lang, f"print.{key}", **params)


def labelled(label: str, value: str, lang: str) -> str:
    """"Date: 7/12/2026", as the language writes a label and its value (French: a space before the colon)."""
    return _say("labelled", lang, label=label, value=value)


def box_name(box_id: str, lang: str, rules: RuleSet | None = None) -> str:
    """A box's name, as ``rules``' variant calls it (Kniffel's "Kniffel")."""
    return (rules.names_of(box_id) if rules is not None else BOX_NAMES[box_id])[lang]


def box_values(rules: RuleSet, box_id: str, lang: str) -> str:
    """The values column of a box: "20 · 25 servida", "máx 30", "suma · máx 28", "sus dados · máx 24"."""
    box = rules.box(box_id)
    if box.kind == "number":
        return f"{UI['max'][lang]} {rules.max_points(box_id)}"
    if box.kind == "sum":
        return f"{UI['sum'][lang]} · {UI['max'][lang]} {rules.max_points(box_id)}"
    if box.kind == "matching":
        return f"{UI['dice'][lang]} · {UI['max'][lang]} {rules.max_points(box_id)}"
    served = WORDS["served"][lang]
    if box.role == "generala" and rules.variant.big_general and box.served_value == 0:
        return f"{box.value} · {UI['not_served'][lang]}"
    if box.role == "generala" and (rules.options.served_generala or "").startswith("win"):
        return f"{box.value} · {UI['served_wins'][lang]}"
    if box.served_value != box.value:
        return f"{box.value} · {box.served_value} {served}"
    return str(box.value)


@dataclass(frozen=True)
class Row:
    """A line of the printed sheet: a box, or a section's subtotal or bonus, or a bonus of rolls."""

    kind: str          # "box", "subtotal", "bonus", "rolls"
    id: str            # the box id, or the bonus id
    label: str
    values: str


def sheet_rows(rules: RuleSet, lang: str) -> list[Row]:
    """Every line of the sheet in order, the total excepted: the boxes, each bonus section's
    subtotal and bonus right after its last box, and a line for further Yahtzees before the total."""
    rows = []
    last = {b.boxes[-1]: b for b in rules.bonuses}
    for box in rules.boxes:
        rows.append(Row("box", box.id, box_name(box.id, lang, rules), box_values(rules, box.id, lang)))
        if box.id in last:
            bonus = last[box.id]
            rows.append(Row("subtotal", bonus.id, WORDS["upper"][lang], ""))
            rows.append(Row("bonus", bonus.id, WORDS[bonus.id][lang],
                            UI["bonus_at"][lang].format(points=bonus.points, threshold=bonus.threshold)))
    if rules.options.yahtzee_bonus:
        rows.append(Row("rolls", "yahtzee_bonus", yahtzee_bonus_name(rules, lang),
                        UI["each"][lang].format(points=rules.options.yahtzee_bonus)))
    return rows


def yahtzee_bonus_name(rules: RuleSet, lang: str) -> str:
    box = next(b.id for b in rules.boxes if b.role == "yahtzee")
    return WORDS["yahtzee_bonus"][lang].format(box=box_name(box, lang, rules))


def _value(value, lang: str, rules: RuleSet) -> str:
    if isinstance(value, dict):
        return ", ".join(f"{box_name(k, lang, rules)} {v}" for k, v in value.items())
    # bool/None and strings only: 1 == True, so a served bonus of 1 is not "yes".
    if isinstance(value, bool) or value is None:
        return UI[_FLAGS[value]][lang]
    if isinstance(value, str) and value in _VALUES:
        return _VALUES[value][lang]
    if value in _TIE:
        return _TIE[value][lang].split(":", 1)[1].strip().rstrip(".")
    if value in _FIRST:
        return _FIRST[value][lang].rstrip(".")
    return str(value)


def house_rules(rules: RuleSet, lang: str) -> str | None:
    """The options that differ from the variant as published, or None."""
    base = rules.variant.default_rules.options.as_dict()
    mine = rules.options.as_dict()
    parts = []
    for name, value in mine.items():
        if name == "points":
            changed = {k: v for k, v in value.items() if base["points"].get(k) != v}
            if changed:
                parts.append(labelled(_OPTION_NAMES[name][lang], _value(changed, lang, rules), lang))
        elif value != base[name] and name != "served_generala_points":
            parts.append(labelled(_OPTION_NAMES[name][lang], _value(value, lang, rules), lang))
    if not parts:
        return None
    listed = functools.reduce(lambda first, then: _say("list", lang, first=first, then=then), parts)
    return labelled(UI["house_rules"][lang], listed, lang) + "."


def legend(rules: RuleSet, lang: str) -> list[str]:
    """Footer lines: served, scratch, instant win, bonuses and jokers, ties, who starts, house rules."""
    lines = []
    served_boxes = [b for b in rules.boxes
                    if b.kind == "fixed" and b.served_value != b.value and b.role != "generala"]
    served = WORDS["served"][lang].capitalize()
    if served_boxes:
        bonus = served_boxes[0].served_value - served_boxes[0].value
        names = ", ".join(box_name(b.id, lang, rules) for b in served_boxes)
        lines.append(_say("served_line", lang, served=served, bonus=bonus, names=names))
    scratch = WORDS["scratch"][lang].capitalize()
    lines.append(_say("scratch_line", lang, scratch=scratch))
    generala = next((b for b in rules.boxes if b.role == "generala"), None)
    if generala is not None and rules.variant.big_general and generala.served_value == 0:
        # general-pr: the served five of a kind is not the generala line's.
        big, small = WORDS["big_general"][lang], box_name(generala.id, lang, rules)
        lines.append(_say("big_general_line", lang, big=big, small=small))
    elif generala is not None and rules.options.served_generala:
        text = _SERVED_GENERALA[rules.options.served_generala][lang]
        lines.append(text.format(box=box_name(generala.id, lang, rules), points=generala.served_value))
    double = next((b for b in rules.boxes if b.role == "double_generala"), None)
    if double is not None:
        after = _VALUES[rules.options.double_generala_after][lang]
        d, g = box_name(double.id, lang, rules), box_name(generala.id, lang, rules)
        lines.append(_say("double_line", lang, double=d, generala=g, after=after))
    for bonus in rules.bonuses:
        lines.append(_say("bonus_line", lang, bonus=WORDS[bonus.id][lang], points=bonus.points,
                          threshold=bonus.threshold))
    if rules.options.joker:
        lines.append(_joker_line(rules, lang))
    if rules.boxes_per_turn > 1:
        lines.append(_say("two_boxes_line", lang, rounds=rules.rounds))
    lines.append(_TIE[rules.options.tie_break][lang] + " " + _FIRST[rules.options.first_player][lang])
    extra = house_rules(rules, lang)
    if extra:
        lines.append(extra)
    return lines


def _joker_line(rules: RuleSet, lang: str) -> str:
    """A further Yahtzee: its bonus and the joker rule, phrased from the options."""
    y = box_name(next(b.id for b in rules.boxes if b.role == "yahtzee"), lang, rules)
    pts = rules.options.yahtzee_bonus or 0
    bonus = _say("joker_bonus", lang, box=y, points=pts) if pts else ""
    rule = UI["joker_forced" if rules.options.joker == "forced" else "joker_free"][lang]
    return (bonus + rule) if pts else rule[0].upper() + rule[1:]
