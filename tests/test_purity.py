"""The rules engine stays pure: no web, database or serialization import."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def test_rules_engine_imports_no_framework():
    code = (
        "import sys, service.rules; "
        "bad = sorted(m for m in sys.modules if m.split('.')[0] in "
        "('flask', 'werkzeug', 'sqlalchemy', 'flask_sqlalchemy', 'marshmallow', 'reportlab', 'yaml')); "
        "print(','.join(bad))"
    )
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, check=True)
    assert out.stdout.strip() == ""
