"""Who was winning, on paper: each player's chance to win turn by turn, small, under a filled sheet.

Drawn from the chances a game's history gives (``anotador.solver.chances``
works them out; this module only draws numbers): one line per player, told
apart by dashes as well as by grey and colour, so a black-and-white printer
keeps them apart, and a key with every name.
"""

from __future__ import annotations

from typing import Sequence

from reportlab.lib.units import mm

from . import fonts
from .layout import MARGIN, Layout, Line, fit
from .words import UI

#: The height a chart takes at the bottom of the page (``layout(reserve=...)``).
CHART_H = 34 * mm
#: One look per player: a colour that prints as a distinct grey, and a dash pattern (points on, off).
LOOKS = [((0.13, 0.35, 0.65), ()), ((0.85, 0.45, 0.0), (4, 2)), ((0.1, 0.5, 0.25), (1.2, 1.6)),
         ((0.45, 0.2, 0.6), (6, 2, 1.5, 2)), ((0.0, 0.0, 0.0), (0.8, 3)), ((0.55, 0.4, 0.1), (9, 3))]



def chances_chart(page: Layout, names: Sequence[str], history: Sequence[Sequence[float] | None], lang: str) -> None:
    """Draw ``history`` (each player's chance before the first turn and after each turn, None where it is not
    worked out) in the bottom :data:`CHART_H` of ``page``: axes, 0/50/100 %, a line per player, and the key."""
    fonts.register()
    left, bottom = MARGIN, MARGIN
    width = page.width - 2 * MARGIN
    key_w = min(48 * mm, width * 0.3)
    plot_l, plot_r = left + 9 * mm, left + width - key_w - 4 * mm
    plot_b, plot_t = bottom + 5 * mm, bottom + CHART_H - 6 * mm
    page.texts.append(fit(UI["chart_title"][lang], fonts.BOLD, plot_r - left, 5 * mm, 9, x=left,
                          y=bottom + CHART_H - 5 * mm, wrap=False))
    grey = (0.55, 0.55, 0.55)
    page.lines += [Line(plot_l, plot_b, plot_r, plot_b, 0.6, grey), Line(plot_l, plot_b, plot_l, plot_t, 0.6, grey)]
    for c in (0.5, 1.0):
        y = plot_b + c * (plot_t - plot_b)
        page.lines.append(Line(plot_l, y, plot_r, y, 0.3, (0.8, 0.8, 0.8)))
    for c in (0.0, 0.5, 1.0):
        y = plot_b + c * (plot_t - plot_b)
        page.texts.append(fit(f"{int(c * 100)} %", fonts.REGULAR, 8 * mm, 3 * mm, 6, x=left, y=y - 1.5 * mm,
                              wrap=False, align="right"))
    turns = max(1, len(history) - 1)
    page.texts.append(fit(f"{UI['chart_turn'][lang]} {turns}", fonts.REGULAR, 20 * mm, 3 * mm, 6, x=plot_r - 20 * mm,
                          y=bottom, wrap=False, align="right"))
    X = lambda k: plot_l + (plot_r - plot_l) * k / turns  # noqa: E731
    Y = lambda c: plot_b + (plot_t - plot_b) * c  # noqa: E731
    known = next((k for k, h in enumerate(history) if h is not None), 0)
    if 0 < known < turns:  # worked out from this turn on (the Yahtzee family's last rounds): said where it starts
        page.lines.append(Line(X(known), plot_b, X(known), plot_t, 0.3, (0.8, 0.8, 0.8)))
        page.texts.append(fit(f"{UI['chart_turn'][lang]} {known}", fonts.REGULAR, 20 * mm, 3 * mm, 6,
                              x=X(known) - 10 * mm, y=bottom, wrap=False, align="center"))
    for i in range(len(names)):
        colour, dash = LOOKS[i % len(LOOKS)]
        for k in range(1, len(history)):
            if history[k - 1] is not None and history[k] is not None:  # None: not worked out (early turns)
                page.lines.append(Line(X(k - 1), Y(history[k - 1][i]), X(k), Y(history[k][i]), 1.1, colour, dash))
    # the key: a sample of each line, and the name
    row = min(4 * mm, (CHART_H - 6 * mm) / max(1, len(names)))
    for i, name in enumerate(names):
        colour, dash = LOOKS[i % len(LOOKS)]
        y = bottom + CHART_H - 8 * mm - i * row
        x = plot_r + 4 * mm
        page.lines.append(Line(x, y + row / 2, x + 8 * mm, y + row / 2, 1.1, colour, dash))
        page.texts.append(fit(name, fonts.REGULAR, key_w - 9 * mm, row, 7, x=x + 9 * mm, y=y, wrap=False))
