"""Fonts: Bitstream Vera, shipped inside reportlab, so every machine prints alike.

Vera covers Latin-1: every accent, ñ, ç, ã and õ of the three languages. A
player's name in another script is drawn in DejaVu Sans when the system has
it (Debian: fonts-dejavu-core); blank sheets never need it, so printables
stay byte-for-byte the same everywhere.
"""

from __future__ import annotations

import os
from functools import lru_cache

from reportlab.pdfbase import pdfmetrics
from reportlab.pdfbase.ttfonts import TTFont

REGULAR, BOLD, WIDE = "AnotadorSans", "AnotadorSans-Bold", "AnotadorWide"
_WIDE_PATHS = ("/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf",)


@lru_cache(maxsize=1)
def register() -> bool:
    """Register the fonts once; return whether a wide-coverage font exists."""
    pdfmetrics.registerFont(TTFont(REGULAR, "Vera.ttf"))
    pdfmetrics.registerFont(TTFont(BOLD, "VeraBd.ttf"))
    for path in _WIDE_PATHS:
        if os.path.exists(path):
            pdfmetrics.registerFont(TTFont(WIDE, path))
            return True
    return False


def covers(font: str, text: str) -> bool:
    """Whether ``font`` has a glyph for every character of ``text``."""
    face = pdfmetrics.getFont(font).face
    return all(ord(ch) in face.charToGlyph for ch in text)


def for_name(text: str, bold: bool = False) -> str:
    """The font to draw a player's name in."""
    register()
    main = BOLD if bold else REGULAR
    if covers(main, text):
        return main
    if register() and covers(WIDE, text):
        return WIDE
    return main


#: How many widths were measured (cache misses of :func:`unit_width`): tests
#: bound the work a sheet costs by this count, not by seconds.
measured = 0


@lru_cache(maxsize=16384)
def unit_width(text: str, font: str) -> float:
    """The width of ``text`` at a one-point size; any size's width is a multiple."""
    global measured
    measured += 1
    return pdfmetrics.stringWidth(text, font, 1.0)


def width(text: str, font: str, size: float) -> float:
    """The width of ``text`` in ``font`` at ``size`` points."""
    return unit_width(text, font) * size
