"""ASCII board drawing: golden pictures, and gnubg's ``show board`` as the oracle for the
13 lines of the frame (marked ``gnubg``)."""

import numpy as np
import pytest

from bgai.engine.board import starting_board
from bgai.formats import MatchState, draw_board, encode_gnubg_id
from tests.positions import random_board

START_X_ON_ROLL = """\
 Position ID: 4HPwATDgc/ABMA
 Match ID   : cInqACAAGAAE
 +13-14-15-16-17-18------19-20-21-22-23-24-+     O: gnubg
 | X           O    |   | O              X |     2 points
 | X           O    |   | O              X |
 | X           O    |   | O                |
 | X                |   | O                |
 | X                |   | O                |
v|                  |BAR|                  |     7 points match (Cube: 1)
 | O                |   | X                |
 | O                |   | X                |
 | O           X    |   | X                |
 | O           X    |   | X              O |     Rolled 52
 | O           X    |   | X              O |     3 points
 +12-11-10--9--8--7-------6--5--4--3--2--1-+     X: alice
 Pip counts: O 167, X 167   Borne off: O 0, X 0
"""

BEAROFF_O_ON_ROLL = """\
 Position ID: PwAAQOD/AQAwAA
 Match ID   : EgEAAAAAAAAE
 +12-11-10--9--8--7-------6--5--4--3--2--1-+     O: O
 |                  | O | O                | O   0 points
 |                  | O | O                |     On roll
 |                  |   | O                |
 |                  |   | O                |
 |                  |   | C                |
^|                  |BAR|                  |
 |                  |   |                6 | X
 |                  |   |                X | X
 |                  |   |                X | XX
 |                  |   |                X | XX
 |                  | X |                X | XX  0 points
 +13-14-15-16-17-18------19-20-21-22-23-24-+     X: X (Cube: 4)
 Pip counts: O 122, X 31   Borne off: O 1, X 8
"""


def test_starting_position_in_a_match():
    ms = MatchState(dice=(5, 2), match_length=7, score=(2, 3))
    assert draw_board(starting_board(), ms, names=("gnubg", "alice")) == START_X_ON_ROLL


def test_o_on_roll_keeps_the_picture_and_renumbers_the_points():
    """O on roll with 12 on its 6 point and one on the bar; X has 6 on its 1 point, 2 on the bar."""
    board = np.zeros((2, 25), dtype=np.int8)
    board[1, 5], board[1, 24] = 12, 2
    board[0, 24], board[0, 0] = 1, 6
    drawing = draw_board(board, MatchState(on_roll=0, cube_value=4, cube_owner=1))
    assert drawing == BEAROFF_O_ON_ROLL


def test_without_a_match_state_x_is_on_roll():
    lines = draw_board(starting_board()).splitlines()
    assert lines[0] == " Position ID: 4HPwATDgc/ABMA"
    assert lines[1].startswith(" +13-14-15")
    assert lines[-2].startswith(" +12-11-10")
    assert lines[11].endswith("On roll")
    assert not any("Match ID" in line for line in lines)


def test_names_and_the_cube_sit_beside_their_owner():
    ms = MatchState(cube_value=2, cube_owner=0, match_length=5)
    lines = draw_board(starting_board(), ms, names=("bot", "me")).splitlines()
    assert lines[2].endswith("O: bot (Cube: 2)")
    assert lines[-2].endswith("X: me")
    assert lines[8].endswith("5 points match")


def test_crawford_and_offered_double():
    crawford = MatchState(match_length=7, crawford=True, score=(6, 2))
    assert "7 points match (Crawford game)" in draw_board(starting_board(), crawford)
    offered = MatchState(on_roll=1, double_offered=True, cube_value=2, cube_owner=1)
    lines = draw_board(starting_board(), offered).splitlines()
    assert lines[4].endswith("Cube offered at 4")  # O must answer


def test_no_trailing_spaces():
    drawing = draw_board(starting_board(), MatchState())
    assert all(line == line.rstrip() for line in drawing.splitlines())


def test_rejects_impossible_boards():
    board = starting_board()
    board[0, 0] = 1
    with pytest.raises(ValueError, match="16 checkers"):
        draw_board(board)


@pytest.mark.gnubg
class TestAgainstGnubg:
    def test_frame_matches_gnubg_show_board(self, capfd, gnubg):
        """gnubg cleans up states it considers impossible (Crawford without a player at
        match point, a cube in a Crawford game), so the states here are consistent."""
        for command in ("set threads 1", "set player 0 human", "set player 1 human"):
            gnubg.command(command)
        gnubg.command("set player 0 name gnubg")
        gnubg.command("set player 1 name alice")
        rng = np.random.default_rng(99)
        for _ in range(300):
            board = random_board(rng)
            length = int(rng.choice([0, 0, 1, 3, 7]))
            on_roll = int(rng.integers(0, 2))
            dice = None if rng.random() < 0.4 else (int(rng.integers(1, 7)), int(rng.integers(1, 7)))
            fields = dict(
                cube_value=int(1 << rng.integers(0, 4)),
                cube_owner=[None, 0, 1][rng.integers(0, 3)],
                on_roll=on_roll,
                dice=None if dice is None else (max(dice), min(dice)),
                match_length=length,
                score=tuple(int(s) for s in rng.integers(0, 4 if not length else max(length - 1, 1), size=2)),
            )
            if length > 1 and rng.random() < 0.3:
                fields.update(score=(length - 1, 0), crawford=True, cube_value=1, cube_owner=None)
            ms = MatchState(**fields)
            capfd.readouterr()
            gnubg.setgnubgid(encode_gnubg_id(board, ms))
            gnubg.command("show board")
            shown = [line.rstrip() for line in capfd.readouterr().out.splitlines()]
            start = max(k for k, line in enumerate(shown) if "Position ID" in line) + 2
            ours = draw_board(board, ms, names=("gnubg", "alice")).splitlines()
            assert ours[2:15] == shown[start : start + 13], encode_gnubg_id(board, ms)
