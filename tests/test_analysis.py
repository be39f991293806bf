"""The analysis of a played game: every keep and box judged, and luck that averages zero for everybody.

Two players play whole games of Generala: one takes the advisor's move at
every throw, the other keeps and scores at random. With the throws
recorded, the optimal one loses nothing anywhere, and each one's luck is a
sum of "what the dice gave against what the position chosen expected", so
over many games it averages zero whoever plays.
"""

from __future__ import annotations

import random
import statistics

import pytest

from anotador.rules import Throw, find_variant
from anotador.solver.advise import BOX_ONLY, EVERY_DECISION, NOTHING, Position, advise, judge_turn

GAMES = 200
#: A fixed seed: the mean-luck check is statistical (an exact analysis still fails it for about one seed in
#: twenty; 2026 was one). test_luck_averages_zero_exactly checks the same property without sampling.
SEED = 7


def throw(rng, n):
    return sorted(rng.randint(1, 6) for _ in range(n))


def counts(dice):
    return tuple(list(dice).count(f) for f in range(1, 7))


def optimal(solver, V, sheet, dice, roll, rng):
    """The advisor's move: ("keep", dice) or ("box", category, points)."""
    found = advise(solver, V, sheet, counts(dice), roll)
    if "keep" in found.best:
        return ("keep", found.best["keep"])
    box = found.best["category"]
    return ("box", box, next(b["points"] for b in found.boxes if b["category"] == box))


def at_random(solver, V, sheet, dice, roll, rng):
    """Stop now and then, keep any dice, score in any free box."""
    if roll < 3 and rng.random() < 0.7:
        keep = [d for d in dice if rng.random() < 0.5]
        if len(keep) < len(dice):
            return ("keep", sorted(keep))
    boxes, _ = Position(solver, V, sheet).boxes(counts(dice), roll == 1 and solver.rules.served_matters)
    b = rng.choice(boxes)
    return ("box", b["category"], b["points"])


def play_turn(solver, V, sheet, policy, rng):
    """One turn as a table plays it: the throws with what was kept, and the box with its points."""
    n = solver.rules.dice
    dice, throws = throw(rng, n), []
    for roll in (1, 2, 3):
        move = policy(solver, V, sheet, dice, roll, rng)
        if move[0] == "box":
            throws.append(Throw(tuple(dice)))
            return throws, move[1], move[2]
        throws.append(Throw(tuple(dice), tuple(move[1])))
        dice = sorted(list(move[1]) + throw(rng, n - len(move[1])))
    raise AssertionError("a policy kept dice after the third throw")


@pytest.fixture(scope="module")
def games(advice_tables):
    """200 solitaire games of Generala for each policy, every turn judged with its throws (in process)."""
    solver, V = advice_tables["generala"]
    rng = random.Random(SEED)
    out = {"optimal": [], "random": []}
    for _ in range(GAMES):
        for name, policy in (("optimal", optimal), ("random", at_random)):
            sheet, judged = {}, []
            for number in range(1, solver.rules.rounds + 1):
                throws, box, points = play_turn(solver, V, sheet, policy, rng)
                dice = list(throws[-1].dice)
                judged.append(judge_turn(solver, V, sheet, 0, number, 0, dice, len(throws) == 1,
                                         [(box, points, None)], 0, throws))
                sheet[box] = points
            out[name].append((judged, sum(sheet.values()) + float(V[solver.space.state_of(sheet)])))
    return out


def test_the_optimal_player_loses_nothing_at_any_decision(games):
    decisions = [d for judged, _ in games["optimal"] for t in judged for d in t.decisions]
    assert len(decisions) > GAMES * 10  # keeps and boxes: more than one decision a turn
    assert any("keep" in d.chosen for d in decisions) and all(t.judged == EVERY_DECISION
                                                             for judged, _ in games["optimal"] for t in judged)
    assert max(d.lost for d in decisions) < 1e-9


def test_a_random_player_loses_at_keeps_and_at_boxes(games):
    decisions = [d for judged, _ in games["random"] for t in judged for d in t.decisions]
    keeps = [d.lost for d in decisions if "keep" in d.chosen]
    boxes = [d.lost for d in decisions if "keep" not in d.chosen]
    assert statistics.mean(keeps) > 1 and statistics.mean(boxes) > 1


@pytest.mark.parametrize("who", ["optimal", "random"])
def test_each_players_luck_averages_zero(games, who):
    """Within two standard errors of 0 over 200 games: luck no longer holds the cost of bad keeps."""
    lucks = [sum(t.luck for t in judged) for judged, _ in games[who]]
    mean, se = statistics.mean(lucks), statistics.stdev(lucks) / len(lucks) ** 0.5
    assert abs(mean) < 2 * se, (mean, se)


@pytest.mark.parametrize("who", ["optimal", "random"])
def test_every_turn_adds_up(games, who, advice_tables):
    """Each turn moves the expectation by its luck less its losses; the game ends at the sheet's total."""
    V = advice_tables["generala"].values
    for judged, final in games[who][:20]:
        assert judged[0].expected_before == pytest.approx(float(V[0]), abs=1e-9)
        for a, b in zip(judged, judged[1:]):
            assert b.expected_before == pytest.approx(a.expected_after, abs=1e-9)
        for t in judged:
            assert t.expected_after == pytest.approx(t.expected_before + t.luck - t.lost, abs=1e-9)
        assert judged[-1].expected_after == pytest.approx(final, abs=1e-9)


def test_where_only_the_final_dice_are_known_only_the_box_is_judged(advice_tables):
    solver, V = advice_tables["generala"]
    # 6-6-1-2-3 as the final dice of a later throw: sixes is judged against the best box, no keep
    judged = judge_turn(solver, V, {}, 0, 1, 0, [6, 6, 1, 2, 3], False, [("sixes", 12, None)], 0)
    assert judged.judged == BOX_ONLY and judged.luck is None and len(judged.decisions) == 1
    assert "keep" not in judged.decisions[0].best
    assert judged.expected_after == pytest.approx(judged.expected_before + judged.unjudged - judged.lost)
    # served (one throw) is a whole record even without the throws: stopping there is judged against keeping
    served = judge_turn(solver, V, {}, 0, 1, 0, [6, 6, 1, 2, 3], True, [("sixes", 12, None)], 0)
    assert served.judged == EVERY_DECISION and served.decisions[0].best == {"keep": [6, 6]}
    assert served.lost > 1 and served.luck is not None
    # a scratch with no dice: nothing to judge
    scratch = judge_turn(solver, V, {}, 0, 1, 0, None, False, [("generala", 0, None)], 0)
    assert scratch.judged == NOTHING and scratch.lost is None and scratch.decisions == []


def test_ten_dice_keeps_are_judged(advice_tables):
    solver, V = advice_tables["double-cameroon"]
    rules = find_variant("double-cameroon").rules()
    rng = random.Random(5)
    first = throw(rng, 10)
    keep = [d for d in first if d >= 5][:9]
    second = sorted(keep + throw(rng, 10 - len(keep)))
    found = advise(solver, V, {}, counts(second), 2, limit=1)
    split = found.splits[0]["boxes"]
    placed = [(b["category"], b["points"], b["dice"]) for b in split]
    judged = judge_turn(solver, V, {}, 0, 1, 0, second, False, placed, 0,
                        [Throw(tuple(first), tuple(keep)), Throw(tuple(second))])
    assert judged.judged == EVERY_DECISION and [d.roll for d in judged.decisions] == [1, 2]
    assert judged.decisions[0].chosen == {"keep": keep}
    assert judged.expected_after == pytest.approx(judged.expected_before + judged.luck - judged.lost, abs=1e-9)
    assert rules.boxes_per_turn == 2 and judged.decisions[1].chosen == {"split": [b["category"] for b in split]}


def test_luck_averages_zero_exactly(advice_tables):
    """Over every second throw a keep can lead to, weighted by its chance, the second throw's luck is 0."""
    from anotador.solver.dice import chance, expand, multisets

    solver, V = advice_tables["generala"]
    rng = random.Random(3)
    for sheet in ({}, {"ones": 3, "generala": 0, "full": 30}):
        first = throw(rng, 5)
        for keep in ([], [first[0]], first[:3], first[1:]):
            total = 0.0
            for fresh in multisets(5 - len(keep)):
                second = sorted(keep + expand(fresh))
                box = Position(solver, V, sheet).boxes(counts(second), False)[0][0]
                judged = judge_turn(solver, V, sheet, 0, 1, 0, second, False, [(box["category"], box["points"], None)],
                                    0, [Throw(tuple(first), tuple(keep)), Throw(tuple(second))])
                first_luck = judged.decisions[0].expected_best - judged.expected_before
                total += chance(fresh) * (judged.luck - first_luck)
            assert total == pytest.approx(0, abs=1e-9), (sheet, first, keep)
