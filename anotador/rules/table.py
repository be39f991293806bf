"""The offline scoring table: what the page needs to score a roll with no connection.

It is worked out by asking the rule set, never by stating a rule again: for
every group of five dice, served or not, and every state of the boxes that
group's score reads (:meth:`RuleSet.watched`: free, 0 or points), the rule
set's own judgement (:meth:`RuleSet.judge`) -- the points in every box, the
order of groups a forced joker must go in, whether it wins on the spot, and
its bonus. A reader then does only what :meth:`RuleSet.score_counts` does
with a judgement: keep the free boxes (of the first group with one, when
there is an order), drop those at 0, best first.

The table's form (version 1)::

    {"version": 1, "group": 5, "boxes": [box id, ...], "served_matters": bool,
     "rolls": {"11234": [case, ...], "11234s": [...] (served; only when served matters)}}
    case: {"when": {box id: "free" | "zero" | "points"}, "points": [one per box],
           "order": [[box id, ...], ...] (only for a forced joker), "win": bool, "bonus": int}

A roll's first case whose ``when`` holds on the player's sheet is its
judgement; a roll whose cases all agree has one, with an empty ``when``.
"""

from __future__ import annotations

from itertools import product
from typing import Any

from .ruleset import RuleSet
from .spec import GROUP, groups_of

VERSION = 1
STATES = ("free", "zero", "points")


def _holding(rules: RuleSet, box: str, state: str) -> int | None:
    """A value ``box`` holds in ``state``: None when free, 0, or the least points it can hold."""
    if state == "free":
        return None
    if state == "zero":
        return 0
    return min(v for v in rules.possible_points[box] if v > 0)


def roll_key(counts: tuple[int, ...], served: bool) -> str:
    """A group's key: its dice in order, and "s" when it was served."""
    return "".join(str(face) * n for face, n in enumerate(counts, start=1)) + ("s" if served else "")


def offline_table(rules: RuleSet) -> dict[str, Any]:
    """The rule set's offline scoring table (see the module's docstring)."""
    ids = [b.id for b in rules.boxes]
    rolls: dict[str, list[dict[str, Any]]] = {}
    for counts in groups_of(GROUP):
        for served in (False, True) if rules.served_matters else (False,):
            watched = rules.watched(counts)
            cases = []
            for states in product(STATES, repeat=len(watched)):
                sheet = {box: held for box, state in zip(watched, states)
                         if (held := _holding(rules, box, state)) is not None}
                row, order, wins, bonus = rules.judge(counts, served, sheet)
                case: dict[str, Any] = {"when": dict(zip(watched, states)), "points": list(row),
                                        "win": wins, "bonus": bonus}
                if order is not None:
                    case["order"] = [[ids[i] for i in group] for group in order]
                cases.append(case)
            if all({**c, "when": {}} == {**cases[0], "when": {}} for c in cases):
                cases = [{**cases[0], "when": {}}]
            rolls[roll_key(counts, served)] = cases
    return {"version": VERSION, "group": GROUP, "boxes": ids, "served_matters": rules.served_matters,
            "rolls": rolls}
