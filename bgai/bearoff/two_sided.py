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
Each pip level is one batched gather over every pair of the level and every afterstate.
"""

from __future__ import annotations

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
    pips = home_pips(homes)
    a, b = torch.meshgrid(torch.arange(1, n), torch.arange(1, n), indexing="ij")
    a, b = a.reshape(-1), b.reshape(-1)
    total = pips[a] + pips[b]
    order = torch.argsort(total, stable=True)
    a, b, total = a[order], b[order], total[order]
    bounds = torch.searchsorted(total, torch.arange(int(total.max()) + 2))
    for level in range(len(bounds) - 1):
        lo, hi = int(bounds[level]), int(bounds[level + 1])
        if hi > lo:
            win[a[lo:hi], b[lo:hi]] = _best_replies(a[lo:hi], b[lo:hi], child, start, win)
    return TwoSidedDB(win.float())


def _best_replies(a, b, child, start, win) -> torch.Tensor:
    """P(win) of each pair (a, b), playing every roll to leave the opponent the least."""
    rolls = len(ROLLS)
    edges, pair = roll_edges(a, start)
    after = child[edges].long()
    opponent = b[torch.div(pair, rolls, rounding_mode="floor")]
    value = 1 - win.view(-1)[opponent * len(win) + after]
    best = torch.full((len(a) * rolls,), -1.0, dtype=win.dtype).scatter_reduce_(0, pair, value, "amax")
    return (best.view(len(a), rolls) * ROLL_WEIGHTS).sum(1) / 36


TWO_SIDED_FILE = f"two_sided_{TWO_SIDED_CHECKERS}.npz"


def load_two_sided() -> TwoSidedDB:
    """The two-sided table for up to 6 checkers a side, shipped with bgai or built on first use."""
    return find_or_build(TWO_SIDED_FILE, build_two_sided, TwoSidedDB.load)
