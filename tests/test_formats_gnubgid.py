"""gnubg Position ID, Match ID and GNUbgID: golden vectors from docs/formats.md §1-2,
error messages, and differential checks against the gnubg packages (marked ``gnubg``)."""

import numpy as np
import pytest

from bgai.engine.board import starting_board, swap_sides
from bgai.formats import (
    MatchState,
    decode_gnubg_id,
    decode_match_id,
    decode_position_id,
    decode_position_key,
    encode_gnubg_id,
    encode_match_id,
    encode_position_id,
    encode_position_key,
    read_position,
)
from tests.positions import random_board

START_ID = "4HPwATDgc/ABMA"


def side(points: dict[int, int]) -> list[int]:
    """A board row from {own point: checkers}; 25 is the bar."""
    row = [0] * 25
    for point, n in points.items():
        row[point - 1] = n
    return row


# --- Position ID ---------------------------------------------------------------------------


def test_starting_position_id_and_key():
    assert encode_position_id(starting_board()) == START_ID
    assert encode_position_key(starting_board()).hex(" ").upper() == "E0 73 F0 01 30 E0 73 F0 01 30"
    assert np.array_equal(decode_position_id(START_ID), starting_board())
    assert decode_position_id(START_ID).dtype == np.int8


@pytest.mark.parametrize(
    "pid", ["4HPwATDgc/ABMA", "jGfkASjg8wcBMA", "zGbiIQgxH/AAWA", "zGbiIYCYD3gALA", "4PMHATCMZ+QBKA"]
)
def test_position_ids_round_trip(pid):
    assert encode_position_id(decode_position_id(pid)) == pid


def test_decoded_layout_is_from_the_player_on_roll():
    board = decode_position_id("jGfkASjg8wcBMA")
    assert board[1].tolist() == side({24: 2, 13: 1, 8: 7, 6: 5})
    assert board[0].tolist() == side({24: 1, 23: 1, 13: 4, 11: 1, 8: 2, 6: 4, 3: 2})


def test_swapping_sides_gives_the_other_players_id():
    assert encode_position_id(swap_sides(decode_position_id("jGfkASjg8wcBMA"))) == "4PMHATCMZ+QBKA"


def test_bar_and_borne_off_checkers():
    on_bar = decode_position_id("zGbiIQgxH/AAWA")
    assert on_bar[1, 24] == 1
    borne_off = decode_position_id("zGbiIYCYD3gALA")
    assert borne_off[0].sum() == 14


def test_position_key_round_trips():
    key = encode_position_key(starting_board())
    assert len(key) == 10
    assert np.array_equal(decode_position_key(key), starting_board())


def test_worst_case_uses_all_80_bits():
    board = np.zeros((2, 25), dtype=np.int8)
    board[1, 0] = 15
    board[0, 0] = 15
    assert np.array_equal(decode_position_id(encode_position_id(board)), board)


@pytest.mark.parametrize(
    ("pid", "message"),
    [
        ("4HPwATDgc/ABM", "14 characters"),
        ("4HPwATDgc/ABMAA", "14 characters"),
        ("4HPwATDgc/AB-A", "'-'"),
        ("4HPwATDgc/ABM=", "'='"),
        ("4HPwATDgc/ABMB", "stray bits in its last character"),
        ("AAAAAAAAAAAAQA", "stray 1 bits after the last point"),
        ("AQAAAAAAAgAAAA", "both sides have checkers on the point the player on roll calls 24"),
        ("//8AAAAAAAAAAA", "opponent more than 15 checkers"),
        ("/////////////A", "more than 15 checkers"),
    ],
)
def test_malformed_position_ids_say_what_is_wrong(pid, message):
    with pytest.raises(ValueError, match=message):
        decode_position_id(pid)


def test_encoding_rejects_impossible_boards():
    board = starting_board()
    board[1, 0] = 1  # 16 checkers
    with pytest.raises(ValueError, match="16 checkers"):
        encode_position_id(board)


# --- Match ID ------------------------------------------------------------------------------


def test_manual_example_match_id():
    ms = decode_match_id("QYkqASAAIAAA")
    assert ms == MatchState(cube_value=2, cube_owner=0, on_roll=1, dice=(5, 2), match_length=9, score=(2, 4))
    assert encode_match_id(ms) == "QYkqASAAIAAE"  # gnubg re-emits it with bit 66 set


@pytest.mark.parametrize(
    ("mid", "ms"),
    [
        ("cAkAAAAAAAAA", MatchState(on_roll=1, jacoby=True)),
        ("MAEAAAAAAAAA", MatchState(on_roll=0, jacoby=True)),
        ("cAnuAAAAAAAE", MatchState(on_roll=1, dice=(4, 3), match_length=7)),
        ("MAFqAAAAAAAE", MatchState(on_roll=0, dice=(4, 2), match_length=3)),
        ("cAlgAAAAAAAE", MatchState(on_roll=1, match_length=3)),
        ("cBFgAAAAAAAE", MatchState(on_roll=1, double_offered=True, match_length=3)),
        ("8AngAGAAAAAE", MatchState(on_roll=1, crawford=True, match_length=7, score=(6, 0))),
    ],
)
def test_match_id_vectors(mid, ms):
    assert decode_match_id(mid) == ms
    assert encode_match_id(ms) == mid


def test_larger_die_is_written_first():
    assert encode_match_id(MatchState(dice=(3, 4), match_length=7)) == "cAnuAAAAAAAE"


def test_jacoby_bit_only_in_money_play():
    assert encode_match_id(MatchState(match_length=7, jacoby=True)).endswith("E")
    assert not decode_match_id("cAnuAAAAAAAA").jacoby  # a pre-2013 match ID


@pytest.mark.parametrize(
    ("mid", "message"),
    [
        ("cAkAAAAAAAA", "12 characters"),
        ("cAkAAAAAAA*A", "'\\*'"),
        ("YAkAAAAAAAAA", "cube owner 2"),
        ("cAkMAAAAAAAA", "impossible dice 03"),
        ("cIkHAAAAAAAA", "impossible dice 71"),
        ("MAAAAAAAAAAI", "after bit 66"),
        ("MAUAAAAAAAAA", "game state must be 0-4"),
    ],
)
def test_malformed_match_ids_say_what_is_wrong(mid, message):
    with pytest.raises(ValueError, match=message):
        decode_match_id(mid)


@pytest.mark.parametrize(
    ("fields", "message"),
    [
        ({"cube_value": 3}, "power of two"),
        ({"cube_owner": 2}, "cube owner"),
        ({"on_roll": 2}, "on_roll"),
        ({"dice": (0, 3)}, "dice"),
        ({"dice": (1, 2, 3)}, "dice"),
        ({"resign": 4}, "resignation"),
        ({"score": (-1, 0)}, "score"),
    ],
)
def test_match_state_rejects_impossible_values(fields, message):
    with pytest.raises(ValueError, match=message):
        MatchState(**fields)


def test_dice_owner_is_the_player_on_roll():
    assert MatchState(on_roll=0).dice_owner == 0


def test_turn_defaults_to_whoever_must_decide():
    assert MatchState(on_roll=0).turn == 0
    assert MatchState(on_roll=0, double_offered=True).turn == 1
    assert MatchState(on_roll=0, turn=1).turn == 1


# --- GNUbgID and read_position -------------------------------------------------------------


def test_gnubg_id_of_a_new_match():
    ms = MatchState(on_roll=1, dice=(4, 3), match_length=7)
    assert encode_gnubg_id(starting_board(), ms) == "4HPwATDgc/ABMA:cAnuAAAAAAAE"
    board, decoded = decode_gnubg_id("4HPwATDgc/ABMA:cAnuAAAAAAAE")
    assert np.array_equal(board, starting_board())
    assert decoded == ms


def test_gnubg_id_needs_both_parts():
    with pytest.raises(ValueError, match="PositionID:MatchID"):
        decode_gnubg_id("4HPwATDgc/ABMA:cAnuAAAAAAAE:x")


def test_read_position_accepts_every_id_kind():
    board, ms = read_position(" 4HPwATDgc/ABMA ")
    assert np.array_equal(board, starting_board()) and ms is None
    board, ms = read_position("4HPwATDgc/ABMA:cAnuAAAAAAAE")
    assert ms.dice == (4, 3)
    for xgid in (
        "XGID=-b----E-C---eE---c-e----B-:0:0:1:52:0:0:3:0:10",
        "-b----E-C---eE---c-e----B-:0:0:1:52:0:0:3:0:10",
    ):
        board, ms = read_position(xgid)
        assert np.array_equal(board, starting_board()) and ms.jacoby and ms.beavers
    with pytest.raises(ValueError, match="not a position"):
        read_position("hello")


# --- against gnubg -------------------------------------------------------------------------


@pytest.mark.gnubg
class TestAgainstGnubg:
    def test_random_position_ids(self, gnubg, gnubg_nn):
        rng = np.random.default_rng(20240601)
        for _ in range(2000):
            board = random_board(rng, empty_sides=True)
            pid = encode_position_id(board)
            as_lists = [board[0].tolist(), board[1].tolist()]
            assert pid == gnubg.positionid(as_lists) == gnubg_nn.position_id(as_lists)
            assert tuple(encode_position_key(board)) == gnubg.positionkey(as_lists)
            assert np.array_equal(decode_position_id(pid), np.array(gnubg.positionfromid(pid)))

    def test_random_match_ids(self, gnubg):
        """gnubg's ``matchid`` takes a cubeinfo, which zeroes the score and Crawford flag in
        money play, so money states here have neither."""
        rng = np.random.default_rng(7)
        for _ in range(2000):
            length = int(rng.choice([0, 0, 1, 3, 5, 7, 11, 25]))
            dice = None if rng.random() < 0.3 else tuple(int(d) for d in rng.integers(1, 7, size=2))
            ms = MatchState(
                cube_value=int(1 << rng.integers(0, 7)),
                cube_owner=[None, 0, 1][rng.integers(0, 3)],
                on_roll=int(rng.integers(0, 2)),
                crawford=length > 0 and rng.random() < 0.3,
                game_state=int(rng.integers(0, 5)),
                turn=int(rng.integers(0, 2)),
                double_offered=bool(rng.random() < 0.3),
                resign=int(rng.integers(0, 4)),
                dice=dice,
                match_length=length,
                score=tuple(int(s) for s in rng.integers(0, length, size=2)) if length else (0, 0),
                jacoby=length == 0 and bool(rng.random() < 0.5),
            )
            owner = -1 if ms.cube_owner is None else ms.cube_owner
            cubeinfo = gnubg.cubeinfo(
                ms.cube_value, owner, ms.on_roll, ms.match_length, ms.score, int(ms.crawford), 0
            )
            cubeinfo["jacoby"] = int(ms.jacoby)
            posinfo = gnubg.posinfo(ms.turn, ms.resign, int(ms.double_offered), ms.game_state, dice or (0, 0))
            mid = encode_match_id(ms)
            assert mid == gnubg.matchid(cubeinfo, posinfo), ms
            sorted_dice = None if dice is None else (max(dice), min(dice))
            assert decode_match_id(mid) == MatchState(**{**ms.__dict__, "dice": sorted_dice})
