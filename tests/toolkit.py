"""Test tools and services: a module's tool imported or skipped, a test's service required (failed in CI), and
the client generators' tools (tests/test_clients.py, tests/test_readme.py). A pytest plugin of conftest.py."""

from __future__ import annotations

import importlib
import os
import shutil
import subprocess
import sys

import pytest

from .conftest import ROOT


# -- skips that must not hide in CI ---------------------------------------------

NO_SKIP = os.environ.get("ANOTADOR_NO_SKIP") == "1"


def needs(module: str, install: str):
    """Import a test tool a module cannot run without, or skip that module saying how to install it.

    Called at the top of a test module before it imports the tool, so a
    missing Playwright, pypdf, hypothesis or schemathesis skips the modules
    that need it instead of breaking the collection of the whole suite. In
    CI (ANOTADOR_NO_SKIP=1) a missing tool is an error.
    """
    try:
        return importlib.import_module(module)
    except ImportError:
        if NO_SKIP:
            raise
        pytest.skip(f"{module} is not installed ({install})", allow_module_level=True)


def require(condition: bool, reason: str) -> None:
    """Skip the calling test with ``reason`` unless ``condition``; fail in CI.

    Tests that need PostgreSQL or a browser call this. Locally a missing
    service is a clear skip; .ci/run sets ANOTADOR_NO_SKIP=1 so CI cannot go
    green by skipping what it was meant to check.
    """
    if condition:
        return
    if NO_SKIP:
        pytest.fail(f"{reason} (ANOTADOR_NO_SKIP=1: this must run in CI)")
    pytest.skip(reason)


# -- client generators (tests/test_clients.py, tests/test_readme.py) ---------------------

CLIENTS = ROOT / "build" / "clients"  # kept between runs: the registries are slow, the versions pinned
PYTHON_GENERATOR = "openapi-python-client==0.29.1"
MYPY = "mypy==1.19.1"


def run(*cmd, timeout=600, **kw) -> subprocess.CompletedProcess:
    return subprocess.run([str(c) for c in cmd], capture_output=True, text=True, timeout=timeout, **kw)


@pytest.fixture(scope="session")
def python_tools():
    """A venv with openapi-python-client and mypy (made once, kept in build/clients)."""
    venv = CLIENTS / f"py{sys.version_info[0]}{sys.version_info[1]}-venv"
    python = venv / "bin" / "python"
    stamp = venv / ".ready"
    wanted = f"{PYTHON_GENERATOR} {MYPY}"
    if not (stamp.exists() and stamp.read_text() == wanted):
        made = run(sys.executable, "-m", "venv", "--clear", venv)
        assert made.returncode == 0, made.stderr
        got = run(python, "-m", "pip", "install", "-q", "--disable-pip-version-check", PYTHON_GENERATOR, MYPY)
        require(got.returncode == 0, f"pip could not install {wanted} from the registry: {got.stderr[-400:]}")
        stamp.write_text(wanted)
    return venv


@pytest.fixture(scope="session")
def node_tools():
    """node_modules with openapi-typescript, openapi-fetch, TypeScript, Spectral and Redocly, as tests/clients/ts
    pins them."""
    require(shutil.which("npm") is not None and shutil.which("node") is not None,
            "Node.js and npm are not installed: the TypeScript client and Spectral checks need them")
    folder = CLIENTS / "node"
    folder.mkdir(parents=True, exist_ok=True)
    wanted = (ROOT / "tests" / "clients" / "ts" / "package.json").read_text()
    stamp = folder / ".ready"
    if not (stamp.exists() and stamp.read_text() == wanted and (folder / "node_modules").is_dir()):
        (folder / "package.json").write_text(wanted)
        got = run("npm", "install", "--no-audit", "--no-fund", "--loglevel=error", cwd=folder)
        require(got.returncode == 0, f"npm could not install the TypeScript tools: {got.stderr[-400:]}")
        stamp.write_text(wanted)
    return folder / "node_modules"
