"""Export every level of the strength ladder from one checkpoint, grade each, print the table.

    python scripts/build/build_ladder.py                      # checkpoints/best.pt -> checkpoints/opponents/
    python scripts/build/build_ladder.py --checkpoint runs/x/latest.pt --out /tmp/ladder \
        --games 20 --decisions 50

Each level goes to ``<out>/<level>/`` (``bgai.json`` + ``model.safetensors``, named
``bgai-<level>-v<version>``) with its grade stored in ``bgai.json`` (``bgai grade --write``).
Levels of 2 plies or more play ``--deep-games`` games (their games cost about 30 times as much
as 0-ply games on a CPU).

Then the ladder is checked for monotony with a paired comparison
(:func:`bgai.opponent.grade.paired_grade`): ``--paired`` positions, drawn evenly from the
decisions judged for every level, are played by every level and each choice is judged; each
level's mean difference in equity lost from the level below, with its 95 % interval, goes into
its ``bgai.json`` (``strength.paired``). The ladder is monotone when every interval lies above
zero. The judge remembers positions it has judged, so the paired pass costs mostly the deep
levels' own searches.

The markdown tables (for docs/ladder.md) are printed on stdout and written to ``<out>/ladder.md``
with the command that made them; progress goes to stderr.
"""

from __future__ import annotations

import argparse
import math
import shlex
import sys
import time
from pathlib import Path

import torch

from bgai.cli.main import run_script
from bgai.opponent import LEVELS, Opponent, default_name, export_opponent, get_level
from bgai.opponent.export import write_config
from bgai.opponent.grade import (
    GradeResult,
    PairedGrade,
    common_positions,
    grade,
    paired_grade,
    write_strength,
)
from bgai.opponent.opponent import read_config
from bgai.specs import load_judge


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
        "--decisions", type=int, default=1000, help="unforced decisions judged per level (default 1000)"
    )
    parser.add_argument(
        "--paired",
        type=int,
        default=2000,
        help="positions every level plays for the paired comparison (default 2000; 0 skips it)",
    )
    parser.add_argument("--seed", type=int, default=0, help="dice and sampling seed (default 0)")
    parser.add_argument("--judge", help="judge spec (default gnubg@2ply if installed, else best@2ply)")
    parser.add_argument(
        "--version", type=int, default=1, help="version in the names, bgai-<level>-v<N> (default 1)"
    )
    parser.add_argument("--threads", type=int, default=1, help="torch CPU threads (default 1)")
    args = parser.parse_args(argv)
    given = sys.argv[1:] if argv is None else argv
    command = shlex.join(["python", "scripts/build/build_ladder.py", *given])

    torch.set_num_threads(args.threads)
    out = Path(args.out)
    levels = sorted({get_level(name).name for name in args.levels}, key=list(LEVELS).index)
    judge = load_judge(args.judge) if args.judge else None
    rows, folders, players = [], [], []
    began = time.perf_counter()
    for level in (LEVELS[name] for name in levels):
        name = default_name(level.name, args.version)
        folder = export_opponent(args.checkpoint, level.name, out / level.name, name)
        opponent = Opponent.load(folder)
        if judge is None:
            judge = load_judge(None, opponent.evaluator)
        games = args.deep_games if args.deep_games and level.plies >= 2 else args.games
        print(
            f"{name}: grading ({games} games per reference bot, {args.decisions} decisions)...",
            file=sys.stderr,
            flush=True,
        )
        result = grade(opponent.player, games=games, seed=args.seed, judge=judge, decisions=args.decisions)
        write_strength(folder, result)
        print(result.table(), file=sys.stderr, flush=True)
        rows.append((level, result))
        folders.append(folder)
        players.append(opponent.player)
    paired = None
    if args.paired > 0 and len(rows) >= 2:
        positions = common_positions([r.judged for _, r in rows], args.paired, args.seed)
        print(f"paired comparison on {len(positions)} common positions...", file=sys.stderr, flush=True)
        paired = paired_grade(players, positions, judge, seed=args.seed, progress=True)
        print(paired.table(), file=sys.stderr, flush=True)
        for k, folder in enumerate(folders):
            write_paired(folder, paired, k, [level.name for level, _ in rows])
    text = markdown(rows, paired, args, command, time.perf_counter() - began)
    out.mkdir(parents=True, exist_ok=True)
    (out / "ladder.md").write_text(text + "\n")
    print(text)
    return 0


def write_paired(folder: Path, paired: PairedGrade, k: int, levels: list[str]) -> None:
    """Store level ``k``'s part of the paired comparison as ``strength.paired`` in its ``bgai.json``."""

    def step(i: int, other: str) -> dict | None:
        if not 0 <= i < len(paired.steps):
            return None
        s = paired.steps[i]
        return {
            "level": other,
            "difference": round(s.difference, 3),
            "ci95": round(s.ci95, 3),
            "moves_differ": round(s.differ, 4),
            "separated": s.separated,
        }

    info = read_config(folder)
    info["strength"]["paired"] = {
        "about": "every level of the ladder judged on the same positions; difference = the weaker "
        "level's error rate minus the stronger's (x 1000), mean of the per-position differences, "
        "with its 95 % interval; separated: the interval lies above zero",
        "judge": paired.judge,
        "positions": paired.positions,
        "seed": paired.seed,
        "error_rate": round(paired.error_rates[k], 3),
        "error_rate_ci95": round(paired.error_rate_ci95[k], 3),
        "below": step(k - 1, levels[k - 1]) if k > 0 else None,
        "above": step(k, levels[k + 1]) if k + 1 < len(levels) else None,
        "ladder_monotone": paired.monotone,
    }
    write_config(folder, info)


def markdown(
    rows: list[tuple], paired: PairedGrade | None, args: argparse.Namespace, command: str, seconds: float
) -> str:
    """The ladder as markdown tables, with what they were measured with underneath."""
    lines = [
        "| level | ply | noise | error rate | PR | class | ppg vs pubeval | ppg vs gnubg 0-ply "
        "| games | decisions |",
        "|---|---|---|---|---|---|---|---|---|---|",
    ]
    judge = ""
    for level, result in rows:
        judge = result.judge
        lines.append(
            f"| {level.name} | {level.plies} | {level.noise:.3f} | {result.error_rate:.1f} ± "
            f"{result.error_rate_ci95:.1f} | {result.pr:.1f} | {result.rating} | "
            f"{_ppg(result, 'pubeval')} | {_ppg(result, 'gnubg@0ply')} | {result.games} | "
            f"{result.decisions} |"
        )
    lines += [
        "",
        f"Error rate: mean equity lost per unforced decision x 1000 (PR = x 500), judged by {judge} on "
        f"a seeded sample of each level's own decisions in its games; class on gnubg's rating scale. "
        f"ppg: cubeless money games against each reference bot, duplicate dice. All ± are 95 % "
        f"intervals. Seed {args.seed}; network {Path(args.checkpoint).name}.",
    ]
    if paired is not None:
        lines += [
            "",
            f"**Paired comparison** (every level plays the same {paired.positions} positions, drawn "
            f"evenly from the levels' judged decisions; each choice judged by {paired.judge}):",
            "",
            "| level | error rate, same positions | vs the level below | moves differ "
            "| measurably stronger |",
            "|---|---|---|---|---|",
        ]
        for k, (level, _) in enumerate(rows):
            rate = f"{paired.error_rates[k]:.2f} ± {paired.error_rate_ci95[k]:.2f}"
            if k == 0:
                lines.append(f"| {level.name} | {rate} | — | — | — |")
                continue
            s = paired.steps[k - 1]
            lines.append(
                f"| {level.name} | {rate} | {-s.difference:+.2f} ± {s.ci95:.2f} | {100 * s.differ:.0f} % "
                f"| {'yes' if s.separated else 'no'} |"
            )
        verdict = "monotone" if paired.monotone else "NOT monotone"
        lines += [
            "",
            "vs the level below: this level's error rate minus the one below's on the same positions "
            "(mean of the per-position differences, x 1000, 95 % interval); measurably stronger when "
            f"the whole interval is below zero. The ladder is **{verdict}**.",
        ]
    lines += ["", f"Command: `{command}` ({seconds / 60:.1f} min, one CPU thread)."]
    return "\n".join(lines)


def _ppg(result: GradeResult, opponent: str) -> str:
    for match in result.matches:
        if match.opponent == opponent:
            ci = f"{match.ci95:.3f}" if math.isfinite(match.ci95) else "n/a"
            return f"{match.ppg:+.3f} ± {ci}"
    return "n/a"


if __name__ == "__main__":
    run_script(main)
