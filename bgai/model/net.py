"""Value networks: boards in, five outcome probabilities out, for the player on roll.

:class:`ValueNet` is a TD-Gammon-style MLP over one registered encoding; :class:`SplitNet`
routes contact and race positions to two such nets. Both are rebuilt from a plain ``spec()``
dict (primitives only, so it loads with ``torch.load(weights_only=True)``) with
:func:`build_net`; :func:`check_spec` turns a checkpoint/model mismatch into one line.
Networks know boards, not search: see :mod:`bgai.model.probs` for what to do with outputs.
"""

from __future__ import annotations

import re
from typing import Any

import torch
from torch import nn

from bgai.engine.board import CHECKERS, is_race
from bgai.model.encoding import get_encoding
from bgai.model.first_layer import first_layer
from bgai.model.probs import probs_from_logits

ACTIVATIONS = {"sigmoid": nn.Sigmoid, "tanh": nn.Tanh, "relu": nn.ReLU, "gelu": nn.GELU}
Spec = dict[str, Any]


class ValueNet(nn.Module):
    """MLP from an encoding to 5 consistent probabilities for the player on roll.

    ``forward(boards)`` takes integer boards ``(N, 2, 25)``; ``forward_encoded(x)`` takes the
    encoding's inputs. From boards without gradients (search, self-play), the first layer sums
    the point units' share from a lookup table (:mod:`bgai.model.first_layer`): same values, faster.
    ``residual`` adds :class:`Residual` blocks after the last hidden layer, one per width.
    """

    def __init__(
        self,
        encoding: str = "tesauro198",
        hidden: tuple[int, ...] | list[int] = (80,),
        activation: str = "sigmoid",
        checkers: int = CHECKERS,
        residual: tuple[int, ...] | list[int] = (),
    ) -> None:
        super().__init__()
        if activation not in ACTIVATIONS:
            raise ValueError(f"unknown activation {activation!r}: choose one of {', '.join(ACTIVATIONS)}")
        self.encoding = get_encoding(encoding)
        self.hidden = tuple(int(h) for h in hidden)
        self.activation = activation
        self.checkers = int(checkers)
        sizes = (self.encoding.size, *self.hidden)
        self.layers = nn.ModuleList(nn.Linear(a, b) for a, b in zip(sizes, sizes[1:], strict=False))
        self.residual = tuple(int(w) for w in residual)
        self.blocks = nn.ModuleList(Residual(sizes[-1], w) for w in self.residual)
        self.head = nn.Linear(sizes[-1], 5)
        self.act = ACTIVATIONS[activation]()

    def spec(self) -> Spec:
        """Everything needed to rebuild this architecture (not the weights)."""
        spec = {
            "kind": "value_net",
            "encoding": self.encoding.name,
            "hidden": list(self.hidden),
            "activation": self.activation,
            "checkers": self.checkers,
        }
        if self.residual:  # only when present: older checkpoints' specs stay as they were
            spec["residual"] = list(self.residual)
        return spec

    @classmethod
    def from_spec(cls, spec: Spec) -> ValueNet:
        """A fresh (untrained) net with the architecture ``spec`` describes."""
        if spec.get("kind", "value_net") != "value_net":
            raise ValueError(f"spec is for a {spec.get('kind')!r}, not a value_net")
        allowed = {"kind", "encoding", "hidden", "activation", "checkers", "residual"}
        unknown = set(spec) - allowed
        if unknown:
            raise ValueError(f"value_net spec has unknown keys {sorted(unknown)}")
        return cls(**{k: v for k, v in spec.items() if k != "kind"})

    def logits_encoded(self, x: torch.Tensor) -> torch.Tensor:
        """The five free logits ``(N, 5)`` for encoded inputs (for losses that want logits)."""
        for layer in self.layers:
            x = self.act(layer(x))
        return self._top(x)

    def _top(self, x: torch.Tensor) -> torch.Tensor:
        """The residual blocks and the head, from the last hidden layer's units."""
        for block in self.blocks:
            x = block(x)
        return self.head(x)

    def forward_encoded(self, x: torch.Tensor) -> torch.Tensor:
        """Probabilities ``(N, 5)`` for encoded inputs ``(N, encoding.size)``."""
        return probs_from_logits(self.logits_encoded(x))

    def logits(self, boards: torch.Tensor) -> torch.Tensor:
        """The five free logits ``(N, 5)`` for boards ``(N, 2, 25)``."""
        boards = torch.as_tensor(boards, device=self.head.weight.device)
        if not self.layers or torch.is_grad_enabled():  # training minibatches are small: dense is cheaper
            return self.logits_encoded(self.encoding(boards, self.checkers))
        x = self.act(first_layer(boards, self.layers[0], self.encoding, self.checkers))
        for layer in self.layers[1:]:
            x = self.act(layer(x))
        return self._top(x)

    def forward(self, boards: torch.Tensor) -> torch.Tensor:
        """Probabilities ``(N, 5)`` for the player on roll (row 1) of each board."""
        return probs_from_logits(self.logits(boards))


class Residual(nn.Module):
    """``x + W2 tanh(W1 x)`` through ``width`` units.

    Depth a trained net can grow into exactly: a new block's ``W2`` starts at zero
    (:mod:`bgai.model.grow`), where a plain extra sigmoid layer cannot start as the identity.
    Tanh, whatever the net's activation, because it is centred: sigmoid units all near 0.5
    made Adam's first steps on a zero ``W2`` move every output the same way at once. Measured
    once (docs/supervised.md, session 14): a 128-unit block fitted no better than none.
    """

    def __init__(self, size: int, width: int) -> None:
        super().__init__()
        self.inner = nn.Linear(size, width)
        self.outer = nn.Linear(width, size)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return x + self.outer(torch.tanh(self.inner(x)))


class SplitNet(nn.Module):
    """Two ValueNets, one for contact positions and one for races, behind one interface."""

    def __init__(self, contact: ValueNet, race: ValueNet) -> None:
        super().__init__()
        self.contact = contact
        self.race = race

    def spec(self) -> Spec:
        return {"kind": "split_net", "contact": self.contact.spec(), "race": self.race.spec()}

    @classmethod
    def from_spec(cls, spec: Spec) -> SplitNet:
        if spec.get("kind") != "split_net":
            raise ValueError(f"spec is for a {spec.get('kind')!r}, not a split_net")
        return cls(ValueNet.from_spec(spec["contact"]), ValueNet.from_spec(spec["race"]))

    def forward(self, boards: torch.Tensor) -> torch.Tensor:
        """Probabilities ``(N, 5)`` for the player on roll; each board goes to the net of its phase."""
        boards = torch.as_tensor(boards, device=self.contact.head.weight.device)
        race = is_race(boards)
        out = torch.empty(boards.shape[0], 5, device=boards.device, dtype=self.contact.head.weight.dtype)
        out[race] = self.race(boards[race])
        out[~race] = self.contact(boards[~race])
        return out


def build_net(spec: Spec) -> ValueNet | SplitNet:
    """Rebuild any network from its ``spec()``."""
    kinds = {"value_net": ValueNet, "split_net": SplitNet}
    kind = spec.get("kind", "value_net")
    if kind not in kinds:
        raise ValueError(f"unknown network kind {kind!r}: choose one of {', '.join(kinds)}")
    return kinds[kind].from_spec(spec)


def check_spec(net: ValueNet | SplitNet, spec: Spec) -> None:
    """Raise a one-line ``ValueError`` if ``spec`` (e.g. from a checkpoint) differs from ``net``'s."""
    mine = net.spec()
    if spec == mine:
        return
    diffs = [
        f"{k}: {spec.get(k)!r} vs {mine.get(k)!r}"
        for k in sorted(set(spec) | set(mine))
        if spec.get(k) != mine.get(k)
    ]
    raise ValueError(f"network spec mismatch (checkpoint vs model): {'; '.join(diffs)}")


def device_of(name: str) -> torch.device:
    """The torch device called ``name`` (``cpu``, ``cuda``, ``cuda:N``) where networks and boards
    go; an unknown name, or CUDA where torch sees none, is a one-line ``ValueError``."""
    if not (name in ("cpu", "cuda") or re.fullmatch(r"cuda:\d+", name)):
        raise ValueError(f"unknown device {name!r}: cpu, cuda or cuda:N")
    if name.startswith("cuda") and not torch.cuda.is_available():
        raise ValueError(f"device {name} requested but torch sees no CUDA device")
    return torch.device(name)
