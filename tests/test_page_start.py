"""The phone page around a game, in a real browser: the start screen, who starts, sharing, the home screen's
games and rematch, the page's requests and its path prefix (Chromium driven by Playwright)."""

from __future__ import annotations

import re

from .toolkit import needs

needs("playwright.sync_api", "pip install playwright")
from playwright.sync_api import expect  # noqa: E402

from .browserkit import shot
from .pagekit import cell, choose, confirm, in_viewport, open_house, roll, roll_again, start_game


def test_the_start_screen_in_spanish_with_house_rules_and_first_player(phone):
    page = phone("es-AR")
    page.goto("/")
    expect(page.get_by_role("heading", name="Partida nueva")).to_be_visible()
    open_house(page)
    page.get_by_label("Servida +", exact=True).select_option(label="10")
    shot(page, "08-start-es")
    rows = page.locator("#players li")
    rows.nth(0).locator("input").fill("Ana")
    rows.nth(1).locator("input").fill("Beto")
    page.get_by_label("Sortear quién empieza con un dado").check()
    rows.nth(0).locator("select").select_option("2")
    rows.nth(1).locator("select").select_option("6")
    page.get_by_role("button", name="Empezar").click()
    expect(page.locator("#turn-line")).to_have_text("Turno de Beto · ronda 1 de 10")
    roll(page, [2, 2, 2, 5, 5], served=True, lang="es")
    expect(page.locator("#options button").first).to_contain_text("40")  # 30 + 10 servida
    page.get_by_role("combobox", name="Idioma").select_option("pt")
    expect(page.locator("#turn-line")).to_have_text("Vez de Beto · rodada 1 de 10")
    assert page.errors == []


def test_a_tie_for_who_starts_is_rolled_again_by_the_tied_players_only(phone):
    page = phone()
    page.goto("/")
    rows = page.locator("#players li")
    page.locator("#add-player").click()
    for i, name in enumerate(["Ana", "Beto", "Ceci"]):
        rows.nth(i).locator("input").fill(name)
    page.get_by_label("Roll a die to pick who starts").check()
    for i, face in enumerate([6, 6, 3]):
        rows.nth(i).locator("select").select_option(str(face))
    with page.expect_response("**/api/v1/games"):
        page.locator("#start").click()
    expect(page.locator("#tie-text")).to_have_text("Tie: Ana, Beto roll again. Enter their dice and tap Start.")
    expect(page.locator("#tie-dice select")).to_have_count(2)   # Ceci does not roll again
    roll_again(page, {"Ana": 4, "Beto": 4})
    with page.expect_response("**/api/v1/games"):               # tied again: both roll once more
        page.locator("#start").click()
    expect(page.locator("#tie-dice select")).to_have_count(2)
    roll_again(page, {"Ana": 2, "Beto": 5})
    shot(page, "01b-tie-for-first")
    page.locator("#start").click()
    page.wait_for_url(re.compile(r"/g/[A-Za-z0-9_-]+$"))
    expect(page.locator("#turn-line")).to_contain_text("Beto's turn")
    assert page.errors == []


def test_share_panel_has_a_qr_and_links_and_loads_the_qr_only_then(phone):
    page = phone()
    scripts = []
    page.on("request", lambda r: scripts.append(r.url) if r.url.endswith(".js") else None)
    game = start_game(page, ["Ana", "Beto"])
    assert not any("qrcode" in s for s in scripts)   # not loaded until someone shares
    page.get_by_role("button", name="Share").click()
    expect(page.locator("#share-url")).to_have_value(re.compile(f"/g/{game}$"))
    expect(page.locator("#qr")).to_have_attribute("aria-label", "QR code of the link to view the game")
    page.get_by_role("tab", name="To score").click()
    expect(page.locator("#share-url")).to_have_value(re.compile(f"/g/{game}#token=[A-Za-z0-9_-]{{43}}$"))
    # the image's name never reads the secret token aloud
    expect(page.locator("#qr")).to_have_attribute("aria-label", "QR code of the link to score")
    page.wait_for_function("() => typeof window.qrcode === 'function'")
    dark = page.evaluate("""() => { const c = document.getElementById('qr');
        const d = c.getContext('2d').getImageData(0, 0, c.width, c.height).data;
        let n = 0; for (let i = 0; i < d.length; i += 4) if (d[i] < 128) n++; return n; }""")
    assert dark > 1000  # a QR code was drawn
    assert any("qrcode" in s for s in scripts)
    page.get_by_role("button", name="Copy").click()
    expect(page.locator("#toast")).to_have_text("Link copied")
    assert page.evaluate("navigator.clipboard.readText()").endswith(page.locator("#share-url").input_value()[-43:])
    shot(page, "09-share")


def test_every_request_stays_on_this_server(phone, base_url):
    page = phone()
    seen = []
    page.on("request", lambda r: seen.append(r.url))
    start_game(page, ["Ana", "Beto"])
    page.get_by_role("button", name="Share").click()
    roll(page, [1, 2, 3, 4, 5])
    choose(page, "Straight", 20)
    expect(cell(page, 0, "straight")).to_have_text("20")
    assert seen and all(url.startswith(base_url) for url in seen), [u for u in seen if not u.startswith(base_url)]
    assert not any("token=" in url for url in seen)  # the token never travels in a request line


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
    choose(page, "Generala", 50)
    confirm(page)  # an instant win ends the game: the lock goes
    page.wait_for_function("() => window.__wake.includes('release')")


def test_start_tapped_before_the_variants_arrive_still_starts_the_game(phone):
    """A slow network: Start is tapped while /variants is on its way. The form
    must not submit the browser's way (a GET of the start page), and the house
    rules seeded in the link must still reach the game."""
    page = phone()
    held = []
    page.route("**/api/v1/variants", lambda route: held.append(route))
    page.goto('/?rules={"base":"generala","served_bonus":10}')
    rows = page.locator("#players li")
    rows.nth(0).locator("input").fill("Ana")
    rows.nth(1).locator("input").fill("Beto")
    page.locator("#start").click()  # the inputs are there: the page's module has run
    page.wait_for_timeout(300)
    assert "variant=" not in page.url  # no GET submit of the form
    assert held  # the variants were still on their way
    for route in held:
        route.continue_()
    page.wait_for_url(re.compile(r"/g/[A-Za-z0-9_-]+$"))
    game = page.url.rsplit("/", 1)[1]
    body = page.request.get(f"/api/v1/games/{game}").json()
    assert body["rules"]["served_bonus"] == 10
    assert page.errors == []


def test_the_page_works_under_a_path_prefix(phone, page_app):
    from .browserkit import serve_app

    url, server = serve_app(page_app, prefix="/anotador")
    try:
        page = phone(url=url)
        game = start_game(page, ["Ana", "Beto"], path="/anotador/")
        assert page.url.endswith(f"/anotador/g/{game}")
        roll(page, [6, 6, 6, 1, 1])
        choose(page, "Full house", 30)
        expect(cell(page, 0, "full")).to_have_text("30")
        page.get_by_role("button", name="Share").click()
        expect(page.locator("#share-url")).to_have_value(re.compile(f"/anotador/g/{game}$"))
        expect(page.locator("#pdf-link")).to_have_attribute("href", re.compile(f"^/anotador/api/v1/games/{game}/"))
        assert page.errors == [] and page.aborted == []
    finally:
        server.shutdown()


def test_home_starts_with_this_phones_games_and_a_rematch_is_ready_to_start(phone):
    """Coming back: the games in course first (whose turn, the scores), then the finished ones (the winner),
    above the new-game form; another game of a finished one has the same players, the next one
    starting, and Start in sight."""
    page = phone(width=390, height=844)
    playing = start_game(page, ["Ana", "Beto"])
    roll(page, [6, 6, 6, 1, 1])
    choose(page, "Full house", 30)
    expect(cell(page, 0, "full")).to_have_text("30")
    done = start_game(page, ["Ceci", "Dani", "Eli"])
    roll(page, [4, 4, 4, 4, 4], served=True)
    choose(page, "Generala", 50)
    confirm(page)
    expect(page.locator("#winner")).to_be_visible()
    page.locator(".brand").click()
    groups = page.locator("#recent .recent-group")
    expect(groups).to_have_text(["In course", "Finished"])
    first, second = page.locator("#recent ul").nth(0), page.locator("#recent ul").nth(1)
    expect(first.locator(".recent-state")).to_have_text("Beto's turn · round 1 of 10")
    expect(first.locator(".recent-scores")).to_have_text("Ana 30 · Beto 0")
    expect(second.locator(".recent-state")).to_have_text("Ceci wins!")
    expect(second.locator(".recent-scores")).to_have_text("Ceci 50 · Dani 0 · Eli 0")
    home_top = page.locator("#recent-wrap").bounding_box()["y"]
    assert home_top < page.get_by_role("heading", name="New game").bounding_box()["y"]
    shot(page, "home-games")
    first.locator("a").click()
    page.wait_for_url(re.compile(f"/g/{playing}$"))
    expect(page.locator("#turn-line")).to_have_text("Beto's turn · round 1 of 10")
    # the finished game: another one, Dani (after Ceci) starting
    page.goto(f"/g/{done}")
    page.locator("#again").click()
    page.wait_for_url(re.compile(r"rematch=1"))
    inputs = page.locator("#players li input[type=text]")
    expect(inputs).to_have_count(3)
    assert [inputs.nth(i).input_value() for i in range(3)] == ["Dani", "Eli", "Ceci"]
    expect(page.locator("#start")).to_be_focused()
    assert in_viewport(page, "#start")
    assert page.locator("#house").evaluate("d => d.open") is False
    page.locator("#start").click()
    page.wait_for_url(re.compile(r"/g/[A-Za-z0-9_-]+$"))
    expect(page.locator("#turn-line")).to_have_text("Dani's turn · round 1 of 10")
    assert page.errors == []
