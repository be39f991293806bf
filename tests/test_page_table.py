"""The sheet at a real table: six players on a phone like paper, twelve with a pinned box column."""

from __future__ import annotations

import re
import time

import pytest

from .toolkit import needs

needs("playwright.sync_api", "pip install playwright")
from playwright.sync_api import expect  # noqa: E402

from .browserkit import shot
from .pagekit import NAMES, cell, choose, in_viewport, option, roll, scratch, start_game

WIDEST = """() => [...document.querySelectorAll('body *')].filter(e => e.offsetParent !== null
    && !e.closest('#sheet-wrap.scrolls')).map(e => e.getBoundingClientRect())
    .filter(r => r.right > window.innerWidth + 0.5 || r.left < -0.5).length"""


@pytest.mark.parametrize(("width", "height"), [(360, 640), (390, 844)])
def test_six_players_fit_the_phone_like_paper(phone, width, height):
    page = phone(width=width, height=height)
    start_game(page, NAMES[:6], variant="generala-doble")
    assert page.evaluate("document.documentElement.scrollWidth") <= width
    assert page.evaluate(WIDEST) == 0, "an element is wider than the phone"
    assert not page.locator("#sheet-wrap").evaluate("w => w.scrollWidth > w.clientWidth + 1")
    # every column header and total on screen from left to right; names shortened, never broken
    for i in range(6):
        assert in_viewport(page, f"#sheet thead th:nth-child({i + 2})", horizontal_only=True)
        assert in_viewport(page, f"#sheet tfoot td:nth-of-type({i + 1})", horizontal_only=True)
        name = page.locator("#sheet thead th .name").nth(i)
        expect(name).to_have_css("white-space", "nowrap")
        expect(page.locator("#sheet thead th").nth(i + 1)).to_have_attribute("title", NAMES[i])
    # short labels, with the full name for screen readers and in the legend
    expect(page.locator('tr[data-box="straight"] th .box-short')).to_have_text("Str")
    expect(page.locator('tr[data-box="straight"] th')).to_have_attribute("title", "Straight · 20·25")
    page.locator("#legend summary").click()
    expect(page.locator("#legend dd").nth(10)).to_have_text("Double generala · 100·105")
    # the current player's column is on screen on each of the six turns of a round
    for turn in range(6):
        th = page.locator("#sheet thead th.now")
        expect(th).to_have_attribute("title", NAMES[turn])
        assert in_viewport(page, "#sheet thead th.now", horizontal_only=True)
        scratch(page, "Ones")
    shot(page, f"11-six-players-{width}x{height}", full_page=False)


BOARD = """() => {
    const box = (sel) => { const e = document.querySelector(sel); if (!e) return null;
                           const r = e.getBoundingClientRect(); return { l: r.left, r: r.right, t: r.top, b: r.bottom }; };
    const wrap = document.querySelector('#sheet-wrap');
    return { w: innerWidth, h: innerHeight, pageW: document.documentElement.scrollWidth,
             pageH: document.documentElement.scrollHeight, wrap: box('#sheet-wrap'), pad: box('#play'),
             head: box('#sheet thead th.now'), total: box('#sheet tfoot td.now'), tfootTop: box('#sheet tfoot tr').t,
             theadBottom: box('#sheet thead tr').b, choosing: [...document.querySelectorAll('#sheet td.choosing')]
               .map(e => { const r = e.getBoundingClientRect(); return { l: r.left, r: r.right, t: r.top, b: r.bottom }; }),
             options: box('#options'), first: box('#options button'), tray: box('#tray'), board: box('#board'),
             crowded: document.body.classList.contains('crowded'), rowsHidden: wrap.scrollHeight > wrap.clientHeight + 1 };
}"""


def inside(inner, outer, slack=1.0):
    return (inner["l"] >= outer["l"] - slack and inner["r"] <= outer["r"] + slack
            and inner["t"] >= outer["t"] - slack and inner["b"] <= outer["b"] + slack)


SCREENS = [  # (width, height, players, variant, dice)
    (390, 844, 6, "generala-doble", [6, 6, 6, 2, 2]),
    (360, 640, 6, "generala", [6, 6, 6, 2, 2]),
    (844, 390, 6, "generala-doble", [6, 6, 6, 2, 2]),
    (768, 1024, 6, "generala-doble", [6, 6, 6, 2, 2]),
    (1024, 768, 6, "generala-doble", [6, 6, 6, 2, 2]),
    (1280, 800, 6, "generala-doble", [6, 6, 6, 2, 2]),
    (390, 844, 9, "yahtzee", [3, 4, 5, 6, 6]),
    (390, 844, 12, "yahtzee", [1, 1, 1, 1, 2]),
    (1024, 768, 12, "yahtzee", [2, 3, 4, 5, 6]),
    (390, 844, 4, "double-cameroon", [6, 6, 6, 2, 2, 1, 2, 3, 4, 5]),
    (844, 390, 4, "double-cameroon", [6, 6, 6, 2, 2, 1, 2, 3, 4, 5]),
]


@pytest.mark.parametrize(("width", "height", "players", "variant", "dice"), SCREENS,
                         ids=[f"{w}x{h}-{n}-{v}" for w, h, n, v, _ in SCREENS])
def test_the_sheet_and_the_pad_are_in_sight_together(phone, width, height, players, variant, dice):
    """While a turn is entered: the pad, the current player's column head and Total, the rows the roll
    would go in and the options are all on screen at once; nothing of the page scrolls (the sheet scrolls
    in its own box, its header row and totals pinned). From 900 px wide, and sideways, side by side."""
    page = phone(width=width, height=height, is_mobile=width < 900)
    start_game(page, NAMES[:players], variant=variant)
    for turn in range(2):  # the first and the second player's turn
        roll(page, dice)
        expect(page.locator("#options button").first).to_be_visible()
        expect(page.locator("#sheet td.choosing").first).to_be_visible()
        page.wait_for_timeout(150)  # the scroll to the row being chosen
        got = page.evaluate(BOARD)
        view = {"l": 0, "r": got["w"], "t": 0, "b": got["h"]}
        assert got["pageW"] <= width, "the page itself scrolls sideways"
        # the page itself does not scroll; or, where the pad cannot hold the turn under the game's header,
        # the board is the screen (the header scrolled away above it)
        if got["crowded"]:
            assert abs(got["board"]["t"]) <= 1 and abs(got["board"]["b"] - height) <= 1, got["board"]
        else:
            assert got["pageH"] <= height + 1, "the page itself scrolls"
        for name in ("pad", "tray", "options", "first", "head", "total"):
            assert inside(got[name], view), f"{name} is off screen: {got[name]}"
        assert inside(got["head"], got["wrap"]) and inside(got["total"], got["wrap"])
        for mark in got["choosing"]:   # in the sheet's box, between its pinned header row and totals
            assert mark["t"] >= got["theadBottom"] - 1 and mark["b"] <= got["tfootTop"] + 1, mark
            assert inside(mark, got["wrap"]) and inside(mark, view)
        side_by_side = width >= 900 or width > height
        assert (got["pad"]["l"] >= got["wrap"]["r"] - 1) == side_by_side, got
        if (width, height, players) == (1024, 768, 6):
            assert not got["rowsHidden"], "a six-player sheet fits beside the pad at 1024x768, totals included"
        if turn == 0:
            shot(page, f"board-{width}x{height}-{players}-{variant}")
        page.locator("#options button").first.click()
        if page.locator("#confirm").is_visible():
            page.locator("#confirm-yes").click()
        expect(page.locator("#sheet td.pending")).to_have_count(0)


def test_a_whole_turn_with_six_players_needs_no_scrolling(phone):
    page = phone(width=390, height=844)
    start_game(page, NAMES[:6], variant="generala-doble")
    start = page.evaluate("window.scrollY")
    roll(page, [6, 6, 6, 2, 2], served=True)
    expect(option(page, "Full house", 35)).to_be_visible()
    expect(page.locator("#faces")).to_be_hidden()  # every die in: the options take the faces' room
    for selector in ("#turn-line", "#play", "#tray", "#served", "#options button:first-child",
                     "#options button:last-child", "#sheet tfoot td.now", "#sheet td.choosing"):
        assert in_viewport(page, selector), selector
    assert page.evaluate("window.scrollY") == start
    shot(page, "12-six-players-turn-390x844", full_page=False)
    choose(page, "Full house", 35)
    expect(cell(page, 0, "full")).to_have_text("35")
    assert page.evaluate("window.scrollY") == start  # tapped, recorded, and nothing moved


@pytest.mark.parametrize("players", [9, 12])
def test_many_players_scroll_past_a_pinned_box_column(phone, players):
    page = phone(width=360, height=740)
    start_game(page, NAMES[:players])
    wrap = page.locator("#sheet-wrap")
    assert wrap.evaluate("w => w.scrollWidth > w.clientWidth")
    assert page.evaluate("document.documentElement.scrollWidth") <= 360   # only the sheet scrolls
    expect(page.locator("#more-columns")).to_be_visible()                  # a sign there are more
    expect(page.locator(".sheet-frame")).to_have_class("sheet-frame more-right")
    assert wrap.get_attribute("tabindex") == "0" and wrap.get_attribute("role") == "region"
    for turn in range(players):
        expect(page.locator("#sheet thead th.now")).to_have_attribute("title", NAMES[turn])
        assert in_viewport(page, "#sheet thead th.now", horizontal_only=True), turn
        # the box column stays where it was while the players scroll under it
        box_col, now, frame = page.evaluate("""() => [document.querySelector('#sheet tbody th'),
            document.querySelector('#sheet thead th.now'), document.querySelector('#sheet-wrap')]
            .map(e => { const r = e.getBoundingClientRect(); return [r.left, r.right]; })""")
        assert abs(box_col[0] - frame[0]) < 2, turn
        # the current column is not hidden under the pinned one
        assert now[0] >= box_col[1] - 1, turn
        if turn == players // 2:
            shot(page, f"13-{players}-players", full_page=False)
        if turn == players - 1:   # the last column: the sign points back, to the left
            expect(page.locator(".sheet-frame")).to_have_class(re.compile("more-left"))
        scratch(page, "Ones")
    # round 2: back to the first player's column
    expect(page.locator(".sheet-frame")).to_have_class("sheet-frame more-right")


CLS = """() => new Promise(resolve => { let total = 0;
    new PerformanceObserver(list => { for (const e of list.getEntries()) if (!e.hadRecentInput) total += e.value; })
      .observe({ type: 'layout-shift', buffered: true });
    setTimeout(() => resolve(total), 1500); })"""


def test_nothing_moves_while_a_page_loads(phone):
    """Lighthouse's layout shift, measured the browser's way: the start screen and a game page."""
    page = phone(width=390, height=844)
    page.goto("/")
    assert page.evaluate(CLS) == 0
    game = start_game(page, NAMES[:6], variant="generala-doble")
    fresh = phone(width=390, height=844)   # no sheet kept on this phone yet: it arrives from the server...
    fresh.route("**/api/v1/**", lambda route: (time.sleep(0.4), route.continue_()))  # ...after the first paint
    fresh.goto(f"/g/{game}")
    expect(fresh.locator("#sheet tfoot td")).to_have_count(6)
    assert fresh.evaluate(CLS) == 0


FAMILY = ["Lucía", "Abuela", "Beto", "محمد الفارسي", "Анастасия Петровна", "李小龍"]


def test_names_of_any_script_read_in_their_direction_and_show_whole_on_a_tap(phone):
    """Six players at 360 px: short names whole (set smaller rather than cut), an Arabic name right to left
    and cut at its logical end, every name whole one tap away; in sentences a right-to-left name is
    isolated, so the words and punctuation around it stay outside it."""
    page = phone(width=360, height=640)
    start_game(page, FAMILY)
    names = page.locator("#sheet thead th .name")
    # measured in one step in the page: the sheet may be drawn again between two steps
    fits = "i => { const n = document.querySelectorAll('#sheet thead th .name')[i]; return n.scrollWidth <= n.clientWidth + 0.5; }"
    for i in (0, 1, 2):  # "Lucía" and "Abuela" fit as "Beto" does
        assert page.evaluate(fits, i), FAMILY[i]
    arabic = names.nth(3)
    expect(arabic).to_have_attribute("dir", "auto")
    expect(arabic).to_have_css("direction", "rtl")
    expect(names.nth(4)).to_have_css("direction", "ltr")
    cut = names.nth(4)
    assert not page.evaluate(fits, 4)  # a long name is cut ...
    cut.click()
    expect(page.locator("#toast")).to_have_text("Анастасия Петровна")  # ... and whole one tap away
    arabic.click()
    expect(page.locator("#toast")).to_have_text("محمد الفارسي")
    for _ in range(3):
        scratch(page, "Ones")
    expect(page.locator("#turn-line")).to_contain_text("محمد الفارسي")
    line = page.locator("#turn-line").evaluate("n => n.textContent")
    assert "\u2068محمد الفارسي\u2069" in line, line  # isolated in the sentence
    assert "\u2068" not in page.locator("#play-title").evaluate("n => n.textContent").replace("\u2068محمد الفارسي", "")
    shot(page, "names-six-scripts-360x640")
    assert page.errors == []
