"""What a player does on the page, as helpers for the browser tests."""

from __future__ import annotations

import re

from .toolkit import needs

needs("playwright.sync_api", "pip install playwright")
from playwright.sync_api import expect  # noqa: E402

VARIANT_NAME = {"generala": "^Generala Ten", "generala-doble": "Double Generala", "double-cameroon": "Double Cameroon",
                "general-pr": "Puerto Rico", "generala-wiki": "encyclopedia", "yahtzee": "^Yahtzee", "kniffel": "^Kniffel",
                "yatzy": "^Yatzy", "yacht": "^Yacht"}
NAMES = ["Ñandú", "Beto", "Ana Laura", "Guillermina Fernández de la Cruz", "Ceci", "Dani", "Eli", "Fede", "Gabi",
         "Hugo", "Iris", "Juanjo Pérez-Villalobos del Río"]


def open_rules(page):
    """Unfold the start screen's rules (folded: the players and Start come first)."""
    expect(page.locator("#rules-pick > summary")).to_be_visible()
    if page.locator("#rules-pick").get_attribute("open") is None:
        page.locator("#rules-pick > summary").click()


def open_house(page):
    """Unfold the house rules, inside the rules."""
    open_rules(page)
    if page.locator("#house").get_attribute("open") is None:
        page.locator("#house summary").click()


def start_game(page, players, variant="generala", first_rolls=None, path="/"):
    page.goto(path)
    open_rules(page)
    page.get_by_role("radio", name=re.compile(VARIANT_NAME[variant])).check()
    rows = page.locator("#players li")
    while rows.count() < len(players):
        page.locator("#add-player").click()
    for i, name in enumerate(players):
        rows.nth(i).locator("input").fill(name)
    if first_rolls:
        page.locator("#use-dice").check()
        for i, face in enumerate(first_rolls):
            rows.nth(i).locator("select").select_option(str(face))
    page.locator("#start").click()
    page.wait_for_url(re.compile(r"/g/[A-Za-z0-9_-]+$"))
    expect(page.locator("#sheet thead th").nth(1)).to_have_text(players[0])
    return page.url.rsplit("/", 1)[1]


def roll(page, dice, served=False, lang="en"):
    add = {"en": "Add a {}", "es": "Agregar un {}", "pt": "Adicionar um {}", "de": "Eine {} hinzufügen",
           "sv": "Lägg till en {}"}[lang]
    if page.locator("#tray button.die").count():
        page.locator("#clear").click()
    for face in dice:
        page.get_by_role("button", name=add.format(face), exact=True).click()
    served_box = page.locator("#served")
    if served_box.is_visible() and served_box.is_checked() != served:
        served_box.click()


def roll_again(page, dice):
    """Enter the dice of the players tied for who starts (``{"Ana": 4, ...}``), in the start form's tie row."""
    for name, face in dice.items():
        page.locator("#tie-dice").get_by_label(f"{name}'s die").select_option(str(face))


def option(page, box, points=None):
    """The option button for ``box`` (with ``points`` when given)."""
    found = page.locator("#options button").filter(has=page.locator(".label", has_text=re.compile(f"^{re.escape(box)}")))
    if points is not None:
        found = found.filter(has=page.locator(".pts", has_text=re.compile(f"^{points}$")))
    return found.first


def choose(page, box, points=None):
    """Tap the option for ``box``."""
    option(page, box, points).click()


def cell(page, player, box_id):
    return page.locator(f'#sheet tbody tr[data-box="{box_id}"] td').nth(player)


def total(page, player):
    return page.locator("#sheet tfoot td").nth(player)


def confirm(page, yes=True):
    """Answer the page's own confirmation dialog."""
    dialog = page.locator("#confirm")
    expect(dialog).to_be_visible()
    (page.locator("#confirm-yes") if yes else page.locator("#confirm-no")).click()
    expect(dialog).to_be_hidden()


def scratch(page, box_name):
    page.locator("#scratch-btn").click()
    page.locator("#scratch-list button", has_text=box_name).click()
    confirm(page)


def under_service_worker(page):
    """Reload ``page`` once its service worker is installed, so that the worker controls it from then on."""
    page.wait_for_function("() => navigator.serviceWorker.controller !== null || "
                           "navigator.serviceWorker.ready.then(() => true)")
    page.reload()
    page.wait_for_function("() => navigator.serviceWorker.controller !== null")


def api_turns(page, game):
    return page.evaluate("id => fetch(`/api/v1/games/${id}/turns`).then(r => r.json())", game)


def in_viewport(page, selector, horizontal_only=False):
    """Whether the element's box lies within the viewport (measured in one step in the page)."""
    page.locator(selector).first.wait_for()
    return page.evaluate("""([sel, horizontal]) => {
        const r = document.querySelector(sel).getBoundingClientRect();
        const x = r.left >= -0.5 && r.right <= window.innerWidth + 0.5;
        return horizontal ? x : x && r.top >= -0.5 && r.bottom <= window.innerHeight + 0.5;
    }""", [selector, horizontal_only])


#: WCAG 2.1 AA and axe's best practices.
AXE_TAGS = ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa", "best-practice"]


def audit(page, axe_source, state):
    """axe-core's violations on the page as it is now (``axe_source``: conftest's fixture); [] means none."""
    if not page.evaluate("typeof window.axe !== 'undefined'"):
        page.add_script_tag(content=axe_source)
    result = page.evaluate("""tags => axe.run(document, { runOnly: { type: 'tag', values: tags },
        resultTypes: ['violations'] }).then(r => r.violations.map(v => ({ id: v.id, impact: v.impact,
        nodes: v.nodes.slice(0, 3).map(n => n.target.join(' ') + ': ' + n.failureSummary.slice(0, 160)) })))""",
                           AXE_TAGS)
    return [(state, v["id"], v["impact"], v["nodes"]) for v in result]


def offline(page, on: bool = True) -> None:
    """Take the page's browser context off the network (``on``), or put it back.

    Chromium's offline emulation, and every API request refused at
    Playwright's routing too: the emulation alone once let a turn queued
    offline reach the server on a loaded machine, and a test of the outbox
    must know the network is gone while it queues.
    """
    context = page.context
    if on:
        context.set_offline(True)
        context.route("**/api/**", _disconnected)
    else:
        context.unroute("**/api/**", _disconnected)
        context.set_offline(False)


def _disconnected(route) -> None:
    route.abort("internetdisconnected")
