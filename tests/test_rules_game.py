"""The game at the table, in the pure engine: order, placing, the end, ties."""

from __future__ import annotations

import pytest

from anotador.rules import (
    BoxClosedError,
    Choice,
    FirstPlayerTieError,
    Game,
    GameOverError,
    InvalidDiceError,
    InvalidGroupsError,
    InvalidTurnError,
    NotQualifiedError,
    NotYourTurnError,
    Placed,
    RollOffError,
    UnknownBoxError,
    find_variant,
    first_player,
)


def scratch_all(game: Game, skip: dict[int, set[str]] | None = None) -> None:
    """Play every remaining turn as a scratch of the first free box."""
    skip = skip or {}
    while (due := game.turn()) is not None:
        p = due[0]
        box = next(b.id for b in game.rules.boxes if b.id not in game.sheets[p] and b.id not in skip.get(p, set()))
        n = game.rules.boxes_per_turn
        if n == 1:
            game.play(p, None, False, [Choice(box, True)])
        else:
            free = [b.id for b in game.rules.boxes if b.id not in game.sheets[p]][:n]
            game.play(p, None, False, [Choice(b, True) for b in free])


@pytest.mark.parametrize(
    ("variant", "rolls", "start"),
    [
        ("generala", [3, 6, 2], 1),          # highest die starts
        ("general-pr", [3, 6, 2], 2),        # Puerto Rico: lowest die starts
        ("generala", None, 0),               # no rolls: seat order
    ],
)
def test_first_player(variant, rolls, start):
    assert first_player(find_variant(variant).rules(), rolls, 3) == start


@pytest.mark.parametrize(
    ("variant", "rolls", "start"),
    [
        # seed 000: "If there is a tie, the tied players roll again": only they.
        ("generala", [[6, 6, 3], [2, 1]], 0),
        ("generala", [[6, 6, 3], [1, 2]], 1),
        ("generala", [[6, 6, 6], [4, 4, 1], [2, 5]], 1),
        ("generala", [[6, 6, 3], [3, 3], [1, 6]], 1),         # tied again: the same two roll again
        ("generala", [[5, 2, 5, 5, 1, 5], [6, 6, 1, 2], [3, 4]], 2),
        ("generala", [[6, 2, 3]], 0),                          # one round, as rounds
        ("general-pr", [[1, 4, 1], [5, 2]], 2),                # lowest die: seats 0 and 2 tied at 1
        ("general-pr", [[1, 4, 1], [2, 5]], 0),
        ("double-cameroon", [[2, 2, 6], [3, 1]], 1),           # a form of General: lowest starts
        ("double-cameroon", [4, 2, 6], 1),
    ],
)
def test_first_player_rounds(variant, rolls, start):
    players = len(rolls[0]) if isinstance(rolls[0], list) else len(rolls)
    assert first_player(find_variant(variant).rules(), rolls, players) == start


def test_a_seat_that_lost_the_first_roll_never_starts():
    # 3 players roll 6, 6, 3: only seats 0 and 1 roll again, whatever seat 2 would roll.
    rules = find_variant("generala").rules()
    for a in range(1, 7):
        for b in range(1, 7):
            if a == b:
                with pytest.raises(FirstPlayerTieError) as tie:
                    first_player(rules, [[6, 6, 3], [a, b]], 3)
                assert tie.value.seats == (0, 1)
            else:
                assert first_player(rules, [[6, 6, 3], [a, b]], 3) in (0, 1)


def test_first_player_ties_roll_again_and_as_listed_ignores_dice():
    with pytest.raises(FirstPlayerTieError) as tie:
        first_player(find_variant("generala").rules(), [6, 2, 6], 3)
    assert tie.value.seats == (0, 2) and tie.value.field == "first_rolls"
    with pytest.raises(FirstPlayerTieError) as tie:
        first_player(find_variant("general-pr").rules(), [[1, 1, 4, 1], [2, 2, 3]], 4)
    assert tie.value.seats == (0, 1)
    # a tie below the top does not matter
    assert first_player(find_variant("generala").rules(), [6, 2, 2], 3) == 0
    assert first_player(find_variant("generala").rules(first_player="as_listed"), [1, 6, 2], 3) == 0
    with pytest.raises(InvalidDiceError):
        first_player(find_variant("generala").rules(), [6, 2], 3)
    with pytest.raises(InvalidDiceError):
        first_player(find_variant("generala").rules(), [6, 7, 1], 3)


def test_a_game_has_two_to_twelve_players():
    rules = find_variant("generala").rules()
    for n in (0, 1, 13):
        with pytest.raises(InvalidTurnError):
            Game(rules, n)
    assert Game(rules, 2).players == 2 and Game(rules, 12).players == 12


def test_a_number_box_scored_zero_is_a_scratch():
    # RULES.md: "A number box may score 0 ... that is the same as scratching it."
    game = Game(find_variant("generala").rules(), 2)
    play = game.play(0, [2, 3, 4, 5, 6], False, [Choice("ones")])
    assert play.boxes[0] == Placed("ones", 0, False) and game.scratched[0] == {"ones"}
    cameroon = Game(find_variant("double-cameroon").rules(), 2)
    play = cameroon.play(0, [2, 2, 2, 2, 2, 3, 3, 3, 3, 3], False,
                         [Choice("ones", dice=(2, 2, 2, 2, 2)), Choice("threes", dice=(3, 3, 3, 3, 3))])
    assert [(p.category, p.points, p.scratch) for p in play.boxes] == [("ones", 0, False), ("threes", 15, False)]
    assert cameroon.scratched[0] == {"ones"}


def test_turns_go_round_the_table_from_the_first_player():
    game = Game(find_variant("generala").rules(), 3, start=2)
    seen = []
    for _ in range(7):
        p, rnd = game.turn()
        seen.append((p, rnd))
        first_free = next(b.id for b in game.rules.boxes if b.id not in game.sheets[p])
        game.play(p, None, False, [Choice(first_free, True)])
    assert seen == [(2, 1), (0, 1), (1, 1), (2, 2), (0, 2), (1, 2), (2, 3)]


def test_points_come_from_the_rules():
    game = Game(find_variant("generala").rules(), 2)
    play = game.play(0, [6, 6, 6, 1, 1], True, [Choice("full")])
    assert play.boxes[0].points == 35 and not play.instant_win
    assert game.sheets[0] == {"full": 35}
    play = game.play(1, [6, 6, 6, 1, 1], False, [Choice("sixes")])
    assert play.boxes[0].points == 18


def test_refusals():
    game = Game(find_variant("generala").rules(), 2)
    with pytest.raises(NotYourTurnError):
        game.play(1, [1, 2, 3, 4, 5], False, [Choice("straight")])
    with pytest.raises(NotQualifiedError):
        game.play(0, [1, 2, 3, 4, 6], False, [Choice("straight")])
    with pytest.raises(UnknownBoxError):
        game.play(0, [1, 2, 3, 4, 6], False, [Choice("chance")])
    with pytest.raises(InvalidDiceError):
        game.play(0, None, False, [Choice("straight")])
    with pytest.raises(InvalidTurnError):
        game.play(5, [1, 2, 3, 4, 6], False, [Choice("ones")])
    # a number box may take a roll that scores 0 there: same as scratching it
    assert game.play(0, [2, 2, 3, 4, 6], False, [Choice("ones")]).boxes[0].points == 0
    game.play(1, None, False, [Choice("ones", True)])
    with pytest.raises(BoxClosedError):
        game.play(0, [1, 1, 1, 4, 6], False, [Choice("ones")])
    assert game.turns == 2  # refusals changed nothing


def test_a_served_generala_ends_the_game_at_once():
    game = Game(find_variant("generala").rules(), 3)
    game.play(0, [1, 1, 1, 4, 6], False, [Choice("ones")])
    play = game.play(1, [4, 4, 4, 4, 4], True, [Choice("generala")])
    assert play.instant_win
    assert game.turn() is None
    out = game.outcome()
    assert (out.status, out.winners, out.reason) == ("finished", (1,), "instant_win")
    with pytest.raises(GameOverError):
        game.play(2, [1, 2, 3, 4, 5], False, [Choice("straight")])
    # everyone else's open boxes stay open
    assert game.sheets[2] == {}


def test_served_generala_in_generala_doble_with_the_box_closed_scores_on():
    game = Game(find_variant("generala-doble").rules(), 2)
    game.play(0, None, False, [Choice("generala", True)])
    game.play(1, None, False, [Choice("ones", True)])
    play = game.play(0, [3, 3, 3, 3, 3], True, [Choice("double_generala")])
    assert not play.instant_win and play.boxes[0].points == 105
    assert game.outcome().status == "playing"


def test_a_game_ends_when_every_box_is_closed_and_the_highest_total_wins():
    game = Game(find_variant("generala").rules(), 2)
    game.play(0, [6, 6, 6, 6, 1], False, [Choice("sixes")])
    scratch_all(game)
    assert game.turns == 20
    out = game.outcome()
    assert (out.status, out.winners, out.reason) == ("finished", (0,), "highest_total")
    assert game.totals() == [24, 0]


def test_tie_shared():
    game = Game(find_variant("generala").rules(), 3)
    scratch_all(game)
    out = game.outcome()
    assert (out.winners, out.reason) == ((0, 1, 2), "tie_shared")


def test_most_generalas_then_draw():
    rules = find_variant("generala-doble").rules()
    game = Game(rules, 3)
    game.play(0, [5, 5, 5, 5, 5], False, [Choice("generala")])   # 50, one generala
    game.play(1, [6, 6, 6, 6, 6], False, [Choice("sixes")])      # 30
    game.play(2, [1, 1, 1, 1, 2], False, [Choice("ones")])       # 4
    game.play(0, None, False, [Choice("ones", True)])
    game.play(1, [5, 5, 5, 5, 1], False, [Choice("fives")])      # 20 → 50, no generala
    scratch_all(game)
    assert game.totals() == [50, 50, 4]
    out = game.outcome()
    assert (out.winners, out.reason) == ((0,), "most_generalas")

    draw = Game(rules, 2)
    scratch_all(draw)
    assert (draw.outcome().winners, draw.outcome().reason) == ((0, 1), "draw")


def test_roll_off_until_one_is_highest():
    rules = find_variant("generala").rules(tie_break="roll_off")
    game = Game(rules, 3)
    game.play(0, [2, 2, 2, 1, 1], False, [Choice("twos")])      # 6
    game.play(1, [3, 3, 1, 1, 2], False, [Choice("threes")])    # 6
    game.play(2, [1, 1, 1, 1, 5], False, [Choice("ones")])      # 4
    scratch_all(game)
    out = game.outcome()
    assert (out.status, out.roll_off) == ("playing", (0, 1))
    assert game.turn() is None
    with pytest.raises(RollOffError):
        game.roll_off(2, [6, 6, 6, 6, 6])   # not tied
    game.roll_off(0, [3, 3, 3, 3, 3])       # 15
    with pytest.raises(RollOffError):
        game.roll_off(0, [6, 6, 6, 6, 6])   # has rolled this round
    assert game.roll_off_state() == {"players": [0, 1], "rolled": {"0": 15}, "round": 1}
    game.roll_off(1, [1, 2, 3, 4, 5])       # 15 again: both roll again, a second round
    assert game.roll_off_state() == {"players": [0, 1], "rolled": {}, "round": 2}
    game.roll_off(1, [6, 6, 6, 6, 5])       # 29
    game.roll_off(0, [6, 6, 6, 6, 4])       # 28
    out = game.outcome()
    assert (out.status, out.winners, out.reason) == ("finished", (1,), "roll_off")
    with pytest.raises(RollOffError):
        game.roll_off(0, [6, 6, 6, 6, 6])


@pytest.mark.parametrize("players", [2, 3])
def test_a_roll_off_still_tied_after_its_last_round_is_a_shared_win(players):
    from anotador.rules.game import MAX_ROLL_OFF_ROUNDS

    rules = find_variant("generala").rules(tie_break="roll_off")
    game = Game(rules, players)
    scratch_all(game)  # every total 0: all tied
    for round_ in range(MAX_ROLL_OFF_ROUNDS):
        assert game.outcome().roll_off == tuple(range(players)), round_
        for p in range(players):
            game.roll_off(p, [3, 3, 3, 3, 3])  # every sum 15: tied again
    out = game.outcome()
    assert (out.status, out.winners, out.reason, out.roll_off) == ("finished", tuple(range(players)), "tie_shared",
                                                                 None)
    assert len(game.roll_offs) == MAX_ROLL_OFF_ROUNDS * players
    with pytest.raises(RollOffError, match=f"after {MAX_ROLL_OFF_ROUNDS} rounds still tied"):
        game.roll_off(0, [6, 6, 6, 6, 6])
    # one round short of the cap, a winner still wins it
    again = Game(rules, 2)
    scratch_all(again)
    for _ in range(MAX_ROLL_OFF_ROUNDS - 1):
        again.roll_off(0, [2, 2, 2, 2, 2])
        again.roll_off(1, [2, 2, 2, 2, 2])
    again.roll_off(0, [2, 2, 2, 2, 2])
    again.roll_off(1, [2, 2, 2, 2, 3])
    assert (again.outcome().winners, again.outcome().reason) == ((1,), "roll_off")


def test_double_cameroon_fills_two_boxes_a_turn():
    rules = find_variant("double-cameroon").rules()
    game = Game(rules, 2)
    dice = [2, 3, 4, 5, 6, 1, 2, 3, 4, 5]
    play = game.play(0, dice, False, [Choice("big_cameroon", dice=(6, 5, 4, 3, 2)),
                                      Choice("little_cameroon", dice=(1, 2, 3, 4, 5))])
    assert [(b.category, b.points) for b in play.boxes] == [("big_cameroon", 30), ("little_cameroon", 21)]
    with pytest.raises(InvalidTurnError):
        game.play(1, dice, False, [Choice("big_cameroon", dice=(2, 3, 4, 5, 6))])  # one box only
    with pytest.raises(InvalidTurnError):
        game.play(1, dice, False, [Choice("ones", dice=(2, 3, 4, 5, 6)), Choice("ones", dice=(1, 2, 3, 4, 5))])
    with pytest.raises(InvalidGroupsError):
        game.play(1, dice, False, [Choice("sixes", dice=(6, 6, 4, 5, 6)), Choice("ones", dice=(1, 2, 3, 4, 5))])
    with pytest.raises(NotQualifiedError):
        game.play(1, dice, False, [Choice("full", dice=(2, 3, 4, 5, 6)), Choice("ones", dice=(1, 2, 3, 4, 5))])
    # a group that fits nothing is scratched into a box
    play = game.play(1, dice, False, [Choice("full", True, dice=(2, 3, 4, 5, 6)), Choice("ones", dice=(1, 2, 3, 4, 5))])
    assert [(b.category, b.points, b.scratch) for b in play.boxes] == [("full", 0, True), ("ones", 1, False)]
    scratch_all(game)
    assert game.turns == 10 and game.rules.rounds == 5
    assert game.outcome().winners == (0,)


def test_replay_names_the_turn_that_no_longer_fits():
    rules = find_variant("generala").rules()
    turns = [(0, [1, 2, 3, 4, 5], False, [Choice("straight")]), (1, None, False, [Choice("ones", True)]),
             (0, [1, 2, 3, 4, 5], False, [Choice("straight")])]
    with pytest.raises(BoxClosedError) as info:
        Game.replay(rules, 2, 0, turns)
    assert info.value.turn == 3
    game, plays = Game.replay(rules, 2, 0, turns[:2])
    assert game.turns == 2 and [p.boxes[0].points for p in plays] == [20, 0]
