"""Benchmark building printed sheets, against an empty reportlab page.

Prints the median time to build a blank sheet (target < 50 ms) and a filled
one, beside the time to build a one-page PDF with nothing on it, measured in
the same run.

    python bench/sheets.py [--repeat 30]
"""

from __future__ import annotations

import argparse
import io
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from reportlab.pdfgen.canvas import Canvas  # noqa: E402

from service.printing import blank_sheet, filled_sheet  # noqa: E402
from service.rules import Choice, Game, find_variant  # noqa: E402


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
    print(f"median of {args.repeat}, one page each:")
    print(f"  empty reportlab page          {base:7.2f} ms   (baseline)")
    print(f"  blank sheet, 6 players        {blank:7.2f} ms   {blank / base:5.1f}x   (target < 50 ms)")
    print(f"  blank sheet, 12 players x 3   {big:7.2f} ms   {big / base:5.1f}x")
    print(f"  filled sheet, 4 players       {filled:7.2f} ms   {filled / base:5.1f}x")


if __name__ == "__main__":
    main()
