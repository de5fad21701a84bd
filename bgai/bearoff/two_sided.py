"""The exact two-sided bear-off database for small bear-offs.

``win[a, b]`` is the cubeless probability that the player on roll, with home position index
``a``, wins against an opponent with home position index ``b`` (indices of
:func:`bgai.bearoff.one_sided.position_index`), when both play perfectly to win. Both sides
have at most ``max_checkers`` checkers (default 6: 924 x 924 positions), so both have borne off
at least nine and neither gammons are possible nor the one-sided shortcut needed: each move
maximises the winning chance, which the one-sided approximation only approaches.

Computed by dynamic programming over (mover, opponent) pairs by increasing total pips::

    win[a, b] = sum over rolls r of P(r) * max over afterstates c of (1 - win[b, c])

(the opponent moves next from ``b`` against ``c``), with ``win[empty, b] = 1`` (the player
on roll has already borne off everything) and ``win[a, empty] = 0`` for ``a`` not empty.
Each pip level (:func:`pair_levels`) is one batched gather over every pair of the level and every
afterstate (:func:`mean_of_best_moves`); :mod:`bgai.cube.bearoff` solves the cubeful money game
on the same two.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import torch

from bgai.bearoff.one_sided import (
    ROLL_WEIGHTS,
    ROLLS,
    afterstate_edges,
    all_positions,
    find_or_build,
    home_pips,
    position_count,
    roll_edges,
)

TWO_SIDED_CHECKERS = 6


@dataclass(frozen=True)
class TwoSidedDB:
    """``win`` ``(M, M)`` float32: P(player on roll wins), indexed [mover, opponent]."""

    win: torch.Tensor

    @property
    def max_checkers(self) -> int:
        n = len(self.win)
        return next(k for k in range(16) if position_count(k) == n)

    def save(self, path: Path) -> None:
        path.parent.mkdir(parents=True, exist_ok=True)
        np.savez_compressed(path, win=self.win.numpy())

    @classmethod
    def load(cls, path: Path) -> TwoSidedDB:
        with np.load(path) as data:
            return cls(torch.from_numpy(data["win"]))


def build_two_sided(max_checkers: int = TWO_SIDED_CHECKERS) -> TwoSidedDB:
    """Compute the exact two-sided table for up to ``max_checkers`` checkers per side."""
    homes = all_positions(max_checkers)
    child, start = afterstate_edges(homes)
    n = len(homes)
    win = torch.zeros((n, n), dtype=torch.float64)
    win[0, :] = 1.0
    for a, b in pair_levels(homes):
        win[a, b] = mean_of_best_moves(a, b, child, start, lambda opponent, after: 1 - win[opponent, after])
    return TwoSidedDB(win.float())


def pair_levels(homes: torch.Tensor) -> Iterator[tuple[torch.Tensor, torch.Tensor]]:
    """Every (mover, opponent) pair of non-empty ``homes`` indices, a batch per total pip count,
    lowest first: every move lowers the pips, so a pair's afterstates are all in earlier batches."""
    n = len(homes)
    pips = home_pips(homes)
    a, b = torch.meshgrid(torch.arange(1, n), torch.arange(1, n), indexing="ij")
    a, b = a.reshape(-1), b.reshape(-1)
    total = pips[a] + pips[b]
    order = torch.argsort(total, stable=True)
    a, b, total = a[order], b[order], total[order]
    bounds = torch.searchsorted(total, torch.arange(int(total.max()) + 2)).tolist()
    for lo, hi in itertools.pairwise(bounds):
        if hi > lo:
            yield a[lo:hi], b[lo:hi]


def mean_of_best_moves(a, b, child, start, value) -> torch.Tensor:
    """For each pair (mover ``a``, opponent ``b``): the mean over the 36 rolls of the mover's best
    afterstate, ``value(opponent, afterstate)`` being the mover's value of leaving ``afterstate``
    with ``opponent`` to roll (``(E,)``, or ``(E, K)``: K values, each maximised on its own).

    ``child``, ``start`` are :func:`~bgai.bearoff.one_sided.afterstate_edges` of the positions.
    Returns ``(len(a),)`` or ``(len(a), K)``.
    """
    rolls = len(ROLLS)
    edges, pair = roll_edges(a, start)
    after = child[edges].long()
    values = value(b[torch.div(pair, rolls, rounding_mode="floor")], after)
    extra = values.shape[1:]
    index = pair.view(-1, *(1,) * len(extra)).expand_as(values)
    best = torch.full((len(a) * rolls, *extra), -torch.inf, dtype=values.dtype)
    best.scatter_reduce_(0, index, values, "amax")
    weights = ROLL_WEIGHTS.to(values.dtype).view(1, rolls, *(1,) * len(extra))
    return (best.view(len(a), rolls, *extra) * weights).sum(1) / 36


TWO_SIDED_FILE = f"two_sided_{TWO_SIDED_CHECKERS}.npz"


def load_two_sided() -> TwoSidedDB:
    """The two-sided table for up to 6 checkers a side, shipped with bgai or built on first use."""
    return find_or_build(TWO_SIDED_FILE, build_two_sided, TwoSidedDB.load)
