"""Self-play training speed: bgai's batched TD(lambda) loop against gnubg 0-ply self-play.

    python scripts/measure/bench_selfplay.py [--seconds 30] [--processes 2] [--parallel-games 1024]
        [--average-every 8] [--batch-positions 128]

bgai: the classic 198-80 net, training included (lambda-returns and Adam minibatch updates),
run through ``bgai.train.loop.train`` in ``--processes`` processes of one thread each
(torch.distributed, gloo), timed after a warm-up of a few thousand games (an untrained net
plays abnormally long games), by the training loop's own clock. gnubg: ``gnubg_nn.best_move``
at 0-ply for both sides in one process, the same run. Prints games per second and the ratio.
"""

from __future__ import annotations

import argparse
import os
import random
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import torch

from bgai.cli.main import run_script


def gnubg_selfplay_rate(seconds: float, seed: int = 0) -> tuple[float, float]:
    import gnubg_nn

    rng = random.Random(seed)
    start = [[0, 0, 0, 0, 0, 5, 0, 3, 0, 0, 0, 0, 5, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 2, 0]] * 2
    games = turns = 0
    t0 = time.perf_counter()
    while time.perf_counter() - t0 < seconds:
        board = [list(start[0]), list(start[1])]
        while True:
            d1, d2 = rng.randint(1, 6), rng.randint(1, 6)
            _, key = gnubg_nn.best_move(board, d1, d2, b=1)  # the key of the position, already flipped
            board = [list(r) for r in gnubg_nn.board_from_position_key(key)]
            turns += 1
            if sum(board[0]) == 0:  # the side that just moved (now row 0) bore off everything
                break
        games += 1
    elapsed = time.perf_counter() - t0
    return games / elapsed, turns / max(games, 1)


def bgai_selfplay_rate(
    seconds: float,
    processes: int,
    parallel_games: int,
    warm_games: int,
    average_every: int,
    batch_positions: int,
) -> float:
    """Games/s of a real training run, between a warm-up checkpoint and the end of a resumed run
    (the loop's own clock: process start-up excluded)."""
    launcher = [sys.executable, "-m", "bgai"]
    if processes > 1:
        launcher = [
            sys.executable,
            "-m",
            "torch.distributed.run",
            "--standalone",
            f"--nproc_per_node={processes}",
            "-m",
            "bgai",
        ]
    env = {**os.environ, "BGAI_BACKEND": "gloo", "OMP_NUM_THREADS": "1"}
    with tempfile.TemporaryDirectory() as tmp:
        subprocess.run(
            [
                *launcher,
                "train",
                f"games={warm_games}",
                f"parallel_games={parallel_games}",
                "hidden=[80]",
                "encoding=tesauro198",
                "eval_every=0",
                "threads=1",
                f"runs_dir={tmp}",
                "lr=0.003",
                "lr_final=0.003",
                f"checkpoint_every={warm_games}",
                f"average_every={average_every}",
                f"batch_positions={batch_positions}",
            ],
            check=True,
            capture_output=True,
            env=env,
        )
        run = next(Path(tmp).iterdir())
        warm = torch.load(run / "latest.pt", weights_only=True)["progress"]
        target = warm["games"] + int(200 * seconds * processes)
        subprocess.run(
            [*launcher, "train", "--resume", str(run), f"games={target}"],
            check=True,
            capture_output=True,
            env=env,
        )
        done = torch.load(run / "latest.pt", weights_only=True)["progress"]
        return (done["games"] - warm["games"]) / (done["wall_seconds"] - warm["wall_seconds"])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=30.0, help="rough duration of each measurement")
    parser.add_argument("--processes", type=int, default=2)
    parser.add_argument(
        "--parallel-games",
        type=int,
        default=1024,
        help="games at once per process (default 1024, as configs/classic.toml)",
    )
    parser.add_argument("--warm-games", type=int, default=3000)
    parser.add_argument(
        "--average-every",
        type=int,
        default=8,
        help="turns between weight averages across processes (0: all-reduce every step)",
    )
    parser.add_argument("--batch-positions", type=int, default=128, help="positions per step per process")
    args = parser.parse_args()

    gnubg_rate, gnubg_len = gnubg_selfplay_rate(args.seconds)
    print(f"gnubg 0-ply self-play:  {gnubg_rate:8.1f} games/s  ({gnubg_len:.1f} turns/game, 1 process)")
    rate = bgai_selfplay_rate(
        args.seconds,
        args.processes,
        args.parallel_games,
        args.warm_games,
        args.average_every,
        args.batch_positions,
    )
    print(
        f"bgai TD self-play 198-80: {rate:8.1f} games/s  ({args.processes} x 1 thread, "
        f"{args.parallel_games} games each, updates included, "
        f"average_every={args.average_every}, batch_positions={args.batch_positions})"
    )
    print(f"ratio bgai / gnubg: {rate / gnubg_rate:.2f}")


if __name__ == "__main__":
    run_script(main)
