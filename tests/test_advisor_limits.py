"""The advisor under anonymous load: built-in tables built ahead and kept, builds bounded, the folder clean."""

from __future__ import annotations

import json
import os
import subprocess
import time

import pytest

from anotador.rules import VARIANTS, build_rules, find_variant
from anotador.solver import folder as store
from anotador.advisor.outlooks import retry_after
from anotador.solver.build import kind_of
from anotador.solver.folder import key_of

from .test_api_advice import fresh_app, wait_for

ROLL = {"dice": [1, 2, 3, 4, 5], "roll": 3}


def generala(n: int) -> dict:
    """A cheap house-rule set (a Generala table builds in a quarter of a second)."""
    return {"rules": {"base": "generala", "served_bonus": n % 100, "points": {"full": 31 + n // 100}}, **ROLL}


def yahtzee(n: int) -> dict:
    """A dear one (about 17 s of a core): still building while a test looks at it."""
    return {"rules": {"base": "yahtzee", "yahtzee_bonus": 200 + n}, **ROLL}


def ask(client, body, address="10.0.0.1", path="/api/v1/advice"):
    return client.post(path, json=body, environ_base={"REMOTE_ADDR": address})


def stop_builds(app) -> None:
    """Let every build still running go (as if nobody waited any more), and wait for it to end."""
    tables = app.extensions["anotador.tables"]
    for key, spawned in list(tables.builds.items()):
        _until(lambda: spawned.process.poll() is not None or store.building(tables.folder, key) is not None)
    for build in store.builds(tables.folder):
        store.want(store.lock_path(tables.folder, build.key), 1)
    for spawned in list(tables.builds.values()):
        spawned.process.wait(timeout=60)  # a niced build on a loaded machine: seconds to notice


def only_tables(folder) -> list[str]:
    """What the folder holds besides tables, their summaries and the measured rates."""
    return sorted(p.name for p in folder.iterdir()
                  if not (p.name.endswith(".table") or p.name.endswith(".json")))


def test_a_client_past_its_share_gets_429_and_another_client_its_build(tmp_path):
    app = fresh_app(tmp_path, tmp_path / "t", SOLVER_BUILDS=3)
    client = app.test_client()
    try:
        assert ask(client, yahtzee(1)).status_code == 503
        again = ask(client, yahtzee(2))  # the same address, a second build at once: refused, not queued
        assert again.status_code == 429 and again.mimetype == "application/problem+json"
        assert again.get_json()["type"].endswith("build-limit") and 1 <= int(again.headers["Retry-After"]) <= 40
        assert again.headers["RateLimit-Policy"].startswith('"builds";q=1;')
        assert again.headers["RateLimit"] == '"builds";r=0;t=' + again.headers["Retry-After"]
        # asking for the build under way is no new build: a 503 that says when
        assert ask(client, yahtzee(1)).status_code == 503
        assert ask(client, yahtzee(2), address="10.0.0.2").status_code == 503  # somebody else: built
        assert len(app.extensions["anotador.tables"].builds) == 2
    finally:
        stop_builds(app)


def test_a_client_has_so_many_builds_an_hour(tmp_path):
    app = fresh_app(tmp_path, tmp_path / "t", SOLVER_CLIENT_BUILDS_PER_HOUR=2)
    client = app.test_client()
    for n in (1, 2):
        wait_for_address(client, generala(n))
    refused = ask(client, generala(3))
    assert refused.status_code == 429 and 3500 <= int(refused.headers["Retry-After"]) <= 3600
    assert refused.headers["RateLimit-Policy"] == '"builds-hour";q=2;w=3600'
    assert refused.headers["RateLimit"] == '"builds-hour";r=0;t=' + refused.headers["Retry-After"]
    assert wait_for_address(client, generala(3), address="10.0.0.9")["expected_final"] > 0


def test_a_build_that_ends_between_two_looks_is_served_not_charged_again(tmp_path, monkeypatch):
    """A table that lands between the first look (not there) and the look at the builds under way (none: it is
    done) is the table: not a build to start, and so no 429 for a client whose hour is spent."""
    app = fresh_app(tmp_path, tmp_path / "t", SOLVER_CLIENT_BUILDS_PER_HOUR=1)
    client = app.test_client()
    wait_for_address(client, generala(1))  # this client's one build of the hour
    wait_for_address(client, generala(2), address="10.0.0.2")  # another's: in place
    tables = app.extensions["anotador.tables"]
    real, looks = tables.peek, []

    def late(rules):  # the first look comes just before the table is put in place
        looks.append(rules)
        return None if len(looks) == 1 else real(rules)

    monkeypatch.setattr(tables, "peek", late)
    answer = ask(client, generala(2))
    assert answer.status_code == 200, answer.get_json()
    assert len(looks) == 2


def wait_for_address(client, body, address="10.0.0.1", seconds=30):
    deadline = time.time() + seconds
    while True:
        r = ask(client, body, address)
        if r.status_code == 200:
            return r.get_json()
        assert r.status_code == 503, r.get_json()
        assert time.time() < deadline
        time.sleep(0.1)


def test_the_whole_folder_has_so_many_builds_at_once(tmp_path):
    app = fresh_app(tmp_path, tmp_path / "t", SOLVER_BUILDS=2)
    client = app.test_client()
    try:
        for n, address in enumerate(("10.0.0.1", "10.0.0.2")):
            assert ask(client, yahtzee(n), address).status_code == 503
        full = ask(client, yahtzee(5), "10.0.0.3")
        # no place: a 503 for when one is free, and no build started for it
        assert full.status_code == 503 and int(full.headers["Retry-After"]) > 17
        assert len(store.builds(app.extensions["anotador.tables"].folder)) <= 2
        assert len(app.extensions["anotador.tables"].builds) == 2
    finally:
        stop_builds(app)


def test_a_stored_games_rules_take_the_place_of_anonymous_ones(tmp_path):
    from .dbkit import migrated_app

    folder = tmp_path / "t"
    app = migrated_app(f"sqlite:///{tmp_path / 'g.sqlite'}", SOLVER_DIR=str(folder), SOLVER_BUILDS=1)
    client = app.test_client()
    game = client.post("/api/v1/games", json={"rules": {"base": "yahtzee", "yahtzee_bonus": 300},
                                              "players": ["Ana", "Beto"]}).get_json()
    tables = app.extensions["anotador.tables"]
    try:
        assert ask(client, yahtzee(1), "10.0.0.7").status_code == 503
        anonymous = next(iter(tables.builds.values())).process
        _until(lambda: store.builds(tables.folder))  # its lock is taken
        r = client.get(f"/api/v1/games/{game['id']}/analysis")
        assert r.status_code == 503 and r.get_json()["type"].endswith("table-building")
        assert anonymous.wait(timeout=30) == 4  # stopped, to make room (a niced build: seconds to notice)
        game_key = key_of(build_rules({"base": "yahtzee", "yahtzee_bonus": 300}))
        _until(lambda: [b.key for b in store.builds(tables.folder)] == [game_key])
        assert store.building(str(folder), game_key).game
        # the anonymous client asks again: no place for it while the game's builds
        assert ask(client, yahtzee(1), "10.0.0.7").status_code == 503
        assert [b.key for b in store.builds(tables.folder)] == [game_key]
    finally:
        stop_builds(app)


def _until(condition, seconds=10):
    deadline = time.time() + seconds
    while not condition():
        assert time.time() < deadline, "never happened"
        time.sleep(0.05)


def test_a_build_nobody_waits_for_stops_and_one_asked_for_again_goes_on(tmp_path):
    app = fresh_app(tmp_path, tmp_path / "t")
    client = app.test_client()
    tables = app.extensions["anotador.tables"]
    first = ask(client, yahtzee(1))
    process = next(iter(tables.builds.values())).process
    _until(lambda: store.builds(tables.folder))
    lock = store.lock_path(tables.folder, key_of(build_rules(yahtzee(1)["rules"])))
    # waited for until the Retry-After it was given, and a grace
    promised = time.time() + int(first.headers["Retry-After"])
    assert promised < os.stat(lock).st_mtime <= promised + store.GRACE_SECONDS + 2
    store.want(lock, time.time() + 1)  # as if that time came
    time.sleep(0.3)
    assert ask(client, yahtzee(1)).status_code == 503  # asked again: waited for again
    assert os.stat(lock).st_mtime > time.time() + 10
    time.sleep(1)
    assert process.poll() is None
    store.want(lock, time.time() - 1)  # the client went away
    assert process.wait(timeout=30) == 4
    assert only_tables(tmp_path / "t") == [] and not list((tmp_path / "t").glob("*.table"))


def test_a_builds_lock_is_never_seen_without_its_wanted_until(tmp_path):
    """A stop said the moment a lock appeared was undone by the builder's first want: the lock appears whole."""
    import threading

    path = str(tmp_path / ("k" + store.LOCK))
    until, seen, done = time.time() + 3600, [], threading.Event()

    def look():
        while not done.is_set():
            found = store.read(path)
            if found is not None:
                seen.append(found)

    watcher = threading.Thread(target=look)
    watcher.start()
    try:
        for n in range(300):
            fd = store.take(path, {"pid": n, "game": False}, until)
            assert fd is not None
            if n % 100 == 0:
                assert store.take(path, {"pid": -1}, until) is None  # held: nobody else takes it
            time.sleep(0.001)
            store.release(fd, path)
        for n in range(300):  # a lock without a wanted-until (a built-in build's) is not made busy by a look
            fd = store.take(path)
            assert fd is not None
            if n % 100 == 0:
                assert store.take(path) is None
            store.release(fd, path)
    finally:
        done.set()
        watcher.join()
    assert seen and all(mtime == until and info["pid"] >= 0 for info, mtime in seen if info)
    assert sorted(p.name for p in tmp_path.iterdir()) == []  # no draft left behind
    dead = os.open(path, os.O_CREAT | os.O_RDWR)  # a dead builder's lock: nobody holds it
    os.close(dead)
    fd = store.take(path, {"pid": 1}, until)
    assert fd is not None and store.read(path) == ({"pid": 1}, until)
    store.release(fd, path)


def test_a_folder_without_hard_links_still_takes_locks(tmp_path, monkeypatch):
    def no_links(*args):
        raise PermissionError(1, "Operation not permitted")

    monkeypatch.setattr(os, "link", no_links)
    path = str(tmp_path / ("k" + store.LOCK))
    until = time.time() + 3600
    fd = store.take(path, {"pid": 7}, until)
    assert fd is not None and store.read(path) == ({"pid": 7}, until)
    assert store.take(path, {"pid": 8}, until) is None
    store.release(fd, path)
    assert sorted(p.name for p in tmp_path.iterdir()) == []


def test_the_folder_keeps_tables_only(tmp_path):
    """60 distinct rule sets from one client: no file but tables is left, 429s and 503s included."""
    folder = tmp_path / "t"
    app = fresh_app(tmp_path, folder, SOLVER_BUILDS=1)
    client = app.test_client()
    statuses = [ask(client, generala(n)).status_code for n in range(60)]
    assert set(statuses) <= {429, 503} and 429 in statuses
    for spawned in list(app.extensions["anotador.tables"].builds.values()):
        spawned.process.wait(timeout=30)
    assert only_tables(folder) == []
    # a builder killed with SIGKILL leaves its lock: the next pruning takes it away
    key = key_of(build_rules(generala(99)["rules"]))
    proc = subprocess.Popen(["python3", "-c", "import time; time.sleep(30)"])
    try:
        with open(store.lock_path(str(folder), key), "w") as f:
            json.dump({"pid": proc.pid, "started": time.time()}, f)
    finally:
        proc.kill()
    assert store.building(str(folder), key) is None  # nobody holds it: not a build
    wait_for(client, generala(0))
    assert only_tables(folder) == []


def test_built_in_tables_are_never_pruned(tmp_path):
    folder = tmp_path / "t"
    app = fresh_app(tmp_path, folder, SOLVER_KEEP=1, SOLVER_CLIENT_BUILDS_PER_HOUR=50)
    client = app.test_client()
    wait_for(client, {"variant": "generala", **ROLL})
    builtin = folder / (key_of(find_variant("generala").rules()) + ".table")
    for n in range(4):
        wait_for(client, generala(n))
    assert builtin.exists() and len(list(folder.glob("*.table"))) == 2  # the built-in one, and the last used
    # a restart, and the built-in table is answered at once
    assert fresh_app(tmp_path, folder).test_client().post(
        "/api/v1/advice", json={"variant": "generala", **ROLL}).status_code == 200


def test_built_in_tables_are_built_ahead_without_a_request(tmp_path):
    """The app's start builds every missing built-in table; none is asked for meanwhile."""
    folder = tmp_path / "t"
    folder.mkdir()
    small = {key_of(v.rules()) for v in VARIANTS.values() if v.id.startswith("general") or v.id == "yacht"}
    for variant in VARIANTS.values():  # the dear ones stand in as built: this test is not about them
        key = key_of(variant.rules())
        if key not in small:
            (folder / f"{key}.table").write_bytes(b"")
            (folder / f"{key}.outcomes.table").write_bytes(b"")  # nor about the Yahtzee family's outcomes
    app = fresh_app(tmp_path, folder, SOLVER_BUILD_AHEAD=True)
    tables = app.extensions["anotador.tables"]
    assert tables.ahead_process is not None
    assert tables.ahead_process.wait(timeout=60) == 0
    assert all((folder / f"{key}.table").exists() for key in small)
    assert only_tables(folder) == []  # the plan's lock is gone with it
    assert fresh_app(tmp_path, folder, SOLVER_BUILD_AHEAD=True).extensions["anotador.tables"].ahead_process is None
    client = app.test_client()
    for variant in ("generala", "generala-doble", "general-pr", "yacht"):
        assert client.post("/api/v1/advice", json={"variant": variant, **ROLL}).status_code == 200


def test_a_built_in_table_asked_for_while_built_ahead_waits_for_the_plan(tmp_path):
    folder = tmp_path / "t"
    app = fresh_app(tmp_path, folder, SOLVER_BUILD_AHEAD=True)
    tables = app.extensions["anotador.tables"]
    ahead = tables.ahead_process
    try:
        # yatzy is built last (the largest): its wait is every build before it
        r = app.test_client().post("/api/v1/advice", json={"variant": "yatzy", **ROLL})
        assert r.status_code == 503 and int(r.headers["Retry-After"]) > 60
        assert tables.builds == {}  # no second build: the plan has it
        g = app.test_client().post("/api/v1/advice", json={"variant": "generala", **ROLL})
        assert g.status_code in (200, 503) and (g.status_code == 200 or int(g.headers["Retry-After"]) <= 3)
    finally:
        ahead.kill()  # it builds in its own process: nothing else to stop
        ahead.wait(timeout=10)


def cameroon(n: int) -> dict:
    """A Double Cameroon house-rule set: 1,024 states of ten dice, about 7 s of a core."""
    return {"rules": {"base": "double-cameroon", "points": {"big_cameroon": 31 + n}},
            "dice": [1, 2, 3, 4, 5, 6, 1, 2, 3, 4], "roll": 3}


@pytest.mark.slow
def test_every_retry_after_is_measured_and_followed(tmp_path):
    """Once the folder has measured a kind of build, the next one's Retry-After is that measure, and following it gets the table.

    The first build of a kind is estimated from a default rate; its end
    leaves the rate measured for every later build of that kind. Whether
    the measure is then met depends on what else the machine runs (a build
    is niced): how often it is, unloaded, is bench/advice.py's figure.
    """
    folder = tmp_path / "t"
    app = fresh_app(tmp_path, folder, SOLVER_CLIENT_BUILDS_PER_HOUR=50)
    client = app.test_client()
    for body in (generala(1), cameroon(1)):  # measured here, on this machine, under this load
        wait_for(client, body, seconds=120)
    for body in (generala(2), cameroon(2)):
        rules = build_rules(body["rules"])
        kind = kind_of(rules)
        measured = store.seconds_left(str(folder), kind, store.states_of(rules))
        assumed = store.STARTUP_SECONDS + store.states_of(rules) / store.DEFAULT_RATES[kind]
        assert measured != pytest.approx(assumed, rel=1e-3)  # the folder's own figures, not the defaults
        r = client.post("/api/v1/advice", json=body)
        assert r.status_code == 503
        assert retry_after(measured) - 1 <= int(r.headers["Retry-After"]) <= retry_after(measured)
        asked = 1
        while r.status_code == 503:
            assert asked < 30, r.headers["Retry-After"]  # every answer is from the build's own progress
            time.sleep(int(r.headers["Retry-After"]))
            r = client.post("/api/v1/advice", json=body)
            asked += 1
        assert r.status_code == 200


def test_a_build_under_way_is_timed_by_its_progress(tmp_path):
    """Half done 5 s after it began computing: 5 s more, whatever rate the folder assumed."""
    now = time.time()
    build = store.Build("k", now - 7, 1000, "5d1b", None, False, False, now + 60, done=500, at=now,
                        computing=now - 5)
    assert 4.9 <= store.build_left(str(tmp_path), build) <= 5.01
    fresh = build._replace(done=0, at=0.0, states=int(store.DEFAULT_RATES["5d1b"]))  # no progress: the folder's
    assert store.build_left(str(tmp_path), fresh) == 0  # 0.5 s to start and 1 s to build; 7 s gone


def test_the_folder_remembers_how_builds_went_the_slower_at_once(tmp_path):
    folder = str(tmp_path)
    assert store.seconds_left(folder, "5d1b", int(store.DEFAULT_RATES["5d1b"])) == pytest.approx(1.5)  # defaults
    store.record_rate(folder, "5d1b", 110_000, startup_seconds=2.0, compute_seconds=1.0)
    assert store.startup(folder) == 2.0 and store.rate(folder, "5d1b") == 110_000
    store.record_rate(folder, "5d1b", 110_000, startup_seconds=1.0, compute_seconds=0.5)  # faster: halfway
    assert store.startup(folder) == 1.5 and store.rate(folder, "5d1b") == 165_000
    store.record_rate(folder, "5d1b", 110_000, startup_seconds=4.0, compute_seconds=2.0)  # slower: at once
    assert store.startup(folder) == 4.0 and store.rate(folder, "5d1b") == 55_000
    assert store.rate(folder, "10d2b") == store.DEFAULT_RATES["10d2b"]  # each kind its own


def test_rates_of_a_release_that_counted_every_state_are_not_believed(tmp_path):
    """Releases before tables of reachable states only measured builds in every (mask, subtotals, flags): a
    Yahtzee build's rate was twice what it is in the states a table now holds. Its start-up still holds."""
    (tmp_path / store.RATES).write_text(json.dumps({"startup": 3.0, "5d1b": 250_000.0}))
    folder = str(tmp_path)
    assert store.rate(folder, "5d1b") == store.DEFAULT_RATES["5d1b"] and store.startup(folder) == 3.0
    store.record_rate(folder, "5d1b", 500_000, startup_seconds=1.0, compute_seconds=5.0)
    assert store.rate(folder, "5d1b") == 100_000  # measured afresh, not averaged with the old count's
    assert json.loads((tmp_path / store.RATES).read_text())["counted"] == store.COUNTED


def test_chances_outlooks_are_made_one_at_a_time_and_the_next_is_told_to_wait_for_both(advice_tables, monkeypatch):
    """A client polling the games of many rule sets gets one outlook thread at a time in a worker, not one each;
    the second rule set's 503 waits for the first's outlook and its own."""
    import threading

    import anotador.advisor.outlooks as outlooks_module
    from anotador.advisor.tables import TableBuilding, Tables
    from anotador.advisor.outlooks import OUTLOOK_SECONDS, Outlooks

    from .conftest import SOLVER_DIR

    release, made = threading.Event(), []

    class Slow:  # the real outlook, made only once the test lets it
        def __init__(self, solver, values):
            release.wait(60)
            made.append(solver.rules.variant.id)

    monkeypatch.setattr(outlooks_module, "Outlook", Slow)
    store = Outlooks(Tables(SOLVER_DIR, ahead=False))
    generala, cameroon = (find_variant(v).rules() for v in ("generala", "double-cameroon"))
    outlooks = lambda: [t for t in threading.enumerate() if t.name.startswith("outlook ")]  # noqa: E731
    try:
        with pytest.raises(TableBuilding) as first:
            store.outlook(generala, game=True)
        with pytest.raises(TableBuilding) as second:
            store.outlook(cameroon, game=True)
        assert [t.name for t in outlooks()] == ["outlook generala"]
        assert second.value.retry_after >= first.value.retry_after + OUTLOOK_SECONDS[10] - 1
        with pytest.raises(TableBuilding):
            store.outlook(generala, game=True)  # asked again: still the one thread
        assert len(outlooks()) == 1
    finally:
        release.set()
    _until(lambda: not outlooks())
    assert made == ["generala"] and isinstance(store.outlook(generala, game=True), Slow)

    def cameroon_made():  # its turn now: started by the next request, made at once (released)
        try:
            return isinstance(store.outlook(cameroon, game=True), Slow)
        except TableBuilding:
            return False

    _until(cameroon_made)
    assert made == ["generala", "double-cameroon"]
