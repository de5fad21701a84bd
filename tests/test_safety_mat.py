""".mat reading refuses what no match can hold, naming the line: a double that does not double the
cube, a game won for more points than it was worth, an absurd match length or score."""

from __future__ import annotations

from pathlib import Path

import pytest

from bgai.formats import read_mat

DATA = Path(__file__).parent / "data"
SELFPLAY = (DATA / "gnubg_selfplay.mat").read_text()
RESIGN = (DATA / "gnubg_sample_resign.mat").read_text()


def changed(text: str, line: int, old: str, new: str) -> str:
    """``text`` with ``old`` replaced by ``new`` on (1-based) ``line`` only."""
    lines = text.split("\n")
    assert old in lines[line - 1], lines[line - 1]
    lines[line - 1] = lines[line - 1].replace(old, new)
    return "\n".join(lines)


def test_the_files_as_gnubg_wrote_them_are_read():
    assert len(read_mat(SELFPLAY).games) == 4 and read_mat(RESIGN).games[0].points == 2


@pytest.mark.parametrize(
    ("text", "message"),
    [
        (changed(SELFPLAY, 56, "Doubles => 2", "Doubles => 3"), "line 56: 'Doubles => 3' with the cube at 1"),
        (changed(RESIGN, 10, "Doubles => 2", "Doubles => 8"), "line 10: 'Doubles => 8' with the cube at 1"),
        (
            changed(SELFPLAY, 23, "Wins 2 points", "Wins 4 points"),  # resigned with the cube at 1
            "line 23: 'Wins 4 points', but the game was worth at most 3",
        ),
        (
            changed(SELFPLAY, 57, "Wins 1 point", "Wins 2 points"),
            "line 57: 'Wins 2 points', but the game was worth 1",
        ),
        (
            changed(RESIGN, 12, "Wins 2 points", "Wins 7 points"),
            "line 12: 'Wins 7 points', but the game was worth at most 6",
        ),
        (changed(SELFPLAY, 23, "Wins 2 points", "Wins 0 points"), "line 23: 'Wins 0 points'"),
        (changed(SELFPLAY, 3, "3 point match", "100000 point match"), "line 3: a 100000-point match"),
        (
            changed(SELFPLAY, 3, "3 point match", "9" * 5000 + " point match"),
            "line 3: 999999999999... (5000 characters)",
        ),
        (
            changed(SELFPLAY, 26, "gnubg : 2", "gnubg : 3"),
            "line 26: a score of 3 before a game of a 3-point match",
        ),
        (
            changed(SELFPLAY, 23, "Wins 2 points", "Wins " + "9" * 5000 + " points"),
            "line 23: 999999999999...",
        ),
    ],
)
def test_impossible_match_records_are_refused_with_the_line(text, message):
    with pytest.raises(ValueError) as raised:
        read_mat(text)
    assert message in str(raised.value) and len(str(raised.value)) < 200
