"""XGID reading and writing: docs/formats.md §3 vectors, and gnubg's own importer as
the oracle (marked ``gnubg``)."""

import numpy as np
import pytest

from bgai.engine.board import starting_board, swap_sides
from bgai.formats import MatchState, decode_position_id, encode_gnubg_id, format_xgid, parse_xgid
from tests.positions import random_board

START = "-b----E-C---eE---c-e----B-"

XGID_TO_GNUBGID = [
    (f"XGID={START}:0:0:1:52:0:0:3:0:10", "4HPwATDgc/ABMA:cIkKAAAAAAAA"),
    (f"XGID={START}:0:0:1:00:0:0:0:7:10", "4HPwATDgc/ABMA:cAngAAAAAAAE"),
    (f"XGID={START}:0:0:-1:31:0:0:0:7:10", "4HPwATDgc/ABMA:MIHlAAAAAAAE"),
    (f"XGID={START}:1:1:-1:00:2:4:0:9:10", "4HPwATDgc/ABMA:EQEgAUAAEAAE"),
    (f"XGID={START}:0:0:1:00:0:6:1:7:10", "4HPwATDgc/ABMA:8AngAGAAAAAE"),
    ("XGID=-aa---E-G---dAa--b-d--b-B-:0:0:1:31:0:0:0:7:10", "jGfkASjg8wcBMA:cInlAAAAAAAE"),
    ("XGID=-aa---E-G---dAa--b-d--b-B-:0:0:-1:31:0:0:0:7:10", "4PMHATCMZ+QBKA:MIHlAAAAAAAE"),
    ("XGID=-A-aB-E-a---dD-a-b-bb-b-BA:1:-1:1:00:3:1:0:5:10", "zGbiIQgxH/AAWA:QQmgABAAGAAE"),
]


@pytest.mark.parametrize(("xgid", "gnubg_id"), XGID_TO_GNUBGID)
def test_xgid_vectors_give_gnubg_ids(xgid, gnubg_id):
    assert encode_gnubg_id(*parse_xgid(xgid)) == gnubg_id


@pytest.mark.parametrize("xgid", [x for x, _ in XGID_TO_GNUBGID])
def test_xgid_vectors_round_trip(xgid):
    assert format_xgid(*parse_xgid(xgid)) == xgid


def test_start_with_x_on_roll():
    board, ms = parse_xgid(f"XGID={START}:0:0:1:52:0:0:3:0:10")
    assert np.array_equal(board, starting_board())
    assert ms == MatchState(on_roll=1, dice=(5, 2), jacoby=True, beavers=True)


def test_board_is_not_flipped_in_the_string_when_o_is_on_roll():
    x_view, _ = parse_xgid("-aa---E-G---dAa--b-d--b-B-:0:0:1:31:0:0:0:7:10")
    o_view, ms = parse_xgid("-aa---E-G---dAa--b-d--b-B-:0:0:-1:31:0:0:0:7:10")
    assert ms.on_roll == 0
    assert np.array_equal(o_view, swap_sides(x_view))
    assert np.array_equal(x_view, decode_position_id("jGfkASjg8wcBMA"))


def test_bars_sit_at_both_ends():
    board, _ = parse_xgid("-A-aB-E-a---dD-a-b-bb-b-BA:1:-1:1:00:3:1:0:5:10")
    assert board[1, 24] == 1  # X on roll, on the bar (last character)
    board, _ = parse_xgid("aa----E-C---eE---c-e----B-:0:0:1:00:0:0:0:0:10")
    assert board[0, 24] == 1 and board[0, 23] == 1  # O's bar is the first character


def test_scores_cube_and_crawford():
    _, ms = parse_xgid(f"{START}:1:1:-1:00:2:4:0:9:10")
    assert ms.score == (4, 2)  # (O = player 0, X = player 1); XGID writes X's first
    assert (ms.cube_value, ms.cube_owner, ms.on_roll) == (2, 1, 0)
    _, ms = parse_xgid(f"{START}:0:0:1:00:0:6:1:7:10")
    assert ms.crawford and ms.score == (6, 0)


def test_money_flags():
    for flags, jacoby, beavers in ((0, False, False), (1, True, False), (2, False, True), (3, True, True)):
        _, ms = parse_xgid(f"{START}:0:0:1:00:0:0:{flags}:0:10")
        assert (ms.jacoby, ms.beavers, ms.crawford) == (jacoby, beavers, False)


def test_double_offered_by_the_player_on_roll():
    board, ms = parse_xgid(f"{START}:0:0:1:D:0:0:0:7:10")
    assert ms.double_offered and ms.on_roll == 1 and ms.turn == 0 and ms.dice is None
    assert format_xgid(board, ms) == f"XGID={START}:0:0:1:D:0:0:0:7:10"


@pytest.mark.parametrize(
    ("xgid", "message"),
    [
        (f"{START}:0:0:1:52:0:0:3:0", "10 fields"),
        ("-b----E-C---eE---c-e----B:0:0:1:52:0:0:3:0:10", "26 characters"),
        ("-b----E-C---eE---c-e----Bz:0:0:1:52:0:0:3:0:10", "character 25 is 'z'"),
        ("Bb----E-C---eE---c-e----B-:0:0:1:52:0:0:3:0:10", "O's bar"),
        ("-b----E-C---eE---c-e----Bb:0:0:1:52:0:0:3:0:10", "X's bar"),
        ("-b----E-C---eE---c-e----C-:0:0:1:52:0:0:3:0:10", "16 checkers"),
        (f"{START}:x:0:1:52:0:0:3:0:10", "cube value"),
        (f"{START}:0:2:1:52:0:0:3:0:10", "cube position"),
        (f"{START}:0:0:0:52:0:0:3:0:10", "turn"),
        (f"{START}:0:0:1:72:0:0:3:0:10", "dice"),
        (f"{START}:0:0:1:52:0:0:4:0:10", "0-3 in money play"),
        (f"{START}:0:0:1:52:0:0:2:7:10", "0 or 1 in a match"),
        (f"{START}:0:0:1:52:-1:0:0:7:10", "score must be"),
    ],
)
def test_malformed_xgids_say_what_is_wrong(xgid, message):
    with pytest.raises(ValueError, match=message):
        parse_xgid(xgid)


@pytest.mark.gnubg
class TestAgainstGnubg:
    def test_gnubg_reads_our_xgids_as_our_gnubg_ids(self, gnubg):
        """gnubg ignores scores in money play, so money states here have none."""
        gnubg.command("set threads 1")
        rng = np.random.default_rng(11)
        for _ in range(300):
            board = random_board(rng)
            length = int(rng.choice([0, 0, 1, 3, 5, 7]))
            on_roll = int(rng.integers(0, 2))
            dice = None if rng.random() < 0.3 else tuple(int(d) for d in rng.integers(1, 7, size=2))
            fields = dict(
                cube_value=int(1 << rng.integers(0, 4)),
                cube_owner=[None, 0, 1][rng.integers(0, 3)],
                on_roll=on_roll,
                dice=dice,
                match_length=length,
            )
            if length > 1 and rng.random() < 0.3:  # Crawford: someone is one point away
                leader = int(rng.integers(0, 2))
                score = [int(rng.integers(0, length - 1))] * 2
                score[leader] = length - 1
                fields.update(score=tuple(score), crawford=True, cube_value=1, cube_owner=None)
            elif length:
                fields.update(score=tuple(int(s) for s in rng.integers(0, max(length - 1, 1), size=2)))
            else:
                fields.update(jacoby=bool(rng.integers(0, 2)), beavers=bool(rng.integers(0, 2)))
            ms = MatchState(**fields)
            xgid = format_xgid(board, ms)
            gnubg.setgnubgid(xgid)
            assert gnubg.gnubgid() == encode_gnubg_id(board, ms), xgid
            assert np.array_equal(parse_xgid(xgid)[0], board)
