"""Accessible by the standard tools: axe-core on every screen state, focus where a user expects it.

axe-core comes from the npm registry (conftest's ``axe_source`` installs it
into build/, not vendored); the page's Content-Security-Policy is bypassed in
these tests only, to inject it.
"""

from __future__ import annotations

import re

import pytest

from .toolkit import needs

needs("playwright.sync_api", "pip install playwright")
from playwright.sync_api import expect  # noqa: E402

from .browserkit import shot
from .pagekit import NAMES, audit, cell, choose, offline, open_house, option, roll, start_game

def test_axe_reports_no_violations_on_any_screen(phone, axe_source):
    found = []
    page = phone(bypass_csp=True)
    page.goto("/")
    found += audit(page, axe_source, "start")
    open_house(page)
    page.locator("#use-dice").check()
    found += audit(page, axe_source, "start, house rules open")
    game = start_game(page, ["Ana", "Beto", "Ceci"])
    found += audit(page, axe_source, "game, writer")
    roll(page, [6, 6, 6])
    found += audit(page, axe_source, "dice entered")
    roll(page, [6, 6, 6, 1, 1])
    expect(option(page, "Full house", 30)).to_be_visible()
    found += audit(page, axe_source, "options")
    page.locator("#scratch-btn").click()
    found += audit(page, axe_source, "scratch list")
    page.locator("#scratch-list button").first.click()
    expect(page.locator("#confirm")).to_be_visible()
    found += audit(page, axe_source, "dialog")
    page.locator("#confirm-no").click()
    page.locator("#share-btn").click()
    page.locator("#tab-write").click()
    page.wait_for_function("() => typeof window.qrcode === 'function'")
    found += audit(page, axe_source, "share panel")
    page.locator("#share-btn").click()
    choose(page, "Full house", 30)
    expect(cell(page, 0, "full")).to_have_text("30")
    page.get_by_role("button", name=re.compile("^Full house, Ana")).click()
    expect(page.locator("#play-title")).to_have_text("Round 1 · Ana")
    found += audit(page, axe_source, "correction")
    page.locator("#cancel-fix").click()
    roll(page, [3, 3, 3, 3, 3], served=True)
    choose(page, "Generala", 50)
    expect(page.locator("#confirm")).to_be_visible()
    found += audit(page, axe_source, "instant win dialog")
    page.locator("#confirm-yes").click()
    expect(page.locator("#winner")).to_be_visible()
    found += audit(page, axe_source, "end screen")
    reader = phone(bypass_csp=True)
    reader.goto(f"/g/{game}")
    expect(reader.locator("#readonly-note")).to_be_visible()
    found += audit(reader, axe_source, "game, read only")
    many = phone(bypass_csp=True)
    start_game(many, NAMES[:9])
    found += audit(many, axe_source, "nine players")
    spanish = phone("es-AR", bypass_csp=True)
    spanish.goto("/")
    found += audit(spanish, axe_source, "start, Spanish")
    assert found == [], "\n".join(map(str, found))


def test_focus_stays_where_a_keyboard_user_expects_it(phone):
    page = phone()
    game = start_game(page, ["Ana", "Beto"])
    # the fifth die disables the faces: focus moves on to "served", not to <body>
    page.get_by_role("button", name="Add a 2", exact=True).focus()
    for _ in range(3):
        page.keyboard.press("Enter")
    page.keyboard.press("Tab")
    page.keyboard.press("Enter")
    page.keyboard.press("Enter")
    expect(page.locator("#tray button.die")).to_have_text(["2", "2", "2", "3", "3"])
    expect(page.locator("#served")).to_be_focused()
    # a poll that redraws the options keeps focus on the same option
    first = option(page, "Full house", 30)
    first.focus()
    token = page.evaluate("JSON.parse(localStorage.getItem('anotador.games'))[0].token")
    other = phone()
    other.goto(f"/g/{game}#token={token}")
    expect(other.locator("#play")).to_be_visible()
    page.evaluate("document.querySelector('#options').dataset.before = document.activeElement.dataset.focusKey")
    page.wait_for_timeout(1500)  # polls come and go
    expect(page.locator('#options [data-focus-key="opt:full"]')).to_be_focused()
    # recording the turn: focus goes to the next roll's first face
    page.keyboard.press("Enter")
    expect(cell(page, 0, "full")).to_have_text("30")
    expect(page.locator("#faces button").first).to_be_focused()
    # a dialog names itself, and starts on the safe choice
    page.locator("#scratch-btn").click()
    page.locator("#scratch-list button").first.click()
    expect(page.locator("#confirm")).to_have_attribute("aria-labelledby", "confirm-title")
    expect(page.locator("#confirm-no")).to_be_focused()
    page.keyboard.press("Escape")
    expect(page.locator("#confirm")).to_be_hidden()


def test_removing_a_player_keeps_focus_in_the_list(phone):
    page = phone()
    page.goto("/")
    for _ in range(2):
        page.locator("#add-player").click()
    rows = page.locator("#players li")
    for i, name in enumerate(["Ana", "Beto", "Ceci", "Dani"]):
        rows.nth(i).locator("input").fill(name)
    expect(rows.nth(2).locator("button")).to_have_attribute("aria-label", "Remove player 3 (Ceci)")
    rows.nth(1).locator("button").click()
    expect(rows).to_have_count(3)
    # the rows are renumbered, and focus is on the remove button that took Beto's place
    expect(rows.nth(1).locator("button")).to_have_attribute("aria-label", "Remove player 2 (Ceci)")
    expect(rows.nth(1).locator("button")).to_be_focused()
    expect(rows.nth(1).locator("input")).to_have_attribute("aria-label", "Player 2")


def test_names_say_what_each_control_does(phone):
    page = phone()
    start_game(page, ["Ana", "Beto"])
    roll(page, [4, 4, 1])
    expect(page.locator("#tray button.die").nth(2)).to_have_attribute("aria-label", "Die 3: 1. Remove")
    expect(page.locator("#tray .die.empty").first).to_have_attribute("aria-label", "Die 4: not entered")
    roll(page, [4, 4, 4, 1, 2])
    expect(option(page, "Fours", 12)).to_have_accessible_name("Fours 12 points")
    expect(page.locator("#clear")).to_have_attribute("aria-label", "Clear dice")


def test_touch_targets_and_focus_ring(phone):
    page = phone()
    page.goto("/")
    open_house(page)
    start_game(page, ["Ana", "Beto", "Ceci", "Dani"])
    roll(page, [6, 6, 6, 1, 1])
    expect(option(page, "Full house", 30)).to_be_visible()
    small = page.evaluate("""() => [...document.querySelectorAll(
            '#play button, #play input, .bar select, .bar a, .game-head button, label.switch, #sheet td button')]
        .filter(e => e.offsetParent !== null)
        .map(e => { const r = (e.closest('label') || e).getBoundingClientRect();
                    return [e.id || e.textContent.trim() || e.getAttribute('aria-label'), r.height, r.width]; })
        .filter(([name, h, w]) => h < 44 || (w < 44 && !name.startsWith('0')))""")
    # sheet cells are as tall as a paper sheet's rows (30 px, above WCAG 2.2's 24) and span the column
    small = [s for s in small if not (s[1] >= 30 and s[2] >= 44)]
    assert small == [], small
    # the "served" switch: a 44 px target like every other
    box = page.locator("label.switch").bounding_box()
    assert box["height"] >= 44
    # the focus ring: at least 3:1 against the page and against the current column
    page.keyboard.press("Tab")
    colors = """() => { const probe = document.createElement('div'); document.body.append(probe);
        const rgb = (v) => { probe.style.color = `var(${v})`; return getComputedStyle(probe).color.match(/\\d+/g).slice(0, 3).map(Number); };
        const out = [getComputedStyle(document.activeElement).outlineColor.match(/\\d+/g).slice(0, 3).map(Number),
                     rgb('--paper'), rgb('--now')]; probe.remove(); return out; }"""
    ring, paper, now = page.evaluate(colors)
    assert ring == [0xb3, 0x59, 0x00]
    assert contrast(ring, paper) >= 3 and contrast(ring, now) >= 3
    # and in the dark colors
    page.evaluate("document.documentElement.dataset.theme = 'dark'")
    ring, paper, now = page.evaluate(colors)
    assert sum(paper) < 100 and contrast(ring, paper) >= 3 and contrast(ring, now) >= 3, (ring, paper, now)
    page.evaluate("delete document.documentElement.dataset.theme")
    shot(page, "17-focus")


def contrast(fg, bg):
    """WCAG contrast ratio of two sRGB colours."""
    def lum(rgb):
        def ch(c):
            c /= 255
            return c / 12.92 if c <= 0.03928 else ((c + 0.055) / 1.055) ** 2.4
        r, g, b = (ch(v) for v in rgb)
        return 0.2126 * r + 0.7152 * g + 0.0722 * b
    hi, lo = sorted((lum(fg), lum(bg)), reverse=True)
    return (hi + 0.05) / (lo + 0.05)


def test_text_contrast_meets_wcag_aa(phone):
    page = phone()
    start_game(page, ["Ana", "Beto"])
    roll(page, [6, 6, 6, 1, 1])
    expect(option(page, "Full house", 30)).to_be_visible()
    pairs = page.evaluate("""() => {
        const rgb = s => s.match(/\\d+/g).slice(0, 3).map(Number);
        const bgOf = e => { for (; e; e = e.parentElement) { const c = getComputedStyle(e).backgroundColor;
            if (!c.endsWith(', 0)') && c !== 'transparent') return c; } return 'rgb(255, 255, 255)'; };
        const sel = ['.brand', '#turn-line', '#sheet thead th.now', '#sheet tbody th', '#sheet .box-values',
                     '#sheet td.now', '.face', '#options button', '#clear', '.hint', '#sheet tfoot td',
                     '.disclosure summary', '#play-title'];
        return sel.map(s => document.querySelector(s)).filter(Boolean).map(e =>
            [e.className || e.id || e.tagName, rgb(getComputedStyle(e).color), rgb(bgOf(e))]);
    }""")
    assert len(pairs) >= 10
    low = [(name, round(contrast(fg, bg), 2)) for name, fg, bg in pairs if contrast(fg, bg) < 4.5]
    assert low == [], low


def luminance(css_color: str) -> float:
    r, g, b = (int(x) / 255 for x in re.findall(r"\d+", css_color)[:3])
    lin = [c / 12.92 if c <= 0.03928 else ((c + 0.055) / 1.055) ** 2.4 for c in (r, g, b)]
    return 0.2126 * lin[0] + 0.7152 * lin[1] + 0.0722 * lin[2]


def test_dark_rooms_every_screen_dark_and_readable(phone, axe_source):
    """A phone set to dark gets the dark page; axe's contrast rule (4.5:1) finds nothing on any screen."""
    found = []
    page = phone(color_scheme="dark", bypass_csp=True)
    page.goto("/")
    assert luminance(page.evaluate("getComputedStyle(document.body).backgroundColor")) < 0.02
    open_house(page)
    found += audit(page, axe_source, "start, dark")
    start_game(page, ["Ana", "Beto", "Ceci"])
    roll(page, [6, 6, 6, 1, 1])
    expect(option(page, "Full house", 30)).to_be_visible()
    page.locator('#hint-on').click()
    found += audit(page, axe_source, "options, dark")
    shot(page, "dark-options")
    choose(page, "Full house", 30)
    page.locator("#share-btn").click()
    found += audit(page, axe_source, "share, dark")
    page.locator("#share-btn").click()
    roll(page, [3, 3, 3, 3, 3], served=True)
    choose(page, "Generala", 50)
    found += audit(page, axe_source, "dialog, dark")
    page.locator("#confirm-yes").click()
    expect(page.locator("#winner")).to_be_visible()
    found += audit(page, axe_source, "end, dark")
    shot(page, "dark-end")
    assert found == [], "\n".join(map(str, found))


def test_the_theme_can_be_chosen_on_the_page_and_is_kept(phone):
    page = phone()  # a light phone
    page.goto("/")
    button = page.locator("#theme")
    expect(button).to_have_accessible_name("Colors: as the phone")
    light = page.evaluate("getComputedStyle(document.body).backgroundColor")
    button.click()
    expect(button).to_have_accessible_name("Colors: dark")
    assert luminance(page.evaluate("getComputedStyle(document.body).backgroundColor")) < 0.02
    page.reload()
    expect(page.locator("#theme")).to_have_accessible_name("Colors: dark")  # kept on this phone
    assert page.evaluate("document.documentElement.dataset.theme") == "dark"
    page.locator("#theme").click()
    expect(page.locator("#theme")).to_have_accessible_name("Colors: light")
    assert page.evaluate("getComputedStyle(document.body).backgroundColor") == light
    page.get_by_role("combobox", name="Language").select_option("de")
    expect(page.locator("#theme")).to_have_accessible_name("Farben: hell")


def test_forced_colors_keep_the_current_player_and_pending_cells_marked(phone):
    """In forced-colors mode backgrounds and shadows give way: the marks are borders and outlines instead."""
    page = phone(forced_colors="active")
    start_game(page, ["Ana", "Beto"])
    # the sheet may be drawn again while it is measured: each check is retried on the element as it is then
    head = page.locator("#sheet thead th.now")
    expect(head).to_have_css("border-bottom-width", "6px")
    expect(head).to_have_css("border-bottom-style", "solid")
    expect(head).to_have_css("border-left-width", "3px")
    expect(page.locator("#sheet tfoot td.now")).to_have_css("border-left-width", "3px")
    roll(page, [6, 6, 6, 1, 1])
    expect(page.locator("#sheet td.choosing")).to_have_count(1)
    expect(page.locator("#sheet td.choosing")).to_have_css("outline-width", "3px")
    offline(page, True)
    choose(page, "Full house")
    pending = page.locator("#sheet tbody td.pending")
    expect(pending).to_have_count(1)
    expect(page.locator("#sheet tfoot td.pending")).to_have_count(1)  # the total counts it, marked alike
    expect(pending).to_have_css("outline-style", "dashed")  # the sheet may be drawn again meanwhile: retried
    expect(pending).to_have_css("outline-width", "2px")
    shot(page, "forced-colors")
    offline(page, False)


LAYOUT = """() => {
    // the part of an element on screen: laid out, and cut to every scroll box around it (the pad, the
    // options, the sheet); null when nothing of it is in sight
    // (checkVisibility: the inside of a closed <details> keeps boxes in Chromium, but is never shown)
    const clip = (e) => { if (!e.getClientRects().length || getComputedStyle(e).visibility === 'hidden') return null;
        if (e.checkVisibility && !e.checkVisibility()) return null;
        const b = e.getBoundingClientRect(); let r = { left: b.left, right: b.right, top: b.top, bottom: b.bottom };
        for (let a = e.parentElement; a; a = a.parentElement) { const s = getComputedStyle(a);
            if (s.overflowY === 'visible' && s.overflowX === 'visible') continue;
            const c = a.getBoundingClientRect();
            r = { left: Math.max(r.left, c.left), right: Math.min(r.right, c.right),
                  top: Math.max(r.top, c.top), bottom: Math.min(r.bottom, c.bottom) }; }
        return r.right - r.left > 1 && r.bottom - r.top > 1 ? r : null; };
    const seen = (e) => clip(e) !== null;
    const controls = [...document.querySelectorAll('button, select, input, a[href], summary, label.switch, label.check')]
        .filter(seen).filter(e => !e.closest('#sheet-wrap') || e.closest('thead'));
    const texts = [...document.querySelectorAll('button, select, a, h1, h2, p, label, summary, th, td, li, span, b, small')]
        .filter(seen).filter(e => !e.matches('.sr-only, .box-full, .sheet .name'));
    // cut text: a box narrower or shorter than what it holds, and not scrolling it (a name cut on purpose
    // shows whole on a tap, and is left out)
    const cut = texts.filter(e => { const s = getComputedStyle(e);
        return (s.overflowX === 'hidden' || s.overflowX === 'clip') && e.scrollWidth > e.clientWidth + 1
            || (s.overflowY === 'hidden' || s.overflowY === 'clip') && e.scrollHeight > e.clientHeight + 1 && e.clientHeight > 0; })
        .map(e => e.tagName + '#' + e.id + '.' + e.className + ' ' + (e.textContent || '').trim().slice(0, 30));
    const boxes = controls.map(e => [e, clip(e)]);
    const overlaps = [];
    for (let i = 0; i < boxes.length; i++) for (let j = i + 1; j < boxes.length; j++) {
        const [a, ra] = boxes[i], [b, rb] = boxes[j];
        if (a.contains(b) || b.contains(a)) continue;
        const x = Math.min(ra.right, rb.right) - Math.max(ra.left, rb.left);
        const y = Math.min(ra.bottom, rb.bottom) - Math.max(ra.top, rb.top);
        if (x > 1 && y > 1) overlaps.push((a.id || a.textContent.trim().slice(0, 20)) + ' / ' + (b.id || b.textContent.trim().slice(0, 20)));
    }
    const wide = document.documentElement.scrollWidth > innerWidth + 1;
    return { cut, overlaps, wide };
}"""


@pytest.mark.parametrize(("width", "height", "text"), [(320, 568, 1), (320, 700, 1), (390, 844, 2), (768, 1024, 2)],
                         ids=["reflow-320x568", "reflow-320x700", "text-200-390x844", "text-200-768x1024"])
def test_reflow_and_big_text_clip_and_overlap_nothing(phone, width, height, text):
    """WCAG 1.4.10 (reflow at 320 CSS px) and 1.4.4 (text at 200 %): on the start screen, a game, a roll's
    options, the scratch list and the end screen nothing is cut or overlapping, and only the sheet scrolls
    sideways."""
    page = phone(width=width, height=height)
    if text != 1:
        page.add_init_script(f"document.addEventListener('DOMContentLoaded', () => "
                             f"document.documentElement.style.fontSize = '{17 * text}px')")
    problems = []

    def check(state):
        got = page.evaluate(LAYOUT)
        problems.extend((state, kind, got[kind]) for kind in ("cut", "overlaps", "wide") if got[kind])

    page.goto("/")
    open_house(page)
    check("start")
    start_game(page, ["Guillermina", "Beto", "Ceci", "Dani"], variant="generala-doble")
    check("game")
    roll(page, [6, 6, 6, 1, 1], served=True)
    expect(option(page, "Full house", 35)).to_be_visible()
    check("options")
    page.locator("#scratch-btn").click()
    check("scratch list")
    shot(page, f"reflow-{width}x{height}-{text}x")
    page.locator("#scratch-btn").click()
    roll(page, [4, 4, 4, 4, 4], served=True)
    choose(page, "Generala", 50)
    page.locator("#confirm-yes").click()
    expect(page.locator("#winner")).to_be_visible()
    check("end")
    assert problems == [], "\n".join(map(str, problems))
