"""``bgai show POSITION``: draw a position as gnubg's ASCII board, with pip counts."""

from __future__ import annotations

import argparse


def register(subparsers) -> None:
    parser = subparsers.add_parser(
        "show",
        help="draw a position as gnubg's ASCII board",
        description="Draw a position as gnubg's 'show board' does, with the pip counts. "
        "A bare Position ID is drawn with X on roll.",
    )
    parser.add_argument("position", help="Position ID, GNUbgID (PositionID:MatchID) or XGID")
    parser.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    from bgai.formats import draw_board, read_position

    board, match_state = read_position(args.position)
    print(draw_board(board, match_state), end="")
    return 0
