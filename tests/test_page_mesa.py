"""A table of regulars on the phone page: made on a phone, a game started at it and counted, the standings,
the chart of wins with its text alternative, the history page by page, players merged; phones and tablets in
both orientations, axe finds nothing."""

from __future__ import annotations

import random
import re
from datetime import datetime, timedelta, timezone

import pytest
import sqlalchemy as sa

from .toolkit import needs

needs("playwright.sync_api", "pip install playwright")
from playwright.sync_api import expect  # noqa: E402

from .browserkit import shot
from .mesakit import Mesa, play_out
from .pagekit import audit, choose, confirm, offline, roll, under_service_worker

FAMILY = ["Абуэла Мария Петровна Кузнецова-Смирнова", "عبد الرحمن بن محمد الفاسي من مدينة فاس ا", "王小明🎲",
          "Guillermina Fernández de la Cruz"]


def seeded(page_app, games=8, players=FAMILY[:3], start=datetime(2026, 1, 4, 20, tzinfo=timezone.utc), **extra):
    """A table with ``games`` finished games, one every three weeks from ``start``; the table."""
    from anotador.extensions import db
    from anotador.store.models import GameRow

    client = page_app.test_client()
    mesa = Mesa(client, "Los domingos de la abuela", **extra)
    rng = random.Random(games)
    for n in range(games):
        game = mesa.game(players[n % len(players):] + players[:n % len(players)], ["generala", "yacht"][n % 2])
        with page_app.app_context():
            db.session.execute(sa.update(GameRow).where(GameRow.id == game.id)
                               .values(created_at=start + timedelta(days=21 * n)))
            db.session.commit()
        if n % 3 == 0 and n % 2 == 0:
            game.turn(game.get()["turn"]["player"], "generala", [6] * 5, served=True)
        else:
            play_out(game, rng)
    return mesa


def no_sideways_scroll(page) -> bool:
    return page.evaluate("() => document.scrollingElement.scrollWidth <= window.innerWidth + 1")


def test_a_table_made_on_a_phone_counts_the_game_started_at_it(phone):
    page = phone(width=390, height=844)
    page.goto("/")
    page.locator("#new-mesa summary").click()
    page.locator("#mesa-name").fill("Los domingos")
    page.locator("#mesa-create").click()
    page.wait_for_url(re.compile(r"/m/[A-Za-z0-9_-]+$"))
    mesa_id = page.url.rsplit("/", 1)[1]
    expect(page.locator("#mesa-title")).to_have_text("Los domingos")
    expect(page.locator("#standings caption")).to_have_text("No game has finished here yet.")
    zone = page.evaluate("Intl.DateTimeFormat().resolvedOptions().timeZone")
    assert page.evaluate(f"fetch('/api/v1/tables/{mesa_id}').then(r => r.json())")["timezone"] == zone

    page.locator("#mesa-new-game").click()
    expect(page.locator("#at-mesa")).to_be_visible()
    expect(page.locator("#at-mesa-text")).to_contain_text("Los domingos")
    rows = page.locator("#players li")
    rows.nth(0).locator("input").fill("Ana")
    rows.nth(1).locator("input").fill("Beto")
    page.locator("#start").click()
    page.wait_for_url(re.compile(r"/g/[A-Za-z0-9_-]+$"))
    game_id = page.url.rsplit("/", 1)[1]
    assert page.evaluate(f"fetch('/api/v1/games/{game_id}').then(r => r.json())")["table"] == mesa_id
    roll(page, [4, 4, 4, 4, 4], served=True)
    choose(page, "Generala")
    confirm(page)
    expect(page.locator("#winner")).to_be_visible()
    page.locator("#mesa-link").click()
    page.wait_for_url(re.compile(f"/m/{mesa_id}$"))
    first = page.locator("#standings tbody tr").first
    expect(first.locator("th")).to_contain_text("Ana")
    expect(first.locator("td").nth(2)).to_have_text("1")  # games won
    expect(page.locator("#mesa-history li")).to_have_count(1)
    expect(page.locator("#mesa-history li").first).to_contain_text("Ana won")
    shot(page, "mesa-made-on-a-phone", full_page=True)

    # the next game at the table starts with its regulars
    page.locator("#mesa-new-game").click()
    expect(page.locator("#players li input").nth(0)).to_have_value(re.compile("Ana|Beto"))
    expect(page.locator("#players li input")).to_have_count(2)
    # the home screen lists the table
    page.goto("/")
    expect(page.locator("#mesas li")).to_have_count(1)
    expect(page.locator("#mesas li").first).to_contain_text("Los domingos")

    # a phone with the read link sees the same standings, and nothing that writes
    reader = phone(width=390, height=844)
    reader.goto(f"/m/{mesa_id}")
    expect(reader.locator("#standings tbody tr").first.locator("th")).to_contain_text("Ana")
    expect(reader.locator("#mesa-new-game")).to_be_hidden()
    expect(reader.locator("#mesa-edit")).to_be_hidden()
    assert page.errors == [] and reader.errors == []


@pytest.mark.parametrize("size", [(390, 844), (844, 390), (1024, 768), (768, 1024)],
                         ids=["phone", "phone-landscape", "tablet", "tablet-portrait"])
def test_the_table_screen_fits_every_screen_with_its_chart_and_table(phone, page_app, axe_source, size):
    mesa = seeded(page_app)
    page = phone(width=size[0], height=size[1], bypass_csp=True)
    page.goto(f"/m/{mesa.id}#token={mesa.token}")
    expect(page.locator("#standings tbody tr")).to_have_count(3)
    assert "token" not in page.url  # the token stays on the phone, out of the address bar
    chart = page.locator("#wins-chart svg.wins-chart")
    expect(chart).to_have_attribute("role", "img")
    expect(chart.locator("polyline")).to_have_count(3)
    # the text alternative: one row a month, each player's wins so far
    page.locator("#wins-chart summary").click()
    months = page.locator("#wins-chart table tbody tr")
    body = page.evaluate(f"fetch('/api/v1/tables/{mesa.id}').then(r => r.json())")
    expect(months).to_have_count(len(body["months"]))
    leader = body["standings"][0]
    expect(months.last.locator("td").first).to_have_text(str(leader["wins"]))
    expect(page.locator("#standings tbody tr").first.locator("td").nth(2)).to_have_text(str(leader["wins"]))
    expect(page.locator("#mesa-history li")).to_have_count(8)
    assert no_sideways_scroll(page)
    shot(page, f"mesa-{size[0]}x{size[1]}", full_page=True)
    found = audit(page, axe_source, "table screen")
    page.locator("#mesa-edit summary").click()
    found += audit(page, axe_source, "table screen, players being edited")
    page.locator("#m-share-btn").click()
    page.locator("#m-tab-write").click()
    page.wait_for_function("() => typeof window.qrcode === 'function'")
    expect(page.locator("#m-share-url")).to_have_value(re.compile(f"/m/{mesa.id}#token="))
    found += audit(page, axe_source, "table screen, share panel")
    assert found == []
    assert page.errors == []


def test_the_standings_follow_the_filters_and_the_history_pages(phone, page_app):
    mesa = seeded(page_app, games=24, start=datetime(2024, 6, 2, 20, tzinfo=timezone.utc))
    page = phone(width=390, height=844)
    page.goto(f"/m/{mesa.id}")
    expect(page.locator("#standings-summary")).to_have_text("24 games finished")
    expect(page.locator("#mesa-history li")).to_have_count(20)
    page.locator("#mesa-more").click()
    expect(page.locator("#mesa-history li")).to_have_count(24)
    expect(page.locator("#mesa-more")).to_be_hidden()
    ids = page.locator("#mesa-history li a").evaluate_all("els => els.map(a => a.getAttribute('href'))")
    assert len(set(ids)) == 24
    page.locator("#mesa-variant").select_option("yacht")
    expect(page.locator("#standings-summary")).to_have_text("12 games finished")
    page.locator("#mesa-year").select_option("2025")
    body = page.evaluate(f"fetch('/api/v1/tables/{mesa.id}?variant=yacht&since=2025-01-01&until=2025-12-31')"
                         ".then(r => r.json())")
    expect(page.locator("#standings-summary")).to_have_text(f"{body['games']} games finished")
    assert 0 < body["games"] < 12
    csv = page.evaluate("href => fetch(href).then(r => r.text())", page.locator("#mesa-csv").get_attribute("href"))
    # the family's spreadsheet, in the page's language (English here: "," between cells)
    assert csv.lstrip("\ufeff").startswith("Date,Game,Variant,Rules") and csv.count("\n") == 1 + 24 * 3
    assert page.errors == []


def test_two_names_of_one_person_are_merged_on_the_table_screen(phone, page_app):
    client = page_app.test_client()
    mesa = Mesa(client)
    rng = random.Random(1)
    for players in (["Abu", "Beto"], ["Abuela", "Beto"]):
        play_out(mesa.game(players), rng)
    page = phone(width=390, height=844)
    page.goto(f"/m/{mesa.id}#token={mesa.token}")
    expect(page.locator("#standings tbody tr")).to_have_count(3)
    page.locator("#mesa-edit summary").click()
    abu = next(p for p in mesa.get()["players"] if p["name"] == "Abu")["player"]
    abuela = next(p for p in mesa.get()["players"] if p["name"] == "Abuela")["player"]
    page.locator(f"#merge-{abu}").select_option(str(abuela))
    page.locator(f"#merge-{abu}").locator("xpath=..").get_by_role("button", name="Merge").click()
    expect(page.locator("#confirm-text")).to_have_text("Count Abu as Abuela? Their games go to Abuela.")
    confirm(page)
    expect(page.locator("#standings tbody tr")).to_have_count(2)
    row = page.locator("#standings tbody tr", has_text="Abuela")
    expect(row.locator("small")).to_have_text("Also: Abu")
    expect(row.locator("td").nth(1)).to_have_text("2")  # her games, both names
    page.locator(f"#rename-{abuela}").fill("La abuela")
    page.locator(f"#rename-{abuela}").locator("xpath=..").get_by_role("button", name="Save").click()
    expect(page.locator("#standings tbody tr", has_text="La abuela")).to_have_count(1)
    # a name another regular has is refused, and said so
    page.locator(f"#rename-{abuela}").fill("BETO")
    page.locator(f"#rename-{abuela}").locator("xpath=..").get_by_role("button", name="Save").click()
    expect(page.locator("#toast")).to_contain_text("merge them instead")
    assert page.errors == []


@pytest.mark.parametrize(("width", "height", "text"), [(320, 568, 1), (390, 844, 2)], ids=["reflow-320", "text-200"])
def test_the_table_screen_reflows_with_nothing_cut_or_overlapping(phone, page_app, width, height, text):
    """WCAG 1.4.10 and 1.4.4 on the table screen: only the standings scroll sideways, nothing overlaps."""
    from .test_page_a11y import LAYOUT

    mesa = seeded(page_app, games=4, players=FAMILY)
    page = phone(width=width, height=height)
    if text != 1:
        page.add_init_script(f"document.addEventListener('DOMContentLoaded', () => "
                             f"document.documentElement.style.fontSize = '{17 * text}px')")
    page.goto(f"/m/{mesa.id}#token={mesa.token}")
    expect(page.locator("#standings tbody tr")).to_have_count(4)
    page.locator("#mesa-edit summary").click()
    page.locator("#wins-chart summary").click()
    got = page.evaluate(LAYOUT)
    shot(page, f"mesa-reflow-{width}x{height}-{text}x", full_page=True)
    assert got == {"cut": [], "overlaps": [], "wide": False}, got


def test_the_table_opens_with_no_connection_as_last_seen(phone, page_app):
    mesa = seeded(page_app, games=3)
    page = phone(width=390, height=844)
    page.goto(f"/m/{mesa.id}")
    expect(page.locator("#standings tbody tr")).to_have_count(3)
    expect(page.locator("#mesa-history li")).to_have_count(3)
    under_service_worker(page)  # the page, under the worker's control from here
    offline(page, True)
    page.reload()
    expect(page.locator("#mesa-title")).to_have_text("Los domingos de la abuela")  # the shell, from the cache
    expect(page.locator("#standings tbody tr")).to_have_count(3)                    # the standings, from the phone
    expect(page.locator("#mesa-history li")).to_have_count(3)
    offline(page, False)
    assert page.errors == []


@pytest.mark.parametrize("size", [(390, 844), (1024, 768)], ids=["phone", "tablet"])
def test_the_standings_scroll_in_their_own_box_with_the_player_column_pinned(phone, page_app, size):
    """Spanish headers are the longest: every column is reached by scrolling the standings alone, and the
    players' names stay in sight at both ends."""
    mesa = seeded(page_app, games=4, players=FAMILY)
    page = phone("es-AR", width=size[0], height=size[1])
    page.goto(f"/m/{mesa.id}#token={mesa.token}")
    expect(page.locator("#standings tbody tr")).to_have_count(4)
    box = page.locator(".table-scroll:has(#standings)")
    assert no_sideways_scroll(page)  # the page itself never scrolls sideways
    names = page.locator("#standings tbody th[scope=row]")
    columns = page.locator("#standings thead th")
    for end in (0, 10_000):
        box.evaluate(f"b => b.scrollLeft = {end}")
        frame = box.bounding_box()
        for i in range(names.count()):
            name = names.nth(i).bounding_box()
            assert frame["x"] - 1 <= name["x"] and name["x"] + name["width"] <= frame["x"] + frame["width"] + 1
    last = columns.last.bounding_box()  # scrolled to the end, the last column is whole inside the box
    assert last["x"] + last["width"] <= frame["x"] + frame["width"] + 1
    shot(page, f"mesa-standings-scrolled-{size[0]}")
    assert page.errors == []
