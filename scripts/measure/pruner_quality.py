"""Does the pruning net cost strength? ``best`` vs ``best:noprune`` judged by gnubg, paired.

    python scripts/measure/pruner_quality.py [--player best] [--positions 400] [--plies 1,2] [--seed 3]
        [--threads 1] [--json]

Decisions: ``--positions`` (position, roll) pairs with two or more legal moves, drawn (seeded)
from ``best``'s own 0-ply self-play (greedy with equity noise 0.03, 64 games at once). At each
``--plies``, ``P@<n>ply`` (``--player P`` with its pruner, ``X_pruner.pt`` beside a checkpoint
``X.pt``) and ``P:noprune@<n>ply`` choose a move for
every pair, and gnubg at 2-ply (:class:`bgai.opponent.grade.GnubgJudge`: its best move by
``best_move(..., n=2)`` with the "normal" filter, both afterstates valued by
``probabilities(..., 2)``) says how much cubeless equity each choice gave away. Reported: each
player's error rate (mean equity lost x 1000, gnubg's "per move" millipoints) with a 95 %
interval, the paired difference pruned - unpruned per decision with a 95 % interval (normal
approximation over the pairs), how often the two chose the same move, and each player's time
per decision (batched, one core).
"""

from __future__ import annotations

import argparse
import json
import time

import numpy as np
import torch

from bgai.bots import evaluator_of
from bgai.cli.main import run_script
from bgai.opponent.grade import Decisions, GnubgJudge, unforced
from bgai.specs import load_player
from bgai.stats import mean_ci95 as mean_ci
from bgai.train.distill import selfplay_positions


def decisions(n: int, seed: int) -> tuple[torch.Tensor, torch.Tensor]:
    teacher = evaluator_of(load_player("best:noprune"))[0]
    boards, dice = selfplay_positions(teacher, 6 * n, seed=seed, games=64, noise=0.03)
    real = unforced(Decisions(boards, dice, boards)).nonzero().squeeze(1)
    pick = np.sort(np.random.default_rng(seed).choice(len(real), size=min(n, len(real)), replace=False))
    index = real[torch.as_tensor(pick)]
    return boards[index], dice[index]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--player", default="best", help="a net with a pruner (default best)")
    parser.add_argument("--positions", type=int, default=400)
    parser.add_argument("--plies", default="1,2", help="comma-separated plies to compare")
    parser.add_argument("--seed", type=int, default=3)
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    torch.set_num_threads(args.threads)

    boards, dice = decisions(args.positions, args.seed)
    judge = GnubgJudge(2)
    rows = []
    for plies in (int(p) for p in args.plies.split(",")):
        lost, seconds, chosen = {}, {}, {}
        pruned, plain = (f"{args.player}@{plies}ply", f"{args.player}:noprune@{plies}ply")
        for spec in (pruned, plain):
            player = load_player(spec)
            player.choose(boards[:2], dice[:2])  # warm-up
            start = time.perf_counter()
            chosen[spec] = player.choose(boards, dice)
            seconds[spec] = (time.perf_counter() - start) / len(boards)
            lost[spec] = judge.equity_lost(Decisions(boards, dice, chosen[spec]))
        same = (chosen[pruned] == chosen[plain]).flatten(1).all(1)
        diff = lost[pruned] - lost[plain]
        row = {"plies": plies, "positions": len(boards), "same_move": float(same.float().mean())}
        for spec in (pruned, plain):
            m, h = mean_ci(1000 * lost[spec])
            row[spec] = {"error_rate": m, "ci95": h, "ms_per_decision": 1e3 * seconds[spec]}
        row["difference"], row["difference_ci95"] = mean_ci(1000 * diff)
        rows.append(row)

    if args.json:
        print(json.dumps({"judge": judge.name, "seed": args.seed, "rows": rows}, indent=2))
        return
    print(f"judge {judge.name}; {len(boards)} unforced decisions from best's self-play (seed {args.seed})")
    for row in rows:
        p = row["plies"]
        for spec in (f"{args.player}@{p}ply", f"{args.player}:noprune@{p}ply"):
            r = row[spec]
            print(
                f"{spec:<20} error rate {r['error_rate']:6.2f} ± {r['ci95']:.2f} (x1000 per decision)"
                f"   {r['ms_per_decision']:7.1f} ms per decision"
            )
        print(
            f"{'pruned - unpruned':<20} {row['difference']:+6.2f} ± {row['difference_ci95']:.2f} (paired); "
            f"same move in {100 * row['same_move']:.1f} % of decisions"
        )


if __name__ == "__main__":
    run_script(main)
