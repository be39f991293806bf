"""Turns that survive the connection: queued on the phone, sent in order, recorded once.

And the page itself: installable (manifest, icons, favicon), its shell kept
by a service worker so it opens with no network; the API never cached.
"""

from __future__ import annotations

import json
import re
import time
import urllib.request

import pytest

from .toolkit import needs

needs("playwright.sync_api", "pip install playwright")
from playwright.sync_api import expect  # noqa: E402

from .browserkit import shot
from .pagekit import api_turns, cell, choose, offline, option, roll, start_game, total, under_service_worker


def test_three_turns_tapped_offline_are_sent_in_order_once(phone):
    page = phone()
    game = start_game(page, ["Ana", "Beto", "Ceci"])
    offline(page, True)
    plan = [(0, [1, 1, 1, 2, 3], "Ones", "ones", 3), (1, [2, 2, 5, 5, 6], "Twos", "twos", 4),
            (2, [3, 3, 3, 3, 1], "Threes", "threes", 12)]
    for player, dice, box, box_id, points in plan:
        roll(page, dice)
        # no server to score: the game's scoring table does, as the server would
        expect(option(page, box, points)).to_be_visible()
        choose(page, box, points)
        expect(cell(page, player, box_id)).to_have_class(re.compile("pending"))
    expect(page.locator("#pending")).to_have_text("3 records waiting to be sent")
    for player, _, _, _, points in plan:  # the totals count what waits, marked as waiting
        expect(total(page, player)).to_have_text(f"{points} (waiting to be sent)")
        expect(total(page, player)).to_have_class(re.compile("pending"))
    expect(page.locator("#offline")).to_be_visible()
    expect(page.locator("#turn-line")).to_have_text("Ana's turn · round 2 of 10")   # the table plays on
    shot(page, "14-offline-pending")
    offline(page, False)
    for player, _, _, box_id, points in plan:
        expect(cell(page, player, box_id)).to_have_text(str(points), timeout=8000)
        expect(total(page, player)).to_have_text(str(points))
    expect(page.locator("#pending")).to_be_hidden()
    expect(page.locator("#offline")).to_be_hidden()
    turns = api_turns(page, game)["turns"]
    assert [(t["player"], t["boxes"][0]["category"]) for t in turns] == [(0, "ones"), (1, "twos"), (2, "threes")]
    assert page.evaluate("Object.keys(localStorage).filter(k => k.startsWith('anotador.queue'))") == []
    assert page.errors == []


def test_offline_the_pad_offers_only_what_the_roll_scores(phone):
    """2-2-2-3-3 offline is a full house, never a generala; a served generala still wins on the spot."""
    page = phone()
    game = start_game(page, ["Ana", "Beto"])
    page.wait_for_function("() => Object.keys(localStorage).some(k => k.startsWith('anotador.table.'))")
    page.wait_for_function("() => navigator.serviceWorker.controller !== null")
    offline(page, True)
    page.reload()  # opened again with no connection at all: the kept shell, sheet and table
    expect(page.locator("#play")).to_be_visible()
    roll(page, [2, 2, 2, 3, 3])
    labels = page.locator("#options button .label")
    expect(labels.first).to_have_text("Full house")
    assert "Generala" not in labels.all_inner_texts()
    assert [t.split("\n")[0] for t in labels.all_inner_texts()] == ["Full house", "Twos", "Threes"]  # 6 each: sheet order
    expect(page.locator("#options button .pts").first).to_have_text("30")
    roll(page, [2, 2, 2, 3, 3], served=True)
    expect(page.locator("#options button .pts").first).to_have_text("35")  # the served bonus
    choose(page, "Full house", 35)
    expect(cell(page, 0, "full")).to_have_class(re.compile("pending"))
    shot(page, "14b-offline-scored")
    offline(page, False)
    expect(cell(page, 0, "full")).to_have_text("35", timeout=8000)
    expect(cell(page, 0, "full")).not_to_have_class(re.compile("pending"))
    assert [t["boxes"][0]["points"] for t in api_turns(page, game)["turns"]] == [35]
    assert page.errors == []


def test_a_server_that_answers_502_twice_records_the_turn_once(phone):
    page = phone()
    game = start_game(page, ["Ana", "Beto"])
    seen = {"n": 0, "keys": set()}

    def flaky(route):
        seen["n"] += 1
        seen["keys"].add(route.request.headers.get("idempotency-key"))
        if seen["n"] <= 2:
            route.fulfill(status=502, content_type="application/problem+json",
                          body=json.dumps({"type": "about:blank", "title": "Bad Gateway", "status": 502,
                                           "detail": "upstream"}), headers={"Retry-After": "1"})
        else:
            route.continue_()

    page.route("**/api/v1/games/*/turns", flaky)
    roll(page, [6, 6, 6, 1, 1])
    choose(page, "Full house", 30)
    expect(cell(page, 0, "full")).to_have_class(re.compile("pending"))
    expect(cell(page, 0, "full")).to_have_text("30", timeout=10000)
    expect(cell(page, 0, "full")).not_to_have_class(re.compile("pending"))
    assert seen["n"] == 3 and len(seen["keys"]) == 1          # three tries, one key
    assert len(api_turns(page, game)["turns"]) == 1           # recorded once
    assert page.errors == []


def test_a_lost_answer_is_retried_with_its_key_and_not_recorded_twice(phone):
    """The server applied the turn but the phone never got the answer: the retry replays it."""
    page = phone()
    game = start_game(page, ["Ana", "Beto"])
    calls = {"n": 0}

    def drop_first_answer(route):
        calls["n"] += 1
        response = route.fetch()       # the server applies the turn...
        if calls["n"] == 1:
            route.abort("connectionreset")   # ...and the answer is lost on the way back
        else:
            route.fulfill(response=response)

    page.route("**/api/v1/games/*/turns", drop_first_answer)
    roll(page, [2, 3, 4, 5, 6])
    choose(page, "Straight", 20)
    expect(cell(page, 0, "straight")).to_have_text("20", timeout=10000)
    expect(page.locator("#turn-line")).to_have_text("Beto's turn · round 1 of 10")
    assert calls["n"] == 2 and len(api_turns(page, game)["turns"]) == 1


def test_a_read_that_brings_our_turn_before_its_answer_keeps_the_next_roll(phone):
    """Ana's turn is stored, but its answer is slow; a poll (or a stream) brings the game with it first. The
    turn still queued is not counted a second time: the pad stays Beto's and keeps the dice entered."""
    page = phone()
    game = start_game(page, ["Ana", "Beto"])
    held = []

    def hold_the_answer(route):
        if route.request.method == "POST" and not held:
            held.append((route, route.fetch()))  # the server stores the turn; its answer waits
        else:
            route.continue_()

    page.route("**/api/v1/games/*/turns", hold_the_answer)
    reads = []  # the games reads bring once the turn is stored
    page.on("response", lambda r: reads.append(r.status) if held and r.url.endswith(f"/games/{game}") else None)
    roll(page, [2, 3, 4, 5, 6])
    choose(page, "Straight", 20)
    roll(page, [6, 6, 6, 6, 1])  # Beto's roll, entered while Ana's answer is on the way
    deadline = time.monotonic() + 10
    while 200 not in reads and time.monotonic() < deadline:
        page.wait_for_timeout(100)  # a poll brings the game with Ana's turn in it
    assert 200 in reads, "no read brought the stored turn"
    page.wait_for_timeout(200)
    expect(page.locator("#play-title")).to_have_text("Beto's roll")
    expect(page.locator("#tray button.die")).to_have_count(5)
    assert held, "the turn was not sent"
    route, answer = held[0]
    route.fulfill(response=answer)
    expect(page.locator("#pending")).to_be_hidden(timeout=10_000)
    expect(page.locator("#tray button.die")).to_have_count(5)
    choose(page, "Four of a kind")
    expect(cell(page, 1, "four")).not_to_have_text("")
    expect(page.locator("#pending")).to_be_hidden(timeout=10_000)  # shown at once, stored when sent
    turns = api_turns(page, game)["turns"]
    assert [(t["player"], t["dice"]) for t in turns] == [(0, [2, 3, 4, 5, 6]), (1, [6, 6, 6, 6, 1])]
    assert page.errors == []


def test_a_poll_answered_after_our_own_turn_neither_undoes_it_nor_clears_the_next_roll(phone, base_url):
    """A slow connection: this phone's poll brings another phone's correction, but only after this phone has
    recorded Beto's turn. The game it brings is older than the one shown: the page keeps the newer, and Ana's
    roll entered meanwhile stays on the pad."""
    page = phone()
    game = start_game(page, ["Ana", "Beto"])
    token = page.evaluate("JSON.parse(localStorage.getItem('anotador.games'))[0].token")
    roll(page, [2, 3, 4, 5, 5])
    choose(page, "Fives", 10)
    expect(page.locator("#pending")).to_be_hidden(timeout=10_000)
    held = []

    def hold_one_poll(route):
        if route.request.method == "GET" and not held:
            held.append(route)  # answered later, as a slow connection would
        else:
            route.continue_()

    page.route(f"**/api/v1/games/{game}", hold_one_poll)
    deadline = time.monotonic() + 10
    while not held and time.monotonic() < deadline:
        page.wait_for_timeout(100)  # the next poll is due within a second
    assert held, "no poll was sent"
    fix = urllib.request.Request(f"{base_url}/api/v1/games/{game}/turns/1", method="PATCH",
                                 data=json.dumps({"category": "twos"}).encode(),
                                 headers={"Content-Type": "application/json", "Authorization": f"Bearer {token}"})
    urllib.request.urlopen(fix, timeout=10).close()  # another phone: Ana's 2-3-4-5-5 goes in the twos
    route, stale = held[0], held[0].fetch()  # the poll reaches the server now: it brings the correction...
    roll(page, [6, 6, 6, 1, 2])
    choose(page, "Sixes", 18)  # ...but this phone records Beto's turn first
    expect(page.locator("#pending")).to_be_hidden(timeout=10_000)
    roll(page, [4, 4, 4, 4, 4], served=True)  # and Ana's next roll is entered
    route.fulfill(response=stale)  # then the old answer lands
    page.unroute(f"**/api/v1/games/{game}")
    page.wait_for_timeout(1500)  # a poll or two more
    expect(cell(page, 1, "sixes")).to_have_text("18")
    expect(cell(page, 0, "twos")).to_have_text("2")  # the correction, brought by a later poll
    expect(page.locator("#play-title")).to_have_text("Ana's roll")
    expect(page.locator("#tray button.die")).to_have_count(5)
    expect(page.locator("#served")).to_be_checked()
    assert page.errors == []


def test_a_turn_recorded_meanwhile_by_another_phone_is_shown_not_forced(phone):
    a = phone()
    game = start_game(a, ["Ana", "Beto"])
    token = a.evaluate("JSON.parse(localStorage.getItem('anotador.games'))[0].token")
    b = phone()
    b.goto(f"/g/{game}#token={token}")
    offline(a, True)
    roll(a, [5, 5, 5, 5, 1])
    choose(a, "Fives")                       # queued on A
    expect(cell(a, 0, "fives")).to_have_class(re.compile("pending"))
    roll(b, [4, 4, 4, 2, 2])
    choose(b, "Full house", 30)              # B records Ana's turn meanwhile
    expect(cell(b, 0, "full")).to_have_text("30")
    offline(a, False)
    expect(a.locator("#conflict")).to_be_visible(timeout=8000)
    expect(a.locator("#conflict-text")).to_contain_text("Another phone recorded Ana's turn first: Full house 30")
    expect(a.locator("#conflict-text")).to_contain_text("Ana: Fives")
    expect(cell(a, 0, "full")).to_have_text("30")          # what is now recorded
    expect(cell(a, 0, "fives")).to_have_text("")            # A's turn was not forced in
    shot(a, "15-offline-conflict")
    a.locator("#conflict-discard").click()
    expect(a.locator("#conflict")).to_be_hidden()
    turns = api_turns(a, game)["turns"]
    assert [(t["player"], t["boxes"][0]["category"]) for t in turns] == [(0, "full")]
    assert a.errors == [] and b.errors == []


def test_the_shell_opens_offline_from_the_service_worker(phone):
    page = phone()
    game = start_game(page, ["Ana", "Beto"])
    roll(page, [6, 6, 6, 1, 1])
    choose(page, "Full house", 30)
    expect(cell(page, 0, "full")).to_have_text("30")
    under_service_worker(page)  # the page, under the worker's control from here
    offline(page, True)
    page.reload()
    expect(page.locator("#game-title")).to_have_text("Generala")        # the shell, from the cache
    expect(cell(page, 0, "full")).to_have_text("30")                     # the last sheet seen, from the phone
    expect(page.locator("#offline")).to_be_visible(timeout=5000)
    page.goto("/")                                                       # the start screen too
    expect(page.locator("#start")).to_be_visible()
    shot(page, "16-offline-shell")
    offline(page, False)
    # The API is never cached by the worker: every game read reached the server.
    cached = page.evaluate("""async () => { const out = [];
        for (const name of await caches.keys()) for (const r of await (await caches.open(name)).keys()) out.push(r.url);
        return out; }""")
    assert cached and not any("/api/" in u for u in cached), cached
    assert game


def test_installable_manifest_icons_and_favicon(client):
    r = client.get("/")
    html = r.get_data(as_text=True)
    href = re.search(r'<link rel="manifest" href="([^"]+)"', html).group(1)
    manifest = client.get(href)
    assert manifest.status_code == 200
    data = json.loads(manifest.get_data(as_text=True))
    assert data["name"] == "Anotador" and data["display"] == "standalone" and data["start_url"] == "../"
    sizes = {i["sizes"] for i in data["icons"]}
    assert {"192x192", "512x512"} <= sizes and any(i.get("purpose") == "maskable" for i in data["icons"])
    for icon in data["icons"]:
        got = client.get(href.rsplit("/", 1)[0] + "/" + icon["src"])
        assert got.status_code == 200 and got.mimetype == icon["type"]
        if icon["type"] == "image/png":
            width, height = int.from_bytes(got.data[16:20], "big"), int.from_bytes(got.data[20:24], "big")
            assert f"{width}x{height}" == icon["sizes"]
    fav = client.get("/favicon.ico")
    assert fav.status_code == 200 and fav.data[:4] == b"\x00\x00\x01\x00"
    sw = client.get("/sw.js")
    assert sw.status_code == 200 and sw.mimetype == "text/javascript" and sw.headers["Service-Worker-Allowed"] == "/"
    script = sw.get_data(as_text=True)
    assert "__ASSETS__" not in script and '"/static/js/main.js"' in script and "/api/" in script


REFUSED = {
    "es-ES": ("No se anotó", "El turno de Анастасия (ronda 1) no se anotó",
              "Con las reglas de esta partida esos dados no van en ese casillero.", "Volver a cargar mis dados"),
    "de-DE": ("Nicht eingetragen", "Der Zug von Анастасия (Runde 1) wurde nicht eingetragen",
              "Nach den Regeln dieses Spiels passen diese Würfel nicht in dieses Feld.", "Würfel"),
}


@pytest.mark.parametrize("locale", list(REFUSED))
def test_a_refused_queued_turn_is_said_in_the_pages_language_and_the_later_turns_follow(phone, locale):
    """Three turns queued offline; the server refuses the first (a 422, as when the rules disagree): the page
    says so in its language, naming the player and the round, the later turns wait for it, and once it is
    entered again all three are recorded in order."""
    title, text, reason, reenter = REFUSED[locale]
    page = phone()
    game = start_game(page, ["Анастасия", "Beto", "Ceci"])
    page.evaluate("lang => localStorage.setItem('anotador.lang', lang)", locale[:2])
    page.reload()
    expect(page.locator("#play")).to_be_visible()
    page.wait_for_function("() => Object.keys(localStorage).some(k => k.startsWith('anotador.table.'))")
    offline(page, True)
    for dice, box in (([5, 5, 5, 2, 1], "fives"), ([1, 1, 3, 4, 6], "ones"), ([2, 2, 3, 4, 6], "twos")):
        roll(page, dice, lang=locale[:2])
        page.locator(f'#options button[data-focus-key="opt:{box}"]').click()
    refused = {"n": 0}

    def refuse_first(route):
        if route.request.method == "POST" and route.request.post_data_json["player"] == 0 and refused["n"] == 0:
            refused["n"] += 1
            route.fulfill(status=422, content_type="application/problem+json", body=json.dumps({
                "type": "tag:anotador,2026:problem:validation-error", "title": "Invalid request", "status": 422,
                "detail": "5-5-5-2-1 does not qualify for fives.", "errors": {"category": ["does not qualify"]}}))
        else:
            route.continue_()

    page.route("**/api/v1/games/*/turns", refuse_first)
    offline(page, False)
    expect(page.locator("#conflict")).to_be_visible(timeout=8000)
    expect(page.locator("#conflict-title")).to_have_text(title)
    expect(page.locator("#conflict-text")).to_contain_text(text)
    expect(page.locator("#conflict-text")).to_contain_text(reason)
    assert "qualify" not in page.locator("#conflict-text").inner_text()  # never the server's English
    shot(page, f"16-refused-{locale}")
    assert api_turns(page, game)["turns"] == []      # the later turns wait: they follow it
    page.locator("#conflict-reenter").click()
    expect(page.locator("#conflict")).to_be_hidden()
    expect(page.locator("#tray button.die")).to_have_count(5)  # the refused turn's dice, for Анастасия
    expect(page.locator("#play-title")).to_contain_text("Анастасия")
    page.locator('#options button[data-focus-key="opt:fives"]').click()
    expect(page.locator("#pending")).to_be_hidden(timeout=8000)  # all three sent
    turns = api_turns(page, game)["turns"]
    assert [(t["player"], t["boxes"][0]["category"], t["boxes"][0]["points"]) for t in turns] == \
        [(0, "fives", 15), (1, "ones", 2), (2, "twos", 4)]
    assert page.errors == []
