"""The phone page in a real browser: Debian's Chromium driven by Playwright.

The app runs on a local port; "phones" (browser contexts in a phone
viewport) play through the page as people at a table would. Screenshots of
each screen are saved under build/screenshots/.
"""

from __future__ import annotations

import re

from .toolkit import needs

needs("playwright.sync_api", "pip install playwright")
from playwright.sync_api import expect  # noqa: E402

from .browserkit import shot
from .pagekit import api_turns, cell, choose, confirm, offline, option, roll, scratch, start_game, total


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
    b.route("**/events", lambda route: route.abort())  # ...and no stream tells B of a turn
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
    expect(page.locator("#pending")).to_be_hidden(timeout=10_000)  # shown at once, stored when sent
    turn = api_turns(page, game)["turns"][0]
    assert [(b["category"], b["dice"], b["points"]) for b in turn["boxes"]] == \
        [("full", [1, 1, 6, 6, 6], 20), ("little_cameroon", [1, 2, 3, 4, 5], 21)]
    # offline, Ana splits from the game's table
    page.wait_for_function("() => Object.keys(localStorage).some(k => k.startsWith('anotador.table.'))")
    offline(page, True)
    roll(page, [5, 5, 5, 5, 5, 2, 3, 4, 5, 6])
    page.get_by_role("button", name="Split myself").click()
    expect(page.locator("#options .group-title")).to_have_text(["Group 1 · 5-5-5-5-5", "Group 2 · 2-3-4-5-6"])
    expect(page.locator('#options [data-focus-key="g1:big_cameroon"] .pts')).to_have_text("30")
    page.locator('#options [data-focus-key="g1:big_cameroon"]').click()
    expect(page.locator('#options [data-focus-key="g0:big_cameroon"]')).to_be_disabled()  # one box, one group
    page.locator('#options [data-focus-key="g0:fives"]').click()
    expect(cell(page, 0, "fives")).to_have_class(re.compile("pending"))
    offline(page, False)
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
    offline(page, True)
    expect(page.locator("#play-title")).to_have_text("Ana's roll-off roll")
    roll(page, [6, 6, 6, 6, 6])
    page.get_by_role("button", name="Record roll-off").click()
    expect(page.locator("#play-title")).to_have_text("Beto's roll-off roll")
    roll(page, [6, 6, 6, 6, 6])
    offline(page, False)
    expect(page.locator("#pending")).to_be_hidden(timeout=10000)   # Ana's roll sent and acknowledged
    expect(page.locator("#tray button.die")).to_have_count(5)
    page.get_by_role("button", name="Record roll-off").click()
    expect(page.locator("#turn-line")).to_have_text("Tied again: Ana, Beto roll (roll-off round 2).")
    shot(page, "roll-off-round-2")
    # Round 2 with no connection: a queued roll moves the roll-off on to the next player at once (the
    # page used to ask for Ana's roll again until the server answered), and both rolls are sent later.
    offline(page, True)
    for name, dice in (("Ana", [1, 1, 1, 1, 2]), ("Beto", [1, 1, 1, 1, 3])):
        expect(page.locator("#play-title")).to_have_text(f"{name}'s roll-off roll")
        roll(page, dice)
        page.get_by_role("button", name="Record roll-off").click()
    expect(page.locator("#play")).to_be_hidden()   # nobody's roll is due while both wait to be sent
    offline(page, False)
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
