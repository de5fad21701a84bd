"""Hand-crafted position features (gnubg-style ideas, our own definitions), batched.

Every feature takes ``me`` and ``opp``: ``(N, 25)`` integer rows, each in its owner's own
numbering (index ``i`` = that player's point ``i + 1``, index 24 = bar), and answers for ``me``.
Calling it again with the rows exchanged gives the same feature for the other side.
Results are ``(N,)`` float32, already scaled to roughly [0, 1].
All work is whole-batch tensor ops (no loop over positions), so it runs on CUDA unchanged.

The functions below state the definitions; the work is done once for all of them, for both
sides of a batch of boards at once, by :func:`rich_features` (what the ``rich`` encoding uses;
calling one feature computes them all). It packs each side's made points, blots and
occupied points into bitmasks, reads the mask-based features from small lookup tables, and
gets the pip sums from float dot products of small integers (so exact). Every value is finally
formed by the same float32 operation as the one-feature-at-a-time code it replaced (e.g.
``count.float() / 6.0``, or a table built that way on the same device), so the outputs are
bit for bit those the shipped networks were trained on (``tests/test_features.py`` checks this
against that code, kept in ``tests/features_reference.py``).
"""

from __future__ import annotations

import sys
from functools import lru_cache

import torch

from bgai.engine.dice import ROLL_COUNTS
from bgai.engine.dice import ROLLS as _ROLL_TABLE

ROLLS = tuple((a, b) for a, b in _ROLL_TABLE.tolist())
"""The 21 distinct rolls of :data:`bgai.engine.dice.ROLLS` as pairs, for building the tables."""


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
        "weight": ROLL_COUNTS.to(device, torch.float32),  # a non-double counts for 2 of the 36
    }


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


def _side(me: torch.Tensor, opp: torch.Tensor, column: int) -> torch.Tensor:
    """One of ``me``'s features: :func:`rich_features` of the boards with ``me`` on roll."""
    return rich_features(torch.stack([opp, me], 1))[:, 1 + column]


def pips(me: torch.Tensor, opp: torch.Tensor) -> torch.Tensor:
    """My pip count / 167 (167 = the pip count at the start)."""
    return _side(me, opp, 0)


def break_contact(me: torch.Tensor, opp: torch.Tensor) -> torch.Tensor:
    """Pips my checkers must travel to reach the opponent's rearmost checker's point, / 167.

    Zero once contact is over: how far I am from breaking contact.
    """
    return _side(me, opp, 1)


def prime(me: torch.Tensor, opp: torch.Tensor) -> torch.Tensor:
    """Longest run of consecutive made points (2+ checkers) anywhere on my side, / 6."""
    return _side(me, opp, 2)


def escapes(me: torch.Tensor, opp: torch.Tensor) -> torch.Tensor:
    """Rolls (of 36) that let my rearmost checker jump past the blockade in front of it, / 36.

    The blockade is the opponent's made points (2+ checkers) within 12 pips in front of the
    checker (as gnubg's escape count looks). Approximation: only that one checker moves, each
    die step must land on an open point (points further than 12 pips ahead count as open),
    and landing beyond the blockade's front point counts (even by bearing off). No blockade
    in reach (or no checkers left) gives 36/36.
    """
    return _side(me, opp, 3)


def exposure(me: torch.Tensor, opp: torch.Tensor) -> torch.Tensor:
    """Rolls (of 36) on which the opponent can hit one of my blots, / 36.

    Approximation: a roll hits if one die, the sum (or for doubles 2, 3 or 4 steps) spans the
    distance from an opponent checker (or the opponent's bar) to a blot; blocked intermediate
    points and the opponent's duty to enter from the bar first are ignored.
    """
    return _side(me, opp, 4)


def blots(me: torch.Tensor, opp: torch.Tensor) -> torch.Tensor:
    """How many single checkers I leave on points 1-24, / 5."""
    return _side(me, opp, 5)


def home_points(me: torch.Tensor, opp: torch.Tensor) -> torch.Tensor:
    """Points made (2+ checkers) in my home board, points 1-6, / 6."""
    return _side(me, opp, 6)


def anchors(me: torch.Tensor, opp: torch.Tensor) -> torch.Tensor:
    """Points I hold in the opponent's home board (my points 19-24), / 6."""
    return _side(me, opp, 7)


def made_points(me: torch.Tensor, opp: torch.Tensor) -> torch.Tensor:
    """All points I hold, / 7 (15 checkers make at most 7)."""
    return _side(me, opp, 8)


def back_checkers(me: torch.Tensor, opp: torch.Tensor) -> torch.Tensor:
    """My checkers on the bar or in the opponent's home board, / 15."""
    return _side(me, opp, 9)


def dance(me: torch.Tensor, opp: torch.Tensor) -> torch.Tensor:
    """Chance I fail to enter at all, if I have a checker on the bar (else 0)."""
    return _side(me, opp, 10)


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
"""The features in the order of the ``rich`` encoding's units (and of :func:`rich_features`)."""

# --- the fused computation ---------------------------------------------------------------

# Shot distances a roll can cover (1-12 and the doubles' 15, 16, 18, 20, 24): bit j of an
# exposure pattern says some opponent checker is SHOT_DISTANCES[j] pips behind one of my blots.
SHOT_DISTANCES = tuple(
    sorted({d for a, b in ROLLS for d in ((a, 2 * a, 3 * a, 4 * a) if a == b else (a, b, a + b))})
)
# Multiplying a little-endian int64 whose 8 bytes are each 0 or 1 by this puts byte k's value
# at bit 56 + k: the product's top byte is the 8 bytes packed into bits (no carries).
_PACK_BYTES = 0x0102040810204080
_POINTS = 0xFFFFFF  # mask bits of points 1-24 (bit 24 is the bar)
_MAX_PIPS = 15 * 325  # 15 checkers on every point and the bar
# Multiplying an int64 by this adds up its top 6 bytes in the top byte (exact: sums < 256).
_SUM_TOP_BYTES = 0x0000010101010101
# Bit fields of the half-mask lookups (see _fused_tables) after the reversed blots (bits 0-23),
# in the order the units use them: prime (a code of both halves' runs), blots, home points,
# anchors, made points.
_FIELD_SHIFTS, _FIELD_MASKS = (24, 50, 44, 47, 39), (32767, 31, 7, 7, 31)


def _bit_runs(v: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    """For 12-bit ``v``: the longest run of set bits, the run ending at bit 11, the run from bit 0."""
    bits = (v[:, None] >> torch.arange(12)) & 1  # column k = bit k
    ending = [bits[:, 0]]  # ending[k]: the run of set bits ending at bit k
    for k in range(1, 12):
        ending.append((ending[-1] + 1) * bits[:, k])
    ending = torch.stack(ending, 1)
    return ending.amax(1), ending[:, 11], bits.cumprod(1).sum(1)


def _popcount(v: torch.Tensor) -> torch.Tensor:
    return torch.tensor([bin(x).count("1") for x in v.tolist()])


@lru_cache(maxsize=8)
def _fused_tables(device: torch.device) -> dict[str, torch.Tensor]:
    """Constants of :func:`rich_features` on ``device``.

    ``values`` holds every unit's possible values, each made by the same float32 operations
    as its definition makes it on this device (so results are bit for bit the same); the
    integers :func:`rich_features` computes are indices into it (``offsets`` per unit).
    """
    points = torch.arange(32)  # board rows are padded to 32 bytes; columns 25-31 stay empty
    # Row c: pips from each point past the barrier c - 1, the opponent's rearmost checker in my
    # numbering (c = 24 - its index in theirs, 0 to 25).
    behind = (points - (torch.arange(26)[:, None] - 1)).clamp(min=0).float()  # (26, 32)
    pip_weights = ((points + 1) * (points < 25)).float()

    # Lookups by 12-bit halves of the made-points and blot masks, as bit fields that add up:
    # bits 0-23 the blot mask reversed (bit 23 - i for a blot on point i + 1), 24-38 a prime
    # code (longest run and edge runs of both halves), 39-43 made points, 44-46 home points
    # (low half), 47-49 anchors (high half), 50-54 blots.
    half = torch.arange(4096)
    longest, top, bottom = _bit_runs(half)
    set_bits = _popcount(half)
    reversed12 = sum(((half >> k) & 1) << (11 - k) for k in range(12))
    fields = torch.cat([
        ((longest * 13 + top) * 169 << 24) + (set_bits << 39) + (_popcount(half & 63) << 44),  # made, 1-12
        ((longest * 13 + bottom) << 24) + (set_bits << 39) + (_popcount(half >> 6) << 47),  # made, 13-24
        (reversed12 << 12) + (set_bits << 50),  # blots, points 1-12
        reversed12 + (set_bits << 50),  # blots, points 13-24
    ])  # fmt: skip
    code = torch.arange(169 * 169)
    low, high = code // 169, code % 169  # longest * 13 + edge run, of each half
    prime_length = torch.maximum(torch.maximum(low // 13, high // 13), low % 13 + high % 13)

    # Exposure per pattern of SHOT_DISTANCES (bit j), counted as exposure's definition counts.
    t = _tables(device)
    pattern = torch.arange(1 << len(SHOT_DISTANCES), device=device)
    distance_bits = sum(((pattern >> j) & 1) << (d - 1) for j, d in enumerate(SHOT_DISTANCES))
    hits = (distance_bits[:, None] & t["reach"]) != 0
    closed, on_bar = torch.arange(128, device=device) % 8, torch.arange(128, device=device) // 8

    def count(most: int, scale: float) -> torch.Tensor:
        return torch.arange(most + 1, device=device).float() / scale

    values = {  # each unit's values, by its index (contact's: the sum of both sides' 24 - rear)
        "contact": (torch.arange(51, device=device) <= 25).float(),
        "pips": count(_MAX_PIPS, 167.0),
        "break_contact": count(_MAX_PIPS, 167.0),
        "prime": prime_length.to(device).float() / 6.0,
        # Escapes' window comes with bit a - 1 for the point a pips ahead; the table's is 12 - a.
        "escapes": _escape_table(device)[reversed12.to(device)],
        "exposure": hits.float() @ t["weight"] / 36.0,
        "blots": count(24, 5.0),
        "home_points": count(6, 6.0),
        "anchors": count(6, 6.0),
        "made_points": count(24, 7.0),
        "back_checkers": count(7 * 15, 15.0),
        "dance": (on_bar > 0).float() * (closed.float() / 6.0) ** 2,  # by 8 * bar + closed points
    }
    sizes = torch.tensor([len(v) for v in values.values()])
    offsets = (sizes.cumsum(0) - sizes)[1:]  # units' offsets (contact's is 0)

    def on(x: torch.Tensor) -> torch.Tensor:
        return x.to(device)

    return {
        "behind": on(behind),
        "pip_weights": on(pip_weights),
        "ones": on(torch.ones(32)),
        "plane_shifts": on(torch.tensor([1, 0], dtype=torch.uint8)[:, None, None]),
        "half_fields": on(fields),
        "half_shifts": on(torch.tensor([[0], [12]], dtype=torch.int32)),
        "half_offsets": on(torch.tensor([[[0], [4096]], [[8192], [12288]]], dtype=torch.int32)),
        "field_shifts": on(torch.tensor(_FIELD_SHIFTS)[:, None]),
        "field_masks": on(torch.tensor(_FIELD_MASKS)[:, None]),
        "shot_distances": on(torch.tensor(SHOT_DISTANCES, dtype=torch.int32)[:, None]),
        "shot_bits": on(2.0 ** torch.arange(len(SHOT_DISTANCES))),
        "offsets": on(offsets.int()[:, None]),
        "values": torch.cat(list(values.values())),
    }


def rich_features(boards: torch.Tensor) -> torch.Tensor:
    """The ``rich`` encoding's feature units ``(N, 23)`` float32 for boards ``(N, 2, 25)``.

    Column 0: contact (1 while contact remains: not :func:`bgai.engine.board.is_race`); then
    the :data:`SIDE_FEATURES` of the player on roll (row 1), then those of the opponent (row 0).
    Takes any integer dtype with up to 15 checkers a point (as the encodings' point units do).
    """
    device = boards.device
    kind = device.type  # the dot products below must stay float32, even under autocast
    if torch.amp.is_autocast_available(kind) and torch.is_autocast_enabled(kind):
        with torch.autocast(kind, enabled=False):
            return rich_features(boards)
    n = len(boards)
    if n == 0:
        return torch.zeros((0, 23), device=device)
    t = _fused_tables(device)
    # Row r < n: the player on roll's side of board r; row n + r: the opponent's. Each row is
    # in its owner's numbering, padded with zeros to 32 bytes (four int64 words).
    counts = torch.zeros((2, n, 32), dtype=torch.uint8, device=device)
    counts[0, :, :25] = boards[:, 1]
    counts[1, :, :25] = boards[:, 0]
    counts = counts.view(2 * n, 32)

    # Bitmasks (bit i: point i + 1, bit 24: bar) of 2+ and of 1+ checkers: 0/1 bytes, then a
    # multiplication per 8-byte word packs them.
    planes = (counts >> t["plane_shifts"]).clamp_(max=1)  # (2, 2n, 32)
    packed = planes.view(torch.int64).mul_(_PACK_BYTES)
    masks = packed.view(torch.uint8)[..., 7::8].contiguous().view(torch.int32)[..., 0]  # (2, 2n)
    made = masks[0] & _POINTS
    occupied = masks[1]
    blot = (occupied ^ made) & _POINTS
    # 24 - my rearmost checker's index (bar 24; no checkers -1): 0 to 25.
    behind_rear = 25 - torch.frexp(occupied.double()).exponent
    opp_made, opp_occupied, opp_behind_rear = torch.stack([made, occupied, behind_rear]).roll(n, 1)

    # Made points, home points, anchors, blots, the longest prime and the blots reversed, by
    # table lookups of the masks' 12-bit halves.
    halves = ((torch.stack([made, blot])[:, None] >> t["half_shifts"]) & 4095) + t["half_offsets"]
    fields = t["half_fields"].index_select(0, halves.view(-1)).view(4, 2 * n).sum(0)
    blot_reversed = (fields & _POINTS).int()
    prime_blots_home_anchors_made = (fields >> t["field_shifts"]) & t["field_masks"]
    home = prime_blots_home_anchors_made[2]

    # pips, and break_contact (the pips of each checker past the opponent's rearmost checker,
    # behind's row opp_behind_rear): dot products of small integers, so exact.
    x = counts.float()
    pips = (x @ t["pip_weights"]).long()
    broken = (t["behind"].index_select(0, opp_behind_rear).mul_(x) @ t["ones"]).long()
    # back checkers: the top 6 bytes of word 2 (points 19-24) and word 3 (the bar alone).
    words = counts.view(torch.int64)
    back = ((words[:, 2] * _SUM_TOP_BYTES) >> 56) + words[:, 3]
    # Escapes: the opponent's made points 1 to 12 pips ahead of my rearmost checker, which
    # are their indices 24 - rear + (0..11).
    window = ((opp_made >> behind_rear) & 4095).long()
    # Exposure: an opponent checker on their index j (bar: j = 24) is d pips behind my blot on
    # my index i when j + i = 23 + d: bit j - d of ``opp_occupied >> d`` meets reversed bit 23 - i.
    shots = ((opp_occupied >> t["shot_distances"]) & blot_reversed).clamp_(max=1)
    pattern = (t["shot_bits"] @ shots.float()).long()
    dance = home.roll(n).add_(words[:, 3], alpha=8)  # 8 * checkers on the bar + the other's home points

    units = torch.cat([
        pips, broken, prime_blots_home_anchors_made[0], window, pattern,
        prime_blots_home_anchors_made[1:].flatten(), back, dance,
    ])  # fmt: skip
    # Indices into the value table, unit by unit: contact, the player on roll's, the opponent's.
    index = torch.empty((23, n), dtype=torch.int32, device=device)
    torch.add(behind_rear[:n], behind_rear[n:], out=index[0])
    torch.add(units.view(11, 2, n).transpose(0, 1), t["offsets"], out=index[1:].view(2, 11, n))
    return t["values"].index_select(0, index.view(-1)).view(23, n).t().contiguous()


assert sys.byteorder == "little", "rich_features packs bytes into words assuming little-endian"
