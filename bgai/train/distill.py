"""Distilling a cheap network from an expensive evaluator: gnubg-style pruning nets.

The n-ply search (:mod:`bgai.search.ply`) picks each inner node's reply by the evaluator's
``pruner`` when it has one, so the pruner's job is to *rank* every legal reply of a (position,
roll) pair the way the full evaluator would. It is trained on exactly that:

* :func:`selfplay_positions` plays the teacher against itself at 0-ply (its greedy move, with
  a little equity noise for variety) and keeps the (position, roll) pairs it met;
  :func:`afterstates_of` turns them into **every** legal afterstate, as boards with the
  opponent on roll, with the teacher's probabilities for them and the pair each came from;
* :func:`distill` regresses a student network onto those probabilities: mean squared error on
  the five probabilities, plus on the cubeless equity, plus on the equity *relative to the
  other moves of the same (position, roll)* (what ranking needs);
* :func:`ranking_agreement` measures the result the way the search uses it: how often the
  student picks the teacher's move and how much equity (by the teacher) its pick gives away.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable
from dataclasses import dataclass, field

import torch

from bgai.engine.board import swap_sides
from bgai.engine.choice import segment_argmax
from bgai.engine.movegen import expand
from bgai.engine.sampling import Starts, play_positions
from bgai.model.probs import cubeless_equity
from bgai.search.evaluator import Evaluator, afterstate_values, terminal_probs
from bgai.search.ply import evaluate_position


@dataclass
class LabelledAfterstates:
    """Training data: ``boards`` ``(M, 2, 25)`` int8 with the player on roll in row 1 (the
    afterstates of the mover's legal moves, sides swapped), the teacher's ``probs`` ``(M, 5)``
    for them and ``group`` ``(M,)``: which (position, roll) each came from (0 .. pairs-1)."""

    boards: torch.Tensor
    probs: torch.Tensor
    group: torch.Tensor
    pairs: int

    def __len__(self) -> int:
        return len(self.boards)

    @staticmethod
    def join(sets: list[LabelledAfterstates]) -> LabelledAfterstates:
        """Several sets as one (none: an empty one), their pairs numbered one after the other."""
        group, pairs = [torch.zeros(0, dtype=torch.long)], 0
        for d in sets:
            group.append(d.group + pairs)
            pairs += d.pairs
        return LabelledAfterstates(
            torch.cat([torch.zeros(0, 2, 25, dtype=torch.int8)] + [d.boards for d in sets]),
            torch.cat([torch.zeros(0, 5)] + [d.probs for d in sets]),
            torch.cat(group),
            pairs,
        )


def selfplay_positions(
    teacher: Evaluator,
    n: int,
    seed: int = 0,
    games: int = 256,
    noise: float = 0.03,
    starts: Starts | None = None,
) -> tuple[torch.Tensor, torch.Tensor]:
    """``n`` (board, dice) pairs (boards int8, player on roll in row 1) from the teacher's 0-ply
    self-play (:func:`bgai.engine.sampling.play_positions`): ``games`` games at once, each
    playing the move of highest teacher equity plus a normal number of standard deviation
    ``noise`` (0: purely greedy). Finished games restart from the opening position, whose first
    roll may be a double (money-game practice), or from ``starts(k, generator)`` when given."""

    def move(boards: torch.Tensor, dice: torch.Tensor, gen: torch.Generator) -> torch.Tensor:
        children, parent = expand(boards, dice)
        equity = cubeless_equity(afterstate_values(teacher, children))
        if noise > 0:
            equity = equity + noise * torch.randn(len(equity), generator=gen)
        return children.index_select(0, segment_argmax(equity, parent, len(boards)))

    return play_positions(n, move, seed, games, starts)


def afterstates_of(
    teacher: Evaluator,
    boards: torch.Tensor,
    dice: torch.Tensor,
    skip: Callable[[torch.Tensor], torch.Tensor] | None = None,
    chunk: int = 1024,
    plies: int = 0,
) -> LabelledAfterstates:
    """Every legal afterstate of the (board, dice) pairs, sides swapped, with the teacher's
    probabilities at ``plies`` (:func:`bgai.search.evaluate_position`). Afterstates that end
    the game are left out (the search values them exactly), as are those where
    ``skip(boards)`` is true (e.g. bear-offs a database answers); a pair whose afterstates
    were all left out keeps its group number, with no rows."""
    kept_boards, kept_probs, kept_group = [], [], []
    for at in range(0, len(boards), chunk):
        children, parent = expand(boards[at : at + chunk], dice[at : at + chunk])
        swapped = swap_sides(children)
        keep = ~terminal_probs(swapped)[1]
        if skip is not None:
            keep &= ~torch.as_tensor(skip(swapped), dtype=torch.bool)
        swapped = swapped[keep]
        kept_boards.append(swapped.to(torch.int8))
        kept_probs.append(evaluate_position(teacher, swapped, plies).float())
        kept_group.append(parent[keep] + at)
    boards_out, probs, group = torch.cat(kept_boards), torch.cat(kept_probs), torch.cat(kept_group)
    return LabelledAfterstates(boards_out, probs, group, len(boards))


class PairIndex:
    """Where each (position, roll) pair's rows lie in a :class:`LabelledAfterstates`, to batch
    whole pairs (a roll's moves are compared with each other)."""

    def __init__(self, data: LabelledAfterstates) -> None:
        self.order = torch.argsort(data.group, stable=True)  # rows by pair
        self.counts = torch.bincount(data.group, minlength=data.pairs)
        self.starts = torch.cumsum(self.counts, 0) - self.counts

    def rows(self, pairs: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        """The rows of ``pairs``, pair after pair, and for each row its pair's place in ``pairs``."""
        sizes = self.counts[pairs]
        within = torch.arange(int(sizes.sum())) - (torch.cumsum(sizes, 0) - sizes).repeat_interleave(sizes)
        rows = self.order[self.starts[pairs].repeat_interleave(sizes) + within]
        return rows, torch.arange(len(pairs)).repeat_interleave(sizes)


@dataclass
class DistillResult:
    """What :func:`distill` did: the mean training loss of each epoch and the wall time."""

    losses: list[float] = field(default_factory=list)
    seconds: float = 0.0
    samples: int = 0


def distill_loss(
    student: torch.nn.Module,
    boards: torch.Tensor,
    target: torch.Tensor,
    group: torch.Tensor,
    equity_weight: float = 1.0,
    rank_weight: float = 1.0,
) -> torch.Tensor:
    """MSE on the five probabilities + ``equity_weight`` x MSE on the cubeless equity +
    ``rank_weight`` x MSE on the equity minus its group's mean (groups as given, in this batch)."""
    probs = student(boards)
    loss = torch.mean((probs - target) ** 2) * 5
    if equity_weight or rank_weight:
        mine, theirs = cubeless_equity(probs), cubeless_equity(target)
        diff = mine - theirs
        if equity_weight:
            loss = loss + equity_weight * torch.mean(diff**2)
        if rank_weight:
            _, local = torch.unique(group, return_inverse=True)
            size = torch.bincount(local).to(diff)
            centred = diff - torch.zeros_like(size).index_add(0, local, diff)[local] / size[local]
            loss = loss + rank_weight * torch.mean(centred**2)
    return loss


def distill(
    student: torch.nn.Module,
    data: LabelledAfterstates,
    epochs: int = 10,
    batch: int = 1024,
    lr: float = 3e-3,
    seed: int = 0,
    equity_weight: float = 1.0,
    rank_weight: float = 1.0,
    seconds: float | None = None,
    log: Callable[[str], None] | None = None,
) -> DistillResult:
    """Regress ``student`` (boards in, five probabilities out) onto ``data`` with Adam.

    Minibatches are whole runs of (position, roll) groups in a seeded random order, so the
    rank term compares moves of the same roll. The learning rate follows a cosine from ``lr``
    to 5 % of it over ``epochs``, or over ``seconds`` of wall time if that comes first (the
    schedule follows whichever is further along); training stops after the batch that passes
    ``seconds``.
    """
    gen = torch.Generator().manual_seed(seed)
    index = PairIndex(data)
    optimiser = torch.optim.Adam(student.parameters(), lr=lr)
    steps_per_epoch = max(1, math.ceil(len(data) / batch))
    total = epochs * steps_per_epoch
    result = DistillResult()
    begin = time.perf_counter()
    step = 0
    student.train()
    for epoch in range(epochs):
        order, _ = index.rows(torch.randperm(data.pairs, generator=gen))
        running, seen = 0.0, 0
        for rows in order.split(batch):
            progress = step / total
            if seconds is not None:
                progress = min(1.0, max(progress, (time.perf_counter() - begin) / seconds))
            for g in optimiser.param_groups:
                g["lr"] = lr * (0.05 + 0.95 * 0.5 * (1 + math.cos(math.pi * progress)))
            loss = distill_loss(
                student, data.boards[rows], data.probs[rows], data.group[rows], equity_weight, rank_weight
            )
            optimiser.zero_grad(set_to_none=True)
            loss.backward()
            optimiser.step()
            running += float(loss.detach()) * len(rows)
            seen += len(rows)
            step += 1
            if seconds is not None and time.perf_counter() - begin > seconds:
                break
        result.losses.append(running / max(seen, 1))
        result.samples += seen
        if log is not None:
            elapsed = time.perf_counter() - begin
            log(f"epoch {epoch + 1}/{epochs}: loss {result.losses[-1]:.6f} ({elapsed:.0f} s)")
        if seconds is not None and time.perf_counter() - begin > seconds:
            break
    student.eval()
    result.seconds = time.perf_counter() - begin
    return result


@dataclass
class Agreement:
    """How a pruner's move choices compare with the teacher's on (position, roll) pairs with a
    real choice (two or more legal moves)."""

    pairs: int
    same: float
    """Fraction of pairs where both choose the same move."""
    equity_lost: float
    """Mean over pairs of the teacher's equity of its best move minus that of the pruner's pick."""
    in_top: dict[int, float]
    """Fraction of pairs where the teacher's best move is among the pruner's top k."""


def ranking_agreement(
    pruner: Evaluator, teacher: Evaluator, boards: torch.Tensor, dice: torch.Tensor, chunk: int = 512
) -> Agreement:
    """Pruner vs teacher 0-ply move choice on (board, dice) pairs (player on roll in row 1)."""
    same, lost, pairs = 0, 0.0, 0
    top = {k: 0 for k in (2, 3, 5)}
    for at in range(0, len(boards), chunk):
        b, d = boards[at : at + chunk], dice[at : at + chunk]
        n = len(b)
        children, parent = expand(b, d)
        real = (torch.bincount(parent, minlength=n) >= 2).nonzero().squeeze(1)
        full = cubeless_equity(afterstate_values(teacher, children))
        cheap = cubeless_equity(afterstate_values(pruner, children))
        mine, best = segment_argmax(cheap, parent, n)[real], segment_argmax(full, parent, n)[real]
        same += int((mine == best).sum())
        lost += float((full[best] - full[mine]).sum())
        pairs += len(real)
        rank = torch.zeros(n, dtype=torch.long)  # the teacher's best move's rank by the pruner
        better = cheap > cheap[segment_argmax(full, parent, n)][parent]
        rank.index_add_(0, parent, better.long())
        for k in top:
            top[k] += int((rank[real] < k).sum())
    share = 1 / max(pairs, 1)
    return Agreement(pairs, same * share, lost * share, {k: v * share for k, v in top.items()})
