"""Draw a :class:`~.layout.Layout` with reportlab, reproducibly."""

from __future__ import annotations

import io

from reportlab.pdfgen.canvas import Canvas

from ..locales import VARIETY
from . import fonts
from .layout import LEADING, PAD, Layout, Text


def render(layout: Layout, title: str, lang: str) -> bytes:
    """Return the PDF bytes of one page.

    Invariant mode fixes the creation date and document id, so the same
    sheet is the same bytes on every run and every machine.
    """
    buf = io.BytesIO()
    c = Canvas(buf, pagesize=(layout.width, layout.height), invariant=1, pageCompression=1,
               lang=VARIETY.get(lang, lang))  # for screen readers
    c.setTitle(title)
    c.setAuthor("Anotador")
    c.setSubject(title)
    c.setCreator("Anotador")
    for r in layout.rects:
        c.setFillColorRGB(*r.fill)
        c.rect(r.x, r.y, r.w, r.h, stroke=0, fill=1)
    c.setLineCap(1)
    for ln in layout.lines:
        c.setStrokeColorRGB(*ln.color)
        c.setLineWidth(ln.width)
        if ln.dash:  # set only where asked, so a sheet without dashes is the same bytes as ever
            c.setDash(list(ln.dash), 0)
        c.line(ln.x1, ln.y1, ln.x2, ln.y2)
        if ln.dash:
            c.setDash([], 0)
    for t in layout.texts:
        draw_text(c, t)
    c.showPage()
    c.save()
    return buf.getvalue()


def draw_text(c: Canvas, t: Text) -> None:
    c.setFillColorRGB(*t.color)
    c.setFont(t.font, t.size)
    leading = t.size * LEADING
    block = leading * (len(t.lines) - 1) + t.size * 0.72  # cap height of the last line
    baseline = t.y + (t.h + block) / 2 - t.size * 0.72
    for line in t.lines:
        if not fonts.plain(line, t.font):
            _draw_pieces(c, t, line, baseline)
        elif t.align == "center":
            c.drawCentredString(t.x + t.w / 2, baseline, line)
        elif t.align == "right":
            c.drawRightString(t.x + t.w - PAD, baseline, line)
        else:
            c.drawString(t.x + PAD, baseline, line)
        baseline -= leading


def _draw_pieces(c: Canvas, t: Text, line: str, baseline: float) -> None:
    """A line in several fonts or directions: its pieces left to right, each shaped (fonts.pieces)."""
    pieces = fonts.pieces(line, t.font)
    width = sum(p.width for p in pieces) * t.size
    x = (t.x + (t.w - width) / 2 if t.align == "center" else t.x + t.w - PAD - width if t.align == "right"
         else t.x + PAD)
    for p in pieces:
        if p.letters.isspace():  # a space has no ink: the gap says it to a reader
            x += p.width * t.size
            continue
        # Shaped glyphs (a conjunct, a joined form) have no letter of their own: the piece says
        # which letters it shows (ActualText), so a reader or a search finds the name as typed.
        shaped = fonts.actual_text(p)
        if shaped:
            c.addLiteral(f"/Span <</ActualText <FEFF{shaped.encode('utf-16-be').hex().upper()}>>> BDC")
        text = c.beginText(x, baseline)
        text.setFont(p.font, t.size)
        text.textOut(p.text)  # a text object keeps the shaped string's positions; drawString would drop them
        c.drawText(text)
        if shaped:
            c.addLiteral("EMC")
        x += p.width * t.size
