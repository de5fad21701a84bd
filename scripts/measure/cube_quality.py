"""How good are bgai's cube decisions? Judged by gnubg's 2-ply cube analysis (needs the gnubg extra).

    python scripts/measure/cube_quality.py --player best --plies 0,1,2 --positions 1000   # ~4 min on 2 cores
    python scripts/measure/cube_quality.py --judge-only-probs --positions 300     # sanity check, ~0 loss

Positions: games of ``--selfplay`` against itself (default gnubg's 0-ply net with a little
noise, so games differ), or ``--source greedy|race|random|bearoff`` corpora of
:func:`bgai.engine.sampling.sample_positions`; de-duplicated and filtered to those where a cube
decision is plausible: gnubg 0-ply cubeless win chance of the player on roll in 0.55-0.90, or a
money cube analysis (gnubg 0-ply) with ``|ND - min(DT, DP)| < 0.1`` or ``|DT - DP| < 0.1``.

Each position is crossed with a few cube states (money centred and owned cube, match scores).
For each pair gnubg's cubeful ND/DT/DP at ``--judge-plies`` come from its ``hint`` command
(its default settings otherwise: pruning nets on, Kazaross-XG2, beavers on for money), and
bgai's decision from :mod:`bgai.cube.analysis` with ``--player`` at ``--plies``. Scores, all in
normalised equity (per unit of the current cube, judged by gnubg's equities):

* doubler: gnubg's value of the better of "no double" and "double" (the taker answering
  best: take, pass, or beaver where allowed) minus the value of bgai's choice;
* taker: the best of take / pass / beaver for the taker minus bgai's answer;
* agreement: bgai's double/no-double and take/pass/beaver equal gnubg's; "close" decisions are
  those with ``|ND - min(DT, DP)| < 0.1`` or ``|DT - DP| < 0.1`` by gnubg.

``--judge-only-probs`` feeds gnubg's own 0-ply probabilities to bgai's cube module and judges
with gnubg 0-ply: a check of the cube arithmetic and of this script, which should lose ~0.
The summary goes to stdout and everything, per position too, to ``--out`` (JSON). gnubg's
analyses are kept in ``--judge-cache`` (JSON, keyed by position, cube state and plies), so judging
another network on the same positions costs only bgai's own time.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

import numpy as np
import torch

from bgai import gnubg as oracle
from bgai.bots import evaluator_of
from bgai.cli.main import run_script
from bgai.cube import CubeState, analyse_cube
from bgai.cube.analysis import answer_to_double, cube_efficiencies, doubles
from bgai.cube.search import cube_analysis, roll_tree
from bgai.cube.state import Owner
from bgai.engine.board import is_race
from bgai.engine.sampling import KINDS, play_positions, sample_positions
from bgai.search.evaluator import GnubgEvaluator
from bgai.specs import load_player

# (name, match length, my score, opp score, cube, owner, crawford, jacoby, beavers), player on roll first
STATES = {
    "money": ("money centred, Jacoby, beavers", 0, 0, 0, 1, "centred", False, True, True),
    "money-owned": ("money owned 2-cube, beavers", 0, 0, 0, 2, "me", False, True, True),
    "7pt-0-0": ("7pt 0-0", 7, 0, 0, 1, "centred", False, False, False),
    "5pt-3-1": ("5pt 3-1 (2a vs 4a)", 5, 3, 1, 1, "centred", False, False, False),
    "7pt-3-6": ("7pt 3-6 post-Crawford (4a vs 1a)", 7, 3, 6, 1, "centred", False, False, False),
}
CLOSE = 0.1


def cube_state(spec: tuple) -> CubeState:
    """The :class:`CubeState` of a :data:`STATES` entry."""
    _, length, mine, theirs, cube, owner, crawford, jacoby, beavers = spec
    if length == 0:
        return CubeState.money(cube, Owner(owner), jacoby=jacoby, beavers=beavers)
    return CubeState.match(length, mine, theirs, cube, Owner(owner), crawford=crawford)


def selfplay_boards(spec: str, n_wanted: int, seed: int, games: int = 64) -> torch.Tensor:
    """Positions before the roll (player on roll in row 1) from games of ``spec`` against itself."""
    player = load_player(spec)
    whole_turns = -(-n_wanted // games) * games  # every game's position of each turn played
    boards, _ = play_positions(whole_turns, lambda b, d, _: player.choose(b, d), seed, games)
    return boards


def candidate_boards(args) -> torch.Tensor:
    """``args.positions`` distinct unfinished positions where a cube decision is plausible."""
    pool = 12 * args.positions
    if args.source == "selfplay":
        boards = selfplay_boards(args.selfplay, pool, args.seed)
    else:
        boards, _ = sample_positions(pool, args.source, seed=args.seed)
    boards = torch.as_tensor(boards, dtype=torch.int8)
    _, first = np.unique(boards.reshape(len(boards), -1).numpy(), axis=0, return_index=True)
    boards = boards[np.sort(first)]
    boards = boards[~(boards.sum(-1) == 0).any(-1)]
    probs = GnubgEvaluator(0).evaluate(boards).double().numpy()
    money = analyse_cube(probs, CubeState.money(), cube_efficiencies(boards))
    close = (np.abs(money.nd - np.minimum(money.dt, money.dp)) < CLOSE) | (
        np.abs(money.dt - money.dp) < CLOSE
    )
    plausible = ((probs[:, 0] >= 0.55) & (probs[:, 0] <= 0.90)) | close
    chosen = np.flatnonzero(plausible)
    np.random.default_rng(args.seed).shuffle(chosen)
    return boards[np.sort(chosen[: args.positions])]


def load_cache(path: Path) -> dict:
    """gnubg's earlier analyses; an unreadable cache is replaced by a new one (with a warning)."""
    if not path.exists():
        return {}
    try:
        return json.loads(path.read_text())
    except (json.JSONDecodeError, UnicodeDecodeError):
        print(f"warning: {path} is not a readable cache; starting a new one", file=sys.stderr)
        return {}


def judge(gn: list, ours: dict, state: CubeState) -> dict:
    """Equity lost by bgai's double and take decisions, by gnubg's ND/DT/DP (doubler's view)."""
    nd, dt, dp, label = gn
    beaver = state.is_money and state.beavers and -2.0 <= dt <= 0.0
    double_value = 2.0 * dt if beaver else min(dt, dp)
    best_doubler = max(nd, double_value)
    we_double = doubles(ours["decision"])
    doubler_loss = best_doubler - (double_value if we_double else nd)
    taker = {"take": -dt, "pass": -dp}
    if state.is_money and state.beavers:
        taker["beaver"] = -2.0 * dt
    gnubg_answer = answer_to_double(dt, dp, state)
    taker_loss = max(taker.values()) - taker[ours["take"]]
    return {
        "close": bool(abs(nd - min(dt, dp)) < CLOSE or abs(dt - dp) < CLOSE),
        "double_agrees": we_double == doubles(label),
        "take_agrees": ours["take"] == gnubg_answer,
        "label_agrees": ours["decision"] == label,
        "doubler_loss": doubler_loss,
        "taker_loss": taker_loss,
        "gnubg_answer": gnubg_answer,
    }


def summarise(rows: list[dict]) -> dict:
    def mean(key, subset):
        return float(np.mean([r[key] for r in subset])) if subset else float("nan")

    close = [r for r in rows if r["close"]]
    return {
        "n": len(rows),
        "n_close": len(close),
        "double_agreement": mean("double_agrees", rows),
        "take_agreement": mean("take_agrees", rows),
        "label_agreement": mean("label_agrees", rows),
        "double_agreement_close": mean("double_agrees", close),
        "take_agreement_close": mean("take_agrees", close),
        "doubler_loss": mean("doubler_loss", rows),
        "taker_loss": mean("taker_loss", rows),
        "doubler_loss_close": mean("doubler_loss", close),
        "taker_loss_close": mean("taker_loss", close),
        "loss_per_decision": float(
            np.mean([r["doubler_loss"] for r in rows] + [r["taker_loss"] for r in rows])
        ),
        "loss_per_decision_close": float(
            np.mean([r["doubler_loss"] for r in close] + [r["taker_loss"] for r in close])
        )
        if close
        else float("nan"),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--player", default="best", help="bgai player spec whose evaluator decides (default best)"
    )
    parser.add_argument(
        "--plies",
        default=None,
        help="bgai's cube lookahead, one or a list such as 0,1,2 (default: the spec's or 0)",
    )
    parser.add_argument("--judge-plies", type=int, default=2, help="gnubg's cube decision plies (default 2)")
    parser.add_argument(
        "--judge-only-probs", action="store_true", help="gnubg's 0-ply probabilities, judged at 0-ply"
    )
    parser.add_argument("--positions", type=int, default=1000)
    parser.add_argument(
        "--states", default=",".join(STATES), help=f"comma-separated, from {', '.join(STATES)}"
    )
    parser.add_argument("--source", default="selfplay", choices=("selfplay", *KINDS))
    parser.add_argument("--selfplay", default="gnubg:advanced", help="who plays the self-play games")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--threads", type=int, default=1, help="torch threads (default 1)")
    parser.add_argument("--out", type=Path, default=Path("runs/cube_quality.json"))
    parser.add_argument(
        "--judge-cache",
        type=Path,
        default=Path("runs/cube_judge_cache.json"),
        help="gnubg's analyses from earlier runs, reused and extended (default %(default)s)",
    )
    args = parser.parse_args()
    torch.set_num_threads(args.threads)
    names = [s.strip() for s in args.states.split(",") if s.strip()]
    unknown = [s for s in names if s not in STATES]
    if unknown:
        parser.error(f"unknown states {unknown}; choose from {', '.join(STATES)}")

    if args.judge_only_probs:
        evaluator, plies_list, player_name, args.judge_plies = GnubgEvaluator(0), [0], "gnubg-0ply-probs", 0
    else:
        player = load_player(args.player)
        evaluator, spec_plies, _ = evaluator_of(player, "cube analysis")
        plies_list = [spec_plies] if args.plies is None else [int(p) for p in args.plies.split(",")]
        player_name = player.name
    for command in (
        "set threads 1",
        "set output digits 5",
        "set output mwc off",
        f"set evaluation cubedecision evaluation plies {args.judge_plies}",
    ):
        oracle.command_output(command)

    t0 = time.perf_counter()
    boards = candidate_boards(args)
    seconds = {"positions": time.perf_counter() - t0}
    print(f"{len(boards)} positions ({args.source}) in {seconds['positions']:.1f} s", flush=True)
    trees = {}
    for plies in plies_list:
        t0 = time.perf_counter()
        trees[plies] = roll_tree(evaluator, boards, plies)
        seconds[f"bgai_{plies}ply"] = elapsed = time.perf_counter() - t0
        print(
            f"bgai {player_name} {plies}-ply lookahead: {elapsed:.1f} s "
            f"({len(boards) / max(elapsed, 1e-9):.1f} positions/s)",
            flush=True,
        )
    pids = [oracle.program().positionid(b.tolist()) for b in boards]
    phases = ["race" if r else "contact" for r in is_race(boards).tolist()]

    cache = load_cache(args.judge_cache)
    rows, t_gnubg, asked = [], 0.0, 0
    for name in names:
        spec = STATES[name]
        state = cube_state(spec)
        ours = {plies: cube_analysis(tree, state) for plies, tree in trees.items()}
        t0 = time.perf_counter()
        for i, pid in enumerate(pids):
            key = f"{pid}|{name}|{args.judge_plies}"
            if key not in cache:
                cache[key] = oracle.cube_analysis(pid, *spec[1:])
                asked += 1
            gn = cache[key]
            if gn[3] is None:
                continue
            for plies, analysis in ours.items():
                record = analysis.record(i)
                rows.append(
                    {
                        "state": name,
                        "phase": phases[i],
                        "plies": plies,
                        "position_id": pid,
                        "gnubg": {"nd": gn[0], "dt": gn[1], "dp": gn[2], "decision": gn[3]},
                        "bgai": {k: record[k] for k in ("nd", "dt", "dp", "decision", "take")},
                        **judge(gn, record, state),
                    }
                )
        elapsed = time.perf_counter() - t0
        t_gnubg += elapsed
        print(
            f"  {name}: gnubg {args.judge_plies}-ply {1000 * elapsed / max(len(pids), 1):.0f} ms/position",
            flush=True,
        )
    seconds["gnubg"] = t_gnubg
    args.judge_cache.parent.mkdir(parents=True, exist_ok=True)
    partial = args.judge_cache.with_suffix(".partial")
    partial.write_text(json.dumps(cache))
    partial.replace(args.judge_cache)

    summaries = {}
    for plies in plies_list:
        mine = [r for r in rows if r["plies"] == plies]
        summaries[plies] = {name: summarise([r for r in mine if r["state"] == name]) for name in names}
        for phase in ("contact", "race"):  # where the equity goes: the net's accuracy differs by phase
            summaries[plies][phase] = summarise([r for r in mine if r["phase"] == phase])
        summaries[plies]["all"] = summarise(mine)
        print(
            f"\nbgai {player_name} at {plies}-ply vs gnubg {args.judge_plies}-ply"
            " (equity lost per decision, normalised)"
        )
        print(
            f"{'state':<12} {'n':>5} {'close':>5}  {'double%':>7} {'take%':>6} {'label%':>6}"
            f"  {'dbl loss':>8} {'take loss':>9}  {'per dec':>8} {'close':>8}"
        )
        for name, s in summaries[plies].items():
            print(
                f"{name:<12} {s['n']:>5} {s['n_close']:>5}  {100 * s['double_agreement']:>6.1f}% "
                f"{100 * s['take_agreement']:>5.1f}% {100 * s['label_agreement']:>5.1f}%  "
                f"{s['doubler_loss']:>8.4f} {s['taker_loss']:>9.4f}  {s['loss_per_decision']:>8.4f} "
                f"{s['loss_per_decision_close']:>8.4f}"
            )
    n_pairs = len(pids) * len(names)
    rate = n_pairs / max(t_gnubg, 1e-9)
    print(
        f"\ngnubg {args.judge_plies}-ply: {rate:.1f} analyses/s ({n_pairs} in {t_gnubg:.0f} s, "
        f"{n_pairs - asked} from the cache)"
    )

    args.out.parent.mkdir(parents=True, exist_ok=True)
    settings = {k: (str(v) if isinstance(v, Path) else v) for k, v in vars(args).items()}
    result = {
        "settings": {**settings, "player_name": player_name, "plies": plies_list},
        "seconds": seconds,
        "gnubg_analyses": {"asked": asked, "cached": n_pairs - asked},
        "summary": {str(p): s for p, s in summaries.items()},
        "rows": rows,
    }
    args.out.write_text(json.dumps(result, indent=1))
    print(f"wrote {args.out}")


if __name__ == "__main__":
    run_script(main)
