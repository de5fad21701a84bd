"""``bgai bench A B [--cube | --match N] [--games N] [--seed S] [--luck J] [--save-games FILE.mat] [--json]``.

Duplicate dice by default (each dice stream played twice, seats swapped), three kinds of play:

* cubeless money games (the default): A's points per game with its 95 % interval, and
  win/gammon/backgammon rates for both sides; ``--league A B C ...`` plays a round robin;
  ``--luck J`` adds the luck-adjusted result (each roll's luck by J's net at 0-ply taken out:
  the same mean, a narrower interval, for a few milliseconds more a turn; with ``--cube`` and
  ``--match`` too, each roll's cubeful luck at the game's cube and score);
* ``--cube``: cubeful money games, centred cube at the start, Jacoby and beavers on unless
  ``--no-jacoby`` / ``--no-beavers`` (gnubg's money defaults), plus each side's doubles,
  takes, passes and beavers and the average cube;
* ``--match N``: matches to N points with the Crawford rule; A's match-winning chance with its
  95 % interval. ``--games`` then counts matches.

The cube never goes past ``--max-cube`` (by default 4096, gnubg's limit). Players without cube sense
(pubeval, random) never double and always take (:mod:`bgai.bots.cube`).

``--save-games FILE.mat`` writes every game as a Jellyfish .mat file gnubg imports: a money
session (match length 0) for the money modes, and one file per match for ``--match``
(``FILE-001.mat``, ``FILE-002.mat``, ...).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path


def register(subparsers) -> None:
    from bgai.specs import SPEC_HELP

    parser = subparsers.add_parser(
        "bench",
        help="play two players against each other (duplicate dice): money games, cubeful, matches",
        description="Play games between players and report points per game (or match-winning "
        f"chances) for the first with a 95 % confidence interval. Players: {SPEC_HELP}.",
    )
    parser.add_argument("players", nargs="*", metavar="PLAYER", help="the two players, A then B")
    parser.add_argument(
        "--games", type=int, default=1000, help="games per duel, or matches with --match (default 1000)"
    )
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
        help="play a round robin between these players instead of one duel (cubeless only)",
    )
    mode = parser.add_mutually_exclusive_group()
    mode.add_argument("--cube", action="store_true", help="cubeful money games (centred cube at the start)")
    mode.add_argument("--match", type=int, metavar="N", help="matches to N points (Crawford rule)")
    parser.add_argument(
        "--jacoby",
        action=argparse.BooleanOptionalAction,
        help="with --cube: gammons count only once the cube was turned (default on)",
    )
    parser.add_argument(
        "--beavers",
        action=argparse.BooleanOptionalAction,
        help="with --cube: the taker may beaver (take and redouble at once) (default on)",
    )
    parser.add_argument(
        "--max-cube", type=int, help="highest cube value, a power of two (default 4096, gnubg's limit)"
    )
    parser.add_argument(
        "--save-games",
        metavar="FILE.mat",
        help="write the games as .mat: one money session, or FILE-001.mat... one per match",
    )
    parser.add_argument(
        "--luck",
        metavar="PLAYER",
        help="also report A's ppg with the dice's luck taken out, every roll judged by PLAYER's net "
        "at 0-ply, cubeful where the cube is in play (variance reduction, as gnubg's luck-adjusted "
        "results; with --match A's match wins)",
    )
    parser.add_argument("--variant", default="standard", help="standard, nackgammon or hypergammon")
    parser.add_argument("--parallel", type=int, default=1024, help="games played at once (default 1024)")
    parser.add_argument("--threads", type=int, help="torch CPU threads (default: torch's choice)")
    parser.add_argument("--json", action="store_true", help="print the result as one JSON object")
    parser.set_defaults(run=run)


MAX_PARALLEL = 1 << 16


def _check(args: argparse.Namespace) -> list[str]:
    """The player specs, after checking the options fit together."""
    if args.league and args.players:
        raise ValueError("give either two players or --league PLAYER..., not both")
    specs = args.league or args.players
    if not args.league and len(specs) != 2:
        raise ValueError(f"bench needs two players (A B) or --league, got {len(specs)}")
    if args.games < 1:
        raise ValueError(f"--games must be at least 1, got {args.games}")
    cubeful = args.cube or args.match is not None
    if args.league and (cubeful or args.save_games):
        raise ValueError("--league plays cubeless money games only, without --save-games")
    if not args.cube and (args.jacoby is not None or args.beavers is not None):
        raise ValueError("--jacoby and --beavers are money-play cube rules: use them with --cube")
    if args.max_cube is not None and not cubeful:
        raise ValueError("--max-cube needs --cube or --match")
    if args.luck and args.league:
        raise ValueError("--luck adjusts a duel's result: not with --league")
    if not 1 <= args.parallel <= MAX_PARALLEL:
        raise ValueError(f"--parallel must lie in 1..{MAX_PARALLEL} (games at once), got {args.parallel}")
    if args.threads is not None and args.threads < 0:
        raise ValueError(f"--threads must be 0 (torch's choice) or a number of threads, got {args.threads}")
    if args.save_games:
        from bgai.cli.main import output_file

        output_file(args.save_games)  # before the games: a bad path would lose them all
    return specs


def run(args: argparse.Namespace) -> int:
    import torch

    from bgai.bench import CubeRules, duel, league, match_duel
    from bgai.cube.state import MAX_CUBE
    from bgai.specs import load_player

    specs = _check(args)
    if args.threads:
        torch.set_num_threads(args.threads)
    loaded = {}  # the same spec twice is one object: a self-duel makes one batched call per turn
    for spec in specs:
        if spec not in loaded:
            loaded[spec] = load_player(spec)
    players = [loaded[spec] for spec in specs]
    record = bool(args.save_games)
    options = dict(
        duplicate=args.duplicate,
        variant=args.variant,
        parallel=args.parallel,
        progress=sys.stderr.isatty() and not args.json,
    )
    max_cube = MAX_CUBE if args.max_cube is None else args.max_cube
    luck = None
    if args.luck:
        luck = loaded[args.luck] if args.luck in loaded else load_player(args.luck)
    if args.league:
        result = league(players, args.games, args.seed, **options)
    elif args.cube:
        rules = CubeRules(
            jacoby=True if args.jacoby is None else args.jacoby,
            beavers=True if args.beavers is None else args.beavers,
            max_cube=max_cube,
        )
        result = duel(*players, args.games, args.seed, rules=rules, record=record, luck=luck, **options)
        records = [result.session(f"bgai bench, seed {args.seed}")] if record else None
    elif args.match is not None:
        result = match_duel(
            *players,
            args.games,
            args.match,
            args.seed,
            max_cube=max_cube,
            record=record,
            luck=luck,
            **options,
        )
        records = result.sessions() if record else None
    else:
        result = duel(*players, args.games, args.seed, record=record, luck=luck, **options)
        records = [result.session(f"bgai bench, seed {args.seed}")] if record else None
    written = _save(records, Path(args.save_games), numbered=args.match is not None) if record else None
    print(result.to_json() if args.json else result.table())  # after saving: a closed pipe loses nothing
    if written and not args.json:
        print(f"games saved to {written}")
    return 0


def _save(records, path: Path, numbered: bool) -> str:
    """Write one .mat per record (``FILE-001.mat``... when ``numbered``); returns where, for people."""
    from bgai.formats.mat import save_mat

    path.parent.mkdir(parents=True, exist_ok=True)
    if not numbered:
        save_mat(records[0], path)
        return str(path)
    width = max(3, len(str(len(records))))
    suffix = path.suffix or ".mat"
    paths = [path.with_name(f"{path.stem}-{k:0{width}d}{suffix}") for k in range(1, len(records) + 1)]
    for record, target in zip(records, paths, strict=True):
        save_mat(record, target)
    return f"{paths[0]} ... {paths[-1]}" if len(paths) > 1 else str(paths[0])
