"""The dice of rollout trials: quasi-random for the first rolls, seeded streams after them.

Trial ``i`` reads roll ``t`` from a counter hash of (seed, i, t) (:func:`bgai.engine.dice.dice_of`),
so every candidate move of a move rollout and every branch of a cube rollout sees the same
dice in trial ``i`` (their differences are then far more precise than their values).

**Quasi-random dice** (gnubg's rotation): the first :data:`QUASI_DEPTH` rolls are stratified.
Write ``i`` in base 36 as digits ``d0, d1, d2, ...``; roll ``t < 3`` is ``j_t`` of the nest
``j = perm[0][t][d0]``, ``j = perm[k][t][(dk + j) % 36]`` for ``k = 1 .. t``, with seeded
permutations ``perm[k][t]`` of the 36 ordered rolls, one for each level and roll (gnubg's
scheme). Any 36 consecutive trials (from a multiple of 36) then hold each first roll once, any
1,296 each pair of first two rolls once, any 46,656 each triple once: with 1,296 trials the
luck of the first two rolls cancels exactly. Each trial's rolls are still independent and
uniform over the seed's permutations, so the estimate is unbiased; and within 1,296 trials the
third roll is no fixed function of the second (a single permutation per roll, ``perm_t[(d0 +
... + dt) % 36]``, tied them one to one and left errors well beyond the reported SE).
"""

from __future__ import annotations

from functools import lru_cache

import numpy as np

from bgai.engine.dice import dice_of, splitmix64

QUASI_DEPTH = 3


@lru_cache(maxsize=4096)
def _permutations(seed: int) -> np.ndarray:
    """``(QUASI_DEPTH, QUASI_DEPTH, 36)`` seeded permutations of the 36 ordered rolls, by
    ``[level, roll]``."""
    rng = np.random.default_rng([seed & (2**63 - 1), 0xD1CE])
    return np.stack([np.stack([rng.permutation(36) for _ in range(QUASI_DEPTH)]) for _ in range(QUASI_DEPTH)])


def position_seeds(seed: int, boards) -> np.ndarray:
    """``(N,)`` int64 dice seeds: the rollout's ``seed`` mixed with each position itself, so that
    a position rolls the same dice alone or in any batch, and different positions independent
    ones (shared dice would tie the errors of a batch's positions together)."""
    flat = np.asarray(boards, dtype=np.int64).reshape(len(boards), -1).astype(np.uint64)
    with np.errstate(over="ignore"):
        key = splitmix64(np.full(len(flat), seed & (2**64 - 1), dtype=np.uint64))
        for column in range(flat.shape[1]):
            key = splitmix64(key + flat[:, column] * np.uint64(column + 1))
    return key.astype(np.int64)


def trial_dice(seed: int | np.ndarray, trials: np.ndarray, ply: int, quasi_random: bool = True) -> np.ndarray:
    """``(n, 2)`` dice of roll ``ply`` (0 = the root's first roll) in each of ``trials``;
    ``seed`` one for all trials or one per trial (each trial's position's)."""
    trials = np.asarray(trials, dtype=np.int64)
    if not quasi_random or ply >= QUASI_DEPTH:
        return dice_of(seed, trials, np.full(len(trials), ply))
    if np.ndim(seed):
        distinct, which = np.unique(np.asarray(seed, dtype=np.int64), return_inverse=True)
        perm = np.stack([_permutations(int(s)) for s in distinct])  # (seeds, level, roll, 36)
        which = which.reshape(-1)
    else:
        perm, which = _permutations(seed)[None], np.zeros(len(trials), dtype=np.int64)
    outcome = perm[which, 0, ply, trials % 36]
    for level in range(1, ply + 1):
        outcome = perm[which, level, ply, ((trials // 36**level) % 36 + outcome) % 36]
    return np.stack([outcome // 6 + 1, outcome % 6 + 1], 1)
