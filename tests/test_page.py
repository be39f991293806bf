"""The phone page in a real browser: Debian's Chromium driven by Playwright.

The app runs on a local port; two "phones" (browser contexts, 360 px wide)
play through the page as people at a table would. Screenshots of the main
screens are saved under build/screenshots/.
"""

from __future__ import annotations

import os
import re
import shutil
import threading
from pathlib import Path

import pytest
from werkzeug.serving import make_server

from .conftest import migrated_app, require

CHROMIUM = os.environ.get("ANOTADOR_CHROMIUM", "/usr/bin/chromium")
SHOTS = Path(__file__).resolve().parents[1] / "build" / "screenshots"
PHONE = {"viewport": {"width": 360, "height": 740}, "device_scale_factor": 2, "is_mobile": True, "has_touch": True}

try:
    from playwright.sync_api import expect, sync_playwright
except ImportError:  # pragma: no cover - reported by the fixture below
    sync_playwright = None


@pytest.fixture(scope="module")
def base_url(tmp_path_factory):
    """The app on a free local port, in a thread, on a migrated SQLite file."""
    folder = tmp_path_factory.mktemp("page")
    app = migrated_app(f"sqlite:///{folder}/page.sqlite", GAMES_PER_MINUTE=0)  # one address plays every test
    server = make_server("127.0.0.1", 0, app, threaded=True)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_port}"
    server.shutdown()


@pytest.fixture(scope="module")
def browser():
    require(sync_playwright is not None, "Playwright is not installed (pip install playwright)")
    require(os.path.exists(CHROMIUM) or shutil.which("chromium") is not None,
            f"Chromium is not installed at {CHROMIUM} (apt-get install chromium)")
    with sync_playwright() as pw:
        b = pw.chromium.launch(executable_path=CHROMIUM if os.path.exists(CHROMIUM) else shutil.which("chromium"),
                               args=["--no-sandbox", "--disable-gpu", "--disable-background-networking",
                                     "--disable-component-update", "--disable-sync", "--no-first-run"])
        yield b
        b.close()


@pytest.fixture
def phone(browser, base_url):
    """Factory: a new phone (browser context) in a language; returns a page."""
    contexts = []

    def make(locale="en-US"):
        ctx = browser.new_context(locale=locale, base_url=base_url, **PHONE)
        ctx.grant_permissions(["clipboard-read", "clipboard-write"], origin=base_url)
        contexts.append(ctx)
        page = ctx.new_page()
        page.errors = []
        page.on("pageerror", lambda exc: page.errors.append(str(exc)))
        page.on("dialog", lambda d: (page.errors.append(f"dialog: {d.message}"), d.dismiss()))
        return page

    yield make
    for ctx in contexts:
        ctx.close()


def shot(page, name):
    SHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SHOTS / f"{name}.png"), full_page=True)


def start_game(page, players, variant="generala", first_rolls=None):
    page.goto("/")
    page.get_by_role("radio", name=re.compile(variant_name(page, variant))).check()
    rows = page.locator("#players li")
    while rows.count() < len(players):
        page.get_by_role("button", name="Add player").click()
    for i, name in enumerate(players):
        rows.nth(i).locator("input").fill(name)
    if first_rolls:
        page.get_by_label("Roll a die to pick who starts").check()
        for i, face in enumerate(first_rolls):
            rows.nth(i).locator("select").select_option(str(face))
    page.get_by_role("button", name="Start").click()
    page.wait_for_url(re.compile(r"/g/[A-Za-z0-9_-]+$"))
    expect(page.locator("#sheet thead th").nth(1)).to_have_text(players[0])
    return page.url.rsplit("/", 1)[1]


def variant_name(page, variant_id):
    return {"generala": "^Generala Ten", "generala-doble": "Double Generala", "double-cameroon": "Double Cameroon",
            "general-pr": "Puerto Rico", "generala-wiki": "encyclopedia"}[variant_id]


def roll(page, dice, served=False):
    page.get_by_role("button", name="Clear dice").click()
    for face in dice:
        page.get_by_role("button", name=f"Add a {face}", exact=True).click()
    served_box = page.get_by_role("switch", name="Served")
    if served_box.is_checked() != served:
        served_box.click()


def choose(page, box, points):
    """Tap the option for ``box`` and wait until the sheet shows it."""
    option = page.locator("#options button", has_text=box).filter(has_text=str(points))
    option.first.click()


def cell(page, player, box):
    row = page.locator("#sheet tbody tr").filter(has=page.locator("th", has_text=re.compile(f"^{box}")))
    return row.locator("td").nth(player)


def total(page, player):
    return page.locator("#sheet tfoot td").nth(player)


def test_a_whole_two_player_generala_game(phone):
    page = phone()
    start_game(page, ["Ana", "Beto"])
    shot(page, "01-new-game-sheet")
    expect(page.locator("#turn-line")).to_have_text("Ana's turn · round 1 of 10")
    # Ana scores a served full house: the options come from /score, best first.
    roll(page, [6, 6, 6, 1, 1], served=True)
    expect(page.locator("#options button").first).to_contain_text("Full house")
    expect(page.locator("#options button").first).to_contain_text("35")
    shot(page, "02-roll-options")
    choose(page, "Full house", 35)
    expect(cell(page, 0, "Full house")).to_have_text("35")
    expect(page.locator("#turn-line")).to_have_text("Beto's turn · round 1 of 10")
    plan = [  # (player, dice, served, box, points); None dice = a scratch
        (1, [2, 3, 4, 5, 6], False, "Straight", 20),
        (0, [1, 2, 3, 4, 5], True, "Straight", 25),
        (1, [4, 4, 4, 4, 2], False, "Four of a kind", 40),
        (0, [6, 6, 6, 6, 3], False, "Four of a kind", 40),
        (1, [5, 5, 5, 2, 2], False, "Full house", 30),
        (0, [1, 1, 1, 2, 3], False, "Ones", 3),
        (1, [1, 1, 2, 3, 4], False, "Ones", 2),
        (0, [2, 2, 2, 5, 6], False, "Twos", 6),
        (1, [2, 2, 4, 5, 6], False, "Twos", 4),
        (0, [3, 3, 3, 5, 6], False, "Threes", 9),
        (1, [3, 3, 3, 3, 6], False, "Threes", 12),
        (0, [4, 4, 1, 2, 3], False, "Fours", 8),
        (1, [4, 4, 4, 1, 2], False, "Fours", 12),
        (0, [5, 5, 5, 1, 2], False, "Fives", 15),
        (1, [5, 5, 1, 2, 3], False, "Fives", 10),
        (0, [6, 6, 6, 1, 2], False, "Sixes", 18),
        (1, [6, 6, 1, 2, 3], False, "Sixes", 12),
        (0, None, False, "Generala", 0),
    ]
    for player, dice, served, box, points in plan:
        if dice is None:
            page.get_by_role("button", name="Scratch…").click()
            page.locator("#scratch-list button", has_text=box).click()
            page.get_by_role("button", name="Yes").click()
        else:
            roll(page, dice, served)
            choose(page, box, points)
        expect(cell(page, player, box)).to_have_text(str(points))
    # Beto's last box: generala, not served.
    roll(page, [2, 2, 2, 2, 2])
    choose(page, "Generala", 50)
    expect(page.locator("#winner")).to_have_text("Beto wins! (highest total)")
    expect(total(page, 0)).to_have_text(str(35 + 25 + 40 + 3 + 6 + 9 + 8 + 15 + 18))
    expect(total(page, 1)).to_have_text(str(20 + 40 + 30 + 2 + 4 + 12 + 12 + 10 + 12 + 50))
    expect(page.locator("#play")).to_be_hidden()
    expect(page.get_by_role("link", name="Sheet (PDF)")).to_have_attribute("href", re.compile(r"/sheet\.pdf"))
    expect(page.get_by_role("link", name="New game, same players")).to_be_visible()
    shot(page, "03-game-over")
    # a new game with the same players and rules starts from here
    page.get_by_role("link", name="New game, same players").click()
    expect(page.locator("#players li input").nth(0)).to_have_value("Ana")
    expect(page.locator("#players li input").nth(1)).to_have_value("Beto")
    expect(page.get_by_role("radio", name=re.compile("^Generala Ten"))).to_be_checked()
    assert page.errors == []


def test_a_served_generala_wins_at_once(phone):
    page = phone()
    start_game(page, ["Ana", "Beto"])
    roll(page, [4, 4, 4, 4, 4], served=True)
    choose(page, "Generala", 50)
    expect(page.locator("#winner")).to_have_text("Ana wins! (served generala)")
    expect(cell(page, 1, "Generala")).to_have_text("")
    shot(page, "04-instant-win")
    # Undo takes the instant win back.
    page.get_by_role("button", name="Undo last turn").click()
    page.get_by_role("button", name="Yes").click()
    expect(page.locator("#winner")).to_be_hidden()
    expect(page.locator("#turn-line")).to_have_text("Ana's turn · round 1 of 10")
    assert page.errors == []


def test_undo_and_correction(phone):
    page = phone()
    start_game(page, ["Ana", "Beto"])
    roll(page, [3, 3, 3, 2, 2])
    choose(page, "Full house", 30)
    expect(cell(page, 0, "Full house")).to_have_text("30")
    page.get_by_role("button", name="Undo last turn").click()
    page.get_by_role("button", name="Yes").click()
    expect(cell(page, 0, "Full house")).to_have_text("")
    roll(page, [3, 3, 3, 2, 2])
    choose(page, "Full house", 30)
    roll(page, [1, 2, 3, 4, 6])
    choose(page, "Sixes", 6)
    # Ana's full house was really threes: tap the cell and correct it.
    page.get_by_role("button", name="Full house, Ana: 30 points").click()
    expect(page.locator("#play-title")).to_have_text("Correct turn 1 of Ana")
    shot(page, "05-correction")
    choose(page, "Threes", 9)
    expect(cell(page, 0, "Threes")).to_have_text("9")
    expect(cell(page, 0, "Full house")).to_have_text("")
    expect(total(page, 0)).to_have_text("9")
    expect(page.locator("#turn-line")).to_have_text("Ana's turn · round 2 of 10")
    assert page.errors == []


def test_double_cameroon_turn(phone):
    page = phone()
    start_game(page, ["Ana", "Beto"], variant="double-cameroon")
    expect(page.locator("#tray .die")).to_have_count(10)
    roll(page, [2, 3, 4, 5, 6, 1, 2, 3, 4, 5])
    best = page.locator("#options button").first
    expect(best).to_contain_text("Big Cameroon 30 + Little Cameroon 21")
    expect(page.locator("#options button")).to_have_count(9)  # the best 8, and "show all"
    page.get_by_role("button", name="Show all 45 ways").click()
    expect(page.locator("#options button")).to_have_count(45)
    expect(page.locator("#options button", has_text="Sixes scratched + Big Cameroon 30")).to_have_count(1)
    shot(page, "06-double-cameroon")
    best.click()
    expect(cell(page, 0, "Big Cameroon")).to_have_text("30")
    expect(cell(page, 0, "Little Cameroon")).to_have_text("21")
    expect(total(page, 0)).to_have_text("51")
    expect(page.locator("#turn-line")).to_have_text("Beto's turn · round 1 of 5")
    assert page.errors == []


def test_another_phone_sees_every_turn(phone):
    a = phone()
    game = start_game(a, ["Ana", "Beto"])
    b = phone("es-AR")
    b.goto(f"/g/{game}")  # the read-only link
    expect(b.locator("#turn-line")).to_have_text("Turno de Ana · ronda 1 de 10")
    expect(b.locator("#play")).to_be_hidden()
    expect(b.locator("#readonly-note")).to_be_visible()
    for player, dice, box_en, box_es, points in [(0, [6, 6, 6, 1, 1], "Full house", "Full", 30),
                                                 (1, [1, 2, 3, 4, 5], "Straight", "Escalera", 20),
                                                 (0, [5, 5, 5, 5, 2], "Four of a kind", "Póker", 40)]:
        roll(a, dice)
        choose(a, box_en, points)
        expect(cell(b, player, box_es)).to_have_text(str(points), timeout=2500)
    shot(b, "07-other-phone-es")
    assert a.errors == [] and b.errors == []


def test_a_turn_recorded_by_two_phones_is_refused_cleanly(phone):
    a = phone()
    game = start_game(a, ["Ana", "Beto"])
    token = a.evaluate("JSON.parse(localStorage.getItem('anotador.games'))[0].token")
    b = phone()
    b.clock.install()  # B's poll timer stays still: its sheet is stale when it taps
    b.goto(f"/g/{game}#token={token}")
    expect(b.locator("#play")).to_be_visible()
    expect(b).to_have_url(re.compile(f"/g/{game}$"))  # the token left the address bar
    roll(a, [6, 6, 6, 1, 1])
    roll(b, [2, 2, 2, 3, 3])
    choose(a, "Full house", 30)
    expect(cell(a, 0, "Full house")).to_have_text("30")
    choose(b, "Full house", 30)  # B's sheet is a second behind: its turn is refused
    expect(b.locator("#toast")).to_have_text("Another phone recorded first: the sheet is up to date.")
    expect(cell(b, 0, "Full house")).to_have_text("30")
    expect(b.locator("#turn-line")).to_have_text("Beto's turn · round 1 of 10")
    assert a.errors == [] and b.errors == []


def test_a_lost_connection_shows_and_recovers(phone):
    page = phone()
    start_game(page, ["Ana", "Beto"])
    page.context.set_offline(True)
    expect(page.locator("#offline")).to_be_visible(timeout=5000)
    page.context.set_offline(False)
    expect(page.locator("#offline")).to_be_hidden(timeout=5000)


def test_names_are_text_never_markup(phone):
    page = phone()
    evil = "<img src=x onerror=alert(1)>"
    start_game(page, [evil, "Beto"])
    expect(page.locator("#sheet thead th").nth(1)).to_have_text(evil)
    assert page.locator("#sheet img").count() == 0 and page.locator("img").count() == 0
    page.goto("/")
    expect(page.locator("#recent li").first).to_contain_text(evil)
    assert page.locator("img").count() == 0
    assert page.errors == []  # no alert() ran


def test_the_start_screen_in_spanish_with_house_rules_and_first_player(phone):
    page = phone("es-AR")
    page.goto("/")
    expect(page.get_by_role("heading", name="Partida nueva")).to_be_visible()
    page.get_by_text("Reglas de la casa").click()
    page.get_by_label("Servida +", exact=True).select_option(label="10")
    shot(page, "08-start-es")
    rows = page.locator("#players li")
    rows.nth(0).locator("input").fill("Ana")
    rows.nth(1).locator("input").fill("Beto")
    page.get_by_label("Sortear quién empieza con un dado").check()
    rows.nth(1).locator("select").select_option("6")
    page.get_by_role("button", name="Empezar").click()
    expect(page.locator("#turn-line")).to_have_text("Turno de Beto · ronda 1 de 10")
    roll_es(page, [2, 2, 2, 5, 5], served=True)
    expect(page.locator("#options button").first).to_contain_text("40")  # 30 + 10 servida
    page.get_by_role("combobox", name="Idioma").select_option("pt")
    expect(page.locator("#turn-line")).to_have_text("Vez de Beto · rodada 1 de 10")
    assert page.errors == []


def roll_es(page, dice, served=False):
    for face in dice:
        page.get_by_role("button", name=f"Agregar un {face}", exact=True).click()
    if served:
        page.get_by_role("switch", name="Servida").click()


def test_a_tie_for_who_starts_is_rolled_again_by_the_tied_players_only(phone):
    page = phone()
    page.goto("/")
    rows = page.locator("#players li")
    page.get_by_role("button", name="Add player").click()
    for i, name in enumerate(["Ana", "Beto", "Ceci"]):
        rows.nth(i).locator("input").fill(name)
    page.get_by_label("Roll a die to pick who starts").check()
    for i, face in enumerate([6, 6, 3]):
        rows.nth(i).locator("select").select_option(str(face))
    page.get_by_role("button", name="Start").click()
    expect(page.locator("#tie-text")).to_have_text("Tie: Ana, Beto roll again. Enter their dice and tap Start.")
    expect(page.locator("#tie-dice select")).to_have_count(2)   # Ceci does not roll again
    page.get_by_label("Ana's die").last.select_option("4")
    page.get_by_label("Beto's die").last.select_option("4")
    page.get_by_role("button", name="Start").click()             # tied again: both roll once more
    expect(page.locator("#tie-dice select")).to_have_count(2)
    page.get_by_label("Ana's die").last.select_option("2")
    page.get_by_label("Beto's die").last.select_option("5")
    shot(page, "01b-tie-for-first")
    page.get_by_role("button", name="Start").click()
    page.wait_for_url(re.compile(r"/g/[A-Za-z0-9_-]+$"))
    expect(page.locator("#turn-line")).to_contain_text("Beto's turn")
    assert page.errors == []


def test_share_panel_has_a_qr_and_links(phone):
    page = phone()
    game = start_game(page, ["Ana", "Beto"])
    page.get_by_role("button", name="Share").click()
    expect(page.locator("#share-url")).to_have_value(re.compile(f"/g/{game}$"))
    page.get_by_role("tab", name="To score").click()
    expect(page.locator("#share-url")).to_have_value(re.compile(f"/g/{game}#token=[A-Za-z0-9_-]{{43}}$"))
    dark = page.evaluate("""() => { const c = document.getElementById('qr');
        const d = c.getContext('2d').getImageData(0, 0, c.width, c.height).data;
        let n = 0; for (let i = 0; i < d.length; i += 4) if (d[i] < 128) n++; return n; }""")
    assert dark > 1000  # a QR code was drawn
    page.get_by_role("button", name="Copy").click()
    expect(page.locator("#toast")).to_have_text("Link copied")
    assert page.evaluate("navigator.clipboard.readText()").endswith(page.locator("#share-url").input_value()[-43:])
    shot(page, "09-share")


def test_phone_layout_targets_and_width(phone):
    page = phone()
    page.goto("/")
    page.get_by_text("House rules").click()
    page.get_by_label("Roll a die to pick who starts").check()
    for _ in range(10):
        page.get_by_role("button", name="Add player").click()
    assert page.evaluate("document.documentElement.scrollWidth") <= 360  # the start screen, all open
    start_game(page, ["Ana", "Beto", "Ceci", "Dani"])
    # nothing but the sheet itself scrolls sideways on a 360 px phone
    assert page.evaluate("document.documentElement.scrollWidth") <= 360
    small = page.evaluate("""() => [...document.querySelectorAll('#play button, .bar select, .bar a')]
        .filter(e => e.offsetParent !== null)
        .map(e => [e.textContent.trim() || e.getAttribute('aria-label'), e.getBoundingClientRect().height,
                   e.getBoundingClientRect().width])
        .filter(([, h, w]) => h < 44 || w < 44)""")
    assert small == [], small


def test_every_request_stays_on_this_server(phone, base_url):
    page = phone()
    seen = []
    page.on("request", lambda r: seen.append(r.url))
    start_game(page, ["Ana", "Beto"])
    page.get_by_role("button", name="Share").click()
    roll(page, [1, 2, 3, 4, 5])
    choose(page, "Straight", 20)
    expect(cell(page, 0, "Straight")).to_have_text("20")
    assert seen and all(url.startswith(base_url) for url in seen), [u for u in seen if not u.startswith(base_url)]
    assert not any("token=" in url for url in seen)  # the token never travels in a request line


def contrast(fg, bg):
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
    pairs = page.evaluate("""() => {
        const rgb = s => s.match(/\\d+/g).slice(0, 3).map(Number);
        const bgOf = e => { for (; e; e = e.parentElement) { const c = getComputedStyle(e).backgroundColor;
            if (!c.endsWith(', 0)') && c !== 'transparent') return c; } return 'rgb(255, 255, 255)'; };
        const sel = ['.brand', '#turn-line', '#sheet thead th.now', '#sheet tbody th', '#sheet tbody th small',
                     '#sheet td.now', '.face', '#options button', '#clear', '.hint', '#sheet tfoot td'];
        return sel.map(s => document.querySelector(s)).filter(Boolean).map(e =>
            [e.className || e.id || e.tagName, rgb(getComputedStyle(e).color), rgb(bgOf(e))]);
    }""")
    assert len(pairs) >= 9
    low = [(name, round(contrast(fg, bg), 2)) for name, fg, bg in pairs if contrast(fg, bg) < 4.5]
    assert low == [], low


def test_keyboard_alone_can_record_a_turn(phone):
    page = phone()
    start_game(page, ["Ana", "Beto"])
    page.get_by_role("button", name="Add a 2", exact=True).focus()
    for _ in range(3):
        page.keyboard.press("Enter")
    page.keyboard.press("Tab")  # to "Add a 3"
    page.keyboard.press("Enter")
    page.keyboard.press("Enter")
    expect(page.locator("#tray .die")).to_have_text(["2", "2", "2", "3", "3"])
    first = page.locator("#options button").first
    expect(first).to_contain_text("Full house")
    first.focus()
    page.keyboard.press("Enter")
    expect(cell(page, 0, "Full house")).to_have_text("30")


def test_the_screen_stays_awake_during_a_game(phone):
    page = phone()
    page.add_init_script("""
        window.__wake = [];
        Object.defineProperty(navigator, 'wakeLock', { configurable: true, value: {
            request: async (type) => { window.__wake.push('request:' + type);
                return { release: async () => window.__wake.push('release'), addEventListener() {} }; } } });
    """)
    start_game(page, ["Ana", "Beto"])
    expect(page.locator("#play")).to_be_visible()
    page.wait_for_function("() => window.__wake.includes('request:screen')")
    roll(page, [5, 5, 5, 5, 5], served=True)
    choose(page, "Generala", 50)  # an instant win ends the game: the lock goes
    page.wait_for_function("() => window.__wake.includes('release')")
