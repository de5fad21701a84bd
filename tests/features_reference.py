"""The hand-crafted features as first written (one function per feature, one side at a time).

A frozen copy of ``bgai.model.features`` before it was fused into one pass, kept only as the
reference for the differential test (``tests/test_features.py``) and ``scripts/bench_features.py``:
the shipped network was trained on exactly these values.
"""

from __future__ import annotations

from functools import lru_cache

import torch

from bgai.engine.board import BAR, is_race

# The 21 distinct rolls; a non-double counts for 2 of the 36.
ROLLS = tuple((a, b) for a in range(1, 7) for b in range(a, 7))


@lru_cache(maxsize=8)
def _tables(device: torch.device) -> dict[str, torch.Tensor]:
    """Constant roll tables on ``device``: step paths for escapes, reach bitmasks for shots."""
    paths, reach = [], []
    for a, b in ROLLS:
        if a == b:
            steps = [a, 2 * a, 3 * a, 4 * a]
            paths.append([steps, steps])
            distances = steps
        else:
            paths.append([[a, a + b, a + b, a + b], [b, a + b, a + b, a + b]])
            distances = [a, b, a + b]
        reach.append(sum(1 << (d - 1) for d in distances if d <= 24))
    return {
        "paths": torch.tensor(paths, device=device),  # (21, 2 orders, 4 cumulative steps)
        "reach": torch.tensor(reach, device=device),  # (21,) bit d-1 set: the roll covers distance d
        "weight": torch.tensor([1.0 if a == b else 2.0 for a, b in ROLLS], device=device),
        "points": torch.arange(25, device=device),
    }


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


@lru_cache(maxsize=8)
def _escape_table(device: torch.device) -> torch.Tensor:
    """``(4096,)``: escaping rolls / 36 for each pattern of blocked points in the 12 pips ahead.

    Bit ``12 - a`` of the pattern says the point ``a`` pips ahead is blocked (a = 1..12).
    """
    t = _tables(torch.device("cpu"))
    distance = torch.arange(1, 13)
    blocked = ((torch.arange(4096)[:, None] >> (12 - distance)) & 1).bool()  # (4096, 12)
    front = torch.where(blocked, distance, 0).amax(-1)  # furthest blocked point ahead, 0 = none
    blocked_at = torch.nn.functional.pad(blocked, (1, 12))  # column c: c pips ahead, 0..24
    hit_block = blocked_at[:, t["paths"]]  # (4096, 21, 2, 4)
    still_moving = (~hit_block).int().cummin(-1).values.bool()
    escaped = (still_moving & (t["paths"] > front[:, None, None, None])).flatten(2).any(-1)
    return (escaped.float() @ t["weight"] / 36.0).to(device)


def escapes(me: torch.Tensor, opp: torch.Tensor) -> torch.Tensor:
    """Rolls (of 36) that let my rearmost checker jump past the blockade in front of it, / 36.

    The blockade is the opponent's made points (2+ checkers) within 12 pips in front of the
    checker (as gnubg's escape count looks). Approximation: only that one checker moves, each
    die step must land on an open point (points further than 12 pips ahead count as open),
    and landing beyond the blockade's front point counts (even by bearing off). No blockade
    in reach (or no checkers left) gives 36/36.
    """
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


SIDE_FEATURES = {
    "pips": pips,
    "break_contact": break_contact,
    "prime": prime,
    "escapes": escapes,
    "exposure": exposure,
    "blots": blots,
    "home_points": home_points,
    "anchors": anchors,
    "made_points": made_points,
    "back_checkers": back_checkers,
    "dance": dance,
}


def rich_features(boards: torch.Tensor) -> torch.Tensor:
    """The ``rich`` encoding's feature units ``(N, 23)`` as first computed: contact, then the
    11 features of the player on roll, then the opponent's."""
    me, opp = boards[:, 1], boards[:, 0]
    contact = (~is_race(boards)).float()[:, None]
    mine = [f(me, opp) for f in SIDE_FEATURES.values()]
    theirs = [f(opp, me) for f in SIDE_FEATURES.values()]
    return torch.cat([contact, torch.stack(mine + theirs, 1)], 1)
