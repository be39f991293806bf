"""Builds under attack: one outcomes build at a time for the folder, charged to the address that asked; and
builds that stop halfway leave nothing behind (a failed or stopped build removes its half-written files, a
builder sent SIGTERM cleans up before it exits, and what a killed one left is removed at start)."""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from anotador.rules import find_variant
from anotador.solver import folder as store
from anotador.solver.build import ABANDONED, outcomes_path

from .conftest import ROOT, SOLVER_DIR, built_in_run_folder
from .dbkit import migrated_app


def _copy_table(variant: str, into: Path) -> str:
    """The run's table of ``variant`` copied into a folder of the test's own; its path there."""
    built_in_run_folder(variant)
    key = store.key_of(find_variant(variant).rules())
    into.mkdir(exist_ok=True)
    shutil.copy(Path(SOLVER_DIR) / (key + store.TABLE), into / (key + store.TABLE))
    return str(into / (key + store.TABLE))


def _left(folder: Path) -> list[str]:
    return sorted(p.name for p in folder.iterdir() if ".tmp" in p.name or p.name.endswith((store.LOCK,
                                                                                            store.PROGRESS)))


def test_an_outcomes_build_that_stops_halfway_removes_its_half_written_files(tmp_path):
    from anotador.solver import Solver
    from anotador.solver.sampled import write_outcomes

    rules = find_variant("yahtzee").rules()
    path = _copy_table("yahtzee", tmp_path / "solver")
    values = store.read_table(path, rules)
    seen = []

    def stop(done):  # the first batch written: stopped as SIGTERM stops a builder
        seen.append(sorted(os.listdir(tmp_path / "solver")))
        raise SystemExit(ABANDONED)

    with pytest.raises(SystemExit):
        write_outcomes(outcomes_path(path), Solver(rules), values, progress=stop)
    assert any(name.endswith(".tmp.records") for name in seen[0])  # it was writing
    assert _left(tmp_path / "solver") == []
    assert not os.path.exists(outcomes_path(path))


@pytest.mark.slow
def test_a_builder_sent_sigterm_cleans_up_before_it_exits(tmp_path):
    """The outcomes build a server spawns, stopped by SIGTERM while it writes (a server stopping, systemd's
    KillMode=mixed): it exits as abandoned and leaves no half-written file, lock or progress."""
    folder = tmp_path / "solver"
    path = _copy_table("yahtzee", folder)
    spec = json.dumps(find_variant("yahtzee").rules().spec())
    env = {**os.environ, "PYTHONPATH": str(ROOT), "OPENBLAS_NUM_THREADS": "1"}
    child = subprocess.Popen([sys.executable, "-m", "anotador.solver.build", "--outcomes", spec, path,
                              str(time.time())], env=env, stderr=subprocess.PIPE, text=True)
    try:
        deadline = time.monotonic() + 120  # a safety net: the records appear within seconds
        while not any(n.endswith(".tmp.records") for n in os.listdir(folder)):
            assert child.poll() is None, child.stderr.read()
            assert time.monotonic() < deadline, "the build never started writing"
            time.sleep(0.05)
        child.send_signal(signal.SIGTERM)
        assert child.wait(60) == ABANDONED
    finally:
        if child.poll() is None:
            child.kill()
            child.wait()
    assert _left(folder) == []
    assert not os.path.exists(outcomes_path(path))


def test_what_a_killed_builder_left_is_removed_at_start_and_what_one_writes_is_not(tmp_path):
    """SIGKILL gives a builder no chance to clean up: the app removes its old temporary files when it starts
    (any builder writes more often than that), and leaves a file being written now alone."""
    folder = tmp_path / "solver"
    folder.mkdir()
    key = store.key_of(find_variant("yahtzee").rules())
    old = [folder / f"{key}.outcomes{store.TABLE}.4242.tmp.records", folder / f"{key}{store.TABLE}.4242.tmp",
           folder / f"{key}{store.TABLE}.4242.tmp.json"]
    fresh = folder / f"{key}.outcomes{store.TABLE}.4343.tmp.records"
    for f in (*old, fresh):
        f.write_bytes(b"\0" * 1024)
    past = time.time() - 3600
    for f in old:
        os.utime(f, (past, past))
    app = migrated_app(f"sqlite:///{tmp_path}/a.sqlite", SOLVER_DIR=str(folder), SOLVER_BUILD_AHEAD=False)
    try:
        assert sorted(p.name for p in folder.iterdir()) == [fresh.name]
    finally:
        from .dbkit import dispose

        dispose(app)


def test_two_workers_asked_at_the_same_moment_start_one_outcomes_build_charged_to_the_address(tmp_path):
    """The folder runs one outcomes build at a time, its place taken before the builder starts; the build is
    the asking address's: its next house-rule table waits (429), as for a table build of its own."""
    import threading

    from anotador.advisor.tables import Tables, TooManyBuilds
    from anotador.advisor.outlooks import Outlooks, TableBuilding
    from anotador.solver.build import OUTCOMES

    folder = tmp_path / "solver"
    _copy_table("yahtzee", folder)
    rules = find_variant("yahtzee").rules()
    workers = [Outlooks(Tables(str(folder), ahead=False)) for _ in range(4)]
    start, answers = threading.Barrier(len(workers)), []

    def ask(worker, n):
        start.wait()
        try:
            worker.sampled_outlook(rules, f"203.0.113.{n}", game=True)
        except TableBuilding as exc:
            answers.append(exc.retry_after)

    threads = [threading.Thread(target=ask, args=(w, n)) for n, w in enumerate(workers)]
    try:
        for t in threads:
            t.start()
        for t in threads:
            t.join(60)
        assert len(answers) == len(workers) and all(wait >= 1 for wait in answers)
        spawned = [(n, s) for n, w in enumerate(workers) for k, s in w.tables.builds.items() if k.endswith(OUTCOMES)]
        assert len(spawned) == 1
        n, build = spawned[0]
        assert build.build.client == f"203.0.113.{n}"
        house = find_variant("yahtzee").rules(yahtzee_bonus=150)
        with pytest.raises(TooManyBuilds):
            workers[n].tables.get(house, f"203.0.113.{n}")
        assert all(k.endswith(OUTCOMES) for w in workers for k in w.tables.builds)  # no table build started
    finally:
        for w in workers:
            for s in w.tables.builds.values():
                s.process.kill()
                s.process.wait(30)


def test_the_folder_is_pruned_on_a_schedule_not_only_when_a_table_is_loaded(tmp_path, monkeypatch):
    from anotador.advisor import tables as advice
    from anotador.advisor.tables import Tables

    folder = tmp_path / "solver"
    folder.mkdir()
    left = folder / f"abc.outcomes{store.TABLE}.99.tmp.records"
    left.write_bytes(b"\0" * 64)
    past = time.time() - 3600
    os.utime(left, (past, past))
    tables = Tables(str(folder), ahead=False)
    tables._reap()  # pruned moments ago (at start): not again yet
    assert left.exists()
    monkeypatch.setattr(advice, "PRUNE_EVERY", 0)
    tables._reap()  # what every request for a table runs first
    assert not left.exists()
