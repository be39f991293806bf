"""Every screen a family plays on: phones upright and sideways, tablets both ways, a desktop; two to twelve
players; text at 100 % and 200 %. While a turn is entered, what the player needs is on the screen at once."""

from __future__ import annotations

import json
import urllib.request

import pytest

from .conftest import needs

needs("playwright.sync_api", "pip install playwright")
from playwright.sync_api import expect  # noqa: E402

from .conftest import shot
from .pagekit import NAMES
from .test_page_a11y import LAYOUT

SIZES = {"phone-360x640": (360, 640), "phone-390x844": (390, 844), "phone-sideways-844x390": (844, 390),
         "tablet-768x1024": (768, 1024), "tablet-1024x768": (1024, 768), "desktop-1280x800": (1280, 800)}

#: What is in the viewport, each box measured as it is drawn (clipped by the scroll boxes around it).
IN_VIEW = """sel => { const e = document.querySelector(sel); if (!e) return false;
    let r = e.getBoundingClientRect(); r = { l: r.left, r: r.right, t: r.top, b: r.bottom };
    for (let a = e.parentElement; a; a = a.parentElement) { const s = getComputedStyle(a);
        if (s.overflowX === 'visible' && s.overflowY === 'visible') continue;
        const c = a.getBoundingClientRect();
        r = { l: Math.max(r.l, c.left), r: Math.min(r.r, c.right), t: Math.max(r.t, c.top), b: Math.min(r.b, c.bottom) }; }
    return r.r - r.l > 4 && r.b - r.t > 4 && r.l >= -1 && r.r <= innerWidth + 1 && r.t >= -1 && r.b <= innerHeight + 1; }"""


def _game(base_url, players: int) -> tuple[str, str]:
    body = json.dumps({"variant": "yahtzee", "players": NAMES[:players]}).encode()
    req = urllib.request.Request(base_url + "/api/v1/games", data=body, method="POST",
                                 headers={"Content-Type": "application/json"})
    with urllib.request.urlopen(req) as r:
        game = json.load(r)
    return game["id"], game["token"]


@pytest.mark.parametrize("players", [2, 6, 12])
@pytest.mark.parametrize("size", list(SIZES))
def test_while_a_turn_is_entered_the_player_sees_their_column_total_dice_and_options(phone, base_url, size,
                                                                                        players):
    width, height = SIZES[size]
    page = phone(width=width, height=height)
    game, token = _game(base_url, players)
    page.goto(f"/g/{game}#token={token}")
    for face in (6, 6, 6, 1, 1):
        page.get_by_role("button", name=f"Add a {face}", exact=True).click()
    expect(page.locator("#options button").first).to_be_visible()
    seen = {what: page.evaluate(IN_VIEW, sel) for what, sel in (
        ("the player's column", "#sheet thead th.now"), ("the player's total", "#sheet tfoot td.now"),
        ("the dice", "#tray"), ("the first option", "#options button"))}
    layout = page.evaluate(LAYOUT)
    shot(page, f"screens-{size}-{players}p")
    assert all(seen.values()), seen
    assert not layout["wide"] and not layout["cut"] and not layout["overlaps"], layout


@pytest.mark.parametrize("size", ["phone-390x844", "tablet-768x1024"])
def test_at_200_percent_text_two_players_names_and_totals_are_whole(phone, base_url, size):
    """WCAG 1.4.4 after two turns: the box column gives way, so names and totals are whole; the erase key holds
    its glyph; no option is cut at the edge."""
    width, height = SIZES[size]
    page = phone(width=width, height=height)
    page.add_init_script("document.addEventListener('DOMContentLoaded', () => "
                         "document.documentElement.style.fontSize = '34px')")
    game, token = _game(base_url, 2)
    page.goto(f"/g/{game}#token={token}")
    for dice, box in (([1, 1, 1, 2, 3], "ones"), ([2, 2, 2, 5, 6], "twos")):
        for face in dice:
            page.get_by_role("button", name=f"Add a {face}", exact=True).click()
        page.locator(f'#options [data-focus-key="opt:{box}"]').click()
    for face in (6, 6, 6, 1, 1):
        page.get_by_role("button", name=f"Add a {face}", exact=True).click()
    expect(page.locator("#options button").first).to_be_visible()
    whole = page.evaluate("""sel => [...document.querySelectorAll(sel)].filter((e) => e.scrollWidth > e.clientWidth + 1
        || e.getBoundingClientRect().right > innerWidth + 1).map((e) => e.id || e.textContent.trim())""",
                          "#sheet thead .name, #sheet tfoot td, #clear, #options button .label, #options button .pts")
    shot(page, f"screens-200-{size}")
    assert whole == []
    assert page.evaluate("document.documentElement.scrollWidth") <= width + 1
    assert page.errors == []
