"""Time per move decision at 0, 1 and 2-ply: bgai's batched search against gnubg_nn.best_move.

    python scripts/measure/bench_search.py [--n0 2000 --n1 200 --n2 16] [--single 20] [--threads 1]
                                   [--player best --player best:noprune] [--json]

bgai: each ``--player``'s evaluator (a player spec, default ``best``: ``checkpoints/best.pt``
behind the exact bear-off databases, with its pruning net ``best_pruner.pt`` when that exists;
``best:noprune`` without it; a fresh 198-80 net if no ``best.pt`` is shipped) under
:func:`bgai.search.choose_moves` with gnubg's default ("normal") move filter, timed two ways:
batched as a bot plays (all positions in one call) and one position per call (latency). The
evaluator timed is printed. gnubg: ``gnubg_nn.best_move(board, d1, d2, n=plies)`` one position
at a time (gnubg_nn's own settings). All see the same positions, drawn from greedy self-play
(``sample_positions``) after the opening turns and de-duplicated; gnubg sees positions bgai
is not timed on, so its evaluation cache does not flatter it.
"""

from __future__ import annotations

import argparse
import json
import time

import torch

from bgai.bots import evaluator_of
from bgai.cli.main import run_script
from bgai.engine.sampling import sample_positions
from bgai.model.net import ValueNet
from bgai.search import NetEvaluator, choose_moves
from bgai.specs import load_player


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


def player_evaluator(spec: str):
    """(label, evaluator) of a player spec; ``best`` falls back to a fresh 198-80 net if not shipped."""
    try:
        evaluator = evaluator_of(load_player(spec), "bench_search")[0]
    except ValueError:
        if not spec.startswith("best"):
            raise
        return f"{spec} (no best.pt: fresh ValueNet 198-80)", NetEvaluator(ValueNet("tesauro198", (80,)))
    return spec, evaluator


def describe(evaluator) -> str:
    """What an evaluator is made of, e.g. ``pruned(bearoff(net best), pruner=bearoff(net best_pruner))``."""
    pruner = getattr(evaluator, "pruner", None)
    if pruner is not None:
        return f"pruned({describe(evaluator.evaluator)}, pruner={describe(pruner)})"
    if hasattr(evaluator, "fallback"):
        return f"bearoff-db({describe(evaluator.fallback)})"
    if hasattr(evaluator, "net"):
        net = evaluator.net
        spec = net.spec() if hasattr(net, "spec") else {}
        shape = "-".join(str(h) for h in spec.get("hidden", []))
        return f"net {evaluator.name} [{spec.get('encoding', '?')} {shape}]"
    return type(evaluator).__name__


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
    parser.add_argument(
        "--player", action="append", help="bgai player spec to time (repeatable; default best)"
    )
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    if args.threads:
        torch.set_num_threads(args.threads)

    players = [player_evaluator(spec) for spec in args.player or ["best"]]
    counts = {0: args.n0, 1: args.n1, 2: args.n2}
    boards, dice = fresh_positions(max(counts.values()) * 2 + args.single, args.seed)
    for _, evaluator in players:
        choose_moves(evaluator, boards[:8], dice[:8], 1)  # warm-up: allocator, lookup tables

    rows = []
    for plies, n in counts.items():
        # Separate slices for bgai and gnubg, so no position is seen twice by gnubg's cache.
        b, d = boards[:n], dice[:n]
        sb, sd = boards[n : n + min(args.single, n)], dice[n : n + min(args.single, n)]
        gb, gd = boards[n + len(sb) : 2 * n + len(sb)], dice[n + len(sb) : 2 * n + len(sb)]
        gnubg = time_gnubg(gb, gd, plies)
        for label, evaluator in players:
            batched = time_bgai_batched(evaluator, b, d, plies)
            single = time_bgai_single(evaluator, sb, sd, plies)
            rows.append(
                {
                    "player": label,
                    "plies": plies,
                    "positions": n,
                    "bgai_batched_ms": 1e3 * batched,
                    "bgai_single_ms": 1e3 * single,
                    "gnubg_ms": 1e3 * gnubg,
                    "batched_vs_gnubg": batched / gnubg,
                    "single_vs_gnubg": single / gnubg,
                }
            )

    described = {label: describe(evaluator) for label, evaluator in players}
    if args.json:
        print(json.dumps({"players": described, "threads": torch.get_num_threads(), "rows": rows}, indent=2))
        return
    for label, text in described.items():
        print(f"{label}: {text}")
    print(f"torch threads {torch.get_num_threads()}")
    width = max(len(label) for label in described)
    print(
        f"{'player':<{width}} {'ply':>3} {'positions':>9} {'bgai batched':>13} {'bgai single':>12} "
        f"{'gnubg':>10} {'batched/gnubg':>14} {'single/gnubg':>13}"
    )
    for r in rows:
        print(
            f"{r['player']:<{width}} {r['plies']:>3} {r['positions']:>9} {r['bgai_batched_ms']:>10.3f} ms "
            f"{r['bgai_single_ms']:>9.3f} ms {r['gnubg_ms']:>7.3f} ms "
            f"{r['batched_vs_gnubg']:>13.2f}x {r['single_vs_gnubg']:>12.2f}x"
        )


if __name__ == "__main__":
    run_script(main)
