"""Shots that respect the board (the ``rich_shots`` encoding adds them to ``rich_plan``'s), batched.

The older shot units (``exposure``, ``pip_loss``, ``double_shots``) count a roll as hitting
when its dice span the distance to a blot, as if every point between were open and the
opponent had no checker on the bar. In the crashed and priming positions where `best` gives
away the most (docs/supervised.md), that is exactly what is wrong: a combination shot must
land on open points on the way, and a side on the bar must enter before anything else moves
(with two or more there, both dice enter). These units follow those rules, as gnubg's hit
inputs do; the definitions are ours.

:func:`shot_features` computes them for both sides of a batch of boards ``(N, 2, 25)`` (row 1
on roll), each side's row in its own numbering (index ``i`` = its point ``i + 1``, 24 = bar).
Whole-batch tensor ops on the boards' device: bit masks, one row per roll.
"""

from __future__ import annotations

from functools import lru_cache

import torch

from bgai.engine.dice import ROLL_WEIGHTS
from bgai.model.contact_features import _mask, both_sides
from bgai.model.features import ROLLS

SHOT_FEATURES = ("hit_rolls", "hit_pip_loss", "double_hits")
"""Per side, in the order of the units; the definitions are in :func:`_sides`."""


@lru_cache(maxsize=8)
def _tables(device: torch.device) -> dict[str, torch.Tensor]:
    a, b = torch.tensor(ROLLS).T
    return {
        k: v.to(device)
        for k, v in {
            "weight": ROLL_WEIGHTS,
            "a": a[:, None],
            "b": b[:, None],
            "double": (a == b)[:, None],
            "bits": 2.0 ** torch.arange(25, dtype=torch.float64),
        }.items()
    }


def _hits(me: torch.Tensor, opp: torch.Tensor, t: dict[str, torch.Tensor]) -> torch.Tensor:
    """``(rolls, M)`` masks of my blots the opponent can hit with each roll.

    Masks of my points: bit ``i + 1`` is my index ``i``, bit 0 the opponent's bar; an opponent
    checker moving ``d`` pips goes ``d`` bits up. A move may land on an open point or a blot
    (hitting it), never on a point I hold.
    """
    sources = _mask(opp.flip(1) > 0, t) & ~1  # their checkers on points
    blots = _mask(me[:, :24] == 1, t) << 1
    closed = _mask(me[:, :24] >= 2, t) << 1
    bar = opp[:, 24].long()
    a, b = t["a"], t["b"]
    enter_a, enter_b = (1 << a) & ~closed, (1 << b) & ~closed  # (rolls, M): the entry point, or 0

    # Two different dice: no one on the bar, one die and the other on the same or another checker;
    # one on the bar, it enters with one die, then any checker moves the other;
    # two or more, both dice enter.
    first_a, first_b = sources << a, sources << b
    free = first_a | first_b | ((first_a & ~closed) << b) | ((first_b & ~closed) << a)
    after_a = torch.where(enter_a != 0, enter_a | ((sources | enter_a) << b), 0)
    after_b = torch.where(enter_b != 0, enter_b | ((sources | enter_b) << a), 0)
    two_dice = torch.where(bar == 0, free, torch.where(bar == 1, after_a | after_b, enter_a | enter_b))

    # Doubles: the first min(bar, 4) steps enter (if the point is open, else nothing moves),
    # the other steps move any checker on, one step at a time through open points.
    steps = (4 - bar).clamp(min=0)
    reach = torch.where(bar == 0, sources, torch.where(enter_a != 0, sources | enter_a, 0))
    doubles = torch.where(bar > 0, enter_a, 0)
    for step in range(1, 5):
        reach = reach << a
        doubles = doubles | torch.where(step <= steps, reach, 0)
        reach = reach & ~closed
    return torch.where(t["double"], doubles, two_dice) & blots


def _sides(me: torch.Tensor, opp: torch.Tensor, t: dict[str, torch.Tensor]) -> torch.Tensor:
    """The :data:`SHOT_FEATURES` of each row ``me`` ``(M, 25)`` against ``opp``, ``(M, 3)``.

    * hit_rolls: rolls (of 36) on which the opponent can hit one of my blots.
    * hit_pip_loss: over the 36 rolls, the most pips a hit can cost me (25 - the point of my
      most advanced blot it can hit), / 24.
    * double_hits: rolls (of 36) that can reach two or more of my blots.
    """
    hit = _hits(me, opp, t)
    nearest = ((hit & -hit).float().view(torch.int32) >> 23) - 127  # lowest set bit (float exponent)
    worst = torch.where(hit != 0, (25 - nearest).float() / 24.0, 0.0)
    two = ((hit & (hit - 1)) != 0).float()
    return torch.stack([t["weight"] @ (hit != 0).float(), t["weight"] @ worst, t["weight"] @ two], 1)


def shot_features(boards: torch.Tensor) -> torch.Tensor:
    """``(N, 6)`` float32: the :data:`SHOT_FEATURES` of the player on roll, then the opponent's."""
    return both_sides(boards, _sides, _tables)
