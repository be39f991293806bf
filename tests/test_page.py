"""The phone page in a real browser: Debian's Chromium driven by Playwright.

The app runs on a local port; "phones" (browser contexts in a phone
viewport) play through the page as people at a table would. Screenshots of
each screen are saved under build/screenshots/.
"""

from __future__ import annotations

import re

from .conftest import needs

needs("playwright.sync_api", "pip install playwright")
from playwright.sync_api import expect  # noqa: E402

from .conftest import shot
from .pagekit import (api_turns, cell, choose, confirm, in_viewport, open_house, option, roll, scratch, start_game,
                      total)


def test_a_whole_two_player_generala_game(phone):
    page = phone()
    start_game(page, ["Ana", "Beto"])
    shot(page, "01-new-game-sheet")
    expect(page.locator("#turn-line")).to_have_text("Ana's turn · round 1 of 10")
    # Ana scores a served full house: the options come from /score, best first.
    roll(page, [6, 6, 6, 1, 1], served=True)
    expect(page.locator("#options button").first).to_contain_text("Full house")
    expect(page.locator("#options button").first).to_contain_text("35")
    expect(page.locator("#options button").first).to_have_accessible_name("Full house 35 points")
    shot(page, "02-roll-options")
    choose(page, "Full house", 35)
    expect(cell(page, 0, "full")).to_have_text("35")
    expect(page.locator("#turn-line")).to_have_text("Beto's turn · round 1 of 10")
    plan = [  # (player, dice, served, box, id, points); None dice = a scratch
        (1, [2, 3, 4, 5, 6], False, "Straight", "straight", 20),
        (0, [1, 2, 3, 4, 5], True, "Straight", "straight", 25),
        (1, [4, 4, 4, 4, 2], False, "Four of a kind", "four", 40),
        (0, [6, 6, 6, 6, 3], False, "Four of a kind", "four", 40),
        (1, [5, 5, 5, 2, 2], False, "Full house", "full", 30),
        (0, [1, 1, 1, 2, 3], False, "Ones", "ones", 3),
        (1, [1, 1, 2, 3, 4], False, "Ones", "ones", 2),
        (0, [2, 2, 2, 5, 6], False, "Twos", "twos", 6),
        (1, [2, 2, 4, 5, 6], False, "Twos", "twos", 4),
        (0, [3, 3, 3, 5, 6], False, "Threes", "threes", 9),
        (1, [3, 3, 3, 3, 6], False, "Threes", "threes", 12),
        (0, [4, 4, 1, 2, 3], False, "Fours", "fours", 8),
        (1, [4, 4, 4, 1, 2], False, "Fours", "fours", 12),
        (0, [5, 5, 5, 1, 2], False, "Fives", "fives", 15),
        (1, [5, 5, 1, 2, 3], False, "Fives", "fives", 10),
        (0, [6, 6, 6, 1, 2], False, "Sixes", "sixes", 18),
        (1, [6, 6, 1, 2, 3], False, "Sixes", "sixes", 12),
        (0, None, False, "Generala", "generala", 0),
    ]
    for player, dice, served, box, box_id, points in plan:
        if dice is None:
            scratch(page, box)
        else:
            roll(page, dice, served)
            choose(page, box, points)
        expect(cell(page, player, box_id)).to_have_text(str(points))
    # Beto's last box: generala, not served.
    roll(page, [2, 2, 2, 2, 2])
    choose(page, "Generala", 50)
    expect(page.locator("#winner")).to_have_text("Beto wins! (highest total)")
    ana, beto = 35 + 25 + 40 + 3 + 6 + 9 + 8 + 15 + 18, 20 + 40 + 30 + 2 + 4 + 12 + 12 + 10 + 12 + 50
    expect(total(page, 0)).to_have_text(str(ana))
    expect(total(page, 1)).to_have_text(str(beto))
    # every player ranked, with the distance to the winner
    expect(page.locator("#ranking li")).to_have_text([f"1. Beto {beto}", f"2. Ana {ana} (−{beto - ana})"])
    expect(page.locator("#play")).to_be_hidden()
    expect(page.get_by_role("link", name="Sheet (PDF)")).to_have_attribute("href", re.compile(r"/sheet\.pdf"))
    expect(page.get_by_role("link", name="New game, same players")).to_be_visible()
    shot(page, "03-game-over")
    assert page.aborted == []  # no poll was ever abandoned
    # a new game with the same players and rules starts from here, Beto (after Ana) starting
    page.get_by_role("link", name="New game, same players").click()
    expect(page.locator("#players li input").nth(0)).to_have_value("Beto")
    expect(page.locator("#players li input").nth(1)).to_have_value("Ana")
    # the same rules, chosen and folded: the players and Start come first
    expect(page.locator("#rules-chosen")).to_have_text("Generala")
    expect(page.locator('input[name=variant][value="generala"]')).to_be_checked()
    assert page.errors == []


def test_an_instant_win_is_announced_before_the_tap_and_asked_once(phone):
    page = phone()
    start_game(page, ["Ana", "Beto"])
    roll(page, [4, 4, 4, 4, 4], served=True)
    expect(page.locator("#instant")).to_have_text("Ana wins the game with this roll!")
    best = option(page, "Generala", 50)
    expect(best).to_contain_text("Wins the game")
    # even a small box ends the game: every option says so
    expect(option(page, "Fours", 20)).to_contain_text("Wins the game")
    shot(page, "04a-instant-win-warning")
    option(page, "Fours", 20).click()
    expect(page.locator("#confirm-title")).to_have_text("Does Ana win?")
    expect(page.locator("#confirm-text")).to_have_text("With served generala Ana wins the game now. Record Fours 20?")
    shot(page, "04b-instant-win-confirm")
    confirm(page, yes=False)                           # cancel: the game stays open
    expect(page.locator("#winner")).to_be_hidden()
    expect(cell(page, 0, "fours")).to_have_text("")
    best.click()
    confirm(page, yes=True)
    expect(page.locator("#winner")).to_have_text("Ana wins! (served generala)")
    expect(cell(page, 1, "generala")).to_have_text("")
    shot(page, "04-instant-win")
    # Undo takes the instant win back, and says what it undoes.
    page.locator("#undo").click()
    expect(page.locator("#confirm-text")).to_have_text("Undo Ana: Generala, 50 points?")
    confirm(page)
    expect(page.locator("#winner")).to_be_hidden()
    expect(page.locator("#turn-line")).to_have_text("Ana's turn · round 1 of 10")
    expect(page.locator("#tray button.die")).to_have_text(["4"] * 5)   # the dice, ready to be placed again
    expect(page.locator("#served")).to_be_checked()
    assert page.errors == []


def test_options_drawn_before_served_was_ticked_cannot_be_taken_until_scored_again(phone):
    """A quick thumb: 4-4-4-4-4, "served", Generala at once. The Generala first drawn was for a roll not
    served; until the served roll is scored it cannot be tapped, so the instant win is still asked."""
    page = phone()
    start_game(page, ["Ana", "Beto"])
    held = []

    def hold_served(route):
        if route.request.post_data_json.get("served"):
            held.append(route)  # answered later, as a slow connection would
        else:
            route.continue_()

    page.route("**/api/v1/score", hold_served)
    roll(page, [4, 4, 4, 4, 4])
    stale = option(page, "Generala", 50)
    expect(stale).to_be_enabled()
    page.locator("#served").click()
    expect(page.locator("#options")).to_have_attribute("aria-busy", "true")
    expect(stale).to_be_disabled()
    for _ in range(100):  # the held request reaches the handler when Playwright next looks
        if held:
            break
        page.wait_for_timeout(50)
    assert len(held) == 1
    held[0].continue_()
    page.unroute("**/api/v1/score")
    choose(page, "Generala", 50)  # the served roll's own option, once drawn
    expect(page.locator("#confirm-title")).to_have_text("Does Ana win?")
    confirm(page)
    expect(page.locator("#winner")).to_have_text("Ana wins! (served generala)")
    expect(page.locator("#options")).not_to_have_attribute("aria-busy", "true")
    assert page.errors == []


def test_the_big_general_is_named_by_its_variant(phone):
    page = phone()
    start_game(page, ["Ana", "Beto"], variant="general-pr", first_rolls=[2, 5])
    roll(page, [3, 3, 3, 3, 3], served=True)
    expect(page.locator("#options button .label")).to_have_text([re.compile("^Four of a kind"), re.compile("^Threes")])
    choose(page, "Four of a kind", 45)
    confirm(page)
    expect(page.locator("#winner")).to_have_text("Ana wins! (big general)")


def test_undo_correction_and_a_stray_tap(phone):
    page = phone()
    start_game(page, ["Ana", "Beto"])
    roll(page, [3, 3, 3, 2, 2])
    choose(page, "Full house", 30)
    expect(cell(page, 0, "full")).to_have_text("30")
    page.locator("#undo").click()
    expect(page.locator("#confirm-title")).to_have_text("Undo the last turn")
    expect(page.locator("#confirm-text")).to_have_text("Undo Ana: Full house, 30 points?")
    confirm(page)
    expect(cell(page, 0, "full")).to_have_text("")
    expect(page.locator("#tray button.die")).to_have_text(["3", "3", "3", "2", "2"])   # back on the pad
    choose(page, "Full house", 30)
    roll(page, [1, 2, 3, 4, 6])
    choose(page, "Sixes", 6)
    # Ana has half entered her next roll when someone taps her full house by mistake...
    page.get_by_role("button", name="Add a 5", exact=True).click()
    page.get_by_role("button", name="Add a 5", exact=True).click()
    page.locator("#served").check()
    page.get_by_role("button", name="Full house, Ana: 30 points. Correct").click()
    expect(page.locator("#play-title")).to_have_text("Round 1 · Ana")
    expect(page.locator("#play-title")).to_be_focused()
    expect(page.locator("#sheet thead th.fix")).to_have_text("Ana")        # her column is the one highlighted
    expect(cell(page, 0, "full")).to_have_class(re.compile("fixing"))
    shot(page, "05-correction")
    page.locator("#cancel-fix").click()
    expect(page.locator("#tray button.die")).to_have_text(["5", "5"])             # ...and gets her roll back
    expect(page.locator("#served")).to_be_checked()
    expect(page.get_by_role("button", name="Full house, Ana: 30 points. Correct")).to_be_focused()
    # the full house was really threes: correct it
    page.get_by_role("button", name="Full house, Ana: 30 points. Correct").click()
    choose(page, "Threes", 9)
    expect(cell(page, 0, "threes")).to_have_text("9")
    expect(cell(page, 0, "full")).to_have_text("")
    expect(total(page, 0)).to_have_text("9")
    expect(page.locator("#turn-line")).to_have_text("Ana's turn · round 2 of 10")
    expect(page.locator("#tray button.die")).to_have_text(["5", "5"])             # still her half-entered roll
    assert page.errors == []


def test_double_cameroon_turn(phone):
    page = phone()
    start_game(page, ["Ana", "Beto"], variant="double-cameroon", first_rolls=[1, 6])
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
    expect(cell(page, 0, "big_cameroon")).to_have_text("30")
    expect(cell(page, 0, "little_cameroon")).to_have_text("21")
    expect(total(page, 0)).to_have_text("51")
    expect(page.locator("#turn-line")).to_have_text("Beto's turn · round 1 of 5")
    # a scratch of two boxes says two
    page.locator("#scratch-btn").click()
    page.locator("#scratch-list button").nth(0).click()
    page.locator("#scratch-list button").nth(1).click()
    expect(page.locator("#confirm-title")).to_have_text("Scratch two boxes")
    confirm(page, yes=False)
    assert page.errors == []


def test_another_phone_sees_every_turn(phone):
    a = phone()
    game = start_game(a, ["Ana", "Beto"])
    b = phone("es-AR")
    b.goto(f"/g/{game}")  # the read-only link
    expect(b.locator("#turn-line")).to_have_text("Turno de Ana · ronda 1 de 10")
    expect(b.locator("#play")).to_be_hidden()
    expect(b.locator("#readonly-note")).to_be_visible()
    for player, dice, box_en, box_id, points in [(0, [6, 6, 6, 1, 1], "Full house", "full", 30),
                                                 (1, [1, 2, 3, 4, 5], "Straight", "straight", 20),
                                                 (0, [5, 5, 5, 5, 2], "Four of a kind", "four", 40)]:
        roll(a, dice)
        choose(a, box_en, points)
        expect(cell(b, player, box_id)).to_have_text(str(points), timeout=2500)
    shot(b, "07-other-phone-es")
    assert a.errors == [] and b.errors == []


def test_a_turn_recorded_by_two_phones_shows_the_conflict(phone):
    a = phone()
    game = start_game(a, ["Ana", "Beto"])
    token = a.evaluate("JSON.parse(localStorage.getItem('anotador.games'))[0].token")
    b = phone()
    b.clock.install()  # time flows on an installed clock...
    b.goto(f"/g/{game}#token={token}")
    expect(b.locator("#play")).to_be_visible()
    expect(b).to_have_url(re.compile(f"/g/{game}$"))  # the token left the address bar
    b.clock.pause_at(b.evaluate("Date.now()") + 500)  # ...until paused: B's next poll never comes, its sheet is stale
    roll(a, [6, 6, 6, 1, 1])
    roll(b, [2, 2, 2, 3, 3])
    choose(a, "Full house", 30)
    expect(cell(a, 0, "full")).to_have_text("30")
    choose(b, "Full house", 30)  # B's sheet is a second behind: its turn is refused, and shown
    expect(b.locator("#conflict-title")).to_have_text("Another phone recorded first")
    expect(b.locator("#conflict-text")).to_have_text(
        "Another phone recorded Ana's turn first: Full house 30. Yours, not sent: Ana: Full house 30.")
    expect(cell(b, 0, "full")).to_have_text("30")
    expect(b.locator("#turn-line")).to_have_text("Beto's turn · round 1 of 10")
    shot(b, "10-conflict")
    b.locator("#conflict-reenter").click()               # B's dice come back, for Beto's turn
    expect(b.locator("#tray button.die")).to_have_text(["2", "2", "2", "3", "3"])
    assert len(api_turns(b, game)["turns"]) == 1
    assert a.errors == [] and b.errors == []


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
    page.locator("#tie-dice").get_by_label("Ana's die").select_option("4")
    page.locator("#tie-dice").get_by_label("Beto's die").select_option("4")
    with page.expect_response("**/api/v1/games"):               # tied again: both roll once more
        page.locator("#start").click()
    expect(page.locator("#tie-dice select")).to_have_count(2)
    page.locator("#tie-dice").get_by_label("Ana's die").select_option("2")
    page.locator("#tie-dice").get_by_label("Beto's die").select_option("5")
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
    from .conftest import serve_app

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


def test_double_cameroon_dice_split_by_the_player(phone):
    """Besides the ranked splits: the ten dice put in two groups by taps, a box picked for each group;
    online from /score's groups, offline from the game's table, the same boxes and points."""
    page = phone(width=390, height=844)
    game = start_game(page, ["Ana", "Beto"], variant="double-cameroon", first_rolls=[6, 1])
    roll(page, [1, 1, 1, 6, 6, 2, 3, 4, 5, 6])
    page.get_by_role("button", name="Split myself").click()
    expect(page.get_by_role("button", name="Split myself")).to_have_attribute("aria-pressed", "true")
    # the first five in group 1 to start: 1-1-1-6-6 a full house, 2-3-4-5-6 a big cameroon
    expect(page.locator("#options .group-title")).to_have_text(["Group 1 · 1-1-1-6-6", "Group 2 · 2-3-4-5-6"])
    # a tap moves a die: the last 6 to group 1 and the first 1 to group 2
    page.get_by_role("button", name="Die 10: 6, group 2. Move to group 1").click()
    page.get_by_role("button", name="Die 1: 1, group 1. Move to group 2").click()
    expect(page.locator("#options .group-title")).to_have_text(["Group 1 · 1-1-6-6-6", "Group 2 · 1-2-3-4-5"])
    shot(page, "dc-split-myself")
    page.locator('#options [data-focus-key="g0:full"]').click()
    expect(page.locator('#options [data-focus-key="g0:full"]')).to_have_attribute("aria-pressed", "true")
    page.locator('#options [data-focus-key="g1:little_cameroon"]').click()
    expect(cell(page, 1, "full")).to_have_text("20")   # the lowest die starts: Beto
    expect(cell(page, 1, "little_cameroon")).to_have_text("21")
    turn = api_turns(page, game)["turns"][0]
    assert [(b["category"], b["dice"], b["points"]) for b in turn["boxes"]] == \
        [("full", [1, 1, 6, 6, 6], 20), ("little_cameroon", [1, 2, 3, 4, 5], 21)]
    # offline, Ana splits from the game's table
    page.wait_for_function("() => Object.keys(localStorage).some(k => k.startsWith('anotador.table.'))")
    page.context.set_offline(True)
    roll(page, [5, 5, 5, 5, 5, 2, 3, 4, 5, 6])
    page.get_by_role("button", name="Split myself").click()
    expect(page.locator("#options .group-title")).to_have_text(["Group 1 · 5-5-5-5-5", "Group 2 · 2-3-4-5-6"])
    expect(page.locator('#options [data-focus-key="g1:big_cameroon"] .pts')).to_have_text("30")
    page.locator('#options [data-focus-key="g1:big_cameroon"]').click()
    expect(page.locator('#options [data-focus-key="g0:big_cameroon"]')).to_be_disabled()  # one box, one group
    page.locator('#options [data-focus-key="g0:fives"]').click()
    expect(cell(page, 0, "fives")).to_have_class(re.compile("pending"))
    page.context.set_offline(False)
    expect(cell(page, 0, "fives")).to_have_text("25", timeout=8000)
    expect(cell(page, 0, "big_cameroon")).to_have_text("30")
    assert page.errors == []


def test_a_roll_off_and_a_tie_in_it_each_say_so(phone):
    """Under tie_break roll_off, two players tied at the end roll off on the page; tied again, the page
    says it is the second round, not the same words as the first."""
    page = phone()
    page.goto("/")
    made = page.request.post("/api/v1/games", data={"rules": {"base": "generala", "tie_break": "roll_off"},
                                                     "players": ["Ana", "Beto"]}).json()
    auth = {"Authorization": f"Bearer {made['token']}"}
    for box in ["ones", "twos", "threes", "fours", "fives", "sixes", "straight", "full", "four", "generala"]:
        for player in (0, 1):
            done = page.request.post(f"/api/v1/games/{made['id']}/turns", headers=auth,
                                     data={"player": player, "category": box, "scratch": True})
            assert done.status == 201, done.text()
    page.goto(f"/g/{made['id']}#token={made['token']}")
    expect(page.locator("#turn-line")).to_have_text("Roll-off: Ana, Beto roll.")
    # Ana's roll waits to be sent while Beto's dice are entered; its acknowledgement, when it comes,
    # must leave Beto's dice on the pad (it used to clear them, and Beto's roll was lost)
    page.context.set_offline(True)
    expect(page.locator("#play-title")).to_have_text("Ana's roll-off roll")
    roll(page, [6, 6, 6, 6, 6])
    page.get_by_role("button", name="Record roll-off").click()
    expect(page.locator("#play-title")).to_have_text("Beto's roll-off roll")
    roll(page, [6, 6, 6, 6, 6])
    page.context.set_offline(False)
    expect(page.locator("#pending")).to_be_hidden(timeout=10000)   # Ana's roll sent and acknowledged
    expect(page.locator("#tray button.die")).to_have_count(5)
    page.get_by_role("button", name="Record roll-off").click()
    expect(page.locator("#turn-line")).to_have_text("Tied again: Ana, Beto roll (roll-off round 2).")
    shot(page, "roll-off-round-2")
    # Round 2 with no connection: a queued roll moves the roll-off on to the next player at once (the
    # page used to ask for Ana's roll again until the server answered), and both rolls are sent later.
    page.context.set_offline(True)
    for name, dice in (("Ana", [1, 1, 1, 1, 2]), ("Beto", [1, 1, 1, 1, 3])):
        expect(page.locator("#play-title")).to_have_text(f"{name}'s roll-off roll")
        roll(page, dice)
        page.get_by_role("button", name="Record roll-off").click()
    expect(page.locator("#play")).to_be_hidden()   # nobody's roll is due while both wait to be sent
    page.context.set_offline(False)
    expect(page.locator("#winner")).to_contain_text("Beto wins!", timeout=10000)
    rolls = page.request.get(f"/api/v1/games/{made['id']}/turns").json()["roll_offs"]
    assert [(r["player"], r["dice"]) for r in rolls][-2:] == [(0, [1, 1, 1, 1, 2]), (1, [1, 1, 1, 1, 3])]
    assert page.errors == []


def test_a_recorded_turn_buzzes_unless_turned_off(phone):
    page = phone()
    page.add_init_script("window.__buzz = []; navigator.vibrate = (ms) => { window.__buzz.push(ms); return true; };")
    start_game(page, ["Ana", "Beto"])
    roll(page, [6, 6, 6, 1, 1])
    choose(page, "Full house", 30)
    assert page.evaluate("window.__buzz") == [25]
    page.locator(".brand").click()
    page.get_by_label("Vibrate when a turn is recorded").uncheck()   # kept on this phone
    page.go_back()
    roll(page, [2, 3, 4, 5, 6])
    choose(page, "Straight", 20)
    expect(cell(page, 1, "straight")).to_have_text("20")
    assert page.evaluate("window.__buzz") == []
    page.reload()
    page.locator(".brand").click()
    expect(page.get_by_label("Vibrate when a turn is recorded")).not_to_be_checked()


def test_a_corrected_cell_is_marked_on_every_phone(phone):
    """A correction made on one phone is marked on the others (a corner fold, and a word for screen readers),
    whether it changed the points in place or moved the turn to another box; an undone cell loses it."""
    a = phone()
    game = start_game(a, ["Ana", "Beto"])
    b = phone()
    b.goto(f"/g/{game}")   # read only
    roll(a, [3, 3, 3, 2, 2])
    choose(a, "Full house", 30)
    roll(a, [1, 2, 3, 4, 6])
    choose(a, "Sixes", 6)
    expect(cell(b, 1, "sixes")).to_have_text("6", timeout=3000)
    expect(b.locator("#sheet td.corrected")).to_have_count(0)
    # Ana's full house was threes: moved to another box
    a.get_by_role("button", name="Full house, Ana: 30 points. Correct").click()
    choose(a, "Threes", 9)
    expect(cell(b, 0, "threes")).to_contain_text("9", timeout=3000)
    expect(cell(b, 0, "threes")).to_have_class(re.compile("corrected"))
    expect(cell(b, 0, "threes")).to_contain_text("(corrected)")
    expect(cell(a, 0, "threes")).to_have_class(re.compile("corrected"))   # on the phone that corrected too
    expect(b.locator("#sheet td.corrected")).to_have_count(1)
    shot(b, "corrected-on-another-phone")
    # the mark stays on a phone that reopens the game
    b.reload()
    expect(cell(b, 0, "threes")).to_have_class(re.compile("corrected"))
    assert a.errors == [] and b.errors == []
