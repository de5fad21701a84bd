"""Dice for many games at once, including the opening roll, and seeded counter-based dice streams.

:data:`ROLLS` and :data:`ROLL_WEIGHTS` are the one table of the 21 distinct rolls that the
model's features, the bear-off databases, the search and the cube all average over.
"""

from __future__ import annotations

import numpy as np
import torch

ROLLS = torch.tensor([(a, b) for a in range(1, 7) for b in range(a, 7)])
"""The 21 distinct rolls, ``(21, 2)``, low die first: 11, 12, ..., 16, 22, ..., 66."""
ROLL_COUNTS = torch.where(ROLLS[:, 0] == ROLLS[:, 1], 1, 2)
"""How many of the 36 outcomes of two dice each of :data:`ROLLS` stands for (1 for a double)."""
ROLL_WEIGHTS = ROLL_COUNTS.float() / 36
"""Probability of each of :data:`ROLLS`; they sum to 1."""


def roll_index(dice: np.ndarray) -> np.ndarray:
    """Index of each ``(n, 2)`` roll among :data:`ROLLS` (dice in either order)."""
    dice = np.asarray(dice)
    low, high = np.minimum(dice[:, 0], dice[:, 1]) - 1, np.maximum(dice[:, 0], dice[:, 1]) - 1
    # ROLLS lists (a, b) for a <= b in order: row a starts at sum_{k<a} (6 - k).
    return low * 6 - low * (low - 1) // 2 + (high - low)


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


def dice_of(seed: int | np.ndarray, streams: np.ndarray, turns: np.ndarray) -> np.ndarray:
    """Roll ``turns[j]`` of stream ``streams[j]``: ``(n, 2)`` dice from a seeded counter hash.

    A stream is the same sequence of rolls however many others are drawn alongside it, so
    duplicate games (the bench) and the trials of different moves (rollouts) share dice.
    ``seed`` is one for all streams or one per stream (int64 values).
    """
    with np.errstate(over="ignore"):
        if np.ndim(seed):
            seeds = np.asarray(seed, dtype=np.int64).astype(np.uint64)
        else:
            seeds = np.full(len(streams), seed & (2**64 - 1), dtype=np.uint64)
        key = splitmix64(seeds)
        key = splitmix64(key + np.asarray(streams, dtype=np.uint64))
        value = splitmix64(key + np.asarray(turns, dtype=np.uint64)) % np.uint64(36)
    value = value.astype(np.int64)
    return np.stack([value // 6 + 1, value % 6 + 1], 1)


def splitmix64(x: np.ndarray) -> np.ndarray:
    """splitmix64's finaliser on ``uint64`` arrays (the arithmetic wraps): a fast, well-mixed
    hash of a counter, behind the dice streams and the search's deterministic noise."""
    x = x + np.uint64(0x9E3779B97F4A7C15)
    x = (x ^ (x >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
    x = (x ^ (x >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
    return x ^ (x >> np.uint64(31))
