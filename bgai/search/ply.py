"""n-ply lookahead in gnubg's numbering, batched over many positions at once.

* **0-ply**: a candidate move is worth the evaluator's value of its afterstate.
* **n-ply** value of a position with X on roll (:func:`evaluate_position`): the average over
  the 21 rolls (doubles weigh 1/36, the others 2/36) of X's best move for that roll, the move
  picked at 0-ply as gnubg does and its afterstate then valued at (n-1)-ply.
* A candidate move at n-ply is worth its afterstate, with the opponent on roll, valued at
  n-ply from the opponent's side and inverted: at 1-ply the average over the opponent's 21
  rolls of their best 0-ply reply; 2-ply recurses once more.

**Pruning** (gnubg's pruning nets): when the evaluator carries a cheap ``pruner``
(:func:`bgai.search.evaluator.pruner_of`), the inner nodes' moves (the best move of each
(position, roll) inside :func:`evaluate_position`) are short-listed by the pruner's 0-ply
equity, as gnubg does: its best ``5 + floor(log2(legal moves))`` (:func:`shortlist_sizes`); the
evaluator picks among those at 0-ply and only its choice is valued at (n-1)-ply. The root
candidates are still ranked and filtered by the evaluator itself.

Move filters work as gnubg's: the candidates are ranked at a shallow ply, and only the best
``accept`` plus up to ``extra`` more within ``threshold`` equity of the best go deeper.

Batching: the candidates of all positions are scored together; the (position, roll) pairs of
a ply level go through ``expand`` and the evaluator in chunks of :data:`MAX_BOARDS_PER_CHUNK`
positions (x 21 rolls; :data:`MAX_BOARDS_PER_CHUNK_PRUNED` with a pruner), small on CPU for
cache locality, large on an accelerator.

Equities are cubeless money equities (:func:`bgai.model.probs.cubeless_equity`).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import lru_cache

import numpy as np
import torch

from bgai.engine.board import CHECKERS, swap_sides
from bgai.engine.choice import segment_argmax
from bgai.engine.dice import ROLL_WEIGHTS, ROLLS, splitmix64
from bgai.engine.movegen import expand
from bgai.model.probs import cubeless_equity, invert
from bgai.search.evaluator import Evaluator, afterstate_values, pruner_of, terminal_probs

MAX_PLIES = 4
"""The deepest lookahead bgai searches or lets a player, a level or an export ask for."""

MAX_BOARDS_PER_CHUNK = {"cpu": 16, "cuda": 4096}
"""Positions expanded over all 21 rolls in one go, by device type. On CPU small chunks (336
(position, roll) pairs, ~7,000 afterstates) stay in cache and ran 1.5x faster per decision
than chunks of 512 (measured on 2 cores, 1-ply and 2-ply); an accelerator wants big batches."""
MAX_BOARDS_PER_CHUNK_PRUNED = {"cpu": 32, "cuda": 4096}
"""The same when the evaluator has a pruner: most afterstates then go through a small net, so
bigger chunks pay (one core, ``best`` with its 198-64 pruner and gnubg's shortlist, time per
decision at 2-ply: 99 ms at 32, 107 at 16, 122 at 64, 135 at 128)."""


PRUNE_MIN_MOVES = 5
"""gnubg's pruning shortlist: at least this many replies, plus ``floor(log2(legal moves))``.
The pruner's single choice cost +0.30 ± 0.19 per 1000 decisions at 2-ply against the unpruned
search (judged by gnubg 2-ply); the shortlist nothing measurable (docs/search.md). gnubg's
source notes that fewer than 5 measurably weakens play."""
PRUNE_MAX_MOVES = PRUNE_MIN_MOVES + 11


@dataclass(frozen=True)
class FilterStage:
    """Which candidates ranked at one ply go on to the next: gnubg's move-filter entry.

    Keep the best ``accept``, then up to ``extra`` more while within ``threshold`` equity of
    the best. gnubg's entries use ``accept = 0``: the best move is always within the threshold.
    """

    accept: int
    extra: int
    threshold: float

    def __post_init__(self) -> None:
        if self.accept + self.extra < 1 or self.accept < 0 or self.extra < 0:
            raise ValueError(f"a filter stage must let at least the best move through, got {self}")


MoveFilter = Sequence[FilterStage | None]
"""One entry per shallower ply, indexed by ply: ``filter[k]`` prunes the candidates ranked at
k-ply. ``None`` skips evaluating at that ply (the candidates go straight on, as gnubg's
``-1`` entries do). A search to n plies uses entries ``0 .. n-1``; ``filter[0]`` must be set."""

FILTERS: dict[str, tuple[FilterStage | None, ...]] = {
    name: (FilterStage(0, n0, t0), None, FilterStage(0, n2, t2), None)
    for name, n0, t0, n2, t2 in (
        ("tiny", 5, 0.08, 2, 0.02),
        ("narrow", 8, 0.12, 2, 0.03),
        ("normal", 8, 0.16, 2, 0.04),
        ("large", 16, 0.32, 4, 0.08),
        ("huge", 20, 0.44, 6, 0.11),
    )
}
"""gnubg's predefined move filters (gnubg manual, "Move filters"); ``normal`` is its default."""
DEFAULT_FILTER = FILTERS["normal"]


@dataclass(frozen=True)
class Candidates:
    """Every legal afterstate of a batch of (position, roll) pairs, valued by the search.

    ``probs``/``equity`` are for the mover (row 1 of ``boards``), at ``ply`` (how deep that
    candidate got through the filter; the survivors reach the requested ply).
    """

    boards: torch.Tensor
    parent: torch.Tensor
    probs: torch.Tensor
    equity: torch.Tensor
    ply: torch.Tensor


def evaluate_position(evaluator: Evaluator, boards: torch.Tensor, plies: int = 0) -> torch.Tensor:
    """``(N, 5)`` probabilities for the player on roll **before** rolling, at ``plies``.

    0-ply is the evaluator itself; n-ply averages, over the 21 rolls, the best move (picked at
    0-ply, by the evaluator's pruner if it has one) valued at (n-1)-ply. Finished games get
    their exact outcome.
    """
    boards = torch.as_tensor(boards)
    if plies < 0:
        raise ValueError(f"plies must be 0 or more, got {plies}")
    if plies == 0:
        return evaluator.evaluate(boards)
    probs, finished = terminal_probs(boards, getattr(evaluator, "checkers", CHECKERS))
    live = (~finished).nonzero().squeeze(1)
    sizes = MAX_BOARDS_PER_CHUNK if pruner_of(evaluator) is None else MAX_BOARDS_PER_CHUNK_PRUNED
    for chunk in live.split(sizes.get(boards.device.type, 4096)):
        probs[chunk] = _average_over_rolls(evaluator, boards.index_select(0, chunk), plies).to(probs)
    return probs


def _average_over_rolls(evaluator: Evaluator, boards: torch.Tensor, plies: int) -> torch.Tensor:
    """:func:`evaluate_position` at ``plies >= 1`` for unfinished boards."""
    weights = ROLL_WEIGHTS.to(boards.device)
    return (roll_values(evaluator, boards, plies - 1) * weights[None, :, None]).sum(1)


def roll_values(evaluator: Evaluator, boards: torch.Tensor, plies: int = 0) -> torch.Tensor:
    """``(N, 21, 5)``: for each unfinished board and each of :data:`ROLLS`, the value of the
    best move for the player on roll (row 1), its afterstate valued at ``plies``.

    Averaged with :data:`ROLL_WEIGHTS` this is the position's value at ``plies + 1``; the value
    of the roll actually thrown minus that average is the roll's **luck** (variance reduction
    in rollouts, luck in analysis). See :func:`roll_moves` for how the move is picked.
    """
    return roll_moves(evaluator, boards, plies)[1]


def roll_moves(
    evaluator: Evaluator,
    boards: torch.Tensor,
    plies: int = 0,
    rank: Callable[[torch.Tensor, torch.Tensor, torch.Tensor], torch.Tensor] | None = None,
) -> tuple[torch.Tensor, torch.Tensor]:
    """``(afterstates (N, 21, 2, 25), values (N, 21, 5))``: the best move of each unfinished
    board for each of :data:`ROLLS` (mover still in row 1) and its value for the mover at ``plies``.

    The move is picked at 0-ply by the evaluator, among the pruner's shortlist when it has a
    ``pruner`` (:func:`shortlist_sizes`), else among all legal moves: the highest cubeless
    money equity, or the highest ``rank(values, children, parent)`` (``(M,)``, ``parent`` numbering
    the (board, roll) pairs ``board * 21 + roll``) when given; analysis ranks by cubeful equity
    at the score, as gnubg's luck analysis does.
    """
    n = len(boards)
    rolls = ROLLS.to(boards.device)
    pairs = n * len(rolls)
    children, parent = expand(boards.repeat_interleave(len(rolls), 0), rolls.repeat(n, 1))

    def score(values: torch.Tensor, rows: torch.Tensor) -> torch.Tensor:
        if rank is None:
            return cubeless_equity(values)
        return torch.as_tensor(rank(values, children.index_select(0, rows), parent.index_select(0, rows))).to(
            values
        )

    rows = torch.arange(len(children), device=children.device)
    pruner = pruner_of(evaluator)
    if pruner is not None:
        rough = score(afterstate_values(pruner, children), rows)
        sizes = shortlist_sizes(torch.bincount(parent, minlength=pairs))
        rows = rows[rank_by_parent(rough, parent, pairs) < sizes.index_select(0, parent)]
    values = afterstate_values(evaluator, children.index_select(0, rows))
    best = segment_argmax(score(values, rows), parent.index_select(0, rows), pairs)
    moves = children.index_select(0, rows.index_select(0, best))
    chosen = values.index_select(0, best) if plies == 0 else afterstate_values_at(evaluator, moves, plies)
    return moves.view(n, len(rolls), 2, 25), chosen.view(n, len(rolls), 5)


def shortlist_sizes(legal: torch.Tensor) -> torch.Tensor:
    """How many of ``legal`` moves (per (position, roll)) the pruner passes on: gnubg's rule."""
    extra = torch.floor(torch.log2(legal.clamp(min=1).double())).long()
    return (PRUNE_MIN_MOVES + extra).clamp(max=PRUNE_MAX_MOVES)


def afterstate_values_at(evaluator: Evaluator, children: torch.Tensor, plies: int) -> torch.Tensor:
    """``(M, 5)`` value of each afterstate for the player who just moved, at ``plies``.

    The opponent is on roll in the afterstate: its value is theirs at ``plies`` inverted
    (at 1-ply: the average over their 21 rolls of their best 0-ply reply).
    """
    if plies == 0:
        return afterstate_values(evaluator, children)
    return invert(evaluate_position(evaluator, swap_sides(torch.as_tensor(children)), plies))


def rank_by_parent(equity: torch.Tensor, parent: torch.Tensor, n: int) -> torch.Tensor:
    """Each candidate's place among its parent's by ``equity``: 0 for the best (ties: first)."""
    order = torch.sort(equity, descending=True, stable=True).indices
    order = order[torch.sort(parent[order], stable=True).indices]  # by parent, best first
    counts = torch.bincount(parent, minlength=n)
    first = torch.cumsum(counts, 0) - counts
    rank = torch.empty_like(order)
    rank[order] = torch.arange(len(order), device=order.device) - first[parent[order]]
    return rank


def keep_by_filter(equity: torch.Tensor, parent: torch.Tensor, n: int, stage: FilterStage) -> torch.Tensor:
    """Bool mask of the candidates ``stage`` lets through (ranked by ``equity`` per parent)."""
    rank = rank_by_parent(equity, parent, n)
    best = torch.full((n,), float("-inf"), dtype=equity.dtype, device=equity.device)
    best.scatter_reduce_(0, parent, equity, "amax")
    close = equity >= best[parent] - stage.threshold
    return (rank < stage.accept) | ((rank < stage.accept + stage.extra) & close)


def score_candidates(
    evaluator: Evaluator,
    boards: torch.Tensor,
    dice: torch.Tensor,
    plies: int = 0,
    move_filter: MoveFilter = DEFAULT_FILTER,
    rank: Callable[[torch.Tensor, torch.Tensor], torch.Tensor] | None = None,
) -> Candidates:
    """Every legal afterstate of each (board, dice) pair, valued at up to ``plies``.

    All candidates are ranked at 0-ply; the filter's survivors are valued again at each
    deeper ply the filter names, and finally at ``plies``. They are ranked by cubeless money
    equity, or by ``rank(probs, parent)`` (``(M,)``, the mover's equity on another scale, e.g.
    match winning chance at the score), which ``equity`` then holds.
    """
    boards, dice = torch.as_tensor(boards), torch.as_tensor(dice)
    if plies < 0:
        raise ValueError(f"plies must be 0 or more, got {plies}")
    if plies and (len(move_filter) < plies or move_filter[0] is None):
        raise ValueError(f"a {plies}-ply search needs a move filter of {plies} entries, the first set")
    n = len(boards)
    children, parent = expand(boards, dice)
    probs = afterstate_values(evaluator, children)

    def value(p: torch.Tensor, rows: torch.Tensor) -> torch.Tensor:
        return cubeless_equity(p) if rank is None else torch.as_tensor(rank(p, parent[rows])).to(p)

    equity = value(probs, torch.arange(len(children), device=children.device))
    ply = torch.zeros(len(children), dtype=torch.long, device=children.device)
    alive = torch.arange(len(children), device=children.device)
    levels = ([k for k in range(1, plies) if move_filter[k] is not None] + [plies]) if plies else []
    current = 0
    for level in levels:
        keep = keep_by_filter(equity[alive], parent[alive], n, move_filter[current])
        alive = alive[keep]
        deeper = afterstate_values_at(evaluator, children.index_select(0, alive), level)
        probs[alive] = deeper.to(probs)
        equity[alive] = value(deeper, alive).to(equity)
        ply[alive] = level
        current = level
    return Candidates(children, parent, probs, equity, ply)


def pick_best(candidates: Candidates, n: int, plies: int, noise: torch.Tensor | None = None) -> torch.Tensor:
    """Index of each parent's best candidate among those valued at ``plies`` (plus ``noise``)."""
    equity = candidates.equity if noise is None else candidates.equity + noise.to(candidates.equity)
    equity = torch.where(candidates.ply == plies, equity, torch.full_like(equity, float("-inf")))
    return segment_argmax(equity, candidates.parent, n)


def choose_moves(
    evaluator: Evaluator,
    boards: torch.Tensor,
    dice: torch.Tensor,
    plies: int = 0,
    move_filter: MoveFilter = DEFAULT_FILTER,
) -> torch.Tensor:
    """The best afterstate ``(N, 2, 25)`` of each (board, dice) pair at ``plies`` (mover in row 1).

    A board with no legal move comes back unchanged.
    """
    candidates = score_candidates(evaluator, boards, dice, plies, move_filter)
    return candidates.boards.index_select(0, pick_best(candidates, len(boards), plies))


@dataclass(frozen=True)
class RankedMove:
    """One candidate of :func:`rank_moves`: its afterstate (mover in row 1) and value for the mover."""

    board: np.ndarray
    probs: tuple[float, float, float, float, float]
    equity: float
    ply: int


def rank_moves(
    evaluator: Evaluator,
    board: np.ndarray | torch.Tensor,
    dice: Sequence[int] | torch.Tensor,
    plies: int = 0,
    move_filter: MoveFilter = DEFAULT_FILTER,
) -> list[RankedMove]:
    """Every candidate of one position, best first, like gnubg's hint.

    Candidates valued at the requested ply come first (by equity), then those the filter
    dropped, at the ply where they stopped.
    """
    boards = torch.as_tensor(np.asarray(board))[None]
    c = score_candidates(evaluator, boards, torch.as_tensor(dice).reshape(1, 2), plies, move_filter)
    moves = [
        RankedMove(b, tuple(float(x) for x in p), float(e), int(k))
        for b, p, e, k in zip(
            c.boards.cpu().numpy(), c.probs.cpu().tolist(), c.equity.tolist(), c.ply.tolist(), strict=True
        )
    ]
    return sorted(moves, key=lambda m: (-m.ply, -m.equity))


def position_noise(boards: torch.Tensor, seed: int = 0) -> torch.Tensor:
    """A standard normal number per board ``(N,)``, the same every time for the same board.

    gnubg-style deterministic evaluation noise: a seeded 64-bit hash of the board (a
    weighted sum of its checker counts, then the splitmix64 finaliser) feeds Box-Muller.
    """
    b = torch.as_tensor(boards).reshape(len(boards), -1).cpu().numpy().astype(np.uint64)
    with np.errstate(over="ignore"):
        key = (b * _hash_weights(b.shape[1])).sum(1, dtype=np.uint64) + np.uint64(seed & (2**64 - 1))
        u1 = (splitmix64(key) >> np.uint64(11)).astype(np.float64) / 2.0**53
        u2 = (splitmix64(key ^ np.uint64(0x9E3779B97F4A7C15)) >> np.uint64(11)).astype(np.float64) / 2.0**53
    z = np.sqrt(-2.0 * np.log1p(-u1)) * np.cos(2 * np.pi * u2)
    return torch.as_tensor(z, dtype=torch.float32, device=torch.as_tensor(boards).device)


@lru_cache(maxsize=4)
def _hash_weights(size: int) -> np.ndarray:
    return np.random.default_rng(0xB6A1).integers(1, 2**58, size=size, dtype=np.uint64)
