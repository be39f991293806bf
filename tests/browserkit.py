"""The page in a real browser: the app served on a local port, Debian's Chromium driven by Playwright, phones,
screenshots, and axe-core for the accessibility audits (tests/pagekit.py). A pytest plugin of conftest.py."""

from __future__ import annotations

import os
import shutil
import subprocess

import pytest

from .conftest import ROOT
from .dbkit import migrated_app
from .toolkit import require


# -- the page in a browser ---------------------------------------------------------

CHROMIUM = os.environ.get("ANOTADOR_CHROMIUM", "/usr/bin/chromium")
SHOTS = ROOT / "build" / "screenshots"
PHONE = {"viewport": {"width": 360, "height": 740}, "device_scale_factor": 2, "is_mobile": True, "has_touch": True}


def serve_app(app, prefix: str = ""):
    """Serve ``app`` from a thread on a free port (under ``prefix``, as behind a proxy); return (url, server)."""
    import threading

    from werkzeug.exceptions import NotFound
    from werkzeug.middleware.dispatcher import DispatcherMiddleware
    from werkzeug.serving import make_server

    wsgi = DispatcherMiddleware(NotFound(), {prefix: app}) if prefix else app
    server = make_server("127.0.0.1", 0, wsgi, threaded=True)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return f"http://127.0.0.1:{server.server_port}", server


@pytest.fixture(scope="session")
def page_app(tmp_path_factory):
    """The app the browser tests talk to, on a migrated SQLite file."""
    folder = tmp_path_factory.mktemp("page")
    # one address plays every test: no per-address limit here
    return migrated_app(f"sqlite:///{folder}/page.sqlite", GAMES_PER_MINUTE=0, TO_WIN_SHARE=4,
                        TO_WIN_CLIENT_SHARE=4, TO_WIN_BURST=600, TO_WIN_AT_ONCE=8)


@pytest.fixture(scope="session")
def base_url(page_app):
    url, server = serve_app(page_app)
    yield url
    server.shutdown()


@pytest.fixture(scope="session")
def browser():
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:  # pragma: no cover
        sync_playwright = None
    require(sync_playwright is not None, "Playwright is not installed (pip install playwright)")
    require(os.path.exists(CHROMIUM) or shutil.which("chromium") is not None,
            f"Chromium is not installed at {CHROMIUM} (apt-get install chromium)")
    with sync_playwright() as pw:
        b = pw.chromium.launch(executable_path=CHROMIUM if os.path.exists(CHROMIUM) else shutil.which("chromium"),
                               args=["--no-sandbox", "--disable-gpu", "--disable-background-networking",
                                     "--disable-component-update", "--disable-sync", "--no-first-run"])
        yield b
        b.close()


@pytest.fixture
def phone(browser, base_url):
    """Factory: a new phone (browser context): ``phone(locale, width=, height=, url=, **context options)``."""
    contexts = []

    def make(locale="en-US", width=360, height=740, url=None, **options):
        where = url or base_url
        ctx = browser.new_context(locale=locale, base_url=where,
                                  **{**PHONE, "viewport": {"width": width, "height": height}, **options})
        ctx.grant_permissions(["clipboard-read", "clipboard-write"], origin=where)
        contexts.append(ctx)
        page = ctx.new_page()
        page.errors, page.aborted = [], []
        page.on("pageerror", lambda exc: page.errors.append(str(exc)))
        page.on("dialog", lambda d: (page.errors.append(f"dialog: {d.message}"), d.dismiss()))
        page.on("requestfailed", lambda r: page.aborted.append(f"{r.method} {r.url} {r.failure}"))
        return page

    yield make
    for ctx in contexts:
        ctx.close()


def shot(page, name, full_page=False):
    SHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SHOTS / f"{name}.png"), full_page=full_page)


# -- axe-core, for the accessibility audits (tests/pagekit.py: audit) ----------------------

AXE_VERSION = "4.14.1"
AXE_DIR = ROOT / "build" / f"axe-core-{AXE_VERSION}"


@pytest.fixture(scope="session")
def axe_source():
    """axe-core's script, from the npm registry (installed into build/ once, not vendored)."""
    import tarfile

    path = AXE_DIR / "axe.min.js"
    if not path.exists():
        require(shutil.which("npm") is not None, "npm is not installed: axe-core comes from the npm registry")
        AXE_DIR.mkdir(parents=True, exist_ok=True)
        out = subprocess.run(["npm", "pack", f"axe-core@{AXE_VERSION}", "--pack-destination", str(AXE_DIR),
                              "--silent"], capture_output=True, text=True, timeout=300)
        require(out.returncode == 0, f"npm pack axe-core failed: {out.stderr.strip()[:300]}")
        tgz = AXE_DIR / out.stdout.strip().splitlines()[-1]
        with tarfile.open(tgz) as tar:
            path.write_bytes(tar.extractfile("package/axe.min.js").read())
    return path.read_text(encoding="utf-8")
