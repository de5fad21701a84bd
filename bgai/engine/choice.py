"""Picking one child per parent from the flat (children, parent) output of :func:`expand`.

Every player — random, greedy, a network, a search — scores the afterstates of many positions
in one flat batch and then needs one pick per position; these are the batched picks.
"""

from __future__ import annotations

import torch


def child_counts(parent: torch.Tensor, n: int) -> torch.Tensor:
    """How many children each of the ``n`` parents has."""
    return torch.bincount(parent, minlength=n)


def segment_argmax(scores: torch.Tensor, parent: torch.Tensor, n: int) -> torch.Tensor:
    """Index of the best-scoring child of each parent (the first one on a tie)."""
    best = torch.full((n,), float("-inf"), dtype=scores.dtype, device=scores.device)
    best.scatter_reduce_(0, parent, scores, "amax")
    rows = torch.arange(len(scores), device=scores.device)
    candidate = torch.where(scores == best.index_select(0, parent), rows, len(scores))
    pick = torch.full((n,), len(scores), dtype=torch.long, device=scores.device)
    return pick.scatter_reduce_(0, parent, candidate, "amin")


def random_child(parent: torch.Tensor, n: int, generator: torch.Generator | None = None) -> torch.Tensor:
    """Index of a uniformly random child of each parent."""
    counts = child_counts(parent, n)
    start = torch.cumsum(counts, 0) - counts
    u = torch.rand(n, generator=generator).to(parent.device)  # CPU generator: same draws on any device
    return start + (u * counts).long().clamp(max=counts - 1)
