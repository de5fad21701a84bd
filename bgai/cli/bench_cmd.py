"""``bgai bench A B [--games N] [--seed S] [--no-duplicate] [--json]``: a duel, or a league.

Cubeless money games with duplicate dice (each dice stream played twice, seats swapped);
prints A's points per game with its 95 % confidence interval, and win/gammon/backgammon
rates for both sides. ``--league A B C ...`` plays a round robin instead.
"""

from __future__ import annotations

import argparse
import sys


def register(subparsers) -> None:
    from bgai.bots.specs import SPEC_HELP

    parser = subparsers.add_parser(
        "bench",
        help="play two players against each other (duplicate dice), or a league",
        description="Play cubeless money games between players and report points per game for "
        f"the first with a 95 % confidence interval. Players: {SPEC_HELP}.",
    )
    parser.add_argument("players", nargs="*", metavar="PLAYER", help="the two players, A then B")
    parser.add_argument("--games", type=int, default=1000, help="games per duel (default 1000)")
    parser.add_argument("--seed", type=int, default=0, help="dice seed (default 0)")
    parser.add_argument(
        "--no-duplicate",
        dest="duplicate",
        action="store_false",
        help="independent dice for every game instead of mirrored pairs",
    )
    parser.add_argument(
        "--league",
        nargs="+",
        metavar="PLAYER",
        help="play a round robin between these players instead of one duel",
    )
    parser.add_argument("--variant", default="standard", help="standard, nackgammon or hypergammon")
    parser.add_argument("--parallel", type=int, default=1024, help="games played at once (default 1024)")
    parser.add_argument("--threads", type=int, help="torch CPU threads (default: torch's choice)")
    parser.add_argument("--json", action="store_true", help="print the result as one JSON object")
    parser.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    import torch

    from bgai.bench import duel, league
    from bgai.bots import load_player

    if args.league and args.players:
        raise ValueError("give either two players or --league PLAYER..., not both")
    specs = args.league or args.players
    if not args.league and len(specs) != 2:
        raise ValueError(f"bench needs two players (A B) or --league, got {len(specs)}")
    if args.games < 1:
        raise ValueError(f"--games must be at least 1, got {args.games}")
    if args.threads:
        torch.set_num_threads(args.threads)
    loaded = {}  # the same spec twice is one object: a self-duel makes one batched call per turn
    for spec in specs:
        if spec not in loaded:
            loaded[spec] = load_player(spec)
    players = [loaded[spec] for spec in specs]
    options = dict(
        duplicate=args.duplicate,
        variant=args.variant,
        parallel=args.parallel,
        progress=sys.stderr.isatty() and not args.json,
    )
    if args.league:
        result = league(players, args.games, args.seed, **options)
    else:
        result = duel(players[0], players[1], args.games, args.seed, **options)
    print(result.to_json() if args.json else result.table())
    return 0
