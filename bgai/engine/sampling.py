"""Seeded corpora of (position, roll) pairs from games of several kinds.

Differential tests and benchmarks need many realistic positions, not only openings:

* ``random``  — both sides play uniformly random legal moves;
* ``greedy``  — both sides maximise the pip lead after the move less their blots (hits,
  makes points, then races);
* ``race``    — positions from greedy games once contact is over;
* ``bearoff`` — games started with every mover checker home and opponent checkers in the
  mover's home board or on the bar, so bear-offs, hits during the bear-off and re-entry
  against strong boards are frequent.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
import torch

from bgai.engine.board import CHECKERS, is_race, pip_counts, starting_board, swap_sides
from bgai.engine.choice import random_child, segment_argmax
from bgai.engine.movegen import expand

KINDS = ("random", "greedy", "race", "bearoff")

Mover = Callable[[torch.Tensor, torch.Tensor, torch.Generator], torch.Tensor]
"""``(boards (N, 2, 25), dice (N, 2), generator) -> afterstates (N, 2, 25)``, mover still in row 1:
how the games of :func:`play_positions` are played."""
Starts = Callable[[int, torch.Generator], torch.Tensor]
"""``(k, generator) -> k`` boards to start (or restart) games from, player on roll in row 1."""


def play_positions(
    n: int,
    move: Mover,
    seed: int = 0,
    games: int = 256,
    starts: Starts | None = None,
    keep: Callable[[torch.Tensor], torch.Tensor] | None = None,
) -> tuple[torch.Tensor, torch.Tensor]:
    """``n`` (board, dice) pairs met in ``games`` games played at once by ``move`` (the one
    self-play loop of the project: position corpora, distillation data, cube studies).

    Boards are int8 with the player on roll in row 1, before the roll; ``dice`` is the roll then
    played. A finished game restarts from ``starts`` (default: the standard opening position,
    whose first roll may be a double). ``keep(boards)`` (bool ``(games,)``) keeps only some
    positions (e.g. races). Seeded: one generator draws the dice, then ``move`` may draw from
    it, then the restarts.
    """
    gen = torch.Generator().manual_seed(seed)
    starts = starts or _standard_starts("standard")
    boards = starts(games, gen).to(torch.int8)
    got_boards, got_dice, total = [], [], 0
    while total < n:
        dice = torch.randint(1, 7, (games, 2), generator=gen)
        kept = keep(boards) if keep is not None else torch.ones(games, dtype=torch.bool)
        got_boards.append(boards[kept])
        got_dice.append(dice[kept])
        total += int(kept.sum())
        moved = move(boards, dice, gen)
        finished = moved[:, 1].sum(1) == 0
        boards = swap_sides(moved).to(torch.int8)
        if finished.any():
            boards[finished] = starts(int(finished.sum()), gen).to(torch.int8)
    return torch.cat(got_boards)[:n], torch.cat(got_dice)[:n]


def sample_positions(
    n: int, kind: str = "random", seed: int = 0, variant: str = "standard", games: int = 256
) -> tuple[torch.Tensor, torch.Tensor]:
    """``n`` (board, dice) pairs, boards (n, 2, 25) int8 with the player on roll in row 1."""
    if kind not in KINDS:
        raise ValueError(f"unknown position kind {kind!r}: choose one of {', '.join(KINDS)}")
    start = _bearoff_starts if kind == "bearoff" else _standard_starts(variant)
    policy = _random_child if kind == "random" else _greedy_child

    def move(boards: torch.Tensor, dice: torch.Tensor, gen: torch.Generator) -> torch.Tensor:
        children, parent = expand(boards, dice)
        return children[policy(children, parent, len(boards), gen)]

    return play_positions(n, move, seed, games, start, is_race if kind == "race" else None)


def _standard_starts(variant: str):
    def start(k: int, gen: torch.Generator) -> torch.Tensor:
        return torch.as_tensor(starting_board(variant)).expand(k, 2, 25).clone()

    return start


def _random_child(children: torch.Tensor, parent: torch.Tensor, n: int, gen: torch.Generator) -> torch.Tensor:
    return random_child(parent, n, gen)


def _greedy_child(children: torch.Tensor, parent: torch.Tensor, n: int, gen: torch.Generator) -> torch.Tensor:
    pips = pip_counts(children).float()
    blots = (children[:, 1, :24] == 1).sum(1)
    lead = pips[:, 0] - pips[:, 1] - 4 * blots + 0.01 * torch.rand(len(children), generator=gen)
    return segment_argmax(lead, parent, n)


def _bearoff_starts(k: int, gen: torch.Generator) -> torch.Tensor:
    """Mover: 15 checkers spread over the home board. Opponent: a few checkers back (in the
    mover's home board or on the bar), the rest spread over its own home and outfield."""
    boards = torch.zeros((k, 2, 25), dtype=torch.int8)
    home = torch.randint(0, 6, (k, 15), generator=gen)
    boards[:, 1, :6] = torch.nn.functional.one_hot(home, 6).sum(1).to(torch.int8)
    back = torch.randint(0, 4, (k,), generator=gen)
    # Opponent checkers back on its points 19-24 (the mover's home) or its bar (index 24).
    spots = torch.randint(18, 25, (k, 3), generator=gen)
    for j in range(3):
        on = back > j
        boards[on, 0, spots[on, j]] += 1
    rest = 15 - back
    spread = torch.randint(0, 12, (k, 15), generator=gen)
    used = torch.arange(15)[None, :] < rest[:, None]
    counts = (torch.nn.functional.one_hot(spread, 12) * used[..., None]).sum(1)
    boards[:, 0, :12] += counts.to(torch.int8)
    # Points both sides claim cannot happen: move such opponent checkers to the bar.
    mover_pts = boards[:, 1, :24]
    clash = (mover_pts.flip(1) > 0) & (boards[:, 0, :24] > 0)
    boards[:, 0, 24] += (boards[:, 0, :24] * clash).sum(1).to(torch.int8)
    boards[:, 0, :24] *= ~clash
    return boards


def backgame_starts(n: int, generator: torch.Generator) -> torch.Tensor:
    """``n`` random back-game set-ups ``(n, 2, 25)`` int8, either side on roll.

    The back-game side (X) holds two anchors (three, one time in four) of two or three
    checkers on its points 19-24, may have a checker on the bar, and spreads the rest over its
    points 1-18 (more towards home); the other side (O) is ahead in the race with zero to four
    checkers off, the rest on points X does not occupy, mostly in O's home board and outfield.
    """
    rng = np.random.default_rng(int(torch.randint(0, 2**62, (1,), generator=generator)))
    out = np.zeros((n, 2, 25), dtype=np.int8)
    k = 0
    while k < n:
        x = np.zeros(25, dtype=np.int64)
        for point in rng.choice(np.arange(18, 24), 3 if rng.random() < 0.25 else 2, replace=False):
            x[point] = rng.integers(2, 4)
        x[24] = rng.random() < 0.2
        weights = np.array([3.0] * 6 + [2.0] * 6 + [1.0] * 6)
        x[:18] += rng.multinomial(CHECKERS - x.sum(), weights / weights.sum())
        o = np.zeros(25, dtype=np.int64)
        free = np.flatnonzero(x[23 - np.arange(18)] == 0)  # O's points 1-18 that X leaves open
        o_weights = np.where(free < 6, 3.0, np.where(free < 12, 2.0, 0.5))
        on_board = CHECKERS - rng.integers(0, 5)
        o[free] = rng.multinomial(on_board, o_weights / o_weights.sum())
        board = np.stack([o, x])
        if pip_counts(board)[0] < pip_counts(board)[1]:  # O (row 0) ahead in the race
            out[k] = board if rng.random() < 0.5 else board[::-1]
            k += 1
    return torch.as_tensor(out)


def race_starts(n: int, generator: torch.Generator) -> torch.Tensor:
    """``n`` random races ``(n, 2, 25)`` int8 (contact over), the player on roll in row 1.

    Each side's rearmost checker is on one of its points 6-18, the two no longer in contact;
    its checkers spread over its points up to that one, more towards home (weights falling
    linearly), and one to four of them are off one time in five. From races just past contact
    to bear-offs, as games reach them.
    """
    rng = np.random.default_rng(int(torch.randint(0, 2**62, (1,), generator=generator)))
    out = np.zeros((n, 2, 25), dtype=np.int8)
    for k in range(n):
        rear_x = int(rng.integers(6, 19))  # 1-based points
        rear_o = int(rng.integers(6, min(18, 24 - rear_x) + 1)) if rear_x <= 18 else 6
        for row, rear in ((1, rear_x), (0, rear_o)):
            on_board = CHECKERS - (int(rng.integers(1, 5)) if rng.random() < 0.2 else 0)
            weights = np.arange(rear, 0, -1, dtype=float)
            counts = rng.multinomial(on_board - 1, weights / weights.sum())
            counts[rear - 1] += 1  # the rearmost checker is where it was drawn
            out[k, row, :rear] = counts
        if rng.random() < 0.5:  # either side the one drawn first
            out[k] = out[k, ::-1]
    return torch.as_tensor(out)
