"""eXtreme Gammon's XGID: ``XGID=P:CV:CP:T:D:S1:S2:CJ:ML:MC`` (docs/formats.md §3).

Whose view: the 26-character board ``P`` is always written from the **bottom** player X
(gnubg player 1, uppercase), whoever is on roll; O (gnubg player 0, lowercase) is on top.
bgai boards have the player on roll in row 1, so reading and writing swap the rows when O
is on roll. Field meanings follow gnubg's importer, the only public reference:

* ``T`` is the player whose turn it is (1 = X, -1 = O). With ``D`` = ``D`` that player has
  offered a double, so the opponent must answer (``turn`` is the other player).
* ``CJ`` is the Crawford flag in match play, and Jacoby (1) + beavers (2) in money play.
* ``MC`` (the maximum cube, log2) is read and dropped; it is written as ``10``.
"""

from __future__ import annotations

import numpy as np

from bgai.engine.board import validate_board
from bgai.formats.gnubgid import MatchState
from bgai.formats.quote import quote

PREFIX = "XGID="
_EMPTY = "-"
_MAX_CUBE_LOG2 = 10


def _point_char(count: int, upper: bool) -> str:
    if count == 0:
        return _EMPTY
    char = chr(ord("A") + count - 1)
    return char if upper else char.lower()


def _board_string(board: np.ndarray, on_roll: int) -> str:
    """The 26-character ``P`` field: O's bar, X's points 1..24, X's bar."""
    b = np.asarray(board)
    o_row, x_row = (b[0], b[1]) if on_roll == 1 else (b[1], b[0])
    chars = [_point_char(int(o_row[24]), upper=False)]
    for point in range(1, 25):
        x, o = int(x_row[point - 1]), int(o_row[24 - point])
        chars.append(_point_char(x, upper=True) if x else _point_char(o, upper=False))
    chars.append(_point_char(int(x_row[24]), upper=True))
    return "".join(chars)


def _parse_board_string(text: str, on_roll: int) -> np.ndarray:
    if len(text) != 26:
        raise ValueError(f"an XGID board has 26 characters, got {len(text)}: {quote(text)}")
    o_row = np.zeros(25, dtype=np.int8)
    x_row = np.zeros(25, dtype=np.int8)
    for k, char in enumerate(text):
        if char == _EMPTY:
            continue
        if not ("a" <= char.lower() <= "p"):
            raise ValueError(f"XGID board character {k} is {quote(char)}; use '-', a-o or A-O")
        count = ord(char.lower()) - ord("a") + 1
        if char.isupper():
            if k == 0:
                raise ValueError("XGID board character 0 is O's bar; X checkers (uppercase) can't be there")
            x_row[k - 1] += count  # k = 25 is X's bar, index 24
        else:
            if k == 25:
                raise ValueError("XGID board character 25 is X's bar; O checkers (lowercase) can't be there")
            o_row[24 if k == 0 else 24 - k] += count
    board = np.stack([o_row, x_row]) if on_roll == 1 else np.stack([x_row, o_row])
    validate_board(board)
    return board


def _int_field(fields: list[str], index: int, name: str) -> int:
    try:
        return int(fields[index])
    except ValueError:
        raise ValueError(
            f"XGID field {index + 1} ({name}) is not an integer: {quote(fields[index])}"
        ) from None


def _choice(value: int, allowed: dict[int, object], name: str) -> object:
    if value not in allowed:
        raise ValueError(f"XGID {name} must be one of {sorted(allowed)}, got {value}")
    return allowed[value]


def parse_xgid(text: str) -> tuple[np.ndarray, MatchState]:
    """Board (row 1 = the player on roll) and match state of an XGID, with or without ``XGID=``."""
    body = text.strip()
    if body[: len(PREFIX)].upper() == PREFIX:
        body = body[len(PREFIX) :]
    fields = body.split(":")
    if len(fields) != 10:
        raise ValueError(f"an XGID has 10 fields separated by ':', got {len(fields)} in {quote(text)}")
    cube_log2 = _int_field(fields, 1, "cube value")
    if not 0 <= cube_log2 <= 15:
        raise ValueError(f"XGID cube value is log2 of the cube, 0-15, got {cube_log2}")
    owner = _choice(_int_field(fields, 2, "cube position"), {1: 1, -1: 0, 0: None}, "cube position")
    on_roll = _choice(_int_field(fields, 3, "turn"), {1: 1, -1: 0}, "turn")
    board = _parse_board_string(fields[0], on_roll)
    dice, doubled = _parse_dice(fields[4])
    s_bottom, s_top = _int_field(fields, 5, "score 1"), _int_field(fields, 6, "score 2")
    flags = _int_field(fields, 7, "Crawford/Jacoby")
    match_length = _int_field(fields, 8, "match length")
    _int_field(fields, 9, "max cube")
    money = match_length == 0
    if not 0 <= flags <= (3 if money else 1):
        allowed = "0-3 in money play" if money else "0 or 1 in a match"
        raise ValueError(f"XGID field 8 (Crawford/Jacoby) must be {allowed}, got {flags}")
    try:
        ms = MatchState(
            cube_value=1 << cube_log2,
            cube_owner=owner,
            on_roll=on_roll,
            crawford=not money and flags == 1,
            game_state=1,
            double_offered=doubled,
            dice=dice,
            match_length=match_length,
            score=(s_top, s_bottom),
            jacoby=money and bool(flags & 1),
            beavers=money and bool(flags & 2),
        )
    except ValueError as exc:
        raise ValueError(f"bad XGID {quote(text)}: {exc}") from None
    return board, ms


def _parse_dice(field: str) -> tuple[tuple[int, int] | None, bool]:
    """(dice, double offered) from the ``D`` field: ``00``, ``D`` or two digits 1-6."""
    if field in ("0", "00"):
        return None, False
    if field.upper() == "D":
        return None, True
    if len(field) == 2 and all(c in "123456" for c in field):
        return (int(field[0]), int(field[1])), False
    raise ValueError(f"XGID dice field must be 00, D or two digits 1-6, got {quote(field)}")


def format_xgid(board: np.ndarray, ms: MatchState) -> str:
    """The XGID of ``board`` (row 1 = ``ms.on_roll``) and ``ms``, prefixed with ``XGID=``."""
    validate_board(board)
    owner = {None: 0, 1: 1, 0: -1}[ms.cube_owner]
    if ms.double_offered:
        dice = "D"
    elif ms.dice is not None:
        dice = f"{ms.dice[0]}{ms.dice[1]}"
    else:
        dice = "00"
    flags = int(ms.jacoby) + 2 * int(ms.beavers) if ms.is_money else int(ms.crawford)
    fields = [
        _board_string(board, ms.on_roll),
        ms.cube_value.bit_length() - 1,
        owner,
        1 if ms.on_roll == 1 else -1,
        dice,
        ms.score[1],
        ms.score[0],
        flags,
        ms.match_length,
        _MAX_CUBE_LOG2,
    ]
    return PREFIX + ":".join(str(f) for f in fields)
