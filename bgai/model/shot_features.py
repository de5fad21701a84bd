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
    double = a == b
    return {
        k: v.to(device)
        for k, v in {
            "weight": ROLL_WEIGHTS,
            "a": a[:, None],
            "b": b[:, None],
            "double": double[:, None],
            "two_dice": torch.nonzero(~double).squeeze(1),  # rows of the rolls of two different dice
            "doubles": torch.nonzero(double).squeeze(1),
            "bits": 2.0 ** torch.arange(25, dtype=torch.float64),
        }.items()
    }


def _hits(
    me: torch.Tensor, opp: torch.Tensor, t: dict[str, torch.Tensor], subset: bool | None = None
) -> torch.Tensor:
    """``(rolls, M)`` masks of my blots the opponent can hit with each roll.

    Masks of my points: bit ``i + 1`` is my index ``i``, bit 0 the opponent's bar; an opponent
    checker moving ``d`` pips goes ``d`` bits up. A move may land on an open point or a blot
    (hitting it), never on a point I hold. Most boards have no one on the bar and take the
    short way; with ``subset`` (the default on the CPU) only the others are redone by the bar's
    rules, else all are and the bar's rules are picked where they apply (no data-dependent
    shapes: on CUDA those cost a host synchronisation).
    """
    sources = _mask(opp.flip(1) > 0, t) & ~1  # their checkers on points
    blots = _mask(me[:, :24] == 1, t) << 1
    open_ = ~(_mask(me[:, :24] >= 2, t) << 1)
    hit, bar = _moving(sources, open_, t), opp[:, 24].long()
    if not (sources.device.type == "cpu" if subset is None else subset):
        return torch.where(bar > 0, _entering(sources, open_, bar.clamp(min=1), t), hit) & blots
    on_bar = torch.nonzero(bar > 0).squeeze(1)
    if len(on_bar):
        hit.index_copy_(1, on_bar, _entering(sources[on_bar], open_[on_bar], bar[on_bar], t))
    return hit & blots


def _moving(sources: torch.Tensor, open_: torch.Tensor, t: dict[str, torch.Tensor]) -> torch.Tensor:
    """The points each roll reaches with no one on the bar: a die, or a checker moving on
    through an open point (doubles: up to four steps)."""
    out = torch.empty(len(t["a"]), len(sources), dtype=torch.long, device=sources.device)
    rows = t["two_dice"]
    a, b = t["a"][rows], t["b"][rows]
    first_a, first_b = sources << a, sources << b
    out[rows] = first_a | first_b | ((first_a & open_) << b) | ((first_b & open_) << a)
    a, reach, reached = t["a"][t["doubles"]], sources, 0
    for _ in range(4):
        reach = reach << a
        reached = reached | reach
        reach = reach & open_
    out[t["doubles"]] = reached
    return out


def _entering(
    sources: torch.Tensor, open_: torch.Tensor, bar: torch.Tensor, t: dict[str, torch.Tensor]
) -> torch.Tensor:
    """The points each roll reaches for a side with ``bar`` (>= 1) checkers on the bar.

    Two different dice: with one on the bar it enters with either die (if that point is open),
    then any checker moves the other; with two or more, both dice enter. Doubles: the first
    min(bar, 4) steps enter (or nothing moves), the others move any checker on, one step at a
    time through open points.
    """
    a, b = t["a"], t["b"]
    enter_a, enter_b = (1 << a) & open_, (1 << b) & open_  # (rolls, M): the entry point, or 0
    after_a = torch.where(enter_a != 0, enter_a | ((sources | enter_a) << b), 0)
    after_b = torch.where(enter_b != 0, enter_b | ((sources | enter_b) << a), 0)
    two_dice = torch.where(bar == 1, after_a | after_b, enter_a | enter_b)
    steps = 4 - bar.clamp(max=4)
    reach = torch.where(enter_a != 0, sources | enter_a, 0)
    doubles = enter_a
    for step in range(1, 4):
        reach = reach << a
        doubles = doubles | torch.where(step <= steps, reach, 0)
        reach = reach & open_
    return torch.where(t["double"], doubles, two_dice)


def _sides(me: torch.Tensor, opp: torch.Tensor, t: dict[str, torch.Tensor]) -> torch.Tensor:
    """The :data:`SHOT_FEATURES` of each row ``me`` ``(M, 25)`` against ``opp``, ``(M, 3)``.

    * hit_rolls: rolls (of 36) on which the opponent can hit one of my blots.
    * hit_pip_loss: over the 36 rolls, the most pips a hit can cost me (25 - the point of my
      most advanced blot it can hit), / 24.
    * double_hits: rolls (of 36) that can reach two or more of my blots.
    """
    hit = _hits(me, opp, t).int()  # 25 bits
    nearest = ((hit & -hit).float().view(torch.int32) >> 23) - 127  # lowest set bit (float exponent)
    worst = torch.where(hit != 0, (25 - nearest).float() / 24.0, 0.0)
    two = ((hit & (hit - 1)) != 0).float()
    return torch.stack([t["weight"] @ (hit != 0).float(), t["weight"] @ worst, t["weight"] @ two], 1)


def shot_features(boards: torch.Tensor) -> torch.Tensor:
    """``(N, 6)`` float32: the :data:`SHOT_FEATURES` of the player on roll, then the opponent's."""
    return both_sides(boards, _sides, _tables)
