"""Where do the cube decisions' losses come from? The values behind them, per class.

    python scripts/measure/cube_quality.py --player best --plies 0 --out runs/cq_best.json
    python scripts/study/cube_set_values.py runs/cq_best.json --nets best,runs/fitM/r1/best.pt
    python scripts/study/cube_set_values.py runs/cq_best.json --nets best --rollout-trials 36

Takes the positions of a ``cube_quality.py`` run (its ``--out`` JSON) and prints, per class of
:func:`bgai.train.positions.classify`: the share of the equity lost per decision of every
``--out`` file given (``--losses``: the run's own by default), and each net's cubeless-equity
error at 0-ply against gnubg's 2-ply evaluation (mean absolute and signed), with gnubg 0-ply's
beside it. Crashed boards of one side are also signed for the crashed side, where the errors
are one-sided; ``--rollout-trials N`` rolls those out with the first net (variance reduced,
seeded) to tell its evaluation from its play. gnubg judges only. Intervals are 95 %.
"""

from __future__ import annotations

import argparse
import json

import numpy as np
import torch

from bgai.bots import evaluator_of
from bgai.cli.main import run_script
from bgai.formats import decode_position_id
from bgai.model.probs import cubeless_equity
from bgai.rollout import RolloutSettings, rollout_positions
from bgai.search.evaluator import GnubgEvaluator
from bgai.specs import load_player
from bgai.stats import format_ci95
from bgai.train.positions import CLASSES, classify, crashed_side


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("cube_quality", help="the --out JSON of a cube_quality.py run")
    parser.add_argument("--nets", default="best", help="player specs valued at 0-ply, comma separated")
    parser.add_argument("--losses", default="", help="more cube_quality.py JSON files whose losses to split")
    parser.add_argument("--rollout-trials", type=int, default=0)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    runs = [args.cube_quality, *[f for f in args.losses.split(",") if f]]
    rows = json.load(open(args.cube_quality))["rows"]
    ids = sorted({r["position_id"] for r in rows})
    boards = torch.as_tensor(np.stack([decode_position_id(i) for i in ids]))
    klass = classify(boards)
    present = [c for c in range(len(CLASSES)) if (klass == c).any()]
    print(f"{len(ids)} positions: " + ", ".join(f"{CLASSES[c]} {int((klass == c).sum())}" for c in present))

    print(
        f"\nequity lost per decision, by class{'':<6}"
        + "".join(f"{CLASSES[c]:>10}" for c in present)
        + "       all"
    )
    for run in runs:
        loss = np.zeros(len(ids))
        decisions = json.load(open(run))["rows"]
        for r in decisions:
            loss[ids.index(r["position_id"])] += (r["doubler_loss"] + r["taker_loss"]) / 2
        shares = [loss[klass == c].sum() / len(decisions) for c in present]
        print(f"{run:<40}" + "".join(f"{s:>10.5f}" for s in shares) + f"{loss.sum() / len(decisions):>10.5f}")

    judge = cubeless_equity(GnubgEvaluator(2).evaluate(boards)).numpy()
    errors = {"gnubg 0-ply": cubeless_equity(GnubgEvaluator(0).evaluate(boards)).numpy() - judge}
    evaluators = {}
    for spec in args.nets.split(","):
        evaluators[spec] = evaluator_of(load_player(spec), "judging")[0]
        errors[spec] = cubeless_equity(evaluators[spec].evaluate(boards)).numpy() - judge
    for title, measure in (("mean absolute error", np.abs), ("mean signed error", lambda e: e)):
        print(
            f"\ncubeless equity {title} against gnubg 2-ply" + "".join(f"{CLASSES[c]:>18}" for c in present)
        )
        for name, err in errors.items():
            e = measure(err)
            print(f"{name:<48}" + "".join(_cell(e[klass == c]) for c in present))

    side = crashed_side(boards)
    crashed = (klass == CLASSES.index("crashed")) & (side != 0)
    sign = side[crashed]
    print(f"\ncrashed boards of one side ({int(crashed.sum())}), signed for the crashed side: error, bias")
    for name, err in errors.items():
        print(f"{name:<48}" + _cell(np.abs(err[crashed])) + _cell(sign * err[crashed]))
    if args.rollout_trials:
        spec = args.nets.split(",")[0]
        settings = RolloutSettings(trials=args.rollout_trials, seed=args.seed)
        rollout = rollout_positions(evaluators[spec], boards[torch.as_tensor(crashed)], settings)
        err = rollout.equity - judge[crashed]
        name = f"{spec}'s rollouts ({args.rollout_trials} trials, SE {rollout.equity_se.mean():.4f})"
        print(f"{name:<48}" + _cell(np.abs(err)) + _cell(sign * err))


def _cell(errors: np.ndarray) -> str:
    return f"{format_ci95(errors):>19}"


if __name__ == "__main__":
    run_script(main)
