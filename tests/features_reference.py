"""The hand-crafted features as first written (one function per feature, one side at a time).

A frozen copy of ``bgai.model.features`` before it was fused into one pass, kept only as the
reference for the differential test (``tests/test_features.py``) and ``scripts/measure/bench_features.py``:
the shipped network was trained on exactly these values.
"""

from __future__ import annotations

from functools import lru_cache

import torch

from bgai.engine.board import BAR, is_race
from bgai.model import features
from bgai.model.features import _escape_table  # the escape rule's table, checked by hand in test_encoding
from bgai.model.features import _tables as roll_tables


@lru_cache(maxsize=8)
def _tables(device: torch.device) -> dict[str, torch.Tensor]:
    """The shipped module's constant roll tables (definitions, not the computation under test)."""
    return {**roll_tables(device), "points": torch.arange(25, device=device)}


def _opp_on_my_points(opp: torch.Tensor) -> torch.Tensor:
    """Opponent's checkers on my points 1-24: column ``k`` is my point ``k + 1``."""
    return opp[:, :24].flip(-1)


def _bits(mask: torch.Tensor) -> torch.Tensor:
    """Pack an ``(N, <=63)`` bool mask into one int64 per row (column j -> bit j)."""
    shifts = torch.arange(mask.shape[1], device=mask.device)
    return (mask.long() << shifts).sum(-1)


def pips(me: torch.Tensor, opp: torch.Tensor) -> torch.Tensor:
    """My pip count / 167 (167 = the pip count at the start)."""
    weights = torch.arange(1, 26, device=me.device)
    return (me * weights).sum(-1).float() / 167.0


def break_contact(me: torch.Tensor, opp: torch.Tensor) -> torch.Tensor:
    """Pips my checkers must travel to reach the opponent's rearmost checker's point, / 167.

    Zero once contact is over: how far I am from breaking contact.
    """
    t = _tables(me.device)
    opp_rear = torch.where(opp > 0, t["points"], -1).amax(-1)  # opponent's own index; bar = 24
    barrier = 23 - opp_rear  # in my numbering; opponent's bar becomes -1, no checkers becomes 24
    behind = (t["points"] - barrier[:, None]).clamp(min=0)
    return (me * behind).sum(-1).float() / 167.0


def prime(me: torch.Tensor, opp: torch.Tensor) -> torch.Tensor:
    """Longest run of consecutive made points (2+ checkers) anywhere on my side, / 6."""
    made = me[:, :24] >= 2
    idx = _tables(me.device)["points"][:24]
    last_gap = torch.where(made, -1, idx).cummax(-1).values
    return (idx - last_gap).amax(-1).float() / 6.0


def escapes(me: torch.Tensor, opp: torch.Tensor) -> torch.Tensor:
    """:func:`bgai.model.features.escapes`, one side at a time."""
    t = _tables(me.device)
    rear = torch.where(me > 0, t["points"], -1).amax(-1).clamp(min=0)  # bar = 24
    blocked = _bits(_opp_on_my_points(opp) >= 2)  # bit k: my point k + 1 is blocked
    window = ((blocked << 12) >> rear) & 0xFFF  # bit i: the point 12 - i pips ahead
    return _escape_table(me.device)[window]


def exposure(me: torch.Tensor, opp: torch.Tensor) -> torch.Tensor:
    """Rolls (of 36) on which the opponent can hit one of my blots, / 36.

    Approximation: a roll hits if one die, the sum (or for doubles 2, 3 or 4 steps) spans the
    distance from an opponent checker (or the opponent's bar) to a blot; blocked intermediate
    points and the opponent's duty to enter from the bar first are ignored.
    """
    t = _tables(me.device)
    blots = _bits(me[:, :24] == 1)  # bit k: my point k + 1 holds a blot
    # bit c: an opponent checker on my point c (c = 0 is the opponent's bar, "my point 0").
    hitters = _bits(torch.cat([opp[:, BAR:], _opp_on_my_points(opp)], 1) > 0)
    # A hitter on point c reaches a blot on point c + d, which is blot bit c + d - 1.
    shifted = hitters[:, None] << t["points"][:24]  # column d-1: hitters moved d-1 bits up
    distances = _bits((shifted & blots[:, None]) != 0)  # bit d-1: some hitter is d pips behind a blot
    hits = (distances[:, None] & t["reach"]) != 0  # (N, 21)
    return hits.float() @ t["weight"] / 36.0


def blots(me: torch.Tensor, opp: torch.Tensor) -> torch.Tensor:
    """How many single checkers I leave on points 1-24, / 5."""
    return (me[:, :24] == 1).sum(-1).float() / 5.0


def home_points(me: torch.Tensor, opp: torch.Tensor) -> torch.Tensor:
    """Points made (2+ checkers) in my home board, points 1-6, / 6."""
    return (me[:, :6] >= 2).sum(-1).float() / 6.0


def anchors(me: torch.Tensor, opp: torch.Tensor) -> torch.Tensor:
    """Points I hold in the opponent's home board (my points 19-24), / 6."""
    return (me[:, 18:24] >= 2).sum(-1).float() / 6.0


def made_points(me: torch.Tensor, opp: torch.Tensor) -> torch.Tensor:
    """All points I hold, / 7 (15 checkers make at most 7)."""
    return (me[:, :24] >= 2).sum(-1).float() / 7.0


def back_checkers(me: torch.Tensor, opp: torch.Tensor) -> torch.Tensor:
    """My checkers on the bar or in the opponent's home board, / 15."""
    return me[:, 18:].sum(-1).float() / 15.0


def dance(me: torch.Tensor, opp: torch.Tensor) -> torch.Tensor:
    """Chance I fail to enter at all, if I have a checker on the bar (else 0)."""
    closed = (opp[:, :6] >= 2).sum(-1).float()
    return (me[:, BAR] > 0).float() * (closed / 6.0) ** 2


# The reference's own functions, in the order of the shipped encoding's units.
SIDE_FEATURES = {name: globals()[name] for name in features.SIDE_FEATURES}


def rich_features(boards: torch.Tensor) -> torch.Tensor:
    """The ``rich`` encoding's feature units ``(N, 23)`` as first computed: contact, then the
    11 features of the player on roll, then the opponent's."""
    me, opp = boards[:, 1], boards[:, 0]
    contact = (~is_race(boards)).float()[:, None]
    mine = [f(me, opp) for f in SIDE_FEATURES.values()]
    theirs = [f(opp, me) for f in SIDE_FEATURES.values()]
    return torch.cat([contact, torch.stack(mine + theirs, 1)], 1)
