"""Throughput of afterstate generation, bgai's ``expand`` against ``gnubg_nn.moves``, same run.

Pairs are (position, roll) from ``sample_positions``, an even mix of the random, greedy, race
and bearoff kinds, shuffled. bgai is timed at batch sizes 1, 100 and 10,000 (boards out:
``expand`` returns the children as a tensor); gnubg is timed one pair per call on the same
pairs, with the boards already converted to lists (it returns position keys, not boards).
Each figure is the best and the median of several repetitions; the machine may be shared, so
compare the ratio, which is measured under the same load.

On a shared machine (more busy threads than cores), OpenMP's default spin-waiting can make
torch's multi-threaded run of these many small operations about 100x slower; set
``OMP_WAIT_POLICY=PASSIVE`` before starting Python, or use ``--threads 1``.

    python scripts/measure/bench_engine.py --threads 2
    OMP_WAIT_POLICY=PASSIVE python scripts/measure/bench_engine.py
"""

from __future__ import annotations

import argparse
import os
import statistics
import time

import gnubg_nn
import torch

from bgai.cli.main import run_script
from bgai.engine.movegen import expand
from bgai.engine.sampling import KINDS, sample_positions


def mixed_pairs(n: int, seed: int) -> tuple[torch.Tensor, torch.Tensor]:
    """``n`` shuffled (board, dice) pairs, an even mix of every sampling kind."""
    per = -(-n // len(KINDS))
    parts = [sample_positions(per, kind, seed=seed + i, games=1000) for i, kind in enumerate(KINDS)]
    boards = torch.cat([b for b, _ in parts])
    dice = torch.cat([d for _, d in parts])
    order = torch.randperm(len(boards), generator=torch.Generator().manual_seed(seed))[:n]
    return boards[order], dice[order]


def rates(run, pairs: int, reps: int) -> tuple[float, float]:
    """(best, median) pairs per second of ``run()``, which handles ``pairs`` pairs."""
    run()  # warm-up
    seconds = []
    for _ in range(reps):
        start = time.perf_counter()
        run()
        seconds.append(time.perf_counter() - start)
    return pairs / min(seconds), pairs / statistics.median(seconds)


def bgai_run(boards: torch.Tensor, dice: torch.Tensor, batch: int):
    chunks = [(boards[i : i + batch], dice[i : i + batch]) for i in range(0, len(boards), batch)]

    def run():
        for b, d in chunks:
            expand(b, d)

    return run


def gnubg_run(boards: torch.Tensor, dice: torch.Tensor):
    pairs = list(zip(boards.tolist(), dice[:, 0].tolist(), dice[:, 1].tolist(), strict=True))

    def run():
        for board, d1, d2 in pairs:
            gnubg_nn.moves(board, d1, d2)

    return run


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--threads", type=int, default=torch.get_num_threads(), help="torch threads")
    parser.add_argument("--pairs", type=int, default=10_000, help="pairs per repetition")
    parser.add_argument("--reps", type=int, default=9, help="repetitions of each measurement")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)
    torch.set_num_threads(args.threads)

    boards, dice = mixed_pairs(args.pairs, args.seed)
    children, _ = expand(boards, dice)
    print(f"{len(boards):,} pairs ({', '.join(KINDS)} mixed), {len(children):,} children, "
          f"torch {torch.__version__}, {args.threads} thread(s), "
          f"OMP_WAIT_POLICY={os.environ.get('OMP_WAIT_POLICY', '(unset)')}")  # fmt: skip
    gnubg_best, gnubg_median = rates(gnubg_run(boards, dice), len(boards), args.reps)
    print(f"{'':<22} {'best':>12} {'median':>12} {'best/gnubg':>11} {'median/gnubg':>13}")
    print(f"{'gnubg_nn.moves':<22} {gnubg_best:>10,.0f}/s {gnubg_median:>10,.0f}/s")
    for batch in (1, 100, 10_000):
        n = min(len(boards), 1_000 if batch == 1 else len(boards))  # batch 1 on a subset: it is slow
        best, median = rates(bgai_run(boards[:n], dice[:n], batch), n, args.reps)
        print(f"{f'bgai expand, batch {batch:,}':<22} {best:>10,.0f}/s {median:>10,.0f}/s "
              f"{best / gnubg_best:>11.2f} {median / gnubg_median:>13.2f}")  # fmt: skip


if __name__ == "__main__":
    run_script(main)
