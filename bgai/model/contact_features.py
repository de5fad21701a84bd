"""More hand-crafted contact features (the ``rich_plus`` encoding adds them to ``rich``'s), batched.

Fitted to the same targets (gnubg's evaluations, ``scripts/study/fit_study.py``), a net with these
8 more units per side gets 7-11 % closer than a ``rich`` net of the same size. They describe
what decides gammons and cube actions in contact: where the back checkers and anchors are,
what a hit costs, how well a side contains the other's checkers, and how much work is left to
bring checkers home. The ideas are gnubg's (its contact inputs); the definitions are ours.

:func:`contact_features` computes them for both sides of a batch of boards ``(N, 2, 25)``
(row 1 on roll), each side's row in its own numbering (index ``i`` = its point ``i + 1``, 24 =
bar). Whole-batch tensor ops on the boards' device.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import lru_cache

import torch

from bgai.engine.dice import ROLL_WEIGHTS
from bgai.model.features import ROLLS, _escape_table

CONTACT_FEATURES = (
    "rear_checker",
    "rear_anchor",
    "forward_anchor",
    "pip_loss",
    "double_shots",
    "containment",
    "outside_pips",
    "crossovers",
)
"""Per side, in the order of the units; the definitions are in :func:`_sides`."""

CONTAINMENT_FROM = 15  # containment looks at opponent checkers on their points 16-24 and the bar


@lru_cache(maxsize=8)
def _tables(device: torch.device) -> dict[str, torch.Tensor]:
    spans = [(a, 2 * a, 3 * a, 4 * a) if a == b else (a, b, a + b, 0) for a, b in ROLLS]
    spans = [[d if d <= 24 else 0 for d in roll] for roll in spans]  # 0: no distance (its mask is 0)
    # Containment windows: for an opponent checker on their index j >= CONTAINMENT_FROM, the 12
    # points a = 1..12 pips ahead are my indices 23 - j + a; the escape table wants bit 12 - a.
    starts = torch.arange(CONTAINMENT_FROM, 25)
    window = torch.zeros(24, len(starts))
    for col, start in enumerate(starts.tolist()):
        for a in range(1, 13):
            if 0 <= 23 - start + a < 24:
                window[23 - start + a, col] = 2.0 ** (12 - a)
    points = torch.arange(1, 26, dtype=torch.float32)
    outside = (points - 6).clamp(min=0)
    return {
        k: v.to(device)
        for k, v in {
            "weight": ROLL_WEIGHTS,
            "spans": torch.tensor(spans).flatten(),
            "distances": torch.cat([torch.tensor([40]), torch.arange(1, 25)]),  # << 40: above every blot
            "bits": 2.0 ** torch.arange(25, dtype=torch.float64),
            "window": window,
            "escapes": _escape_table(torch.device("cpu")),
            "outside": torch.stack([outside / 100.0, torch.ceil(outside / 6) / 45.0], 1),
        }.items()
    }


def _mask(rows: torch.Tensor, t: dict[str, torch.Tensor]) -> torch.Tensor:
    """Each row of 0/1 values as an int64 bit mask (bit i: column i)."""
    return (rows.double() @ t["bits"][: rows.shape[1]]).long()


def _top_bit(mask: torch.Tensor) -> torch.Tensor:
    """Float index of the highest set bit of each mask; -1 for 0."""
    return (torch.frexp(mask.double()).exponent - 1).float()


def _shots(me: torch.Tensor, opp: torch.Tensor, t: dict[str, torch.Tensor]) -> tuple[torch.Tensor, ...]:
    """pip_loss and double_shots of rows ``me`` against ``opp``, as bit masks per roll.

    In masks of my points (bit i + 1: my index i; bit 0: the opponent's bar), an opponent
    checker d pips behind my blot sits d bits below it, so ``occupied << d`` marks the points
    it hits; a roll hits the blots under the union of its distances' masks.
    """
    occupied = _mask(opp.flip(1) > 0, t)  # bit k: an opponent checker on my index k - 1
    blots = _mask(me[:, :24] == 1, t) << 1
    by_distance = ((occupied << t["distances"][:, None]) & blots).int()  # (25, M): 25 bits fit in int32
    reach = by_distance.index_select(0, t["spans"]).view(len(ROLLS), 4, len(me))  # whole rows: cheap
    hit = reach[:, 0] | reach[:, 1] | reach[:, 2] | reach[:, 3]  # (rolls, M)
    # The lowest hit bit 2^k (my nearest hit blot, on index k - 1, loses 25 - k pips): k is the
    # exponent field of the float32 2^k, read without frexp.
    nearest = ((hit & -hit).float().view(torch.int32) >> 23) - 127
    worst = torch.where(hit != 0, (25 - nearest).float() / 24.0, 0.0)
    two = ((hit & (hit - 1)) != 0).float()
    return t["weight"] @ worst, t["weight"] @ two


def _sides(me: torch.Tensor, opp: torch.Tensor, t: dict[str, torch.Tensor]) -> torch.Tensor:
    """The :data:`CONTACT_FEATURES` of each row ``me`` ``(M, 25)`` against ``opp``, ``(M, 8)``.

    * rear_checker: my rearmost checker's point - 1, / 24 (the bar is 1, no checkers 0).
    * rear_anchor: my rearmost point with 2+ checkers / 24 (0: none).
    * forward_anchor: my most advanced point held in the opponent's home board (my points
      19-24): (25 - point) / 6, so their 5-point anchor is 5/6; 0 without one.
    * pip_loss: over the 36 rolls, the mean of the most pips a hit on one of my blots costs
      me (25 - the blot's point), / 24; a roll hits when a die, the sum or a doubles' multiple
      spans the distance from an opponent checker (blocked points ignored, as ``exposure``).
    * double_shots: rolls (of 36) that hit two of my blots by that count.
    * containment: 1 - the fewest escaping rolls / 36 (the ``escapes`` count) for an opponent
      checker on any of their points 16-24 or the bar, against my points: how well I hold
      their back checkers.
    * outside_pips: pips my checkers outside my home board must travel to reach it, / 100.
    * crossovers: home-board crossings (6-pip quadrants) those checkers still have to make, / 45.
    """
    made = (me[:, :24] >= 2).float()
    made_mask = _mask(made, t)
    rear = _top_bit(_mask(me > 0, t)) / 24.0  # no checkers: 0
    rear_anchor = (_top_bit(made_mask) + 1) / 24.0
    in_their_home = (made_mask >> 18) & 63
    lowest = _top_bit(in_their_home & -in_their_home)  # -1 when none
    forward_anchor = torch.where(lowest >= 0, (6 - lowest) / 6.0, 0.0)
    pip_loss, double_shots = _shots(me, opp, t)
    escapes = t["escapes"][(made @ t["window"]).long()]  # exact: sums of distinct powers of 2
    fewest = escapes[:, 0]
    for column in range(1, escapes.shape[1]):  # faster than amin over so few columns
        fewest = torch.minimum(fewest, escapes[:, column])
    containment = 1.0 - fewest
    outside_pips, crossovers = (me.float() @ t["outside"]).unbind(1)
    return torch.stack(
        [rear, rear_anchor, forward_anchor, pip_loss, double_shots, containment, outside_pips, crossovers], 1
    )


def both_sides(boards: torch.Tensor, sides: Callable, tables: Callable) -> torch.Tensor:
    """``sides(me, opp, tables(device))`` for the player on roll, then the opponent, side by side.

    Both sides of every board go through ``sides`` in one batch: row ``r`` of ``me`` is the
    player on roll of board ``r``, row ``N + r`` its opponent, each against the other's row.
    """
    b = torch.as_tensor(boards).reshape(-1, 2, 25).to(torch.int16)
    me = torch.cat([b[:, 1], b[:, 0]])
    both = sides(me, me.roll(len(b), 0), tables(b.device))
    return torch.cat([both[: len(b)], both[len(b) :]], 1)


def contact_features(boards: torch.Tensor) -> torch.Tensor:
    """``(N, 16)`` float32: the :data:`CONTACT_FEATURES` of the player on roll, then the opponent's."""
    return both_sides(boards, _sides, _tables)
