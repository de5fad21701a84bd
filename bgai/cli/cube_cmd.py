"""``bgai cube [POSITION ...] [--player SPEC] [--plies N] [--json]``: gnubg's cube analysis.

For each position (a GNUbgID ``PositionID:MatchID``, an XGID or a bare Position ID, which
means money play with a centred cube), before the player on roll rolls: the cubeless
probabilities, the no double / double-take / double-pass equities normalised to the current
cube (double/pass = +1, as gnubg prints them) and the proper cube action in gnubg's words.
When the ID says a double is on offer, the taker's answer is added. With no position or
``-``, positions are read one per line from standard input and analysed in one batch.
"""

from __future__ import annotations

import argparse
import json
import sys

MAX_PLIES = 2


def register(subparsers) -> None:
    from bgai.specs import SPEC_HELP

    parser = subparsers.add_parser(
        "cube",
        help="cube decision of positions: no double / double-take / double-pass, as gnubg's hint",
        description="gnubg's cube analysis of positions before the roll: cubeless probabilities, "
        "normalised ND/DT/DP equities and the proper cube action, at 0-ply (Janowski on the "
        "player's probabilities) or as a cubeful 1- or 2-ply search.",
    )
    parser.add_argument(
        "positions",
        nargs="*",
        metavar="POSITION",
        help="GNUbgID (PositionID:MatchID), XGID or Position ID (money, centred cube); "
        "none or '-': one per line from standard input",
    )
    parser.add_argument(
        "--player", default="best", help=f"who evaluates (default best): {SPEC_HELP}; not random or pubeval"
    )
    parser.add_argument(
        "--plies",
        type=int,
        default=None,
        help=f"lookahead of the cube decision, 0-{MAX_PLIES} in gnubg's numbering "
        "(default: the player's @<n>ply, else 0)",
    )
    parser.add_argument(
        "--no-beavers",
        action="store_true",
        help="money play without beavers (default: an XGID's own flag; gnubg's default, beavers "
        "allowed, for Match IDs, which cannot say)",
    )
    parser.add_argument("--json", action="store_true", help="print a JSON list of records")
    parser.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    from bgai.bots import evaluator_of
    from bgai.cube.report import cube_records, read_cube_position
    from bgai.cube.state import Owner
    from bgai.specs import load_player

    texts = list(args.positions)
    from_stdin = not texts or texts == ["-"]
    if from_stdin:
        texts = [line.strip() for line in sys.stdin if line.strip() and not line.lstrip().startswith("#")]
        if not texts:
            raise ValueError("no positions on standard input")
    player = load_player(args.player)
    evaluator, spec_plies, _ = evaluator_of(player, "cube analysis")
    plies = spec_plies if args.plies is None else args.plies
    if not 0 <= plies <= MAX_PLIES:
        raise ValueError(f"cube analysis looks {MAX_PLIES} plies ahead at most, got {plies}")

    parsed, errors = {}, {}
    for k, text in enumerate(texts):
        try:
            parsed[k] = read_cube_position(text, args.no_beavers)
        except ValueError as exc:
            if len(texts) == 1 and not from_stdin:
                raise
            errors[k] = " ".join(str(exc).split())
    records = dict(zip(parsed, cube_records(evaluator, list(parsed.values()), plies), strict=True))

    out = []
    for k, text in enumerate(texts):
        if k in errors:
            out.append({"position": text, "error": errors[k]})
            if not args.json:
                print(f"bgai: error: {text}: {errors[k]}", file=sys.stderr)
            continue
        record = {"position": text, "player": player.name, **records[k]}
        out.append(record)
        if not args.json:
            if len(out) > 1:
                print()
            print(_text(record, redouble=parsed[k][2].owner is Owner.ME))
    if args.json:
        print(json.dumps(out, indent=2))
    return 2 if errors else 0


def _text(record: dict, redouble: bool = False) -> str:
    """gnubg's hint layout: the cubeless line, the three equities, the proper action."""
    probs = list(record["probs"].values())  # bgai.model.probs.OUTPUTS order
    money = ""
    if not record["cube"].startswith("money"):
        money = f" (Money: {record['cubeless_money_equity']:+.3f})"
    lines = [
        f"{record['position']}",
        f"Cube analysis ({record['player']}, {record['plies']}-ply): {record['cube']}",
        f"{record['plies']}-ply cubeless equity {record['cubeless_equity']:+.3f}{money}",
        f"  {probs[0]:.3f} {probs[1]:.3f} {probs[2]:.3f} - {1 - probs[0]:.3f} {probs[3]:.3f} {probs[4]:.3f}",
        "Cubeful equities:",
    ]
    double = "Redouble" if redouble else "Double"
    rows = [
        (f"No {double.lower()}", record["nd"]),
        (f"{double}, pass", record["dp"]),
        (f"{double}, take", record["dt"]),
    ]
    # gnubg's order: the proper action first, then the better of the other two for the doubler.
    nd, dp, dt = rows
    if record["decision"].startswith(("Double", "Redouble")):
        rows = [dp, dt, nd] if record["decision"].endswith("pass") else [dt, dp, nd]
    else:
        rows = [nd, dt, dp] if record["decision"].endswith("pass") else [nd, dp, dt]
    first = rows[0][1]
    for k, (name, equity) in enumerate(rows, 1):
        diff = "" if k == 1 else f"  ({equity - first:+.3f})"
        lines.append(f"{k}. {name:<18} {equity:+.3f}{diff}")
    lines.append(f"Proper cube action: {record['decision']}")
    if record["take"] is not None:
        lines.append(f"Answer to the double offered: {record['take']}")
    return "\n".join(lines)
