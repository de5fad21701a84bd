"""The bench's dice: seeded, counter-based streams, so duplicate games can share their rolls.

Game (or match game) ``i`` reads its dice from a stream: a counter-based hash of (seed,
stream, turn), so a stream is the same sequence of rolls however many games run alongside.
The opening roll gives each seat one die, ties re-rolled; the seat with the higher die moves
first and plays both. Turn ``t`` then uses roll ``t`` of the stream, whoever is on roll.
Which game reads which stream is the bench's business (:mod:`bgai.bench.games`).
"""

from __future__ import annotations

import numpy as np

from bgai.engine.dice import dice_of

_OPENING = 1 << 40  # turn numbers from here on are re-rolls of the opening


def opening_dice(seed: int, streams: np.ndarray) -> np.ndarray:
    """The opening roll of each stream, ``(n, 2)``: die 0 is seat 0's, die 1 seat 1's; no ties."""
    dice = dice_of(seed, streams, np.full(len(streams), _OPENING))
    attempt = 0
    while (tie := dice[:, 0] == dice[:, 1]).any():
        attempt += 1
        dice[tie] = dice_of(seed, streams[tie], np.full(int(tie.sum()), _OPENING + attempt))
    return dice
