"""Move notation: gnubg's printing and parsing rules (docs/formats.md §4), the
move-application vectors of §1, and gnubg's own formatter as the oracle (marked ``gnubg``)."""

import random

import numpy as np
import pytest

from bgai import gnubg as oracle
from bgai.engine import apply_steps, starting_board, swap_sides
from bgai.formats import decode_position_id, encode_position_id, format_move, format_move_plain, parse_move
from tests.positions import GNUBG_GAME, points_board


@pytest.mark.parametrize(("before", "dice", "move", "after"), GNUBG_GAME)
def test_game_moves_print_and_play_as_gnubg(before, dice, move, after):
    board = decode_position_id(before)
    steps = parse_move(move)  # merged sub-moves (24/16) parse as one step, so ignore the dice
    assert format_move(board, steps) == move
    assert encode_position_id(swap_sides(apply_steps(board, steps))) == after


def test_steps_of_one_checker_merge():
    assert format_move(starting_board(), [(24, 18), (18, 16)]) == "24/16"
    assert format_move(starting_board(), [(24, 20)] * 2 + [(20, 16)] * 2) == "24/16(2)"


def test_merging_keeps_a_point_where_the_checker_hit():
    assert format_move(points_board({8: 1}, {3: 1, 1: 1}), [(8, 3), (3, 1)]) == "8/3*/1*"
    assert format_move(points_board({25: 1}, {24: 1}), [(25, 24), (24, 18)]) == "bar/24*/18"
    assert format_move(points_board({6: 1}, {3: 1}), [(6, 3), (3, 1)]) == "6/3*/1"


def test_play_order_does_not_matter():
    """gnubg sorts the steps first, so the checker that moved on is the one that arrived."""
    board = starting_board()
    assert format_move(board, [(6, 5), (8, 6)]) == format_move(board, [(8, 6), (6, 5)]) == "8/5"


def test_only_the_first_checker_on_a_blot_hits():
    assert format_move(points_board({8: 1, 6: 1}, {5: 1}), [(6, 5), (8, 5)]) == "8/5* 6/5"


def test_bearing_off_and_repeats():
    board = points_board({6: 4, 5: 1})
    assert format_move(board, [(6, 0), (5, 1), (6, 0), (6, 0)]) == "6/off(3) 5/1"
    assert format_move(board, [(5, 0), (6, 0)]) == "6/off 5/off"


def test_a_dance_is_an_empty_move():
    assert format_move(starting_board(), []) == ""
    assert format_move_plain(starting_board(), []) == ""
    assert parse_move("") == []


def test_plain_style_keeps_play_order_and_numbers():
    board = decode_position_id("yLeDARSw5xYHAA")
    steps = [(13, 10), (8, 5), (6, 3), (6, 3)]
    assert format_move_plain(board, steps) == "13/10 8/5 6/3* 6/3"  # as gnubg's .mat export
    assert format_move_plain(points_board({25: 1, 6: 5}, {24: 1}), [(25, 24)]) == "25/24*"
    assert format_move_plain(points_board({6: 2}), [(6, 0), (6, 0)]) == "6/0 6/0"
    assert format_move_plain(points_board({8: 1}, {3: 1, 1: 1}), [(8, 3), (3, 1)]) == "8/3* 3/1*"


@pytest.mark.parametrize(
    ("text", "steps"),
    [
        ("24/18/16", [(24, 18), (18, 16)]),
        ("24/18/16(2)", [(24, 18), (24, 18), (18, 16), (18, 16)]),
        ("8/5 6/5(2) 24/23", [(24, 23), (8, 5), (6, 5), (6, 5)]),
        ("13/10 8/5 6/3*(2)", [(13, 10), (8, 5), (6, 3), (6, 3)]),
        ("BAR/22 6/OFF", [(25, 22), (6, 0)]),
        ("b/20 6/o", [(25, 20), (6, 0)]),
        ("25/20 6/0", [(25, 20), (6, 0)]),
        ("13/7,8/7", [(13, 7), (8, 7)]),
        ("24/18*/16*", [(24, 18), (18, 16)]),
        ("  6/off(3)   5/1 ", [(6, 0), (6, 0), (6, 0), (5, 1)]),
    ],
)
def test_parse_move(text, steps):
    assert parse_move(text) == steps


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("xx", "cannot read 'xx'"),
        ("24 23", "cannot read '24'"),
        ("6/", "cannot read '6/'"),
        ("/5", "cannot read '/5'"),
        ("24/18(5)", "repeat count"),
        ("24/23(0)", "repeat count"),
        ("24/20(2) 13/9(2) 6/5", "5 steps"),
        ("18/24", "does not move towards home"),
        ("0/5", "does not move towards home"),
        ("24/24", "does not move towards home"),
        ("6/bar", "does not move towards home"),
        ("26/5", "no point 26"),
    ],
)
def test_parse_move_rejects_garbage(text, message):
    with pytest.raises(ValueError, match=message):
        parse_move(text)


def test_format_rejects_impossible_steps():
    with pytest.raises(ValueError, match="lower point"):
        format_move(starting_board(), [(6, 8)])


def random_positions(rng: random.Random, games: int, turns: int):
    """(board, legal move paths) along random games played with gnubg's move generator."""
    gnubg_nn = oracle.nn()
    for _ in range(games):
        board = [row.tolist() for row in starting_board()]
        for _ in range(turns):
            moves = gnubg_nn.moves(board, rng.randint(1, 6), rng.randint(1, 6), 1)
            yield board, [path for _, path in moves]
            if moves:
                after = gnubg_nn.board_from_position_key(rng.choice(moves)[0])
                board = [list(after[1]), list(after[0])]
            else:
                board = [board[1], board[0]]
            if 0 in (sum(board[0]), sum(board[1])):
                break


@pytest.mark.gnubg
class TestAgainstGnubg:
    def test_format_move_matches_gnubg_for_every_legal_move(self, gnubg):
        rng = random.Random(2024)
        checked = 0
        for board, paths in random_positions(rng, games=12, turns=120):
            array = np.array(board, dtype=np.int8)
            for path in paths:
                shuffled = list(path)
                rng.shuffle(shuffled)
                text = format_move(array, shuffled)
                assert text == gnubg.movetupletostring(path, board), (board, path)
                assert parse_move(text) == sorted(gnubg.parsemove(text), key=lambda s: (-s[0], -s[1]))
                checked += 1
        assert checked > 10_000
