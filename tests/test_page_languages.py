"""Dutch, French and Italian families at the table: the whole page in their words, its names, plurals and
numbers as their languages write them, accessible and whole on a narrow phone."""

from __future__ import annotations

import re

import pytest

from .toolkit import needs

needs("playwright.sync_api", "pip install playwright")
from playwright.sync_api import expect  # noqa: E402

from anotador.locales import words

from .browserkit import shot
from .pagekit import audit, open_rules

#: (browser locale, variant, a box's id and its name in that language, its points for the dice below)
FAMILIES = {
    "nl": ("nl-NL", "generala", "four", "Carré", [2, 2, 2, 2, 6], 40),
    "fr": ("fr-FR", "yahtzee", "three_of_a_kind", "Brelan", [5, 5, 5, 2, 1], 18),
    "it": ("it-IT", "generala", "four", "Poker", [3, 3, 3, 3, 1], 40),
}


def no_sideways_scroll(page) -> bool:
    return page.evaluate("() => document.scrollingElement.scrollWidth <= window.innerWidth + 1")


@pytest.mark.parametrize("lang", list(FAMILIES))
def test_a_family_plays_a_turn_in_its_own_language(phone, axe_source, lang):
    locale, variant, box, name, dice, points = FAMILIES[lang]
    said = words(lang)
    page = phone(locale, width=360, height=740, bypass_csp=True)
    page.goto("/")
    # the shell comes written in the browser's language, and the picker says which
    expect(page.locator("html")).to_have_attribute("lang", lang)
    expect(page.locator("#home h1")).to_have_text(said["new_game"])
    expect(page.locator("#lang")).to_have_value(lang)
    assert audit(page, axe_source, f"start, {lang}") == []
    open_rules(page)
    page.locator(f'label.choice[data-id="{variant}"]').click()
    rows = page.locator("#players li input")
    rows.nth(0).fill("Ana")
    rows.nth(1).fill("Beto")
    page.locator("#start").click()
    page.wait_for_url(re.compile(r"/g/[A-Za-z0-9_-]+$"))
    expect(page.locator("#play-title")).to_have_text(said["your_roll"].format(name="Ana"))
    # the box names come from the API in the page's language
    expect(page.locator(f'#sheet tbody tr[data-box="{box}"] th')).to_contain_text(name)
    for face in dice:
        page.get_by_role("button", name=said["add_die"].format(face=face), exact=True).click()
    page.locator(f'#options [data-focus-key="opt:{box}"]').click()
    expect(page.locator(f'#sheet tbody tr[data-box="{box}"] td').nth(0)).to_have_text(str(points))
    expect(page.locator("#play-title")).to_have_text(said["your_roll"].format(name="Beto"))
    assert no_sideways_scroll(page)
    assert audit(page, axe_source, f"game, {lang}") == []
    shot(page, f"game-{lang}")
    assert page.errors == []


def test_a_language_picked_on_the_phone_is_fetched_and_kept(phone):
    """A phone whose browser is set to Spanish picks Dutch: the page switches, counts in Dutch plurals and
    opens in Dutch the next time, though the browser still asks for Spanish."""
    page = phone("es-AR")
    page.goto("/")
    expect(page.locator("#home h1")).to_have_text(words("es")["new_game"])
    page.locator("#lang").select_option("nl")
    expect(page.locator("#home h1")).to_have_text(words("nl")["new_game"])
    expect(page.locator("#add-player")).to_have_text(words("nl")["add_player"])
    counted = page.evaluate("""async () => {
        const w = await import("/static/js/words.js");
        return [w.plural("dice", 1), w.plural("dice", 3), w.plural("dice", 0)];
    }""")
    assert counted == ["1 dobbelsteen", "3 dobbelstenen", "0 dobbelstenen"]
    page.reload()
    expect(page.locator("#home h1")).to_have_text(words("nl")["new_game"])
    expect(page.locator("html")).to_have_attribute("lang", "nl")
    # French counts zero as one (CLDR), as the catalog's forms are named
    page.locator("#lang").select_option("fr")
    expect(page.locator("#home h1")).to_have_text(words("fr")["new_game"])
    counted = page.evaluate("""async () => {
        const w = await import("/static/js/words.js");
        return [w.plural("dice", 0), w.plural("dice", 1), w.plural("dice", 2), w.plural("points", 1000000)];
    }""")
    assert counted == ["0 dé", "1 dé", "2 dés", "1\u202f000\u202f000 points"]
    assert page.errors == []
