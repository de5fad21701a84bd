"""Start a bigger network from a trained one without changing what it computes.

Training a richer net from nothing would throw away millions of self-play games. Instead the
trained weights go into the bigger net, whose extra parts start silent: a new input unit
(matched by name between the two encodings) gets zero weight into every old hidden unit, and a
new hidden unit gets zero weight out, so the grown net's outputs equal the old one's exactly.
Training then brings the new parts in. A single net can also grow into both halves of a
:class:`SplitNet`.
"""

from __future__ import annotations

import torch

from bgai.model.net import SplitNet, ValueNet


def grow(source: ValueNet | SplitNet, target: ValueNet | SplitNet) -> None:
    """Copy ``source``'s weights into ``target`` (same architecture or a larger one), in place.

    Raises a one-line ``ValueError`` when ``target`` cannot hold ``source``.
    """
    if isinstance(target, SplitNet):
        parts = (source.contact, source.race) if isinstance(source, SplitNet) else (source, source)
        grow(parts[0], target.contact)
        grow(parts[1], target.race)
        return
    if isinstance(source, SplitNet):
        raise ValueError("cannot grow a split (contact/race) net into a single net")
    _check(source, target)
    columns = torch.tensor([target.encoding.index(name) for name in source.encoding.names])
    with torch.no_grad():
        old_in = columns  # where each layer's old inputs sit among the target layer's inputs
        for small, big in [*zip(source.layers, target.layers, strict=True), (source.head, target.head)]:
            # Old units: the old weights, and nothing from new inputs (new units keep their
            # random weights in: their zero weights out make them silent).
            big.weight[: small.out_features] = 0.0
            big.weight[: small.out_features, old_in] = small.weight
            big.bias[: small.out_features] = small.bias
            old_in = torch.arange(small.out_features)


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
    if source.activation != target.activation or source.checkers != target.checkers:
        raise ValueError(
            f"cannot grow a {source.activation} net for {source.checkers} checkers into a "
            f"{target.activation} net for {target.checkers}"
        )
