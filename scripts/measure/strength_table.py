"""The strength table of docs/strength.md: a player at 0, 1 and 2-ply against pubeval and gnubg 0-ply.

    python scripts/measure/strength_table.py [--player best] [--games 10000,2000,400] [--seed 1]

Cubeless money games, duplicate dice, 95 % intervals over the pairs. ``--games`` gives the
games per duel at 0, 1 and 2-ply (deeper search is slower, so fewer games). Prints a markdown
table and writes the rows as JSON next to it (``--json``).
"""

from __future__ import annotations

import argparse
import json

import torch

from bgai.bench.duel import duel
from bgai.cli.main import run_script
from bgai.specs import load_player


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--player", default="best")
    parser.add_argument("--games", default="10000,2000,400", help="games at 0,1,2-ply")
    parser.add_argument("--plies", default="0,1,2")
    parser.add_argument("--opponents", default="pubeval,gnubg")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--json", help="also write the rows to this file")
    args = parser.parse_args()
    torch.set_num_threads(args.threads)

    games = dict(
        zip((int(p) for p in args.plies.split(",")), (int(g) for g in args.games.split(",")), strict=True)
    )
    rows = []
    print("| player | opponent | ppg | 95% CI | win % | games | seed | games/s |")
    print("|---|---|---|---|---|---|---|---|")
    for ply, n in games.items():
        me = load_player(f"{args.player}@{ply}ply")
        for name in args.opponents.split(","):
            result = duel(me, load_player(name), games=n, seed=args.seed)
            row = {
                "player": f"{args.player}@{ply}ply",
                "opponent": name,
                "ppg": result.ppg,
                "ci95": result.ci95,
                "win": result.a_win,
                "games": result.games,
                "seed": args.seed,
                "games_per_sec": result.games_per_sec,
            }
            rows.append(row)
            print(
                f"| {row['player']} | {name} | {result.ppg:+.3f} | ±{result.ci95:.3f} | "
                f"{100 * result.a_win:.1f} | {result.games} | {args.seed} | {result.games_per_sec:.1f} |",
                flush=True,
            )
    if args.json:
        with open(args.json, "w") as f:
            json.dump(rows, f, indent=1)


if __name__ == "__main__":
    run_script(main)
