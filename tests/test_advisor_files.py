"""The advisor's table files (what a build costs in memory is bench/advice.py's figure).

A table file is a header (the rule set, the format, a checksum) then its
values; a file that is not one, or not this rule set's, or damaged, is
refused with the reason, never read as advice.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from anotador.rules import find_variant
from anotador.solver import folder as store



@pytest.fixture(scope="module")
def generala():
    """A Generala rule set and its built table (values), written to a file once."""
    from anotador.solver import Solver

    rules = find_variant("generala").rules()
    return rules, Solver(rules).build()


def write(path: Path, values, rules) -> Path:
    with open(path, "wb") as f:
        store.write_table(f, values, rules)
    return path


def test_a_table_reads_back_as_written_and_says_what_it_is(tmp_path, generala):
    rules, values = generala
    path = write(tmp_path / "t.table", values, rules)
    back = store.read_table(str(path), rules)
    assert np.array_equal(back, values) and not back.flags.writeable
    raw = path.read_bytes()
    assert raw.startswith(store.MAGIC)
    header = json.loads(raw[len(store.MAGIC):raw.index(b"\n", len(store.MAGIC))])
    assert header["variant"] == "generala" and header["rules"] == rules.spec()
    assert header["format"] == store.FORMAT and header["states"] == len(values) == store.states_of(rules)
    assert header["expected_score"] == pytest.approx(149.11035446, abs=1e-8)
    assert len(raw) % 8 == 0 and (len(raw) - 8 * len(values)) % store.ALIGN == 0  # the values start on a page


def damage_a_value(raw: bytes) -> bytes:
    at = len(raw) - 8 * 100 + 3  # inside the 100th value from the end
    return raw[:at] + bytes([raw[at] ^ 0x10]) + raw[at + 1:]


def other_format(raw: bytes) -> bytes:
    return raw.replace(b'"format":%d' % store.FORMAT, b'"format":%d' % (store.FORMAT + 1), 1)


DAMAGE = {
    "another program's file": (lambda raw: b"\x93NUMPY" + raw[6:], store.NotATable),
    "an empty file": (lambda raw: b"", store.NotATable),
    "a header that is not JSON": (lambda raw: raw.replace(b'{"', b"{'", 1), store.NotATable),
    "a header that is JSON but no object": (lambda raw: store.MAGIC + b"[1,2]\n" + raw[store.ALIGN:],
                                             store.NotATable),
    "a later format": (other_format, store.OtherTable),
    "cut short": (lambda raw: raw[:-8], store.CorruptTable),
    "a value changed": (damage_a_value, store.CorruptTable),
    "one value more": (lambda raw: raw + bytes(8), store.CorruptTable),
}


@pytest.mark.parametrize("damage", list(DAMAGE))
def test_a_damaged_table_is_refused_with_its_reason(tmp_path, generala, damage):
    rules, values = generala
    change, error = DAMAGE[damage]
    path = write(tmp_path / "t.table", values, rules)
    path.write_bytes(change(path.read_bytes()))
    with pytest.raises(error):
        store.read_table(str(path), rules)


def test_another_rule_sets_table_is_refused_even_of_the_same_size(tmp_path, generala):
    rules, values = generala
    other = find_variant("generala").rules(served_bonus=0)
    assert store.states_of(other) == store.states_of(rules)
    path = write(tmp_path / "t.table", values, rules)
    with pytest.raises(store.OtherTable, match="key"):
        store.read_table(str(path), other)


def test_tables_from_before_the_header_are_removed(tmp_path, generala):
    rules, values = generala
    folder = tmp_path / "tables"
    folder.mkdir()
    np.save(folder / "0123abcd.npy", values)
    kept = write(folder / (store.key_of(rules) + store.TABLE), values, rules)
    assert store.remove_stale(str(folder)) == 1
    assert sorted(p.name for p in folder.iterdir()) == [kept.name]


@pytest.mark.parametrize("damage", ["a value changed", "a later format", "another program's file"])
def test_the_app_sets_a_damaged_table_aside_and_builds_it_again(tmp_path, generala, damage):
    from .test_api_advice import fresh_app, wait_for

    rules, values = generala
    folder = tmp_path / "tables"
    folder.mkdir()
    path = write(folder / (store.key_of(rules) + store.TABLE), values, rules)
    path.write_bytes(DAMAGE[damage][0](path.read_bytes()))
    client = fresh_app(tmp_path, folder, SOLVER_BUILD_AHEAD=False).test_client()
    body = {"variant": "generala", "dice": [1, 2, 3, 4, 5], "roll": 3}
    assert client.post("/api/v1/advice", json=body).status_code == 503
    assert (folder / (path.name + ".bad")).exists()
    assert wait_for(client, body)["expected_final"] == pytest.approx(values[0], abs=1e-6)
    assert np.array_equal(store.read_table(str(path), rules), values)  # built again, whole


def every_state(values, rules):
    """``values`` as format 1 laid them out: a value for every (mask, subtotals, flags), 0 where unreachable."""
    from anotador.solver import Space

    space = Space(rules)
    dense = np.zeros((1 << space.nb) * space.U * space.F)
    for closed in range(space.nb + 1):
        mask, u, flags = space.states(closed)
        dense[(mask * space.U + u) * space.F + flags] = values[space.index(mask, u, flags)]
    return dense


def test_a_table_holds_the_reachable_states_only(tmp_path):
    """Generala-wiki's generala flag: a sheet whose generala is still free never holds points in it, so a
    quarter of every (mask, flags) is unreachable and not stored; Yahtzee's and Yatzy's stored halves are in
    bench/advice.py."""
    from anotador.solver import Solver

    rules = find_variant("generala-wiki").rules()
    solver = Solver(rules)
    values = solver.build()
    assert store.states_of(rules) == len(values) == 1536 < (1 << 10) * 2
    assert sum(len(solver.space.states(closed)[0]) for closed in range(11)) == 1536
    path = write(tmp_path / "t.table", values, rules)
    size = path.stat().st_size
    assert (size - 8 * 1536) % store.ALIGN == 0 and size - 8 * 1536 <= store.HEADER_MAX
    assert np.array_equal(store.read_table(str(path), rules), values)


def test_a_table_of_every_state_from_an_older_release_is_built_again(tmp_path):
    """A format 1 table (a value for every state, reachable or not) is refused as another table, set aside
    and built again in this format, with the same values."""
    from anotador.solver import Solver

    from .test_api_advice import fresh_app, wait_for

    rules = find_variant("generala-wiki").rules()
    values = Solver(rules).build()
    dense = every_state(values, rules)
    folder = tmp_path / "tables"
    folder.mkdir()
    path = write(folder / (store.key_of(rules) + store.TABLE), values, rules)
    raw = path.read_bytes()
    header = json.loads(raw[len(store.MAGIC):raw.index(b"\n", len(store.MAGIC))])
    header |= {"format": 1, "states": len(dense), "sha256": __import__("hashlib").sha256(dense.tobytes()).hexdigest()}
    head = store.MAGIC + json.dumps(header, sort_keys=True, separators=(",", ":")).encode() + b"\n"
    path.write_bytes(head.ljust(store.ALIGN, b"\0") + dense.tobytes())
    with pytest.raises(store.OtherTable, match="format 1, not 2"):
        store.read_table(str(path), rules)
    client = fresh_app(tmp_path, folder, SOLVER_BUILD_AHEAD=False).test_client()
    body = {"variant": "generala-wiki", "dice": [6, 6, 6, 6, 2], "roll": 2}
    assert client.post("/api/v1/advice", json=body).status_code == 503
    assert (folder / (path.name + ".bad")).exists()
    assert wait_for(client, body)["expected_final"] == pytest.approx(values[0], abs=1e-6)
    assert np.array_equal(store.read_table(str(path), rules), values)
