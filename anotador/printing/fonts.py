"""Fonts, and text of any script: which font draws which letters, in what order, shaped.

Every font a sheet uses ships inside this package (``typefaces/``, each with
its licence and checksum), so a sheet prints alike on every machine and
never looks up a system path:

- Bitstream Vera (inside reportlab): the sheet's own words and numbers, and
  any name of Latin-1 letters. Blank sheets use nothing else, so printables
  stay byte-for-byte the same everywhere.
- FiraGO (OFL): Latin, Greek, Cyrillic, Arabic, Hebrew, Devanagari, Thai
  and Georgian, regular and bold: a line Vera cannot draw.
- Droid Sans Fallback (Apache 2.0): Han, kana and Hangul, one weight.
- Symbola (free for any use): emoji and symbols, in outline, one weight.

A line Vera cannot draw is cut into pieces: words put in visual order by
the bidirectional algorithm at the level of words (a name reads right to
left when its first strong letter does, and a left-to-right word inside it
keeps its own order), each word cut where its font changes, and each piece
that needs it (written right to left, or with marks to place) shaped by
HarfBuzz (reportlab's ``shapeStr`` over uharfbuzz: Arabic joined,
Devanagari conjuncts formed). The PDF's text keeps the letters as typed,
so ``pdftotext`` reads every name back.
"""

from __future__ import annotations

import re
import threading
import unicodedata
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

from reportlab.pdfbase import pdfmetrics
from reportlab.pdfbase.ttfonts import TTFont, shapeStr

from ..support import adapters

REGULAR, BOLD = "AnotadorSans", "AnotadorSans-Bold"
WIDE, WIDE_BOLD, CJK, SYMBOLS = "AnotadorWide", "AnotadorWide-Bold", "AnotadorCJK", "AnotadorSymbols"

#: The fonts shipped in this package, loaded the first time a line needs them.
TYPEFACES = Path(__file__).with_name("typefaces")
SHIPPED = {WIDE: "FiraGO-Regular.ttf", WIDE_BOLD: "FiraGO-Bold.ttf", CJK: "DroidSansFallback.ttf",
           SYMBOLS: "Symbola.ttf"}


@lru_cache(maxsize=1)
def register() -> None:
    """Register Vera once (cheap: every sheet needs it)."""
    pdfmetrics.registerFont(TTFont(REGULAR, "Vera.ttf"))
    pdfmetrics.registerFont(TTFont(BOLD, "VeraBd.ttf"))


_loading = threading.Lock()


@lru_cache(maxsize=None)
def _glyphs(font: str) -> dict[int, int]:
    """The code points ``font`` draws, registering a shipped font on first use."""
    register()
    if font in SHIPPED:
        with _loading:  # two threads of a worker must not register two copies of one font
            if font not in pdfmetrics.getRegisteredFontNames():
                pdfmetrics.registerFont(TTFont(font, str(TYPEFACES / SHIPPED[font])))
    return pdfmetrics.getFont(font).face.charToGlyph


def covers(font: str, text: str) -> bool:
    """Whether ``font`` has a glyph for every character of ``text``."""
    glyphs = _glyphs(font)
    return all(ord(ch) in glyphs for ch in text)


def plain(text: str, font: str) -> bool:
    """Whether ``text`` is drawn as it is, in ``font`` alone: every letter there, none written right to left."""
    return covers(font, text) and not any(_strong(ch) == "R" for ch in text)


@dataclass(frozen=True)
class Piece:
    """A run of one font, in visual order: ``text`` as reportlab draws it (shaped), ``letters`` as typed,
    ``width`` at one point."""

    text: str
    font: str
    width: float
    letters: str


def _strong(ch: str) -> str | None:
    kind = unicodedata.bidirectional(ch)
    return "R" if kind in ("R", "AL") else "L" if kind == "L" else None


def _direction(text: str) -> str | None:
    """The direction of ``text``'s first strong letter (Unicode's rule P2), or None."""
    for ch in text:
        if found := _strong(ch):
            return found
    return None


def _fallbacks(font: str) -> tuple[str, ...]:
    wide = WIDE_BOLD if font in (BOLD, WIDE_BOLD) else WIDE
    return (wide, CJK, SYMBOLS) if font in (REGULAR, BOLD) else (font, wide, CJK, SYMBOLS)


def _attached(ch: str) -> bool:
    """A mark, joiner, selector or skin tone: drawn with the letter before it, by that letter's font."""
    return unicodedata.category(ch) in ("Mn", "Me", "Mc", "Cf") or 0xFE00 <= ord(ch) <= 0xFE0F \
        or 0x1F3FB <= ord(ch) <= 0x1F3FF


def _faces(word: str, font: str) -> list[tuple[str, str]]:
    """``word`` cut where its font changes: [(letters, font)], in logical order.

    A word ``font`` draws whole stays in it; otherwise each letter goes to the
    first fallback that has it (a mark stays with its letter), so one name
    is in one face wherever one face can draw it.
    """
    if covers(font, word):
        return [(word, font)]
    chain = _fallbacks(font)
    whole = next((f for f in chain if covers(f, word)), None)
    if whole:
        return [(word, whole)]
    out: list[tuple[str, str]] = []
    for ch in word:
        face = out[-1][1] if out and _attached(ch) else \
            next((f for f in chain if covers(f, ch)), chain[0])  # no face has it: the wide one's box
        if out and out[-1][1] == face:
            out[-1] = (out[-1][0] + ch, face)
        else:
            out.append((ch, face))
    return out


_shaping = threading.Lock()


def _complex(text: str) -> bool:
    """Whether ``text`` needs shaping: a letter written right to left (Arabic joins, Hebrew turns round),
    or a mark (a Devanagari vowel sign or virama, a Thai tone, a combining accent) to place."""
    return any(_strong(ch) == "R" or unicodedata.category(ch)[0] == "M" for ch in text)


@lru_cache(maxsize=8192)
def _shape(text: str, font: str) -> Piece:
    """One run of one font, shaped once per process (a name's words are measured, then drawn)."""
    if font in (REGULAR, BOLD):  # Vera: drawn as reportlab always drew it
        return Piece(text, font, pdfmetrics.stringWidth(text, font, 1.0), text)
    drawn = text
    if font == SYMBOLS:  # Symbola has no toned faces: a skin tone would print as a swatch beside the face
        drawn = "".join(ch for ch in text if not 0x1F3FB <= ord(ch) <= 0x1F3FF) or text
    if not _complex(drawn):  # one glyph a letter, left to right: drawn as it is, and at a third of the cost
        return Piece(drawn, font, pdfmetrics.stringWidth(drawn, font, 1.0), text)
    with _shaping:  # shaping may add a glyph's private code point to the font: one thread at a time
        shaped = shapeStr(drawn, font, 1.0)
    data = adapters.shape_data(shaped)
    width = sum(d.x_advance for d in data) / 1000 if data else pdfmetrics.stringWidth(shaped, font, 1.0)
    return Piece(shaped, font, width, text)


#: Brackets drawn the other way round in a right-to-left run (Bidi_Mirrored), as a reader expects.
_MIRRORED = str.maketrans("()[]{}<>«»‹›", ")(][}{><»«›‹")


def _punctuation(ch: str) -> bool:
    """Punctuation, or a math or currency sign (not an emoji: that is a word of its own)."""
    return unicodedata.category(ch) in ("Pc", "Pd", "Ps", "Pe", "Pi", "Pf", "Po", "Sm", "Sc")


def _tokens(text: str) -> list[str]:
    """Words, spaces, and the punctuation at either end of a word (which takes its neighbours' side)."""
    out: list[str] = []
    for token in re.findall(r"\S+|\s+", text):
        lead = len(token) - len(token.lstrip("".join(ch for ch in token if _punctuation(ch))))
        core = token[lead:]
        trail = len(core) - len(core.rstrip("".join(ch for ch in core if _punctuation(ch))))
        out.extend(t for t in (token[:lead], core[:len(core) - trail], core[len(core) - trail:]) if t)
    return out


def _visual(tokens: list[str]) -> list[tuple[str, str]]:
    """Tokens in visual order with the direction each is drawn in: Unicode's levels and rule L2,
    with a word as the unit."""
    base = _direction("".join(tokens)) or "L"
    own = [_direction(t) for t in tokens]
    dirs = list(own)
    # a neutral token (a space, a bracket, a number) between two words of one direction takes it;
    # else the base's (rules N1, N2)
    for i, d in enumerate(own):
        if d is None:
            before = next((x for x in reversed(own[:i]) if x), base)
            after = next((x for x in own[i + 1:] if x), base)
            dirs[i] = before if before == after else base
    levels = [(0 if d == "L" else 1) if base == "L" else (2 if d == "L" else 1) for d in dirs]
    order = list(range(len(tokens)))
    for level in range(max(levels, default=0), 0, -1):
        i = 0
        while i < len(order):
            if levels[order[i]] >= level:
                j = i
                while j < len(order) and levels[order[j]] >= level:
                    j += 1
                order[i:j] = reversed(order[i:j])
                i = j
            else:
                i += 1
    return [(tokens[i], dirs[i]) for i in order]


@lru_cache(maxsize=4096)
def pieces(text: str, font: str) -> tuple[Piece, ...]:
    """``text`` as the pieces to draw from left to right, each in its font, shaped."""
    out: list[Piece] = []
    # a line the sheet's font cannot draw whole is drawn in the wide one, so that a name is one face
    primary = font if covers(font, text) else _fallbacks(font)[0]
    for token, direction in _visual(_tokens(text)):
        if direction == "R" and _direction(token) is None:
            token = token.translate(_MIRRORED)[::-1]  # a neutral in a right-to-left run
        runs = [_shape(letters, face) for letters, face in _faces(token, primary)]
        if direction == "R":
            runs.reverse()  # HarfBuzz orders the letters of a run; the runs of a word are ours to order
        out.extend(runs)
    return tuple(out)


def actual_text(piece: Piece) -> str | None:
    """What a PDF reader should take ``piece`` to say, where its glyphs alone would not say it, or None.

    A piece with a letter past U+FFFF (an emoji), or a left-to-right piece whose glyphs are not its
    letters one by one (a Devanagari conjunct, a vowel sign drawn before its consonant), says its
    letters as typed. A right-to-left piece's glyphs are
    its letters (or their presentation forms) in visual order, which readers turn back into the
    typed order; only where a glyph has no letter at all (a vowel mark placed by the font) does it
    say its letters, in that same visual order, so a reader turns them the same way.
    """
    if any(ord(ch) > 0xFFFF for ch in piece.letters):
        return piece.letters  # an emoji, a rare Han: past the 16 bits of reportlab's ToUnicode map
    if piece.text == piece.letters:
        return None
    if _direction(piece.letters) != "R":
        return piece.letters
    if any(0xE000 <= ord(ch) <= 0xF8FF for ch in piece.text):
        return piece.letters[::-1]
    return None


#: How many widths were measured (cache misses of :func:`unit_width`): tests
#: bound the work a sheet costs by this count, not by seconds.
measured = 0


@lru_cache(maxsize=16384)
def unit_width(text: str, font: str) -> float:
    """The width of ``text`` at a one-point size; any size's width is a multiple."""
    global measured
    measured += 1
    if plain(text, font):
        return pdfmetrics.stringWidth(text, font, 1.0)
    return sum(p.width for p in pieces(text, font))


def width(text: str, font: str, size: float) -> float:
    """The width of ``text`` in ``font`` at ``size`` points."""
    return unit_width(text, font) * size
