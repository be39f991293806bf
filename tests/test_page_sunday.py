"""A family's Sunday at the table: nothing the family did not say changes the score, and the hint speaks in
the family's words, naming a button that is on the screen."""

from __future__ import annotations

import json
import re
import urllib.request

import pytest

from .toolkit import needs

needs("playwright.sync_api", "pip install playwright")
from playwright.sync_api import expect  # noqa: E402

from .browserkit import shot
from .pagekit import choose, offline, open_rules, roll_again, start_game

#: Every built-in variant in which a served roll scores more.
SERVED_BONUS = ["generala", "generala-doble", "general-pr", "generala-wiki"]
ADD = "Add a {}"


def _api(base_url, method, path, body=None, token=None):
    data = None if body is None else json.dumps(body).encode()
    req = urllib.request.Request(base_url + path, data=data, method=method,
                                 headers={"Content-Type": "application/json",
                                          **({"Authorization": f"Bearer {token}"} if token else {})})
    with urllib.request.urlopen(req) as r:
        return json.load(r)


def _enter(page, dice):
    """Tap the dice in, as a player entering a turn's final dice does: nothing else."""
    if page.locator("#tray button.die").count():
        page.locator("#clear").click()
    for face in dice:
        page.get_by_role("button", name=ADD.format(face), exact=True).click()


def _answer_building(route, retry_after: int) -> None:
    """Answer as a server still building its table: 503 with Retry-After."""
    route.fulfill(status=503, headers={"Retry-After": str(retry_after), "Content-Type": "application/problem+json"},
                  body='{"type": "tag:anotador,2026:problem:table-building", "status": 503}')


def _building_once(asked: list, retry_after: int):
    """A route handler: the first request answered as a server still building its table (503, Retry-After), the
    next ones passed on; each request's URL put in ``asked``."""
    def handle(route):
        asked.append(route.request.url)
        if len(asked) > 1:
            route.continue_()
        else:
            _answer_building(route, retry_after)
    return handle


def _building_while(held: list, retry_after: int):
    """A route handler: every request answered as a server still building its table (503, Retry-After) for as
    long as ``held`` is not empty, then passed on: the waiting state lasts until the test has looked at it."""
    def handle(route):
        if held:
            _answer_building(route, retry_after)
        else:
            route.continue_()
    return handle


def _offered(page) -> dict[str, str]:
    """Each option's box and points, once the server's points are drawn."""
    page.wait_for_function("""() => {
        const pts = [...document.querySelectorAll('#options button .pts')];
        return pts.length > 0 && pts.every((p) => /^\\d+$/.test(p.textContent));
    }""")
    return page.evaluate("""() => Object.fromEntries([...document.querySelectorAll('#options button')]
        .map((b) => [b.querySelector('.label').firstChild.textContent.trim(), b.querySelector('.pts').textContent]))""")


@pytest.mark.parametrize("variant", SERVED_BONUS)
def test_the_hint_on_never_ticks_served_nor_changes_the_points(phone, variant):
    """Ana's turn entered with the hint off, Beto's (a new turn) with it on: the same final dice are offered the
    same points, "served" is never ticked, and the pad says the dice are the final roll."""
    page = phone()
    start_game(page, ["Ana", "Beto"], variant=variant)
    _enter(page, [6, 6, 6, 1, 1])
    expect(page.locator("#served")).not_to_be_checked()
    off = _offered(page)
    choose(page, next(iter(off)))
    expect(page.locator("#play-title")).to_have_text("Beto's roll")
    page.locator("#hint-on").click()
    expect(page.locator("#served")).not_to_be_checked()
    _enter(page, [6, 6, 6, 1, 1])
    expect(page.locator("#served")).not_to_be_checked()
    expect(page.get_by_role("radio", name="3", exact=True)).to_have_attribute("aria-checked", "true")
    assert _offered(page) == off
    # the next turn too (the first one set by the page with the hint already on)
    choose(page, next(iter(off)))
    expect(page.locator("#play-title")).to_have_text("Ana's roll")
    _enter(page, [6, 6, 6, 1, 1])
    expect(page.locator("#served")).not_to_be_checked()
    assert page.errors == []


def test_served_is_ticked_when_the_player_says_it_is_the_first_roll(phone):
    """The player's own word still counts: "1" in the roll picker (or the switch) is a served roll."""
    page = phone()
    start_game(page, ["Ana", "Beto"])
    page.locator("#hint-on").click()
    _enter(page, [6, 6, 6, 1, 1])
    assert _offered(page)["Full house"] == "30"
    page.get_by_role("radio", name="1", exact=True).click()
    expect(page.locator("#served")).to_be_checked()
    expect(page.locator("#options button", has_text="Full house").locator(".pts")).to_have_text("35")
    assert page.errors == []


def test_a_hint_to_cross_out_says_so_and_marks_the_scratch_button(phone, advice_tables, base_url):
    """Every number box filled, 1-1-2-3-6 on the last throw: the best is to cross the Generala out. The hint
    says "scratch", never "score Generala", and stars "Scratch…" and then Generala in the scratch list."""
    game = _api(base_url, "POST", "/api/v1/games", {"variant": "generala", "players": ["Ana", "Beto"]})
    token, url = game["token"], f"/api/v1/games/{game['id']}/turns"
    for box, dice in (("ones", [1, 1, 1, 2, 3]), ("twos", [2, 2, 2, 1, 3]), ("threes", [3, 3, 3, 1, 2]),
                      ("fours", [4, 4, 4, 1, 2]), ("fives", [5, 5, 5, 1, 2]), ("sixes", [6, 6, 6, 1, 2])):
        for seat in (0, 1):
            _api(base_url, "POST", url, {"player": seat, "category": box, "dice": dice}, token)
    page = phone()
    page.goto(f"/g/{game['id']}#token={token}")
    expect(page.locator("#play-title")).to_have_text("Ana's roll")
    page.locator("#hint-on").click()
    _enter(page, [1, 1, 2, 3, 6])
    expect(page.locator("#hint")).to_have_text(re.compile(
        r"^Hint: scratch Generala: 0 points; it adds the most in the long run \(expected final total ≈ \d+\.\d\)$"))
    expect(page.locator("#scratch-btn")).to_have_class(re.compile(r"\bbest\b"))
    expect(page.locator("#options button.best")).to_have_count(0)  # no option scores it
    page.locator("#scratch-btn").click()
    # the scratch list has a heading of its own, and is the group it names
    expect(page.get_by_role("group", name="Boxes to scratch")).to_be_visible()
    expect(page.locator("#scratch-list .group-title")).to_have_text("Boxes to scratch")
    starred = page.locator("#scratch-list button.best")
    expect(starred).to_have_count(1)
    expect(starred).to_contain_text("Generala")
    shot(page, "sunday-hint-scratch")
    # the family crosses out the straight instead: the analysis names the better move as a crossing out too
    page.locator("#scratch-list button", has_text="Straight").click()
    page.locator("#confirm-yes").click()
    expect(page.locator("#play-title")).to_have_text("Beto's roll")
    page.wait_for_function("""id => fetch(`/api/v1/games/${id}/turns`).then((r) => r.json())
        .then((b) => b.turns.length === 13)""", arg=game["id"])
    page.evaluate("""id => import('/static/js/hint.js').then((m) => m.showAnalysis(id, ['Ana', 'Beto'],
        (c) => ({ generala: 'Generala', straight: 'Straight' })[c] || c))""", game["id"])
    expect(page.locator("#analysis .analysis-turns li").first).to_have_text(re.compile(
        r"^Round 7, Ana crossed out Straight with 1-1-2-3-6; crossing out Generala was worth \d+\.\d points more\.$"))
    assert page.errors == []


def test_offline_the_totals_count_what_waits_and_the_count_is_said_in_good_spanish(phone, base_url):
    """Yahtzee offline, in Spanish: each total adds the turns waiting to be sent, and the upper bonus they
    reach, marked as waiting; once sent, the server's totals are the same figures. "1 anotación pendiente",
    "2 anotaciones pendientes"."""
    from .pagekit import total

    game = _api(base_url, "POST", "/api/v1/games", {"variant": "yahtzee", "players": ["Ana", "Beto"]})
    token, url = game["token"], f"/api/v1/games/{game['id']}/turns"
    for box, dice in (("ones", [1, 1, 1, 2, 3]), ("twos", [2, 2, 2, 1, 3]), ("threes", [3, 3, 3, 1, 2]),
                      ("fours", [4, 4, 4, 1, 2]), ("fives", [5, 5, 1, 2, 3])):
        for seat in (0, 1):
            _api(base_url, "POST", url, {"player": seat, "category": box, "dice": dice}, token)
    page = phone(locale="es-AR")
    page.goto("/")
    page.evaluate("localStorage.setItem('anotador.lang', 'es')")
    page.goto(f"/g/{game['id']}#token={token}")
    expect(total(page, 0)).to_have_text("40")
    offline(page, True)
    for seat, dice in ((0, [6, 6, 6, 6, 2]), (1, [6, 6, 1, 2, 3])):
        for face in dice:
            page.get_by_role("button", name=f"Agregar un {face}", exact=True).click()
        page.locator('#options [data-focus-key="opt:sixes"]').click()
        if seat == 0:
            expect(page.locator("#pending")).to_have_text("1 anotación pendiente de enviar")
    expect(page.locator("#pending")).to_have_text("2 anotaciones pendientes de enviar")
    # Ana: 40 + 24 reaches 63, so the bonus of 35 counts; Beto: 40 + 12, no bonus
    expect(total(page, 0)).to_have_text("99 (pendiente de enviar)")
    expect(total(page, 1)).to_have_text("52 (pendiente de enviar)")
    shot(page, "sunday-offline-totals")
    offline(page, False)
    expect(page.locator("#pending")).to_be_hidden(timeout=10_000)
    expect(total(page, 0)).to_have_text("99")
    expect(total(page, 1)).to_have_text("52")
    assert [p["total"] for p in _api(base_url, "GET", f"/api/v1/games/{game['id']}")["players"]] == [99, 52]
    assert page.errors == []


def test_the_roll_for_who_starts_waits_for_every_die(phone):
    """With "roll for who starts", no die shows a face before it is rolled: Start asks for the missing die
    (and names whose), never claims a tie of ones; the tie's own dice likewise."""
    page = phone()
    page.goto("/")
    open_rules(page)
    page.get_by_role("radio", name=re.compile("^Generala Ten")).check()
    rows = page.locator("#players li")
    while rows.count() < 3:
        page.locator("#add-player").click()
    for i, name in enumerate(["Ana", "Beto", "Ceci"]):
        rows.nth(i).locator("input").fill(name)
    page.locator("#use-dice").check()
    for i in range(3):
        expect(rows.nth(i).locator("select")).to_have_value("")
    page.locator("#start").click()
    expect(page.locator("#form-error")).to_have_text("Ana's die is missing: everyone rolls, then enter what came up.")
    expect(page.locator("#tie")).to_be_hidden()
    expect(rows.nth(0).locator("select")).to_be_focused()
    rows.nth(0).locator("select").select_option("5")
    rows.nth(1).locator("select").select_option("5")
    page.locator("#start").click()
    expect(page.locator("#form-error")).to_have_text(re.compile("^Ceci's die is missing"))
    rows.nth(2).locator("select").select_option("2")
    page.locator("#start").click()
    expect(page.locator("#tie-text")).to_have_text("Tie: Ana, Beto roll again. Enter their dice and tap Start.")
    for select in page.locator("#tie-dice select").all():
        expect(select).to_have_value("")
    page.locator("#start").click()
    expect(page.locator("#form-error")).to_have_text(re.compile("^Ana's die is missing"))
    roll_again(page, {"Ana": 3, "Beto": 6})
    shot(page, "sunday-roll-off")
    page.locator("#start").click()
    page.wait_for_url(re.compile(r"/g/[A-Za-z0-9_-]+$"))
    expect(page.locator("#play-title")).to_have_text("Beto's roll")
    assert page.errors == []


def test_after_a_keep_the_pad_asks_only_for_the_dice_thrown_again(phone, advice_tables):
    page = phone()
    page.goto("/")
    page.locator("#record-rolls").check()
    start_game(page, ["Ana", "Beto"])
    expect(page.locator("#options")).to_have_text("Tap the 5 dice.")
    _enter(page, [6, 6, 2, 3, 1])
    page.locator("#reroll").click()
    page.get_by_role("button", name="Die 1: 6. Keep it").click()
    page.get_by_role("button", name="Die 2: 6. Keep it").click()
    page.locator("#throw-again").click()
    expect(page.locator("#options")).to_have_text("Tap the 3 dice you threw.")
    for face in (4, 6, 1):
        page.get_by_role("button", name=f"Add a {face}", exact=True).click()
    page.locator("#reroll").click()  # the sixes kept before are picked again: the new six joins them
    page.get_by_role("button", name="Die 4: 6. Keep it").click()
    page.locator("#throw-again").click()
    expect(page.locator("#options")).to_have_text("Tap the 2 dice you threw.")
    assert page.errors == []


def test_a_win_by_a_served_generala_says_so_on_the_winners_line_and_shows_no_gaps(phone, base_url, advice_tables):
    """Ana wins on the spot behind on points: the ranking says how she won, and no distance "to the winner"
    that points never decided."""
    game = _api(base_url, "POST", "/api/v1/games", {"variant": "generala", "players": ["Ana", "Beto", "Ceci"]})
    token, url = game["token"], f"/api/v1/games/{game['id']}/turns"
    plan = [(0, "ones", [1, 2, 3, 4, 6]), (1, "sixes", [6, 6, 6, 6, 1]), (2, "sixes", [6, 6, 1, 2, 3]),
            (0, "twos", [2, 1, 3, 4, 6]), (1, "fives", [5, 5, 5, 5, 1]), (2, "fives", [5, 5, 1, 2, 3])]
    for seat, box, dice in plan:  # Ana 3 points, Beto 44, Ceci 22
        _api(base_url, "POST", url, {"player": seat, "category": box, "dice": dice}, token)
    page = phone()
    page.goto(f"/g/{game['id']}#token={token}")
    expect(page.locator("#play-title")).to_have_text("Ana's roll")
    _enter(page, [4, 4, 4, 4, 4])
    page.locator("#served").check()
    page.locator("#options button", has_text="Generala").first.click()
    page.locator("#confirm-yes").click()
    expect(page.locator("#winner")).to_be_visible()
    names = _api(base_url, "GET", "/api/v1/variants/generala")["instant_win_names"]["en"].lower()
    ranking = page.locator("#ranking li")
    expect(ranking).to_have_count(3)
    expect(ranking.nth(0)).to_have_text(re.compile(rf"^1\. Ana \d+ · won with a {re.escape(names)}$"))
    expect(ranking.nth(1)).to_have_text(re.compile(r"^2\. Beto \d+$"))
    expect(ranking.nth(2)).to_have_text(re.compile(r"^3\. Ceci \d+$"))
    shot(page, "sunday-instant-win", full_page=True)
    # the analysis: a finished sheet's figure is its total, the columns say what they are, both charts count rounds
    page.get_by_role("button", name="Analysis").click()
    expect(page.locator("#analysis table thead th")).to_have_text(
        ["Players", "Expected at the start", "Final total", "Lost to decisions", "Luck", "Not judged"])
    totals = [p["total"] for p in _api(base_url, "GET", f"/api/v1/games/{game['id']}")["players"]]
    expect(page.locator("#analysis table tbody tr td:nth-child(3)")).to_have_text(
        [f"{total}\u00a0pts" for total in totals])
    expect(page.locator("#analysis")).to_contain_text("“Not judged”: how much the turns recorded")
    expect(page.locator("#analysis")).to_contain_text("“—” under Luck")
    # both charts' x-axis: rounds 0 to 3 (Ana won in the third), the round's ticks centred under the axis
    ticks = "ts => ts.map((t) => t.textContent).filter((x) => /^\\d+$/.test(x)).map(Number)"
    for chart in (page.locator("#analysis svg.analysis-chart"), page.locator("#chances-end svg.chances-chart")):
        expect(chart.locator("text", has_text="Round")).to_have_count(1)
        assert max(chart.locator('text[text-anchor="middle"]').evaluate_all(ticks)) == 3
    shot(page, "sunday-analysis", full_page=True)
    assert page.errors == []


@pytest.mark.parametrize(("width", "height"), [(360, 640), (390, 844), (768, 1024)], ids=["small", "phone", "tablet"])
def test_the_start_form_comes_first_and_the_rules_are_one_tap_away_and_remembered(phone, width, height):
    """Opening the page: the players and Start on the first screen, no scrolling (the rules folded, Generala
    chosen); the rules last played by on this phone are chosen next time."""
    from .pagekit import in_viewport, open_rules

    page = phone(width=width, height=height)
    page.goto("/")
    expect(page.locator("#rules-chosen")).to_have_text("Generala")
    for selector in ("#players li:nth-child(1) input", "#players li:nth-child(2) input", "#start"):
        assert in_viewport(page, selector), selector
    shot(page, f"sunday-start-{width}x{height}")
    open_rules(page)  # one tap
    page.get_by_role("radio", name=re.compile("^Yahtzee")).check()
    expect(page.locator("#rules-chosen")).to_have_text("Yahtzee")
    rows = page.locator("#players li")
    rows.nth(0).locator("input").fill("Abuela Pilar")
    rows.nth(1).locator("input").fill("María José")
    page.locator("#start").click()
    page.wait_for_url(re.compile(r"/g/[A-Za-z0-9_-]+$"))
    page.goto("/")
    expect(page.locator("#rules-chosen")).to_have_text("Yahtzee")  # remembered on this phone, still folded
    assert page.locator("#rules-pick").get_attribute("open") is None
    assert page.errors == []


def test_a_hint_still_being_prepared_counts_down_the_servers_estimate(phone, advice_tables):
    """The advisor's table being built (a server just started): the hint says for about how long, counting down
    the server's Retry-After, then asks again and shows the hint."""
    page = phone()
    start_game(page, ["Ana", "Beto"])
    asked = []
    page.route("**/api/v1/advice", _building_once(asked, retry_after=3))
    page.locator("#hint-on").click()
    _enter(page, [3, 3, 3, 5, 6])
    expect(page.locator("#hint")).to_have_text("Preparing the hint… about 3 s")
    expect(page.locator("#hint")).to_have_text("Preparing the hint… about 2 s")
    expect(page.locator("#hint")).to_have_text(re.compile(r"^Hint: Threes"), timeout=10_000)
    assert len(asked) == 2 and page.errors == []


def test_win_chances_say_they_are_being_worked_out_and_read_from_across_the_table(phone, advice_tables):
    """While the server prepares them (503, Retry-After): "…" in each bar's place, a moving bar, and the words
    beside the sheet say so; then the figures, on a tablet as large as the body's text."""
    from .test_page_chances import BARS, PERCENT

    page = phone(width=1024, height=768)
    held = [True]
    page.route("**/chances", _building_while(held, retry_after=1))
    start_game(page, ["Ana", "Beto"])
    expect(page.locator(BARS)).to_have_count(2)
    expect(page.locator(BARS).first).to_have_attribute("data-pct", "…")
    expect(page.locator("#sheet thead .chance.waiting")).to_have_count(2)
    expect(page.locator("#chances-text")).to_have_text("Working out who is winning…")
    shot(page, "sunday-chances-waiting")
    held.clear()  # the server has them now
    expect(page.locator(BARS).last).to_have_attribute("data-pct", PERCENT, timeout=20_000)
    expect(page.locator("#sheet thead .chance.waiting")).to_have_count(0)
    sizes = page.evaluate("""sel => [parseFloat(getComputedStyle(document.querySelector(sel), '::after').fontSize),
                                     parseFloat(getComputedStyle(document.body).fontSize)]""", BARS)
    assert sizes[0] >= sizes[1], sizes
    shot(page, "sunday-chances-tablet")
    assert page.errors == []


def test_a_tie_on_wins_in_the_standings_names_the_tie_break(phone, page_app):
    """Two regulars with a win each: the standings say what ranked one above the other; one win apart, not."""
    from .mesakit import Mesa

    mesa = Mesa(page_app.test_client(), "Los del domingo")
    for players in (["Abuela Pilar", "Tío Beto"], ["Tío Beto", "Abuela Pilar"]):
        game = mesa.game(players)
        game.turn(game.get()["turn"]["player"], "generala", [6] * 5, served=True)  # wins on the spot
        page = phone(width=390, height=844)
        page.goto(f"/m/{mesa.id}")
        expect(page.locator("#standings tbody tr")).to_have_count(2)
        note = page.locator("#standings-note")
        if players[0] == "Abuela Pilar":  # one game: 1 win to 0
            expect(note).not_to_contain_text("Tied on wins")
        else:
            expect(note).to_contain_text("Tied on wins: shared wins (each counts its share) decide")
            # the chart's two markers on the same point stand side by side, both in sight
            boxes = [m.bounding_box() for m in page.locator("#wins-chart svg.wins-chart .marker").all()]
            assert len(boxes) == 2 and abs(boxes[0]["x"] - boxes[1]["x"]) >= 4, boxes
            shot(page, "sunday-standings-tie")
        assert page.errors == []
