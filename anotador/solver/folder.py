"""The advisor's folder: its tables, the builds under way, and how fast builds go.

One place for the folder's format, read by the web workers
(:mod:`anotador.advisor.tables`) and written by the build processes
(:mod:`anotador.solver.build`)::

    <key>.table       a table (:func:`write_table`: a header naming the rule set, the
                      format and a checksum, then one float64 per reachable state,
                      numbered as :class:`Space` numbers them), written whole:
                      a temporary file, then a rename
    <key>.json        its summary: expected_score, states, seconds
    <key>.table.lock  only while the table builds: the builder holds a flock on it
                      and removes it when it ends, however it ends; its JSON says
                      who asked (client, game), when it was spawned and when it
                      began computing; its mtime is
                      the time until which somebody waits for it
    <key>.table.progress  beside it: the states solved so far, and when
    ahead.lock        only while the built-in tables are built ahead: the plan
    rate.json         how the last builds went: seconds to start, reachable states per
                      second per kind

A lock file nobody holds is a builder that was killed; :func:`remove_stale`
takes it away, and the ``<key>.npy`` tables of releases before the header;
a table of an older format (every state, reachable or not) is set aside and
built again when it is first read.
Nothing else is ever written here.
"""

from __future__ import annotations

import errno
import fcntl
import hashlib
import json
import os
import time
import weakref
from typing import TYPE_CHECKING, NamedTuple

# the frame of the folder's files (anotador.solver.header) and its errors, under the folder's names too
from .header import ALIGN, HEADER_MAX, BadTable, CorruptTable, NotATable, OtherTable  # noqa: F401
from .header import header_bytes, read_header
from .solve import SOLVER_VERSION
from .space import Space

if TYPE_CHECKING:
    from ..rules import RuleSet

#: A build's fixed cost: a Python process that imports numpy and the rules.
STARTUP_SECONDS = 0.5
#: States a build gets through per second, by kind of game (dice, boxes a
#: turn), before this folder measured one. On purpose slower than any build
#: measured (a Yahtzee table, 536,448 reachable states, takes 3.5-7 s of a 2026
#: core, 80,000-150,000 a second; Double Cameroon's 1,024 states of ten dice
#: split between two boxes, 0.8 s): a first estimate on a slow or busy core
#: errs long, and the first build measured then replaces it. Following every Yahtzee state's turn into
#: its outcomes (:mod:`.sampled`) takes 33-45 CPU-s.
DEFAULT_RATES = {"5d1b": 60_000.0, "10d2b": 150.0, "5d1b.outcomes": 8_000.0}
DEFAULT_RATE = 30_000.0
#: Seconds past the Retry-After it was given that a build waits for somebody
#: to ask again before it stops (a client that went away wants nothing).
GRACE_SECONDS = 15.0
TABLE = ".table"
LOCK = TABLE + ".lock"
PROGRESS = TABLE + ".progress"
#: A table file's first line, and the version of what follows it (1: a value for every
#: (mask, subtotals, flags), reachable or not; 2: for the reachable states only).
MAGIC = b"ANOTADOR TABLE\n"
FORMAT = 2
#: What rate.json's states per second count: rates of releases that counted every state, reachable or
#: not (about twice as many for Yahtzee), would promise builds twice as fast as they are.
COUNTED = "reachable"
#: Bytes of a progress record: written in place, whole, by one pwrite.
PROGRESS_BYTES = 64
AHEAD = "ahead.lock"
#: Held by the one outcomes build the folder runs at a time: taken by the server before it starts the
#: builder, which inherits it and holds it until it exits.
OUTCOMES_SLOT = "outcomes.lock"
RATES = "rate.json"


class Build(NamedTuple):
    """A build under way, as its lock file tells it."""

    key: str
    started: float
    states: int
    kind: str
    client: str | None
    game: bool
    builtin: bool
    wanted_until: float
    done: int = 0
    at: float = 0.0
    computing: float = 0.0  # when its first state was taken up (0: not yet)


#: Rule sets are built once per set of options and shared: their keys too.
_keys: "weakref.WeakKeyDictionary[RuleSet, str]" = weakref.WeakKeyDictionary()


def key_of(rules: "RuleSet") -> str:
    """A rule set's table name: its canonical form and the solver's version, hashed."""
    key = _keys.get(rules)
    if key is None:
        canonical = json.dumps({"rules": rules.spec(), "solver": SOLVER_VERSION}, sort_keys=True,
                               separators=(",", ":"))
        key = _keys[rules] = hashlib.sha256(canonical.encode()).hexdigest()[:24]
    return key


_states: "weakref.WeakKeyDictionary[RuleSet, int]" = weakref.WeakKeyDictionary()


def states_of(rules: "RuleSet") -> int:
    """The number of states a rule set's table holds, the reachable ones (what a build's time goes by),
    worked out once."""
    states = _states.get(rules)
    if states is None:
        states = _states[rules] = Space(rules).size
    return states


def table_path(folder: str, key: str) -> str:
    return os.path.join(folder, key + TABLE)


def write_table(f, values, rules: "RuleSet") -> None:
    """Write a table to the open binary file ``f``: the magic line, a JSON header, zeros up to a page, values.

    The header names the rule set (its key, variant and spec), the solver and format versions, the number
    of states and the sha256 of the values, so :func:`read_table` can tell a table from a look-alike."""
    import numpy as np

    payload = np.ascontiguousarray(values, dtype="<f8")
    header = {"format": FORMAT, "solver": SOLVER_VERSION, "key": key_of(rules), "variant": rules.variant.id,
              "rules": rules.spec(), "dtype": "<f8", "states": int(payload.shape[0]),
              "sha256": hashlib.sha256(memoryview(payload)).hexdigest(), "expected_score": float(payload[0])}
    f.write(header_bytes(MAGIC, header))
    f.write(memoryview(payload))


def read_table(path: str, rules: "RuleSet"):
    """The values of the table at ``path``, mapped read-only, once its header and checksum are checked
    against ``rules``; else :class:`NotATable`, :class:`OtherTable` or :class:`CorruptTable` (and OSError)."""
    import numpy as np

    wanted = {"format": FORMAT, "solver": SOLVER_VERSION, "key": key_of(rules), "dtype": "<f8",
              "states": states_of(rules)}
    header, start, size = read_header(path, MAGIC, wanted, "a table", "another table")
    if size != start + 8 * wanted["states"]:
        raise CorruptTable(f"{path} holds {size} bytes, not {start + 8 * wanted['states']}")
    values = np.memmap(path, dtype="<f8", mode="r", offset=start, shape=(wanted["states"],))
    if hashlib.sha256(memoryview(values)).hexdigest() != header.get("sha256"):
        raise CorruptTable(f"{path}'s values do not match their checksum")
    # a plain array over the same mapped pages: numpy's memmap wraps every index in Python
    return values.view(np.ndarray)


def table_bytes(states: int) -> int:
    """The most a table of ``states`` states takes on disk: its header, then a float64 a state."""
    return HEADER_MAX + 8 * states


def lock_path(folder: str, key: str) -> str:
    return os.path.join(folder, key + LOCK)


def progress_path(folder: str, key: str) -> str:
    return os.path.join(folder, key + PROGRESS)


def write_progress(fd: int, done: int) -> None:
    """The builder's progress, in place: a reader sees this record or the last, never half of one."""
    os.pwrite(fd, json.dumps({"done": done, "at": time.time()}).encode().ljust(PROGRESS_BYTES), 0)


def read_progress(folder: str, key: str) -> tuple[int, float]:
    try:
        with open(progress_path(folder, key), "rb") as f:
            info = json.loads(f.read(PROGRESS_BYTES) or b"{}")
        return int(info["done"]), float(info["at"])
    except (OSError, ValueError, KeyError, TypeError):
        return 0, 0.0


def take(path: str, info: dict | None = None, until: float | None = None) -> int | None:
    """Create and lock ``path`` (a file descriptor), or None when another process holds it.

    The file locked is the one the path names: a lock file taken away by
    :func:`remove_stale` between its creation and the flock is made again.
    With ``until``, the lock appears whole: its JSON and that wanted-until
    mtime are in place before any reader can see it.
    """
    if until is not None:
        return _take_whole(path, info or {}, until)
    busy_until = None
    for _ in range(40):
        fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o644)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError as exc:
            os.close(fd)
            if exc.errno not in (errno.EAGAIN, errno.EACCES, errno.EWOULDBLOCK):
                raise
            # a builder holds it, or a reader's look (see read()) does, for microseconds
            busy_until = busy_until or time.monotonic() + 0.05
            if time.monotonic() > busy_until:
                return None
            time.sleep(0.002)
            continue
        try:
            same = os.stat(path).st_ino == os.fstat(fd).st_ino
        except FileNotFoundError:
            same = False
        if same:
            if info is not None:
                write(fd, info)
            return fd
        os.close(fd)
    return None


def _take_whole(path: str, info: dict, until: float) -> int | None:
    """:func:`take`, with the lock made under a name of its own and linked into place.

    A lock made in place is seen before its mtime is set: a server telling
    the build to stop (:func:`want` in the past) in that moment was undone
    by the builder's own first :func:`want`, and the build ran on.
    """
    draft = f"{path}.{os.getpid()}.tmp"
    for _ in range(5):
        fd = os.open(draft, os.O_RDWR | os.O_CREAT | os.O_TRUNC, 0o644)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)  # nobody else knows this name
            write(fd, info)
            os.utime(draft, (until, until))
            os.link(draft, path)
        except FileExistsError:
            os.close(fd)
            there = take(path)  # a live builder's (None), or a dead one's: removed, and again
            if there is None:
                return None
            release(there, path)
            continue
        except OSError as exc:
            os.close(fd)
            if exc.errno not in (errno.EPERM, errno.EOPNOTSUPP, errno.ENOTSUP, errno.ENOSYS, errno.EMLINK):
                raise
            # a folder with no hard links (some network or FUSE mounts): made in place, as before
            fd = take(path, info)
            if fd is not None:
                want(path, until)
            return fd
        except BaseException:
            os.close(fd)
            raise
        finally:
            try:
                os.unlink(draft)
            except OSError:
                pass
        return fd
    return None


def write(fd: int, info: dict) -> None:
    data = json.dumps(info).encode()
    os.ftruncate(fd, 0)
    os.pwrite(fd, data, 0)


def release(fd: int, path: str) -> None:
    """Remove the lock file, then let go of it: the folder keeps no lock of a build that ended."""
    try:
        if os.stat(path).st_ino == os.fstat(fd).st_ino:
            os.unlink(path)
    except OSError:
        pass
    os.close(fd)


def want(path: str, until: float) -> None:
    """Somebody waits for this build until ``until`` (the build stops when nobody does)."""
    try:
        os.utime(path, (until, until))
    except OSError:
        pass


def read(path: str) -> tuple[dict, float] | None:
    """A held lock's JSON and mtime; None when nobody holds it (no file, or a dead builder's)."""
    try:
        fd = os.open(path, os.O_RDONLY)
    except OSError:
        return None
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_SH | fcntl.LOCK_NB)
        except OSError:
            pass  # held: a build runs
        else:
            return None
        mtime = os.fstat(fd).st_mtime
        try:
            info = json.loads(os.pread(fd, 4096, 0) or b"{}")
        except ValueError:
            info = {}  # being written this instant
        return (info if isinstance(info, dict) else {}), mtime
    finally:
        os.close(fd)


def building(folder: str, key: str) -> Build | None:
    """The build of ``key`` under way, if any."""
    found = read(lock_path(folder, key))
    return None if found is None else _build(folder, key, *found)


def builds(folder: str) -> list[Build]:
    """Every build under way in the folder."""
    try:
        names = [n for n in os.listdir(folder) if n.endswith(LOCK)]
    except OSError:
        return []
    out = []
    for name in names:
        found = read(os.path.join(folder, name))
        if found is not None:
            out.append(_build(folder, name[:-len(LOCK)], *found))
    return out


def _build(folder: str, key: str, info: dict, mtime: float) -> Build:
    def number(name: str, default: float) -> float:
        value = info.get(name)
        return float(value) if isinstance(value, (int, float)) else default

    client = info.get("client")
    done, at = read_progress(folder, key)
    return Build(key, number("started", time.time()), int(number("states", 0)), str(info.get("kind", "")),
                 client if isinstance(client, str) else None, info.get("game") is True,
                 info.get("builtin") is True, mtime, done, at, number("computing", 0.0))


def remove_stale(folder: str) -> int:
    """Remove the lock files of builders that died (held by nobody), and their half-written tables."""
    removed = 0
    try:
        names = os.listdir(folder)
    except OSError:
        return 0
    for name in names:
        path = os.path.join(folder, name)
        if name.endswith(LOCK) or name in (AHEAD, OUTCOMES_SLOT):
            fd = take(path)
            if fd is not None:
                release(fd, path)
                removed += 1
        elif name.endswith(PROGRESS):
            if read(lock_path(folder, name[:-len(PROGRESS)])) is None:  # its builder is gone
                try:
                    os.remove(path)
                    removed += 1
                except OSError:
                    pass
        elif name.endswith(".npy") and not name.startswith("."):  # a table from before the header: rebuilt
            try:
                os.remove(path)
                removed += 1
            except OSError:
                pass
        elif name.endswith((".tmp", ".tmp.json", ".tmp.records", ".bad")):
            try:
                if time.time() - os.stat(path).st_mtime > 600:  # no builder writes that long
                    os.remove(path)
                    removed += 1
            except OSError:
                pass
    return removed


def _rates(folder: str) -> dict:
    try:
        with open(os.path.join(folder, RATES)) as f:
            rates = json.load(f)
    except (OSError, ValueError):
        return {}
    if not isinstance(rates, dict):
        return {}
    if rates.get("counted") != COUNTED:  # an older release's: its start-up still holds, its rates do not
        return {"startup": rates["startup"]} if "startup" in rates else {}
    return rates


def _number(rates: dict, name: str, default: float) -> float:
    value = rates.get(name)
    return float(value) if isinstance(value, (int, float)) and value > 0 else default


def rate(folder: str, kind: str) -> float:
    """States per second the last builds of this kind reached here (a default before any)."""
    return _number(_rates(folder), kind, DEFAULT_RATES.get(kind, DEFAULT_RATE))


def startup(folder: str) -> float:
    """Seconds from a build's spawn to its first state, as the last builds here took."""
    return _number(_rates(folder), "startup", STARTUP_SECONDS)


def record_rate(folder: str, kind: str, states: int, startup_seconds: float, compute_seconds: float) -> None:
    """Remember how a build just went: the next Retry-After is measured, not assumed.

    Each figure moves halfway to the new measure, but at once to a slower
    one: a Retry-After too long costs a client a second, one too short a
    second 503.
    """
    rates = _rates(folder)
    before = _number(rates, "startup", 0.0)
    rates["startup"] = round(max(startup_seconds, (before + startup_seconds) / 2 if before else 0.0), 3)
    if compute_seconds >= 0.5:  # shorter measures the clock more than the build
        measured = states / compute_seconds
        before = _number(rates, kind, 0.0)
        rates[kind] = round(min(measured, (before + measured) / 2) if before else measured, 1)
    rates["counted"] = COUNTED
    path = os.path.join(folder, RATES)
    tmp = f"{path}.{os.getpid()}.tmp"
    try:
        with open(tmp, "w") as f:
            json.dump(rates, f)
        os.replace(tmp, path)
    except OSError:
        pass


def seconds_left(folder: str, kind: str, states: int) -> float:
    """How long a build of ``states`` states takes here, from its spawn, as the last builds went."""
    return startup(folder) + states / rate(folder, kind)


def build_left(folder: str, build: Build) -> float:
    """How long a build under way still takes: from its own progress once it has some, else the folder's rate."""
    now = time.time()
    if build.done >= max(1, build.states // 20) and build.at > build.computing > 0:
        per_state = (build.at - build.computing) / build.done
        return max(0.0, (build.states - build.done) * per_state - (now - build.at))
    return max(0.0, seconds_left(folder, build.kind, build.states) - (now - build.started))
