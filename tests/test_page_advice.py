"""The advisor on the phone page: the hint (off by default, per phone) and the end screen's analysis."""

from __future__ import annotations

import re

import pytest

from .toolkit import needs

needs("playwright.sync_api", "pip install playwright")
from playwright.sync_api import expect  # noqa: E402

from .browserkit import shot
from .pagekit import choose, roll, start_game


def test_the_hint_is_off_until_asked_for_then_names_the_keep_and_the_box(phone, advice_tables):
    page = phone()
    start_game(page, ["Ana", "Beto"])
    roll(page, [3, 3, 3, 5, 6])
    expect(page.locator("#options button").first).to_be_visible()
    expect(page.locator("#hint")).to_be_hidden()  # off by default
    expect(page.locator("#roll-pick")).to_be_hidden()
    page.get_by_role("button", name="Hint").click()
    expect(page.get_by_role("button", name="Hint")).to_have_attribute("aria-pressed", "true")
    # a final roll (the default): the best box, starred among the options
    expect(page.locator("#hint")).to_have_text(re.compile(r"^Hint: Threes \(expected final total ≈ \d+\.\d\)$"))
    expect(page.locator("#options button.best")).to_have_count(1)
    expect(page.locator("#options button.best")).to_contain_text("Threes")
    # the first roll: served, and the dice to keep are marked on the tray
    page.get_by_role("radio", name="1", exact=True).click()
    expect(page.locator("#served")).to_be_checked()
    expect(page.locator("#hint")).to_have_text(re.compile(r"^Hint: keep 3 3 3 \(expected final total ≈ \d+\.\d\)$"))
    expect(page.locator("#tray .die.keep")).to_have_count(3)
    expect(page.locator("#tray .die.keep")).to_have_text(["3", "3", "3"])
    shot(page, "advice-01-keep")
    # unticking served is roll 2: still a keep, never a served bonus
    page.locator("#served").uncheck()
    expect(page.get_by_role("radio", name="2", exact=True)).to_have_attribute("aria-checked", "true")
    # the switch is remembered on this phone, and only here
    page.reload()
    roll(page, [1, 2, 3, 4, 5])
    expect(page.locator("#hint-on")).to_have_attribute("aria-pressed", "true")
    expect(page.locator("#hint")).to_contain_text("Straight")
    other = phone()
    other.goto(page.url)
    expect(other.locator("#hint-on")).to_have_attribute("aria-pressed", "false")
    assert page.errors == [] and other.errors == []


def test_a_table_still_building_says_so_and_the_hint_arrives(phone):
    """general-pr's table is not built for this session yet: the hint waits for it, then shows."""
    page = phone()
    start_game(page, ["Ana", "Beto"], variant="general-pr")
    page.locator("#hint-on").click()
    roll(page, [2, 3, 4, 5, 6])
    expect(page.locator("#hint")).to_have_text(re.compile(r"^Hint: "), timeout=30_000)
    assert page.errors == []


def test_the_end_screen_links_to_the_analysis(phone, advice_tables, new_game, base_url):
    page = phone()
    start_game(page, ["Ana", "Beto"])
    # Ana scratches generala with five sixes in hand: a costly choice; the rest is quick.
    plan = [("Generala", None)] + [(b, d) for b, d in [
        ("Ones", [1, 1, 1, 2, 3]), ("Twos", [2, 2, 2, 5, 6]), ("Threes", [3, 3, 3, 1, 2]), ("Fours", [4, 4, 1, 2, 3]),
        ("Fives", [5, 5, 5, 1, 2]), ("Sixes", [6, 6, 6, 1, 2]), ("Straight", [1, 2, 3, 4, 5]),
        ("Full house", [2, 2, 2, 3, 3]), ("Four of a kind", [4, 4, 4, 4, 1])]]
    for box, dice in plan:
        for _ in range(2):
            if dice is None:
                roll(page, [6, 6, 6, 6, 6])
                page.locator("#scratch-btn").click()
                page.locator("#scratch-list button", has_text=box).click()
                page.locator("#confirm-yes").click()
            else:
                roll(page, dice)
                choose(page, box)
    expect(page.locator("#winner")).to_be_visible()
    page.get_by_role("button", name="Analysis").click()
    expect(page.locator("#analysis h2")).to_have_text("Game analysis")
    expect(page.locator("#analysis table tbody tr")).to_have_count(2)
    # a line per player over the turns, and the dashed drop of Ana's scratched generala
    expect(page.locator("#analysis svg.analysis-chart polyline")).to_have_count(2)
    expect(page.locator("#analysis svg.analysis-chart line.mistake").first).to_be_attached()
    expect(page.locator("#analysis .analysis-legend li")).to_have_text(["Ana", "Beto", "decisions that cost points"])
    # the costliest decisions, in words, with their unit; the first is the scratched generala
    costly = page.locator("#analysis .analysis-turns li")
    expect(costly).to_have_count(2)  # the two scratched generalas: every other box was the best
    expect(costly.first).to_have_text(re.compile(
        r"^Round 1, (Ana|Beto) crossed out Generala with 6-6-6-6-6; scoring Generala was worth 50\.0 points more\.$"))
    expect(page.locator("#analysis")).to_contain_text("“Expected” is the average final total")
    expect(page.locator("#analysis table tbody tr").first.locator("td").first).to_have_text(re.compile(r"^149\.1\u00a0pts$"))
    # entered as final dice only: said once, and the keeps are not counted as luck
    expect(page.locator("#analysis")).to_contain_text("20 turns were recorded with their final dice only")
    expect(page.locator("#analysis thead th")).to_contain_text(["Not judged"])
    shot(page, "advice-02-analysis", full_page=True)
    assert page.errors == []


def test_every_throw_and_keep_is_recorded_when_the_player_lets_it(phone, advice_tables, base_url):
    """'Record every roll': throw 1, keep 6-6, throw 2, keep 6-6-6, throw 3, then the box; all sent with the turn."""
    page = phone()
    page.goto("/")
    page.locator("#record-rolls").check()
    game = start_game(page, ["Ana", "Beto"])
    expect(page.get_by_role("radio", name="1", exact=True)).to_have_attribute("aria-checked", "true")
    roll(page, [6, 6, 2, 3, 1], served=True)  # the first throw: served, where that matters
    page.locator("#reroll").click()
    expect(page.locator("#options")).to_contain_text("Tap the dice you keep")
    expect(page.locator("#throw-again")).to_have_text("Roll 5 dice")  # nothing kept: all thrown again
    for n, face in enumerate([6, 6, 2, 3, 1], start=1):  # all kept is stopping: not a throw
        page.get_by_role("button", name=f"Die {n}: {face}. Keep it").click()
    expect(page.locator("#throw-again")).to_be_disabled()
    for n, face in enumerate([6, 6, 2, 3, 1], start=1):
        page.get_by_role("button", name=f"Die {n}: {face}. Keep it").click()
    page.get_by_role("button", name="Die 1: 6. Keep it").click()
    page.get_by_role("button", name="Die 2: 6. Keep it").click()
    expect(page.locator("#throw-again")).to_have_text("Roll 3 dice")
    shot(page, "advice-03-keep-picked")
    page.locator("#throw-again").click()
    expect(page.locator("#tray .die.held")).to_have_count(2)
    expect(page.get_by_role("radio", name="2", exact=True)).to_have_attribute("aria-checked", "true")
    expect(page.locator("#served")).not_to_be_checked()
    for face in (6, 4, 1):
        page.get_by_role("button", name=f"Add a {face}", exact=True).click()
    page.locator("#reroll").click()
    # the dice kept before are kept again unless tapped off
    expect(page.get_by_role("button", name="Die 1: 6. Keep it")).to_have_attribute("aria-pressed", "true")
    page.get_by_role("button", name="Die 3: 6. Keep it").click()
    page.locator("#throw-again").click()
    expect(page.locator("#reroll")).to_be_hidden()  # the third throw is the last
    page.get_by_role("button", name="Add a 6", exact=True).click()
    page.get_by_role("button", name="Add a 2", exact=True).click()
    expect(page.get_by_role("radio", name="3", exact=True)).to_have_attribute("aria-checked", "true")
    shot(page, "advice-04-third-throw")
    choose(page, "Four of a kind")
    expect(page.locator("#turn-line")).to_contain_text("Beto")
    # Beto's turn starts at its first throw again; ⌫ with only kept dice left starts the turn over
    expect(page.get_by_role("radio", name="1", exact=True)).to_have_attribute("aria-checked", "true")
    import json
    import urllib.request

    import time

    deadline = time.monotonic() + 15
    while True:  # the page shows the next turn at once; its outbox sends the turn a moment later
        with urllib.request.urlopen(f"{base_url}/api/v1/games/{game}/turns") as r:
            turns = json.load(r)["turns"]
        if turns or time.monotonic() > deadline:
            break
        time.sleep(0.1)
    turn = turns[0]
    assert turn["rolls"] == [{"dice": [1, 2, 3, 6, 6], "keep": [6, 6]}, {"dice": [1, 4, 6, 6, 6], "keep": [6, 6, 6]},
                             {"dice": [2, 6, 6, 6, 6]}]
    assert turn["served"] is False and turn["boxes"][0]["category"] == "four"
    with urllib.request.urlopen(f"{base_url}/api/v1/games/{game}/analysis") as r:
        judged = json.load(r)["turns"][0]
    assert judged["judged"] == "every_decision" and len(judged["decisions"]) == 3
    assert page.errors == []


def test_numbers_are_written_as_the_pages_language_writes_them(phone, advice_tables):
    """Spanish, Portuguese, German and Swedish write a decimal comma, English a point: the hint, and every number."""
    page = phone()
    start_game(page, ["Ana", "Beto"])
    page.locator("#hint-on").click()
    roll(page, [3, 3, 3, 5, 6])
    expect(page.locator("#hint")).to_have_text(re.compile(r"\(expected final total ≈ \d+\.\d\)$"))
    page.evaluate("localStorage.setItem('anotador.lang', 'de')")
    page.reload()
    roll(page, [3, 3, 3, 5, 6], lang="de")
    expect(page.locator("#hint")).to_have_text(re.compile(r"\(erwartete Endsumme ≈ \d+,\d\)$"))
    written = page.evaluate("""async () => {
        const words = await import("/static/js/words.js");
        const out = {};
        for (const l of ["es", "pt", "de", "sv", "en"]) {
            await words.setLang(l);
            out[l] = [words.decimal(131.74), words.decimal(2.45, { signed: true }), words.decimal(-3.5, { signed: true })];
        }
        await words.setLang("en");
        return out;
    }""")
    assert written["en"] == ["131.7", "+2.5", "-3.5"]
    for lang in ("es", "pt", "de"):
        assert written[lang][0] == "131,7" and written[lang][1] == "+2,5" and written[lang][2].endswith("3,5"), written
    assert written["sv"][0] == "131,7" and written["sv"][2] == "\u22123,5"  # Swedish writes a true minus
    assert page.errors == []


@pytest.mark.parametrize(("width", "height"), [(360, 740), (1180, 820)], ids=["phone", "tablet-landscape"])
def test_twelve_players_analysis_reads_on_a_phone_and_a_tablet(phone, advice_tables, base_url, width, height):
    """Twelve lines told apart (colour, then dashes), twelve names in the legend, the table within reach."""
    import json
    import random
    import urllib.request

    from .pagekit import NAMES

    def call(method, path, body, token=None):
        req = urllib.request.Request(f"{base_url}{path}", method=method, data=json.dumps(body).encode(),
                                     headers={"Content-Type": "application/json",
                                              **({"Authorization": f"Bearer {token}"} if token else {})})
        with urllib.request.urlopen(req) as r:
            return json.load(r)

    game = call("POST", "/api/v1/games", {"variant": "generala", "players": NAMES})
    rng = random.Random(12)
    boxes = [b["id"] for b in game["boxes"]]
    for k in range(len(NAMES) * len(boxes)):
        seat = (game["first_player"] + k) % len(NAMES)
        box = boxes[k // len(NAMES)]
        first = sorted(rng.randint(1, 6) for _ in range(5))
        last = sorted(first[:2] + [rng.randint(1, 6) for _ in range(3)])
        # every other player records the throws: the rest are judged by the box only
        turn = {"player": seat, "category": box, "scratch": True, "served": False}
        turn |= {"rolls": [{"dice": first, "keep": first[:2]}, {"dice": last}]} if seat % 2 else {"dice": last}
        call("POST", f"/api/v1/games/{game['id']}/turns", turn, game["token"])
    page = phone(width=width, height=height)
    page.goto(f"/g/{game['id']}")
    page.get_by_role("button", name="Analysis").click()
    chart = page.locator("#analysis svg.analysis-chart")
    expect(chart.locator("polyline")).to_have_count(12)
    assert chart.locator("polyline[stroke-dasharray='6 3']").count() == 6  # past six colours, dashed too
    expect(page.locator("#analysis .analysis-legend li")).to_have_count(13)
    expect(page.locator("#analysis table tbody tr")).to_have_count(12)
    # luck is unknown, not 0, for a player none of whose throws were recorded
    lucks = page.locator("#analysis table tbody tr td:nth-child(5)").all_text_contents()
    assert [x == "—" for x in lucks] == [seat % 2 == 0 for seat in range(12)]
    expect(page.locator("#analysis")).to_contain_text("60 turns were recorded with their final dice only")
    box = chart.bounding_box()
    assert box["width"] <= width and box["height"] >= 120  # scaled to the screen, still tall enough to read
    expect(page.locator("#analysis .analysis-turns li")).to_have_count(3)
    page.locator("#analysis").scroll_into_view_if_needed()
    shot(page, f"advice-05-twelve-{width}x{height}")
    assert page.errors == []
