"""The page, live: a second phone sees a turn as it is stored, through a stream, under the ASGI server.

Two phones (browser contexts) on one game, the reader's network slowed to a
phone's. While a stream holds, the reader's page does not poll, so a turn
that reaches it came by the stream; the "live" mark says so. A stream that
is cut (the server restarts) is opened again on the new one, and the next
turn comes the same way.
"""

from __future__ import annotations

import contextlib
import re
import shutil
import time

import pytest

from .toolkit import needs

needs("playwright.sync_api", "pip install playwright")
from playwright.sync_api import expect  # noqa: E402

from bench._http import granian  # noqa: E402

from .browserkit import shot  # noqa: E402
from .pagekit import cell, choose, roll, start_game  # noqa: E402

#: A phone's network, as Chromium's DevTools emulate it: 150 ms each way, about 1.6 Mbit/s down, 750 kbit/s up.
PHONE_NETWORK = {"offline": False, "latency": 150, "downloadThroughput": 1_600_000 / 8,
                 "uploadThroughput": 750_000 / 8}


class LiveServer(str):
    """The ASGI server's address, and a way to stop it and start another on the same port and file."""

    def stop(self) -> None:
        self.stack.close()

    def start(self) -> None:
        self.stack = contextlib.ExitStack()
        self.stack.enter_context(granian(env=self.env, port=self.port))


@pytest.fixture
def live_url(tmp_path, sqlite_template):
    path = tmp_path / "live.sqlite"
    shutil.copyfile(sqlite_template, path)
    env = {"DATABASE_URL": f"sqlite:///{path}", "ANOTADOR_GAMES_PER_MINUTE": "0"}
    stack = contextlib.ExitStack()
    srv = stack.enter_context(granian(env=env))
    url = LiveServer(f"http://127.0.0.1:{srv.port}")
    url.stack, url.env, url.port = stack, env, srv.port
    yield url
    url.stack.close()


def reads_of(page, game_id):
    """The game reads (polls) ``page`` sends from now on, as a list that grows."""
    seen = []
    path = re.compile(rf"/api/v1/games/{game_id}$")
    page.on("request", lambda r: seen.append(time.monotonic()) if r.method == "GET" and path.search(r.url) else None)
    return seen


def test_a_second_phone_sees_each_turn_through_its_stream(phone, live_url):
    writer = phone(url=live_url)
    game_id = start_game(writer, ["Ana", "Beto"])
    reader = phone(url=live_url)
    cdp = reader.context.new_cdp_session(reader)
    cdp.send("Network.enable")
    cdp.send("Network.emulateNetworkConditions", PHONE_NETWORK)
    reader.goto(f"/g/{game_id}")
    expect(reader.locator("#sheet thead th").nth(1)).to_have_text("Ana")
    mark = reader.locator("#live")
    expect(mark).to_have_class(re.compile(r"\bon\b"), timeout=15_000)
    expect(mark).to_have_text("Live")
    reads = reads_of(reader, game_id)
    reader.wait_for_timeout(4000)  # (Playwright delivers the page's events only while it is called)
    # Polling would have read the game four times: live, at most the half-minute safety net's one read
    assert len(reads) <= 1, "a phone with a live stream still polls every second"
    roll(writer, [6, 6, 6, 1, 1])
    choose(writer, "Full house", 30)
    expect(cell(reader, 0, "full")).to_have_text("30", timeout=5_000)
    assert len(reads) <= 3  # the read the event asked for (and the safety net's)
    shot(reader, "live-reader")

    # The server restarts, cutting the stream: the mark says so; the stream is opened again on the new
    # server, and the next turn comes the same way
    live_url.stop()
    expect(mark).not_to_have_class(re.compile(r"\bon\b"), timeout=10_000)
    expect(mark).to_have_text("Reconnecting")
    live_url.start()
    expect(mark).to_have_class(re.compile(r"\bon\b"), timeout=30_000)
    roll(writer, [2, 2, 3, 3, 3])
    choose(writer, "Full house", 30)
    expect(cell(reader, 1, "full")).to_have_text("30", timeout=5_000)
    assert reader.errors == [] and writer.errors == []


def test_a_phone_on_a_server_without_streams_polls_and_says_nothing(phone):
    writer = phone()
    game_id = start_game(writer, ["Ana", "Beto"])
    reader = phone()
    reader.goto(f"/g/{game_id}")
    expect(reader.locator("#sheet thead th").nth(1)).to_have_text("Ana")
    reads = reads_of(reader, game_id)
    reader.wait_for_timeout(3000)
    assert len(reads) >= 2  # once a second: the app's own answer to a stream is "ask again"
    expect(reader.locator("#live")).to_be_hidden()
    roll(writer, [6, 6, 6, 1, 1])
    choose(writer, "Full house", 30)
    expect(cell(reader, 0, "full")).to_have_text("30", timeout=5_000)


def inside(page, *selectors) -> bool:
    """Whether each element is whole inside the viewport's width (not pushed past its right edge)."""
    width = page.viewport_size["width"]
    boxes = [page.locator(s).bounding_box() for s in selectors]
    return all(box is not None and box["x"] >= 0 and box["x"] + box["width"] <= width + 0.5 for box in boxes)


@pytest.mark.parametrize(("width", "height", "text"), [(320, 568, 1), (390, 844, 2)], ids=["320x568", "text-200"])
def test_the_live_mark_fits_beside_the_game_s_buttons(phone, live_url, width, height, text):
    """In Spanish (the longest words), live and catching up, beside Deshacer and Compartir: nothing cut or
    overlapping at 320 CSS px or with text at 200 %."""
    from .test_page_a11y import LAYOUT

    starter = phone(url=live_url)
    game = start_game(starter, ["Guillermina", "Beto"])
    token = starter.evaluate("JSON.parse(localStorage.getItem('anotador.games'))[0].token")
    page = phone(locale="es-AR", url=live_url, width=width, height=height)
    if text != 1:
        page.add_init_script(f"document.addEventListener('DOMContentLoaded', () => "
                             f"document.documentElement.style.fontSize = '{17 * text}px')")
    page.goto(f"/g/{game}#token={token}")  # the scoring link
    roll(page, [6, 6, 6, 1, 1], lang="es")
    page.locator("#options button").first.click()
    expect(page.locator("#undo")).to_be_visible()
    mark = page.locator("#live")
    expect(mark).to_have_text("En vivo", timeout=15_000)
    assert page.evaluate(LAYOUT) == {"cut": [], "overlaps": [], "wide": False}
    assert inside(page, "#live", "#share-btn", "#undo")
    page.evaluate("window.scrollTo(0, 0)")
    shot(page, f"live-mark-es-{width}x{height}-{text}x")
    live_url.stop()
    expect(mark).to_have_text("Reconectando", timeout=10_000)
    assert page.evaluate(LAYOUT) == {"cut": [], "overlaps": [], "wide": False}
    assert inside(page, "#live", "#share-btn", "#undo")
    page.evaluate("window.scrollTo(0, 0)")
    shot(page, f"live-mark-es-{width}x{height}-{text}x-off")


@pytest.mark.parametrize(("width", "height", "text"), [(320, 568, 1), (390, 844, 2)], ids=["320x568", "text-200"])
def test_the_table_screen_shows_a_game_started_at_it_through_its_stream(phone, live_url, width, height, text):
    """A regulars' table on the tablet at the head of the table: a game started at it from a phone shows
    at once (the table polls every 15 s, every minute while live), and the mark fits beside Compartir."""
    from bench._http import request

    from .test_page_a11y import LAYOUT

    port = int(live_url.rsplit(":", 1)[1])
    status, _, mesa = request(port, "POST", "/api/v1/tables", {"name": "Los domingos de la abuela Guillermina"})
    assert status == 201
    page = phone(locale="es-AR", url=live_url, width=width, height=height)
    if text != 1:
        page.add_init_script(f"document.addEventListener('DOMContentLoaded', () => "
                             f"document.documentElement.style.fontSize = '{17 * text}px')")
    reads = []
    path = re.compile(rf"/api/v1/tables/{mesa['id']}(\?.*)?$")
    page.on("request", lambda r: reads.append(r.url) if r.method == "GET" and path.search(r.url) else None)
    page.goto(f"/m/{mesa['id']}")
    expect(page.locator("#mesa-title")).to_have_text(mesa["name"])
    mark = page.locator("#m-live")
    expect(mark).to_have_text("En vivo", timeout=15_000)
    before = len(reads)
    status, _, _ = request(port, "POST", "/api/v1/games", {"variant": "generala", "players": ["Ana", "Beto"],
                                                          "table": mesa["id"]}, {"Authorization": f"Bearer {mesa['token']}"})
    assert status == 201
    expect(page.locator("#standings-summary")).to_contain_text("1 en juego", timeout=5_000)
    assert len(reads) == before + 1  # one read, the one the event asked for
    assert page.evaluate(LAYOUT) == {"cut": [], "overlaps": [], "wide": False}
    assert inside(page, "#m-live", "#m-share-btn")
    page.evaluate("window.scrollTo(0, 0)")
    shot(page, f"live-table-es-{width}x{height}-{text}x")
    assert page.errors == []
