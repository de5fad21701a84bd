"""Game-plan features (the ``rich_plan`` encoding adds them to ``rich_plus``'s), batched.

``best`` loses most of its equity against gnubg in contact and crashed positions and, per
position, most of all in back games (``docs/supervised.md``, "Where `best` loses equity"):
the positions where the plan matters more than the next shot. These units describe the plan:
how freely a side's checkers can move past the other's points, how much time it has before it
must break its anchors or its board, whether it is playing a back game and how far it trails,
and how spread out its checkers are. The ideas are gnubg's (its mobility, timing, back-game and
moment inputs); the definitions are ours.

:func:`plan_features` computes them for both sides of a batch of boards ``(N, 2, 25)`` (row 1
on roll), each side's row in its own numbering (index ``i`` = its point ``i + 1``, 24 = bar).
Whole-batch tensor ops on the boards' device.
"""

from __future__ import annotations

from functools import lru_cache

import torch

from bgai.model.contact_features import both_sides
from bgai.model.features import _escape_table

PLAN_FEATURES = ("mobility", "timing", "back_game", "trailing_hold", "spread")
"""Per side, in the order of the units; the definitions are in :func:`_sides`."""

MOBILE_FROM = 6  # mobility counts checkers on points 7-24 and the bar (index 6 on)


@lru_cache(maxsize=8)
def _tables(device: torch.device) -> dict[str, torch.Tensor]:
    # For a checker on my index i, the point a pips ahead is my index i - a; the escape table
    # wants its being blocked at bit 12 - a.
    window = torch.zeros(24, 25 - MOBILE_FROM)
    for col, start in enumerate(range(MOBILE_FROM, 25)):
        for a in range(1, 13):
            if 0 <= start - a < 24:
                window[start - a, col] = 2.0 ** (12 - a)
    points = torch.arange(1, 26, dtype=torch.float32)
    locked = torch.zeros(24)
    locked[:6] = 2 * points[:6]  # two checkers on each point of my home board
    locked[18:] = 2 * points[18:24]  # and on each point I hold in the opponent's home board
    return {
        k: v.to(device)
        for k, v in {
            "window": window,
            "escapes": _escape_table(torch.device("cpu")),
            "points": points,
            "squares": points**2,
            "locked": locked,
        }.items()
    }


def _sides(me: torch.Tensor, opp: torch.Tensor, t: dict[str, torch.Tensor]) -> torch.Tensor:
    """The :data:`PLAN_FEATURES` of each row ``me`` ``(M, 25)`` against ``opp``, ``(M, 5)``.

    * mobility: over my checkers on points 7-24 and the bar, the sum of each one's escaping
      rolls / 36 past the opponent's points (the ``escapes`` count from its point), / 15. In a
      race it is just the checkers still outside my home board, / 15.
    * timing: the pips I can play without breaking a point of my home board or a point I hold
      in the opponent's home board (two checkers on each such point stay), / 100.
    * back_game: 1 when I hold two or more points in the opponent's home board (my points
      19-24) and trail in the race, else 0.
    * trailing_hold: when I hold at least one point there, how many pips I trail by, / 100
      (0 when I lead or hold none): how much a holding or back game must gain.
    * spread: the standard deviation of my checkers' points (the bar is 25; checkers borne
      off do not count), / 12; 0 with fewer than two checkers left.
    """
    n = me.float()
    blocked = (opp[:, :24] >= 2).flip(1).float()  # my index k faces their index 23 - k
    escapes = t["escapes"][(blocked @ t["window"]).long()]  # exact: sums of distinct powers of 2
    mobility = (escapes * n[:, MOBILE_FROM:]).sum(1) / 15.0
    pips = n @ t["points"]
    made = (me[:, :24] >= 2).float()
    timing = (pips - made @ t["locked"]) / 100.0
    anchors = made[:, 18:].sum(1)
    trail = (pips - opp.float() @ t["points"]).clamp(min=0)
    back_game = ((anchors >= 2) & (trail > 0)).float()
    trailing_hold = torch.where(anchors >= 1, trail / 100.0, 0.0)
    count = n.sum(1)
    mean = pips / count.clamp(min=1)
    variance = (n @ t["squares"] / count.clamp(min=1) - mean**2).clamp(min=0)
    spread = torch.where(count >= 2, variance.sqrt() / 12.0, 0.0)
    return torch.stack([mobility, timing, back_game, trailing_hold, spread], 1)


def plan_features(boards: torch.Tensor) -> torch.Tensor:
    """``(N, 10)`` float32: the :data:`PLAN_FEATURES` of the player on roll, then the opponent's."""
    return both_sides(boards, _sides, _tables)
