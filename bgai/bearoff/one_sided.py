"""The one-sided bear-off database: how many rolls one side needs to bear everything off.

A *home position* is one side's checkers on its six home points, a ``(..., 6)`` count vector
(column ``i`` = that side's point ``i + 1``, as in a board row), up to 15 checkers; the rest are
borne off. There are C(21, 6) = 54,264 of them, the empty one included.

For every home position the database holds two exact distributions over the number of rolls
``n = 0 .. MAX_ROLLS - 1`` (the last column also holds the negligible tail beyond it):

* ``rolls[n]``: P(the side needs exactly ``n`` rolls to bear off all its checkers), when it plays
  every roll to minimise the expected number of rolls (gnubg's one-sided convention);
* ``first_off[n]``: P(it needs ``n`` rolls to bear off its *first* checker), playing to minimise
  that expectation instead (what saving the gammon asks for). Positions with fewer than 15
  checkers have already borne one off: ``first_off`` is certainly 0 there.

Both come from dynamic programming over the engine's own afterstates: :func:`afterstate_edges`
expands every (position, roll) pair in a few large batched calls to
:func:`bgai.engine.movegen.expand`, and the values are then filled in by increasing pip count
(every bear-off move lowers the pips, so each position's afterstates are already done).

Positions are numbered by a combinatorial index (:func:`position_index`): all positions with
fewer checkers first, then a colex rank of the composition. So the positions with at most ``k``
checkers are exactly the first C(k + 6, 6) indices, for every ``k``, and a smaller database is a
prefix of a larger one.
"""

from __future__ import annotations

import os
import sys
import time
from dataclasses import dataclass
from math import comb
from pathlib import Path

import numpy as np
import torch

from bgai.engine.board import CHECKERS
from bgai.engine.choice import segment_argmax
from bgai.engine.dice import ROLL_COUNTS
from bgai.engine.dice import ROLLS as DICE_ROLLS
from bgai.engine.movegen import expand

POINTS = 6
MAX_CHECKERS = CHECKERS
MAX_ROLLS = 32
DATA_DIR = Path(__file__).resolve().parents[1] / "data" / "bearoff"

ROLLS = DICE_ROLLS.flip(-1)
"""The 21 distinct rolls of :data:`bgai.engine.dice.ROLLS`, high die first."""
ROLL_WEIGHTS = ROLL_COUNTS.double()
"""How many of the 36 outcomes each of :data:`ROLLS` stands for."""

_BINOMIAL = torch.tensor([[comb(n, k) for k in range(POINTS + 1)] for n in range(MAX_CHECKERS + POINTS + 1)])


def position_count(max_checkers: int = MAX_CHECKERS) -> int:
    """How many home positions hold at most ``max_checkers`` checkers (the empty one included)."""
    return comb(max_checkers + POINTS, POINTS)


def position_index(homes: torch.Tensor) -> torch.Tensor:
    """The database index (int64, shape ``(...)``) of home positions ``(..., 6)``.

    Positions with fewer checkers come first; among ``n`` checkers the rank is the colex rank
    of the five "bars" that cut ``n`` stars into six groups, read from the 6-point down. Moving
    a checker to a lower point, or bearing it off, always lowers the index.
    """
    homes = torch.as_tensor(homes).long()
    binomial = _BINOMIAL.to(homes.device)
    checkers = homes.sum(-1)
    from_top = homes.flip(-1).cumsum(-1)[..., : POINTS - 1]
    bars = from_top + torch.arange(POINTS - 1, device=homes.device)
    rank = binomial[bars, torch.arange(1, POINTS, device=homes.device)].sum(-1)
    return binomial[checkers + POINTS - 1, POINTS] + rank


def all_positions(max_checkers: int = MAX_CHECKERS) -> torch.Tensor:
    """Every home position with at most ``max_checkers`` checkers, ``(N, 6)`` int8, in index order."""
    homes = np.zeros((1, 0), dtype=np.int8)
    for _ in range(POINTS):  # append one point at a time, every count that still fits
        room = max_checkers + 1 - homes.sum(1, dtype=np.int64)
        counts = np.concatenate([np.arange(r, dtype=np.int8) for r in room])
        homes = np.concatenate([np.repeat(homes, room, 0), counts[:, None]], 1)
    homes = torch.from_numpy(homes)
    ordered = torch.empty_like(homes)
    ordered[position_index(homes)] = homes
    return ordered


def home_pips(homes: torch.Tensor) -> torch.Tensor:
    """Pips of home positions ``(..., 6)``: sum of checkers times their point number."""
    homes = torch.as_tensor(homes).long()
    return (homes * torch.arange(1, POINTS + 1, device=homes.device)).sum(-1)


def afterstate_edges(homes: torch.Tensor, chunk: int = 4096) -> tuple[torch.Tensor, torch.Tensor]:
    """Every legal afterstate of every (home position, roll) pair, as database indices.

    Returns ``(child, start)``: the afterstates of pair ``p = position * 21 + roll`` (rolls in
    :data:`ROLLS` order) are ``child[start[p]:start[p + 1]]``. The opponent plays no part in a
    bear-off, so it is left off the board. ``chunk`` positions (x 21 rolls) go to
    :func:`~bgai.engine.movegen.expand` per call.
    """
    homes = torch.as_tensor(homes)
    rolls = len(ROLLS)
    children, counts = [], []
    for lo in range(0, len(homes), chunk):
        part = homes[lo : lo + chunk]
        boards = torch.zeros((len(part) * rolls, 2, 25), dtype=torch.int8)
        boards[:, 1, :POINTS] = part.repeat_interleave(rolls, 0)
        after, parent = expand(boards, ROLLS.repeat(len(part), 1))
        children.append(position_index(after[:, 1, :POINTS]).int())
        counts.append(torch.bincount(parent, minlength=len(boards)))
    counts = torch.cat(counts)
    start = torch.zeros(len(counts) + 1, dtype=torch.long)
    torch.cumsum(counts, 0, out=start[1:])
    return torch.cat(children), start


def roll_edges(positions: torch.Tensor, start: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    """The entries of :func:`afterstate_edges`' ``child`` for every roll of ``positions``.

    Returns ``(edges, pair)``: ``child[edges[j]]`` is an afterstate of pair
    ``pair[j] = k * 21 + roll`` of ``positions[k]``; pairs come in order.
    """
    pairs = (positions[:, None] * len(ROLLS) + torch.arange(len(ROLLS))).reshape(-1)
    first, count = start[pairs], start[pairs + 1] - start[pairs]
    pair = torch.repeat_interleave(torch.arange(len(pairs)), count)
    offset = torch.arange(len(pair)) - torch.repeat_interleave(torch.cumsum(count, 0) - count, count)
    return first[pair] + offset, pair


@dataclass(frozen=True)
class OneSidedDB:
    """Roll-count distributions ``(N, MAX_ROLLS)`` float32 per home position, by index."""

    rolls: torch.Tensor
    first_off: torch.Tensor

    @property
    def max_checkers(self) -> int:
        n = len(self.rolls)
        return next(k for k in range(MAX_CHECKERS + 1) if position_count(k) == n)

    def mean_rolls(self) -> torch.Tensor:
        """Expected rolls to bear off everything, per position."""
        return self.rolls.double() @ torch.arange(MAX_ROLLS, dtype=torch.float64)

    def save(self, path: Path) -> None:
        path.parent.mkdir(parents=True, exist_ok=True)
        np.savez_compressed(path, rolls=self.rolls.numpy(), first_off=self.first_off.numpy())

    @classmethod
    def load(cls, path: Path) -> OneSidedDB:
        with np.load(path) as data:
            return cls(torch.from_numpy(data["rolls"]), torch.from_numpy(data["first_off"]))


def build_one_sided(max_checkers: int = MAX_CHECKERS, chunk: int = 4096) -> OneSidedDB:
    """Compute the one-sided database for up to ``max_checkers`` checkers (15: the full one)."""
    homes = all_positions(max_checkers)
    child, start = afterstate_edges(homes, chunk)
    pips = home_pips(homes)
    full = homes.long().sum(1) == CHECKERS  # no checker off yet: first_off is still open
    n = len(homes)
    rolls = torch.zeros((n, MAX_ROLLS), dtype=torch.float64)
    rolls[0, 0] = 1.0  # nothing left: done in 0 rolls
    first_off = torch.zeros((n, MAX_ROLLS), dtype=torch.float64)
    first_off[~full, 0] = 1.0
    mean, first_mean = torch.zeros(n, dtype=torch.float64), torch.zeros(n, dtype=torch.float64)
    for pip in range(1, int(pips.max()) + 1):
        level = (pips == pip).nonzero().squeeze(1)
        _fill(level, child, start, rolls, mean)
        _fill(level[full[level]], child, start, first_off, first_mean)
    return OneSidedDB(rolls.float(), first_off.float())


def _fill(level: torch.Tensor, child, start, dist: torch.Tensor, mean: torch.Tensor) -> None:
    """Play every roll of the positions in ``level`` to minimise ``mean`` of the afterstate,
    then set their distribution (shifted by one roll) and mean from the chosen afterstates."""
    if len(level) == 0:
        return
    rolls = len(ROLLS)
    edges, pair_of_edge = roll_edges(level, start)
    options = child[edges].long()
    chosen = options[segment_argmax(-mean[options], pair_of_edge, len(level) * rolls)]
    w = (ROLL_WEIGHTS / 36).repeat(len(level))[:, None]
    after = dist[chosen] * w
    shifted = torch.zeros_like(after)
    shifted[:, 1:] = after[:, :-1]
    shifted[:, -1] += after[:, -1]  # fold the (negligible) tail into the last column
    dist[level] = shifted.view(len(level), rolls, -1).sum(1)
    mean[level] = 1 + (mean[chosen] * w[:, 0]).view(len(level), rolls).sum(1)


@dataclass(frozen=True)
class RaceTables:
    """The columns the one-sided race formula reads, per position ``(N, MAX_ROLLS)`` float32.

    ``rolls``: P(bear off in exactly n rolls); ``left``: P(n rolls or more); ``first_left``:
    P(first checker off takes at least max(n, 1) rolls); ``first_after``: P(it takes more than n).
    """

    rolls: torch.Tensor
    left: torch.Tensor
    first_left: torch.Tensor
    first_after: torch.Tensor

    @classmethod
    def from_db(cls, db: OneSidedDB, device: torch.device | str = "cpu") -> RaceTables:
        # Renormalised in float64 so that certain events come out as exactly 1.
        rolls, first = (d.double() / d.double().sum(-1, keepdim=True) for d in (db.rolls, db.first_off))
        first_left = first.flip(-1).cumsum(-1).flip(-1)
        # Finishing on roll n leaves the opponent n - 1 rolls; n = 0 means the game is already
        # over, a gammon when the opponent has not borne off any checker.
        first_left[:, 0] = first_left[:, 1]
        columns = (rolls, rolls.flip(-1).cumsum(-1).flip(-1), first_left, 1 - first.cumsum(-1))
        return cls(*(c.float().to(device) for c in columns))


def one_sided_probs(tables: RaceTables, mover: torch.Tensor, opponent: torch.Tensor) -> torch.Tensor:
    """Race probabilities ``(N, 5)`` for the player on roll from two home-position indices.

    Each side is taken to need its own number of rolls independently (the standard one-sided
    approximation; each side optimises its roll count, not its winning chance): the mover,
    rolling first, wins when it needs ``n`` rolls and the opponent needs at least ``n``. A side
    wins a gammon when the loser still needs more rolls to bear off its first checker; there
    are no backgammons, since every checker is in its own home board.
    """
    mine, theirs = tables.rolls[mover], tables.rolls[opponent]
    win = (mine * tables.left[opponent]).sum(-1)
    win_gammon = (mine * tables.first_left[opponent]).sum(-1)
    lose_gammon = (theirs * tables.first_after[mover]).sum(-1)
    zero = torch.zeros_like(win)
    return torch.stack([win, win_gammon, zero, lose_gammon, zero], -1)


def cache_dir() -> Path:
    """Where databases too big to ship are kept once built: ``$BGAI_CACHE_DIR`` or
    ``$XDG_CACHE_HOME/bgai`` (default ``~/.cache/bgai``), subfolder ``bearoff``."""
    root = os.environ.get("BGAI_CACHE_DIR") or Path(os.environ.get("XDG_CACHE_HOME", "~/.cache")) / "bgai"
    return Path(root).expanduser() / "bearoff"


def find_or_build(name: str, build, load):
    """Load ``name`` from the package data or the cache; else build it, say so, and cache it."""
    for folder in (DATA_DIR, cache_dir()):
        if (folder / name).exists():
            return load(folder / name)
    path = cache_dir() / name
    print(f"bgai: building bear-off database {name} (once; cached at {path}) ...", file=sys.stderr)
    t = time.perf_counter()
    db = build()
    partial = path.with_name(f"{path.stem}.{os.getpid()}.partial{path.suffix}")
    db.save(partial)
    partial.replace(path)  # whole or not at all, for a process that builds the same beside us
    print(f"bgai: built {name} in {time.perf_counter() - t:.1f} s", file=sys.stderr)
    return db


ONE_SIDED_FILE = "one_sided_15.npz"


def load_one_sided() -> OneSidedDB:
    """The full one-sided database (15 checkers), shipped with bgai or built on first use."""
    return find_or_build(ONE_SIDED_FILE, build_one_sided, OneSidedDB.load)
