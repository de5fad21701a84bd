"""Time per move decision at 0, 1 and 2-ply: bgai's batched search against gnubg_nn.best_move.

    python scripts/bench_search.py [--n0 2000 --n1 200 --n2 16] [--single 20] [--threads 1] [--json]

bgai: a 198-80 ValueNet (``checkpoints/best.pt`` if it exists, else a fresh net of that
shape) under :func:`bgai.search.choose_moves` with gnubg's default ("normal") move filter,
timed two ways: batched as a bot plays (all positions in one call) and one position per call
(latency). gnubg: ``gnubg_nn.best_move(board, d1, d2, n=plies)`` one position at a time.
Both see the same positions, drawn from greedy self-play (``sample_positions``) after the
opening turns and de-duplicated, so gnubg's evaluation cache does not flatter it.
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path

import torch

from bgai.engine.sampling import sample_positions
from bgai.model.checkpoint import load_net
from bgai.model.net import ValueNet
from bgai.search import NetEvaluator, choose_moves

ROOT = Path(__file__).resolve().parents[1]


def fresh_positions(n: int, seed: int) -> tuple[torch.Tensor, torch.Tensor]:
    """``n`` distinct (board, dice) pairs from greedy games, skipping the first 10 turns."""
    games = 256
    boards, dice = sample_positions(n * 2 + 10 * games, "greedy", seed=seed, games=games)
    boards, dice = boards[10 * games :], dice[10 * games :]
    seen, keep = set(), []
    for i, b in enumerate(boards.numpy()):
        key = b.tobytes()
        if key not in seen:
            seen.add(key)
            keep.append(i)
    keep = torch.tensor(keep[:n])
    return boards[keep], dice[keep]


def time_bgai_batched(evaluator, boards, dice, plies) -> float:
    start = time.perf_counter()
    choose_moves(evaluator, boards, dice, plies)
    return (time.perf_counter() - start) / len(boards)


def time_bgai_single(evaluator, boards, dice, plies) -> float:
    start = time.perf_counter()
    for i in range(len(boards)):
        choose_moves(evaluator, boards[i : i + 1], dice[i : i + 1], plies)
    return (time.perf_counter() - start) / len(boards)


def time_gnubg(boards, dice, plies) -> float:
    import gnubg_nn

    rows, rolls = boards.tolist(), dice.tolist()
    start = time.perf_counter()
    for board, (d1, d2) in zip(rows, rolls, strict=True):
        gnubg_nn.best_move(board, d1, d2, n=plies)
    return (time.perf_counter() - start) / len(rows)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n0", type=int, default=2000, help="positions timed at 0-ply")
    parser.add_argument("--n1", type=int, default=200, help="positions timed at 1-ply")
    parser.add_argument("--n2", type=int, default=16, help="positions timed at 2-ply")
    parser.add_argument("--single", type=int, default=20, help="positions for single-position latency")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--threads", type=int, help="torch threads (default: torch's choice)")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    if args.threads:
        torch.set_num_threads(args.threads)

    best = ROOT / "checkpoints" / "best.pt"
    net = load_net(best) if best.is_file() else ValueNet("tesauro198", (80,))
    evaluator = NetEvaluator(net)
    counts = {0: args.n0, 1: args.n1, 2: args.n2}
    boards, dice = fresh_positions(max(counts.values()) * 2 + args.single, args.seed)
    choose_moves(evaluator, boards[:8], dice[:8], 1)  # warm-up: allocator, lookup tables

    rows = []
    for plies, n in counts.items():
        # Separate slices for each timing, so no position is seen twice by gnubg's cache.
        b, d = boards[:n], dice[:n]
        sb, sd = boards[n : n + min(args.single, n)], dice[n : n + min(args.single, n)]
        gb, gd = boards[n + len(sb) : 2 * n + len(sb)], dice[n + len(sb) : 2 * n + len(sb)]
        batched = time_bgai_batched(evaluator, b, d, plies)
        single = time_bgai_single(evaluator, sb, sd, plies)
        gnubg = time_gnubg(gb, gd, plies)
        rows.append(
            {
                "plies": plies,
                "positions": n,
                "bgai_batched_ms": 1e3 * batched,
                "bgai_single_ms": 1e3 * single,
                "gnubg_ms": 1e3 * gnubg,
                "batched_vs_gnubg": batched / gnubg,
                "single_vs_gnubg": single / gnubg,
            }
        )

    if args.json:
        print(
            json.dumps(
                {
                    "net": str(best) if best.is_file() else "fresh 198-80",
                    "threads": torch.get_num_threads(),
                    "rows": rows,
                },
                indent=2,
            )
        )
        return
    name = best if best.is_file() else "fresh ValueNet 198-80"
    print(f"net: {name}; torch threads {torch.get_num_threads()}")
    print(
        f"{'ply':>3} {'positions':>9} {'bgai batched':>13} {'bgai single':>12} {'gnubg':>10} "
        f"{'batched/gnubg':>14} {'single/gnubg':>13}"
    )
    for r in rows:
        print(
            f"{r['plies']:>3} {r['positions']:>9} {r['bgai_batched_ms']:>10.3f} ms "
            f"{r['bgai_single_ms']:>9.3f} ms {r['gnubg_ms']:>7.3f} ms "
            f"{r['batched_vs_gnubg']:>13.2f}x {r['single_vs_gnubg']:>12.2f}x"
        )


if __name__ == "__main__":
    main()
