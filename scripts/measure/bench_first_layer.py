"""Time of the first layer's table sum: all 50 slots of a board against its occupied ones only.

:mod:`bgai.model.first_layer` sums each board's slot rows of a ``(800, H)`` table; empty slots
add zero rows, so it may select the occupied slots first (a boolean selection, then a sum over
about 13 rows instead of 50). Which is faster depends on the width ``H``: the selection costs
the same at every width, the saved rows cost in proportion to it. This prints both per width,
on the children of greedy-game positions (as the search sees them), and then the whole forward
pass of a checkpoint with the width rule ``first_layer.WIDE`` as shipped and with the
all-slots sum forced. Each figure is the best (and the median) of ``--reps`` runs, in
microseconds per board of this thread's CPU time; the two ways run in turn, sharing the
machine's load.

    python scripts/measure/bench_first_layer.py
    taskset -c 0 python scripts/measure/bench_first_layer.py --widths 64 256 512 --batch 500 --reps 15
"""

from __future__ import annotations

import argparse
import statistics
import time

import torch

import bgai.model.first_layer as first_layer
from bgai.cli.main import run_script
from bgai.engine.movegen import expand
from bgai.engine.sampling import sample_positions
from bgai.model.checkpoint import checkpoint_path, load_net


def cpu_seconds(run) -> float:
    start = time.thread_time()
    run()
    return time.thread_time() - start


def compare(ways: dict, chunks: list, reps: int) -> dict[str, list[float]]:
    """CPU seconds of each of ``ways`` over all ``chunks``, ``reps`` times, in turn (after a warm-up)."""
    seconds = {name: [] for name in ways}
    for rep in range(reps + 1):
        for name, way in ways.items():
            spent = cpu_seconds(lambda way=way: [way(c) for c in chunks])
            if rep:
                seconds[name].append(spent)
    return seconds


def line(label: str, seconds: dict[str, list[float]], boards: int) -> str:
    (a, sa), (b, sb) = ((n, [x * 1e6 / boards for x in s]) for n, s in seconds.items())
    return (
        f"{label:>10} {min(sa):9.3f} {statistics.median(sa):8.3f} {min(sb):9.3f} "
        f"{statistics.median(sb):8.3f} {min(sa) / min(sb):8.2f}x"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--positions", type=int, default=1000, help="greedy positions (their children)")
    parser.add_argument("--batch", type=int, default=2000, help="boards per call")
    parser.add_argument("--widths", type=int, nargs="+", default=[64, 128, 192, 256, 512])
    parser.add_argument("--player", default="best", help="checkpoint whose forward pass is timed")
    parser.add_argument("--reps", type=int, default=10)
    args = parser.parse_args()
    torch.set_num_threads(1)

    positions, dice = sample_positions(args.positions, "greedy", seed=0)
    boards = expand(positions, dice)[0].to(torch.int8)
    chunks = list(boards.split(args.batch))
    occupied = float((boards.reshape(-1, 50) != 0).float().mean())
    print(f"{len(boards)} boards in batches of {args.batch}, {occupied:.0%} of slots occupied, one thread")
    print("CPU microseconds per board, best and median of", args.reps, "runs")
    print(f"{'width':>10} {'all best':>9} {'median':>8} {'occ. best':>9} {'median':>8} {'speed-up':>9}")
    for width in args.widths:
        table = torch.randn(50 * first_layer.MAX_COUNT, width)
        table[first_layer.MAX_COUNT :: first_layer.MAX_COUNT] = 0  # empty slots add nothing
        ways = {"all": lambda b, t=table: first_layer.all_slots_sum(b, t)}
        ways["occupied"] = lambda b, t=table: first_layer.occupied_slots_sum(b, t)
        for c in chunks[:3]:
            torch.testing.assert_close(ways["all"](c), ways["occupied"](c))
        print(line(str(width), compare(ways, chunks, args.reps), len(boards)))

    net = load_net(checkpoint_path(args.player))
    shipped = first_layer.WIDE

    def forward(b: torch.Tensor, wide: int) -> torch.Tensor:
        first_layer.WIDE = wide
        try:
            return net(b)
        finally:
            first_layer.WIDE = shipped

    with torch.inference_mode():
        ways = {"all": lambda b: forward(b, 1 << 30), "occupied": lambda b: forward(b, shipped)}
        seconds = compare(ways, chunks, args.reps)
    hidden = net.layers[0].out_features
    print(f"forward pass of {args.player} ({hidden} hidden; 'occupied': the width rule, WIDE = {shipped}):")
    print(line(args.player, seconds, len(boards)))


if __name__ == "__main__":
    run_script(main)
