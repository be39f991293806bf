"""The Yahtzee family on the phone page: whole games, bonus rows, the joker and every language."""

from __future__ import annotations

import re

from .toolkit import needs

needs("playwright.sync_api", "pip install playwright")
from playwright.sync_api import expect  # noqa: E402

from anotador.locales import LANGUAGES

from .browserkit import shot
from .pagekit import cell, choose, open_house, open_rules, roll, start_game, total

#: A whole Yatzy game for two: (dice, box name, box id, points) for Ana, then Beto, round by round.
#: Ana's upper boxes make exactly 63 (the 50 bonus); Beto's make 48.
YATZY = [
    (([1, 1, 1, 2, 3], "Ones", "ones", 3), ([1, 1, 2, 3, 4], "Ones", "ones", 2)),
    (([2, 2, 2, 5, 6], "Twos", "twos", 6), ([2, 2, 1, 3, 4], "Twos", "twos", 4)),
    (([3, 3, 3, 1, 2], "Threes", "threes", 9), ([3, 3, 1, 2, 4], "Threes", "threes", 6)),
    (([4, 4, 4, 1, 2], "Fours", "fours", 12), ([4, 4, 4, 1, 2], "Fours", "fours", 12)),
    (([5, 5, 5, 1, 2], "Fives", "fives", 15), ([5, 5, 1, 2, 3], "Fives", "fives", 10)),
    (([6, 6, 6, 1, 2], "Sixes", "sixes", 18), ([6, 6, 1, 2, 3], "Sixes", "sixes", 12)),
    (([6, 6, 5, 5, 1], "One pair", "one_pair", 12), ([3, 3, 1, 2, 6], "One pair", "one_pair", 6)),
    (([6, 6, 5, 5, 1], "Two pairs", "two_pairs", 22), ([4, 4, 1, 1, 6], "Two pairs", "two_pairs", 10)),
    (([4, 4, 4, 4, 1], "Three of a kind", "three_of_a_kind", 12),
     ([2, 2, 2, 5, 6], "Three of a kind", "three_of_a_kind", 6)),
    (([5, 5, 5, 5, 5], "Four of a kind", "four_of_a_kind", 20),
     ([3, 3, 3, 3, 1], "Four of a kind", "four_of_a_kind", 12)),
    (([1, 2, 3, 4, 5], "Small straight", "small_straight", 15),
     ([5, 4, 3, 2, 1], "Small straight", "small_straight", 15)),
    (([2, 3, 4, 5, 6], "Large straight", "large_straight", 20), (None, "Large straight", "large_straight", 0)),
    (([6, 6, 6, 5, 5], "Full house", "full_house", 28), ([2, 2, 3, 3, 3], "Full house", "full_house", 13)),
    (([6, 6, 5, 5, 4], "Chance", "chance", 26), ([1, 1, 2, 2, 3], "Chance", "chance", 9)),
    (([1, 1, 1, 1, 1], "Yatzy", "yatzy", 50), (None, "Yatzy", "yatzy", 0)),
]


def sum_row(page, bonus_id, player):
    return page.locator(f'#sheet tbody tr[data-sum="{bonus_id}"] td').nth(player)


def bonus_row(page, bonus_id, player):
    return page.locator(f'#sheet tbody tr[data-bonus="{bonus_id}"] td').nth(player)


def scratch(page, box_name):
    page.locator("#scratch-btn").click()
    page.locator("#scratch-list button").filter(
        has=page.locator(".label", has_text=re.compile(f"^{re.escape(box_name)}$"))).click()
    page.locator("#confirm-yes").click()


def test_a_whole_yatzy_game(phone):
    page = phone()
    start_game(page, ["Ana", "Beto"], variant="yatzy")
    expect(page.locator("#turn-line")).to_have_text("Ana's turn · round 1 of 15")
    expect(page.locator("#served")).to_be_hidden()  # nothing in Yatzy depends on a served roll
    expect(page.locator("#sheet tbody tr[data-sum]")).to_have_count(1)
    expect(page.locator("#sheet tbody tr[data-sum] th")).to_contain_text("≥ 63")
    scores = [0, 0]
    for rnd, turns in enumerate(YATZY, start=1):
        for player, (dice, name, box_id, points) in enumerate(turns):
            if dice is None:
                scratch(page, name)
            else:
                roll(page, dice)
                choose(page, name, points)
            expect(cell(page, player, box_id)).to_have_text(str(points))
            scores[player] += points
        if rnd == 5:  # the upper section not full yet: a running subtotal, no bonus yet
            expect(sum_row(page, "upper_bonus", 0)).to_have_text("45")
            expect(bonus_row(page, "upper_bonus", 0)).to_have_text("")
        if rnd == 6:
            shot(page, "family-01-yatzy-upper-done", full_page=True)
            expect(sum_row(page, "upper_bonus", 0)).to_have_text("63")
            expect(bonus_row(page, "upper_bonus", 0)).to_have_text("50")
            expect(sum_row(page, "upper_bonus", 1)).to_have_text("46")
            expect(bonus_row(page, "upper_bonus", 1)).to_have_text("0")
    ana, beto = scores[0] + 50, scores[1]
    expect(total(page, 0)).to_have_text(str(ana))
    expect(total(page, 1)).to_have_text(str(beto))
    expect(page.locator("#winner")).to_have_text("Ana wins! (highest total)")
    expect(page.locator("#ranking li")).to_have_text([f"1. Ana {ana}", f"2. Beto {beto} (−{ana - beto})"])
    shot(page, "family-02-yatzy-over", full_page=True)
    # the page's sheet is the API's
    game = page.evaluate("id => fetch(`/api/v1/games/${id}`).then(r => r.json())", page.url.rsplit("/", 1)[1])
    assert [p["total"] for p in game["players"]] == [ana, beto]
    assert page.errors == []


def test_kniffel_in_german_announces_the_bonus_and_plays_the_joker(phone):
    page = phone("de-DE", width=390, height=844)
    start_game(page, ["Ñandú", "Guillermina Fernández de la Cruz"], variant="kniffel")
    expect(page.locator("#turn-line")).to_have_text("Ñandú ist dran · Runde 1 von 13")
    roll(page, [5, 5, 5, 5, 5], lang="de")
    expect(page.locator("#instant")).to_be_hidden()  # the first Kniffel earns no bonus
    choose(page, "Kniffel", 50)
    expect(cell(page, 0, "yahtzee")).to_have_text("50")
    roll(page, [1, 2, 3, 4, 6], lang="de")
    choose(page, "Kleine Straße", 30)
    # Ñandú's second Kniffel of fives: the bonus is announced, and the joker sends it to Fünfer only.
    roll(page, [5, 5, 5, 5, 5], lang="de")
    expect(page.locator("#instant")).to_have_text("Kniffel-Bonus für Ñandú: +100")
    expect(page.locator("#options button")).to_have_count(1)
    shot(page, "family-03-kniffel-joker")
    choose(page, "Fünfer", 25)
    expect(bonus_row(page, "yahtzee_bonus", 0)).to_have_text("100")
    expect(bonus_row(page, "yahtzee_bonus", 1)).to_have_text("")
    expect(total(page, 0)).to_have_text(str(50 + 25 + 100))
    expect(page.locator("#sheet tbody tr[data-bonus=yahtzee_bonus] th .box-full")).to_have_text("Kniffel-Bonus")
    # the legend names the short rows
    expect(page.locator("#legend-list")).to_contain_text("Summe oben · Bonus +35 ≥ 63")
    assert page.errors == []


def test_house_rules_of_the_yahtzee_family_reach_the_game(phone):
    page = phone()
    page.goto("/")
    open_house(page)
    page.get_by_role("radio", name=re.compile("^Yahtzee")).check()
    # only the options Yahtzee accepts: no served bonus, no straight rule
    expect(page.locator("#opt-served_bonus")).to_have_count(0)
    expect(page.locator("#opt-straight")).to_have_count(0)
    page.locator("#opt-joker").select_option(label="any free box")
    page.locator("#opt-yahtzee_bonus").select_option(label="no")
    rows = page.locator("#players li")
    rows.nth(0).locator("input").fill("Ana")
    rows.nth(1).locator("input").fill("Beto")
    page.locator("#start").click()
    page.wait_for_url(re.compile(r"/g/[A-Za-z0-9_-]+$"))
    game = page.evaluate("id => fetch(`/api/v1/games/${id}`).then(r => r.json())", page.url.rsplit("/", 1)[1])
    assert game["rules"]["joker"] == "free" and game["rules"]["yahtzee_bonus"] == 0
    # no further-Yahtzee bonus: no row for it
    expect(page.locator("#sheet tbody tr[data-bonus=yahtzee_bonus]")).to_have_count(0)
    expect(page.locator("#sheet tbody tr[data-bonus=upper_bonus]")).to_have_count(1)
    assert page.errors == []


def test_every_language_has_every_word_and_every_variant_a_name(phone):
    page = phone()
    page.goto("/")
    # every language the picker offers loads words for every key of the source's
    missing = page.evaluate("""async () => {
        const { LANGS } = await import("/static/js/words.js");
        const words = Object.fromEntries(await Promise.all(LANGS.map(async (l) =>
            [l, await (await fetch(`/static/words/${l}.json`)).json()])));
        return Object.fromEntries(LANGS.map((l) => [l, Object.keys(words.en).filter((k) => !(k in words[l]))]));
    }""")
    assert missing == {lang: [] for lang in LANGUAGES}
    for code, word, variant in [("de", "Neues Spiel", "Kniffel"), ("sv", "Nytt spel", "Yatzy"),
                                ("pt", "Partida nova", "Yacht")]:
        page.locator("#lang").select_option(code)
        expect(page.locator("#home h1")).to_have_text(word)
        open_rules(page)
        expect(page.get_by_role("radio", name=re.compile(f"^{variant}"))).to_be_visible()
    expect(page.locator(".family-name").nth(1)).to_have_text("A família do Yahtzee")
    assert page.errors == []
