"""The five outcome probabilities every evaluator returns, and what search and cube do with them.

A probability tensor has shape ``(..., 5)``, always for the player **on roll**:
``[win, win gammon, win backgammon, lose gammon, lose backgammon]``; gammons include
backgammons, and losing is ``1 - win``.
"""

from __future__ import annotations

import numpy as np
import torch

from bgai.engine.board import CHECKERS, is_race

ProbsArray = torch.Tensor | np.ndarray

WIN, WIN_GAMMON, WIN_BACKGAMMON, LOSE_GAMMON, LOSE_BACKGAMMON = range(5)
OUTPUTS = ("win", "win_gammon", "win_backgammon", "lose_gammon", "lose_backgammon")


def probs_from_logits(logits: torch.Tensor) -> torch.Tensor:
    """Consistent probabilities from five free logits (a chain of conditional sigmoids).

    win = s(a), wg = win s(b), wbg = wg s(c), lg = (1 - win) s(d), lbg = lg s(e), so that
    wbg <= wg <= win and lbg <= lg <= 1 - win hold by construction.
    """
    s = torch.sigmoid(logits)
    win = s[..., 0]
    wg = win * s[..., 1]
    lg = (1 - win) * s[..., 3]
    return torch.stack([win, wg, wg * s[..., 2], lg, lg * s[..., 4]], -1)


def possible_outcomes(boards: torch.Tensor, checkers: int = CHECKERS) -> torch.Tensor:
    """``(N, 5)`` bool: which of the five outcomes each board ``(N, 2, 25)`` still allows.

    As gnubg's sanity check on its nets' outputs: a side that has borne off a checker cannot
    be gammoned, and in a race a side with no checker on the bar or in the other side's home
    board cannot be backgammoned. Nets only approach these zeros, so evaluators and fits
    multiply by this mask; on ``best``'s held-out crashed positions making the zeros exact took
    the equity error against gnubg 2-ply from 0.072 to 0.067 (docs/search.md).
    """
    b = torch.as_tensor(boards)
    off = checkers - b.sum(-1)  # (N, 2): [opponent, on roll]
    back = b[:, :, 18:25].sum(-1) > 0  # checkers on the bar or in the other side's home board
    race = is_race(b)
    they_can_lose, i_can_lose = off[:, 0] == 0, off[:, 1] == 0
    return torch.stack(
        [
            torch.ones_like(race),
            they_can_lose,
            they_can_lose & (~race | back[:, 0]),
            i_can_lose,
            i_can_lose & (~race | back[:, 1]),
        ],
        -1,
    )


def cubeless_equity(probs: torch.Tensor) -> torch.Tensor:
    """Cubeless money equity ``(...)`` for the player on roll: 2w - 1 + (wg - lg) + (wbg - lbg)."""
    return (
        2 * probs[..., WIN]
        - 1
        + probs[..., WIN_GAMMON]
        - probs[..., LOSE_GAMMON]
        + probs[..., WIN_BACKGAMMON]
        - probs[..., LOSE_BACKGAMMON]
    )


def invert(probs: ProbsArray) -> ProbsArray:
    """The same outcomes seen by the other player: win <-> lose, wg <-> lg, wbg <-> lbg.

    Works on torch tensors and numpy arrays ``(..., 5)`` alike (the one home of this fact).
    """
    if isinstance(probs, torch.Tensor):
        other = probs.index_select(-1, torch.tensor(_OTHER_SIDE, device=probs.device))
    else:
        other = np.asarray(probs)[..., _OTHER_SIDE]
    other[..., WIN] = 1 - probs[..., WIN]
    return other


_OTHER_SIDE = [WIN, LOSE_GAMMON, LOSE_BACKGAMMON, WIN_GAMMON, WIN_BACKGAMMON]
