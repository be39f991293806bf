"""Printed score sheets: blank for any rule set, or filled from a finished game.

Pure reportlab, no Flask: the API and the CLI call these. The sheet reads
the rule set (boxes, order, values, names) and never restates a rule.
"""

from __future__ import annotations

from typing import Sequence

from ..rules import WORDS, RuleSet
from . import fonts
from .layout import (LANGS, MAX_GAMES, MAX_PLAYERS, SIZES, Layout, Line, Rect, SheetOptionError, check_fits,
                     check_options,
                     fit, layout)
from reportlab.lib.units import mm

from .chart import CHART_H, chances_chart
from .render import render
from .words import REASONS, UI, labelled, sheet_rows

__all__ = ["LANGS", "MAX_GAMES", "MAX_PLAYERS", "SIZES", "SheetOptionError", "blank_sheet", "check_fits",
           "check_options",
           "filled_sheet", "layout"]


def blank_sheet(rules: RuleSet, *, players: int = 6, names: Sequence[str] = (), games: int = 1,
                size: str = "a4", lang: str = "es") -> bytes:
    """A sheet to print and fill in by hand."""
    page = layout(rules, players=players, names=list(names), games=games, size=size, lang=lang)
    return render(page, rules.variant.names[lang], lang)


def filled_sheet(rules: RuleSet, *, names: Sequence[str], sheets: Sequence[dict], scratched: Sequence[Sequence[str]],
                 totals: Sequence[int], winners: Sequence[int], reason: str | None, date: str,
                 bonuses: Sequence[int] | None = None, size: str = "a4", lang: str = "es",
                 chances: Sequence[Sequence[float] | None] | None = None) -> bytes:
    """A game's record: recorded points, scratches crossed, subtotals and bonuses, totals, the winner.

    ``bonuses``: each player's points from bonuses of rolls (further Yahtzees). ``chances``: each player's
    chance to win before the first turn and after each turn, drawn small under the sheet (:mod:`.chart`).
    """
    subtitle = [labelled(UI["date"][lang], date, lang)]
    if winners:
        who = ", ".join(names[i] for i in winners)
        word = UI["winners" if len(winners) > 1 else "winner"][lang]
        why = REASONS[reason][lang] if reason else None
        if reason == "instant_win" and rules.variant.big_general:
            why = WORDS["big_general"][lang]
        subtitle.append(labelled(word, f"{who} ({why})" if why else who, lang))
    page = layout(rules, players=len(names), names=list(names), games=1, size=size, lang=lang,
                  subtitle=subtitle, reserve=CHART_H + 2 * mm if chances else 0.0)
    fill(page, rules, sheets, scratched, totals, winners, bonuses or [0] * len(names), lang)
    if chances:
        chances_chart(page, names, chances, lang)
    return render(page, f"{rules.variant.names[lang]} · {date}", lang)


def fill(page: Layout, rules: RuleSet, sheets: Sequence[dict], scratched: Sequence[Sequence[str]],
         totals: Sequence[int], winners: Sequence[int], bonuses: Sequence[int], lang: str) -> None:
    """Write a game's points into the player cells of ``page``, row by row as the sheet has them."""
    lines = sheet_rows(rules, lang)
    sections = {b.id: b for b in rules.bonuses}
    for p, sheet in enumerate(sheets):
        subtotal = rules.subtotals(sheet)
        bonus = rules.section_bonuses(sheet)
        for r, line in enumerate(lines):
            x, y, w, h = page.cells[(0, p, r)]
            value = None
            if line.kind == "box":
                if line.id in scratched[p]:
                    # a scratch is crossed out, as with a pencil
                    page.lines.append(Line(x + 1.5, y + 1.5, x + w - 1.5, y + h - 1.5, 0.9, (0.3, 0.3, 0.3)))
                    continue
                value = sheet.get(line.id)
            elif line.kind == "subtotal":
                value = subtotal[line.id]
            elif line.kind == "bonus":
                # its points once reached; 0 once the section is full without them
                done = all(b in sheet for b in sections[line.id].boxes)
                value = bonus[line.id] if bonus[line.id] or done else None
            elif line.kind == "rolls":
                value = bonuses[p] or None
            if value is not None:
                page.texts.append(fit(str(value), fonts.BOLD, w, h, 12, x=x, y=y, align="center",
                                      color=(0.05, 0.1, 0.45)))
        x, y, w, h = page.cells[(0, p, len(lines))]
        if p in winners:
            page.rects.append(Rect(x, y, w, h, (0.82, 0.82, 0.82)))
        page.texts.append(fit(str(totals[p]), fonts.BOLD, w, h, 12, x=x, y=y, align="center"))
