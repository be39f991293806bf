"""Build tables in a process of their own.

``python -m anotador.solver.build RULES_JSON PATH [CLIENT GAME] SPAWNED`` builds one
table (SPAWNED: when the server started the process, for its start-up time); ``python -m anotador.solver.build --ahead FOLDER`` builds every
built-in variant's table that is missing, smallest first, then the Yahtzee family's outcomes (``--ahead-tables``: the tables only);
``python -m anotador.solver.build --outcomes RULES_JSON PATH SPAWNED`` follows
every state's turn of the rule set whose table is at PATH into its outcomes
file (:mod:`.sampled`: the Yahtzee family's chances before its last rounds);
``python -m anotador.solver.build --openings FOLDER`` prints what
``anotador/solver/openings.json`` ships (a release's step when a rule or the
solver changes: tests/test_sampled.py says when).

The web server starts these and keeps answering: a build holds no lock a
request waits for, and its work (seconds of numpy) runs on its own core at
a lower priority. A build takes ``PATH.lock`` (:mod:`.folder`) for its
whole run, so two processes never build the same table, writes ``PATH``
whole (a temporary file, then a rename), and removes the lock when it
ends. A build somebody asked for stops, within a second, once nobody has
asked for it since the Retry-After they were given (the lock's mtime) —
or at once when a build that matters more needs its place. Built-in tables
are built for everybody and always run to the end.
"""

from __future__ import annotations

import json
import os
import signal
import sys
import threading
import time

from . import folder as store

#: Exit codes: built (or already there), another process builds it, nobody wanted it any more.
BUILT, BUSY, ABANDONED = 0, 3, 4
#: An outcomes file's key is its table's and this (:mod:`.sampled`).
OUTCOMES = ".outcomes"


def kind_of(rules) -> str:
    """The kind of game, for the build rate: the number of dice and boxes a turn."""
    return f"{rules.dice}d{rules.boxes_per_turn}b"


def build(spec: dict, path: str, client: str | None = None, game: bool = False, builtin: bool = True,
          spawned: float | None = None) -> int:
    """Build the table of the rule set ``spec`` into ``path``: :data:`BUILT` or :data:`BUSY`.

    A build that is not ``builtin`` watches its lock's mtime and exits the
    process with :data:`ABANDONED` once it has passed.
    """
    from ..rules import build_rules
    from .solve import Solver

    if os.path.exists(path):
        return BUILT
    rules = build_rules(spec)

    def make(report) -> None:
        _save(Solver(rules).build(progress=report), path, rules)

    return _locked(path, rules, kind_of(rules), make, client, game, builtin, spawned)


def outcomes_path(path: str) -> str:
    """The outcomes file (:mod:`.sampled`) of the table at ``path``: a key of its own in the folder, so its
    lock, progress and pruning are a table's."""
    return path[:-len(store.TABLE)] + OUTCOMES + store.TABLE


def build_outcomes(spec: dict, path: str, spawned: float | None = None, client: str | None = None) -> int:
    """Follow every state's turn of the rule set ``spec``, whose table is built at ``path``, into its outcomes
    file (:func:`outcomes_path`): :data:`BUILT` or :data:`BUSY`. Runs to its end once started: a game asked."""
    from ..rules import build_rules
    from .sampled import write_outcomes
    from .solve import Solver

    out = outcomes_path(path)
    if os.path.exists(out):
        return BUILT
    rules = build_rules(spec)

    def make(report) -> None:
        write_outcomes(out, Solver(rules), store.read_table(path, rules), progress=report)

    return _locked(out, rules, outcomes_kind(rules), make, client, True, True, spawned)


def _locked(path: str, rules, kind: str, make, client: str | None, game: bool, builtin: bool,
            spawned: float | None) -> int:
    """Make the file at ``path`` (``make(report)``, ``report`` taking the states done) under its lock, its
    progress written as it goes and its rate recorded; :data:`BUSY` if another process holds the lock."""
    os.makedirs(os.path.dirname(path) or ".", exist_ok=True)
    states = store.states_of(rules)
    folder, lock_path = os.path.dirname(path) or ".", path[:-len(store.TABLE)] + store.LOCK
    computing = time.time()
    started = min(spawned or computing, computing)
    # a build that is not built-in is wanted for as long as it should take, and stops when nobody wants it
    until = None if builtin else started + store.seconds_left(folder, kind, states) + store.GRACE_SECONDS
    fd = store.take(lock_path, {"pid": os.getpid(), "started": started, "computing": computing, "states": states,
                                "kind": kind, "client": client, "game": game, "builtin": builtin}, until)
    if fd is None:
        return BUSY
    progress_path = path[:-len(store.TABLE)] + store.PROGRESS
    progress = os.open(progress_path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
    try:
        if os.path.exists(path):  # built by another process between the look and the lock
            return BUILT
        if spawned is not None or not builtin:  # a builder process of its own: stopped, it cleans up
            signal.signal(signal.SIGTERM, _abandoned)
        if not builtin:
            threading.Thread(target=_watch, args=(fd,), daemon=True).start()
        last = [0.0]

        def report(done: int) -> None:
            if time.monotonic() - last[0] >= 0.5:
                last[0] = time.monotonic()
                store.write_progress(progress, done)

        make(report)
        if spawned is not None:  # a build in a process of its own: its start-up is a request's wait too
            store.record_rate(folder, kind, states, computing - started, time.time() - computing)
    finally:
        os.close(progress)
        try:
            os.remove(progress_path)
        except OSError:
            pass
        store.release(fd, lock_path)
    return BUILT


def outcomes_kind(rules) -> str:
    """The kind of an outcomes build, for its rate: slower a state than a table's."""
    return kind_of(rules) + OUTCOMES


def _abandoned(signum, frame) -> None:
    raise SystemExit(ABANDONED)  # the finally clauses above remove the lock and the progress


def _save(values, path: str, rules) -> None:
    tmp = f"{path}.{os.getpid()}.tmp"
    try:
        with open(tmp, "wb") as f:
            store.write_table(f, values, rules)
            f.flush()
            os.fsync(f.fileno())
        # the empty sheet's expected score, for listings that must not load whole tables
        with open(tmp + ".json", "w") as f:
            json.dump({"expected_score": float(values[0]), "states": int(values.shape[0])}, f)
        os.replace(tmp + ".json", path[:-len(store.TABLE)] + ".json")
        os.replace(tmp, path)
    finally:  # stopped halfway (a full disk, SIGTERM): nothing half-written stays
        for left in (tmp, tmp + ".json"):
            try:
                os.remove(left)
            except OSError:
                pass


def _watch(fd: int) -> None:
    """Stop the process (SIGTERM to itself) once nobody waits for this table: the lock's mtime passed."""
    while True:
        time.sleep(0.25)
        try:
            wanted_until = os.fstat(fd).st_mtime
        except OSError:
            return
        if wanted_until < time.time():
            os.kill(os.getpid(), signal.SIGTERM)
            return


def builtin_rules() -> list:
    """Every built-in variant's rule set, the quickest to build first: the order they are built ahead in."""
    from ..rules import VARIANTS

    return sorted((variant.rules() for variant in VARIANTS.values()), key=store.states_of)


def ahead_files(folder: str, outcomes: bool = True) -> list[tuple[dict, str, str | None]]:
    """What is built ahead for the built-in variants, in order: (rule set, path, the table it follows or None)
    of every table, then (``outcomes``) of the outcomes of those whose early chances are sampled (the Yahtzee
    family: a new game's chances must not wait the minute a first build takes)."""
    from .sampled import refusal
    from .chances import exact_for

    rules = builtin_rules()
    tables = [(r.spec(), store.table_path(folder, store.key_of(r)), None) for r in rules]
    followed = [(spec, outcomes_path(table), table) for (spec, table, _), r in zip(tables, rules)
                if outcomes and exact_for(r) is not None and refusal(r) is None]
    return tables + followed


def ahead(folder: str, lock_fd: int | None = None, outcomes: bool = True) -> int:
    """Build every missing built-in table, then the built-in outcomes, one after another; :data:`BUSY` if
    another process is at it."""
    os.makedirs(folder, exist_ok=True)
    lock_path = os.path.join(folder, store.AHEAD)
    fd = lock_fd if lock_fd is not None else store.take(lock_path)
    if fd is None:
        return BUSY
    try:
        plan = ahead_files(folder, outcomes)
        for attempt in range(3):  # a file another process was building: looked at again at the end
            left = [(spec, path, table) for spec, path, table in plan if not os.path.exists(path)]
            if not left:
                break
            store.write(fd, {"pid": os.getpid(),
                             "plan": [os.path.basename(path)[:-len(store.TABLE)] for _, path, _ in left]})
            busy = [build(spec, path) if table is None else _ahead_outcomes(folder, spec, table)
                    for spec, path, table in left]
            if BUSY in busy:
                time.sleep(2 * attempt + 1)
    finally:
        store.release(fd, lock_path)
    return BUILT


def _ahead_outcomes(folder: str, spec: dict, table: str) -> int:
    """Build the outcomes of the table at ``table`` once it is there, in the folder's one place for an outcomes
    build (:data:`~.folder.OUTCOMES_SLOT`); :data:`BUSY` when the table or the place is not ready yet."""
    if not os.path.exists(table):
        return BUSY
    slot_path = os.path.join(folder, store.OUTCOMES_SLOT)
    slot = store.take(slot_path)
    if slot is None:
        return BUSY
    try:
        return build_outcomes(spec, table)
    finally:
        store.release(slot, slot_path)


def openings(folder: str) -> str:
    """The built-in variants' opening samples (:data:`.sampled.OPENINGS`), from their tables and outcomes built in
    ``folder`` first (a few minutes of one core the first time)."""
    from ..rules import build_rules
    from .late import LateOutlook
    from .sampled import SampledOutlook, openings as samples, read_outcomes
    from .solve import Solver

    ahead(folder)
    found = []
    for spec, path, table in ahead_files(folder):
        if table is not None:
            rules = build_rules(spec)
            values = store.read_table(table, rules)
            late = LateOutlook(Solver(rules), values)
            found.append(SampledOutlook(late, read_outcomes(path, late.solver, late.V)))
    return json.dumps(samples(found), indent=1, sort_keys=True)


def main(argv: list[str]) -> int:
    try:
        os.nice(10)  # the server's requests come first
    except OSError:  # pragma: no cover - not allowed here: build at the same priority
        pass
    if len(argv) in (2, 3) and argv[0] in ("--ahead", "--ahead-tables"):  # FOLDER [LOCK FD]
        return ahead(argv[1], int(argv[2]) if len(argv) == 3 else None, outcomes=argv[0] == "--ahead")
    if len(argv) == 2 and argv[0] == "--openings":  # FOLDER: sampled.OPENINGS's text, on stdout
        print(openings(argv[1]))
        return BUILT
    if len(argv) in (4, 5) and argv[0] == "--outcomes":  # RULES PATH SPAWNED [CLIENT]
        return build_outcomes(json.loads(argv[1]), argv[2], spawned=float(argv[3]),
                              client=argv[4] if len(argv) == 5 and argv[4] else None)
    if len(argv) == 3:  # RULES PATH SPAWNED: a built-in table
        return build(json.loads(argv[0]), argv[1], spawned=float(argv[2]))
    if len(argv) == 5:  # RULES PATH CLIENT GAME SPAWNED
        return build(json.loads(argv[0]), argv[1], argv[2] or None, argv[3] == "game", builtin=False,
                     spawned=float(argv[4]))
    print(__doc__, file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
