"""``bgai play``: play a money session or a match against a bot in the terminal.

The person is X (the bottom of gnubg's board), the bot O. Moves are typed in gnubg notation;
``help`` lists the commands. Input may come from a pipe (one line per answer; the end of
input quits). The session is saved as a ``.mat`` file at the end, or when it is stopped.
"""

from __future__ import annotations

import argparse
import os
import sys
import time


def register(subparsers) -> None:
    from bgai.specs import SPEC_HELP

    parser = subparsers.add_parser(
        "play",
        help="play a money session or a match against a bot in the terminal",
        description="Play against a bot: the board is drawn as gnubg draws it, moves are typed in "
        "gnubg notation (13/8 13/10), 'help' lists the commands (hint, double, take, pass, resign, "
        "board, quit). Works through a pipe too; the session is saved as a .mat file.",
    )
    who = parser.add_mutually_exclusive_group()
    who.add_argument("--level", help="an exported opponent by level (beginner ... world class)")
    who.add_argument(
        "--opponent",
        metavar="DIR|SPEC",
        help=f"an exported opponent's folder, or a player: {SPEC_HELP} (default best)",
    )
    parser.add_argument(
        "--match",
        type=int,
        default=0,
        metavar="N",
        help="play a match to N points (default 0: a money session, until you quit)",
    )
    parser.add_argument(
        "--cube",
        action=argparse.BooleanOptionalAction,
        default=True,
        help="play with the doubling cube (default: yes)",
    )
    parser.add_argument("--variant", choices=("standard", "nackgammon", "hypergammon"), default="standard")
    parser.add_argument("--seed", type=int, help="seed of the dice, to replay a session (default: random)")
    parser.add_argument(
        "--save",
        metavar="FILE.mat",
        help="where to save the session (default: bgai-<date>-<time>.mat in the current folder)",
    )
    parser.add_argument("--name", default="you", help="your name in the saved file (default: you)")
    parser.add_argument(
        "--jacoby", action="store_true", help="money play: gammons count only once the cube has been turned"
    )
    parser.add_argument(
        "--beavers",
        action=argparse.BooleanOptionalAction,
        default=True,
        help="money play: allow beavers (default: yes)",
    )
    parser.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    from bgai.cli.main import output_file
    from bgai.formats.mat import save_mat
    from bgai.play import MatchSession, load_bot, play_in_terminal

    if args.match < 0:
        raise ValueError(f"--match must be 0 (money) or a number of points, got {args.match}")
    save = output_file(args.save or time.strftime("bgai-%Y%m%d-%H%M%S.mat"))  # before playing
    bot = load_bot(args.opponent, level=args.level)
    session = MatchSession(
        bot,
        match_length=args.match,
        cube=args.cube,
        variant=args.variant,
        seed=args.seed,
        name=args.name,
        jacoby=args.jacoby,
        beavers=args.beavers,
    )
    session.record.date = time.strftime("%Y.%m.%d")
    session.record.transcriber = "bgai play"
    what = f"a {args.match}-point match" if args.match else "a money session"
    cube = "with the cube" if session.cube_in_play else "without the cube"
    if args.cube and not session.cube_in_play:
        cube += f" ({bot.name} has no cube sense)"
    variant = "" if args.variant == "standard" else f" of {args.variant}"
    print(f"bgai play: you (X) against {bot.name} (O), {what}{variant} {cube}; dice seed {session.seed}.")
    print("Type help for the commands.", flush=True)
    said = sys.stdout
    try:
        play_in_terminal(session, sys.stdin, sys.stdout, echo=not sys.stdin.isatty())
    except KeyboardInterrupt:
        print("\n(interrupted)")
    except BrokenPipeError:  # the reader went away (bgai play ... | head): keep the session all the same
        said = sys.stderr
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
    save_mat(session.record, save)
    print(f"Saved to {save}", file=said, flush=True)
    return 0
