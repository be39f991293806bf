"""Exact optimal play for any rule set: backward induction over the sheets it can reach.

The objective is solitaire and exact: the expected final total of one
player's sheet, with up to three rolls a turn and any dice kept between
rolls. A roll that would win the game on the spot is valued as the same dice
thrown later in the turn (not served), so the objective stays a plain
expectation.

A *state* is what the rest of a game depends on: which boxes are closed;
each bonus section's subtotal, capped at its threshold; and, for the few boxes
whose value matters later (:attr:`RuleSet.held_matters`: a generala that must
score to open the double, a Yahtzee box whose 50 earns the bonus), whether
they hold points. The table holds, for every state, the expected points still
to come from it (section bonuses included, since the sheet's points so far
do not include them). Everything is read from the rule set: its boxes' rows of
points, its sections, and the engine itself for the few rolls whose scoring
looks at the sheet (five of a kind, see :meth:`RuleSet.depends_on_sheet`).

One turn, for a batch of states at once (numpy, by rows of 252 rolls):

1. ``now[s, r]``: the best of putting roll ``r`` in a free box now, its points
   plus the value of the state that follows;
2. roll 3 is ``now``; before it, each keep is worth the chance-weighted
   ``now`` of the rolls it can become; roll 2 is the better of ``now`` and
   its best keep; roll 1 the same with served points; the state's value is
   roll 1's expectation over a fresh roll.

Ten dice and two boxes a turn (``double-cameroon``): brute force over every
split of every roll into every pair of boxes would cost 3,003 rolls x 126
splits x 90 box pairs per state. Instead, for each group of five and each
first box, the best second box is found once (``Q``), and a split's value is
then a maximum over the first box only; every 10-dice roll takes the best of
its splits by a segmented maximum. That is exact, and a table builds in
seconds.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Callable, NamedTuple

import numpy as np

from .dice import Dice, Scratch, dice
from .space import Space
from .one import Chosen, OneSheet
from .special import NEG, SpecialRolls

if TYPE_CHECKING:  # pragma: no cover
    from ..rules import RuleSet

#: Bumped whenever a table's meaning or layout changes: stored tables carry it.
SOLVER_VERSION = 1
GROUP = 5
#: States per batch, for five dice (ten dice: as many floats a row, so fewer states): a batch's arrays stay
#: small and a build's peak memory bounded; larger batches were no faster and took more (bench/advice.py).
CHUNK = 512
#: States whose keeps a build weighs at once: a keep's and a roll's rows of 256 states (2 KB each) keep the
#: lattice's arrays in a core's cache, where 512 spill (bench/advice.py measures it).
LATTICE = 256
#: Ten dice: states whose splits are weighed at once (a state's pairs of groups are 63,504 floats, 0.5 MB).
SPLITS = 4


class Turn(NamedTuple):
    """One state's turn, every stage kept (for advice): values per roll and per keep."""

    now_plain: np.ndarray   # rolls: score now, not served (roll 2 or 3)
    now_served: np.ndarray  # rolls: score now, served (roll 1)
    keep2: np.ndarray       # keeps at roll 2: the expected value of roll 3
    roll2: np.ndarray       # rolls: the best at roll 2
    keep1: np.ndarray       # keeps at roll 1: the expected value of roll 2
    roll1: np.ndarray       # rolls: the best at roll 1
    value: float            # the state's value, before the first roll


class Solver(SpecialRolls, OneSheet):
    """Builds and reads the table of one rule set."""

    def __init__(self, rules: "RuleSet") -> None:
        self.rules = rules
        self.space = Space(rules)
        self.group: Dice = dice(GROUP)
        self.turn_dice: Dice = dice(rules.dice)
        rolls = self.group.rolls
        self.rows = {served: np.array([rules.row(r, served) for r in rolls], dtype=float)
                     for served in (False, True)}
        # Per box: the distinct points of its plain rows, and which one each roll takes.
        self.values = {served: [np.unique(self.rows[served][:, b], return_inverse=True)
                                for b in range(self.space.nb)] for served in (False, True)}
        self._init_special(rules, rolls)
        self.pairs = self._pairs() if rules.boxes_per_turn == 2 else None
        # Per box with one next state (it moves no subtotal, holds no flag), the rolls scoring more than its least
        # points, where they are under half the rolls (a Yahtzee's 6, a full house's 30): :meth:`now_by_roll`.
        self._few = {}
        single = [b for b in range(self.space.nb) if b not in self.space.held_bit
                  and not any(b in boxes for boxes, _, _ in self.space.sections)]
        for served in (False, True):
            more = {b: np.flatnonzero(self.rows[served][:, b] > self.rows[served][:, b].min()) for b in single}
            self._few[served] = {b: m for b, m in more.items() if len(m) < len(rolls) // 2}
        self._init_one()

    # -- one box a turn ---------------------------------------------------

    def now(self, V: np.ndarray, mask, u, flags, served: bool) -> np.ndarray:
        """The best of scoring each roll now, for a batch of states (states x rolls)."""
        if len(mask) == 1:
            return self._now_one(V, int(mask[0]), int(u[0]), int(flags[0]), served)[None, :]
        return self.now_by_roll(V, mask, u, flags, served).T

    def now_by_roll(self, V: np.ndarray, mask, u, flags, served: bool, scratch: Scratch | None = None
                    ) -> np.ndarray:
        """:meth:`now` as rolls x states: every step below is a row (one roll or one box value) for all the
        batch's states at once, contiguous, so numpy streams it rather than gathers columns."""
        out = Scratch.array(scratch, f"now {served}", (self.rows[served].shape[0], len(mask)))
        out.fill(NEG)
        few = self._few[served]
        kept: dict[int, tuple[np.ndarray, np.ndarray | None]] = {}  # each box's values after (for special rolls)
        for _, each in self.each_box(V, mask, u, flags, served, scratch, skip=few, kept=kept):
            np.maximum(out, each, out=out)
        if few:  # a box with one next state: every roll is worth at least its least points there, most no more
            space, rows = self.space, self.rows[served]
            least = np.full(len(mask), NEG)
            for b in few:
                after = V[space.close(mask, u, flags, b, 0)]
                after[(mask >> b) & 1 == 1] = NEG
                kept[b] = (after, None)
                np.maximum(least, after + rows[:, b].min(), out=least)
            np.maximum(out, least, out=out)
            for b, more in few.items():  # the few rolls that score more there
                out[more] = np.maximum(out[more], kept[b][0] + rows[more, b, None])
        if len(self.special):
            out[self.special] = self._special_kept(V, mask, u, flags, served, kept).T
        return out

    def each_box(self, V: np.ndarray, mask, u, flags, served: bool, scratch: Scratch | None = None,
                 skip=(), kept: dict | None = None):
        """For each box free in some state of the batch, in sheet order (but ``skip``): ``(box, values)``, each
        roll's points there plus the value after (rolls x states; -inf where the box is taken; special rolls as
        plain ones). ``values`` is one buffer, overwritten by the next box. ``kept`` gets, per box, the value
        after (one row, and None) or each distinct value's points plus the value after (and those points)."""
        space = self.space
        rows = self.rows[served]
        each = Scratch.array(scratch, "each box", (rows.shape[0], len(mask)))
        for b in range(space.nb):
            closed = (mask >> b) & 1 == 1
            if b in skip or closed.all():
                continue
            vals, inv = self.values[served][b]
            after = V[space.close(mask[None, :], u[None, :], flags[None, :], b, vals[:, None].astype(np.int64))]
            after[:, closed] = NEG  # the box is taken in these states (their index is some other state's)
            if after.shape[0] == 1:  # the box touches no section and no flag: one next state
                np.add(after, rows[:, b, None], out=each)
            else:  # the points added once per distinct value, not once per roll: the same sums
                np.add(after, vals[:, None], out=after)
                after.take(inv, axis=0, out=each)
            if kept is not None:
                kept[b] = (after[0], None) if after.shape[0] == 1 else (after, vals)
            yield b, each

    def turn(self, V: np.ndarray, mask, u, flags, scratch: Scratch | None = None) -> Turn:
        """One turn from a batch of states: every stage, and each state's value. With ``scratch`` (a build),
        a batch's stages are its buffers: only ``value`` outlives the next batch."""
        if len(mask) > 1:
            return self._turn_by_roll(V, mask, u, flags, scratch)
        plain = self._plain(V, mask, u, flags)
        served = self.now(V, mask, u, flags, True) if self.pairs is None and self.rules.served_matters else plain
        d = self.turn_dice
        keep2 = d.expect(plain)
        roll2 = np.maximum(plain, d.best_within(keep2))
        keep1 = d.expect(roll2)
        roll1 = np.maximum(served, d.best_within(keep1))
        return Turn(plain, served, keep2, roll2, keep1, roll1, roll1 @ d.first)

    def _plain(self, V: np.ndarray, mask, u, flags) -> np.ndarray:
        """One state's rolls scored now, not served (throws 2 and 3): one box, or two for ten dice."""
        return self.now_two(V, mask) if self.pairs is not None else self.now(V, mask, u, flags, False)

    def _turn_by_roll(self, V: np.ndarray, mask, u, flags, scratch: Scratch | None = None) -> Turn:
        """:meth:`turn` for a batch of states, every stage as items x states (see
        :meth:`now_by_roll`), handed out transposed (views): the same numbers as one state's path gives."""
        plain, served = self._scored_now(V, mask, u, flags, scratch)
        keep2, roll2, keep1, roll1 = self._throws(plain, served, scratch)
        return Turn(plain.T, served.T, keep2.T, roll2.T, keep1.T, roll1.T, self.turn_dice.first @ roll1)

    def _values(self, V: np.ndarray, mask, u, flags, scratch: Scratch) -> np.ndarray:
        """Each state's value (:meth:`turn`'s), for a build: the rolls scored now for the whole batch, then the
        keeps :data:`LATTICE` states at a time, whose rows stay in the core's cache (the stages are let go)."""
        plain, served = self._scored_now(V, mask, u, flags, scratch)
        value = np.empty(len(mask))
        pieces = max(1, round(len(mask) / LATTICE))
        for lo, hi in zip(range(pieces), range(1, pieces + 1)):
            lo, hi = lo * len(mask) // pieces, hi * len(mask) // pieces  # even pieces, none left small
            value[lo:hi] = self.turn_dice.first @ self._throws(plain[:, lo:hi], served[:, lo:hi], scratch)[3]
        return value

    def _scored_now(self, V: np.ndarray, mask, u, flags, scratch: Scratch | None) -> tuple[np.ndarray, np.ndarray]:
        """A batch's rolls scored now (rolls x states), not served and served (the same array where serving
        changes nothing): one box, or two for ten dice."""
        if self.pairs is not None:
            plain = np.ascontiguousarray(self.now_two(V, mask).T)
            return plain, plain
        plain = self.now_by_roll(V, mask, u, flags, False, scratch)
        return plain, self.now_by_roll(V, mask, u, flags, True, scratch) if self.rules.served_matters else plain

    def _throws(self, plain: np.ndarray, served: np.ndarray, scratch: Scratch | None):
        """From the rolls scored now (rolls x states), the keeps before throw 3 and the best at throw 2, then
        the keeps before throw 2 and the best at throw 1 (a build's are its scratch buffers)."""
        d = self.turn_dice
        keep2 = d.expect_by_keep(plain, scratch)
        roll2 = np.maximum(plain, d.best_within_by_roll(keep2, scratch),
                           out=Scratch.array(scratch, "roll2", plain.shape))
        keep1 = d.expect_by_keep(roll2, scratch)
        roll1 = np.maximum(served, d.best_within_by_roll(keep1, scratch),
                           out=Scratch.array(scratch, "roll1", plain.shape))
        return keep2, roll2, keep1, roll1

    # -- two boxes a turn -----------------------------------------------------

    def _pairs(self) -> tuple[np.ndarray, np.ndarray]:
        """Every (group, group) split of a ten-dice roll, ordered by roll, and where each roll starts."""
        space = self.space
        if space.sections or space.held or len(self.special):
            raise NotImplementedError("two boxes a turn with bonus sections or sheet-dependent rolls")
        g = self.group.rolls
        roll_of = np.array([[self.turn_dice.roll_index[tuple(a + b for a, b in zip(x, y))] for y in g] for x in g])
        order = np.argsort(roll_of, axis=None, kind="stable")
        starts = np.searchsorted(roll_of.ravel()[order], np.arange(len(self.turn_dice.rolls)))
        bits = 1 << np.arange(space.nb, dtype=np.int64)
        self._pair_bits = bits[:, None] | bits[None, :]  # both boxes closed
        self._apart = ~np.eye(space.nb, dtype=bool)  # two boxes, not one twice
        return order, starts

    def now_two(self, V: np.ndarray, mask) -> np.ndarray:
        """The best of splitting each ten-dice roll into two free boxes now (states x rolls)."""
        nb = self.space.nb
        P = self.rows[False]  # groups x boxes
        order, starts = self.pairs
        out = np.empty((len(mask), len(self.turn_dice.rolls)))
        for lo in range(0, len(mask), SPLITS):
            m = mask[lo:lo + SPLITS]
            # W[s, b1, b2]: the value after b1 and b2 take this turn's groups (-inf unless both are free)
            free = (m[:, None] >> np.arange(nb)) & 1 == 0
            W = V[self.space.index(m[:, None, None] | self._pair_bits, 0, 0)]
            W[~(free[:, :, None] & free[:, None, :] & self._apart)] = NEG
            # Q[s, g, b1]: the best second box for group g, the first box being b1
            Q = (P[None, :, None, :] + W[:, None, :, :]).max(axis=3)
            # M[s, g1, g2]: g1 in the first box, g2 in the second; a maximum over the first box, one box at a
            # time (the whole s x g1 x g2 x box array would take 90 MiB), the boxes free in some state only
            firsts = np.flatnonzero(free.any(axis=0))
            M = P[None, :, None, firsts[0]] + Q[:, None, :, firsts[0]]
            for b1 in firsts[1:]:
                np.maximum(M, P[None, :, None, b1] + Q[:, None, :, b1], out=M)
            out[lo:lo + SPLITS] = np.maximum.reduceat(M.reshape(len(m), -1)[:, order], starts, axis=1)
        return out

    def choose_two(self, V: np.ndarray, mask: int) -> Chosen:
        """For one state, where each ten-dice roll goes if split now: the best pair of boxes and groups, from the
        same sums as :meth:`now_two` (the first split worth the most, in the order :attr:`pairs` lists them)."""
        nb, rolls = self.space.nb, len(self.turn_dice.rolls)
        P = self.rows[False]
        order, starts = self.pairs
        free = (mask >> np.arange(nb)) & 1 == 0
        W = V[self.space.index(mask | self._pair_bits, 0, 0)]
        W[~(free[:, None] & free[None, :] & self._apart)] = NEG
        every = P[:, None, :] + W[None, :, :]  # g, b1, b2
        Q, second = every.max(axis=2), every.argmax(axis=2)
        M = np.full((len(P), len(P)), NEG)
        first = np.zeros(M.shape, dtype=np.int64)
        for b1 in np.flatnonzero(free):
            here = P[:, None, b1] + Q[None, :, b1]
            better = here > M
            M[better], first[better] = here[better], b1
        flat = M.ravel()[order]
        best = np.maximum.reduceat(flat, starts)
        hit = np.flatnonzero(flat == np.repeat(best, np.diff(np.append(starts, len(flat)))))
        pick = order[hit[np.searchsorted(hit, starts)]]  # each roll's first split worth its best
        g1, g2 = np.divmod(pick, len(P))
        b1 = first[g1, g2]
        b2 = second[g2, b1]
        points = (P[g1, b1] + P[g2, b2]).astype(np.int64)
        return Chosen(np.stack([b1, b2], axis=1), points, np.zeros(rolls, dtype=np.int64),
                      mask | (1 << b1) | (1 << b2))

    # -- the whole table --------------------------------------------------------

    def build(self, turns: int | None = None, progress: Callable[[int], None] | None = None) -> np.ndarray:
        """The expected points still to come from every reachable state (section bonuses included).

        ``turns``: solve only the states this many turns from the end (the
        others stay 0): what a test needs to compare small sheets.
        ``progress`` is told the number of states solved after each chunk.
        """
        space = self.space
        V = np.zeros(space.size)
        mask, u, flags = space.states(space.nb)
        V[space.index(mask, u, flags)] = space.bonus(u)
        step = self.rules.boxes_per_turn
        last = 0 if turns is None else max(0, space.nb - turns * step)
        done = 0
        chunk = max(16, CHUNK * len(self.group.rolls) // len(self.turn_dice.rolls))
        scratch = Scratch()
        for closed in range(space.nb - step, last - 1, -step):
            for mask, u, flags in space.batches(closed, chunk):
                if space.sections:  # one state of each kind the subtotals make alike (Space.alike) is solved
                    _, first, alike = np.unique(space.alike(mask, u, flags), return_index=True,
                                                return_inverse=True)
                    value = self._values(V, mask[first], u[first], flags[first], scratch)[alike]
                else:
                    value = self._values(V, mask, u, flags, scratch)
                V[space.index(mask, u, flags)] = value
                if progress is not None:
                    done += len(mask)
                    progress(done)
        return V
