"""The advisor's folder within its disk budget (``SOLVER_DISK_BYTES``): a build starts only once the files there,
the builds under way at their most and its own fit; the house rules' files used least lately make room, the
built-in variants' never do; an outcomes build never passes the bytes a state the budget counts on."""

from __future__ import annotations

import os
import subprocess
import time
from pathlib import Path

import pytest

from anotador.advisor.builds import FolderFull, Spawned, TableBuilding
from anotador.advisor.tables import Tables
from anotador.rules import build_rules, find_variant
from anotador.solver import folder as store
from anotador.solver.build import OUTCOMES
from anotador.solver.folder import key_of, table_path
from anotador.solver.sampled import BYTES_PER_STATE, OutcomesTooLarge, outcomes_bytes, write_outcomes

from .conftest import built_in_run_outcomes, solved
from .dbkit import migrated_app

MB = 1 << 20


def house(n: int) -> dict:
    return {"base": "generala", "served_bonus": n % 100, "points": {"full": 31 + n // 100}}


def fill(folder: Path, key: str, size: int, age: float, suffix: str = "") -> Path:
    """A file of ``size`` bytes in the folder, last used ``age`` seconds ago (sparse: it costs no disk here)."""
    path = Path(table_path(str(folder), key + suffix))
    with open(path, "wb") as f:
        f.truncate(size)
    os.utime(path, (time.time() - age, time.time() - age))
    return path


def test_a_build_removes_the_house_rules_files_used_least_lately_until_it_fits(tmp_path):
    tables = Tables(str(tmp_path), ahead=False, disk=100 * MB)
    builtin = key_of(find_variant("yahtzee").rules())
    kept_builtin = [fill(tmp_path, builtin, 30 * MB, 900), fill(tmp_path, builtin, 20 * MB, 900, OUTCOMES)]
    rates = tmp_path / store.RATES
    rates.write_text('{"startup": 0.5}')
    os.utime(rates, (0, 0))  # older than anything: still not a rule set's file
    old = [fill(tmp_path, f"{n:024x}", 10 * MB, 600 - n) for n in range(3)]  # 600, 599, 598 s ago
    old_outcomes = fill(tmp_path, f"{0:024x}", 10 * MB, 590, OUTCOMES)
    newer = [fill(tmp_path, f"{n:024x}", 10 * MB, 10) for n in range(3, 5)]
    # 50 built-in + 60 house = 110 MB: a new table (at most 64 KB + 8 B a state) needs 11 MB freed, the oldest first
    with pytest.raises(TableBuilding):
        tables.get(build_rules(house(1)), "client")
    try:
        assert all(p.exists() for p in kept_builtin) and rates.exists()
        assert not old[0].exists() and not old[1].exists()  # 20 MB, the two used least lately
        assert old[2].exists() and old_outcomes.exists() and all(p.exists() for p in newer)
    finally:
        for spawned in tables.builds.values():
            spawned.process.kill()
            spawned.process.wait()


def test_builds_under_way_count_at_their_most_and_hold_the_room(tmp_path):
    """An outcomes build under way counts twice its bound (records, then the file they are copied into): a
    new build that does not fit beside it waits for it (503, Retry-After) and removes nothing for it."""
    rules = find_variant("yahtzee").rules()
    states = store.states_of(rules)
    need = store.table_bytes(store.states_of(build_rules(house(2))))
    budget = 2 * outcomes_bytes(states) + need + 5 * MB
    tables = Tables(str(tmp_path), builds=10, ahead=False, disk=budget)
    kept = fill(tmp_path, f"{7:024x}", 4 * MB, 100)
    sleeper = subprocess.Popen(["sleep", "60"])
    key = key_of(rules) + OUTCOMES
    tables.builds[key] = Spawned(sleeper, store.Build(key, time.time(), states, "5d1b" + OUTCOMES, "c", True, True,
                                                      time.time() + 3600))
    try:
        tables.get(build_rules(house(2)), "client")  # fits beside it: 4 MB + the build + the new one
    except TableBuilding:
        pass
    assert kept.exists()
    fill(tmp_path, f"{8:024x}", 2 * MB, 0)  # now the house files pass the budget left: the oldest goes first
    with pytest.raises(TableBuilding):
        tables.get(build_rules(house(3)), "other client")
    assert not kept.exists()
    try:
        big = Tables(str(tmp_path), builds=10, ahead=False, disk=2 * outcomes_bytes(states))
        big.builds = tables.builds
        with pytest.raises(TableBuilding) as waited:  # no room while it runs, whatever is removed
            big.get(build_rules(house(4)), "a third client")
        assert waited.value.retry_after >= 1
    finally:
        for spawned in tables.builds.values():
            spawned.process.kill()
            spawned.process.wait()


def test_a_budget_the_built_in_files_fill_is_a_clear_503(tmp_path):
    folder = tmp_path / "t"
    folder.mkdir()
    builtin = key_of(find_variant("yatzy").rules())
    fill(folder, builtin, 60 * MB, 10, OUTCOMES)
    app = migrated_app(f"sqlite:///{tmp_path / 'a.sqlite'}", SOLVER_DIR=str(folder), SOLVER_DISK_BYTES=50 * MB)
    tables = app.extensions["anotador.tables"]
    with pytest.raises(FolderFull):
        tables.get(build_rules(house(5)), "client")
    r = app.test_client().post("/api/v1/advice", json={"rules": house(5), "dice": [1, 2, 3, 4, 5], "roll": 1})
    assert r.status_code == 503 and r.mimetype == "application/problem+json"
    assert r.get_json()["type"].endswith("advisor-folder-full") and int(r.headers["Retry-After"]) >= 60
    assert "built-in" in r.get_json()["detail"]
    assert tables.builds == {}  # nothing started
    # the built-in variants' own advice is there as ever once built: the budget is about house rules
    assert (folder / f"{builtin}{OUTCOMES}.table").exists()


def test_an_outcomes_build_stops_at_the_bytes_a_state_the_budget_counts_on(tmp_path, monkeypatch):
    from anotador.solver import sampled

    solver, V = solved(find_variant("yacht").rules())
    path = tmp_path / "yacht.outcomes.table"
    write_outcomes(str(path), solver, V)
    assert path.stat().st_size <= outcomes_bytes(solver.space.size)
    monkeypatch.setattr(sampled, "BYTES_PER_STATE", path.stat().st_size // solver.space.size - 40)
    again = tmp_path / "again.outcomes.table"
    with pytest.raises(OutcomesTooLarge):
        write_outcomes(str(again), solver, V)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["yacht.outcomes.table"]  # nothing half-written left


@pytest.mark.slow
def test_yahtzee_outcomes_keep_within_the_bound():
    path = built_in_run_outcomes("yahtzee")
    states = store.states_of(find_variant("yahtzee").rules())
    assert os.path.getsize(path) <= outcomes_bytes(states)
    assert os.path.getsize(path) > outcomes_bytes(states) * 0.6  # the bound is near what a file takes
    assert BYTES_PER_STATE >= 600
