# Sourced by scripts/serve and scripts/test: make .venv and install the
# project into it (with the extras in $EXTRAS, e.g. "[dev]"), again only
# when pyproject.toml changes or extras not installed yet are asked for.
#
# $PYTHON picks the interpreter (default: python3.11, else python3). A .venv
# made by another interpreter is made again rather than reused: a venv
# carries its interpreter's version in its paths and compiled packages.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
PY="${PYTHON:-$(command -v python3.11 || command -v python3)}"
want_version="$("$PY" -c 'import sys; print("%d.%d.%d" % sys.version_info[:3])')"
if [ -x .venv/bin/python ]; then
    have_version="$(.venv/bin/python -c 'import sys; print("%d.%d.%d" % sys.version_info[:3])' 2>/dev/null || true)"
    if [ "$have_version" != "$want_version" ]; then
        echo "anotador: .venv was made with Python ${have_version:-?}, not $want_version ($PY): making it again" >&2
        rm -rf .venv
    fi
fi
if [ ! -x .venv/bin/python ]; then
    "$PY" -m venv .venv
fi
EXTRAS="${EXTRAS:-}"
# One stamp per pyproject.toml, listing the extras installed with it: the
# service needs no extra, so scripts/serve after scripts/test installs nothing.
stamp=.venv/.installed-$(sha256sum pyproject.toml | cut -c1-16)
if ! { [ -f "$stamp" ] && grep -qxF -- "${EXTRAS:-[]}" "$stamp"; }; then
    echo "anotador: installing the project${EXTRAS:+ with $EXTRAS} into .venv (the first time takes a minute or two)..." >&2
    .venv/bin/python -m pip install --quiet --disable-pip-version-check --upgrade pip
    .venv/bin/python -m pip install --quiet --disable-pip-version-check -e ".${EXTRAS}"
    lines="$( { [ -f "$stamp" ] && cat "$stamp"; echo "[]"; echo "${EXTRAS:-[]}"; } | sort -u)"
    rm -f .venv/.installed-*   # stamps of an older pyproject.toml
    printf '%s\n' "$lines" > "$stamp"
    echo "anotador: installed." >&2
fi
export PATH="$ROOT/.venv/bin:$PATH"
