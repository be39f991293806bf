"""A seeded simulation of the chances model, by another road: games played to their end.

Every decision comes from :func:`anotador.solver.advise.advise` (the advisor
as a player asks it, one roll at a time), every turn goes through the rules
engine's :class:`~anotador.rules.Game` (which ends the game on an instant
win and names the winners), and the dice come from a seeded generator. Only
the model is shared with :mod:`anotador.solver.chances`: no table of its.
Used by ``tests/test_chances.py`` (small) and ``bench/chances.py`` (large).
"""

from __future__ import annotations

import random
from typing import Sequence

import numpy as np

from anotador.rules import Game
from anotador.rules.boxes import count
from anotador.rules.game import Choice
from anotador.solver.advise import advise


class Player:
    """The advisor's policy, its answers kept per (sheet, dice, throw): late games ask the same often."""

    def __init__(self, solver, V) -> None:
        self.solver, self.V = solver, V
        self.kept: dict = {}

    def move(self, sheet: dict[str, int], dice: Sequence[int], throw: int) -> dict:
        key = (tuple(sorted(sheet.items())), tuple(sorted(dice)), throw)
        found = self.kept.get(key)
        if found is None:
            found = self.kept[key] = advise(self.solver, self.V, sheet, count(dice), throw).best
        return found


def play_turn(game: Game, player: Player, rng: random.Random) -> None:
    """One turn of the player due, as the advisor plays it: throw, keep, throw, ..., then the box."""
    seat, _ = game.turn()
    dice = sorted(rng.randint(1, 6) for _ in range(5))
    for throw in (1, 2, 3):
        move = player.move(game.sheets[seat], dice, throw)
        if "keep" in move:
            dice = sorted(move["keep"] + [rng.randint(1, 6) for _ in range(5 - len(move["keep"]))])
            continue
        box = move["category"]
        score = game.rules.score_counts(count(dice), throw == 1, game.sheets[seat])
        scores = dict(score.options)
        scratch = scores.get(box, 0) == 0 and game.rules.box(box).kind != "number"
        game.play(seat, dice, throw == 1, [Choice(box, scratch=scratch)])
        return
    raise AssertionError("the advisor threw a fourth time")


def simulate(game: Game, player: Player, games: int, seed: int) -> np.ndarray:
    """Each player's share of the wins over ``games`` games played on from ``game`` (an array, games x players).

    A tie that goes to a roll-off counts as an equal share among the tied, as the model says.
    """
    rng = random.Random(seed)
    shares = np.zeros((games, game.players))
    for k in range(games):
        g = game.copy()
        while g.turn() is not None:
            play_turn(g, player, rng)
        out = g.outcome()
        ahead = out.winners if out.status == "finished" else out.roll_off
        shares[k, list(ahead)] = 1 / len(ahead)
    return shares
