"""Checker steps: a move as people and ``.mat`` files write it, one die at a time.

A step is ``(from, to)`` in 1-based points of the **mover** (the player on roll, row 1 of the
board): 25 is the bar, 0 is borne off. One step moves one checker; a step that lands on a
lone opponent checker hits it to the opponent's bar.

The move generator (:mod:`bgai.engine.movegen`) describes a move as a path instead: per die,
the source index 0-24 of the checker it moved (-1 = no die played) and the pips it moved.
:func:`path_steps` turns a path into steps; :func:`move_steps` finds the steps of a move
from the positions before and after it.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import torch

from bgai.engine.movegen import afterstates

BAR_POINT = 25
OFF_POINT = 0

Step = tuple[int, int]
"""``(from, to)``: the mover's points, 25 = the bar, 0 = borne off."""

_CHUNK = 4096  # positions per move-generator call in move_steps


def apply_steps(board, steps: Sequence[Step]) -> np.ndarray:
    """The board after the player on roll (row 1) plays ``steps``, hitting blots where they land.

    The mover stays in row 1 (swap the sides to pass the turn). Checks only that each step
    moves a checker that is there towards home, to a point that is not blocked; whether the
    whole move is legal is the move generator's job. Raises ``ValueError`` saying which step
    cannot be played.
    """
    after = np.array(board, dtype=np.int8, copy=True)
    for source, dest in steps:
        if not OFF_POINT <= dest < source <= BAR_POINT:
            raise ValueError(f"step {source}/{dest} does not move from a point 1-25 towards home")
        if after[1, source - 1] == 0:
            raise ValueError(f"no checker on point {source} to play {source}/{dest}")
        after[1, source - 1] -= 1
        if dest == OFF_POINT:
            continue
        opponent = after[0, 24 - dest]
        if opponent > 1:
            raise ValueError(f"point {dest} is blocked, cannot play {source}/{dest}")
        if opponent == 1:  # hit: the blot goes to the opponent's bar
            after[0, 24 - dest] = 0
            after[0, 24] += 1
        after[1, dest - 1] += 1
    return after


def path_steps(sources, dice) -> list[Step]:
    """The steps of one move-generator path: ``sources`` (index 0-24, -1 = no step) and the
    pips each step moved (``dice``), as in :class:`~bgai.engine.movegen.Afterstates`."""
    if isinstance(sources, torch.Tensor):
        sources = sources.tolist()
    if isinstance(dice, torch.Tensor):
        dice = dice.tolist()
    steps = []
    for source, die in zip(sources, dice, strict=True):
        if source >= 0:
            start = int(source) + 1  # index 24, the bar, is point 25
            steps.append((start, max(start - int(die), OFF_POINT)))
    return steps


def move_steps(before, dice, after) -> list[list[Step]]:
    """The steps of each move ``before -> after`` (mover in row 1 of both), one per die.

    ``before`` and ``after`` are ``(N, 2, 25)``, ``dice`` ``(N, 2)``. A dance is ``[]``. When
    several orders of play reach ``after``, the first path the move generator lists is taken.
    Raises ``ValueError`` if an ``after`` is not a legal result of its ``before`` and roll.
    """
    before = torch.as_tensor(np.asarray(before), dtype=torch.int8)
    dice = torch.as_tensor(np.asarray(dice), dtype=torch.long)
    after = torch.as_tensor(np.asarray(after), dtype=torch.int8)
    steps: list[list[Step] | None] = [None] * len(before)
    for start in range(0, len(before), _CHUNK):
        stop = min(start + _CHUNK, len(before))
        legal = afterstates(before[start:stop], dice[start:stop], with_paths=True)
        same = (legal.boards == after[start:stop].index_select(0, legal.parent)).flatten(1).all(1)
        rows = same.nonzero().squeeze(1).tolist()
        parents = legal.parent[rows].tolist()
        sources, used = legal.sources[rows].tolist(), legal.dice[rows].tolist()
        for parent, path, path_dice in zip(parents, sources, used, strict=True):
            if steps[start + parent] is None:
                steps[start + parent] = path_steps(path, path_dice)
    missing = [i for i, s in enumerate(steps) if s is None]
    if missing:
        raise ValueError(f"move {missing[0]} is not a legal result of its position and roll")
    return steps  # type: ignore[return-value]
