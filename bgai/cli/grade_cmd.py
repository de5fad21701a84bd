"""``bgai grade OPPONENT [--games N] [--seed S] [--judge SPEC] [--decisions N] [--write] [--json]``.

Plays duplicate-dice games against pubeval and (if installed) gnubg's 0-ply, then judges a
seeded sample of the player's unforced moves: error rate (mean equity lost x 1000), PR (x 500)
and gnubg's rating class. ``--write`` stores the grade in an exported opponent's ``bgai.json``;
it refuses a grade judged on fewer than 200 decisions or by the graded net itself. When the
judge is not gnubg, a line on stderr says who judged.
"""

from __future__ import annotations

import argparse
import json
import sys


def register(subparsers: argparse._SubParsersAction) -> None:
    from bgai.specs import SPEC_HELP

    parser = subparsers.add_parser(
        "grade",
        help="measure a player's strength: error rate, PR, rating class and results vs reference bots",
        description="Grade an exported opponent (a folder from bgai export) or any player "
        f"({SPEC_HELP}): games against pubeval and gnubg 0-ply (if installed) with duplicate dice, "
        "and the error rate of its unforced moves judged by gnubg 2-ply (default) or --judge.",
    )
    parser.add_argument("opponent", help="an exported opponent's folder or a player spec")
    parser.add_argument(
        "--games", type=int, default=200, help="games against each reference bot (default 200)"
    )
    parser.add_argument("--seed", type=int, default=0, help="dice and sampling seed (default 0)")
    parser.add_argument(
        "--judge",
        help="who judges the moves: gnubg[@<n>ply] or a player spec that searches (default: gnubg@2ply "
        "if installed, else best@2ply, else the graded net at 2-ply)",
    )
    parser.add_argument("--decisions", type=int, default=300, help="unforced decisions judged (default 300)")
    parser.add_argument("--write", action="store_true", help="store the grade in the opponent's bgai.json")
    parser.add_argument("--threads", type=int, help="torch CPU threads (default: torch's choice)")
    parser.add_argument("--json", action="store_true", help="print the grade as one JSON object")
    parser.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    from pathlib import Path

    import torch

    from bgai.opponent.grade import (
        MIN_DECISIONS_TO_WRITE,
        check_writable,
        default_judge,
        grade,
        judge_note,
        write_strength,
    )
    from bgai.specs import load_judge, load_player

    if args.threads:
        torch.set_num_threads(args.threads)
    folder = Path(args.opponent)
    if args.write and not folder.is_dir():
        raise ValueError(
            f"--write needs an exported opponent's folder (with bgai.json), not {args.opponent!r}"
        )
    if args.write and args.decisions < MIN_DECISIONS_TO_WRITE:
        raise ValueError(
            f"--write stores a grade judged on at least {MIN_DECISIONS_TO_WRITE} decisions, "
            f"not {args.decisions} (raise --decisions)"
        )
    player = load_player(args.opponent)  # an export's folder too: Opponent.load says what is wrong
    own = getattr(player, "evaluator", None)
    judge = load_judge(args.judge, own) if args.judge else default_judge(own)
    if args.write and getattr(judge, "judges_itself", False):
        raise ValueError(f"not writing a grade judged by its own network ({judge.name}): give --judge")
    note = judge_note(judge)
    if note:
        print(f"bgai grade: {note}", file=sys.stderr)
    result = grade(
        player,
        games=args.games,
        seed=args.seed,
        judge=judge,
        decisions=args.decisions,
        progress=sys.stderr.isatty() and not args.json,
    )
    if args.write:
        check_writable(result, judge)
        write_strength(folder, result)
    print(json.dumps(result.to_dict()) if args.json else result.table())
    if args.write and not args.json:
        print(f"wrote the grade into {folder / 'bgai.json'}")
    return 0
