"""Every screen a family plays on: phones upright and sideways, tablets both ways, a desktop, and reflow at
320 px; two to twelve players; text at 100 % and 200 % (WCAG 1.4.4). While a turn is entered, what the player
needs is on the screen at once: their column and Total, the dice, the options (or the first of them in a
scroller of their own) and, recording every throw, the button that throws again."""

from __future__ import annotations

import json
import urllib.request

import pytest

from .toolkit import needs

needs("playwright.sync_api", "pip install playwright")
from playwright.sync_api import expect  # noqa: E402

from .browserkit import shot
from .pagekit import NAMES
from .test_page_a11y import LAYOUT

SIZES = {"phone-320x568": (320, 568), "phone-360x640": (360, 640), "phone-390x844": (390, 844),
         "phone-430x932": (430, 932), "sideways-640x360": (640, 360), "sideways-844x390": (844, 390),
         "sideways-932x430": (932, 430), "tablet-768x1024": (768, 1024), "tablet-1024x768": (1024, 768),
         "desktop-1280x800": (1280, 800)}
#: Text at 200 %: the root size doubled (17 px by default), as a browser's text setting does.
BIG_TEXT = ("document.addEventListener('DOMContentLoaded', () => "
            "document.documentElement.style.fontSize = '34px')")

#: Whether an element is in the viewport, measured as it is drawn (cut by the scroll boxes around it): some of
#: it (a column, a row of dice), or the whole of it (a button to tap).
IN_VIEW = """([sel, whole]) => { const e = document.querySelector(sel); if (!e) return false;
    const o = e.getBoundingClientRect(); let r = { l: o.left, r: o.right, t: o.top, b: o.bottom };
    for (let a = e.parentElement; a; a = a.parentElement) { const s = getComputedStyle(a);
        if (s.overflowX === 'visible' && s.overflowY === 'visible') continue;
        const c = a.getBoundingClientRect();
        r = { l: Math.max(r.l, c.left), r: Math.min(r.r, c.right), t: Math.max(r.t, c.top), b: Math.min(r.b, c.bottom) }; }
    r = { l: Math.max(r.l, 0), r: Math.min(r.r, innerWidth), t: Math.max(r.t, 0), b: Math.min(r.b, innerHeight) };
    return whole ? r.r - r.l >= o.width - 1 && r.b - r.t >= o.height - 1 : r.r - r.l > 4 && r.b - r.t > 4; }"""

#: An element out of sight only inside a scroller in sight (the options' own, or the pad's): the page itself
#: never has to scroll to reach it.
REACHABLE = """sel => { const e = document.querySelector(sel); if (!e) return false;
    let scroller = e.parentElement;
    while (scroller && !(/auto|scroll/.test(getComputedStyle(scroller).overflowY)
                         && scroller.scrollHeight > scroller.clientHeight)) scroller = scroller.parentElement;
    const end = scroller && scroller !== document.documentElement && scroller !== document.body
        ? scroller.getBoundingClientRect().bottom : Infinity;
    return end <= innerHeight + 1 || e.getBoundingClientRect().bottom <= innerHeight + 1; }"""


def _game(base_url, players: int) -> tuple[str, str]:
    body = json.dumps({"variant": "yahtzee", "players": NAMES[:players]}).encode()
    req = urllib.request.Request(base_url + "/api/v1/games", data=body, method="POST",
                                 headers={"Content-Type": "application/json"})
    with urllib.request.urlopen(req) as r:
        game = json.load(r)
    return game["id"], game["token"]


def _open(phone, base_url, size, players, big=False, record=False):
    width, height = SIZES[size]
    page = phone(width=width, height=height)
    if big:
        page.add_init_script(BIG_TEXT)
    if record:
        page.add_init_script("localStorage.setItem('anotador.flag.recordRolls', 'true')")
    game, token = _game(base_url, players)
    page.goto(f"/g/{game}#token={token}")
    return page


def _tap(target):
    """A finger's tap where ``target`` is drawn: unlike a test click, it never scrolls the page to find it (a
    retried click scrolls, and the page would then be measured where no player put it)."""
    expect(target).to_be_visible()
    expect(target).to_be_enabled()
    box = target.bounding_box()
    target.page.mouse.click(box["x"] + box["width"] / 2, box["y"] + box["height"] / 2)


def _enter(page, dice):
    for face in dice:
        _tap(page.get_by_role("button", name=f"Add a {face}", exact=True))


#: True once the layout stood still for a few frames (a scroll snapping back, options redrawn after the
#: server answered): the player looks at the screen after that, and so does the test.
SETTLED = """() => { const snap = JSON.stringify([scrollY, ...['#board', '#play', '#options', '#tray'].map((s) => {
        const r = document.querySelector(s).getBoundingClientRect(); return [r.top, r.height]; })]);
    window.__frames = snap === window.__snap ? (window.__frames || 0) + 1 : 0; window.__snap = snap;
    return window.__frames >= 5; }"""


def _check(page, name, *extra, reach=()):
    page.wait_for_function(SETTLED, polling="raf")
    seen = {what: page.evaluate(IN_VIEW, [sel, whole]) for what, sel, whole in (
        ("the player's column", "#sheet thead th.now", False), ("the player's total", "#sheet tfoot td.now", True),
        ("the dice", "#tray", True), ("the first option", "#options button", True), *extra)}
    seen["the last option, or its scroller"] = page.evaluate(REACHABLE, "#options button:last-of-type")
    seen["the tools (⌫, ★, scratch), or their scroller"] = page.evaluate(REACHABLE, "#scratch-btn")
    seen.update({what: page.evaluate(REACHABLE, sel) for what, sel in reach})
    layout = page.evaluate(LAYOUT)
    shot(page, name)
    where = page.evaluate("[scrollY, document.body.className, document.querySelector('#board').getBoundingClientRect().top]")
    assert [what for what, ok in seen.items() if not ok] == [], where
    assert not layout["wide"] and not layout["cut"] and not layout["overlaps"], layout
    assert page.evaluate("document.documentElement.scrollWidth") <= page.viewport_size["width"] + 1
    assert page.errors == []


@pytest.mark.parametrize("players", [2, 4, 6, 9, 12])
@pytest.mark.parametrize("size", list(SIZES))
def test_while_a_turn_is_entered_the_player_sees_their_column_total_dice_and_options(phone, base_url, size,
                                                                                        players):
    page = _open(phone, base_url, size, players)
    _enter(page, (6, 6, 6, 1, 1))
    expect(page.locator("#options button").first).to_be_visible()
    _check(page, f"screens-{size}-{players}p")


@pytest.mark.parametrize("players", [2, 12])
@pytest.mark.parametrize("size", list(SIZES))
def test_at_200_percent_text_the_turn_is_still_in_view(phone, base_url, size, players):
    page = _open(phone, base_url, size, players, big=True)
    _enter(page, (6, 6, 6, 1, 1))
    expect(page.locator("#options button").first).to_be_visible()
    _check(page, f"screens-200-{size}-{players}p")


@pytest.mark.parametrize("big", [False, True], ids=["100", "200"])
@pytest.mark.parametrize("size", ["phone-360x640", "sideways-844x390", "sideways-640x360", "tablet-1024x768"])
def test_recording_every_throw_the_throw_again_button_is_in_view(phone, base_url, size, big):
    """The sideways Yahtzee of the report: after a keep is picked, "Roll 3 dice" is there to tap."""
    page = _open(phone, base_url, size, 4, big=big, record=True)
    _enter(page, (6, 6, 2, 3, 1))
    _tap(page.locator("#reroll"))
    _tap(page.get_by_role("button", name="Die 1: 6. Keep it"))
    _tap(page.get_by_role("button", name="Die 2: 6. Keep it"))
    expect(page.locator("#throw-again")).to_have_text("Roll 3 dice")
    if not page.evaluate(IN_VIEW, ["#throw-again", True]):
        shot(page, f"screens-keep-{size}-{'200' if big else '100'}")  # a shot scrolls a phone's page: only now
        raise AssertionError("Roll 3 dice is out of sight")
    _tap(page.locator("#throw-again"))
    _enter(page, (6, 4, 4))
    expect(page.locator("#options button").first).to_be_visible()
    # at 100 % "Roll again…" is in sight; at 200 % on a small screen, in the pad's scroller below the options
    again = ("roll again", "#reroll")
    _check(page, f"screens-record-{size}-{'200' if big else '100'}", *([] if big else [(*again, True)]),
           reach=[again] if big else [])


@pytest.mark.parametrize("size", ["phone-390x844", "tablet-768x1024"])
def test_at_200_percent_text_two_players_names_and_totals_are_whole(phone, base_url, size):
    """WCAG 1.4.4 after two turns: the box column gives way, so names and totals are whole; the erase key holds
    its glyph; no option is cut at the edge."""
    width, height = SIZES[size]
    page = _open(phone, base_url, size, 2, big=True)
    for dice, box in (([1, 1, 1, 2, 3], "ones"), ([2, 2, 2, 5, 6], "twos")):
        _enter(page, dice)
        page.locator(f'#options [data-focus-key="opt:{box}"]').click()
    _enter(page, (6, 6, 6, 1, 1))
    expect(page.locator("#options button").first).to_be_visible()
    whole = page.evaluate("""sel => [...document.querySelectorAll(sel)].filter((e) => e.scrollWidth > e.clientWidth + 1
        || e.getBoundingClientRect().right > innerWidth + 1).map((e) => e.id || e.textContent.trim())""",
                          "#sheet thead .name, #sheet tfoot td, #clear, #options button .label, #options button .pts")
    shot(page, f"screens-200-{size}")
    assert whole == []
    assert page.evaluate("document.documentElement.scrollWidth") <= width + 1
    assert page.errors == []


def test_a_tap_too_many_on_the_faces_records_nothing(phone, base_url):
    """Every die in, the options take the faces' place: for a moment a tap there (a quick double tap on the
    last face) lands on a cover, and no turn is recorded. Time is held still on both of the page's clocks (its
    scripts' and its animations'), so the moment lasts as long as the test needs."""
    page = _open(phone, base_url, "phone-390x844", 2)
    page.clock.install()
    page.reload()
    page.clock.pause_at(page.evaluate("Date.now()") + 1000)
    cdp = page.context.new_cdp_session(page)
    cdp.send("Animation.enable")
    cdp.send("Animation.setPlaybackRate", {"playbackRate": 0})
    _enter(page, (6, 6, 6, 1, 1))
    expect(page.locator("#faces")).to_be_hidden()
    first = page.locator("#options button").first
    expect(first).to_be_visible()
    box = first.bounding_box()
    page.mouse.click(box["x"] + box["width"] / 2, box["y"] + box["height"] / 2)
    expect(first).to_be_visible()  # still choosing: nothing was recorded
    expect(page.locator("#sheet td.pending, #sheet td button:not(:empty)")).to_have_count(0)
    cdp.send("Animation.setPlaybackRate", {"playbackRate": 1})
    first.click()  # the cover gone, the same tap takes the box
    expect(page.locator("#play-title")).to_have_text("Beto's roll")
    assert page.errors == []
