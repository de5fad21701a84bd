"""Race features (the ``rich_race`` encoding adds them to ``rich_shots``'s), batched.

A net with ``rich_shots`` inputs fitted to races stays about 0.014 in equity from rollouts of
held-out races, and more positions or better labels hardly move it (docs/supervised.md,
session 30): what it misses is mostly the gammon chances, which turn on two counts it can only
build from many units: how far the trailing side is from bearing off its first checker, and
how many rolls the leader needs at least. These units give them, with gnubg's thermometer of
checkers borne off (the ideas are gnubg's race inputs and race theory; the definitions are ours).

:func:`race_features` computes them for both sides of a batch of boards ``(N, 2, 25)`` (row 1
on roll), each side's row in its own numbering (index ``i`` = its point ``i + 1``, 24 = bar).
"""

from __future__ import annotations

from functools import lru_cache

import torch

from bgai.engine.board import borne_off, pip_counts
from bgai.model.contact_features import both_sides

OFF_UNITS = 14
"""Thermometer units of checkers borne off: off >= 1, ..., off >= 14 (15 off ends the game)."""

RACE_FEATURES = (*(f"off>={k}" for k in range(1, OFF_UNITS + 1)), "save_pips", "least_rolls", "home_gaps")
"""Per side, in the order of the units; the definitions are in :func:`_sides`."""

AVERAGE_ROLL = 49 / 6  # pips: 8.17


@lru_cache(maxsize=8)
def _tables(device: torch.device) -> dict[str, torch.Tensor]:
    points = torch.arange(1, 26, dtype=torch.float32)
    return {
        "outside": (points - 6).clamp(min=0).to(device),
        "thresholds": torch.arange(1, OFF_UNITS + 1, dtype=torch.float32, device=device),
        "home": torch.arange(1, 7, dtype=torch.float32, device=device),
    }


def _sides(me: torch.Tensor, opp: torch.Tensor, t: dict[str, torch.Tensor]) -> torch.Tensor:
    """The :data:`RACE_FEATURES` of each row ``me`` ``(M, 25)``, ``(M, 17)`` (``opp`` unused).

    * off>=k: 1 when at least k of my checkers are borne off.
    * save_pips: pips my checkers must travel before I can bear off my first one, / 100: 0 once
      one is off; else the pips to bring every checker home plus the lowest home point I hold
      (6 when none is there yet). What the side that may lose a gammon races against.
    * least_rolls: a floor under the rolls I need to bear off everything, / 30: the larger of
      my pips / 8.17 (an average roll's pips) and my checkers left / 2 (a roll but doubles
      bears off at most two): the two ends between which a bear-off's wastage lies.
    * home_gaps: empty points of my home board below my highest home checker, / 5: the gaps
      that waste pips in the bear-off.
    """
    rows = me.float()
    off = borne_off(rows)
    left = rows.sum(1)
    thermometer = (off[:, None] >= t["thresholds"]).float()
    outside = rows @ t["outside"]
    home = rows[:, :6] > 0
    lowest = torch.where(home, t["home"], 7.0).amin(1).clamp(max=6.0)
    save_pips = torch.where(off > 0, 0.0, outside + lowest) / 100.0
    pips = pip_counts(me).float()
    least_rolls = torch.maximum(pips / AVERAGE_ROLL, left / 2) / 30.0
    highest = torch.where(home, t["home"], 0.0).amax(1)
    gaps = ((~home) & (t["home"] < highest[:, None])).float().sum(1) / 5.0
    return torch.cat([thermometer, torch.stack([save_pips, least_rolls, gaps], 1)], 1)


def race_features(boards: torch.Tensor) -> torch.Tensor:
    """``(N, 34)`` float32: the :data:`RACE_FEATURES` of the player on roll, then the opponent's."""
    return both_sides(boards, _sides, _tables)
