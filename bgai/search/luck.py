"""The luck of a roll, as gnubg measures it.

A roll's luck is the mover's equity after the best move of the roll thrown minus the average of
the same over the 21 rolls, every value at 0-ply by one evaluator. Its mean over the dice is
exactly zero whatever the evaluator, so a result minus the luck of every roll in it estimates
the same thing with much less noise: the luck rates of ``bgai analyse`` and the luck-adjusted
results of ``bgai bench --luck`` (rollouts subtract it per trial the same way).

The opening roll also decides who moves first, so its average runs over the 30 equally likely
outcomes: each of the 15 non-double rolls, won by either side (gnubg's first-roll luck).
"""

from __future__ import annotations

import numpy as np
import torch

from bgai.engine.board import swap_sides
from bgai.engine.dice import ROLL_COUNTS, ROLLS, roll_index
from bgai.model.probs import cubeless_equity
from bgai.search.evaluator import Evaluator
from bgai.search.ply import roll_moves


def roll_luck(
    mine: np.ndarray, dice: np.ndarray, opening: np.ndarray | None = None, theirs: np.ndarray | None = None
) -> np.ndarray:
    """``(N, ...)`` the mover's luck in each roll ``dice`` ``(N, 2)``.

    ``mine`` ``(N, 21, ...)``: his equity (or any values linear in the probabilities, one per
    trailing channel) after each roll's best move (:data:`ROLLS` order). Rows where ``opening``
    (bool ``(N,)``) are opening rolls; ``theirs`` ``(opening.sum(), 21, ...)`` is then, for each,
    the opponent's equity (his own view) had he won the opening with each roll.
    """
    mine = np.asarray(mine, dtype=np.float64)
    mean = np.tensordot(ROLL_COUNTS.double().numpy() / 36, mine, axes=([0], [1]))  # exact weights
    if opening is not None and opening.any():
        plain = (ROLLS[:, 0] != ROLLS[:, 1]).numpy()
        theirs = np.asarray(theirs, dtype=np.float64)
        mean[opening] = (mine[opening][:, plain].sum(1) - theirs[:, plain].sum(1)) / (2 * plain.sum())
    return mine[np.arange(len(mine)), roll_index(dice)] - mean


def cubeless_luck(
    evaluator: Evaluator, boards: torch.Tensor, dice: np.ndarray, opening: np.ndarray
) -> np.ndarray:
    """``(N,)`` the luck of each roll ``dice`` on ``boards`` (mover in row 1) in cubeless money
    equity, each roll's best move picked and valued by ``evaluator`` at 0-ply; ``opening``
    (bool ``(N,)``) marks opening rolls."""
    _, values = roll_moves(evaluator, boards, 0)
    mine = cubeless_equity(values.double()).cpu().numpy()
    theirs = None
    if opening.any():
        rows = torch.as_tensor(np.flatnonzero(opening), device=boards.device)
        _, other = roll_moves(evaluator, swap_sides(boards.index_select(0, rows)), 0)
        theirs = cubeless_equity(other.double()).cpu().numpy()
    return roll_luck(mine, dice, opening, theirs)
