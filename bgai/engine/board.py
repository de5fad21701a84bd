"""Boards in gnubg's layout, and the facts about them that every layer needs.

A board is an integer array of shape ``(2, 25)`` (or ``(N, 2, 25)`` for a batch):

* row 1 is the player **on roll**, row 0 the opponent;
* index ``i`` (0-23) is that row's own point ``i + 1``, counted from that player's side
  (each player bears off from points 1-6 and moves from 24 towards 1);
* index 24 is that row's bar; checkers borne off are implicit (``15 - row.sum()``).

The same physical point is ``board[1][i]`` for the mover and ``board[0][23 - i]`` for the
opponent. Passing the turn is just swapping the two rows (:func:`swap_sides`).
Works on numpy arrays and torch tensors alike.
"""

from __future__ import annotations

import numpy as np
import torch

BAR = 24
CHECKERS = 15

Array = np.ndarray | torch.Tensor


def _side(points: dict[int, int]) -> list[int]:
    row = [0] * 25
    for point, n in points.items():
        row[point - 1] = n
    return row


_STARTS = {
    "standard": {24: 2, 13: 5, 8: 3, 6: 5},
    "nackgammon": {24: 2, 23: 2, 13: 4, 8: 3, 6: 4},
    "hypergammon": {24: 1, 23: 1, 22: 1},
}
VARIANTS = tuple(_STARTS)


def starting_board(variant: str = "standard") -> np.ndarray:
    """The opening position of ``variant`` (both sides set up alike)."""
    if variant not in _STARTS:
        raise ValueError(f"unknown variant {variant!r}: choose one of {', '.join(VARIANTS)}")
    row = _side(_STARTS[variant])
    return np.array([row, row], dtype=np.int8)


def checkers_per_side(variant: str = "standard") -> int:
    """How many checkers each side plays with (15, or 3 in hypergammon)."""
    return int(starting_board(variant)[0].sum())


def swap_sides(boards: Array) -> Array:
    """Hand the turn to the other player: row 0 and row 1 change places."""
    return boards.flip(-2) if isinstance(boards, torch.Tensor) else boards[..., ::-1, :].copy()


def pip_counts(boards: Array) -> Array:
    """Pips each side still has to travel, shape ``(..., 2)``: [opponent, on roll]."""
    weights = np.arange(1, 26)
    if isinstance(boards, torch.Tensor):
        return (boards.long() * torch.as_tensor(weights, device=boards.device)).sum(-1)
    return (boards.astype(np.int64) * weights).sum(-1)


def borne_off(boards: Array, checkers: int = CHECKERS) -> Array:
    """Checkers each side has borne off, shape ``(..., 2)``."""
    return checkers - boards.sum(-1)


def is_race(boards: Array) -> Array:
    """True where contact is over: every mover checker has passed every opponent checker."""
    t = torch.as_tensor(boards)
    idx = torch.arange(25, device=t.device)
    # Mover's furthest-back checker, as the mover's point index (bar = 24).
    mover_back = torch.where(t[..., 1, :] > 0, idx, -1).amax(-1)
    # Opponent's furthest-back checker, translated into the mover's point index.
    opp_back = torch.where(t[..., 0, :] > 0, idx, -1).amax(-1)
    opp_back_in_mover = 23 - opp_back  # opponent bar (24) maps to -1: behind all our points
    race = mover_back < opp_back_in_mover
    return race.numpy() if isinstance(boards, np.ndarray) else race


def validate_board(board: Array, checkers: int = CHECKERS) -> None:
    """Raise ``ValueError`` saying what is wrong if ``board`` cannot occur in a game."""
    b = np.asarray(board)
    if b.shape != (2, 25):
        raise ValueError(f"a board has shape (2, 25), got {tuple(b.shape)}")
    if (b < 0).any():
        raise ValueError("a point holds a negative number of checkers")
    for row, name in ((1, "player on roll"), (0, "opponent")):
        total = int(b[row].sum())
        if total > checkers:
            raise ValueError(f"the {name} has {total} checkers; at most {checkers} are allowed")
    clash = [i + 1 for i in range(24) if b[1, i] > 0 and b[0, 23 - i] > 0]
    if clash:
        raise ValueError(f"both sides have checkers on the point the player on roll calls {clash[0]}")


def is_over(boards: Array) -> Array:
    """True where the game is over: a side has borne off every checker."""
    return (boards.sum(-1) == 0).any(-1)


def require_game_on(board: Array, where: str = "") -> None:
    """Raise ``ValueError`` saying who has borne off every checker if the game on ``board`` is
    over (a position asked about, a move or cube decision asked for); ``where`` names it."""
    b = np.asarray(board)
    for row, who in ((1, "player on roll"), (0, "opponent")):
        if b[row].sum() == 0:
            raise ValueError(f"the game{where} is over: the {who} has borne off every checker")


def game_value(boards: Array, checkers: int = CHECKERS) -> Array:
    """Points won by the player in row 1 if they have borne off everything, else 0.

    1 for a single game, 2 for a gammon (the loser has borne off nothing), 3 for a
    backgammon (and the loser still has a checker on the bar or in the winner's home board).
    Call it on a board the winner has just moved in (winner still in row 1).
    """
    t = torch.as_tensor(boards)
    won = t[..., 1, :].sum(-1) == 0
    loser = t[..., 0, :]
    gammon = loser.sum(-1) == checkers
    backgammon = gammon & (loser[..., 18:25].sum(-1) > 0)
    value = won.long() * (1 + gammon.long() + backgammon.long())
    return value.numpy() if isinstance(boards, np.ndarray) else value


def most_points_left(boards: Array, checkers: int = CHECKERS) -> Array:
    """The most the player in row 1 can still win from here, by the board alone: 1 once the
    opponent (row 0) has borne off a checker; 2 in a race where the opponent has nothing left
    in row 1's home board or on the bar (no backgammon can happen any more); else 3."""
    t = torch.as_tensor(boards)
    loser = t[..., 0, :]
    gammon_possible = loser.sum(-1) == checkers
    backgammon_possible = gammon_possible & ~(is_race(t) & (loser[..., 18:25].sum(-1) == 0))
    most = 1 + gammon_possible.long() + backgammon_possible.long()
    return most.numpy() if isinstance(boards, np.ndarray) else most
