"""The Yahtzee family's chances before its last rounds (anotador.solver.sampled): every state's turn followed into a
file once, each player's final total sampled from it, the players combined exactly.

Yacht (4,096 states, its file made in a second) holds the file and the draws to the exact figures; Yahtzee's
(a minute, once per run: slow) holds the chances to the 10^6-game reference of tests/yahtzee_positions.json."""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import numpy as np
import pytest

from anotador.rules.variants import find_variant
from anotador.solver import Solver, forward
from anotador.solver.chances import Outlook, game_chances
from anotador.solver.folder import CorruptTable, NotATable, OtherTable
from anotador.solver.late import LATE_OPEN, LateOutlook
from anotador.solver.sampled import (GAMES, RECORD, SampledOutlook, alias_records, read_outcomes, sampled_for,
                                     worked_out, write_outcomes)
from .conftest import built_in_run_outcomes, solved
from .test_chances import position


@pytest.fixture(scope="module")
def yacht(tmp_path_factory):
    """Yacht's table and outcomes file: (solver, values, path, outcomes written)."""
    solver, V = solved(find_variant("yacht").rules())
    path = str(tmp_path_factory.mktemp("outcomes") / "yacht.outcomes.table")
    return solver, V, path, write_outcomes(path, solver, V)


def shares_of(records: np.ndarray) -> dict[tuple[int, int], float]:
    """The chance an alias table gives each (state after, points): a slot's cut to its own outcome, the rest to
    its alias, each slot a 1/n of the draws."""
    n, out = len(records), {}
    for r in records:
        own, other = (int(r["after"]), int(r["points"])), (int(r["alias_after"]), int(r["alias_points"]))
        out[own] = out.get(own, 0.0) + float(r["cut"]) / n
        out[other] = out.get(other, 0.0) + (1 - float(r["cut"])) / n
    return {k: v for k, v in out.items() if v > 0}


def test_an_alias_table_gives_each_outcome_its_chance_whatever_its_batch():
    rng = np.random.default_rng(5)
    found = []
    for n in (1, 2, 3, 7, 35, 72):
        chance = rng.random(n) ** 3
        found.append((np.arange(n) * 7, np.arange(n) % 5, chance / chance.sum()))
    found.append((np.arange(4), np.zeros(4, dtype=int), np.full(4, 0.25)))  # every slot its own
    found.append((np.arange(5), np.arange(5), np.array([1 - 4e-9, 1e-9, 1e-9, 1e-9, 1e-9])))  # one takes all
    sizes = np.array([len(f[0]) for f in found])
    records = alias_records(found, sizes)
    assert records.dtype == RECORD and len(records) == sizes.sum()
    at = 0
    for (after, points, chance), n in zip(found, sizes):
        mine = records[at:at + n]
        at += n
        assert ((0 <= mine["cut"]) & (mine["cut"] <= 1)).all()
        got = shares_of(mine)
        assert sorted(got) == sorted((int(a), int(p)) for a, p in zip(after, points) if p >= 0)
        for a, p, c in zip(after.tolist(), points.tolist(), chance.tolist()):
            assert got[(a, p)] == pytest.approx(c, abs=1e-7)
        alone = alias_records([(after, points, chance)], np.array([n]))
        assert alone.tobytes() == mine.tobytes()  # the same bits alone as in the batch


def test_the_file_holds_every_states_turn_as_the_policy_plays_it(yacht):
    solver, V, path, count = yacht
    outcomes = read_outcomes(path, solver, V)
    space = solver.space
    assert len(outcomes.records) == count
    seen = 0
    for closed in range(space.nb):
        mask, u, flags = space.states(closed)
        states = space.index(mask, u, flags)
        for state, (after, points, chance) in zip(states.tolist(), forward.outcomes(solver, V, mask, u, flags)):
            packed = int(outcomes.slots[state])
            first, n = packed >> 16, packed & 0xFFFF
            assert n == len(after)
            got = shares_of(outcomes.records[first:first + n])
            want = {(int(a), int(p)): float(c) for a, p, c in zip(after, points, chance)}
            assert got.keys() == want.keys()
            assert max(abs(got[k] - want[k]) for k in want) < 1e-6
            seen += n
    assert seen == count  # every record belongs to a state


def test_a_damaged_or_foreign_file_is_refused(yacht, tmp_path):
    solver, V, path, _ = yacht
    data = Path(path).read_bytes()
    damaged = tmp_path / "damaged"
    flipped = bytearray(data)
    flipped[-100] ^= 1  # a bit of the last record
    damaged.write_bytes(bytes(flipped))
    with pytest.raises(CorruptTable, match="checksums"):
        read_outcomes(str(damaged), solver, V)
    damaged.write_bytes(data[:-16])
    with pytest.raises(CorruptTable, match="bytes"):
        read_outcomes(str(damaged), solver, V)
    damaged.write_bytes(b"ANOTADOR TABLE\n" + data[20:])
    with pytest.raises(NotATable):
        read_outcomes(str(damaged), solver, V)
    generala = Solver(find_variant("generala").rules())
    with pytest.raises(OtherTable, match="key"):
        read_outcomes(path, generala, V)


@pytest.mark.parametrize("sheet", [{}, {"ones": 3, "yacht": 50, "choice": 24, "full_house": 0},
                                   {"ones": 2, "twos": 4, "threes": 9, "fours": 12, "fives": 10, "sixes": 18,
                                    "little_straight": 30}])
def test_sampled_totals_follow_the_exact_distribution(yacht, sheet):
    """Yacht's chances are exact (no section bonus): games drawn from the file land on its distribution of points
    to come, within what 40,000 games allow (a Kolmogorov-Smirnov bound at 1 in 10^4, and four standard errors
    on the mean)."""
    solver, V, path, _ = yacht
    rules = solver.rules
    sheet = rules.check_sheet(sheet)
    state = solver.space.state_of(sheet)
    exact = Outlook(solver, V)
    want = exact.remaining(exact.row_of(sheet))
    points = read_outcomes(path, solver, V).play_out(state, GAMES, np.random.default_rng(11))
    got = np.bincount(points, minlength=len(want))[:len(want)] / GAMES
    assert np.abs(np.cumsum(got) - np.cumsum(want)).max() < 2.15 / np.sqrt(GAMES)
    mean = float(want @ np.arange(len(want)))
    assert mean == pytest.approx(float(V[state]), abs=1e-9)
    assert abs(points.mean() - mean) < 4 * points.std() / np.sqrt(GAMES)


def test_the_same_sheet_gives_the_same_figures_and_late_sheets_are_exact(yacht):
    solver, V, path, _ = yacht
    rules = solver.rules
    one = SampledOutlook(LateOutlook(solver, V), read_outcomes(path, solver, V))
    two = SampledOutlook(LateOutlook(solver, V), read_outcomes(path, solver, V))
    early = [rules.check_sheet(s) for s in ({}, {"yacht": 50}, {"yacht": 0, "choice": 20})]
    rows = [one.row_of(s) for s in early]
    one.prepare(rows)
    two.prepare(rows[::-1])
    for r in rows:
        assert one.sampled(r)
        assert one.remaining(r).tobytes() == two.remaining(r).tobytes()  # whatever worker, whatever order
        assert one.remaining(r).sum() == pytest.approx(1)
        assert not one.instant_of(r).any()
    late = rules.check_sheet({b.id: 0 for b in rules.boxes[LATE_OPEN:]})
    row = one.row_of(late)
    one.prepare([row])
    assert not one.sampled(row)
    exact = Outlook(solver, V)
    assert one.remaining(row)[:exact.P] == pytest.approx(exact.remaining(exact.row_of(late)), abs=1e-12)


def test_which_rule_sets_are_sampled():
    from anotador.rules import build_rules

    family = {v: find_variant(v).rules() for v in ("yahtzee", "kniffel", "yatzy", "yacht", "generala")}
    assert [sampled_for(r) for r in family.values()] == [True, True, True, False, False]
    assert all(worked_out(r) for r in family.values())
    ties = build_rules({"base": "yahtzee", "tie_break": "most_generalas"})
    assert not sampled_for(ties) and not worked_out(ties)


# -- Yahtzee: the fixed positions, and what the build costs ------------------------------------------------------


@pytest.fixture(scope="module")
def yahtzee_sampled():
    rules = find_variant("yahtzee").rules()
    solver, V = solved(rules)
    return SampledOutlook(LateOutlook(solver, V), read_outcomes(built_in_run_outcomes("yahtzee"), solver, V))


@pytest.mark.slow
def test_the_fixed_positions_chances_are_within_a_percentage_point_of_the_reference(yahtzee_sampled):
    """Nine Yahtzee positions (early, middle and late; two, three and six players) against 10^6 games each played
    out under the policy (tests/yahtzee_positions.json): every player's chance within a percentage point, as the
    issue asks (measured: 0.3 at the most, bench/chances_yahtzee.py)."""
    data = json.loads((Path(__file__).parent / "yahtzee_positions.json").read_text())
    rules = yahtzee_sampled.late.rules
    worst = 0.0
    for p in data["positions"]:
        game = position(rules, 0, [rules.check_sheet(s) for s in p["sheets"]])
        found = [c.chance for c in game_chances(yahtzee_sampled, game)]
        assert sum(found) == pytest.approx(1, abs=1e-9)
        assert any(yahtzee_sampled.sampled(yahtzee_sampled.row_of(s)) for s in game.sheets) == \
            (p["open"] > LATE_OPEN)
        off = max(abs(a - b) for a, b in zip(found, p["chances"]))
        worst = max(worst, off)
        assert off < 0.01, (p["players"], p["open"], found, p["chances"])
    assert worst > 0  # sampled figures, not the reference's own


@pytest.mark.slow
def test_a_server_builds_the_outcomes_once_in_a_process_of_its_own(tmp_path):
    """A folder with Yahtzee's table and no outcomes: the first ask spawns their build and answers 503 with a wait
    from the folder's rate; asking again finds it running (no second build); one at a time for the folder."""
    from anotador.advisor.outlooks import Outlooks
    from anotador.advisor.tables import TableBuilding, Tables
    from anotador.solver.build import OUTCOMES
    from anotador.solver.folder import key_of, table_path

    from .conftest import SOLVER_DIR, built_in_run_folder

    built_in_run_folder("yahtzee")
    rules = find_variant("yahtzee").rules()
    key = key_of(rules)
    shutil.copy(table_path(SOLVER_DIR, key), table_path(str(tmp_path), key))
    Path(table_path(str(tmp_path), key + OUTCOMES)).write_bytes(b"ANOTADOR OUTCOMES\n{}\n")  # a broken file
    tables = Tables(str(tmp_path), ahead=False)
    outlooks = Outlooks(tables)
    with pytest.raises(TableBuilding) as first:
        outlooks.sampled_outlook(rules, "client", game=True)
    assert os.path.exists(table_path(str(tmp_path), key + OUTCOMES) + ".bad")  # set aside, built again
    assert 60 <= first.value.retry_after <= 120  # 536,448 states at the default 8,000 a second, with the margin
    spawned = tables.builds[key + OUTCOMES]
    try:
        with pytest.raises(TableBuilding):
            outlooks.sampled_outlook(rules, "client", game=True)
        assert list(tables.builds) == [key + OUTCOMES]
        kniffel = find_variant("kniffel").rules()
        built_in_run_folder("kniffel")
        shutil.copy(table_path(SOLVER_DIR, key_of(kniffel)), table_path(str(tmp_path), key_of(kniffel)))
        with pytest.raises(TableBuilding):  # another rule set waits for this one
            outlooks.sampled_outlook(kniffel, "client", game=True)
        assert list(tables.builds) == [key + OUTCOMES]
    finally:
        spawned.process.kill()
        spawned.process.wait()
    assert not os.path.exists(table_path(str(tmp_path), key + OUTCOMES))


def test_the_folder_keeps_four_outcomes_files_of_house_rules_besides_the_built_in_ones(tmp_path):
    """300 MB each for Yahtzee's house rules: the four used last stay, the built-in variants' always, and the
    tables beside them are the tables' own business."""
    import time

    from anotador.advisor.tables import OUTCOMES_KEPT, Tables
    from anotador.solver.build import OUTCOMES
    from anotador.solver.folder import key_of, table_path

    tables = Tables(str(tmp_path), ahead=False)
    builtin = key_of(find_variant("yahtzee").rules())
    house = [f"{k:024x}" for k in range(7)]
    now = time.time()
    for age, key in enumerate([builtin, *house]):
        for name in (key + OUTCOMES, key):
            path = table_path(str(tmp_path), name)
            Path(path).write_bytes(b"x")
            os.utime(path, (now - 100 + age, now - 100 + age))  # the house rules' last, the newest
    tables.prune()
    left = sorted(os.listdir(tmp_path))
    outcomes = [n for n in left if n.endswith(OUTCOMES + ".table")]
    assert OUTCOMES_KEPT == 4
    assert outcomes == sorted(f"{k}{OUTCOMES}.table" for k in [builtin, *house[-4:]])
    assert all(f"{k}.table" in left for k in [builtin, *house])  # every table stays (100 kept)


# -- the shipped openings: a new installation's first chances ----------------------------------------------------


def test_every_built_in_sampled_variant_ships_its_opening():
    """anotador/solver/openings.json holds, for each built-in rule set whose early chances are sampled, the samples
    of an empty sheet under today's rules and solver (its key is the table's): a change of either fails here until
    ``python -m anotador.solver.build --openings FOLDER`` writes the file again."""
    from anotador.rules.variants import VARIANTS
    from anotador.solver.folder import key_of
    from anotador.solver.sampled import OPENINGS, SEED

    shipped = json.loads(Path(OPENINGS).read_text())
    wanted = {key_of(v.rules()): v.id for v in VARIANTS.values() if sampled_for(v.rules())}
    assert set(wanted.values()) == {"yahtzee", "kniffel", "yatzy"}
    assert set(shipped) == set(wanted)
    for key, variant in wanted.items():
        found = shipped[key]
        assert found["variant"] == variant and found["games"] == GAMES and found["seed"] == SEED
        assert sum(found["counts"]) == GAMES and found["counts"][0] > 0 and found["counts"][-1] > 0


@pytest.mark.slow
def test_the_shipped_yahtzee_opening_is_the_outcomes_own_sample(yahtzee_sampled):
    """The same 40,000 games the outcomes draw for an empty sheet, count for count: the figures a new game reads
    while its outcomes are built are the ones it reads after."""
    from anotador.solver.sampled import OpeningOutlook

    opening = OpeningOutlook.of(yahtzee_sampled.late)
    start = yahtzee_sampled.row_of({})
    assert np.array_equal(opening.remaining(start), yahtzee_sampled.remaining(start))
    rules = yahtzee_sampled.late.rules
    for players in (2, 6, 12):
        game = position(rules, 0, [{} for _ in range(players)])
        shipped, drawn = game_chances(opening, game), game_chances(yahtzee_sampled, game)
        assert [c.chance for c in shipped] == pytest.approx([1 / players] * players, abs=1e-12)
        assert shipped == drawn


def test_a_new_yahtzee_game_has_its_chances_while_the_outcomes_are_built(tmp_path):
    """A new installation: the tables are built, the outcomes not yet (minutes of a core, once). A game's
    chances before its first turn come at once, from the shipped opening; after it, a 503 until the
    outcomes are there."""
    from anotador.solver.build import OUTCOMES
    from anotador.solver.folder import key_of, table_path

    from .conftest import SOLVER_DIR, built_in_run_folder
    from .dbkit import Table, migrated_app

    rules = find_variant("yahtzee").rules()
    key = key_of(rules)
    solver, V = built_in_run_folder("yahtzee")
    folder = tmp_path / "t"
    folder.mkdir()
    shutil.copy(table_path(SOLVER_DIR, key), table_path(str(folder), key))
    app = migrated_app(f"sqlite:///{tmp_path / 'a.sqlite'}", SOLVER_DIR=str(folder), SOLVER_BUILD_AHEAD=False)
    tables = app.extensions["anotador.tables"]
    client = app.test_client()
    try:
        for players in (2, 6, 12):
            r = client.post("/api/v1/games", json={"variant": "yahtzee",
                                                   "players": [f"Jugador {i + 1}" for i in range(players)]})
            assert r.status_code == 201
            table = Table(client, r.get_json())
            r = client.get(table.url("/chances"))
            assert r.status_code == 200, r.get_json()
            body = r.get_json()
            assert body["method"] == "sampled"
            assert [p["chance"] for p in body["players"]] == pytest.approx([1 / players] * players, abs=1e-5)
            for p in body["players"]:
                assert p["expected_final"] == pytest.approx(float(V[solver.space.state_of({})]), abs=1e-5)
                assert 0 < p["final_total"]["p5"] < p["final_total"]["p50"] < p["final_total"]["p95"]
        assert key + OUTCOMES in tables.builds  # the outcomes are on their way all the same
        table.turn(0, "chance", [6, 6, 5, 5, 4])
        r = client.get(table.url("/chances"))
        assert r.status_code == 503 and int(r.headers["Retry-After"]) >= 1
    finally:
        for spawned in tables.builds.values():
            spawned.process.kill()
            spawned.process.wait()
