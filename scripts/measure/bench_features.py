"""Time of the ``rich`` encoding's hand-crafted features: the fused code against the old one.

"old" is the one-feature-at-a-time code the shipped networks were trained on, kept as
``tests/features_reference.py``; "new" is :func:`bgai.model.features.rich_features`, what the
encoding uses. Both compute contact and the 11 features of both sides, on the same boards:
the children of greedy-game positions (``--positions 2000`` gives 35,622 boards), in batches
of several sizes. Old and new run in turn, so they share the machine's load; each figure is
the best (and the median) of ``--reps`` runs over all the boards, as microseconds per board,
wall clock and this thread's CPU time (which leaves out time other processes took).

    python scripts/measure/bench_features.py
    taskset -c 0 python scripts/measure/bench_features.py --batches 20 200 2000 35622 --reps 15
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

import torch

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))  # for tests/features_reference.py

from bgai.cli.main import run_script  # noqa: E402
from bgai.engine.movegen import expand  # noqa: E402
from bgai.engine.sampling import sample_positions  # noqa: E402
from bgai.model.features import rich_features  # noqa: E402
from tests import features_reference  # noqa: E402


def timed(run) -> tuple[float, float]:
    """Seconds ``run()`` took: wall clock, and this thread's CPU time."""
    wall, cpu = time.perf_counter(), time.thread_time()
    run()
    return time.perf_counter() - wall, time.thread_time() - cpu


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--positions", type=int, default=2000, help="greedy positions (their children)")
    parser.add_argument("--batches", type=int, nargs="+", default=[20, 200, 2000, 0], help="0: all boards")
    parser.add_argument("--small", type=int, default=2000, help="smaller batches run over this many boards")
    parser.add_argument("--reps", type=int, default=10)
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--device", default="cpu")
    args = parser.parse_args()
    torch.set_num_threads(args.threads)

    positions, dice = sample_positions(args.positions, "greedy", seed=0)
    boards = expand(positions, dice)[0].long().to(args.device)  # as the encoding passes them
    old, new = features_reference.rich_features(boards), rich_features(boards)
    diff = (new - old).abs().max().item()
    print(f"{len(boards)} boards on {args.device}, {torch.get_num_threads()} thread(s)")
    print(f"max |new - old| = {diff:.3g}, bit-identical: {torch.equal(new, old)}")
    print(f"microseconds per board, best and median of {args.reps} runs over the boards")
    header = ("batch", "boards", "clock", "old best", "median", "new best", "median", "speed-up")
    print(" ".join(f"{h:>{w}}" for h, w in zip(header, (7, 7, 5, 9, 8, 9, 8, 9), strict=True)))
    sync = torch.cuda.synchronize if boards.is_cuda else (lambda: None)
    for batch in args.batches:
        batch = batch or len(boards)
        chunks = boards[: len(boards) if batch >= args.small else args.small].split(batch)
        count = sum(len(c) for c in chunks)
        seconds = {"old": [], "new": []}
        functions = {"old": features_reference.rich_features, "new": rich_features}
        for rep in range(args.reps + 1):  # the first is a warm-up; old and new take turns
            for name, f in functions.items():

                def run(f=f, chunks=chunks):
                    for c in chunks:
                        f(c)
                    sync()

                if rep:
                    seconds[name].append(timed(run))
                else:
                    run()
        for k, clock in enumerate(("wall", "cpu")):
            old_s = [s[k] * 1e6 / count for s in seconds["old"]]
            new_s = [s[k] * 1e6 / count for s in seconds["new"]]
            print(
                f"{batch:>7} {count:>7} {clock:>5} {min(old_s):9.3f} {statistics.median(old_s):8.3f} "
                f"{min(new_s):9.3f} {statistics.median(new_s):8.3f} {min(old_s) / min(new_s):8.1f}x"
            )


if __name__ == "__main__":
    run_script(main)
