"""Where everything goes on a score sheet: pure geometry, no drawing.

:func:`layout` turns a rule set and the sheet options into a :class:`Layout`:
page size, grid lines, shaded rows, and every piece of text already fitted
to its cell (shrunk, or wrapped, never overflowing). Tests measure the
result; :mod:`.render` only draws it.
"""

from __future__ import annotations

import bisect
import itertools
import math
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Sequence

from reportlab.lib.pagesizes import A4, LETTER, landscape
from reportlab.lib.units import mm

from ..locales import LANGUAGES
from ..rules import InvalidNameError, RuleSet, clean_name
from . import fonts
from .words import UI, Row, labelled, legend, sheet_rows

SIZES = {"a4": A4, "letter": LETTER}
LANGS = tuple(LANGUAGES)
MAX_PLAYERS, MAX_GAMES = 12, 3

MARGIN = 11 * mm
PAD = 1.2 * mm
#: Comfortable and smallest sizes of a player's column and a row: room to
#: write two digits by hand at the table.
COL_IDEAL, COL_MIN, COL_MAX = 16 * mm, 9 * mm, 26 * mm
ROW_IDEAL, ROW_MIN, ROW_MAX = 8.5 * mm, 5 * mm, 11 * mm
HEADER_H = 8 * mm
GAME_H = 5 * mm
BLOCK_GAP = 5 * mm
TITLE_H = 14 * mm
LEGEND_SIZE = 7.5
#: Line height, as a multiple of the font size.
LEADING = 1.15


class SheetOptionError(ValueError):
    """A sheet option out of range; ``field`` names it."""

    def __init__(self, message: str, field: str):
        super().__init__(message)
        self.message, self.field = message, field


@dataclass(frozen=True)
class Text:
    """Text fitted into the box (x, y, w, h): ``lines`` at ``size`` points."""

    lines: tuple[str, ...]
    x: float
    y: float
    w: float
    h: float
    font: str
    size: float
    align: str = "left"   # left | center | right
    color: tuple[float, float, float] = (0, 0, 0)


@dataclass(frozen=True)
class Line:
    x1: float
    y1: float
    x2: float
    y2: float
    width: float = 0.5
    color: tuple[float, float, float] = (0.25, 0.25, 0.25)
    dash: tuple[float, ...] = ()  # on, off, ... in points; () is solid


@dataclass(frozen=True)
class Rect:
    x: float
    y: float
    w: float
    h: float
    fill: tuple[float, float, float]


@dataclass
class Layout:
    """A page: its size, and what to draw on it."""

    width: float
    height: float
    texts: list[Text] = field(default_factory=list)
    lines: list[Line] = field(default_factory=list)
    rects: list[Rect] = field(default_factory=list)
    #: Player column cells: (block, player, row) → (x, y, w, h), rows as :func:`sheet_rows` lists
    #: them; the last row is the total.
    cells: dict[tuple[int, int, int], tuple[float, float, float, float]] = field(default_factory=dict)


#: Font sizes are tried in steps of this many points.
STEP = 0.25


def _largest(size: float, smallest: float, ok) -> float | None:
    """The largest ``size - k*STEP`` not below ``smallest`` for which ``ok`` holds, or None.

    ``ok`` must be monotone: true at some size, then at every smaller one
    (smaller text fits more easily). Bisection needs a handful of tries
    where stepping down one size at a time needed dozens.
    """
    n = math.floor((size - smallest) / STEP + 1e-9)
    if n < 0:
        return None
    if ok(size):
        return size
    if not ok(size - n * STEP):
        return None
    lo, hi = 0, n  # ok fails at lo, holds at hi
    while hi - lo > 1:
        mid = (lo + hi) // 2
        if ok(size - mid * STEP):
            hi = mid
        else:
            lo = mid
    return size - hi * STEP


def fit(text: str, font: str, w: float, h: float, size: float, min_size: float = 5.0, wrap: bool = True,
        **kw) -> Text:
    """Fit ``text`` into (w, h) at ``size`` or smaller, wrapping when it must.

    One line is tried down to ``min_size``; then (with ``wrap``) as many
    lines as the height holds, breaking between words, or inside a word too
    long for a line; last, one line shrunk until it fits. Every line of the
    result is no wider than ``w - 2*PAD``: never an overflow.

    Widths grow in proportion to the size, so each word is measured once
    (:func:`fonts.unit_width`) and every size is a multiplication; the
    sizes are searched by bisection. The work is bounded by the words of
    the text, whatever the cell.
    """
    room = max(w - 2 * PAD, 1)
    unit = fonts.unit_width(text, font)
    s = _largest(size, min_size, lambda s: unit * s <= room and s * LEADING <= h)
    if s is not None:
        return Text((text,), font=font, size=s, w=w, h=h, **kw)
    if wrap:
        # Between words first, at any readable size; inside a word only if
        # that cannot fit.
        for split_words, smallest in ((False, 4), (True, 3)):
            found: dict[float, list[str] | None] = {}

            def ok(s: float) -> bool:
                lines = found[s] = _break(text, font, s, room, split_words)
                return lines is not None and len(lines) * s * LEADING <= h

            s = _largest(size, smallest, ok)
            if s is not None and len(found[s]) > 1:  # type: ignore[arg-type]
                return Text(tuple(found[s]), font=font, size=s, w=w, h=h, **kw)  # type: ignore[arg-type]
    s = min(size, h / LEADING)
    if unit * s > room:  # shrink in steps until it fits, or down to half a point
        s = max(s - math.ceil((s - room / unit) / STEP - 1e-9) * STEP, s - math.ceil((s - 0.5) / STEP) * STEP)
    return Text((text,), font=font, size=s, w=w, h=h, **kw)


def _break(text: str, font: str, size: float, room: float, split_words: bool) -> list[str] | None:
    """Greedy line breaking at ``size``; a word wider than a line is split,
    or (without ``split_words``) the text does not break: None.

    Widths add up (no kerning): a line is as wide as its words and spaces.
    """
    limit = room / size  # the room in units of a one-point font
    pieces: list[tuple[str, float]] = []
    for word in text.split():
        width = fonts.unit_width(word, font)
        if width > limit:
            if not split_words:
                return None
            pieces.extend(_split_word(word, font, limit))
        else:
            pieces.append((word, width))
    space = fonts.unit_width(" ", font)
    lines: list[str] = []
    widths: list[float] = []
    for piece, width in pieces:
        if lines and widths[-1] + space + width <= limit:
            lines[-1] = f"{lines[-1]} {piece}"
            widths[-1] += space + width
        else:
            lines.append(piece)
            widths.append(width)
    return lines


def _split_word(word: str, font: str, limit: float) -> list[tuple[str, float]]:
    """Cut a word too wide for a line into pieces that fit, longest first
    (a single character stays whole even if it does not fit)."""
    edges = _edges(word, font)  # edges[i]: width of word[:i + 1]
    pieces = []
    start, base = 0, 0.0
    while len(word) - start > 1 and edges[-1] - base > limit:
        cut = max(start + 1, bisect.bisect_right(edges, base + limit, lo=start))
        pieces.append((word[start:cut], edges[cut - 1] - base))
        start, base = cut, edges[cut - 1]
    pieces.append((word[start:], edges[-1] - base))
    return pieces


@lru_cache(maxsize=1024)
def _edges(word: str, font: str) -> tuple[float, ...]:
    return tuple(itertools.accumulate(fonts.unit_width(ch, font) for ch in word))


def check_options(players: int, names: Sequence[str], games: int, size: str, lang: str) -> list[str]:
    """Return the names as printed, or raise SheetOptionError for options a sheet cannot hold.

    A name follows the one rule for player names (:func:`clean_name`); an
    empty one leaves that column's line blank, to write on.
    """
    if type(players) is not int or not 1 <= players <= MAX_PLAYERS:
        raise SheetOptionError(f"players must be 1 to {MAX_PLAYERS}.", "players")
    if len(names) > players:
        raise SheetOptionError(f"{len(names)} names for {players} players.", "names")
    cleaned = []
    for i, name in enumerate(names):
        try:
            cleaned.append("" if name == "" else clean_name(name, f"names.{i}"))
        except InvalidNameError as exc:
            raise SheetOptionError(exc.message, exc.field or f"names.{i}") from None
    if type(games) is not int or not 1 <= games <= MAX_GAMES:
        raise SheetOptionError(f"games must be 1 to {MAX_GAMES}.", "games")
    if size not in SIZES:
        raise SheetOptionError(f"size must be one of: {', '.join(SIZES)}.", "size")
    if lang not in LANGS:
        raise SheetOptionError(f"lang must be one of: {', '.join(LANGS)}.", "lang")
    return cleaned


def _legend_texts(rules: RuleSet, lang: str, width: float) -> list[str]:
    """Legend sentences wrapped to ``width`` at the legend size."""
    out = []
    for sentence in legend(rules, lang):
        line = ""
        for word in sentence.split(" "):
            trial = f"{line} {word}".strip()
            if fonts.width(trial, fonts.REGULAR, LEGEND_SIZE) <= width or not line:
                line = trial
            else:
                out.append(line)
                line = word
        out.append(line)
    return out


@dataclass(frozen=True)
class _Plan:
    page: tuple[float, float]
    per_row: int
    block_rows: int
    col: float
    row: float
    label: float
    score: float


def _plan(rules: RuleSet, players: int, games: int, size: str, lang: str, label_ideal: float,
          legend_lines: int, reserve: float = 0.0) -> _Plan:
    """Choose orientation and blocks per row that give the roomiest cells."""
    rows = len(sheet_rows(rules, lang)) + 1
    plans = []
    for upright, page in ((True, SIZES[size]), (False, landscape(SIZES[size]))):
        avail_w = page[0] - 2 * MARGIN
        avail_h = page[1] - 2 * MARGIN - TITLE_H - legend_lines * LEGEND_SIZE * 1.3 - 3 * mm - reserve
        for per_row in range(1, games + 1):
            block_rows = math.ceil(games / per_row)
            game_h = GAME_H if per_row > 1 else 0  # stacked games are named in the corner cell
            row = (avail_h - block_rows * (HEADER_H + game_h) - (block_rows - 1) * BLOCK_GAP) / (block_rows * rows)
            label = label_ideal
            col = (avail_w - label - (per_row - 1) * BLOCK_GAP) / (per_row * players)
            if col < COL_MIN:  # give the player columns room: narrow the labels
                label = max(25 * mm, avail_w - (per_row - 1) * BLOCK_GAP - per_row * players * COL_MIN)
                col = (avail_w - label - (per_row - 1) * BLOCK_GAP) / (per_row * players)
            col, row = min(col, COL_MAX), min(row, ROW_MAX)
            # First: room to write (capped once comfortable). Then: use the
            # page rather than leave half of it blank.
            room = min(col / COL_IDEAL, row / ROW_IDEAL, 1.0)
            if col < COL_MIN or row < ROW_MIN:
                room /= 2  # too small to write in: any plan that is not wins
            used = (label + per_row * players * col) * block_rows * rows * row / (avail_w * avail_h)
            # Ties go to portrait, the way paper anotadores are printed.
            plans.append(_Plan(page, per_row, block_rows, col, row, label, room + 0.05 * used + 0.002 * upright))
    return max(plans, key=lambda p: p.score)


#: The smallest player cell a sheet may have: room to write two digits by hand.
CELL_MIN_W, CELL_MIN_H = 25.0, 14.0  # 8.8 mm x 4.9 mm


def _fitting_plan(rules: RuleSet, players: int, games: int, size: str, lang: str, reserve: float = 0.0):
    """The page plan for these options, or SheetOptionError if no plan leaves room to write."""
    fonts.register()
    lines = sheet_rows(rules, lang)
    name_w = max(fonts.width(r.label, fonts.BOLD, 10) for r in lines) + 2 * PAD + 2
    value_w = max(fonts.width(r.values, fonts.REGULAR, 8) for r in lines) + 2 * PAD + 2
    label_ideal = min(name_w + value_w, 80 * mm)
    page_guess = SIZES[size][0] - 2 * MARGIN
    legend_lines = len(_legend_texts(rules, lang, page_guess))
    plan = _plan(rules, players, games, size, lang, label_ideal, legend_lines, reserve)
    if plan.col < CELL_MIN_W - 0.01 or plan.row < CELL_MIN_H - 0.01:
        # A long sheet (Yahtzee's 16 lines) for many players and games does not fit one page.
        raise SheetOptionError(
            f"{games} games of {players} players of {rules.variant.id} do not fit one {size.upper()} page with "
            f"room to write; ask for fewer games or players.", "games")
    return plan, lines, name_w, value_w


def check_fits(rules: RuleSet, players: int, games: int, size: str, lang: str) -> None:
    """Raise SheetOptionError when the sheet would not fit a page legibly (see :func:`layout`)."""
    _fitting_plan(rules, players, games, size, lang)


def layout(rules: RuleSet, *, players: int = 6, names: list[str] | tuple[str, ...] = (), games: int = 1,
           size: str = "a4", lang: str = "es", title: str | None = None,
           subtitle: list[str] | tuple[str, ...] = (), reserve: float = 0.0) -> Layout:
    """Lay out a sheet for ``rules``: boxes in sheet order, a column per player; ``reserve`` points of the page
    left free at the bottom (a chart's)."""
    names = check_options(players, names, games, size, lang)
    plan, lines, name_w, value_w = _fitting_plan(rules, players, games, size, lang, reserve)
    n_rows = len(lines) + 1
    width, height = plan.page
    out = Layout(width, height)
    legend_text = _legend_texts(rules, lang, width - 2 * MARGIN)

    # Title, and a subtitle (the date line, or a finished game's result).
    top = height - MARGIN
    heading = title or rules.variant.names[lang]
    out.texts.append(fit(heading, fonts.BOLD, width - 2 * MARGIN, 8 * mm, 16, x=MARGIN, y=top - 8 * mm))
    sub = " · ".join(subtitle) if subtitle else labelled(UI["date"][lang], "____________________", lang)
    out.texts.append(fit(sub, fonts.REGULAR, width - 2 * MARGIN, 5 * mm, 9, x=MARGIN, y=top - TITLE_H + 1 * mm,
                         color=(0.2, 0.2, 0.2)))

    label = plan.label
    name_col = label * name_w / (name_w + value_w)
    value_col = label - name_col
    y = top - TITLE_H
    for block in range(games):
        br, bc = divmod(block, plan.per_row)
        bx = MARGIN + bc * (plan.col * players + BLOCK_GAP) + (label if bc else 0)
        if bc == 0 and br:
            y -= BLOCK_GAP
        if bc == 0:
            block_top = y
            y_game = block_top
            if plan.per_row > 1:
                y_game -= GAME_H
            header_bottom = y_game - HEADER_H
            grid_bottom = header_bottom - n_rows * plan.row
            # the label column for this row of blocks
            _labels(out, lines, lang, MARGIN, header_bottom, name_col, value_col, plan.row, n_rows)
            y = grid_bottom
        x0 = bx if bc else MARGIN + label
        if games > 1 and plan.per_row > 1:
            out.texts.append(fit(f"{UI['game'][lang]} {block + 1}", fonts.BOLD, plan.col * players, GAME_H, 9,
                                 x=x0, y=y_game, align="center"))
        elif games > 1:  # the empty corner above the box names
            out.texts.append(fit(f"{UI['game'][lang]} {block + 1}", fonts.BOLD, label, HEADER_H, 11,
                                 x=MARGIN, y=header_bottom))
        _columns(out, block, players, names, lines, x0, header_bottom, plan.col, plan.row, n_rows)

    # Legend, under the last row of blocks.
    ly = y - 4 * mm
    for line in legend_text:
        out.texts.append(fit(line, fonts.REGULAR, width - 2 * MARGIN, LEGEND_SIZE * 1.25, LEGEND_SIZE, wrap=False,
                             x=MARGIN, y=ly - LEGEND_SIZE * 1.25, color=(0.15, 0.15, 0.15)))
        ly -= LEGEND_SIZE * 1.3
    return out


def _labels(out: Layout, lines: list[Row], lang: str, x: float, top: float, name_w: float, value_w: float,
            row: float, n_rows: int) -> None:
    for i, line in enumerate(lines):
        y = top - (i + 1) * row
        if line.kind != "box":
            out.rects.append(Rect(x, y, name_w + value_w, row, (0.86, 0.86, 0.86)))
        elif i % 2:
            out.rects.append(Rect(x, y, name_w + value_w, row, (0.93, 0.93, 0.93)))
        font = fonts.BOLD if line.kind in ("box", "bonus", "rolls") else fonts.REGULAR
        out.texts.append(fit(line.label, font, name_w, row, 10, x=x, y=y))
        if line.values:
            out.texts.append(fit(line.values, fonts.REGULAR, value_w, row, 8, x=x + name_w, y=y,
                                 align="right", color=(0.25, 0.25, 0.25)))
        out.lines.append(Line(x, y, x + name_w + value_w, y))
    y = top - n_rows * row
    out.texts.append(fit(UI["total"][lang], fonts.BOLD, name_w, row, 11, x=x, y=y))
    out.lines += [Line(x, top, x + name_w + value_w, top, 1.2, (0, 0, 0)),
                  Line(x, y + row, x + name_w + value_w, y + row, 1.2, (0, 0, 0)),
                  Line(x, y, x + name_w + value_w, y, 1.2, (0, 0, 0)),
                  Line(x, y, x, top, 1.2, (0, 0, 0))]


def _columns(out: Layout, block: int, players: int, names: list[str], lines: list[Row], x0: float, top: float,
             col: float, row: float, n_rows: int) -> None:
    bottom = top - n_rows * row
    right = x0 + players * col
    for i, line in enumerate(lines):  # the same shading as the labels, across
        if line.kind != "box" or i % 2:
            shade = 0.86 if line.kind != "box" else 0.93
            out.rects.append(Rect(x0, top - (i + 1) * row, players * col, row, (shade, shade, shade)))
    for p in range(players):
        x = x0 + p * col
        if p < len(names) and names[p]:
            name = names[p]
            # two lines of a readable size before one line too small to read; a name Vera cannot
            # draw falls back to the shipped fonts when it is drawn (fonts.pieces)
            out.texts.append(fit(name, fonts.BOLD, col, HEADER_H, 10, min_size=7, x=x, y=top, align="center"))
        else:  # a line to write the name on
            out.lines.append(Line(x + 1.5 * mm, top + 2 * mm, x + col - 1.5 * mm, top + 2 * mm, 0.4,
                                  (0.45, 0.45, 0.45)))
        for r in range(n_rows):
            out.cells[(block, p, r)] = (x, top - (r + 1) * row, col, row)
        out.lines.append(Line(x, bottom, x, top + HEADER_H, 0.6 if p else 1.2, (0.2, 0.2, 0.2) if p else (0, 0, 0)))
    out.lines.append(Line(right, bottom, right, top + HEADER_H, 1.2, (0, 0, 0)))
    for r in range(n_rows + 1):
        y = top - r * row
        heavy = r in (0, n_rows - 1, n_rows)
        out.lines.append(Line(x0, y, right, y, 1.2 if heavy else 0.5, (0, 0, 0) if heavy else (0.35, 0.35, 0.35)))
    out.lines.append(Line(x0, top + HEADER_H, right, top + HEADER_H, 1.2, (0, 0, 0)))
