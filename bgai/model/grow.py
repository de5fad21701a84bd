"""Start a bigger network from a trained one without changing what it computes.

Training a richer net from nothing would throw away millions of self-play games. Instead the
trained weights go into the bigger net, whose extra parts start silent: a new input unit
(matched by name between the two encodings) gets zero weight into every old hidden unit, and a
new hidden unit gets zero weight out, so the grown net's outputs equal the old one's exactly.
Training then brings the new parts in; new hidden units can instead start as copies of old
ones (``widen="split"``, Net2Net), which training brings in at once. New residual blocks
(depth) start with zero weights out, so they too add nothing until trained. A single net can
also grow into both halves of a :class:`SplitNet`.
"""

from __future__ import annotations

import torch

from bgai.model.net import SplitNet, ValueNet

WIDEN = ("silent", "split")


def grow(
    source: ValueNet | SplitNet, target: ValueNet | SplitNet, widen: str = "silent", seed: int = 0
) -> None:
    """Copy ``source``'s weights into ``target`` (same architecture or a larger one), in place.

    ``widen`` says what a wider layer's new units start as: ``silent`` (random weights in, zero
    weights out) or ``split`` (Net2Net: a copy of an old unit, the old unit's weights out shared
    at random between it and its copies, so the outputs stay the same but every unit carries
    signal and gets gradients from the start: silent units are brought in slowly, which left a
    grown 1024-unit net fitting no better than its 512-unit source, docs/supervised.md).
    Raises a one-line ``ValueError`` when ``target`` cannot hold ``source``.
    """
    if widen not in WIDEN:
        raise ValueError(f"widen must be {' or '.join(WIDEN)}, got {widen!r}")
    if isinstance(target, SplitNet):
        parts = (source.contact, source.race) if isinstance(source, SplitNet) else (source, source)
        grow(parts[0], target.contact, widen, seed)
        grow(parts[1], target.race, widen, seed)
        return
    if isinstance(source, SplitNet):
        raise ValueError("cannot grow a split (contact/race) net into a single net")
    _check(source, target)
    gen = torch.Generator().manual_seed(seed)
    # For each input of a layer: the old input it comes from (-1: none) and the share of that
    # old input's weights it carries (0 for a new input or a silent unit).
    names = source.encoding.names
    origin = torch.tensor([names.index(n) if n in names else -1 for n in target.encoding.names])
    share = (origin >= 0).float()
    with torch.no_grad():
        for small, big in [*zip(source.layers, target.layers, strict=True), (source.head, target.head)]:
            units = torch.arange(big.out_features)
            copies = (units - small.out_features) % small.out_features if widen == "split" else -1
            rows = torch.where(units < small.out_features, units, copies)
            old = rows >= 0
            weight = small.weight[rows.clamp(min=0)][:, origin.clamp(min=0)] * share
            big.weight[old] = weight[old]  # silent units keep their random weights in
            big.bias[old] = small.bias[rows[old]]
            part = torch.where(old, torch.rand(len(rows), generator=gen) + 0.5, 0.0)
            total = torch.zeros(small.out_features).index_add_(0, rows[old], part[old])
            origin, share = rows, torch.where(old, part / total[rows.clamp(min=0)], 0.0)
        for i, block in enumerate(target.blocks):
            if i < len(source.blocks):
                block.load_state_dict(source.blocks[i].state_dict())
            else:  # random weights in (so gradients reach them), none out: the block adds zero
                block.outer.weight.zero_()
                block.outer.bias.zero_()


def _check(source: ValueNet, target: ValueNet) -> None:
    missing = [n for n in source.encoding.names if n not in target.encoding.names]
    if missing:
        raise ValueError(
            f"cannot grow encoding {source.encoding.name!r} into {target.encoding.name!r}: "
            f"{len(missing)} units missing (such as {missing[0]!r})"
        )
    if len(source.hidden) != len(target.hidden) or any(
        a > b for a, b in zip(source.hidden, target.hidden, strict=True)
    ):
        raise ValueError(f"cannot grow hidden layers {list(source.hidden)} into {list(target.hidden)}")
    if target.residual[: len(source.residual)] != source.residual or (
        source.residual and source.hidden[-1:] != target.hidden[-1:]
    ):
        raise ValueError(
            f"cannot grow residual blocks {list(source.residual)} after {list(source.hidden)} into "
            f"{list(target.residual)} after {list(target.hidden)}: blocks are only added, at the same width"
        )
    if source.activation != target.activation or source.checkers != target.checkers:
        raise ValueError(
            f"cannot grow a {source.activation} net for {source.checkers} checkers into a "
            f"{target.activation} net for {target.checkers}"
        )
