"""Network inputs from boards, always from the view of the player on roll (row 1).

An :class:`Encoding` turns a batch of boards ``(N, 2, 25)`` (any integer dtype, any device;
extra leading dimensions are kept) into float32 inputs ``(N, size)``. Every unit has a name
(``enc.names``, ``enc.index("on_roll.prime")``) so tests and debugging can talk about units.

* ``tesauro198`` — Tesauro's classic 198 units. For each side (player on roll first, then the
  opponent, each in its own point numbering): 24 points x 4 units (n >= 1, n >= 2, n == 3,
  (n - 3) / 2 for n > 3), bar / 2, borne off / checkers. The last two units say whose turn it
  is; as we always encode from the side on roll they are the constant [1, 0].
* ``rich`` — the 196 point/bar/off units of ``tesauro198`` (no turn units), a contact flag
  (1 while contact remains, 0 in a race), then for each side the hand-crafted features of
  :mod:`bgai.model.features` (pips, prime, escapes, shot exposure, anchors, ...).
* ``rich_plus`` — ``rich``'s units, then for each side the contact features of
  :mod:`bgai.model.contact_features` (rear checker and anchors, pip loss to hits, double
  shots, containment, pips and crossovers to come home).
* ``rich_plan`` — ``rich_plus``'s units, then for each side the game-plan features of
  :mod:`bgai.model.plan_features` (mobility, timing, back game, how far a holding side
  trails, spread).
* ``rich_shots`` — ``rich_plan``'s units, then for each side the shots of
  :mod:`bgai.model.shot_features`, counted by the rules (blocked points, the bar) where the
  older shot units only span distances.
* ``rich_race`` — ``rich_shots``'s units, then for each side the race units of
  :mod:`bgai.model.race_features` (checkers off as a thermometer, pips before the first
  checker can come off, the least rolls to bear off, home-board gaps).

Swapping the two rows of a board swaps the two sides' blocks of either encoding.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from functools import lru_cache

import torch

from bgai.engine.board import BAR, CHECKERS
from bgai.model.contact_features import CONTACT_FEATURES, contact_features
from bgai.model.features import SIDE_FEATURES, rich_features
from bgai.model.plan_features import PLAN_FEATURES, plan_features
from bgai.model.race_features import RACE_FEATURES, race_features
from bgai.model.shot_features import SHOT_FEATURES, shot_features

SIDES = ("on_roll", "opponent")


@dataclass(frozen=True)
class Encoding:
    """A named, fixed-size map from boards to network inputs (view of the player on roll).

    Every encoding starts with the 196 point units of both sides (``POINT_UNITS``), then
    the units ``features`` computes per board, then ``constants`` (units that never change,
    such as Tesauro's turn units). The split lets a network sum the point units' share of its
    first layer from a lookup table (:mod:`bgai.model.first_layer`) instead of building them.
    """

    name: str
    names: tuple[str, ...]
    features: Callable[[torch.Tensor], torch.Tensor] | None = None
    constants: tuple[float, ...] = ()

    @property
    def size(self) -> int:
        return len(self.names)

    def index(self, unit: str) -> int:
        """Column of the unit called ``unit``."""
        return self.names.index(unit)

    def __call__(self, boards: torch.Tensor, checkers: int = CHECKERS) -> torch.Tensor:
        """Inputs ``(..., size)`` float32 for boards ``(..., 2, 25)``."""
        t = torch.as_tensor(boards)
        lead = t.shape[:-2]
        b = t.reshape(-1, 2, 25).long()
        parts = [_point_units(b[:, 1], checkers), _point_units(b[:, 0], checkers)]
        if self.features is not None:
            parts.append(self.features(b))
        if self.constants:
            parts.append(torch.tensor(self.constants, device=b.device).expand(len(b), len(self.constants)))
        return torch.cat(parts, 1).reshape(*lead, self.size)


POINT_UNITS = 196
"""Both sides' point, bar and off units: the first columns of every encoding."""


def count_units(n: torch.Tensor) -> torch.Tensor:
    """Tesauro's 4 units ``(..., 4)`` for checker counts ``n``: n >= 1, n >= 2, n == 3, (n - 3) / 2."""
    n = n.float()
    return torch.stack([(n >= 1).float(), (n >= 2).float(), (n == 3).float(), ((n - 3) / 2).clamp(min=0)], -1)


@lru_cache(maxsize=8)
def _count_table(device: torch.device) -> torch.Tensor:
    """``(16, 4)``: :func:`count_units` of 0..15 checkers (a gather is cheaper than computing)."""
    return count_units(torch.arange(16, device=device))


def _point_units(row: torch.Tensor, checkers: int) -> torch.Tensor:
    """One side's 98 units (24 points x 4, bar, off) from its own row ``(N, 25)``."""
    points = _count_table(row.device)[row[:, :24]]
    bar = row[:, BAR:].float() / 2
    off = (checkers - row.sum(-1, keepdim=True)).float() / checkers
    return torch.cat([points.flatten(1), bar, off], 1)


def _point_unit_names(side: str) -> list[str]:
    units = ("n>=1", "n>=2", "n=3", "n>3")
    return [f"{side}.p{p}.{u}" for p in range(1, 25) for u in units] + [f"{side}.bar", f"{side}.off"]


def _rich_features(boards: torch.Tensor) -> torch.Tensor:
    return rich_features(boards)  # contact, then both sides' SIDE_FEATURES in one pass


TESAURO198 = Encoding(
    "tesauro198",
    tuple(_point_unit_names("on_roll") + _point_unit_names("opponent") + ["turn.on_roll", "turn.other"]),
    constants=(1.0, 0.0),  # always encoded from the side on roll
)
RICH = Encoding(
    "rich",
    tuple(
        _point_unit_names("on_roll")
        + _point_unit_names("opponent")
        + ["contact"]
        + [f"{side}.{f}" for side in SIDES for f in SIDE_FEATURES]
    ),
    features=_rich_features,
)


def _extend(base: Encoding, name: str, units: tuple[str, ...], more: Callable) -> Encoding:
    """``base``'s units, then ``units`` for each side, which ``more(boards)`` computes."""

    def extended_features(boards: torch.Tensor) -> torch.Tensor:
        return torch.cat([base.features(boards), more(boards)], 1)

    names = base.names + tuple(f"{side}.{unit}" for side in SIDES for unit in units)
    return Encoding(name, names, features=extended_features)


RICH_PLUS = _extend(RICH, "rich_plus", CONTACT_FEATURES, contact_features)
RICH_PLAN = _extend(RICH_PLUS, "rich_plan", PLAN_FEATURES, plan_features)
RICH_SHOTS = _extend(RICH_PLAN, "rich_shots", SHOT_FEATURES, shot_features)
RICH_RACE = _extend(RICH_SHOTS, "rich_race", RACE_FEATURES, race_features)

ENCODINGS: dict[str, Encoding] = {
    e.name: e for e in (TESAURO198, RICH, RICH_PLUS, RICH_PLAN, RICH_SHOTS, RICH_RACE)
}


def get_encoding(name: str) -> Encoding:
    """The registered encoding called ``name`` (a one-line error names the choices)."""
    if name not in ENCODINGS:
        raise ValueError(f"unknown encoding {name!r}: choose one of {', '.join(ENCODINGS)}")
    return ENCODINGS[name]
