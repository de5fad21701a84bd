"""The first layer over ``tesauro198`` as a sum of table lookups (never builds the inputs).

Each point's 4 units depend only on its checker count, so a Linear layer over the 198
inputs equals a sum, over the 52 slots (2 sides x (24 points + bar + off)), of a row looked up
by (slot, count), plus the bias and the constant turn unit. ``embedding_bag`` does that sum;
the table is rebuilt from the Linear's weight on every call, so gradients flow to it as usual.
Gives the same pre-activations as ``linear(TESAURO198(boards))`` (up to float rounding).
"""

from __future__ import annotations

import torch
import torch.nn.functional as F

from bgai.model.encoding import count_units

MAX_COUNT = 16  # counts 0..15 per slot
SLOTS_PER_SIDE = 26  # 24 points, bar, off


def lookup_table(weight: torch.Tensor, checkers: int) -> torch.Tensor:
    """``(2 * 26 * 16, H)`` rows: what slot s holding c checkers adds to the pre-activation."""
    h = weight.shape[0]
    counts = torch.arange(MAX_COUNT, dtype=weight.dtype, device=weight.device)
    sides = weight[:, :196].reshape(h, 2, 98)
    units = count_units(counts).to(weight.dtype)  # (16, 4)
    points = torch.einsum("ck,hspk->spch", units, sides[:, :, :96].reshape(h, 2, 24, 4))
    bar = torch.einsum("c,hs->sch", counts / 2, sides[:, :, 96])[:, None]
    off = torch.einsum("c,hs->sch", counts / checkers, sides[:, :, 97])[:, None]
    return torch.cat([points, bar, off], 1).reshape(2 * SLOTS_PER_SIDE * MAX_COUNT, h)


def slot_indices(boards: torch.Tensor, checkers: int) -> torch.Tensor:
    """``(N, 52)`` row numbers into :func:`lookup_table` for each board (on roll side first)."""
    b = torch.as_tensor(boards).long()
    rows = torch.stack([b[:, 1], b[:, 0]], 1)  # (N, 2 sides, 25): on roll, opponent
    off = checkers - rows.sum(-1, keepdim=True)
    counts = torch.cat([rows, off], -1).clamp(max=MAX_COUNT - 1)  # (N, 2, 26)
    base = torch.arange(2 * SLOTS_PER_SIDE, device=b.device).view(2, SLOTS_PER_SIDE) * MAX_COUNT
    return (base + counts).flatten(1)


def tesauro198_first_layer(boards: torch.Tensor, linear: torch.nn.Linear, checkers: int) -> torch.Tensor:
    """Pre-activations ``(N, H)`` of ``linear`` applied to the tesauro198 inputs of ``boards``."""
    table = lookup_table(linear.weight, checkers)
    summed = F.embedding_bag(slot_indices(boards, checkers), table, mode="sum")
    # Turn units are the constant [1, 0]: column 196 folds into the bias.
    return summed + linear.bias + linear.weight[:, 196]
