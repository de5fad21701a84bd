"""Export every level of the strength ladder from one checkpoint, grade each, print the table.

    python scripts/build_ladder.py                      # checkpoints/best.pt -> checkpoints/opponents/
    python scripts/build_ladder.py --checkpoint runs/x/latest.pt --out /tmp/ladder --games 20 --decisions 50

Each level goes to ``<out>/<level>/`` (``bgai.json`` + ``model.safetensors``, named
``bgai-<level>-v<version>``) with its grade stored in ``bgai.json`` (``bgai grade --write``).
The markdown table (for the README) is printed on stdout and written to ``<out>/ladder.md``;
progress goes to stderr. Levels of 2 plies or more play ``--deep-games`` games (their games
cost about 30 times as much as 0-ply games on a CPU).
"""

from __future__ import annotations

import argparse
import math
import sys
import time
from pathlib import Path

import torch

from bgai.opponent import LEVELS, Opponent, default_name, export_opponent, get_level
from bgai.opponent.grade import GradeResult, grade, load_judge, write_strength


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--checkpoint", default="checkpoints/best.pt", help="the network (default checkpoints/best.pt)"
    )
    parser.add_argument(
        "--out", default="checkpoints/opponents", help="ladder folder (default checkpoints/opponents)"
    )
    parser.add_argument("--levels", nargs="+", default=list(LEVELS), help="levels to build (default all)")
    parser.add_argument(
        "--games", type=int, default=200, help="games against each reference bot (default 200)"
    )
    parser.add_argument("--deep-games", type=int, help="games for levels of 2+ plies (default --games)")
    parser.add_argument(
        "--decisions", type=int, default=300, help="unforced decisions judged per level (default 300)"
    )
    parser.add_argument("--seed", type=int, default=0, help="dice and sampling seed (default 0)")
    parser.add_argument("--judge", help="judge spec (default gnubg@2ply if installed, else best@2ply)")
    parser.add_argument(
        "--version", type=int, default=1, help="version in the names, bgai-<level>-v<N> (default 1)"
    )
    parser.add_argument("--threads", type=int, default=1, help="torch CPU threads (default 1)")
    args = parser.parse_args(argv)

    torch.set_num_threads(args.threads)
    out = Path(args.out)
    levels = [get_level(name) for name in args.levels]
    judge = load_judge(args.judge) if args.judge else None
    rows = []
    began = time.perf_counter()
    for level in levels:
        name = default_name(level.name, args.version)
        folder = export_opponent(args.checkpoint, level.name, out / level.name, name)
        opponent = Opponent.load(folder)
        if judge is None:
            judge = load_judge(None, opponent.evaluator)
        games = args.deep_games if args.deep_games and level.plies >= 2 else args.games
        print(
            f"{name}: grading ({games} games per reference bot, {args.decisions} decisions)...",
            file=sys.stderr,
        )
        result = grade(opponent.player, games=games, seed=args.seed, judge=judge, decisions=args.decisions)
        write_strength(folder, result)
        print(result.table(), file=sys.stderr)
        rows.append((level, result))
    table = markdown(rows, args, time.perf_counter() - began)
    out.mkdir(parents=True, exist_ok=True)
    (out / "ladder.md").write_text(table + "\n")
    print(table)
    return 0


def markdown(rows: list[tuple], args: argparse.Namespace, seconds: float) -> str:
    """The ladder as a markdown table, with what it was measured with underneath."""
    head = (
        "| level | ply | noise | error rate | PR | class | ppg vs pubeval | ppg vs gnubg 0-ply "
        "| games | seed |\n"
        "|---|---|---|---|---|---|---|---|---|---|"
    )
    lines = [head]
    judge, decisions = "", 0
    for level, result in rows:
        judge, decisions = result.judge, result.decisions
        lines.append(
            f"| {level.name} | {level.plies} | {level.noise:.3f} | {result.error_rate:.1f} ± "
            f"{result.error_rate_ci95:.1f} | {result.pr:.1f} | {result.rating} | "
            f"{_ppg(result, 'pubeval')} | {_ppg(result, 'gnubg@0ply')} | {result.games} | {result.seed} |"
        )
    lines.append("")
    lines.append(
        f"Error rate: mean equity lost per unforced decision x 1000 (PR = x 500), judged by {judge} on "
        f"{decisions} decisions sampled from each level's games; class on gnubg's rating scale. "
        f"ppg: cubeless money games, duplicate dice, 95 % intervals. Network: {Path(args.checkpoint).name}; "
        f"built in {seconds / 60:.1f} min."
    )
    return "\n".join(lines)


def _ppg(result: GradeResult, opponent: str) -> str:
    for match in result.matches:
        if match.opponent == opponent:
            ci = f"{match.ci95:.3f}" if math.isfinite(match.ci95) else "n/a"
            return f"{match.ppg:+.3f} ± {ci}"
    return "n/a"


if __name__ == "__main__":
    raise SystemExit(main())
