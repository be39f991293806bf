"""Who is winning on the phone page: a bar per player under the names, on every phone, off by a setting; the end
screen's curve of the game with its table and the turn that moved it most; axe finds nothing."""

from __future__ import annotations

import re
import time

import pytest

from .toolkit import needs

needs("playwright.sync_api", "pip install playwright")
from playwright.sync_api import expect  # noqa: E402

from .browserkit import shot
from .pagekit import NAMES, audit, choose, roll, start_game
from .test_page_table import CLS

PERCENT = re.compile(r"^(< 1%|> 99%|\d{1,3}%)$")


BARS = "#sheet thead .chance .pct"


def chances_of(page) -> list[str]:
    """Each player's chance as the header shows it (drawn from data-pct: the header's text is the name alone)."""
    return [b.get_attribute("data-pct") for b in page.locator(BARS).all()]


def as_number(text: str) -> float:
    return 0.5 if text.startswith("<") else 99.5 if text.startswith(">") else float(text.rstrip("%"))


@pytest.mark.parametrize("size", [(390, 844), (1024, 768)], ids=["phone", "tablet"])
def test_the_bars_move_after_a_turn_on_every_phone(phone, advice_tables, size):
    page = phone(width=size[0], height=size[1])
    game = start_game(page, ["Ana", "Beto"])
    expect(page.locator(BARS)).to_have_count(2)  # their place is kept from the first paint...
    expect(page.locator(BARS).last).to_have_attribute("data-pct", PERCENT, timeout=20_000)  # ...then they come
    before = chances_of(page)
    assert all(PERCENT.match(c) for c in before), before
    expect(page.locator("#sheet thead .chance .bar").first).to_be_visible()  # two columns: room for the bar too
    assert sum(as_number(c) for c in before) == pytest.approx(100, abs=1)
    reader = phone(width=size[1], height=size[0])  # the other phone, held the other way
    reader.goto(f"/g/{game}")
    expect(reader.locator(BARS).first).to_have_attribute("data-pct", before[0], timeout=20_000)
    # Ana puts 50 in the generala: well ahead now, on both phones
    roll(page, [6, 6, 6, 6, 6])
    choose(page, "Generala", 50)
    expect(page.locator(BARS).first).not_to_have_attribute("data-pct", before[0], timeout=20_000)
    after = chances_of(page)
    assert as_number(after[0]) > as_number(before[0]) + 5
    expect(reader.locator(BARS).first).to_have_attribute("data-pct", after[0], timeout=20_000)
    expect(reader.locator(BARS).last).to_have_attribute("data-pct", after[1])
    # the name is still the whole of the column's header
    expect(page.locator("#sheet thead th").nth(1)).to_have_text("Ana")
    # the words for a screen reader say the same
    expect(page.locator("#chances-text")).to_have_text(re.compile(rf"Ana {re.escape(after[0])}, Beto {re.escape(after[1])}"))
    shot(page, f"chances-01-bars-{size[0]}x{size[1]}")
    shot(reader, f"chances-02-bars-reader-{size[1]}x{size[0]}")
    assert page.errors == [] and reader.errors == []


def test_a_phone_can_turn_them_off_and_others_keep_them(phone, advice_tables):
    page = phone()
    page.goto("/")
    page.locator("#show-chances").uncheck()
    game = start_game(page, ["Ana", "Beto"])
    roll(page, [1, 2, 3, 4, 5])
    choose(page, "Straight")
    page.reload()
    expect(page.locator("#sheet thead th").nth(1)).to_have_text("Ana")
    page.wait_for_timeout(1500)  # time enough for an answer, had it been asked
    expect(page.locator(BARS)).to_have_count(0)
    other = phone()
    other.goto(f"/g/{game}")
    expect(other.locator(BARS).first).to_have_attribute("data-pct", PERCENT, timeout=20_000)
    page.goto("/")
    expect(page.locator("#show-chances")).not_to_be_checked()  # remembered on this phone
    assert page.errors == [] and other.errors == []


def test_the_end_screen_draws_the_game_and_names_the_turn_that_moved_it(phone, advice_tables, axe_source):
    page = phone(bypass_csp=True)
    start_game(page, ["Ana", "Beto"])
    roll(page, [2, 3, 4, 5, 5])
    choose(page, "Fives")
    roll(page, [4, 4, 4, 4, 4], served=True)  # Beto's served generala wins at once
    choose(page, "Generala")
    page.locator("#confirm-yes").click()
    expect(page.locator("#winner")).to_be_visible()
    end = page.locator("#chances-end")
    expect(end).to_be_visible(timeout=20_000)
    expect(end.locator("h2")).to_have_text("Chance to win")
    expect(end.locator("svg.chances-chart polyline")).to_have_count(2)
    assert "null" not in end.inner_text()  # no empty part shown as a word
    expect(end.locator(".swing")).to_have_text(re.compile(
        r"^The turn that moved the game most: round 1, Beto: Served generala, \d+% → 100%\.$"), ignore_case=True)
    # the text alternative: a row before the first turn and one after each turn, every player's chance
    rows = end.locator("table tbody tr")
    expect(rows).to_have_count(3)
    expect(rows.nth(0).locator("th")).to_have_text("At the start")
    expect(rows.nth(2).locator("td")).to_have_text(["0%", "100%"])
    expect(rows.nth(1).locator("th")).to_have_text("Round 1 · Ana: Fives 10")
    shot(page, "chances-03-end", full_page=True)
    end.locator("summary").click()
    found = audit(page, axe_source, "end screen with the chances")
    assert found == [], found
    assert page.errors == []


@pytest.mark.parametrize("count", [6, 12])
def test_six_and_twelve_players_each_have_their_chance_in_sight(phone, advice_tables, count):
    page = phone(width=390, height=844, color_scheme="dark")
    start_game(page, NAMES[:count])
    expect(page.locator(BARS)).to_have_count(count)
    expect(page.locator(BARS).last).to_have_attribute("data-pct", PERCENT, timeout=20_000)
    shown = chances_of(page)
    assert all(PERCENT.match(c) for c in shown), shown
    assert sum(as_number(c) for c in shown) == pytest.approx(100, abs=count / 2)  # each rounded to a whole percent
    # the percentage is drawn whole inside its column (the bar only where there is room beside it)
    fits = page.evaluate("""() => [...document.querySelectorAll('#sheet thead .chance')].every(c => {
        const th = c.closest('th').getBoundingClientRect(), r = c.getBoundingClientRect();
        return r.left >= th.left - 0.5 && r.right <= th.right + 0.5 && r.width > 0
          && c.scrollWidth <= c.clientWidth + 0.5; })""")
    assert fits
    expect(page.locator("#sheet thead .chance .bar").first).to_be_hidden()  # 45 px a column: the number alone
    shot(page, f"chances-04-{count}-players-dark")
    assert page.errors == []


def test_rules_without_chances_keep_no_place_for_them_and_nothing_moves(phone, base_url):
    """Yahtzee whose ties go to the most Yahtzees: its chances are not worked out, its rules say so, so no bar is
    drawn, not even at first."""
    game = _api(base_url, "POST", "/api/v1/games", {"rules": {"base": "yahtzee", "tie_break": "most_generalas"},
                                                    "players": ["Ana", "Beto"]})
    fresh = phone(width=390, height=844)
    fresh.route("**/api/v1/**", lambda route: (time.sleep(0.4), route.continue_()))  # the sheet comes after the first paint
    fresh.goto(f"/g/{game['id']}")
    expect(fresh.locator("#sheet tfoot td")).to_have_count(2)
    assert fresh.evaluate(CLS) == 0
    expect(fresh.locator(BARS)).to_have_count(0)
    assert fresh.errors == []


def _api(base_url: str, method: str, path: str, body=None, token=None):
    import json
    import urllib.request

    req = urllib.request.Request(base_url + path, method=method, data=None if body is None else json.dumps(body).encode(),
                                 headers={"Content-Type": "application/json",
                                          **({"Authorization": f"Bearer {token}"} if token else {})})
    with urllib.request.urlopen(req, timeout=30) as res:
        return json.loads(res.read())


def test_the_last_turn_of_the_game_hints_to_win_beside_the_points(phone, advice_tables, base_url):
    """Everyone else has finished: the hint asks for the chance of winning too, and says both when they differ.
    Beto's last box is the ones; a served generala of twos wins on the spot, where the points say roll again."""
    game = _api(base_url, "POST", "/api/v1/games", {"variant": "generala", "players": ["Ana", "Beto"]})
    token = game["token"]
    boxes = [b["id"] for b in game["boxes"]]
    for k, box in enumerate(boxes):  # Ana every box; Beto every box but the ones, left for his last turn
        for seat, category in ((0, box), (1, boxes[k + 1] if k + 1 < len(boxes) else None)):
            if category:
                _api(base_url, "POST", f"/api/v1/games/{game['id']}/turns",
                     {"player": seat, "category": category, "scratch": True}, token)
    page = phone()
    page.goto(f"/g/{game['id']}#token={token}")
    expect(page.locator("#play-title")).to_have_text("Beto's roll")
    page.locator("#hint-on").click()
    roll(page, [2, 2, 2, 2, 2], served=True)
    expect(page.locator("#hint")).to_have_text("To win: scratch Ones — 100% · For points: roll all again", timeout=20_000)
    shot(page, "chances-05-to-win")
    # an ordinary roll: both say the same, and the hint says it once, as ever
    roll(page, [1, 1, 3, 4, 6], served=False)
    page.get_by_role("radio", name="3", exact=True).click()
    expect(page.locator("#hint")).to_have_text(re.compile(r"^Hint: Ones \(expected final total ≈ \d+\.\d\)$"))
    assert page.errors == []


def test_while_the_other_still_plays_the_hint_says_what_wins_beside_what_scores(phone, advice_tables, base_url):
    """Behind by 45 in the last round with the generala and the four open, nothing on the last throw: the points
    say scratch the generala, the game says scratch the four (only a generala can catch up)."""
    game = _api(base_url, "POST", "/api/v1/games", {"variant": "generala", "players": ["Ana", "Beto"],
                                                    "first_rolls": [1, 6]})  # Beto starts
    token, url = game["token"], f"/api/v1/games/{game['id']}/turns"
    ana = [("ones", [1, 1, 1, 2, 3]), ("twos", [2, 2, 2, 1, 3]), ("threes", [3, 3, 3, 1, 2]), ("fours", [4, 4, 4, 1, 2]),
           ("fives", [5, 5, 5, 1, 2]), ("sixes", [6, 6, 6, 1, 2]), ("straight", [1, 2, 3, 4, 5]), ("full", [2, 2, 3, 3, 3])]
    beto = [*ana[:4], ("fives", [5, 5, 5, 5, 1]), *ana[5:], ("four", [4, 4, 4, 4, 1])]
    for k, (box, dice) in enumerate(beto):
        _api(base_url, "POST", url, {"player": 1, "category": box, "dice": dice}, token)
        if k < len(ana):
            _api(base_url, "POST", url, {"player": 0, "category": ana[k][0], "dice": ana[k][1]}, token)
    page = phone()
    page.goto(f"/g/{game['id']}#token={token}")
    expect(page.locator("#play-title")).to_have_text("Ana's roll")
    page.locator("#hint-on").click()
    roll(page, [6, 6, 6, 2, 3])
    page.get_by_role("radio", name="3", exact=True).click()
    expect(page.locator("#hint")).to_have_text(
        re.compile(r"^To win: scratch Four of a kind — \d+% · For points: scratch Generala$"), timeout=20_000)
    shot(page, "chances-06-to-win-while-playing")
    assert page.errors == []


@pytest.mark.slow
def test_a_yahtzee_game_shows_its_bars_from_the_first_turn(phone, base_url, axe_source):
    """The Yahtzee family's chances are sampled before its last four rounds and exact in them: the bars show from
    the first turn and follow each turn recorded by another phone; the end screen draws every turn."""
    from .conftest import built_in_run_outcomes

    built_in_run_outcomes("yahtzee")
    game = _api(base_url, "POST", "/api/v1/games", {"variant": "yahtzee", "players": ["Ana", "Beto"]})
    token = game["token"]
    boxes = [b["id"] for b in game["boxes"]]
    page = phone(width=390, height=844, bypass_csp=True)  # for axe, last

    def scratch(box, dice=None):
        state = _api(base_url, "GET", f"/api/v1/games/{game['id']}")
        turn = {"player": state["turn"]["player"], "category": box}
        turn.update({"dice": dice} if dice is not None else {"scratch": True})
        _api(base_url, "POST", f"/api/v1/games/{game['id']}/turns", turn, token)

    page.goto(f"/g/{game['id']}#token={token}")
    expect(page.locator(BARS)).to_have_count(2, timeout=30_000)
    expect(page.locator(BARS).first).to_have_attribute("data-pct", "50%", timeout=20_000)  # two empty sheets
    assert chances_of(page) == ["50%", "50%"]
    scratch("yahtzee", [4, 4, 4, 4, 4])  # Ana's Yahtzee on the first turn
    expect(page.locator(BARS).first).not_to_have_attribute("data-pct", "50%", timeout=20_000)
    assert as_number(chances_of(page)[0]) > as_number(chances_of(page)[1])
    shot(page, "chances-yahtzee-first-round")
    scratch("yahtzee")
    for box in [b for b in boxes if b != "yahtzee"]:
        scratch(box)
        scratch(box)
    end = page.locator("#chances-end")
    expect(end).to_be_visible(timeout=20_000)
    expect(end.locator("#chances-from")).to_have_count(0)  # every turn is drawn
    assert "null" not in end.inner_text()
    lines = end.locator("svg.chances-chart polyline")
    expect(lines).to_have_count(2)
    assert [len(p.split()) for p in lines.evaluate_all("ls => ls.map(l => l.getAttribute('points'))")] == [27, 27]
    end.locator("summary").click()
    rows = end.locator("table tbody tr")
    expect(rows).to_have_count(27)  # the start, then each of the 26 turns
    expect(rows.nth(1).locator("th")).to_have_text(re.compile(r"^Round 1 · Ana: "))
    shot(page, "chances-yahtzee-end", full_page=True)
    found = audit(page, axe_source, "a Yahtzee game's end screen with every turn's chances")
    assert found == [], found
    assert page.errors == []


@pytest.mark.slow
def test_a_yahtzee_hint_plays_to_win_from_the_first_rounds(phone, base_url):
    """Once the phone has the game's chances (sampled before the last four rounds, exact in them) the hint asks
    with the other sheets too, and the answer carries each move's chance of winning; a served roll's first hint
    of a turn included."""
    from .conftest import built_in_run_outcomes

    built_in_run_outcomes("yahtzee")
    game = _api(base_url, "POST", "/api/v1/games", {"variant": "yahtzee", "players": ["Ana", "Beto"]})
    token = game["token"]
    boxes = [b["id"] for b in game["boxes"]]

    def scratch(box):
        state = _api(base_url, "GET", f"/api/v1/games/{game['id']}")
        _api(base_url, "POST", f"/api/v1/games/{game['id']}/turns",
             {"player": state["turn"]["player"], "category": box, "scratch": True}, token)

    for box in boxes[:2]:  # two rounds: eleven open each
        scratch(box)
        scratch(box)
    page = phone(width=390, height=844)
    page.goto(f"/g/{game['id']}#token={token}")
    expect(page.locator("#play-title")).to_have_text("Ana's roll")
    expect(page.locator(BARS)).to_have_count(2, timeout=30_000)
    expect(page.locator(BARS).first).to_have_attribute("data-pct", PERCENT, timeout=20_000)
    page.locator("#hint-on").click()
    with page.expect_response(lambda r: r.url.endswith("/api/v1/advice") and r.status != 503,
                              timeout=30_000) as early:
        roll(page, [6, 6, 6, 6, 2])
    asked = early.value.request.post_data_json
    assert early.value.status == 200, early.value.text()
    assert asked["opponents"][0]["sheet"]["ones"] == 0  # Beto's sheet goes with it
    answer = early.value.json()
    assert answer["to_win"]["method"] == "approximate" and all("chance" in b for b in answer["boxes"])
    expect(page.locator("#hint")).to_have_text(re.compile(r"^(Hint: |To win: )"), timeout=20_000)
    shot(page, "chances-yahtzee-to-win")
    assert page.errors == []
