"""A network's first layer without building its inputs: the point units as table lookups.

The 196 point units of every encoding (:data:`bgai.model.encoding.POINT_UNITS`) depend on
each slot's checker count alone, apart from the two "borne off" units, which are linear in the
other slots' counts (``off = checkers - sum``). So ``linear`` applied to them is a sum over
the 50 board slots of a row looked up by (slot, count), plus a constant. ``embedding_bag``
does that sum with the board's own bytes as indices (slot ``j`` of the flattened board holding
``c`` checkers is row ``16 j + c``), so self-play never materialises ``(N, 198)`` floats, which
is where most of a forward pass's memory traffic went. The table is rebuilt from the weight
on every call, so gradients flow to it as usual; the result equals
``linear(encoding(boards))`` up to float rounding.
"""

from __future__ import annotations

import torch
import torch.nn.functional as F

from bgai.model.encoding import POINT_UNITS, Encoding, count_units

MAX_COUNT = 16  # counts 0..15 per slot (no side has more than 15 checkers)
SIDE_UNITS = POINT_UNITS // 2  # 24 points x 4, bar, off
WIDE = 128  # units from which summing only the occupied slots pays (see _slot_sum)


def lookup_table(weight: torch.Tensor, constant: torch.Tensor, checkers: int) -> torch.Tensor:
    """``(50 * 16, H)``: row ``16 j + c`` is what slot ``j`` of a flattened board holding ``c``
    checkers adds to the pre-activation; ``constant`` (H,) is folded into slot 0's rows.

    ``weight`` is ``(H, 196)``: on-roll side's 98 units, then the opponent's. Board row 1 is
    the side on roll, so slots 0-24 (row 0) take the opponent's weights.
    """
    h = weight.shape[0]
    counts = torch.arange(MAX_COUNT, dtype=weight.dtype, device=weight.device)
    sides = weight.reshape(h, 2, SIDE_UNITS).flip(1)  # board row order: opponent, on roll
    off = sides[:, :, -1]  # (H, 2): each off unit is 1 - (checkers on the board) / checkers
    units = count_units(counts).to(weight.dtype)  # (16, 4)
    points = torch.einsum("ck,hspk->spch", units, sides[:, :, :96].reshape(h, 2, 24, 4))
    bar = torch.einsum("c,hs->sch", counts / 2, sides[:, :, 96])[:, None]
    table = torch.cat([points, bar], 1) - torch.einsum("c,hs->sch", counts / checkers, off)[:, None]
    table = table.reshape(2 * 25 * MAX_COUNT, h)
    shift = torch.zeros_like(table)
    shift[:MAX_COUNT] = constant + off.sum(1)
    return table + shift


_SLOT_BASE: dict[torch.device, torch.Tensor] = {}


def slot_indices(boards: torch.Tensor) -> torch.Tensor:
    """``(N, 50)`` row numbers into :func:`lookup_table` (int32 when ``boards`` are small ints)."""
    base = _SLOT_BASE.get(boards.device)
    if base is None:
        base = torch.arange(50, dtype=torch.int32, device=boards.device) * MAX_COUNT
        _SLOT_BASE[boards.device] = base
    return boards.reshape(-1, 50) + base


def first_layer(
    boards: torch.Tensor, linear: torch.nn.Linear, encoding: Encoding, checkers: int
) -> torch.Tensor:
    """Pre-activations ``(N, H)`` of ``linear`` applied to ``encoding(boards)``.

    Without gradients the table is kept while the weights stay equal to those it was built
    from (a search evaluates many small batches with the same weights). Equality of contents,
    not tensor version counters: fused optimisers update weights without bumping them.
    """
    weight, bias = linear.weight, linear.bias
    cached = getattr(linear, "_bgai_table", None)
    if torch.is_grad_enabled() or cached is None or not _same(cached[:3], (checkers, weight, bias)):
        n_features = encoding.size - POINT_UNITS - len(encoding.constants)
        constant = bias
        if encoding.constants:
            constants = torch.tensor(encoding.constants, dtype=weight.dtype, device=weight.device)
            constant = constant + weight[:, POINT_UNITS + n_features :] @ constants
        table = lookup_table(weight[:, :POINT_UNITS], constant, checkers)
        if not torch.is_grad_enabled():
            linear._bgai_table = (checkers, weight.detach().clone(), bias.detach().clone(), table)
    else:
        table = cached[3]
    out = _slot_sum(boards, table)
    if encoding.features is not None:
        features = encoding.features(boards)
        out = torch.addmm(out, features, weight[:, POINT_UNITS : POINT_UNITS + features.shape[1]].T)
    return out


def _slot_sum(boards: torch.Tensor, table: torch.Tensor) -> torch.Tensor:
    """``(N, H)``: the sum of the boards' slot rows of ``table``, by the faster of the two ways
    (``python scripts/measure/bench_first_layer.py``): selecting the occupied slots costs what
    summing about 100 units of all 50 slots does, so narrow layers and GPUs (spared the host
    synchronisation a boolean selection costs) sum all slots."""
    if boards.is_cuda or table.shape[1] < WIDE:
        return all_slots_sum(boards, table)
    return occupied_slots_sum(boards, table)


def all_slots_sum(boards: torch.Tensor, table: torch.Tensor) -> torch.Tensor:
    """The rows of all 50 slots of each board, summed."""
    return F.embedding_bag(slot_indices(boards), table, mode="sum")


def occupied_slots_sum(boards: torch.Tensor, table: torch.Tensor) -> torch.Tensor:
    """The same sum over the occupied slots only: an empty slot's row is zero (apart from slot
    0's, which holds the constant), and three slots in four are empty."""
    occupied = boards.reshape(-1, 50) != 0
    occupied[:, 0] = True
    counts = occupied.sum(1)
    return F.embedding_bag(slot_indices(boards)[occupied], table, counts.cumsum(0) - counts, mode="sum")


def _same(a: tuple, b: tuple) -> bool:
    """Equal checker counts and tensors (same device, shape and contents)."""
    if a[0] != b[0]:
        return False
    pairs = zip(a[1:], b[1:], strict=True)
    return all(x.device == y.device and x.shape == y.shape and torch.equal(x, y) for x, y in pairs)
