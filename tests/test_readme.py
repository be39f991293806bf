"""The README's examples, run as a reader would run them, against a live server.

Every shell example of "A short API tour" runs in order, in one shell, on
`scripts/serve` (granian, a fresh SQLite database): a command's `# → ...`
comment is its expected answer and is checked, and so is a ```json block
shown after an example. The Python and TypeScript snippets of "Calling the
API from your app" are type-checked (mypy --strict, tsc --strict) against
clients generated with the commands and the versions the README gives, then
run against the same server.

What the comments say, read back:
- `→ 201` or `→ HTTP/1.1 409 Conflict`: the status;
- `Location: ...`, `ETag: "2"` at the start of a comment line: a header of the answer;
- `{...}`: the body, as JSON where `...` means "and more" (more keys in an
  object, more items in a list), `"..."` any string and `"abc..."` a string
  that begins so; without `...` it is exact.

The status of every curl is seen through a `.curlrc` (curl's own config
file) that writes it to stderr, so the commands run exactly as printed.
"""

from __future__ import annotations

import json
import os
import re
import shutil
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from .toolkit import require
from .toolkit import PYTHON_GENERATOR, run
from .test_serving import serve

ROOT = Path(__file__).resolve().parents[1]
README = (ROOT / "README.md").read_text(encoding="utf-8")
BASE = "http://127.0.0.1:8000"
MORE = "\u2026more"  # what `...` stands for inside a JSON pattern
# Commands of the tour that do not talk to the server, and the test that runs each.
ELSEWHERE = {
    ".venv/bin/flask --app wsgi advice": "tests/test_api_advice.py (the advice command builds tables)",
    ".venv/bin/flask --app wsgi printables": "tests/test_printing.py::test_printables_are_current",
}


def section(title: str, until: str) -> tuple[int, str]:
    """The README between two headings, and the line it starts at."""
    start, end = README.index(f"\n{title}\n"), README.index(f"\n{until}\n")
    return README.count("\n", 0, start) + 2, README[start:end]


def fenced(text: str, first_line: int) -> list[tuple[int, str, str]]:
    """The fenced blocks of ``text``: (the README line of the fence, language, code)."""
    found = []
    for m in re.finditer(r"^```(\w+)\n(.*?)^```$", text, re.S | re.M):
        found.append((first_line + text.count("\n", 0, m.start()), m.group(1), m.group(2)))
    return found


@dataclass
class Command:
    line: int
    text: str
    expect: list[str] = field(default_factory=list)
    shown_json: str | None = None  # a ```json block shown after this command's example

    @property
    def id(self) -> str:
        return f"L{self.line}"


def split_commands(code: str, line: int) -> list[Command]:
    """A shell example as commands (continued lines and loops kept whole), each with its `# →` comment."""
    commands: list[Command] = []
    pending: list[str] = []
    depth, start, in_expect = 0, line, False
    for i, raw in enumerate(code.splitlines()):
        stripped = raw.strip()
        if not pending and stripped.startswith("#"):
            if stripped.startswith("# →"):
                commands[-1].expect.append(stripped[3:].strip())
                in_expect = True
            elif in_expect and stripped.startswith("#  "):
                commands[-1].expect.append(stripped[1:].strip())
            else:
                in_expect = False
            continue
        in_expect = False
        if not stripped:
            continue
        if not pending:
            start = line + 1 + i
        pending.append(raw)
        depth += len(re.findall(r"^\s*(for|while|until|if)\b", raw)) - len(re.findall(r"^\s*(done|fi)\b", raw))
        if depth == 0 and not raw.endswith("\\"):
            commands.append(Command(start, "\n".join(pending)))
            pending = []
    assert not pending, f"an unfinished command at README line {start}"
    return commands


def tour() -> list[Command]:
    first, text = section("## A short API tour", "## Calling the API from your app")
    commands: list[Command] = []
    for line, lang, code in fenced(text, first):
        if lang == "sh":
            commands += [c for c in split_commands(code, line) if c.text.split("  #")[0].strip() not in ELSEWHERE]
        elif lang == "json":
            commands[-1].shown_json = code
    return commands


TOUR = tour()


# -- JSON with ellipses ---------------------------------------------------------------

def pattern(text: str):
    """Parse JSON where a bare `...` means "and more" (see the module's docstring)."""
    out, stack, i, in_string = [], [], 0, False
    while i < len(text):
        ch = text[i]
        if in_string:
            out.append(ch)
            if ch == "\\":
                out.append(text[i + 1])
                i += 1
            elif ch == '"':
                in_string = False
        elif ch == '"':
            in_string = True
            out.append(ch)
        elif text.startswith("...", i):
            out.append(f'"{MORE}": 0' if stack and stack[-1] == "{" else f'"{MORE}"')
            i += 2
        else:
            if ch in "{[":
                stack.append(ch)
            elif ch in "}]":
                stack.pop()
            out.append(ch)
        i += 1
    return json.loads("".join(out))


def mismatches(want, got, where="$") -> list[str]:
    if isinstance(want, dict):
        if not isinstance(got, dict):
            return [f"{where}: wanted an object, got {got!r}"]
        found = []
        keys = [k for k in want if k != MORE]
        if MORE not in want and set(got) != set(keys):
            found.append(f"{where}: keys {sorted(got)}, wanted exactly {sorted(keys)}")
        for k in keys:
            found += [f"{where}.{k}: missing"] if k not in got else mismatches(want[k], got[k], f"{where}.{k}")
        return found
    if isinstance(want, list):
        if not isinstance(got, list):
            return [f"{where}: wanted a list, got {got!r}"]
        items, more = [w for w in want if w != MORE], MORE in want
        if len(got) < len(items) or (not more and len(got) != len(items)):
            return [f"{where}: {len(got)} items, wanted {'at least ' if more else ''}{len(items)}"]
        return [m for n, w in enumerate(items) for m in mismatches(w, got[n], f"{where}[{n}]")]
    if isinstance(want, str) and want.endswith("..."):
        ok = isinstance(got, str) and got.startswith(want[:-3])
        return [] if ok else [f"{where}: {got!r} does not begin with {want[:-3]!r}"]
    if type(want) is not type(got) or want != got:
        return [f"{where}: {got!r}, wanted {want!r}"]
    return []


def test_the_pattern_reader_means_what_the_docstring_says():
    assert pattern('{..., "a": [1, ...], "b": "x..."}') == {MORE: 0, "a": [1, MORE], "b": "x..."}
    assert mismatches(pattern('{"a": [1, ...], ...}'), {"a": [1, 2], "z": 0}) == []
    assert mismatches(pattern('{"a": [1, 2]}'), {"a": [1, 2], "z": 0})  # exact without ...
    assert mismatches(pattern('{"a": [1, 2]}'), {"a": [1]})
    assert mismatches(pattern('{"a": "Seats ..."}'), {"a": "Seats 0, 1"}) == []
    assert mismatches(pattern('{"a": "Seats ..."}'), {"a": "seats"})
    assert mismatches(pattern('{"a": "..."}'), {"a": 3})
    assert mismatches(pattern('{"a": 1}'), {"a": 1.0}) and mismatches(pattern('{"a": true}'), {"a": 1})


# -- running the tour -------------------------------------------------------------------

@dataclass
class Ran:
    statuses: list[int]
    rc: int
    out: str
    err: str


@pytest.fixture(scope="module")
def live(tmp_path_factory):
    """scripts/serve on a fresh SQLite database and solver folder: (its base URL, its port)."""
    folder = tmp_path_factory.mktemp("readme-server")
    with serve(folder, env={"ANOTADOR_SOLVER_DIR": str(folder / "solver")}) as (_, port):
        yield f"http://127.0.0.1:{port}"


@pytest.fixture(scope="module")
def ran_tour(live, tmp_path_factory) -> tuple[dict[str, Ran], dict[str, str], Path]:
    """Every command of the tour, in order, in one bash: what each printed, its statuses, its exit code."""
    require(shutil.which("curl") is not None, "curl is not installed: the README's examples use it")
    folder = tmp_path_factory.mktemp("readme")
    (folder / ".curlrc").write_text('write-out = "%{stderr}@@status %{http_code}\\n"\n')
    lines = ["cd " + json.dumps(str(folder))]
    for n, c in enumerate(TOUR):
        lines += [f"printf '\\n@@cmd {n}\\n'; printf '@@cmd {n}\\n' >&2",
                  c.text.replace(BASE, live),
                  f"printf '@@rc {n} %d\\n' $? >&2"]
    lines.append("printf '\\n@@var GAME %s\\n@@var TIE %s\\n' \"$GAME\" \"$TIE\"")
    script = folder / "tour.sh"
    script.write_text("\n".join(lines) + "\n")
    env = {k: v for k, v in os.environ.items() if not k.startswith("CURL")}
    done = run("bash", script, env={**env, "CURL_HOME": str(folder)}, cwd=folder, timeout=300)
    outs = re.split(r"\n@@cmd (\d+)\n", done.stdout)
    errs = re.split(r"@@cmd (\d+)\n", done.stderr)
    variables = dict(re.findall(r"@@var (\w+) (\S*)", outs[-1]))
    outs[-1] = outs[-1].split("\n@@var ")[0]
    results = {}
    for (n, out), (m, err) in zip(zip(outs[1::2], outs[2::2]), zip(errs[1::2], errs[2::2])):
        assert n == m
        c = TOUR[int(n)]
        results[c.id] = Ran([int(s) for s in re.findall(r"@@status (\d+)", err)],
                            int(re.search(r"@@rc \d+ (\d+)", err).group(1)), out, err)
    assert len(results) == len(TOUR), done.stdout[-2000:] + done.stderr[-2000:]
    return results, variables, folder


def answer(c: Command, got: Ran, folder: Path) -> tuple[dict[str, str], str]:
    """The headers (with `curl -i`) and the body a command printed, or wrote to the file it redirects to."""
    out = got.out
    redirected = re.search(r">\s*(\S+)\s*$", c.text)
    if redirected and redirected.group(1) != "/dev/null":
        out = (folder / redirected.group(1)).read_text()
    headers: dict[str, str] = {}
    if re.search(r"\bcurl -i\b", c.text):
        head, _, out = out.replace("\r\n", "\n").partition("\n\n")
        for line in head.splitlines()[1:]:
            name, _, value = line.partition(":")
            headers[name.strip().lower()] = value.strip()
        headers[":status-line"] = head.splitlines()[0]
    return headers, out.strip()


@pytest.mark.parametrize("command", TOUR, ids=lambda c: c.id)
def test_each_example_of_the_tour_answers_as_the_readme_says(command, ran_tour, live):
    results, variables, folder = ran_tour
    got = results[command.id]
    assert got.rc == 0, f"README line {command.line} exited {got.rc}: {got.err[-500:]}"
    expect = " ".join(command.expect).replace("$GAME", variables["GAME"]).replace(BASE, live)
    status = re.match(r"(?:HTTP/1\.1 )?(\d{3})\b", expect)
    if status:
        assert got.statuses[-1:] == [int(status.group(1))], f"README line {command.line}: {got.statuses}"
    else:  # nothing said: every answer it had is a success
        assert all(s < 400 for s in got.statuses), f"README line {command.line}: {got.statuses}"
    headers, body = answer(command, got, folder)
    if expect.startswith("HTTP/1.1"):
        assert headers[":status-line"] == re.match(r"HTTP/1\.1 \d{3}( [A-Za-z ]*[A-Za-z])?", command.expect[0]).group(0)
    for said in command.expect:
        header = re.match(r"([A-Z][A-Za-z-]+): (\S+)", said)
        if header and not said.startswith("HTTP/"):
            value = header.group(2).replace("$GAME", variables["GAME"])
            assert headers.get(header.group(1).lower()) == value, f"README line {command.line}: {headers}"
    if "{" in expect:
        fragment = expect[expect.index("{"):expect.rindex("}") + 1]
        assert body, f"README line {command.line} printed nothing"
        found = mismatches(pattern(fragment), json.loads(body))
        assert found == [], f"README line {command.line}: {found}"
    if command.shown_json:
        found = mismatches(pattern(command.shown_json), json.loads(body))
        assert found == [], f"the JSON after README line {command.line}: {found}"


def test_the_tour_covers_every_example_between_its_headings():
    first, text = section("## A short API tour", "## Calling the API from your app")
    every = [c for line, lang, code in fenced(text, first) if lang == "sh" for c in split_commands(code, line)]
    skipped = {c.text.split("  #")[0].strip() for c in every} - {c.text.split("  #")[0].strip() for c in TOUR}
    assert skipped == set(ELSEWHERE)
    assert len(TOUR) >= 20 and sum(bool(c.expect or c.shown_json) for c in TOUR) >= 12


# -- the client snippets ---------------------------------------------------------------

def clients_section() -> list[tuple[int, str, str]]:
    first, text = section("## Calling the API from your app", "### Versions and deprecation")
    return fenced(text, first)


def snippet(lang: str) -> str:
    (code,) = [code for _, kind, code in clients_section() if kind == lang]
    return code


def shell_lines(starting: str) -> list[str]:
    return [line for _, kind, code in clients_section() if kind == "sh"
            for line in code.replace("\\\n", " ").splitlines() if line.startswith(starting)]


def promised(code: str) -> str:
    """What the snippet's last line says it prints (its `→` comment)."""
    return code.strip().splitlines()[-1].split("→", 1)[1].strip()


def test_the_readme_pins_the_versions_the_tests_use():
    (pip,) = shell_lines("pip install")
    assert pip.split()[-1] == PYTHON_GENERATOR
    pinned = json.loads((ROOT / "tests" / "clients" / "ts" / "package.json").read_text())["devDependencies"]
    npm = [word for line in shell_lines("npm install") for word in line.split("#")[0].split()[2:]
           if not word.startswith("-")]
    assert npm and {w.rsplit("@", 1)[0]: w.rsplit("@", 1)[1] for w in npm} == \
        {k: pinned[k] for k in ("openapi-fetch", "openapi-typescript", "typescript")}


def test_the_python_snippet_type_checks_strictly_and_runs(python_tools, live, tmp_path):
    # the generator, as the README runs it, from a folder laid out as the checkout
    (tmp_path / "clients").mkdir()
    shutil.copy(ROOT / "openapi.yaml", tmp_path / "openapi.yaml")
    shutil.copy(ROOT / "clients" / "openapi-python-client.yaml", tmp_path / "clients")
    (generate,) = shell_lines("openapi-python-client generate")
    args = generate.split("#")[0].split()
    made = run(python_tools / "bin" / args[0], *args[1:], cwd=tmp_path)
    assert made.returncode == 0 and (tmp_path / "anotador_client").is_dir(), made.stdout + made.stderr
    code = snippet("python")
    (tmp_path / "snippet.py").write_text(code.replace(BASE, live))
    env = {k: v for k, v in os.environ.items() if k != "VIRTUAL_ENV"}
    checked = run(python_tools / "bin" / "python", "-m", "mypy", "--strict", "--no-incremental", "snippet.py",
                  cwd=tmp_path, env=env)
    assert checked.returncode == 0, checked.stdout + checked.stderr
    ran = run(python_tools / "bin" / "python", "snippet.py", cwd=tmp_path, env=env, timeout=60)
    assert ran.returncode == 0, ran.stdout + ran.stderr
    assert ran.stdout.strip() == promised(code)


def test_the_typescript_snippet_type_checks_strictly_and_runs(node_tools, live, tmp_path):
    shutil.copy(ROOT / "openapi.yaml", tmp_path / "openapi.yaml")
    (tmp_path / "package.json").write_text('{"private": true}\n')  # as npm install leaves it: CommonJS
    (tmp_path / "node_modules").symlink_to(node_tools)
    for line in shell_lines("npm pkg"):  # the README's own steps make it an ES module project
        done = run(*line.split("#")[0].split(), cwd=tmp_path)
        assert done.returncode == 0, done.stdout + done.stderr
    assert json.loads((tmp_path / "package.json").read_text())["type"] == "module"
    (generate,) = shell_lines("npx openapi-typescript")
    made = run(*generate.split("#")[0].split(), cwd=tmp_path)  # npx finds the pinned tool in node_modules
    assert made.returncode == 0 and (tmp_path / "schema.d.ts").exists(), made.stdout + made.stderr
    code = snippet("ts")
    (tmp_path / "snippet.ts").write_text(code.replace(BASE, live))
    config = json.loads((ROOT / "tests" / "clients" / "ts" / "tsconfig.json").read_text())
    assert config["compilerOptions"]["strict"] is True
    config["files"] = ["snippet.ts"]
    (tmp_path / "tsconfig.json").write_text(json.dumps(config))
    checked = run(node_tools / ".bin" / "tsc", "-p", tmp_path, cwd=tmp_path)
    assert checked.returncode == 0, checked.stdout + checked.stderr
    ran = run("node", tmp_path / "out" / "snippet.js", cwd=tmp_path, timeout=60)
    assert ran.returncode == 0, ran.stdout + ran.stderr
    assert ran.stdout.strip() == promised(code)


# Every other shell example, and the test that runs what it shows (a new example needs a home here).
RUN_BY = {
    "scripts/serve    #": ("tests/test_serving.py", 'SERVE = ROOT / "scripts" / "serve"'),
    "python -m pip install build": ("tests/test_package.py", '"-m", "build"'),
    "scripts/serve --lan": ("tests/test_serving.py", 'serve(tmp_path, "--lan")'),
    "apt-get install nginx postgresql": ("tests/test_deploy_files.py", "systemd-analyze"),
    ".venv/bin/flask --app wsgi purge": ("tests/test_operations.py", 'args=["purge", "--dry-run"]'),
    ".venv/bin/flask --app wsgi backup /": ("tests/test_operations.py", 'args=["restore"'),
    ".venv/bin/flask --app wsgi backup --into": ("tests/test_operations.py", '"--into", str(folder), "--keep"'),
    "pg_dump --format=custom": ("tests/test_operations.py", "pg_restore"),
    # the suite's live servers (tests/test_live_server.py, test_live_deploy.py, test_page_live.py) start so
    ".venv/bin/pybabel init": ("tests/test_locales.py", 'with_name("pybabel")'),
    "granian --interface asgi --factory anotador.ops.asgi:create": ("bench/_http.py", "from anotador.ops.serving import command"),
}
# Examples no test runs, and why.
NOT_RUN = {".venv/bin/python bench/score.py": "the benchmarks take minutes each and print ratios for a person to read"}


def test_every_other_shell_example_has_a_test_that_runs_it():
    tour_start, tour = section("## A short API tour", "### Versions and deprecation")
    others = [code for line, lang, code in fenced(README, 1) if lang == "sh" and code not in tour]
    homes = []
    for code in others:
        first = [line for line in code.splitlines() if line.strip() and not line.startswith("#")][0]
        found = [key for key in (*RUN_BY, *NOT_RUN) if first.startswith(key)]
        assert len(found) == 1, f"no test named for the README example beginning {first!r}"
        homes += found
    assert sorted(homes) == sorted([*RUN_BY, *NOT_RUN])
    for path, evidence in RUN_BY.values():
        assert evidence in (ROOT / path).read_text(), (path, evidence)
