"""``bgai rollout [POSITION ...] [DICE] [--trials N] [--truncate N] [--ply N] [--cubeful] [--json]``.

Without dice: each position is rolled out before the roll (probabilities and cubeless equity
with their standard errors; with ``--cubeful`` the money cube decision, ND and DT rolled out
on the same dice). With dice (given after one position, or carried by its ID): the candidate
moves are rolled out on the same dice streams and ranked like gnubg's rollout of a hint. With
no position or ``-``, positions are read one per line from standard input and rolled out in
one batch. Ctrl-C prints what the finished trials hold.
"""

from __future__ import annotations

import argparse
import json
import os
import sys

from bgai.cli.hint_cmd import probs_line as _probs_line


def register(subparsers) -> None:
    from bgai.specs import SPEC_HELP

    parser = subparsers.add_parser(
        "rollout",
        help="roll out positions, candidate moves or a cube decision (Monte Carlo, batched)",
        description="Roll out positions before the roll (probabilities, cubeless and cubeful equity, "
        "cube decision) or, with dice, the candidate moves on the same dice, with standard errors. "
        "Variance reduction and quasi-random dice are on by default, as in gnubg.",
    )
    parser.add_argument(
        "position",
        nargs="?",
        default="-",
        help="Position ID, GNUbgID or XGID; none or '-': one per line from standard input",
    )
    parser.add_argument("dice", nargs="?", help="the roll, as 31: roll out the candidate moves")
    parser.add_argument(
        "--player",
        default="best",
        help=f"who plays the trials (default best): {SPEC_HELP}; not random or pubeval",
    )
    parser.add_argument("--trials", type=int, default=1296, help="trials per position (default 1296)")
    parser.add_argument(
        "--truncate",
        type=int,
        default=None,
        help="stop each trial after N plies and take the evaluator's value (default: none)",
    )
    parser.add_argument("--ply", type=int, default=0, help="checker play ply, 0-2 (default 0)")
    parser.add_argument(
        "--cubeful",
        action="store_true",
        help="play the cube (money, or the match score in the ID): roll out no double and double/take",
    )
    parser.add_argument("--no-vr", action="store_true", help="without variance reduction")
    parser.add_argument(
        "--no-quasi", action="store_true", help="plain random dice (no quasi-random first rolls)"
    )
    parser.add_argument(
        "--no-bearoff",
        action="store_true",
        help="play bear-offs out instead of taking the exact two-sided table's value",
    )
    parser.add_argument(
        "--target-se",
        type=float,
        default=None,
        help="stop a position once its equity SE is below this (after --min-trials)",
    )
    parser.add_argument("--min-trials", type=int, default=144, help="trials before the stop rule applies")
    parser.add_argument(
        "--moves", type=int, default=8, help="candidate moves rolled out, at most (default 8)"
    )
    parser.add_argument("--seed", type=int, default=0, help="dice seed (default 0)")
    parser.add_argument(
        "--processes",
        type=int,
        default=min(2, os.cpu_count() or 1),
        help="worker processes (default: 2, or 1 on a one-core machine)",
    )
    parser.add_argument("--json", action="store_true", help="print the result as JSON")
    parser.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    from tqdm import tqdm

    from bgai.bots import evaluator_of
    from bgai.formats import read_position
    from bgai.moves import parse_dice
    from bgai.rollout import RolloutSettings
    from bgai.rollout.rollout import distributed
    from bgai.specs import load_player

    settings = RolloutSettings(
        trials=args.trials,
        truncate=args.truncate,
        plies=args.ply,
        variance_reduction=not args.no_vr,
        quasi_random=not args.no_quasi,
        bearoff=not args.no_bearoff,
        seed=args.seed,
        target_se=args.target_se,
        min_trials=args.min_trials,
        processes=args.processes,
    )
    if args.moves < 1:
        raise ValueError(f"--moves must be at least 1, got {args.moves}")
    texts = [args.position]
    if args.position == "-":
        if args.dice is not None:
            raise ValueError("dice go with one position given on the command line, not with standard input")
        texts = [line.strip() for line in sys.stdin if line.strip() and not line.lstrip().startswith("#")]
        if not texts:
            raise ValueError("no positions on standard input")
    positions = [_read(text, read_position) for text in texts]
    dice = args.dice if args.dice is not None else positions[0][1]
    if dice is not None and len(positions) > 1:
        raise ValueError("roll out the moves of one position at a time")
    player = load_player(args.player)
    evaluator, _, _ = evaluator_of(player, "a rollout")
    total = settings.trials * len(positions) * (1 if dice is None else args.moves)
    rank, _ = distributed()  # under torchrun every process rolls out its share; the first one reports
    bar = tqdm(
        total=total,
        unit="trial",
        file=sys.stderr,
        disable=rank > 0 or (args.json and not sys.stderr.isatty()),
    )

    def progress(done: int, se: float) -> None:
        bar.update(done)
        bar.set_postfix_str(f"SE {se:.4f}")

    try:
        if dice is None:
            report = _positions(evaluator, positions, settings, args.cubeful, progress)
        else:
            report = _moves(evaluator, positions[0][0], parse_dice(dice), settings, args.moves, progress)
    except KeyboardInterrupt:
        bar.close()
        print(
            f"bgai: stopped before the first {settings.block} trials were done: nothing to show",
            file=sys.stderr,
        )
        return 130
    finally:
        bar.close()
    report.update(player=player.name, settings=_settings_record(settings))
    if rank > 0:
        return 0
    if args.json:
        print(json.dumps(report, indent=2))
    else:
        print(_text(report))
    return 130 if report["interrupted"] else 0


def _read(text: str, read_position):
    from bgai.engine.board import require_game_on
    from bgai.formats.quote import quote

    board, match_state = read_position(text)
    require_game_on(board, f" in {quote(text)}")
    dice = match_state.dice if match_state is not None else None
    return board, dice, match_state


def _positions(evaluator, positions, settings, cubeful: bool, progress) -> dict:
    import numpy as np
    import torch

    from bgai.cube.analysis import cube_state
    from bgai.cube.report import describe_cube
    from bgai.formats import encode_position_id
    from bgai.model.probs import OUTPUTS as PROBS
    from bgai.rollout import rollout_positions

    states = [cube_state(ms) for _, _, ms in positions]
    if cubeful and len({s for s in states}) > 1:
        raise ValueError("cubeful rollouts of one batch need one cube state: roll out each cube state apart")
    boards = torch.as_tensor(np.stack([b for b, _, _ in positions]))
    result = rollout_positions(evaluator, boards, settings, states[0] if cubeful else None, progress)
    records = []
    for i, (board, _, _) in enumerate(positions):
        record = {
            "position_id": encode_position_id(board),
            "trials": int(result.trials[i]),
            "probs": dict(zip(PROBS, result.probs[i].tolist(), strict=True)),
            "probs_se": dict(zip(PROBS, result.probs_se[i].tolist(), strict=True)),
            "equity": float(result.equity[i]),
            "equity_se": float(result.equity_se[i]),
        }
        if cubeful:
            record["cube"] = describe_cube(states[0])
            if result.mwc is not None:
                record["match_winning_chances"] = {
                    "no_double": float(result.mwc["nd"][i]),
                    "double_take": _num(result.mwc["dt"][i]),
                    "double_pass": float(result.mwc["dp"]),
                }
            record["cubeful"] = {
                "no_double": float(result.nd[i]),
                "no_double_se": float(result.nd_se[i]),
                "double_take": _num(result.dt[i]),
                "double_take_se": _num(result.dt_se[i]),
                "double_take_minus_no_double_se": _num(result.dt_minus_nd_se[i]),
                "double_pass": 1.0 if result.decision is not None else None,
                "action": result.decision[i] if result.decision is not None else "cube not available",
            }
        records.append(record)
    return {"positions": records, "interrupted": result.interrupted}


def _moves(evaluator, board, roll, settings, max_moves: int, progress) -> dict:
    from bgai.engine.board import swap_sides
    from bgai.formats import encode_position_id
    from bgai.model.probs import OUTPUTS as PROBS
    from bgai.moves import legal_moves_batch
    from bgai.rollout import rollout_moves

    notation = {pid: move for move, pid in legal_moves_batch(board[None], [roll])[0]}
    if not notation:
        raise ValueError(
            f"no legal move for {roll[0]}{roll[1]}: the player on roll dances, nothing to roll out"
        )
    result = rollout_moves(evaluator, board, roll, settings, max_moves=max_moves, progress=progress)
    rows = []
    for k in range(len(result.equity)):
        pid = encode_position_id(swap_sides(result.afterstates[k]))
        rows.append(
            {
                "move": notation.get(pid, ""),
                "position_id": pid,
                "equity": float(result.equity[k]),
                "equity_se": float(result.equity_se[k]),
                "diff": float(result.diff[k]),
                "diff_se": float(result.diff_se[k]),
                "probs": dict(zip(PROBS, result.probs[k].tolist(), strict=True)),
            }
        )
    return {
        "position_id": encode_position_id(board),
        "dice": list(roll),
        "trials": result.trials,
        "moves": rows,
        "interrupted": result.interrupted,
    }


def _num(x: float) -> float | None:
    return None if x != x else float(x)


def _settings_record(s) -> dict:
    return {
        "trials": s.trials,
        "truncate": s.truncate,
        "checker_play_ply": s.plies,
        "variance_reduction": s.variance_reduction,
        "quasi_random": s.quasi_random,
        "bearoff_database": s.bearoff,
        "seed": s.seed,
        "target_se": s.target_se,
    }


def _text(report: dict) -> str:
    s = report["settings"]
    how = (
        f"{report['player']}, {s['checker_play_ply']}-ply checker play"
        + (f", truncated at {s['truncate']} plies" if s["truncate"] else "")
        + (", variance reduction" if s["variance_reduction"] else "")
        + (", quasi-random dice" if s["quasi_random"] else "")
        + f", seed {s['seed']}"
    )
    lines = []
    if report["interrupted"]:
        lines.append("Stopped by Ctrl-C: what the finished trials hold.")
    if "moves" in report:
        d1, d2 = report["dice"]
        lines.append(
            f"Position {report['position_id']}, {d1}-{d2} to play: rollout of "
            f"{report['trials']} trials per move ({how})"
        )
        width = max(len(r["move"]) for r in report["moves"])
        for k, r in enumerate(report["moves"], 1):
            diff = "" if k == 1 else f" ({r['diff']:+.3f} ± {r['diff_se']:.3f})"
            lines.append(
                f"{k:>5}. Rollout  {r['move']:<{width}}  Eq.: {r['equity']:+.3f} ± {r['equity_se']:.3f}{diff}"
            )
            lines.append(f"       {_probs_line(list(r['probs'].values()))}")
        return "\n".join(lines)
    for r in report["positions"]:
        lines.append(
            f"Position {r['position_id']}, player on roll, before the roll: {r['trials']} trials ({how})"
        )
        lines.append(f"  Cubeless equity {r['equity']:+.3f} ± {r['equity_se']:.3f} (standard error)")
        lines.append(f"  {_probs_line(list(r['probs'].values()))}")
        se = list(r["probs_se"].values())
        lines.append(
            "  SE     "
            + " ".join(f"{x:.3f}" for x in se[:3])
            + f" - {se[0]:.3f} "
            + " ".join(f"{x:.3f}" for x in se[3:])
        )
        if "cubeful" in r:
            c = r["cubeful"]
            lines.append(f"  Cubeful equities, {r['cube']}:")
            lines.append(f"    No double     {c['no_double']:+.3f} ± {c['no_double_se']:.3f}")
            if c["double_take"] is not None:
                lines.append(
                    f"    Double, take  {c['double_take']:+.3f} ± {c['double_take_se']:.3f}"
                    f"  (minus no double: SE {c['double_take_minus_no_double_se']:.3f})"
                )
                lines.append(f"    Double, pass  {c['double_pass']:+.3f}")
            if "match_winning_chances" in r:
                m = r["match_winning_chances"]
                dt = "" if m["double_take"] is None else f", double/take {100 * m['double_take']:.1f} %"
                lines.append(
                    f"    Match winning chances: no double {100 * m['no_double']:.1f} %{dt}, "
                    f"double/pass {100 * m['double_pass']:.1f} %"
                )
            lines.append(f"  Proper cube action: {c['action']}")
    return "\n".join(lines)
