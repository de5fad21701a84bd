"""gnubg's Position ID, Match ID and the combined GNUbgID ``PositionID:MatchID``.

Spec: docs/formats.md §1-2 (the gnubg manual's technical descriptions).

Whose view: a Position ID always encodes the board from the view of the player **on roll**
(gnubg's ``fMove``, the "dice owner"): the opponent's checkers are written first, then the
mover's. That is exactly bgai's board layout (row 0 = opponent, row 1 = on roll), so
:func:`encode_position_id` and :func:`decode_position_id` never swap rows. Which gnubg
player (0 = O, top; 1 = X, bottom) row 1 belongs to is not in the Position ID; it is
:attr:`MatchState.on_roll`, carried by the Match ID. The board of a GNUbgID with player 0 on
roll is stored the same way: row 1 is still the player on roll, here O.
"""

from __future__ import annotations

import base64
import binascii
import re
from dataclasses import dataclass

import numpy as np

from bgai.engine.board import CHECKERS, validate_board
from bgai.formats.quote import quote

POSITION_ID_LENGTH = 14
MATCH_ID_LENGTH = 12
_POSITION_KEY_BITS = 80
_MATCH_KEY_BITS = 72
_MAX_FIELD_15 = (1 << 15) - 1
_BASE64 = re.compile(r"[A-Za-z0-9+/]*")

GAME_STATES = ("none", "playing", "over", "resigned", "dropped")


@dataclass(frozen=True)
class MatchState:
    """Everything a GNUbgID or XGID says besides the checkers.

    Players are numbered as in gnubg: 0 = O (top of the ASCII board), 1 = X (bottom).
    The board that goes with a MatchState has the player ``on_roll`` in row 1.
    """

    cube_value: int = 1
    cube_owner: int | None = None
    """None = centred; 0 or 1 = the gnubg player who owns the cube."""
    on_roll: int = 1
    """gnubg's ``fMove`` (the manual's "dice owner"): whose turn it is, whose view the board is in."""
    crawford: bool = False
    game_state: int = 1
    """0 no game, 1 playing, 2 over, 3 resigned, 4 dropped cube (see ``GAME_STATES``)."""
    turn: int | None = None
    """gnubg's ``fTurn``: who must decide next. None (the default) works it out: ``on_roll``,
    or the opponent while a double is offered."""
    double_offered: bool = False
    resign: int = 0
    """Resignation on offer: 0 none, 1 single, 2 gammon, 3 backgammon."""
    dice: tuple[int, int] | None = None
    """The roll of ``on_roll``, or None before rolling."""
    match_length: int = 0
    """0 = money play."""
    score: tuple[int, int] = (0, 0)
    """(player 0's score, player 1's score)."""
    jacoby: bool = False
    """Money play: gammons count only once the cube is turned."""
    beavers: bool = False
    """Money play: beavers allowed. Carried by XGIDs only; a Match ID has no bit for it."""

    def __post_init__(self) -> None:
        if self.turn is None:
            object.__setattr__(self, "turn", 1 - self.on_roll if self.double_offered else self.on_roll)
        if self.dice is not None:
            object.__setattr__(self, "dice", tuple(int(d) for d in self.dice))
        object.__setattr__(self, "score", tuple(int(s) for s in self.score))
        _check_match_state(self)

    @property
    def dice_owner(self) -> int:
        """The manual's name for :attr:`on_roll` (Match ID bit 6)."""
        return self.on_roll

    @property
    def is_money(self) -> bool:
        return self.match_length == 0


def _check_match_state(ms: MatchState) -> None:
    cube = ms.cube_value
    if cube < 1 or cube & (cube - 1) or cube > 1 << 15:
        raise ValueError(f"cube value must be a power of two from 1 to 32768, got {cube}")
    if ms.cube_owner not in (None, 0, 1):
        raise ValueError(f"cube owner must be None (centred), 0 or 1, got {ms.cube_owner!r}")
    for name in ("on_roll", "turn"):
        if getattr(ms, name) not in (0, 1):
            raise ValueError(f"{name} must be player 0 or 1, got {getattr(ms, name)!r}")
    if not 0 <= ms.game_state < len(GAME_STATES):
        raise ValueError(f"game state must be 0-4, got {ms.game_state}")
    if not 0 <= ms.resign <= 3:
        raise ValueError(f"resignation must be 0-3, got {ms.resign}")
    if ms.dice is not None and (len(ms.dice) != 2 or not all(1 <= d <= 6 for d in ms.dice)):
        raise ValueError(f"dice must be two numbers 1-6 or None, got {ms.dice}")
    if not 0 <= ms.match_length <= _MAX_FIELD_15:
        raise ValueError(f"match length must be 0-{_MAX_FIELD_15}, got {ms.match_length}")
    if len(ms.score) != 2 or not all(0 <= s <= _MAX_FIELD_15 for s in ms.score):
        raise ValueError(f"score must be two numbers 0-{_MAX_FIELD_15}, got {ms.score}")


# --- bits and Base64 -----------------------------------------------------------------------


def _pack_bits(bits: list[int], n_bytes: int) -> bytes:
    """Pack bits LSB-first: bit k goes to bit ``k % 8`` of byte ``k // 8``."""
    key = bytearray(n_bytes)
    for k, bit in enumerate(bits):
        if bit:
            key[k // 8] |= 1 << (k % 8)
    return bytes(key)


def _unpack_bits(key: bytes) -> list[int]:
    return [(byte >> k) & 1 for byte in key for k in range(8)]


def _b64decode(text: str, length: int, what: str) -> bytes:
    """Decode ``text`` of exactly ``length`` standard-Base64 characters (padding dropped)."""
    if not isinstance(text, str):
        raise ValueError(f"a {what} is a string, got {type(text).__name__}")
    if len(text) != length:
        raise ValueError(f"a {what} has {length} characters, got {len(text)}: {quote(text)}")
    if not _BASE64.fullmatch(text):
        bad = next(c for c in text if not _BASE64.fullmatch(c))
        raise ValueError(f"a {what} uses only A-Z a-z 0-9 + /, got {quote(bad)} in {quote(text)}")
    padding = "=" * (-len(text) % 4)
    try:
        return base64.b64decode(text + padding, validate=True)
    except binascii.Error as exc:  # pragma: no cover - the checks above make this unreachable
        raise ValueError(f"bad {what} {quote(text)}: {exc}") from None


def _b64encode(key: bytes) -> str:
    return base64.b64encode(key).decode("ascii").rstrip("=")


# --- Position ID ---------------------------------------------------------------------------


def encode_position_key(board: np.ndarray) -> bytes:
    """The 10-byte gnubg position key of ``board`` (row 1 on roll, written second)."""
    validate_board(board)
    bits: list[int] = []
    for row in (0, 1):  # the player not on roll first
        for n in np.asarray(board)[row]:
            bits.extend([1] * int(n))
            bits.append(0)
    return _pack_bits(bits, _POSITION_KEY_BITS // 8)


def decode_position_key(key: bytes) -> np.ndarray:
    """The board of a 10-byte position key, shape (2, 25) int8, row 1 on roll."""
    if len(key) != _POSITION_KEY_BITS // 8:
        raise ValueError(f"a position key has 10 bytes, got {len(key)}")
    bits = _unpack_bits(key)
    board = np.zeros((2, 25), dtype=np.int8)
    pos = 0
    for row in (0, 1):
        for i in range(25):
            run = 0
            while pos < len(bits) and bits[pos]:
                run += 1
                pos += 1
            if pos >= len(bits):
                raise ValueError("position key runs out of bits: too many checkers")
            pos += 1  # the 0 that closes this point
            if board[row].sum() + run > CHECKERS:
                side = "player on roll" if row else "opponent"
                raise ValueError(f"position key gives the {side} more than {CHECKERS} checkers")
            board[row, i] = run
    if any(bits[pos:]):
        raise ValueError("position key has stray 1 bits after the last point")
    validate_board(board)
    return board


def encode_position_id(board: np.ndarray) -> str:
    """gnubg's 14-character Position ID of ``board``, seen from the player on roll (row 1)."""
    return _b64encode(encode_position_key(board))


def decode_position_id(pid: str) -> np.ndarray:
    """The board of a Position ID: shape (2, 25) int8, row 1 = the player on roll."""
    text = pid.strip() if isinstance(pid, str) else pid
    key = _b64decode(text, POSITION_ID_LENGTH, "position ID")
    if _b64encode(key) != text:
        raise ValueError(f"position ID {quote(pid)} has stray bits in its last character")
    try:
        return decode_position_key(key)
    except ValueError as exc:
        raise ValueError(f"bad position ID {quote(pid)}: {exc}") from None


# --- Match ID ------------------------------------------------------------------------------

# (first bit, width) of each Match ID field; formats.md §2.
_CUBE = (0, 4)  # log2 of the cube value
_OWNER = (4, 2)  # 0, 1, or 3 = centred
_MOVE = (6, 1)  # fMove: the player on roll
_CRAWFORD = (7, 1)
_STATE = (8, 3)
_TURN = (11, 1)  # fTurn: who decides next
_DOUBLED = (12, 1)
_RESIGN = (13, 2)
_DIE0 = (15, 3)  # gnubg writes the larger die here
_DIE1 = (18, 3)
_LENGTH = (21, 15)
_SCORE0 = (36, 15)
_SCORE1 = (51, 15)
_NOT_JACOBY = (66, 1)
_CENTRED = 3


def _set(bits: list[int], field: tuple[int, int], value: int) -> None:
    start, width = field
    for k in range(width):
        bits[start + k] = (value >> k) & 1


def _get(bits: list[int], field: tuple[int, int]) -> int:
    start, width = field
    return sum(bits[start + k] << k for k in range(width))


def encode_match_id(ms: MatchState) -> str:
    """gnubg's 12-character Match ID, written as current gnubg does.

    Bit 66 is set unless Jacoby is in effect (money play only), and the larger die goes first.
    """
    bits = [0] * _MATCH_KEY_BITS
    _set(bits, _CUBE, ms.cube_value.bit_length() - 1)
    _set(bits, _OWNER, _CENTRED if ms.cube_owner is None else ms.cube_owner)
    _set(bits, _MOVE, ms.on_roll)
    _set(bits, _CRAWFORD, int(ms.crawford))
    _set(bits, _STATE, ms.game_state)
    _set(bits, _TURN, ms.turn)
    _set(bits, _DOUBLED, int(ms.double_offered))
    _set(bits, _RESIGN, ms.resign)
    if ms.dice is not None:
        _set(bits, _DIE0, max(ms.dice))
        _set(bits, _DIE1, min(ms.dice))
    _set(bits, _LENGTH, ms.match_length)
    _set(bits, _SCORE0, ms.score[0])
    _set(bits, _SCORE1, ms.score[1])
    _set(bits, _NOT_JACOBY, int(not (ms.jacoby and ms.match_length == 0)))
    return _b64encode(_pack_bits(bits, _MATCH_KEY_BITS // 8))


def decode_match_id(mid: str) -> MatchState:
    """The match state of a 12-character Match ID; bit 66 (not Jacoby) may be either value."""
    text = mid.strip() if isinstance(mid, str) else mid
    bits = _unpack_bits(_b64decode(text, MATCH_ID_LENGTH, "match ID"))
    if any(bits[67:]):
        raise ValueError(f"match ID {quote(mid)} has stray 1 bits after bit 66")
    owner = _get(bits, _OWNER)
    if owner == 2:
        raise ValueError(f"match ID {quote(mid)} has cube owner 2 (must be 0, 1 or 3 = centred)")
    dice = (_get(bits, _DIE0), _get(bits, _DIE1))
    if dice == (0, 0):
        rolled = None
    elif 0 in dice or 7 in dice:
        raise ValueError(f"match ID {quote(mid)} has impossible dice {dice[0]}{dice[1]}")
    else:
        rolled = dice
    match_length = _get(bits, _LENGTH)
    try:
        return MatchState(
            cube_value=1 << _get(bits, _CUBE),
            cube_owner=None if owner == _CENTRED else owner,
            on_roll=_get(bits, _MOVE),
            crawford=bool(_get(bits, _CRAWFORD)),
            game_state=_get(bits, _STATE),
            turn=_get(bits, _TURN),
            double_offered=bool(_get(bits, _DOUBLED)),
            resign=_get(bits, _RESIGN),
            dice=rolled,
            match_length=match_length,
            score=(_get(bits, _SCORE0), _get(bits, _SCORE1)),
            jacoby=match_length == 0 and not _get(bits, _NOT_JACOBY),
        )
    except ValueError as exc:
        raise ValueError(f"bad match ID {quote(mid)}: {exc}") from None


# --- GNUbgID -------------------------------------------------------------------------------


def encode_gnubg_id(board: np.ndarray, ms: MatchState) -> str:
    """``PositionID:MatchID``; ``board`` has ``ms.on_roll`` in row 1, as gnubg stores it."""
    return f"{encode_position_id(board)}:{encode_match_id(ms)}"


def decode_gnubg_id(text: str) -> tuple[np.ndarray, MatchState]:
    """Board (row 1 = ``ms.on_roll``, the player on roll) and match state of a GNUbgID."""
    parts = text.strip().split(":")
    if len(parts) != 2:
        raise ValueError(f"a GNUbgID is PositionID:MatchID, got {quote(text)}")
    return decode_position_id(parts[0]), decode_match_id(parts[1])
