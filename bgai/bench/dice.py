"""The bench's dice: seeded, counter-based streams, so duplicate games can share their rolls.

Game (or match game) ``i`` reads its dice from a stream: a counter-based hash of (seed,
stream, turn), so a stream is the same sequence of rolls however many games run alongside.
The opening roll gives each seat one die, ties re-rolled; the seat with the higher die moves
first and plays both. Turn ``t`` then uses roll ``t`` of the stream, whoever is on roll.
Which game reads which stream is the bench's business (:mod:`bgai.bench.games`).
"""

from __future__ import annotations

import numpy as np

_OPENING = 1 << 40  # turn numbers from here on are re-rolls of the opening


def dice_of(seed: int, streams: np.ndarray, turns: np.ndarray) -> np.ndarray:
    """Roll ``turns[j]`` of stream ``streams[j]``: ``(n, 2)`` dice from a seeded counter hash."""
    with np.errstate(over="ignore"):
        key = _mix(np.full(len(streams), seed & (2**64 - 1), dtype=np.uint64))
        key = _mix(key + np.asarray(streams, dtype=np.uint64))
        value = _mix(key + np.asarray(turns, dtype=np.uint64)) % np.uint64(36)
    value = value.astype(np.int64)
    return np.stack([value // 6 + 1, value % 6 + 1], 1)


def opening_dice(seed: int, streams: np.ndarray) -> np.ndarray:
    """The opening roll of each stream, ``(n, 2)``: die 0 is seat 0's, die 1 seat 1's; no ties."""
    dice = dice_of(seed, streams, np.full(len(streams), _OPENING))
    attempt = 0
    while (tie := dice[:, 0] == dice[:, 1]).any():
        attempt += 1
        dice[tie] = dice_of(seed, streams[tie], np.full(int(tie.sum()), _OPENING + attempt))
    return dice


def _mix(x: np.ndarray) -> np.ndarray:
    """splitmix64's finaliser (uint64 arithmetic wraps)."""
    x = x + np.uint64(0x9E3779B97F4A7C15)
    x = (x ^ (x >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
    x = (x ^ (x >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
    return x ^ (x >> np.uint64(31))
