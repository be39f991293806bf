"""Taps, counted as a family makes them (every touch of the screen; typing a name is keys, counted apart), from
opening the page to the first turn recorded and for each kind of turn: no more than a paper sheet asks."""

from __future__ import annotations

import re

from .toolkit import needs

needs("playwright.sync_api", "pip install playwright")
from playwright.sync_api import expect  # noqa: E402

#: Every touch of the page, kept across the page's own navigation (the start form opens the game's address).
COUNT = """sessionStorage.taps = sessionStorage.taps || '0';
    addEventListener('pointerdown', () => { sessionStorage.taps = String(+sessionStorage.taps + 1); }, true);"""


def taps(page) -> int:
    return int(page.evaluate("+sessionStorage.taps"))


def faces(page, dice):
    for face in dice:
        page.get_by_role("button", name=f"Add a {face}", exact=True).click()


def test_from_opening_the_page_to_each_kind_of_turn(phone, advice_tables):
    page = phone(width=390, height=844)
    page.add_init_script(COUNT)
    page.goto("/")
    rows = page.locator("#players li")
    for i, name in enumerate(["Ana", "Beto"]):
        if rows.count() <= i:
            page.locator("#add-player").click()
        rows.nth(i).locator("input").click()
        page.keyboard.type(name)
    page.locator("#start").click()
    page.wait_for_url(re.compile(r"/g/[A-Za-z0-9_-]+$"))
    faces(page, [6, 6, 6, 1, 1])
    page.locator('#options [data-focus-key="opt:full"]').click()
    expect(page.locator("#play-title")).to_have_text("Beto's roll")
    first = taps(page)  # the names (2), Start, the dice (5), the box: 9, and 7 letters typed
    assert first <= 9, first

    before = taps(page)  # the final dice, as most families enter them: the dice and the box
    faces(page, [2, 2, 2, 5, 6])
    page.locator('#options [data-focus-key="opt:twos"]').click()
    expect(page.locator("#play-title")).to_have_text("Ana's roll")
    assert taps(page) - before == 6

    # "Record every roll", ticked once on this phone's start screen: the next turn starts at its first throw
    page.evaluate("localStorage.setItem('anotador.flag.recordRolls', 'true')")
    before = taps(page)  # a scratch: the list, the box, yes
    page.locator("#scratch-btn").click()
    page.locator('#scratch-list [data-focus-key="scr:generala"]').click()
    page.locator("#confirm-yes").click()
    expect(page.locator("#play-title")).to_have_text("Beto's roll")
    assert taps(page) - before == 3

    before = taps(page)  # three throws: keep two sixes, then a third; a kept die is a tap
    expect(page.get_by_role("radio", name="1", exact=True)).to_have_attribute("aria-checked", "true")
    faces(page, [6, 6, 2, 3, 1])
    page.locator("#reroll").click()
    page.get_by_role("button", name="Die 1: 6. Keep it").click()
    page.get_by_role("button", name="Die 2: 6. Keep it").click()
    page.locator("#throw-again").click()
    faces(page, [6, 4, 1])
    page.locator("#reroll").click()  # the two sixes kept before are kept again
    page.get_by_role("button", name="Die 3: 6. Keep it").click()
    page.locator("#throw-again").click()
    faces(page, [6, 5])
    page.locator('#options [data-focus-key="opt:sixes"]').click()
    expect(page.locator("#play-title")).to_have_text("Ana's roll")
    # the dice thrown (5 + 3 + 2), and per throw again: the button, the dice kept anew, "Roll"
    assert taps(page) - before == 10 + (1 + 2 + 1) + (1 + 1 + 1) + 1
    assert page.errors == []
