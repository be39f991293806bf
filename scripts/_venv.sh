# Sourced by scripts/serve and scripts/test: make .venv and install the
# project into it (with the extras in $EXTRAS, e.g. "[dev]"), again only
# when pyproject.toml changes or extras not installed yet are asked for.
#
# $PYTHON picks the interpreter (default: python3.11, else python3) and $VENV
# the folder (default .venv). A venv made by another interpreter is made
# again rather than reused: it carries its interpreter's version in its
# paths and compiled packages.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
PY="${PYTHON:-$(command -v python3.11 || command -v python3)}"
VENV="${VENV:-.venv}"
want_version="$("$PY" -c 'import sys; print("%d.%d.%d" % sys.version_info[:3])')"
if [ -x "$VENV/bin/python" ]; then
    have_version="$("$VENV/bin/python" -c 'import sys; print("%d.%d.%d" % sys.version_info[:3])' 2>/dev/null || true)"
    if [ "$have_version" != "$want_version" ]; then
        echo "anotador: $VENV was made with Python ${have_version:-?}, not $want_version ($PY): making it again" >&2
        rm -rf "$VENV"
    fi
fi
if [ ! -x "$VENV/bin/python" ]; then
    "$PY" -m venv "$VENV"
fi
EXTRAS="${EXTRAS:-}"
# One stamp per pyproject.toml, listing the extras installed with it: the
# dev extra holds every other (postgres, lan, metrics), so scripts/serve after
# scripts/test installs nothing.
stamp="$VENV/.installed-$(sha256sum pyproject.toml | cut -c1-16)"
if ! { [ -f "$stamp" ] && { grep -qxF -- "${EXTRAS:-[]}" "$stamp" || grep -qxF -- "[dev]" "$stamp"; }; }; then
    echo "anotador: installing the project${EXTRAS:+ with $EXTRAS} into $VENV (the first time takes a minute or two)..." >&2
    "$VENV/bin/python" -m pip install --quiet --disable-pip-version-check --upgrade pip
    "$VENV/bin/python" -m pip install --quiet --disable-pip-version-check -e ".${EXTRAS}"
    lines="$( { [ -f "$stamp" ] && cat "$stamp"; echo "[]"; echo "${EXTRAS:-[]}"; } | sort -u)"
    rm -f "$VENV"/.installed-*   # stamps of an older pyproject.toml
    printf '%s\n' "$lines" > "$stamp"
    echo "anotador: installed." >&2
fi
export PATH="$ROOT/$VENV/bin:$PATH"
