"""Interchange formats: gnubg Position/Match IDs, XGID, move notation, ASCII boards, ``.mat``.

Every board here is in bgai's layout (row 1 = the player on roll); a :class:`MatchState`
says which gnubg player (0 = O, 1 = X) that is.
"""

from __future__ import annotations

import numpy as np

from bgai.formats.ascii_board import draw_board
from bgai.formats.gnubgid import (
    MatchState,
    decode_gnubg_id,
    decode_match_id,
    decode_position_id,
    decode_position_key,
    encode_gnubg_id,
    encode_match_id,
    encode_position_id,
    encode_position_key,
)
from bgai.formats.mat import Action, GameRecord, MatchRecord, load_mat, read_mat, save_mat, write_mat
from bgai.formats.notation import format_move, format_move_plain, parse_move
from bgai.formats.quote import quote
from bgai.formats.xgid import format_xgid, parse_xgid

__all__ = [
    "Action",
    "GameRecord",
    "MatchRecord",
    "MatchState",
    "decode_gnubg_id",
    "decode_match_id",
    "decode_position_id",
    "decode_position_key",
    "draw_board",
    "encode_gnubg_id",
    "encode_match_id",
    "encode_position_id",
    "encode_position_key",
    "format_move",
    "format_move_plain",
    "format_xgid",
    "load_mat",
    "parse_move",
    "parse_xgid",
    "read_mat",
    "read_position",
    "save_mat",
    "write_mat",
]


def read_position(text: str) -> tuple[np.ndarray, MatchState | None]:
    """Board (row 1 = the player on roll) and match state from any ID a user may paste.

    Accepts a 14-character Position ID (match state None: the ID does not say which player
    is on roll), a GNUbgID ``PositionID:MatchID``, or an XGID with or without ``XGID=``.
    """
    body = text.strip()
    if body.upper().startswith("XGID=") or body.count(":") == 9:
        return parse_xgid(body)
    if ":" in body:
        return decode_gnubg_id(body)
    if len(body) == 14:
        return decode_position_id(body), None
    raise ValueError(
        f"not a position: {quote(text)}; expected a 14-character position ID, PositionID:MatchID or an XGID"
    )
