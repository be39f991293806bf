"""The rules engine stays pure: no web, database or serialization import."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


import pytest


@pytest.mark.parametrize("module", ["anotador.rules", "anotador.solver", "anotador.solver.advise",
                                    "anotador.solver.build"])
def test_rules_engine_and_solver_import_no_framework(module):
    code = (
        f"import sys, {module}; "
        "bad = sorted(m for m in sys.modules if m.split('.')[0] in "
        "('flask', 'werkzeug', 'sqlalchemy', 'flask_sqlalchemy', 'marshmallow', 'reportlab', 'yaml')); "
        "print(','.join(bad))"
    )
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, check=True)
    assert out.stdout.strip() == ""


def test_the_rules_import_nothing_of_the_app_but_the_words():
    """The rules name their boxes and variants from the catalogs (anotador.locales) and import nothing else
    of the app."""
    code = ("import sys, anotador.rules; "
            "print(','.join(sorted(m for m in sys.modules if m.startswith('anotador.') and not "
            "m.startswith(('anotador.rules', 'anotador.locales')))))")
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, check=True)
    assert out.stdout.strip() == ""
