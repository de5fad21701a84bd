"""``bgai hint POSITION [DICE] [--player SPEC] [--json]``: rank the moves as gnubg's hint does.

With dice (given, or carried by a GNUbgID/XGID) every legal move is listed best first with
its five probabilities and cubeless equity for the player on roll; without dice the position
itself is evaluated before the roll.
"""

from __future__ import annotations

import argparse
import json


def register(subparsers) -> None:
    from bgai.specs import SPEC_HELP

    parser = subparsers.add_parser(
        "hint",
        help="rank the moves of a position (or evaluate it before the roll)",
        description="Rank every legal move with its win/gammon/backgammon probabilities and cubeless "
        "equity for the player on roll, like gnubg's hint; without dice, evaluate the position.",
    )
    parser.add_argument("position", help="Position ID, GNUbgID (PositionID:MatchID) or XGID")
    parser.add_argument("dice", nargs="?", help="the roll, as 31 (default: the dice in the ID, if any)")
    parser.add_argument(
        "--player", default="best", help=f"who evaluates (default best): {SPEC_HELP}; not random or pubeval"
    )
    parser.add_argument("--json", action="store_true", help="print the result as JSON")
    parser.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    import torch

    from bgai.bots import evaluator_of
    from bgai.engine.board import require_game_on
    from bgai.formats import encode_position_id, read_position
    from bgai.model.probs import OUTPUTS, cubeless_equity
    from bgai.moves import hint_moves, parse_dice
    from bgai.search.ply import evaluate_position
    from bgai.specs import load_player

    board, match_state = read_position(args.position)
    require_game_on(board)
    dice = args.dice if args.dice is not None else (match_state.dice if match_state else None)
    player = load_player(args.player)
    evaluator, plies, move_filter = evaluator_of(player, "hint")
    position_id = encode_position_id(board)

    if dice is None:
        probs = evaluate_position(evaluator, torch.as_tensor(board)[None], plies)[0].tolist()
        equity = float(cubeless_equity(torch.tensor(probs)))
        if args.json:
            print(
                json.dumps(
                    {
                        "position_id": position_id,
                        "player": player.name,
                        "plies": plies,
                        "probs": dict(zip(OUTPUTS, probs, strict=True)),
                        "equity": equity,
                    }
                )
            )
        else:
            print(f"Position {position_id}, player on roll, before the roll ({player.name}, {plies}-ply):")
            print(f"  Cubeless equity {equity:+.3f}")
            print(f"  {probs_line(probs)}")
        return 0

    roll = parse_dice(dice)
    rows = [
        {
            "move": m.move,
            "position_id": m.position_id,
            "ply": m.ply,
            "equity": m.equity,
            "probs": dict(zip(OUTPUTS, m.probs, strict=True)),
        }
        for m in hint_moves(evaluator, board, roll, plies, move_filter)
    ]
    if args.json:
        print(
            json.dumps(
                {
                    "position_id": position_id,
                    "dice": list(roll),
                    "player": player.name,
                    "plies": plies,
                    "moves": rows,
                },
                indent=2,
            )
        )
        return 0
    print(f"Position {position_id}, {roll[0]}-{roll[1]} to play ({player.name}):")
    if not rows:
        print("  No legal move: the player on roll dances.")
        return 0
    best = rows[0]["equity"]
    width = max(len(r["move"]) for r in rows)
    for k, r in enumerate(rows, 1):
        diff = "" if k == 1 else f" ({r['equity'] - best:+.3f})"
        print(f"{k:>5}. {r['ply']}-ply  {r['move']:<{width}}  Eq.: {r['equity']:+.3f}{diff}")
        print(f"       {probs_line(list(r['probs'].values()))}")
    return 0


def probs_line(probs: list[float]) -> str:
    """gnubg's order: win, win gammon, win backgammon - lose, lose gammon, lose backgammon."""
    win, wg, wbg, lg, lbg = probs
    return f"{win:.3f} {wg:.3f} {wbg:.3f} - {1 - win:.3f} {lg:.3f} {lbg:.3f}"
