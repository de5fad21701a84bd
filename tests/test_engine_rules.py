"""Every rule of checker play, one named test each, on positions a backgammon player can read.

Positions are written with :func:`positions.pos`: ``x`` is on roll, points are counted from x's
side (x bears off from 1-6), and checkers not written are borne off. Many tests freeze x's home
board (x's spare checkers on the 6-point, o holding x's 1-5 points, and an x checker still
outside, so nothing there may move or bear off) to isolate one checker's choices.
"""

from __future__ import annotations

from collections import Counter

import pytest
import torch

from bgai.engine import afterstates, checkers_per_side, expand, game_value, starting_board
from bgai.formats import decode_position_id
from tests.positions import key, moves_of, play, pos, show, shown

START = "x 24:2 13:5 8:3 6:5; o 19:5 17:3 12:5 1:2"
FROZEN_HOME = "o 5:2 4:2 3:2 2:2 1:2"  # with x's spares on its 6-point: home checkers cannot move


def assert_moves(board: torch.Tensor, dice: tuple[int, int], *expected_moves: str) -> None:
    """The legal results of ``dice`` are exactly those of ``expected_moves`` (gnubg notation)."""
    got = moves_of(board, dice)
    want = {key(play(board, move)) for move in expected_moves}
    assert got == want, f"\ngot:  {shown(got)}\nwant: {shown(want)}"


def test_the_fixture_helper_writes_the_standard_start():
    assert torch.equal(pos(START), torch.as_tensor(starting_board()))
    tricky = pos("x bar:2 24 6:3; o bar:1 1:2 19:4")
    assert torch.equal(pos(show(tricky)), tricky) and tricky[0, 23] == 2 and tricky[0, 5] == 4


# --- counts that gnubg gives (docs/formats.md §1) -----------------------------------------

START_COUNTS = {
    (1, 1): 42, (2, 1): 15, (2, 2): 75, (3, 1): 16, (3, 2): 17, (3, 3): 73, (4, 1): 14,
    (4, 2): 18, (4, 3): 17, (4, 4): 52, (5, 1): 8, (5, 2): 8, (5, 3): 9, (5, 4): 9, (5, 5): 4,
    (6, 1): 10, (6, 2): 14, (6, 3): 14, (6, 4): 14, (6, 5): 7, (6, 6): 11,
}  # fmt: skip


@pytest.mark.parametrize(("roll", "count"), START_COUNTS.items(), ids=lambda v: str(v))
def test_starting_position_has_gnubgs_number_of_moves_for_each_roll(roll, count):
    assert len(moves_of(pos(START), roll)) == count


def test_starting_position_has_637_moves_over_all_36_rolls():
    rolls = torch.tensor(list(START_COUNTS))
    _, parent = expand(torch.as_tensor(starting_board())[None].expand(len(rolls), 2, 25), rolls)
    per_roll = torch.bincount(parent, minlength=len(rolls))
    weight = torch.where(rolls[:, 0] == rolls[:, 1], 1, 2)
    assert int((per_roll * weight).sum()) == 637


@pytest.mark.parametrize(
    ("position_id", "roll", "count"),
    [
        ("jGfkASjg8wcBMA", (6, 5), 9),
        ("jGfkASjg8wcBMA", (3, 1), 16),
        ("jGfkASjg8wcBMA", (2, 2), 22),
        ("jGfkASjg8wcBMA", (6, 6), 9),
        ("zGbiIQgxH/AAWA", (3, 1), 4),  # on the bar
        ("zGbiIQgxH/AAWA", (2, 2), 20),
    ],
)
def test_other_positions_have_gnubgs_number_of_moves(position_id, roll, count):
    assert len(moves_of(torch.as_tensor(decode_position_id(position_id)), roll)) == count


@pytest.mark.parametrize("roll", [(6, 5), (6, 6)])
def test_a_dance_in_a_documented_position_returns_the_position_itself(roll):
    board = torch.as_tensor(decode_position_id("zGbiIQgxH/AAWA"))
    assert moves_of(board, roll) == {key(board)}


# --- entering from the bar -----------------------------------------------------------------------


@pytest.mark.parametrize("roll", [(a, b) for a in range(1, 7) for b in range(1, a + 1)])
def test_a_checker_on_the_bar_dances_against_a_closed_board(roll):
    board = pos("x bar:1 13:5 8:4 6:5; o 24:2 23:2 22:2 21:2 20:2 19:2 12:3")
    assert moves_of(board, roll) == {key(board)}


def test_against_a_five_point_board_only_the_open_point_lets_the_checker_in():
    board = pos("x bar:1 13:5 8:4 6:5; o 24:2 23:2 22:2 21:2 20:2 12:5")
    assert moves_of(board, (5, 4)) == {key(board)}  # 20 and 21 are closed: dance
    assert_moves(board, (6, 4), "bar/19 19/15", "bar/19 13/9", "bar/19 8/4", "bar/19 6/2")


def test_no_other_checker_moves_while_one_is_still_on_the_bar():
    board = pos("x bar:2 13:4 8:3 6:6; o 19:2 17:3 12:5 1:5")
    assert_moves(board, (6, 5), "bar/20")  # the 6 cannot enter, so it cannot be played at all


def test_a_checker_that_cannot_enter_freezes_the_rest_of_the_board():
    board = pos("x bar:1 13:5 8:4 6:5; o 20:2 19:2 17:3 12:5 1:3")
    assert moves_of(board, (6, 5)) == {key(board)}  # 13/7 and 8/3 would be open, but not allowed


def test_after_entering_the_other_die_may_move_any_checker():
    board = pos("x bar:1 13:5 8:4 6:5; o 19:2 17:3 12:5 1:5")
    assert_moves(board, (6, 5), "bar/20 20/14", "bar/20 13/7", "bar/20 8/2")


# --- how many dice must be played ------------------------------------------------------------


def test_both_dice_must_be_played_when_some_order_allows_it():
    # 24/18 is blocked; 24/23 alone would leave the 6 unplayed, 24/23/17 plays both.
    board = pos(f"x 24:1 6:14; {FROZEN_HOME} 18:2 20:3")
    assert_moves(board, (6, 1), "24/23/17")


def test_the_only_playable_die_is_played_even_if_it_is_the_lower():
    board = pos(f"x 24:1 6:14; {FROZEN_HOME} 18:2 17:2 20:1")
    assert_moves(board, (6, 1), "24/23")


def test_must_play_the_higher_die_when_either_fits_but_not_both():
    # 24/18 or 24/23 each fit, but 17 is closed so one checker cannot use both.
    board = pos(f"x 24:1 6:14; {FROZEN_HOME} 17:2 20:3")
    assert_moves(board, (6, 1), "24/18")


@pytest.mark.parametrize(
    ("closed", "expected"),
    [(16, "24/18"), (18, "24/20"), (20, "24/22"), (22, None)],
    ids=["three steps", "two steps", "one step", "none"],
)
def test_a_double_plays_as_many_steps_as_it_can(closed, expected):
    board = pos(f"x 24:1 6:14; {FROZEN_HOME} {closed}:2 19:3")
    if expected is None:
        assert moves_of(board, (2, 2)) == {key(board)}
    else:
        assert_moves(board, (2, 2), expected)


def test_a_dance_has_exactly_one_child_the_position_itself():
    board = pos(f"x 13:1 6:14; {FROZEN_HOME} 11:2 10:2 20:1")
    children, parent = expand(board[None], torch.tensor([[3, 2]]))
    assert children.shape == (1, 2, 25) and parent.tolist() == [0]
    assert torch.equal(children[0], board)


# --- bearing off -------------------------------------------------------------------------------

O_HOME = "o 19:5 20:5 21:5"  # o's spares on its own home board, out of x's way


def test_a_checker_bears_off_with_the_exact_die():
    board = pos(f"x 6:1 5:1; {O_HOME}")
    # 6/off 5/off, or 6/1 first and then the 6 takes the 5 off (the highest point).
    assert_moves(board, (6, 5), "6/off 5/off", "6/1 5/off")


def test_a_higher_die_bears_off_from_the_highest_point():
    assert_moves(pos(f"x 3:2; {O_HOME}"), (6, 5), "3/off(2)")


def test_a_higher_die_may_not_bear_off_a_lower_checker_while_a_higher_point_is_occupied():
    board = pos(f"x 5:1 2:1; {O_HOME}")
    # Never 2/off with the 6 while the 5-point is occupied (that would allow 2/off 5/4).
    assert_moves(board, (6, 1), "5/off 2/1", "5/4/off")


def test_no_bearing_off_while_a_checker_is_outside_the_home_board():
    board = pos(f"x 9:1 1:1; {O_HOME}")
    # 1/off is never allowed: the 9 must come home first, and then the 6 or 5 takes it off.
    assert_moves(board, (6, 5), "9/3/off", "9/4/off")


def test_bearing_off_resumes_as_soon_as_the_last_checker_is_home():
    assert_moves(pos(f"x 8:1 3:2; {O_HOME}"), (4, 4), "8/4/off 3/off(2)")


def test_a_checker_hit_during_the_bear_off_must_come_home_before_bearing_off_resumes():
    board = pos("x bar:1 2:14; o 24:2 22:3 21:5 20:5")
    assert_moves(board, (6, 6), "bar/19/13/7/1")  # never 2/off before the checker is home
    assert_moves(board, (6, 5), "bar/19/14")  # 20 is closed, and 2/off is not allowed yet


# --- hitting and blocking ----------------------------------------------------------------------


def test_hitting_a_blot_sends_it_to_the_bar():
    board = pos("x 13:2 6:13; o 10:1 19:5 17:4 12:5")
    hit = pos("x 13:1 10:1 6:12 5:1; o bar:1 19:5 17:4 12:5")
    moves = moves_of(board, (3, 1))
    assert key(hit) in moves
    for child in moves:  # o's blot on x's 10 is either still there or on the bar
        assert child[0][24] + child[0][14] == 1


def test_a_blot_on_the_way_is_hit_by_a_checker_passing_through():
    board = pos(f"x 13:1 6:14; {FROZEN_HOME} 10:1 20:4")
    through_blot = pos(f"x 9:1 6:14; {FROZEN_HOME} bar:1 20:4")
    around_it = pos(f"x 9:1 6:14; {FROZEN_HOME} 10:1 20:4")
    assert moves_of(board, (3, 1)) == {key(through_blot), key(around_it)}


def test_no_checker_lands_on_a_point_the_opponent_has_made():
    board = pos("x 13:2 6:13; o 10:2 19:5 17:3 12:5")
    for child in moves_of(board, (3, 3)):
        assert child[1][9] == 0  # never on 10
        assert child[1][12] == 2  # and 13/10 is the only way the midpoint could move a 3


@pytest.mark.parametrize(
    ("closed", "expected"),
    [("11:2 10:2", None), ("10:2 11:1", "13/11*/8"), ("11:2 10:1", "13/10*/8")],
    ids=["both closed", "via 11", "via 10"],
)
def test_one_checker_playing_both_dice_needs_an_open_point_on_the_way(closed, expected):
    board = pos(f"x 13:1 6:14; {FROZEN_HOME} {closed} 20:1")
    if expected is None:
        assert moves_of(board, (3, 2)) == {key(board)}  # 8 is open, but 13/8 cannot be played
    else:
        assert_moves(board, (3, 2), expected)


# --- scoring -----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("board", "value"),
    [
        ("x 1:1; o 19:5 17:5 12:5", 0),  # x has not finished
        ("x; o 19:5 17:5 12:4", 1),  # o has borne one off: a single game
        ("x; o 19:5 17:5 12:5", 2),  # o has borne none off: gammon
        ("x; o 6:1 19:4 17:5 12:5", 3),  # ... and has a checker in x's home board: backgammon
        ("x; o bar:1 19:4 17:5 12:5", 3),  # ... or on the bar: backgammon
        ("x; o 7:1 19:4 17:5 12:5", 2),  # x's 7-point is outside x's home board
    ],
)
def test_game_value_scores_single_gammon_and_backgammon(board, value):
    assert int(game_value(pos(board))) == value


def test_game_value_in_hypergammon_counts_three_checkers():
    assert int(game_value(pos("x; o 19:3"), checkers=3)) == 2
    assert int(game_value(pos("x; o 19:2"), checkers=3)) == 1
    assert int(game_value(pos("x; o 3:1 19:2"), checkers=3)) == 3


# --- variants ----------------------------------------------------------------------------------


def test_nackgammon_starts_with_two_more_back_checkers():
    nack = pos("x 24:2 23:2 13:4 8:3 6:4; o 1:2 2:2 12:4 17:3 19:4")
    assert torch.equal(torch.as_tensor(starting_board("nackgammon")), nack)
    assert checkers_per_side("nackgammon") == 15


def test_hypergammon_starts_with_three_checkers_on_the_opponents_home_board():
    hyper = pos("x 24 23 22; o 1 2 3")
    assert torch.equal(torch.as_tensor(starting_board("hypergammon")), hyper)
    assert checkers_per_side("hypergammon") == 3
    assert_moves(hyper, (6, 5), "24/18 23/18", "24/18 22/17", "24/18/13", "23/17 22/17",
                 "23/17/12", "22/16/11", "24/19 23/17", "24/19 22/16", "23/18 22/16")  # fmt: skip


def test_an_unknown_variant_is_refused():
    with pytest.raises(ValueError, match="unknown variant"):
        starting_board("plakoto")


# --- paths -------------------------------------------------------------------------------------


def replay(board: torch.Tensor, sources: list[int], dice: list[int]) -> torch.Tensor:
    """Play a path's steps one by one in notation, independent of the engine."""
    hops = []
    for source, die in zip(sources, dice, strict=True):
        if source >= 0:
            start = source + 1
            hops.append(f"{'bar' if start == 25 else start}/{max(start - die, 0) or 'off'}")
    return play(board, " ".join(hops))


@pytest.mark.parametrize(
    "board",
    [
        START,
        "x bar:1 13:5 8:4 6:5; o 24:2 23:2 22:2 20:2 12:5",
        "x 10:1 8:2 5:3 3:4 2:5; o bar:1 4:1 19:5 20:5 21:3",
        "x 24:2 13:5 8:3 6:5; o 22:1 20:1 18:1 16:1 14:1 19:5 12:5",
    ],
    ids=["start", "bar", "bear-off with a blot", "blots to hit"],
)
def test_each_childs_path_replays_to_that_child(board):
    board = pos(board)
    rolls = torch.tensor([(a, b) for a in range(1, 7) for b in range(1, a + 1)])
    result = afterstates(board[None].expand(len(rolls), 2, 25), rolls, with_paths=True)
    steps_per_roll: dict[int, set[int]] = {}
    for child, parent, sources, dice in zip(
        result.boards, result.parent.tolist(), result.sources.tolist(), result.dice.tolist(), strict=True
    ):
        assert torch.equal(replay(board, sources, dice), child)
        assert all(d == 0 for s, d in zip(sources, dice, strict=True) if s < 0)
        roll = rolls[parent].tolist()
        pool = Counter(roll * 2 if roll[0] == roll[1] else roll)
        assert not Counter(d for d in dice if d) - pool, "a path uses only the dice rolled"
        steps_per_roll.setdefault(parent, set()).add(sum(s >= 0 for s in sources))
    assert all(len(steps) == 1 for steps in steps_per_roll.values()), "every move plays as many dice"


def test_paths_of_a_non_double_use_each_die_once():
    result = afterstates(pos(START)[None], torch.tensor([[6, 4]]), with_paths=True)
    for dice in result.dice.tolist():
        assert sorted(dice) == [0, 0, 4, 6]


# --- inputs ------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("boards", "dice", "message"),
    [
        (torch.zeros(2, 25, dtype=torch.int8), torch.tensor([[3, 1]]), "boards must have shape"),
        (torch.zeros(1, 2, 24, dtype=torch.int8), torch.tensor([[3, 1]]), "boards must have shape"),
        (torch.zeros(1, 2, 25, dtype=torch.int8), torch.tensor([3, 1]), "dice must have shape"),
        (torch.zeros(2, 2, 25, dtype=torch.int8), torch.tensor([[3, 1]]), "dice must have shape"),
        (torch.zeros(1, 2, 25, dtype=torch.int8), torch.tensor([[3, 1, 2]]), "dice must have shape"),
        (torch.zeros(1, 2, 25, dtype=torch.int8), torch.tensor([[0, 1]]), "1 to 6"),
        (torch.zeros(1, 2, 25, dtype=torch.int8), torch.tensor([[7, 1]]), "1 to 6"),
    ],
    ids=[
        "one board unbatched",
        "24 points",
        "dice unbatched",
        "too few dice",
        "three dice",
        "die 0",
        "die 7",
    ],
)
def test_expand_refuses_malformed_input(boards, dice, message):
    with pytest.raises(ValueError, match=message):
        expand(boards, dice)


def test_expand_accepts_an_empty_batch():
    children, parent = expand(torch.zeros(0, 2, 25, dtype=torch.int8), torch.zeros(0, 2, dtype=torch.long))
    assert children.shape == (0, 2, 25) and parent.shape == (0,)


def test_expand_accepts_any_integer_dtype_and_either_dice_order():
    board = pos(START)
    children, _ = expand(board[None].long(), torch.tensor([[1, 6]], dtype=torch.int32))
    assert {key(c) for c in children} == moves_of(board, (6, 1))
    assert key(play(board, "13/7 8/7")) in moves_of(board, (6, 1))
