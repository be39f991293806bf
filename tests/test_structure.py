"""The code's shape: no import cycles, no other package's internals outside the adapters, modules of a size
a newcomer can read."""

from __future__ import annotations

import ast
import re
import sys
from pathlib import Path

import pytest

from .conftest import ROOT

PACKAGE = "anotador"
SOURCE = ROOT / PACKAGE

#: Every private name of another package the code may reach, and the one module allowed to reach it
#: (see anotador/support/adapters.py for why each stays). Anything else is a failure.
ADAPTERS = "anotador/support/adapters.py"
ALLOWED = {
    ADAPTERS: {"flask_sqlalchemy:_teardown_session", "marshmallow:_hooks"},
}

#: Names other packages expose without a leading underscore but do not document as theirs to keep (or that
#: reach below their documented level): only the adapters may use them, each with its reason there.
LOW_LEVEL = {
    "psycopg": {"error_from_result", "Transformer", "pgconn", "exec_prepared", "set_pgresult", "load_row"},
    "sqlalchemy": {"positiontup", "binds", "bind_processor"},
    "reportlab": {"__shapeData__"},
}

#: Lines a module of the package may have: a reader should take one in at a sitting.
MAX_LINES = 480


def modules() -> dict[str, Path]:
    """Dotted name → file, for every module of the package."""
    out = {}
    for path in sorted(SOURCE.rglob("*.py")):
        parts = path.relative_to(ROOT).with_suffix("").parts
        if parts[-1] == "__init__":
            parts = parts[:-1]
        out[".".join(parts)] = path
    return out


def imports(name: str, path: Path, known: dict[str, Path]) -> tuple[set[str], list[tuple[str, str]]]:
    """The package's modules that ``name`` imports, and the (module, name) pairs it imports from anywhere.

    Every import counts: at the top, inside a function, under ``if TYPE_CHECKING:``. So does the parent
    package an import runs first: ``from ..sheets.rate import x`` from outside ``sheets`` runs
    ``sheets/__init__`` (and whatever it imports) before ``rate``."""
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    direct, pairs = set(), []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            for alias in node.names:
                pairs.append((alias.name, ""))
                if alias.name in known:
                    direct.add(alias.name)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")
                base = base[:len(base) - node.level + 1]
                target = ".".join(base + ([node.module] if node.module else []))
            else:
                target = node.module or ""
            for alias in node.names:
                pairs.append((target, alias.name))
                sub = f"{target}.{alias.name}"
                if sub in known:
                    direct.add(sub)  # a module of a package: the module itself runs
                elif target in known:
                    direct.add(target)
    inside = set(direct)
    for target in direct:
        parts = target.split(".")
        for n in range(1, len(parts)):
            parent = ".".join(parts[:n])
            if parent in known and not (name == parent or name.startswith(parent + ".")):
                inside.add(parent)  # a package the importer is not part of: its __init__ runs first
    inside.discard(name)
    return inside, pairs


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan)."""
    index, low, on, stack, out, counter = {}, {}, set(), [], [], [0]

    def visit(v: str) -> None:
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on.add(v)
        for w in sorted(graph.get(v, ())):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                on.discard(w)
                component.append(w)
                if w == v:
                    break
            if len(component) > 1:
                out.append(sorted(component))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return out


#: What sits at the top of the package: its assembly. Everything else is in a package named for its layer
#: (ARCHITECTURE.md).
ASSEMBLY = {"__init__", "__main__", "app", "config", "settings", "extensions"}


def test_the_top_of_the_package_holds_only_its_assembly():
    assert {path.stem for path in SOURCE.glob("*.py")} == ASSEMBLY


def test_no_import_cycle_inside_the_package():
    known = modules()
    graph = {name: imports(name, path, known)[0] for name, path in known.items()}
    assert cycles(graph) == []


def _blueprints(known: dict[str, Path]) -> set[str]:
    """The modules that make a blueprint (``bp = Blueprint(...)``)."""
    found = set()
    for name, path in known.items():
        for node in ast.parse(path.read_text(encoding="utf-8")).body:
            if isinstance(node, ast.Assign) and isinstance(node.value, ast.Call) \
                    and getattr(node.value.func, "id", None) == "Blueprint":
                found.add(name)
    return found


def test_no_blueprint_imports_another():
    """A view module is read alone: what two resources share (a game's body, a game's chances) lives in a
    module of its own, not in one of them."""
    known = modules()
    views = _blueprints(known)
    assert len(views) >= 9  # the check sees them
    crossing = {name: sorted(imports(name, known[name], known)[0] & views) for name in views}
    assert {name: found for name, found in crossing.items() if found} == {}


def test_the_cycle_finder_finds_a_cycle():
    """The check above can fail: two modules importing each other (through a function too) are a cycle."""
    graph = {"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}
    assert cycles(graph) == [["a", "b", "c"]]
    assert cycles({"a": {"b"}, "b": set()}) == []


def test_the_import_graph_sees_every_kind_of_import(tmp_path):
    """A function's import, an annotation's (``TYPE_CHECKING``) and the package an import runs first are edges:
    ``pkg.a`` importing ``pkg.sub.x`` from a function, and ``pkg.sub.y`` naming ``pkg.a`` for annotations, is a
    cycle through ``pkg.sub``'s ``__init__`` (which imports ``y``)."""
    files = {
        "pkg/__init__.py": "",
        "pkg/a.py": "def f():\n    from .sub.x import X\n",
        "pkg/sub/__init__.py": "from .y import Y\n",
        "pkg/sub/x.py": "X = 1\n",
        "pkg/sub/y.py": "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from ..a import f\nY = 2\n",
    }
    known = {}
    for name, text in files.items():
        path = tmp_path / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
        parts = Path(name).with_suffix("").parts
        known[".".join(parts[:-1] if parts[-1] == "__init__" else parts)] = path
    graph = {name: imports(name, path, known)[0] for name, path in known.items()}
    assert graph["pkg.a"] == {"pkg.sub", "pkg.sub.x"}
    assert graph["pkg.sub.x"] == set()  # its own package's __init__ is not an edge: it is how the package loads
    assert cycles(graph) == [["pkg.a", "pkg.sub", "pkg.sub.y"]]


def _third_party(module: str) -> bool:
    top = module.split(".")[0]
    return bool(top) and top != PACKAGE and top not in sys.stdlib_module_names


def _own_names(known: dict[str, Path]) -> set[str]:
    """Every private name the package itself defines (functions, classes, attributes, keywords)."""
    names = set()
    for path in known.values():
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                names.add(node.name)
            elif isinstance(node, ast.Name):
                names.add(node.id)
            elif isinstance(node, ast.Attribute) and isinstance(node.ctx, ast.Store):
                names.add(node.attr)
            elif isinstance(node, ast.arg):
                names.add(node.arg)
    return {n for n in names if n.startswith("_")}


def _private(name: str) -> bool:
    return name.startswith("_") and not (name.startswith("__") and name.endswith("__"))


def foreign_private_names() -> dict[str, set[str]]:
    """File → the private names of other packages it imports or reaches as ``module._name``."""
    known = modules()
    own = _own_names(known)
    found: dict[str, set[str]] = {}
    for name, path in known.items():
        rel = str(path.relative_to(ROOT))
        tree = ast.parse(path.read_text(encoding="utf-8"))
        _, pairs = imports(name, path, known)
        bound = {}  # local name → the third-party module it is
        for module, imported in pairs:
            if not _third_party(module):
                continue
            parts = module.split(".") + ([imported] if imported else [])
            for part in parts:
                if _private(part):
                    found.setdefault(rel, set()).add(f"{module.split('.')[0]}:{part}")
        for node in ast.walk(tree):
            if isinstance(node, ast.Import):
                for alias in node.names:
                    if _third_party(alias.name):
                        bound[alias.asname or alias.name.split(".")[0]] = alias.name
            elif isinstance(node, ast.ImportFrom) and not node.level and _third_party(node.module or ""):
                for alias in node.names:
                    bound[alias.asname or alias.name] = f"{node.module}.{alias.name}"
        for node in ast.walk(tree):
            if isinstance(node, ast.Attribute) and _private(node.attr) and node.attr not in own:
                root = node.value
                while isinstance(root, ast.Attribute):
                    root = root.value
                owner = bound.get(root.id, "?") if isinstance(root, ast.Name) else "?"
                found.setdefault(rel, set()).add(f"{owner.split('.')[0]}:{node.attr}")
            elif isinstance(node, ast.Call) and getattr(node.func, "id", None) == "getattr" and len(node.args) >= 2:
                arg = node.args[1]
                if isinstance(arg, ast.Constant) and isinstance(arg.value, str) and _private(arg.value) \
                        and arg.value not in own:
                    found.setdefault(rel, set()).add(f"?:{arg.value}")
    return found


def test_other_packages_internals_only_in_the_adapters():
    found = foreign_private_names()
    allowed_bare = {f: {n.split(":")[1] for n in names} for f, names in ALLOWED.items()}
    unexpected = {f: sorted(n for n in names if n.split(":")[1] not in allowed_bare.get(f, set()))
                  for f, names in found.items()}
    assert {f: n for f, n in unexpected.items() if n} == {}


def test_every_allowed_internal_is_still_used():
    """An allow-list entry nothing needs any more is removed, not left to excuse a new use."""
    found = foreign_private_names()
    for path, names in ALLOWED.items():
        bare = {n.split(":")[1] for n in found.get(path, set())}
        assert {n.split(":")[1] for n in names} <= bare, path


def low_level_uses() -> dict[str, set[str]]:
    """File → the :data:`LOW_LEVEL` names it imports, reaches as an attribute or asks ``getattr`` for."""
    names = set().union(*LOW_LEVEL.values())
    found: dict[str, set[str]] = {}
    for path in modules().values():
        rel = str(path.relative_to(ROOT))
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Attribute):
                used = {node.attr}
            elif isinstance(node, ast.ImportFrom):
                used = {alias.name for alias in node.names}
            elif isinstance(node, ast.Constant) and isinstance(node.value, str):
                used = {node.value}
            else:
                continue
            for name in used & names:
                found.setdefault(rel, set()).add(name)
    return found


def test_low_level_names_only_in_the_adapters():
    found = low_level_uses()
    assert {f: sorted(n) for f, n in found.items() if f != ADAPTERS} == {}
    assert found.get(ADAPTERS, set()) == set().union(*LOW_LEVEL.values())  # each still needed, or removed


def test_the_private_name_check_sees_imports_and_attributes(tmp_path, monkeypatch):
    """The scan finds ``from pkg.mod import _x``, ``pkg._x`` and ``getattr(obj, "_x")`` in a module."""
    fake = tmp_path / PACKAGE
    fake.mkdir()
    (fake / "__init__.py").write_text("")
    (fake / "bad.py").write_text(
        "from flask_compress.flask_compress import _choose_algorithm\n"
        "from gunicorn.workers import gthread\n"
        "x = gthread._DEFER\n"
        "def f(o):\n    return getattr(o, '_secret'), o._mine\n"
        "class C:\n    _mine = 1\n")
    monkeypatch.setattr(sys.modules[__name__], "SOURCE", fake)
    monkeypatch.setattr(sys.modules[__name__], "ROOT", tmp_path)
    found = foreign_private_names()
    assert found == {f"{PACKAGE}/bad.py": {"flask_compress:_choose_algorithm", "gunicorn:_DEFER", "?:_secret"}}


#: Where a transaction of the request's session may begin or end (ARCHITECTURE.md, "Transactions"): every
#: write in ``with writing():``, a turn's unlocked path in its backend, and a failed request's end.
TRANSACTION_BOUNDS = {
    "begin_write": {"anotador/store/transactions.py"},
    "commit": {"anotador/store/transactions.py"},
    "rollback": {"anotador/store/transactions.py", "anotador/sheets/backends.py", "anotador/api/problems.py"},
}


def transaction_bounds(root: Path, source: Path) -> dict[str, set[str]]:
    """What begins or ends a transaction of the session (``begin_write()``, ``db.session.commit()`` or
    ``.rollback()``) → the files that call it."""
    found: dict[str, set[str]] = {}
    for path in sorted(source.rglob("*.py")):
        rel = str(path.relative_to(root))
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if not isinstance(node, ast.Call):
                continue
            call = node.func
            if isinstance(call, ast.Name) and call.id == "begin_write":
                found.setdefault("begin_write", set()).add(rel)
            elif isinstance(call, ast.Attribute) and call.attr in ("commit", "rollback") \
                    and isinstance(call.value, ast.Attribute) and call.value.attr == "session":
                found.setdefault(call.attr, set()).add(rel)
    return found


def test_transactions_begin_and_end_in_one_place():
    assert transaction_bounds(ROOT, SOURCE) == TRANSACTION_BOUNDS


def test_the_transaction_check_sees_a_commit_anywhere(tmp_path):
    fake = tmp_path / PACKAGE
    fake.mkdir()
    (fake / "w.py").write_text("def f(db, s):\n    begin_write()\n    db.session.commit()\n"
                               "    s.session.rollback()\n    s.rollback()\n")
    rel = f"{PACKAGE}/w.py"
    assert transaction_bounds(tmp_path, fake) == {"begin_write": {rel}, "commit": {rel}, "rollback": {rel}}


@pytest.mark.parametrize("name", sorted(modules()))
def test_each_module_is_of_a_readable_size_and_says_what_it_owns(name):
    path = modules()[name]
    text = path.read_text(encoding="utf-8")
    assert len(text.splitlines()) <= MAX_LINES, f"{path.relative_to(ROOT)}: split it by concern"
    if path.parent.name != "versions":  # migrations say what they do in their revision's message
        assert ast.get_docstring(ast.parse(text)), f"{path.relative_to(ROOT)} opens with no docstring"


#: Test modules still over the size, each with what splits it.
LONG_TESTS: dict[str, str] = {}


@pytest.mark.parametrize("path", sorted((ROOT / "tests").glob("*.py")), ids=lambda p: p.name)
def test_each_test_module_is_of_a_readable_size(path):
    lines = len(path.read_text(encoding="utf-8").splitlines())
    if path.name in LONG_TESTS:
        assert lines > MAX_LINES, f"{path.name} fits now: take it off LONG_TESTS"
    else:
        assert lines <= MAX_LINES, f"tests/{path.name}: {lines} lines, split it by concern"


#: The test tools a module may need, and the modules that need each.
TOOLS = {
    "playwright": ["test_page.py", "test_page_a11y.py", "test_page_advice.py", "test_page_chances.py",
                   "test_page_family.py", "test_page_languages.py", "test_page_live.py", "test_page_mesa.py",
                   "test_page_offline.py", "test_page_screens.py",
                   "test_page_start.py", "test_page_sunday.py", "test_page_table.py", "test_page_taps.py"],
    "pypdf": ["test_printing.py"],
    "hypothesis": ["test_hostile.py", "test_openapi.py", "test_rules_properties.py", "test_schemas.py"],
    "schemathesis": [],  # test_openapi.py asks for hypothesis first
}

#: The pytest plugins a tool brings, which an environment without the tool does not load.
PLUGINS = {"hypothesis": "hypothesispytest", "schemathesis": "schemathesis"}


def test_a_missing_test_tool_skips_the_modules_that_need_it_and_nothing_else(tmp_path):
    """Every tool hidden at once (one collection of the suite: 10 s), each module skipped for its own."""
    import os
    import subprocess

    # Each tool shadowed by a package that cannot be imported, first on the path; their plugins not loaded.
    for name in TOOLS:
        (tmp_path / name).mkdir()
        (tmp_path / name / "__init__.py").write_text(f'raise ImportError("No module named {name!r} (hidden)")\n')
    env = {k: v for k, v in os.environ.items() if k != "ANOTADOR_NO_SKIP"} | {"PYTHONPATH": str(tmp_path)}
    plugins = [arg for name in PLUGINS.values() for arg in ("-p", f"no:{name}")]
    out = subprocess.run([sys.executable, "-m", "pytest", "--collect-only", "-q", "-p", "no:cacheprovider",
                          "-p", "no:xdist", *plugins, "-rs", "tests"], cwd=ROOT, env=env, capture_output=True,
                         text=True, timeout=300)
    assert out.returncode == 0, out.stdout[-3000:] + out.stderr[-3000:]
    collected = set(re.findall(r"^tests/(\w+\.py)::", out.stdout, re.M))
    modules = {p.name for p in (ROOT / "tests").glob("test_*.py")}
    needing = {m for ms in TOOLS.values() for m in ms}
    assert collected == modules - needing, out.stdout[-3000:]
    assert "test_games_flow.py" in collected  # reads a PDF in one test only: collected all the same
    # each module skipped for the first tool it needs, and said so
    said = {tool: int(n) for n, tool in re.findall(r"SKIPPED \[(\d+)\] .*: (\w+)[\w.]* is not installed", out.stdout)}
    assert said == {tool: len(ms) for tool, ms in TOOLS.items() if ms}, out.stdout[-3000:]


#: Modules whose job is to be read at start-up (none now: granian takes its settings on its command line).
READ_AT_IMPORT: set[str] = set()


def test_settings_are_read_when_the_app_or_a_worker_starts_never_at_import():
    """No module reads the environment at import (a module imported once keeps what it read then): the factory
    reads the settings (anotador/settings.py), ``anotador serve`` the server's when it starts."""
    found = []
    for path in sorted(SOURCE.rglob("*.py")):
        name = str(path.relative_to(ROOT))
        if name in READ_AT_IMPORT:
            continue
        tree = ast.parse(path.read_text(encoding="utf-8"))
        statements = [n for n in tree.body if not isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef,
                                                                  ast.ClassDef, ast.Expr))]
        statements += [b for n in tree.body if isinstance(n, ast.ClassDef) for b in n.body
                       if not isinstance(b, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Expr))]
        for node in statements:
            text = ast.unparse(node)
            if "environ" in text or "getenv" in text:
                found.append(f"{name}:{node.lineno}: {text[:80]}")
    assert found == []
