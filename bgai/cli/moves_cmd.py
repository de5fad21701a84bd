"""``bgai moves POSITION [DICE] [--json]``: every legal move, with the position it leads to."""

from __future__ import annotations

import argparse
import json


def register(subparsers) -> None:
    parser = subparsers.add_parser(
        "moves",
        help="list the legal moves of a position and roll",
        description="List every distinct legal move of the player on roll, in gnubg notation, "
        "with the Position ID it leads to (opponent on roll).",
    )
    parser.add_argument("position", help="Position ID, GNUbgID (PositionID:MatchID) or XGID")
    parser.add_argument(
        "dice", nargs="?", help="the roll, as 31 or 3-1 (default: the dice in a GNUbgID or XGID)"
    )
    parser.add_argument("--json", action="store_true", help='print a JSON list of {"move", "position_id"}')
    parser.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    from bgai.moves import apply_move, legal_moves, position_and_roll

    moves = legal_moves(args.position, args.dice)
    if args.json:
        print(json.dumps([{"move": move, "position_id": pid} for move, pid in moves], indent=2))
        return 0
    _, dice = position_and_roll(args.position, args.dice)
    roll, where = f"{dice[0]}-{dice[1]}", args.position.strip()
    if not moves:
        passed = apply_move(args.position, dice, "")
        print(f"No legal move for {roll} in {where}: the player on roll dances; the turn passes ({passed}).")
        return 0
    print(f"{len(moves)} legal move{'s' if len(moves) != 1 else ''} for {roll} in {where}:")
    width = max(len(move) for move, _ in moves)
    for k, (move, pid) in enumerate(moves, 1):
        print(f"{k:>4}. {move:<{width}}  {pid}")
    return 0
