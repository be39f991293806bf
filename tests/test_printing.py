"""Printed sheets: read back, measured, reproducible, and served over HTTP."""

from __future__ import annotations

import importlib
import io
import itertools

import pytest

from .toolkit import needs

needs("pypdf", "pip install pypdf")
from pypdf import PdfReader  # noqa: E402

from anotador.ops.cli import PRINTABLES, printable_files
from anotador.printing import LANGS, SIZES, SheetOptionError, blank_sheet, filled_sheet, fonts, layout
from anotador.printing.layout import LEADING, PAD
from anotador.printing.words import box_name, box_values
from anotador.rules import VARIANTS, build_rules, find_variant

PAGE = {"a4": (595.28, 841.89), "letter": (612.0, 792.0)}


def read(pdf: bytes) -> tuple[PdfReader, str]:
    reader = PdfReader(io.BytesIO(pdf))
    return reader, " ".join(page.extract_text() for page in reader.pages)


def plain(text: str) -> str:
    return " ".join(text.split())


@pytest.mark.parametrize(("variant", "size", "lang"), list(itertools.product(VARIANTS, SIZES, LANGS)))
def test_every_box_name_and_value_is_printed(variant, size, lang):
    rules = find_variant(variant).rules()
    reader, text = read(blank_sheet(rules, players=6, size=size, lang=lang))
    assert len(reader.pages) == 1
    box = reader.pages[0].mediabox
    assert sorted((round(float(box.width), 1), round(float(box.height), 1))) == sorted(
        round(v, 1) for v in PAGE[size])
    text = plain(text)
    for b in rules.boxes:
        assert box_name(b.id, lang, rules) in text
        assert box_values(rules, b.id, lang) in text
    assert rules.variant.names[lang] in text


def test_values_read_off_the_rules():
    rules = build_rules({"base": "generala-doble", "served_bonus": 10, "points": {"generala": 60}})
    assert box_values(rules, "straight", "es") == "20 · 30 servida"
    assert box_values(rules, "double_generala", "en") == "100 · 110 served"
    assert box_values(rules, "generala", "pt") == "60 · de boca ganha"
    assert box_values(rules, "sixes", "es") == "máx 30"
    assert box_values(find_variant("double-cameroon").rules(), "full", "en") == "sum · max 28"
    served_points = build_rules({"base": "generala", "served_generala": "points", "served_generala_points": 80})
    assert box_values(served_points, "generala", "es") == "50 · 80 servida"


def test_legend_names_the_rules_and_house_options():
    rules = build_rules({"base": "generala", "served_bonus": 10, "straight": "circular", "tie_break": "roll_off"})
    _, text = read(blank_sheet(rules, players=2, lang="en"))
    text = plain(text)
    assert "+10 in Straight, Full house, Four of a kind" in text
    assert "wins the game on the spot" in text
    assert "highest sum wins" in text
    assert "House rules: served bonus: 10; straight: any five different dice; tie-break: " in text
    _, plain_text = read(blank_sheet(find_variant("generala").rules(), players=2, lang="en"))
    assert "House rules" not in plain_text
    _, cameroon = read(blank_sheet(find_variant("double-cameroon").rules(), players=2, lang="es"))
    assert "Dos casilleros por turno" in plain(cameroon) and "5 rondas" in plain(cameroon)


def test_accents_render_as_text():
    _, text = read(blank_sheet(find_variant("double-cameroon").rules(), players=3, names=["José", "Ñandú"],
                               lang="pt"))
    text = plain(text)
    for word in ("Camarões grande", "Três", "José", "Ñandú", "máx"):
        assert word in text


def fitted(page) -> list[str]:
    """Texts whose lines are wider than their cell, or taller: must be none."""
    bad = []
    for t in page.texts:
        for line in t.lines:
            if fonts.width(line, t.font, t.size) > t.w - 2 * PAD + 0.01:
                bad.append(f"{line!r} at {t.size}pt in {t.w:.1f}pt")
        if len(t.lines) * t.size * LEADING > t.h + 0.01:
            bad.append(f"{t.lines!r} taller than {t.h:.1f}pt")
        if t.size < 3:
            bad.append(f"{t.lines!r} shrunk to {t.size}pt")
    return bad


LONG_NAMES = ["Maximiliano Alejandro", "Ana", "María de los Ángeles Fernández Gutiérrez", "José María", "Zoë",
              "Bartolomé", "Ñ", "Guadalupe Fernández", "Xi", "Jo", "Francisca Josefina", "Wolfeschlegelsteinhausen"]


@pytest.mark.parametrize(("variant", "lang"), list(itertools.product(VARIANTS, LANGS)))
def test_every_label_fits_its_cell_in_every_combination(variant, lang):
    rules = find_variant(variant).rules()
    refused = []
    for players, games, size in itertools.product(range(1, 13), range(1, 4), SIZES):
        try:
            page = layout(rules, players=players, names=LONG_NAMES[:players], games=games, size=size, lang=lang)
        except SheetOptionError as exc:
            # only a long sheet, for many players and several games, may not fit one page
            assert exc.field == "games" and games > 1 and players > 6, (players, games, size)
            refused.append((players, games, size))
            continue
        assert fitted(page) == [], (players, games, size)
        # every player column leaves room to write two digits by hand
        x, y, w, h = page.cells[(0, 0, 0)]
        assert w >= 25 and h >= 14, (players, games, size, w, h)  # 8.8 mm x 4.9 mm at the very least
        # the grid stays on the page
        for ln in page.lines:
            assert 0 <= min(ln.x1, ln.x2) and max(ln.x1, ln.x2) <= page.width
            assert 0 <= min(ln.y1, ln.y2) and max(ln.y1, ln.y2) <= page.height
        for t in page.texts:
            assert t.y >= 0 and t.x + t.w <= page.width + 0.01


def test_a_name_of_forty_letters_without_a_space_never_overflows():
    name = "W" * 40
    for players in (1, 6, 12):
        page = layout(find_variant("generala").rules(), players=players, names=[name] * players)
        overflow = [b for b in fitted(page) if "shrunk" not in b]
        assert overflow == []
        header = next(t for t in page.texts if t.lines[0].startswith("W"))
        assert "".join(header.lines) == name  # wrapped, not cut
        assert header.size >= 3 or players == 12


def test_house_rules_with_extra_lines_fit_too():
    rules = build_rules({"base": "generala", "three_of_a_kind": 25, "double_generala": 120, "served_bonus": 10,
                         "straight": "ending_in_1", "ace_as_two": True, "tie_break": "most_generalas",
                         "first_player": "as_listed", "points": {"generala": 60, "four": 45}})
    for lang, players, games in itertools.product(LANGS, (1, 6, 12), (1, 3)):
        assert fitted(layout(rules, players=players, games=games, lang=lang)) == []


@pytest.mark.parametrize(
    ("options", "field"),
    [({"players": 0}, "players"), ({"players": 13}, "players"), ({"games": 4}, "games"), ({"size": "a3"}, "size"),
     ({"lang": "ja"}, "lang"), ({"players": 1, "names": ["a", "b"]}, "names"), ({"names": ["x" * 41]}, "names.0"),
     # the one name rule: measured after spaces are folded, no control or bidi characters
     ({"names": ["Ana", "  " + "x" * 41 + "  "]}, "names.1"), ({"names": ["a\u202eb"]}, "names.0"),
     ({"names": ["a\u0000b"]}, "names.0"), ({"names": ["   "]}, "names.0"), ({"names": ["x\u200by"]}, "names.0")],
)
def test_bad_options(options, field):
    with pytest.raises(SheetOptionError) as info:
        blank_sheet(find_variant("generala").rules(), **options)
    assert info.value.field == field


#: The hardest names to fit: wide letters, other scripts (DejaVu), long runs
#: without a space, and forty one-letter words.
WORST_NAMES = ["W" * 40, "Ж" * 40, "Ш" * 20 + " " + "Щ" * 19, "W " * 19 + "W", "م" * 40, "😀" * 40,
               "Ωμέγα" * 8, "MMMMMMMMMM" * 4, "ñ" * 40, "ÆØÅ" * 13 + "Æ"]


def largest_sheet(rules, names, size, lang):
    """Twelve players, and as many games as fit one page (three, or fewer for a long sheet)."""
    for games in (3, 2, 1):
        try:
            return layout(rules, players=12, names=names, games=games, size=size, lang=lang)
        except SheetOptionError:
            continue
    raise AssertionError("twelve players do not fit one page")


@pytest.mark.parametrize("variant", list(VARIANTS))
def test_the_worst_sheets_cost_a_bounded_number_of_measurements(variant, monkeypatch):
    """Fitting measures each word once, whatever the cell: count the work, not seconds."""
    lay = importlib.import_module("anotador.printing.layout")  # the module; the package exports the function
    breaks = []
    real_break = lay._break
    monkeypatch.setattr(lay, "_break", lambda *a: breaks.append(a) or real_break(*a))
    rules = find_variant(variant).rules()
    for size, lang, first in itertools.product(SIZES, LANGS, range(0, len(WORST_NAMES), 3)):
        names = [(WORST_NAMES[(first + i) % len(WORST_NAMES)][:38] + f"{i:02d}") for i in range(12)]
        fonts.unit_width.cache_clear()
        lay._edges.cache_clear()
        before, breaks[:] = fonts.measured, []
        page = largest_sheet(rules, names, size, lang)
        measured = fonts.measured - before
        # every distinct word and character of the sheet once, and little else
        words = {w for t in page.texts for line in t.lines for w in line.split()}
        assert measured <= len(words) + sum(len(n) for n in names) + 100, (size, lang, measured)
        # bisection: a handful of line breakings per text, not one per size step
        # (stepping down 0.25 pt at a time broke each long name ~50 times)
        assert len(breaks) <= 4 * len(page.texts), (size, lang, len(breaks))


def test_filled_sheet_holds_the_game():
    rules = find_variant("generala").rules()
    pdf = filled_sheet(rules, names=["Ana", "Beto"], sheets=[{"full": 35, "generala": 50}, {"ones": 0}],
                       scratched=[[], ["ones"]], totals=[85, 0], winners=[0], reason="instant_win",
                       date="2026-11-29", lang="es")
    _, text = read(pdf)
    text = plain(text)
    assert "Ganador: Ana (generala servida)" in text and "2026-11-29" in text
    assert "35" in text and "85" in text


def test_printables_are_current():
    """Regenerate every printable; a stale committed file fails (run `flask --app wsgi printables`)."""
    files = printable_files()
    assert len(files) == len(VARIANTS) * len(SIZES) * len(LANGS)
    committed = {p.name for p in PRINTABLES.glob("*.pdf")}
    assert committed == set(files), "printables/ lists other files than the command makes"
    stale = [name for name, data in files.items() if (PRINTABLES / name).read_bytes() != data]
    assert stale == [], f"stale printables: {stale}; run: flask --app wsgi printables"


def test_blank_sheets_are_reproducible():
    rules = find_variant("generala-wiki").rules()
    assert blank_sheet(rules, players=4, lang="pt") == blank_sheet(rules, players=4, lang="pt")


# -- over HTTP ------------------------------------------------------------------

def test_variant_sheet_pdf(client):
    url = "/api/v1/variants/generala-doble/sheet.pdf?players=4&names=Ana&names=Beto&games=2&size=letter&lang=en"
    r = client.get(url)
    assert r.status_code == 200 and r.mimetype == "application/pdf"
    assert r.headers["ETag"] and "max-age" in r.headers["Cache-Control"]
    assert 'filename="generala-doble_letter_en.pdf"' in r.headers["Content-Disposition"]
    reader, text = read(r.data)
    assert "Ana" in text and "Beto" in text and "Game 2" in text
    again = client.get(url, headers={"If-None-Match": r.headers["ETag"]})
    assert again.status_code == 304 and again.data == b""
    other = client.get(url.replace("lang=en", "lang=es"))
    assert other.headers["ETag"] != r.headers["ETag"]


@pytest.mark.parametrize("q", ["players=13", "games=0", "size=a3", "lang=ja", "players=1&names=a&names=b",
                               "players=x", "colour=red"])
def test_variant_sheet_bad_query_is_422(client, q):
    r = client.get(f"/api/v1/variants/generala/sheet.pdf?{q}")
    assert r.status_code == 422 and r.mimetype == "application/problem+json"
    assert r.get_json()["errors"]


def test_bad_options_are_422_even_with_if_none_match_star(client):
    # found by schemathesis: "*" matched before the options were checked
    r = client.post("/api/v1/sheets", json={"variant": "generala", "lang": "xx"}, headers={"If-None-Match": "*"})
    assert r.status_code == 422
    r = client.get("/api/v1/variants/generala/sheet.pdf?size=a0", headers={"If-None-Match": "*"})
    assert r.status_code == 422


def test_unknown_variant_sheet_is_404(client):
    r = client.get("/api/v1/variants/bunco/sheet.pdf")
    assert r.status_code == 404 and r.mimetype == "application/problem+json"


def test_house_rules_sheet(client):
    r = client.post("/api/v1/sheets", json={"rules": {"base": "generala", "served_bonus": 10}, "players": 3,
                                           "lang": "en"})
    assert r.status_code == 200 and r.mimetype == "application/pdf"
    _, text = read(r.data)
    assert "20 · 30 served" in plain(text)
    again = client.post("/api/v1/sheets", json={"rules": {"base": "generala", "served_bonus": 10}, "players": 3,
                                               "lang": "en"}, headers={"If-None-Match": r.headers["ETag"]})
    assert again.status_code == 304
    for body, field in (({"players": 2}, "variant"), ({"variant": "generala", "games": 9}, "games"),
                        ({"rules": {"base": "generala", "straight": "x"}}, "rules.straight"),
                        ({"variant": "generala", "names": "Ana"}, "names")):
        r = client.post("/api/v1/sheets", json=body)
        assert r.status_code == 422 and field in r.get_json()["errors"], (body, r.get_json())


def test_game_sheet_pdf(new_game):
    table = new_game("generala", ["Ana", "Beto"])
    table.turn(0, "full", [6, 6, 6, 1, 1], served=True)
    table.turn(1, "ones", scratch=True)
    url = table.url("/sheet.pdf?lang=en")
    r = table.client.get(url)
    assert r.status_code == 200 and r.mimetype == "application/pdf" and r.headers["Cache-Control"] == "no-cache"
    _, text = read(r.data)
    assert "Ana" in text and "35" in text
    assert table.client.get(url, headers={"If-None-Match": r.headers["ETag"]}).status_code == 304
    table.turn(0, "generala", [2, 2, 2, 2, 2], served=True)  # the game ends: a new record
    r2 = table.client.get(url, headers={"If-None-Match": r.headers["ETag"]})
    assert r2.status_code == 200
    assert "Winner: Ana (served generala)" in plain(read(r2.data)[1])
    assert table.client.get("/api/v1/games/nope/sheet.pdf").status_code == 404
