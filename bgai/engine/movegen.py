"""Batched generation of every legal afterstate, for thousands of (position, roll) pairs at once.

The rules are applied one die step at a time over a whole frontier of partial moves:

* a non-double is played in both orders (higher die first, then lower die first);
* a double is one row of four steps whose sources never increase, which reaches every
  resulting position while avoiding most duplicate paths (moving a higher checker first can
  never make a lower checker's step illegal, and entering from the bar is the highest source);
* the maximum-dice rule falls out of keeping, for each parent, only its deepest non-empty
  frontier; when only one die of a non-double can be played, the higher die wins if it fits;
* identical resulting positions of one parent are merged (sort on a 64-bit Zobrist-style hash).

Everything is torch tensor code, so the same functions run on a CUDA device unchanged.
Boards use gnubg's layout (see :mod:`bgai.engine.board`); the mover stays in row 1.
"""

from __future__ import annotations

from dataclasses import dataclass

import torch

_SOURCES = torch.arange(25)  # 0-23: the mover's points 1-24, 24: the bar
_HASH_SEED = 0x5EED_BA6


@dataclass(frozen=True)
class Afterstates:
    """Every distinct legal resulting position of a batch of (position, roll) pairs.

    ``boards[j]`` came from ``parent[j]``; children are grouped by parent in ascending order.
    ``sources``/``dice`` (present when paths were asked for) describe one way of playing it:
    step ``k`` moved a checker from source index ``sources[j, k]`` (0-23 point index, 24 bar,
    -1 no step) by ``dice[j, k]`` pips.
    """

    boards: torch.Tensor
    parent: torch.Tensor
    sources: torch.Tensor | None = None
    dice: torch.Tensor | None = None


def expand(boards: torch.Tensor, dice: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    """All distinct legal afterstates: ``(children (M, 2, 25), parent (M,))``.

    ``boards``: integer (N, 2, 25), player on roll in row 1; ``dice``: (N, 2) in any order.
    A board with no legal move yields exactly one child, itself. Children keep the mover in
    row 1 (call :func:`bgai.engine.board.swap_sides` to pass the turn).
    """
    result = afterstates(boards, dice)
    return result.boards, result.parent


def afterstates(boards: torch.Tensor, dice: torch.Tensor, with_paths: bool = False) -> Afterstates:
    """:func:`expand`, optionally with one representative checker path per child."""
    boards = torch.as_tensor(boards)
    dice = torch.as_tensor(dice, device=boards.device)
    _check_inputs(boards, dice)
    device = boards.device
    x = boards.to(torch.int8)
    dice = dice.long()
    high, low = dice.max(1).values, dice.min(1).values
    double = high == low

    # One "sequence" row per order of play: non-doubles twice, doubles once.
    single_idx = (~double).nonzero().squeeze(1)
    double_idx = double.nonzero().squeeze(1)
    seq_parent = torch.cat([single_idx, single_idx, double_idx])
    zeros = torch.zeros_like(single_idx)
    hs, ls, ds = high[single_idx], low[single_idx], high[double_idx]
    seq_dice = torch.cat(
        [
            torch.stack([hs, ls, zeros, zeros], 1),
            torch.stack([ls, hs, zeros, zeros], 1),
            ds[:, None].expand(-1, 4),
        ]
    )
    seq_high_first = torch.cat(
        [torch.ones_like(single_idx, dtype=torch.bool), torch.zeros(len(single_idx) + len(double_idx),
                                                                    dtype=torch.bool, device=device)]
    )
    seq_double = torch.cat([torch.zeros(2 * len(single_idx), dtype=torch.bool, device=device),
                            torch.ones(len(double_idx), dtype=torch.bool, device=device)])

    # Frontier of partial moves: boards, hashes, the sequence each belongs to, the source ceiling.
    front = x.index_select(0, seq_parent)
    front_hash = _hash(x).index_select(0, seq_parent)
    front_seq = torch.arange(len(seq_parent), device=device)
    ceiling = torch.full((len(seq_parent),), 24, dtype=torch.long, device=device)
    paths = torch.full((len(seq_parent), 4), -1, dtype=torch.int8, device=device) if with_paths else None
    levels: list[_Level] = []
    for k in range(4):
        die = seq_dice[:, k].index_select(0, front_seq)
        if k >= 2:  # only doubles have third and fourth steps
            keep = (die > 0).nonzero().squeeze(1)
            front, front_hash, front_seq, ceiling, die = (
                t.index_select(0, keep) for t in (front, front_hash, front_seq, ceiling, die)
            )
            if paths is not None:
                paths = paths.index_select(0, keep)
        if front.shape[0] == 0:
            break
        front, front_hash, row, src = _step(front, front_hash, die, ceiling)
        front_seq = front_seq.index_select(0, row)
        ceiling = torch.where(seq_double.index_select(0, front_seq), src, 24)
        if paths is not None:
            paths = paths.index_select(0, row)
            paths[:, k] = src.to(torch.int8)
        levels.append(_Level(front, front_hash, front_seq, paths))

    return _select_deepest(x, seq_parent, seq_high_first, seq_dice, levels)


@dataclass
class _Level:
    """The partial moves that have played ``k + 1`` dice (``levels[k]``)."""

    boards: torch.Tensor
    hashes: torch.Tensor
    seq: torch.Tensor
    paths: torch.Tensor | None


def _check_inputs(boards: torch.Tensor, dice: torch.Tensor) -> None:
    if boards.dim() != 3 or boards.shape[1:] != (2, 25):
        raise ValueError(f"boards must have shape (N, 2, 25), got {tuple(boards.shape)}")
    if dice.shape != (boards.shape[0], 2):
        raise ValueError(f"dice must have shape ({boards.shape[0]}, 2), got {tuple(dice.shape)}")
    if dice.numel() and (dice.min() < 1 or dice.max() > 6):
        raise ValueError("every die must show 1 to 6")


def _step(boards: torch.Tensor, hashes: torch.Tensor, die: torch.Tensor, ceiling: torch.Tensor):
    """Play one die with one checker, every legal way: (children, hashes, frontier row, source)."""
    mover = boards[:, 1]
    opp = boards[:, 0]
    sources = _SOURCES.to(boards.device)
    # Opponent checkers on each of the mover's points, indexed by the mover's point index.
    opp_here = opp[:, :24].flip(1)
    dest = sources[None, :] - die[:, None]  # mover point index of the landing spot; < 0 bears off

    on_bar = mover[:, 24] > 0
    occupied = mover > 0
    allowed = occupied & (sources[None, :] <= ceiling[:, None])
    allowed &= torch.where(on_bar[:, None], sources[None, :] == 24, True)

    open_point = opp_here.gather(1, dest.clamp(min=0)) < 2
    home = mover[:, :6]
    all_home = mover[:, 6:].sum(1) == 0
    # Checkers on the home points above each source (for bearing off with a larger die).
    above = home.flip(1).cumsum(1).flip(1) - home
    above = torch.cat([above, torch.zeros_like(mover[:, 6:])], 1)
    bear_off_ok = all_home[:, None] & ((dest == -1) | (above == 0))
    legal = allowed & torch.where(dest >= 0, open_point, bear_off_ok)

    row, src = legal.nonzero(as_tuple=True)
    to = src - die.index_select(0, row)
    children = boards.index_select(0, row)
    flat = children.view(-1)
    base = torch.arange(0, len(row) * 50, 50, device=boards.device)
    lands = (to >= 0).nonzero().squeeze(1)
    land_base, land_to = base.index_select(0, lands), to.index_select(0, lands)
    victim = land_base + 23 - land_to
    victim = victim[flat.index_select(0, victim) == 1]
    victim_base = victim - victim % 50
    flat.index_add_(0, base + 25 + src, _constant(-1, len(row), boards.device))
    flat.index_add_(0, land_base + 25 + land_to, _constant(1, len(lands), boards.device))
    flat.index_fill_(0, victim, 0)
    flat.index_add_(0, victim_base + 24, _constant(1, len(victim), boards.device))

    zobrist = _zobrist(boards.device)
    child_hashes = hashes.index_select(0, row) - zobrist.index_select(0, 25 + src)
    child_hashes.index_add_(0, lands, zobrist.index_select(0, 25 + land_to))
    hit_gain = zobrist[24] - zobrist.index_select(0, victim - victim_base)
    child_hashes.index_add_(0, torch.div(victim, 50, rounding_mode="floor"), hit_gain)
    return children, child_hashes, row, src


def _select_deepest(x, seq_parent, seq_high_first, seq_dice, levels: list[_Level]) -> Afterstates:
    """Keep each parent's legal full moves: the deepest frontier, higher die on a tie at depth 1."""
    device, n = x.device, x.shape[0]
    depth = torch.zeros(n, dtype=torch.long, device=device)
    level_parent = [seq_parent.index_select(0, lv.seq) for lv in levels]
    for k, parent in enumerate(level_parent):
        depth.scatter_reduce_(0, parent, torch.full_like(parent, k + 1), "amax")

    # Candidates as (hash, parent, level, row); boards are gathered only for the survivors.
    stuck = (depth == 0).nonzero().squeeze(1)
    hashes = [torch.zeros(len(stuck), dtype=torch.long, device=device)]
    parents, level_of, rows = [stuck], [torch.full_like(stuck, -1)], [stuck]
    for k, (lv, parent) in enumerate(zip(levels, level_parent, strict=True)):
        keep = depth.index_select(0, parent) == k + 1
        if k == 0:  # only one die playable: the higher one when it can be
            high_first = seq_high_first.index_select(0, lv.seq)
            has_high = torch.zeros(n, dtype=torch.bool, device=device)
            has_high[parent[high_first & keep]] = True
            keep &= high_first | ~has_high.index_select(0, parent)
        row = keep.nonzero().squeeze(1)
        hashes.append(lv.hashes.index_select(0, row))
        parents.append(parent.index_select(0, row))
        level_of.append(torch.full_like(row, k))
        rows.append(row)

    order, first = _unique_per_parent(torch.cat(hashes), torch.cat(parents))
    sel = order[first]
    parent = torch.cat(parents).index_select(0, sel)
    level_of = torch.cat(level_of).index_select(0, sel)
    rows = torch.cat(rows).index_select(0, sel)

    with_paths = bool(levels) and levels[0].paths is not None
    boards = torch.empty((len(sel), 2, 25), dtype=torch.int8, device=device)
    sources = torch.full((len(sel), 4), -1, dtype=torch.int8, device=device)
    for k, lv in [(-1, None), *enumerate(levels)]:
        at = (level_of == k).nonzero().squeeze(1)
        src_rows = rows.index_select(0, at)
        boards.index_copy_(0, at, (x if lv is None else lv.boards).index_select(0, src_rows))
        if with_paths and lv is not None:
            sources.index_copy_(0, at, lv.paths.index_select(0, src_rows))
    if not with_paths:
        return Afterstates(boards, parent)
    seq = torch.zeros_like(rows)
    for k, lv in enumerate(levels):
        at = (level_of == k).nonzero().squeeze(1)
        seq.index_copy_(0, at, lv.seq.index_select(0, rows.index_select(0, at)))
    dice = torch.where(sources >= 0, seq_dice.index_select(0, seq), 0)
    return Afterstates(boards, parent, sources, dice)


def _constant(value: int, n: int, device: torch.device) -> torch.Tensor:
    return torch.full((n,), value, dtype=torch.int8, device=device)


_zobrist_cache: dict[torch.device, torch.Tensor] = {}


def _zobrist(device: torch.device) -> torch.Tensor:
    if device not in _zobrist_cache:
        gen = torch.Generator().manual_seed(_HASH_SEED)
        keys = torch.randint(-(2**62), 2**62, (50,), generator=gen, dtype=torch.long)
        _zobrist_cache[device] = keys.to(device)
    return _zobrist_cache[device]


def _hash(boards: torch.Tensor) -> torch.Tensor:
    """A linear Zobrist-style 64-bit hash; a step updates it in O(1) (see :func:`_step`)."""
    return (boards.reshape(len(boards), 50).long() * _zobrist(boards.device)).sum(1)


def _unique_per_parent(key: torch.Tensor, parent: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    """An order grouping rows by (parent, position hash) and a mask of each group's first row."""
    order = key.argsort()
    order = order[parent[order].argsort(stable=True)]
    k, p = key[order], parent[order]
    first = torch.ones(len(order), dtype=torch.bool, device=key.device)
    first[1:] = (k[1:] != k[:-1]) | (p[1:] != p[:-1])
    return order, first
