"""Benchmark building printed sheets, against an empty reportlab page.

Prints the median time to build a blank sheet (target < 50 ms), the worst
sheet a valid request can ask for (twelve 40-character names of wide or
non-Latin letters, three games, every variant, size and language: target
< 50 ms too) and a filled one, beside the time to build a one-page PDF with
nothing on it, measured in the same run. Width caches are emptied before
each worst-case build, so that figure is the cold cost of a new name.
Last, the process's resident memory before and after 1,000 sheets with new
names each (after 300 that fill the caches): what a worker printing all day
grows by (target: within the caches' bounds, a few MB).

    python bench/sheets.py [--repeat 30]
"""

from __future__ import annotations

import argparse
import io
import itertools
import random
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from reportlab.pdfgen.canvas import Canvas  # noqa: E402

from anotador.printing import LANGS, SIZES, SheetOptionError, blank_sheet, check_fits, filled_sheet, fonts  # noqa: E402
from anotador.printing.layout import _edges  # noqa: E402
from anotador.rules import VARIANTS, Choice, Game, find_variant  # noqa: E402

#: A name in each script the sheet prints, each drawn from a shipped font, some shaped, some right to left.
SCRIPTS = ["Lucía Fernández", "Ольга Петрова", "Γιώργος Παπαδόπουλος", "محمد الفارسي", "שרה לוי",
           "प्रिया शर्मा", "王芳", "さくら", "김민준", "Ana 😀🎲"]

#: Twelve names for the worst cases: forty wide letters, in three scripts; forty letters of every script.
WORST_NAMES = {
    "W": [("W" * 38) + f"{i:02d}" for i in range(12)],
    "Cyrillic": [("Ж" * 38) + f"{i:02d}" for i in range(12)],
    "one-letter words": [("W " * 19) + f"{i:02d}" for i in range(12)],
    "every script": [(" ".join(SCRIPTS[i:] + SCRIPTS[:i]) * 3)[:38] + f"{i:02d}" for i in range(12)],
}


def fits(rules, games: int, size: str, lang: str) -> bool:
    try:
        check_fits(rules, 12, games, size, lang)
        return True
    except SheetOptionError:
        return False


def worst_case(repeat: int) -> tuple[float, str]:
    """The slowest median over every variant x size x language x name set, cold caches."""
    worst, label = 0.0, ""
    for (variant_id, variant), size, lang, (kind, names) in itertools.product(
            VARIANTS.items(), SIZES, LANGS, WORST_NAMES.items()):
        rules = variant.rules()

        games = next(g for g in (3, 2, 1) if fits(rules, g, size, lang))

        def build() -> None:
            fonts.unit_width.cache_clear()
            fonts.pieces.cache_clear()
            fonts._shape.cache_clear()
            _edges.cache_clear()
            blank_sheet(rules, players=12, names=names, games=games, size=size, lang=lang)

        ms = median_ms(build, repeat)
        if ms > worst:
            worst, label = ms, f"{variant_id} {size} {lang}, 12 x 40-char {kind} names, {games} games"
    return worst, label


def empty_page() -> bytes:
    buf = io.BytesIO()
    c = Canvas(buf, invariant=1)
    c.showPage()
    c.save()
    return buf.getvalue()


def finished_game():
    rules = find_variant("generala-doble").rules()
    game = Game(rules, 4)
    while (turn := game.turn()) is not None:
        p = turn[0]
        box = next(b.id for b in rules.boxes if b.id not in game.sheets[p])
        game.play(p, [1, 1, 2, 3, 4], False, [Choice(box, box not in ("ones", "twos", "threes", "fours"))])
    return rules, game


def median_ms(fn, repeat: int) -> float:
    fn()  # warm: fonts, caches
    times = []
    for _ in range(repeat):
        t = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t)
    return statistics.median(times) * 1000


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeat", type=int, default=30)
    args = ap.parse_args()
    rules, game = finished_game()
    names = ["Ana", "Beto", "Ceci", "Dani"]

    base = median_ms(empty_page, args.repeat)
    blank = median_ms(lambda: blank_sheet(rules, players=6, lang="es"), args.repeat)
    big = median_ms(lambda: blank_sheet(rules, players=12, games=3, lang="es"), args.repeat)
    filled = median_ms(lambda: filled_sheet(rules, names=names, sheets=game.sheets,
                                            scratched=[sorted(s) for s in game.scratched], totals=game.totals(),
                                            winners=[0], reason="highest_total", date="2026-11-29"),
                       args.repeat)
    scripts = median_ms(lambda: filled_sheet(rules, names=(SCRIPTS * 2)[:12],
                                             sheets=[game.sheets[0]] * 12,
                                             scratched=[sorted(game.scratched[0])] * 12,
                                             totals=[game.totals()[0]] * 12, winners=[3, 6],
                                             reason="highest_total", date="2026-11-29"), args.repeat)
    worst, label = worst_case(max(3, args.repeat // 6))
    print(f"median of {args.repeat}, one page each:")
    print(f"  empty reportlab page          {base:7.2f} ms   (baseline)")
    print(f"  blank sheet, 6 players        {blank:7.2f} ms   {blank / base:5.1f}x   (target < 50 ms)")
    print(f"  blank sheet, 12 players x 3   {big:7.2f} ms   {big / base:5.1f}x")
    print(f"  filled sheet, 4 players       {filled:7.2f} ms   {filled / base:5.1f}x")
    print(f"  filled, 12 names, 7 scripts   {scripts:7.2f} ms   {scripts / base:5.1f}x   (target < 50 ms)")
    print(f"  worst valid request           {worst:7.2f} ms   {worst / base:5.1f}x   (target < 50 ms): {label}")
    before, after = resident_growth()
    print(f"resident memory over 1,000 sheets with new names: {before:.1f} -> {after:.1f} MiB "
          f"({after - before:+.1f} MiB)")


def resident_mib() -> float:
    with open("/proc/self/status") as f:
        return next(int(line.split()[1]) for line in f if line.startswith("VmRSS")) / 1024


def resident_growth() -> tuple[float, float]:
    """Resident memory (MiB) after 300 sheets with new names each, then after 1,000 more (Linux)."""
    rnd = random.Random(5)
    letters = "abcdefghijklmnopqrstuvwxyzñçãõЖШЩΩμ"
    rule_sets = [find_variant(v).rules() for v in ("generala", "generala-doble", "general-pr", "double-cameroon")]

    def sheet(i: int) -> None:
        names = ["".join(rnd.choice(letters) for _ in range(12)) + str(i) for _ in range(6)]
        blank_sheet(rule_sets[i % 4], players=6, names=names, games=1 + i % 3, lang="es")

    for i in range(300):
        sheet(i)
    before = resident_mib()
    for i in range(300, 1300):
        sheet(i)
    return before, resident_mib()


if __name__ == "__main__":
    main()
