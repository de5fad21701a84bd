"""Rollouts of positions, candidate moves and cube decisions, with gnubg's settings.

:func:`rollout_positions` rolls out positions before the roll (player on roll in row 1):
the five cubeless probabilities and the cubeless equity with their standard errors, and with a
money :class:`~bgai.cube.CubeState` the cubeful equities of no double (ND) and double/take
(DT), played on the same dice, and gnubg's cube decision. :func:`rollout_moves` rolls out the
candidate moves of a position and roll on the same dice streams and reports each move's
equity, its difference to the best and that difference's standard error.

Trials run in blocks (``block`` per position) through :func:`bgai.rollout.trials.play_block`;
after each block the stop rule is checked (standard error below ``target_se`` once
``min_trials`` are done), progress is reported, and Ctrl-C keeps what the finished blocks
hold. ``processes > 1`` splits each block's trials over forked worker processes (each with
one thread), and ``torchrun --nproc_per_node N -m bgai rollout ...`` over N processes (or
machines); the estimates do not depend on the split, so a seed gives the same result.
"""

from __future__ import annotations

import atexit
import multiprocessing
import os
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

import numpy as np
import torch

from bgai.cube import CubeState, Owner, decision_labels
from bgai.cube.match import mwc_to_equity
from bgai.cube.met import kazaross_xg2
from bgai.engine.board import swap_sides
from bgai.model.probs import invert
from bgai.rollout import trials as T
from bgai.rollout.dice import position_seeds
from bgai.search.evaluator import Evaluator, terminal_probs
from bgai.search.ply import DEFAULT_FILTER, FilterStage, MoveFilter, keep_by_filter, score_candidates

Progress = Callable[[int, float], None]
"""Called after each block with (trials just done over all positions, the largest equity SE)."""


@dataclass(frozen=True)
class RolloutSettings:
    """gnubg's rollout settings (its names in the comments)."""

    trials: int = 1296  # trials
    truncate: int | None = None  # truncation after N plies (None: play to the end)
    plies: int = 0  # checker play ply (1: with the evaluator's pruning net, if any)
    move_filter: MoveFilter = DEFAULT_FILTER
    variance_reduction: bool = True  # variance reduction (luck subtracted at each roll)
    quasi_random: bool = True  # quasi-random dice (first roll every 36, second every 1,296)
    bearoff: bool = True  # stop trials in the exact two-sided bear-off table (cubeful: money only)
    seed: int = 0
    target_se: float | None = None  # stop when the equity's SE falls below this ...
    min_trials: int = 144  # ... after at least this many trials
    block: int = 144  # trials per position advanced together between checks
    processes: int = 1

    def __post_init__(self) -> None:
        checks = [
            (self.trials >= 1, f"trials must be at least 1, got {self.trials}"),
            (
                self.truncate is None or self.truncate >= 1,
                f"truncation must be at least 1 ply (or none), got {self.truncate}",
            ),
            (0 <= self.plies <= 2, f"checker play must be at 0, 1 or 2 plies, got {self.plies}"),
            (
                self.target_se is None or self.target_se > 0,
                f"target SE must be positive, got {self.target_se}",
            ),
            (self.min_trials >= 1, f"minimum trials must be at least 1, got {self.min_trials}"),
            (self.block >= 1, f"block must be at least 1, got {self.block}"),
            (self.processes >= 1, f"processes must be at least 1, got {self.processes}"),
        ]
        for ok, message in checks:
            if not ok:
                raise ValueError(message)
        if self.plies and (len(self.move_filter) < self.plies or self.move_filter[0] is None):
            raise ValueError(f"{self.plies}-ply checker play needs a move filter with {self.plies} entries")

    def play(self) -> T.Play:
        return T.Play(
            self.plies,
            self.move_filter,
            self.truncate,
            self.variance_reduction,
            self.quasi_random,
            self.bearoff,
            self.seed,
        )


@dataclass
class _Sums:
    """Running sums of per-trial estimates ``(R, C)`` and of the cross products within groups."""

    n: np.ndarray
    s1: np.ndarray
    s2: np.ndarray
    cross: dict[int, np.ndarray] = field(default_factory=dict)  # group -> (K, K) of channel `cross_channel`

    def add(self, roots: np.ndarray, est: np.ndarray, groups: Sequence[np.ndarray], channel: int) -> None:
        self.n[roots] += est.shape[1]
        self.s1[roots] += est.sum(1)
        self.s2[roots] += (est**2).sum(1)
        for g, members in enumerate(groups):
            rows = np.searchsorted(roots, members)
            if len(rows) and (rows < len(roots)).all() and (roots[rows] == members).all():
                e = est[rows, :, channel]
                self.cross[g] = self.cross.get(g, 0) + e @ e.T

    def mean(self) -> np.ndarray:
        return self.s1 / np.maximum(self.n, 1)[:, None]

    def se(self) -> np.ndarray:
        n = np.maximum(self.n, 1)[:, None]
        var = np.maximum(self.s2 / n - self.mean() ** 2, 0.0) * n / np.maximum(n - 1, 1)
        return np.sqrt(var / n)

    def diff_se(self, g: int, members: np.ndarray, best: int, channel: int) -> np.ndarray:
        """SE of each member's mean minus member ``best``'s, from the paired trials."""
        n = self.n[members[0]]
        m = self.s1[members, channel] / n
        c = self.cross[g] / n - np.outer(m, m)
        var = np.diag(c) + c[best, best] - 2 * c[:, best]
        return np.sqrt(np.maximum(var, 0.0) / max(n - 1, 1))


@dataclass(frozen=True)
class PositionRollout:
    """Rollout of positions before the roll, from the view of the player on roll.

    ``nd``/``dt`` (cubeful money equity per unit of the current cube, ``nan`` where the cube
    cannot be turned) and ``decision`` only with a cube; ``dt_minus_nd_se`` is the SE of their
    difference (the same dice play both).
    """

    trials: np.ndarray
    probs: np.ndarray
    probs_se: np.ndarray
    equity: np.ndarray
    equity_se: np.ndarray
    cube: CubeState | None = None
    nd: np.ndarray | None = None
    nd_se: np.ndarray | None = None
    dt: np.ndarray | None = None
    dt_se: np.ndarray | None = None
    dt_minus_nd_se: np.ndarray | None = None
    decision: list[str] | None = None
    mwc: dict | None = None
    interrupted: bool = False


@dataclass(frozen=True)
class MoveRollout:
    """Candidate moves of one position and roll, best first, valued for the mover."""

    afterstates: np.ndarray  # (K, 2, 25), mover in row 1
    trials: int
    probs: np.ndarray  # (K, 5)
    equity: np.ndarray
    equity_se: np.ndarray
    diff: np.ndarray  # equity minus the best's (<= 0)
    diff_se: np.ndarray
    interrupted: bool = False


def rollout_positions(
    evaluator: Evaluator,
    boards,
    settings: RolloutSettings = RolloutSettings(),
    cube: CubeState | None = None,
    progress: Progress | None = None,
) -> PositionRollout:
    """Roll out each position ``(N, 2, 25)`` (player on roll in row 1) ``settings.trials`` times."""
    boards = _check_positions(boards)
    n = len(boards)
    if cube is None:
        roots, start, groups = boards, None, []
    else:
        owner = {Owner.CENTRED: T.CENTRED, Owner.ME: T.MOVER, Owner.OPPONENT: T.TAKER}[cube.owner]
        branches = 2 if cube.can_double else 1
        roots = boards.repeat_interleave(branches, 0)
        cubes = np.tile([cube.cube, 2 * cube.cube][:branches], n)
        start = T.CubeStart(cube, cubes, np.tile([owner, T.TAKER][:branches], n))
        groups = [np.arange(i * branches, (i + 1) * branches) for i in range(n)] if branches == 2 else []
    per_position = len(roots) // n
    seeds = np.repeat(position_seeds(settings.seed, boards.cpu()), per_position)  # branches share dice
    sums, interrupted = _run(
        evaluator, roots, settings, start, groups, T.CUBEFUL, progress, per_position, seeds
    )
    mean, se = sums.mean(), sums.se()
    first = np.arange(n) * per_position
    out = dict(
        trials=sums.n[first],
        probs=mean[first, T.PROBS],
        probs_se=se[first, T.PROBS],
        equity=mean[first, T.EQUITY],
        equity_se=se[first, T.EQUITY],
        interrupted=interrupted,
    )
    if cube is None:
        return PositionRollout(**out)
    nd, nd_se = mean[first, T.CUBEFUL], se[first, T.CUBEFUL]
    nan = np.full(n, np.nan)
    dt, dt_se, diff_se, decision = nan, nan.copy(), nan.copy(), None
    if per_position == 2:
        dt, dt_se = mean[first + 1, T.CUBEFUL], se[first + 1, T.CUBEFUL]
        diff_se = np.array([sums.diff_se(i, groups[i], 0, T.CUBEFUL)[1] for i in range(n)])
    mwc = None
    if not cube.is_money:  # the trials kept match winning chances: normalise them as gnubg does
        met = kazaross_xg2()
        mwc = {"nd": nd, "dt": dt, "dp": met.outcome_mwc(cube, cube.cube)}
        scale = 2.0 / (met.outcome_mwc(cube, cube.cube) - met.outcome_mwc(cube, -cube.cube))
        nd, dt = mwc_to_equity(nd, cube, met), mwc_to_equity(dt, cube, met)
        nd_se, dt_se, diff_se = nd_se * scale, dt_se * scale, diff_se * scale
    if per_position == 2:
        decision = decision_labels(nd, dt, np.ones(n), out["probs"], cube)
    return PositionRollout(
        **out,
        cube=cube,
        nd=nd,
        nd_se=nd_se,
        dt=dt,
        dt_se=dt_se,
        dt_minus_nd_se=diff_se,
        decision=decision,
        mwc=mwc,
    )


def rollout_moves(
    evaluator: Evaluator,
    board,
    dice: Sequence[int],
    settings: RolloutSettings = RolloutSettings(),
    max_moves: int = 8,
    threshold: float = 0.16,
    progress: Progress | None = None,
) -> MoveRollout:
    """Roll out the candidate moves of ``board`` with ``dice`` on the same dice streams.

    The candidates are gnubg's 0-ply filter: the best ``max_moves`` within ``threshold`` of the
    best at 0-ply. Each afterstate is rolled out with the opponent on roll.
    """
    boards = _check_positions(torch.as_tensor(np.asarray(board))[None])
    dice_t = torch.as_tensor(list(dice)).reshape(1, 2)
    cands = score_candidates(evaluator, boards, dice_t, 0)
    keep = keep_by_filter(cands.equity, cands.parent, 1, FilterStage(0, max_moves, threshold))
    afterstates = cands.boards[keep]
    roots = swap_sides(afterstates)
    members = np.arange(len(roots))
    seeds = np.repeat(
        position_seeds(settings.seed, boards.cpu()), len(roots)
    )  # every candidate the same dice
    sums, interrupted = _run(
        evaluator, roots, settings, None, [members], T.EQUITY, progress, len(roots), seeds
    )
    mean, se = sums.mean(), sums.se()
    equity = -mean[:, T.EQUITY]  # the roots are the opponent's; the mover's view is the inverse
    probs = torch.as_tensor(mean[:, T.PROBS])
    order = np.argsort(-equity, kind="stable")
    best = int(order[0])
    diff_se = sums.diff_se(0, members, best, T.EQUITY)
    return MoveRollout(
        afterstates=afterstates.cpu().numpy()[order],
        trials=int(sums.n[0]),
        probs=invert(probs).numpy()[order],
        equity=equity[order],
        equity_se=se[order, T.EQUITY],
        diff=(equity - equity[best])[order],
        diff_se=diff_se[order],
        interrupted=interrupted,
    )


def _check_positions(boards) -> torch.Tensor:
    boards = torch.as_tensor(boards)
    if boards.ndim != 3 or boards.shape[1:] != (2, 25):
        raise ValueError(f"positions must have shape (N, 2, 25), got {tuple(boards.shape)}")
    _, finished = terminal_probs(boards)
    if finished.any():
        raise ValueError(
            f"position {int(finished.nonzero()[0, 0]) + 1} is a finished game: nothing to roll out"
        )
    return boards


def _run(
    evaluator, roots, settings: RolloutSettings, start, groups, cross_channel, progress, per_position, seeds
):
    """Blocks of trials until every root has ``settings.trials`` or meets the stop rule;
    ``seeds``: each root's dice seed."""
    channels = 7 if start is not None else 6
    r = len(roots)
    sums = _Sums(np.zeros(r, dtype=np.int64), np.zeros((r, channels)), np.zeros((r, channels)))
    exact = _exact_bearoff() if settings.bearoff and (start is None or start.state.is_money) else None
    active = np.arange(r)
    done, interrupted = 0, False
    stop_channel = T.CUBEFUL if start is not None else T.EQUITY
    pool = _Workers(evaluator, settings.processes)
    try:
        while done < settings.trials and len(active):
            ids = np.arange(done, min(done + settings.block, settings.trials))
            sub = None if start is None else T.CubeStart(start.state, start.cube[active], start.owner[active])
            est = pool.play(
                roots[torch.as_tensor(active, device=roots.device)],
                ids,
                settings.play(),
                sub,
                exact,
                seeds[active],
            )
            sums.add(active, est, groups, cross_channel)
            done += len(ids)
            se = sums.se()[:, stop_channel]
            if progress is not None:
                progress(len(ids) * len(active) // per_position, float(se[active].max()))
            if settings.target_se is not None and done >= settings.min_trials:
                position = active // per_position
                worst = np.zeros(r)
                np.maximum.at(worst, position, se[active])
                active = active[worst[position] >= settings.target_se]
    except KeyboardInterrupt:
        interrupted = True
    finally:
        pool.close()
    if not sums.n.any():
        raise KeyboardInterrupt
    return sums, interrupted


def _exact_bearoff():
    from bgai.bearoff import BearoffEvaluator

    return BearoffEvaluator(None)


_WORKER_EVALUATOR: Evaluator | None = None


def _worker_play(args):
    roots, ids, play, start, exact, seeds = args
    return T.play_block(_WORKER_EVALUATOR, roots, ids, play, start, exact, seeds)


def _worker_init() -> None:
    """One thread each; Ctrl-C is the parent's to handle (it keeps what is done and ends them)."""
    import signal

    signal.signal(signal.SIGINT, signal.SIG_IGN)
    torch.set_num_threads(1)


class _Workers:
    """Who plays a block's trials: this process alone, forked worker processes (each one
    thread), and under ``torchrun`` each process its share of the trials, the estimates then
    gathered so that every process holds them all (gloo; objects, so CPU or CUDA alike)."""

    def __init__(self, evaluator: Evaluator, processes: int) -> None:
        global _WORKER_EVALUATOR
        self.evaluator, self.pool, self.processes = evaluator, None, processes
        self.rank, self.world = distributed()
        if processes > 1 and getattr(evaluator, "fork_safe", True):  # gnubg: one process
            _WORKER_EVALUATOR = evaluator
            self.pool = multiprocessing.get_context("fork").Pool(processes, initializer=_worker_init)

    def play(self, roots, ids, play, start, exact, seeds) -> np.ndarray:
        if self.world > 1:
            import torch.distributed as dist

            mine = self._local(roots, np.array_split(ids, self.world)[self.rank], play, start, exact, seeds)
            parts: list = [None] * self.world
            dist.all_gather_object(parts, mine)
            return np.concatenate([p for p in parts if p.shape[1]], 1)
        return self._local(roots, ids, play, start, exact, seeds)

    def _local(self, roots, ids, play, start, exact, seeds) -> np.ndarray:
        if self.pool is None or len(ids) < 2:
            return T.play_block(self.evaluator, roots, ids, play, start, exact, seeds)
        shares = [s for s in np.array_split(ids, self.processes) if len(s)]
        parts = self.pool.map(_worker_play, [(roots, s, play, start, exact, seeds) for s in shares])
        return np.concatenate(parts, 1)

    def close(self) -> None:
        if self.pool is not None:
            self.pool.terminate()
            self.pool = None


def distributed() -> tuple[int, int]:
    """(rank, world size): under ``torchrun`` the process group is joined (gloo) on first use."""
    world = int(os.environ.get("WORLD_SIZE", "1"))
    if world == 1:
        return 0, 1
    import torch.distributed as dist

    if not dist.is_initialized():
        dist.init_process_group("gloo")
        # Left to the interpreter's exit, gloo's threads sometimes abort the process after its
        # work is done ("terminate called without an active exception"): close it first.
        atexit.register(dist.destroy_process_group)
    return dist.get_rank(), dist.get_world_size()
