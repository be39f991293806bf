# Sourced by scripts/serve and scripts/test: make .venv and install the
# project into it (with the extras in $EXTRAS, e.g. "[dev]"), again only
# when pyproject.toml or the extras asked for change.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
PY="${PYTHON:-$(command -v python3.11 || command -v python3)}"
if [ ! -x .venv/bin/python ]; then
    "$PY" -m venv .venv
fi
EXTRAS="${EXTRAS:-}"
stamp=.venv/.installed-$( (cat pyproject.toml; echo "$EXTRAS") | sha256sum | cut -c1-16)
if [ ! -f "$stamp" ]; then
    .venv/bin/python -m pip install --quiet --upgrade pip
    .venv/bin/python -m pip install --quiet -e ".${EXTRAS}"
    touch "$stamp"
fi
export PATH="$ROOT/.venv/bin:$PATH"
