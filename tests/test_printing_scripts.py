"""Printed names in every script: the shipped fonts, the order of right-to-left words, shaping, and the
text a reader gets back (``pdftotext``, as a search or a screen reader would)."""

from __future__ import annotations

import hashlib
import re
import shutil
import subprocess
import unicodedata
from pathlib import Path

import pytest

from reportlab.pdfbase import pdfmetrics

from anotador.printing import blank_sheet, filled_sheet, fonts
from anotador.printing.fonts import _visual
from anotador.rules import find_variant

from .toolkit import require

#: A name in each script a family may write, and emoji: twelve, a full table.
NAMES = {
    "latin": "Lucía Fernández",
    "cyrillic": "Ольга Петрова",
    "greek": "Γιώργος",
    "arabic": "محمد الفارسي",
    "hebrew": "שרה לוי",
    "devanagari": "प्रिया शर्मा",
    "han": "王芳",
    "kana": "さくら",
    "hangul": "김민준",
    "vowelled arabic": "مُحَمَّد علي",
    "emoji": "Ana 😀🎲",
    "toned emoji": "Abuela 👵🏽",
}


def pdftotext(pdf: bytes, *args: str) -> str:
    require(shutil.which("pdftotext") is not None, "pdftotext is not installed (Debian: poppler-utils)")
    out = subprocess.run(["pdftotext", *args, "-", "-"], input=pdf, capture_output=True, check=True)
    return out.stdout.decode()


def words(pdf: bytes) -> list[tuple[float, float, str]]:
    """Every word pdftotext finds: (top, left, text as typed), the text NFKC-folded (presentation forms)."""
    found = re.findall(r'<word xMin="([\d.]+)" yMin="([\d.]+)"[^>]*>(.*?)</word>', pdftotext(pdf, "-bbox"))
    return [(float(y), float(x), unicodedata.normalize("NFKC", w)) for x, y, w in found]


def sheet(names, winners=(0,), lang="en") -> bytes:
    rules = find_variant("generala").rules()
    return filled_sheet(rules, names=list(names), sheets=[{"sixes": 24} for _ in names],
                        scratched=[[] for _ in names], totals=[24] * len(names), winners=list(winners),
                        reason="highest_total", date="2026-12-02", lang=lang)


@pytest.fixture(scope="module")
def every_script() -> bytes:
    return sheet(NAMES.values(), winners=(3, 6))


@pytest.mark.parametrize("script", list(NAMES))
def test_each_name_prints_as_text_a_reader_gets_back(every_script, script):
    """Not boxes, not reversed, not split: each name comes back as it was typed."""
    text = unicodedata.normalize("NFKC", pdftotext(every_script))
    assert NAMES[script] in " ".join(text.split()) or NAMES[script] in text


def test_the_winners_line_names_them_in_their_own_scripts(every_script):
    text = " ".join(unicodedata.normalize("NFKC", pdftotext(every_script)).split())
    assert "Winners:" in text and "محمد الفارسي" in text and "王芳 (highest total)" in text


def test_every_letter_has_a_glyph_in_a_shipped_font():
    """No name falls back to a missing glyph (a box): each letter is in the font its piece is drawn in."""
    for name in NAMES.values():
        for font in (fonts.REGULAR, fonts.BOLD):
            for piece in fonts.pieces(name, font):
                spaced = [ch for ch in piece.letters if not fonts._attached(ch) and not ch.isspace()]
                assert fonts.covers(piece.font, "".join(spaced)), (name, piece)


@pytest.mark.parametrize(("name", "first", "second"), [
    ("محمد الفارسي", "محمد", "الفارسي"),
    ("שרה לוי", "שרה", "לוי"),
    ("Lucía Fernández", "Lucía", "Fernández"),
])
def test_a_name_reads_in_its_own_direction(name, first, second):
    """A right-to-left name's first word is drawn to the right of its second; a left-to-right one's to the left."""
    found = {w: x for _, x, w in words(sheet([name, "Beto"]))}
    fold = {w[::-1] if w[::-1] in (first, second) else w: x for w, x in found.items()}  # bbox text is visual
    right_to_left = fonts._direction(name) == "R"
    assert (fold[first] > fold[second]) == right_to_left, found


def test_a_left_to_right_word_keeps_its_order_inside_a_right_to_left_name():
    tokens = [t for t, _ in _visual(["محمد", " ", "Ana", " ", "Bo"])]
    assert tokens == ["Ana", " ", "Bo", " ", "محمد"]
    tokens = [t for t, _ in _visual(["Winner", ":", " ", "محمد", " ", "علي", ",", " ", "Ana"])]
    assert tokens == ["Winner", ":", " ", "علي", " ", "محمد", ",", " ", "Ana"]


def test_a_skin_tone_stays_with_its_face():
    """Symbola has no toned faces: the face is drawn alone (not beside a swatch), the tone kept in the text."""
    emoji = fonts.pieces("Abuela 👵🏽", fonts.BOLD)[-1]
    assert emoji.font == fonts.SYMBOLS and emoji.text == "👵" and fonts.actual_text(emoji) == "👵🏽"


def test_brackets_around_a_right_to_left_name_face_the_right_way():
    drawn = "".join(p.text for p in fonts.pieces("(محمد)", fonts.REGULAR))
    assert drawn.startswith("(") and drawn.endswith(")")  # mirrored and reversed: they still enclose it


def test_arabic_is_joined_and_devanagari_conjuncts_are_formed():
    """HarfBuzz shapes the pieces: Arabic letters take their joined forms, Devanagari forms conjuncts."""
    (arabic,) = fonts.pieces("محمد", fonts.BOLD)
    assert arabic.font == fonts.WIDE_BOLD and arabic.letters == "محمد"
    assert all(0xFE70 <= ord(ch) <= 0xFEFF for ch in arabic.text)  # presentation (joined) forms
    assert unicodedata.normalize("NFKC", arabic.text[::-1]) == "محمد"  # visual order
    (hindi,) = fonts.pieces("प्रिया", fonts.REGULAR)
    assert len(hindi.text) < len(hindi.letters)  # प्र is one glyph
    assert fonts.actual_text(hindi) == "प्रिया"
    assert fonts.actual_text(arabic) is None  # its glyphs are letters: readers turn them round themselves


def test_shipped_fonts_are_the_files_the_readme_names():
    """The fonts come from this package, each file as its README records it (checksum), with its licence."""
    readme = (fonts.TYPEFACES / "README.md").read_text(encoding="utf-8")
    assert fonts.TYPEFACES.parent == Path(fonts.__file__).parent
    for name in fonts.SHIPPED.values():
        digest = hashlib.sha256((fonts.TYPEFACES / name).read_bytes()).hexdigest()
        assert f"{name}" in readme and digest in readme, name
    for licence in ("OFL-FiraGO.txt", "Apache-2.0-DroidSansFallback.txt", "Symbola.txt"):
        assert (fonts.TYPEFACES / licence).stat().st_size > 100


def test_every_embedded_font_is_one_of_the_package():
    """Every font a sheet embeds is reportlab's Vera or a file of typefaces/: a machine without fonts prints
    the same sheet."""
    pdf = sheet(NAMES.values(), winners=(3, 6))  # the winners line in the regular weight
    embedded = set(re.findall(rb"/BaseFont /[A-Z]{6}\+([\w-]+)", pdf))
    assert embedded == {b"BitstreamVeraSans-Roman", b"BitstreamVeraSans-Bold", b"FiraGO-Regular", b"FiraGO-Bold",
                        b"DroidSansFallback", b"Symbola"}, embedded
    for font in fonts.SHIPPED:
        assert Path(pdfmetrics.getFont(font).face.filename).parent == fonts.TYPEFACES


def test_a_blank_sheet_uses_vera_alone():
    """Blank sheets never load another font: the printables stay byte-for-byte what they were."""
    pdf = blank_sheet(find_variant("generala").rules(), players=6, lang="es")
    assert not re.search(rb"FiraGO|DroidSans|Symbola", pdf)
