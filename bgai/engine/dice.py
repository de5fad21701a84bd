"""Dice for many games at once, including the opening roll."""

from __future__ import annotations

import torch


def roll(
    n: int, generator: torch.Generator | None = None, device: str | torch.device = "cpu"
) -> torch.Tensor:
    """``n`` rolls of two dice, shape (n, 2)."""
    return torch.randint(1, 7, (n, 2), generator=generator).to(device)


def opening_roll(n: int, generator: torch.Generator | None = None) -> torch.Tensor:
    """``n`` opening rolls: one die each, ties re-rolled, so never a double.

    The player whose die is higher moves first and plays both dice, so the first move of a
    game is played with these two dice by whoever is put on roll.
    """
    dice = torch.randint(1, 7, (n, 2), generator=generator)
    tie = dice[:, 0] == dice[:, 1]
    while tie.any():
        dice[tie] = torch.randint(1, 7, (int(tie.sum()), 2), generator=generator)
        tie = dice[:, 0] == dice[:, 1]
    return dice
