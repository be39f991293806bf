"""Who is winning in the Yahtzee family before its last rounds: each player's final total sampled.

Before the last rounds (:mod:`.late`) a Yahtzee sheet can still reach most of
its 536,448 states, too many to follow exactly in a request. So, once per
rule set, a process of its own (:mod:`.build`) follows every state's turn
under the advisor's policy (:func:`.forward.outcomes`) and writes where each
leads, with what chance, to a file: the *outcomes* (Yahtzee: 18.6 million,
190 MB, about 35 CPU-s). A player's final total is then sampled from it:
:data:`GAMES` games of their sheet, each turn drawn from the chances of its
state's outcomes, so no die is thrown and every game follows the policy the
exact figures follow. Each player's sampled distribution is combined with
the others' exactly (players are independent: the Yahtzee family has no
instant win), as :mod:`.chances` combines exact ones.

The samples of a state are seeded by the state alone, so every worker and
every poll gives the same figures for the same sheet; a worker keeps the
last :data:`KEPT` states' distributions, so a poll after a turn samples
only the sheet of the player who moved.

The file (``<table key>.outcomes.table`` in the advisor's folder, written by
:func:`.build.build_outcomes`)::

    ANOTADOR OUTCOMES\\n{header JSON}\\n   zeros up to a page (:mod:`.header`)
    slots    int64 x states     each state's first record << SLOTS_BITS | its number of records
    records  RECORD x outcomes  each state's alias table (:func:`alias_records`): slot i holds the
             state's outcome i (the state after it; the box's points and the roll's bonus), the
             share ``cut`` of the slot it keeps, and the outcome that takes the rest

A turn is drawn with one uniform number and one read of 16 bytes: its
slot, and which side of the slot's cut. The header names the rule set, the
formats and the sha256 of both parts, checked when a worker loads the file.
"""

from __future__ import annotations

import functools
import hashlib
import json
import os
from typing import TYPE_CHECKING, Callable, Mapping, Sequence

import numpy as np

from ..support.lru import LRU
from . import forward
from .chances import NotExact, Prospect, exact_for
from .folder import key_of
from .header import HEADER_MAX, CorruptTable, NotATable, header_bytes, read_header
from .late import LATE_OPEN, LateOutlook, refused
from .solve import SOLVER_VERSION, Solver

if TYPE_CHECKING:  # pragma: no cover
    from ..rules import Game, RuleSet

#: Games sampled from each player's sheet: 40,000 land within 0.25 percentage points of a 10^6-game
#: simulation at every fixed position of tests/yahtzee_positions.json (bench/chances_yahtzee.py).
GAMES = 40_000
#: Distributions of points to come a worker keeps (5.4 KB each in Yahtzee).
KEPT = 2000
#: The file's first line, and the version of what follows.
MAGIC = b"ANOTADOR OUTCOMES\n"
FORMAT = 1
#: One slot of a state's alias table: an outcome, and the one its slot hands the draw to past ``cut``.
RECORD = np.dtype([("after", "<i4"), ("points", "<i2"), ("alias_points", "<i2"), ("alias_after", "<i4"),
                   ("cut", "<f4")])
#: A state's slots: ``first << SLOTS_BITS | count``.
SLOTS_BITS = 16
#: States a build follows at once (whole masks): their alias tables' working arrays stay a few MB (a Yahtzee
#: build peaks at 62 MiB; 4,096 at once took 95).
BUILD_BATCH = 512
SEED = 29
#: The most an outcomes file may take a state (its slot and its records): a build that would pass it stops
#: (:class:`OutcomesTooLarge`), so the folder's disk budget can count on it. The built-in rule sets keep well
#: under it (tests/test_sampled.py).
BYTES_PER_STATE = 768


class OutcomesTooLarge(ValueError):
    """Following this rule set's turns would take more than :data:`BYTES_PER_STATE` a state."""


def outcomes_bytes(states: int) -> int:
    """The most an outcomes file of ``states`` states takes on disk (its header, slots and records)."""
    return HEADER_MAX + BYTES_PER_STATE * states


def sampled_for(rules: "RuleSet") -> bool:
    """Whether this rule set's chances are sampled before its last rounds: its sheets hold more than their boxes
    and :class:`.late.LateOutlook` follows its turns (the Yahtzee family's, bar a tie-break on Yahtzees)."""
    return exact_for(rules) is not None and refused(rules) is None


def worked_out(rules: "RuleSet") -> bool:
    """Whether a game's chances are worked out for this rule set at every point of the game: exactly
    (:func:`.chances.exact_for`), or sampled before the last rounds (:func:`sampled_for`)."""
    return refusal(rules) is None


def refusal(rules: "RuleSet") -> str | None:
    """Why a game's chances are not worked out for this rule set at all, or None when they are."""
    return None if exact_for(rules) is None else refused(rules)


def write_outcomes(path: str, solver: Solver, V: np.ndarray, progress: Callable[[int], None] | None = None) -> int:
    """Follow every reachable state's turn and write the outcomes file to ``path`` (a temporary file beside it,
    then a rename); the number of outcomes. Holds a batch at a time: the records go to disk as they come."""
    tmp = f"{path}.{os.getpid()}.tmp"
    try:
        return _write_outcomes(path, tmp, solver, V, progress)
    finally:  # a build that failed or was stopped (SIGTERM is a SystemExit in a builder) leaves nothing behind
        for left in (tmp, tmp + ".records"):
            try:
                os.remove(left)
            except OSError:
                pass


def _write_outcomes(path: str, tmp: str, solver: Solver, V: np.ndarray,
                    progress: Callable[[int], None] | None) -> int:
    space, rules = solver.space, solver.rules
    slots = np.zeros(space.size, dtype="<i8")
    room = BYTES_PER_STATE * space.size - slots.nbytes  # for the records
    done = count = 0
    digest = hashlib.sha256()
    with open(tmp + ".records", "w+b") as records:
        for closed in range(space.nb - 1, -1, -1):  # a full sheet has no turn: no slots
            for mask, u, flags in space.batches(closed, BUILD_BATCH):
                found = forward.outcomes(solver, V, mask, u, flags)
                sizes = np.array([len(a) for a, _, _ in found], dtype=np.int64)
                if sizes.max() >= 1 << SLOTS_BITS:
                    raise ValueError(f"a state's turn has {sizes.max()} outcomes, more than a state's slots count")
                rec = alias_records(found, sizes)
                if (count + len(rec)) * RECORD.itemsize > room:
                    raise OutcomesTooLarge(f"{rules.variant.id}'s outcomes would take more than {BYTES_PER_STATE} "
                                           f"bytes a state ({key_of(rules)})")
                _copy(records, rec.tobytes(), digest)
                starts = count + np.concatenate(([0], np.cumsum(sizes)[:-1]))
                slots[space.index(mask, u, flags)] = starts << SLOTS_BITS | sizes
                done, count = done + len(mask), count + len(rec)
                if progress is not None:
                    progress(done)
        header = {"format": FORMAT, "solver": SOLVER_VERSION, "key": key_of(rules), "variant": rules.variant.id,
                  "rules": rules.spec(), "states": int(space.size), "outcomes": count,
                  "records": _dtype_spec(RECORD), "records_sha256": digest.hexdigest(),
                  "slots_sha256": hashlib.sha256(memoryview(slots)).hexdigest()}
        with open(tmp, "wb") as out:
            out.write(header_bytes(MAGIC, header))
            out.write(memoryview(slots))
            records.seek(0)
            while chunk := records.read(1 << 22):
                out.write(chunk)
            out.flush()
            os.fsync(out.fileno())
    os.remove(tmp + ".records")
    os.replace(tmp, path)
    return count


def alias_records(found: Sequence[tuple[np.ndarray, np.ndarray, np.ndarray]], sizes: np.ndarray) -> np.ndarray:
    """Each state's alias table (Walker's; Vose's pairing), the batch's states together: slot ``i`` of a state
    with ``n`` outcomes holds outcome ``i`` and hands a draw that lands past ``cut`` of it to its alias, so
    each outcome's chance is its slots' shares over ``n``. Every state's pairing is the same steps whatever
    batch it is in, so a state's table is the same bits."""
    rows, width = len(sizes), int(sizes.max())
    q = np.zeros((rows, width))
    for r, (_, _, c) in enumerate(found):
        q[r, :len(c)] = c * len(c) / c.sum()  # each outcome's chance over one slot's
    slot = np.arange(width)
    real = slot[None, :] < sizes[:, None]
    kind = np.where(real, (q >= 1.0).astype(np.int64), 2)  # small, large, no outcome
    order = np.argsort(kind, axis=1, kind="stable")
    ns = (kind == 0).sum(axis=1)
    nl = (kind == 1).sum(axis=1)
    small = order.copy()  # smalls first; a large that turns small is pushed where the popped small was
    large = np.take_along_axis(order, np.minimum(ns[:, None] + slot[None, :], width - 1), axis=1)
    cut = np.ones((rows, width))
    alias = np.broadcast_to(slot, (rows, width)).copy()
    while True:
        live = np.flatnonzero((ns > 0) & (nl > 0))
        if not len(live):
            break
        s = small[live, ns[live] - 1]
        li = large[live, nl[live] - 1]
        cut[live, s], alias[live, s] = q[live, s], li
        q[live, li] += q[live, s] - 1.0
        ns[live] -= 1
        turned = q[live, li] < 1.0
        t = live[turned]
        small[t, ns[t]] = li[turned]
        ns[t] += 1
        nl[t] -= 1
    rec = np.zeros(int(sizes.sum()), dtype=RECORD)
    if not len(rec):
        return rec
    flat = real.ravel()
    after = np.zeros((rows, width), dtype=np.int64)
    points = np.zeros((rows, width), dtype=np.int64)
    for r, (a, p, _) in enumerate(found):
        after[r, :len(a)], points[r, :len(p)] = a, p
    rec["after"], rec["points"] = after.ravel()[flat], points.ravel()[flat]
    rec["alias_after"] = np.take_along_axis(after, alias, axis=1).ravel()[flat]
    rec["alias_points"] = np.take_along_axis(points, alias, axis=1).ravel()[flat]
    rec["cut"] = np.minimum(cut, 1.0).ravel()[flat]
    return rec


def _dtype_spec(dtype: np.dtype) -> list:
    return [[name, dtype.fields[name][0].str] for name in dtype.names]


def _copy(out, chunk, digest) -> None:
    out.write(chunk)
    digest.update(chunk)


class Outcomes:
    """An outcomes file, mapped read-only and checked (:func:`read_outcomes`): draws games from it."""

    def __init__(self, solver: Solver, V: np.ndarray, slots: np.ndarray, records: np.ndarray) -> None:
        self.solver, self.V, self.space = solver, V, solver.space
        self.slots, self.records = slots, records
        # numpy gathers a structured dtype's records a field at a time, far slower: as plain bytes
        self._raw = records.view(np.dtype((np.void, RECORD.itemsize)))

    def play_out(self, state: int, games: int, rng: np.random.Generator) -> np.ndarray:
        """The points still to come (bonuses included) in ``games`` games of the sheet at ``state``, each turn
        drawn from its state's outcomes; a full sheet's section bonus is its table value."""
        now = np.full(games, state, dtype=np.int64)
        points = np.zeros(games, dtype=np.int64)
        turns = self.space.nb - self.space.parts(state)[0].bit_count()
        mask = (1 << SLOTS_BITS) - 1
        for x in rng.random((turns, games)):
            packed = self.slots[now]
            y = x * (packed & mask)
            j = y.astype(np.int64)  # the slot (x < 1, so below the count)
            drawn = self._raw[(packed >> SLOTS_BITS) + j].view(RECORD)  # one gather of a slot's 16 bytes
            own = y - j < drawn["cut"]
            now = np.where(own, drawn["after"], drawn["alias_after"]).astype(np.int64)
            points += np.where(own, drawn["points"], drawn["alias_points"])
        return points + self.V[now].round().astype(np.int64)


def read_outcomes(path: str, solver: Solver, V: np.ndarray) -> Outcomes:
    """The outcomes file at ``path``, mapped read-only once its header and checksums are checked against the
    rule set; else :class:`~.folder.NotATable`, :class:`~.folder.OtherTable` or :class:`~.folder.CorruptTable`
    (and OSError)."""
    rules = solver.rules
    wanted = {"format": FORMAT, "solver": SOLVER_VERSION, "key": key_of(rules), "states": solver.space.size,
              "records": _dtype_spec(RECORD)}
    header, start, size = read_header(path, MAGIC, wanted, "an outcomes file",
                                      "another rule set's or format's outcomes")
    if not isinstance(header.get("outcomes"), int):
        raise NotATable(f"{path} has no readable header")
    states, outcomes = wanted["states"], header["outcomes"]
    if size != start + 8 * states + RECORD.itemsize * outcomes:
        raise CorruptTable(f"{path} holds {size} bytes, not {start + 8 * states + RECORD.itemsize * outcomes}")
    slots = np.memmap(path, dtype="<i8", mode="r", offset=start, shape=(states,)).view(np.ndarray)
    records = np.memmap(path, dtype=RECORD, mode="r", offset=start + 8 * states, shape=(outcomes,)).view(np.ndarray)
    if (hashlib.sha256(memoryview(slots)).hexdigest() != header.get("slots_sha256") or
            hashlib.sha256(memoryview(records.view(np.uint8))).hexdigest() != header.get("records_sha256")):
        raise CorruptTable(f"{path}'s outcomes do not match their checksums")
    last = int(slots.max(initial=0))
    if (last >> SLOTS_BITS) + (last & ((1 << SLOTS_BITS) - 1)) > outcomes:
        raise CorruptTable(f"{path}'s states point past its outcomes")
    return Outcomes(solver, V, slots, records)


class SampledOutlook:
    """:class:`.late.LateOutlook`'s distributions for every sheet of a rule set it serves, sampled from the
    outcomes (:data:`GAMES` games a sheet) while the sheet has more than :data:`.late.LATE_OPEN` boxes open,
    exact (the late outlook's own) from then on. Rows are the states' own numbers."""

    G = 1
    most_generalas = False

    def __init__(self, late: LateOutlook, outcomes: Outcomes) -> None:
        self.late, self.outcomes, self.space, self.P = late, outcomes, late.space, late.P
        self.kept: LRU[int, np.ndarray] = LRU(KEPT)
        self._none = np.zeros(self.space.nb + 1)
        self._none.setflags(write=False)

    def covers(self, game: "Game") -> None:
        """Every game of these rules."""

    def row_of(self, sheet: dict[str, int]) -> int:
        return int(self.space.state_of(sheet))

    def state_row(self, state: int) -> int:
        return int(state)

    def sampled(self, row: int) -> bool:
        """Whether this row's distribution is sampled (else exact)."""
        return self.space.nb - self.space.parts(row)[0].bit_count() > LATE_OPEN

    def prepare(self, rows: Sequence[int]) -> None:
        """Work out what these sheets need: the late ones exactly, the others' samples if not kept."""
        self.late.prepare([r for r in rows if not self.sampled(r)])
        for r in rows:
            if self.sampled(r):
                self._sample(r)

    def remaining(self, row: int) -> np.ndarray:
        return self._sample(row) if self.sampled(row) else self.late.remaining(row)

    def mean(self, row: int) -> float:
        """The expected points to come: the advisor's table's, exact, rather than the samples' mean."""
        return float(self.late.V[row]) if self.sampled(row) else self.late.mean(row)

    def finish_of(self, row: int) -> np.ndarray:
        return self.remaining(row)[None, :]

    def instant_of(self, row: int) -> np.ndarray:
        return self._none if self.sampled(row) else self.late.instant_of(row)

    def prospect(self, row: int, base: int, sheet: Mapping[str, int], first: int) -> Prospect:
        return Prospect(self.finish_of(row), self.instant_of(row), base, 0, first)

    def counts(self, state: int) -> np.ndarray:
        """Of :data:`GAMES` games from this state, how many score each number of points to come."""
        points = self.outcomes.play_out(state, GAMES, np.random.default_rng([SEED, state]))
        return np.bincount(np.minimum(points, self.P - 1), minlength=self.P)

    def _sample(self, state: int) -> np.ndarray:
        found = self.kept.get(state)
        if found is None:
            found = self.counts(state) / GAMES
            found.setflags(write=False)
            self.kept.put(state, found)
        return found


#: The built-in variants' opening samples (:func:`openings`), shipped with the package.
OPENINGS = os.path.join(os.path.dirname(__file__), "openings.json")


def openings(outlooks: Sequence[SampledOutlook]) -> dict:
    """What :data:`OPENINGS` holds: each rule set's samples from an empty sheet, as :class:`SampledOutlook`
    draws them, by table key (``python -m anotador.solver.build --openings FOLDER`` writes it)."""
    out = {}
    for outlook in outlooks:
        counts = outlook.counts(int(outlook.space.state_of({})))
        used = np.flatnonzero(counts)
        out[key_of(outlook.late.solver.rules)] = {
            "variant": outlook.late.solver.rules.variant.id, "games": GAMES, "seed": SEED, "low": int(used[0]),
            "counts": counts[used[0]:used[-1] + 1].tolist()}
    return out


@functools.cache
def shipped() -> dict:
    """:data:`OPENINGS` as read once per process ({} when it cannot be read)."""
    try:
        with open(OPENINGS) as f:
            found = json.load(f)
    except (OSError, ValueError):
        return {}
    return found if isinstance(found, dict) else {}


class OpeningOutlook(SampledOutlook):
    """Who is winning before anyone has played, for a built-in rule set whose outcomes are still being built:
    :class:`SampledOutlook` with no outcomes file, its one sheet's samples shipped (:data:`OPENINGS`, the very
    games the file gives an empty sheet). Covers only games whose sheets are all empty."""

    def __init__(self, late: LateOutlook, distribution: np.ndarray) -> None:
        super().__init__(late, None)  # type: ignore[arg-type] - no file: the one distribution read is shipped
        self.start = int(self.space.state_of({}))
        self.distribution = distribution

    @classmethod
    def of(cls, late: LateOutlook) -> "OpeningOutlook | None":
        """The shipped opening of the late outlook's rule set, or None when none is shipped for it."""
        found = shipped().get(key_of(late.solver.rules))
        if not found or found.get("games") != GAMES or found.get("seed") != SEED:
            return None
        counts = np.zeros(late.P, dtype=np.int64)
        counts[found["low"]:found["low"] + len(found["counts"])] = found["counts"]
        distribution = counts / GAMES
        distribution.setflags(write=False)
        return cls(late, distribution)

    def covers(self, game: "Game") -> None:
        """Games before their first turn only."""
        if any(game.sheets[i] for i in range(game.players)):
            raise NotExact("the shipped opening covers empty sheets only")

    def row_of(self, sheet: dict[str, int]) -> int:
        if sheet:
            raise NotExact("the shipped opening covers empty sheets only")
        return self.start

    def _sample(self, state: int) -> np.ndarray:
        return self.distribution
