"""``bgai analyse FILE.mat ... [--player SPEC] [--plies N] [--json] [--html OUT.html]``.

Judges every decision of Jellyfish ``.mat`` files (matches and money sessions, cube actions
included; a game in progress saved by ``bgai play`` too): checker play, cube decisions,
the luck of each roll, and per player the error rate, PR, luck rate and gnubg's rating
class. One file: the table and the worst decisions; several: a summary line each.
"""

from __future__ import annotations

import argparse
import json
import sys


def register(subparsers) -> None:
    from bgai.specs import SPEC_HELP

    parser = subparsers.add_parser(
        "analyse",
        help="analyse .mat matches: errors, cube, luck and rating per player, as gnubg's analysis",
        description="Replay .mat files and judge every decision: checker play (equity lost against "
        "the best move, marked doubtful/bad/very bad as gnubg marks them), cube decisions (missed "
        "and wrong doubles, wrong takes and passes, cubeful, match winning chances at the score) "
        "and the luck of every roll; per player the error rate (equity lost per unforced decision "
        "x 1000), PR (x 500), luck rate and gnubg's rating class.",
    )
    parser.add_argument(
        "files", nargs="+", metavar="FILE.mat", help="Jellyfish .mat files (matches or money sessions)"
    )
    parser.add_argument(
        "--player",
        default="best",
        help=f"who judges (default best, with its pruning net): {SPEC_HELP}; not random or pubeval",
    )
    parser.add_argument(
        "--plies",
        type=int,
        help="lookahead of checker play and cube, 0-2 in gnubg's numbering (default: the player's "
        "@<n>ply, else 2); luck is always judged at 0-ply, as gnubg does",
    )
    parser.add_argument(
        "--jacoby",
        action=argparse.BooleanOptionalAction,
        help="money sessions: the Jacoby rule (default: what the file says, else on, as gnubg)",
    )
    parser.add_argument(
        "--cubeless",
        action="store_true",
        help="the cube was not in play: no cube decisions, cubeless equities (default: what the file says)",
    )
    parser.add_argument("--worst", type=int, default=10, help="worst decisions listed per file (default 10)")
    parser.add_argument(
        "--json", action="store_true", help="print the analyses as JSON (a list for several files)"
    )
    parser.add_argument("--html", metavar="OUT.html", help="also write a self-contained HTML report")
    parser.add_argument("--threads", type=int, help="torch CPU threads (default: torch's choice)")
    parser.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    from dataclasses import replace
    from pathlib import Path

    from bgai.analyse import analyse_match, analysis_judge, read_match
    from bgai.analyse.replay import cube_rules_of
    from bgai.analyse.report import summary, table
    from bgai.cli.main import output_file

    if args.threads is not None:
        if args.threads < 1:
            raise ValueError(f"--threads must be at least 1, got {args.threads}")
        import torch

        torch.set_num_threads(args.threads)
    if args.worst < 0:
        raise ValueError(f"--worst must be 0 or more, got {args.worst}")
    html = output_file(args.html) if args.html else None
    # Everything a user can get wrong is checked before any work: the files, then the judge.
    for name in args.files:
        path = Path(name)
        if path.is_dir():
            raise ValueError(f"{path} is a folder: give .mat files")
        if not path.is_file():
            raise FileNotFoundError(2, "No such file", str(path))
    records = [(name, read_match(name)) for name in args.files]
    judge = analysis_judge(args.player, args.plies)

    analyses = []
    for name, record in records:
        rules = cube_rules_of(record)
        if args.cubeless:
            rules = replace(rules, max_cube=1)
        if args.jacoby is not None:
            rules = replace(rules, jacoby=args.jacoby)
        analysis = analyse_match(record, judge, rules=rules, source=name)
        analyses.append(analysis)
        if not args.json:
            print(table(analysis, args.worst) if len(records) == 1 else summary(analysis), flush=True)
    if args.json:
        out = [a.to_dict() for a in analyses]
        print(json.dumps(out[0] if len(out) == 1 else out))
    if html is not None:
        from bgai.analyse.html import page

        title = f"bgai analyse: {Path(args.files[0]).name}" + (
            f" and {len(args.files) - 1} more" if len(args.files) > 1 else ""
        )
        html.write_text(page(analyses, title), encoding="utf-8")
        if not args.json:
            print(f"report written to {html}", file=sys.stderr)
    return 0
