"""A terminal drawing of a position in the layout of gnubg's ``show board``.

The picture is fixed, as in gnubg: O (gnubg player 0) plays on top with its home board at
the top right, X (gnubg player 1) at the bottom with its home at the bottom right. Only the
point numbers change: they are those of the player on roll (13-24 on top and 12-1 below when
X is on roll). A stack of more than five checkers shows its count (in hex, as gnubg) on the
fifth row; O's bar checkers sit in the top half of the bar, X's in the bottom half; borne-off
checkers fill the tray at the right, three columns of five. Unlike gnubg, a last line gives
the pip counts and borne-off counts, and no line carries trailing spaces.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from bgai.engine.board import borne_off, pip_counts, validate_board
from bgai.formats.gnubgid import MatchState, encode_match_id, encode_position_id

_ROWS = 5  # checkers drawn per half column before the count takes over


def _cell(count: int, level: int, char: str) -> str:
    """What a point shows ``level`` (1-5) checkers away from its edge of the board."""
    if count < level:
        return "   "
    if level == _ROWS and count > _ROWS:
        return f" {count:X} "
    return f" {char} "


def _rows_by_player(board: np.ndarray, on_roll: int) -> tuple[np.ndarray, np.ndarray]:
    """(O's row, X's row): each player's own points 1-24 and bar."""
    return (board[0], board[1]) if on_roll == 1 else (board[1], board[0])


def _point_content(o_row: np.ndarray, x_row: np.ndarray, x_point: int) -> tuple[int, str]:
    """(checkers, char) on the point X calls ``x_point``."""
    x, o = int(x_row[x_point - 1]), int(o_row[24 - x_point])
    return (x, "X") if x else (o, "O")


def _frame(labels: Sequence[int]) -> str:
    """``+13-14-...-+``: point numbers over the 12 columns, with the bar in the middle."""
    cells = [f"{n:2d}".replace(" ", "-") + "-" for n in labels]
    return "+" + "".join(cells[:6]) + "-----" + "".join(cells[6:]) + "+"


def _tray(off: int, level: int, char: str) -> str:
    """Borne-off checkers ``level`` (1-5) rows from the edge: columns of five, filled in turn."""
    return char * sum(off >= column * _ROWS + level for column in range(3))


def _board_lines(o_row: np.ndarray, x_row: np.ndarray, on_roll: int) -> list[tuple[str, str]]:
    """The 13 lines of the frame as (picture, tray) pairs, top to bottom; col 0 is the arrow."""
    top_points = list(range(13, 25))  # X's numbering, left to right
    bottom_points = list(range(12, 0, -1))
    if on_roll == 1:
        top_labels, bottom_labels = top_points, bottom_points
    else:
        top_labels = [25 - p for p in top_points]
        bottom_labels = [25 - p for p in bottom_points]
    o_off, x_off = borne_off(np.stack([o_row, x_row])).tolist()

    def half(points: list[int], level: int, bar: str) -> str:
        cells = [_cell(n, level, c) for n, c in (_point_content(o_row, x_row, p) for p in points)]
        return " |" + "".join(cells[:6]) + "|" + bar + "|" + "".join(cells[6:]) + "|"

    lines = [(" " + _frame(top_labels), "")]
    for level in range(1, _ROWS + 1):
        bar = _cell(int(o_row[24]), level, "O")
        lines.append((half(top_points, level, bar), _tray(o_off, level, "O")))
    arrow = "v" if on_roll == 1 else "^"
    lines.append((f"{arrow}|{' ' * 18}|BAR|{' ' * 18}|", ""))
    for level in range(_ROWS, 0, -1):
        bar = _cell(int(x_row[24]), level, "X")
        lines.append((half(bottom_points, level, bar), _tray(x_off, level, "X")))
    lines.append((" " + _frame(bottom_labels), ""))
    return lines


def _points(n: int) -> str:
    return f"{n} point" if n == 1 else f"{n} points"


def _turn_line(player: int) -> int:
    """The line, next to the player's own half, that says they are on roll or must answer."""
    return 2 if player == 0 else 10


def _turn_text(ms: MatchState) -> tuple[int, str] | None:
    """(line, text) saying whose turn it is, or None when no game is in progress."""
    if ms.game_state != 1:
        return None
    if ms.double_offered:
        return _turn_line(ms.turn), f"Cube offered at {2 * ms.cube_value}"
    if ms.dice is not None:
        return _turn_line(ms.on_roll), f"Rolled {ms.dice[0]}{ms.dice[1]}"
    return _turn_line(ms.on_roll), "On roll"


def _side_texts(ms: MatchState | None, names: Sequence[str]) -> dict[int, str]:
    """Text right of the tray, keyed by line number (0 = top frame, 6 = middle, 12 = bottom)."""
    texts = {0: f"O: {names[0]}", 12: f"X: {names[1]}"}
    if ms is None:
        texts[_turn_line(1)] = "On roll"
        return texts
    if ms.cube_owner is not None:
        texts[0 if ms.cube_owner == 0 else 12] += f" (Cube: {ms.cube_value})"
    texts[1], texts[11] = _points(ms.score[0]), _points(ms.score[1])
    turn = _turn_text(ms)
    if turn is not None:
        texts[turn[0]] = turn[1]
    middle = [f"{_points(ms.match_length)} match"] if ms.match_length else []
    if ms.crawford:
        middle.append("(Crawford game)")
    elif ms.cube_owner is None and ms.match_length != 1:  # gnubg hides a cube that can't be used
        middle.append(f"(Cube: {ms.cube_value})")
    texts[6] = " ".join(middle)
    return texts


def draw_board(
    board: np.ndarray, match_state: MatchState | None = None, names: Sequence[str] = ("O", "X")
) -> str:
    """Draw ``board`` (row 1 = the player on roll) as gnubg's ASCII board.

    ``match_state`` says which gnubg player is on roll (X when None) and supplies the cube,
    score and dice shown at the right; ``names`` are gnubg players 0 (O) and 1 (X).
    """
    b = np.asarray(board)
    validate_board(b)
    on_roll = 1 if match_state is None else match_state.on_roll
    o_row, x_row = _rows_by_player(b, on_roll)
    lines = [f" Position ID: {encode_position_id(b)}"]
    if match_state is not None:
        lines.append(f" Match ID   : {encode_match_id(match_state)}")
    texts = _side_texts(match_state, names)
    for k, (picture, tray) in enumerate(_board_lines(o_row, x_row, on_roll)):
        lines.append(f"{picture} {tray:<3} {texts.get(k, '')}".rstrip())
    by_player = np.stack([o_row, x_row])
    (o_pips, x_pips), (o_off, x_off) = pip_counts(by_player).tolist(), borne_off(by_player).tolist()
    lines.append(f" Pip counts: O {o_pips}, X {x_pips}   Borne off: O {o_off}, X {x_off}")
    return "\n".join(lines) + "\n"
