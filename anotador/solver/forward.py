"""A turn followed forward under the advisor's policy, for many states at once: where each state's turn leads.

:func:`.chances.turn_outcomes` does this for one state, in a few dozen
small numpy steps (about 0.4 ms). Here the same steps run on a batch of
states laid out items x states, as the table's build lays them
(:meth:`Solver.turn`): the policy's keep and box for every roll of every
state, then the chance of every roll carried through the three throws a die
at a time (:meth:`Dice.throw_rest_by_keep`), summed per (state after,
points). Every sum runs in a fixed order that does not depend on the other
states in the batch, so a state's outcomes are the same whatever it is
worked out with.

For rule sets of one box a turn where a served roll scores and wins as any
other (:func:`batched`: the Yahtzee family): there the policy is the same
moves as :func:`.chances.policy` names, and the outcomes the same as
:func:`.chances.turn_outcomes` to rounding (the tests hold them to 1e-12).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from .chances import SCORE_FIRST
from .solve import NEG, Solver

if TYPE_CHECKING:  # pragma: no cover
    from ..rules import RuleSet

#: States followed at once: a batch's sub-keeps x rolls x states array is 31 x 252 x 128 floats (8 MB).
BATCH = 128


def batched(rules: "RuleSet") -> bool:
    """Whether :func:`outcomes` follows this rule set's turns: one box a turn, five dice, and no served roll
    that scores or wins differently (so no instant win and one way of scoring each roll)."""
    return rules.boxes_per_turn == 1 and rules.dice <= 5 and not rules.served_matters


def outcomes(solver: Solver, V: np.ndarray, mask: np.ndarray, u: np.ndarray, flags: np.ndarray
             ) -> list[tuple[np.ndarray, np.ndarray, np.ndarray]]:
    """Each state's turn under the policy: ``(after, points, chance)`` of every outcome with a chance, in order
    of (state after, points); ``points`` are the box's and the roll's bonus."""
    out: list[tuple[np.ndarray, np.ndarray, np.ndarray]] = []
    for lo in range(0, len(mask), BATCH):
        part = slice(lo, lo + BATCH)
        out += _outcomes(solver, V, mask[part], u[part], flags[part])
    return out


def _outcomes(solver: Solver, V: np.ndarray, mask, u, flags) -> list[tuple[np.ndarray, np.ndarray, np.ndarray]]:
    d, n = solver.turn_dice, len(mask)
    turn = solver.turn(V, mask, u, flags)
    plain = turn.now_plain.T  # rolls x states (views of the batch's items x states)
    keep1, value1 = d.best_keep_by_roll(turn.keep1.T)
    keep2, value2 = d.best_keep_by_roll(turn.keep2.T)
    stop1, stop2 = plain + SCORE_FIRST >= value1, plain + SCORE_FIRST >= value2
    after, points = _chosen(solver, V, mask, u, flags)
    # the chance of each roll at each throw, and of scoring it there
    chance = np.broadcast_to(d.first[:, None], plain.shape)
    score = chance * stop1
    chance = d.throw_rest_by_keep(_kept(chance, ~stop1, keep1, len(d.keeps)))
    score += chance * stop2
    score += d.throw_rest_by_keep(_kept(chance, ~stop2, keep2, len(d.keeps)))
    # summed per (state, state after, points): the rolls of one state in roll order
    column = np.broadcast_to(np.arange(n)[None, :], plain.shape)
    top = int(points.max()) + 1
    live = score > 0
    code = (column[live] * solver.space.size + after[live]) * top + points[live]
    codes, inverse = np.unique(code, return_inverse=True)
    summed = np.bincount(inverse, weights=score[live])
    state, rest = np.divmod(codes, solver.space.size * top)
    starts = np.searchsorted(state, np.arange(n + 1))
    found = []
    for s in range(n):
        at = slice(starts[s], starts[s + 1])
        found.append((rest[at] // top, rest[at] % top, summed[at]))
    return found


def _kept(chance: np.ndarray, thrown: np.ndarray, keep: np.ndarray, keeps: int) -> np.ndarray:
    """The chance of each keep (keeps x states) from each roll's (rolls x states) and the keep it throws to:
    summed in roll order for each state."""
    n = chance.shape[1]
    bins = keep * n + np.arange(n)[None, :]
    return np.bincount(bins[thrown], weights=chance[thrown], minlength=keeps * n).reshape(keeps, n)


def _chosen(solver: Solver, V: np.ndarray, mask, u, flags) -> tuple[np.ndarray, np.ndarray]:
    """Where each roll goes scored now, for a batch (rolls x states): the state after and the points, box and
    roll's bonus. As :meth:`Solver.choose_one`: the best box, the first in sheet order among equals, from the
    same sums; the rolls the engine scores by the sheet from its judgement, a forced joker where it is placed."""
    space, rows = solver.space, solver.rows[False]
    best = np.full((rows.shape[0], len(mask)), NEG)
    box = np.zeros(best.shape, dtype=np.int64)
    for b, every in solver.each_box(V, mask, u, flags, False):
        better = every > best
        best[better], box[better] = every[better], b
    points = rows[np.arange(rows.shape[0])[:, None], box].astype(np.int64)
    bonus = 0
    if len(solver.special):
        special_box, special_points, bonus = _special(solver, V, mask, u, flags)
        box[solver.special], points[solver.special] = special_box, special_points
    after = space.close_many(mask[None, :], u[None, :], flags[None, :], box, points)
    if len(solver.special):
        points[solver.special] += bonus
    return after, points


def _special(solver: Solver, V: np.ndarray, mask, u, flags) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The box, points and bonus of each special roll (special x states), weighed as
    :meth:`Solver._special_one` weighs them (:meth:`Solver.special_boxes`: its points plus the value after),
    the first box in sheet order among equals."""
    points, bonus, values = solver.special_boxes(V, mask, u, flags, False)
    box = values.argmax(axis=2)  # the first box in sheet order among equals
    chosen = np.maximum(np.take_along_axis(points, box[:, :, None], axis=2)[:, :, 0], 0)
    return box.T, chosen.T, bonus.T.astype(np.int64)
