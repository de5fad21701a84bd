"""Which labels are worth fitting? Each label set and net against a judge, per class.

    python scripts/study/label_quality.py runs/data/db1 --positions 2000 --labels ply1-best \
        --nets best,runs/fit/p1_h128/best.pt

Supervised training can only bring a net as close to the truth as its labels are. This takes
``--positions`` held-out positions of a database (the same number from each class but
bear-offs, which the databases answer exactly), and reports the mean absolute and the mean
signed cubeless-equity error of every label set and of every net at 0-ply (with its bear-off
databases), judged by gnubg's 2-ply evaluation (gnubg judges here; it never labels training
data) or, with ``--judge NAME``, by a label set of the database (rollouts: its positions only,
and the mean standard error of its equities is printed, since that noise adds to every
error). Back-game errors are also signed for the side holding the back game, and crashed
boards' for the crashed side, where a net's bias shows (signed for the player on roll, it
cancels). Intervals are 95 %.
"""

from __future__ import annotations

import argparse

import numpy as np
import torch

from bgai.bots import evaluator_of
from bgai.cli.main import run_script
from bgai.engine.board import CHECKERS
from bgai.model.probs import cubeless_equity
from bgai.search.evaluator import GnubgEvaluator
from bgai.specs import load_player
from bgai.stats import format_ci95
from bgai.train.labels import load_labels
from bgai.train.positions import CLASSES, PositionDatabase, backgame_sides, crashed_side


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("database")
    parser.add_argument("--positions", type=int, default=2000)
    parser.add_argument("--labels", default="ply1-best", help="label names, comma separated")
    parser.add_argument("--nets", default="best", help="player specs valued at 0-ply, comma separated")
    parser.add_argument("--judge", default="gnubg2", help="gnubg2 or a label name of the database")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    db = PositionDatabase.load(args.database)
    names = [name for name in args.labels.split(",") if name]
    labels = {name: load_labels(args.database, name) for name in names + [args.judge] if name != "gnubg2"}
    covered = np.ones(len(db), dtype=bool)
    for lab in labels.values():
        has = np.zeros(len(db), dtype=bool)
        has[lab.index] = True
        covered &= has
    classes = [c for c in CLASSES if c != "bearoff"]
    rng = np.random.default_rng(args.seed)
    rows = np.concatenate(
        [
            rng.permutation(np.flatnonzero(db.held_out & covered & (db.klass == CLASSES.index(c))))[
                : args.positions // len(classes)
            ]
            for c in classes
        ]
    )
    boards = torch.as_tensor(db.boards[rows])
    equities = {
        name: cubeless_equity(torch.as_tensor(lab.probs[np.searchsorted(lab.index, rows)])).numpy()
        for name, lab in labels.items()
    }
    if args.judge == "gnubg2":
        judge, judge_name = cubeless_equity(GnubgEvaluator(2).evaluate(boards)).numpy(), "gnubg 2-ply"
    else:
        judge = equities[args.judge]
        se = labels[args.judge].se[np.searchsorted(labels[args.judge].index, rows)]
        judge_name = f"labels {args.judge} (mean SE {se.mean():.4f})"
    errors = {f"labels {name}": equities[name] - judge for name in names}
    for spec in args.nets.split(","):
        evaluator = evaluator_of(load_player(spec), "judging")[0]
        errors[f"net {spec}"] = cubeless_equity(evaluator.evaluate(boards)).numpy() - judge
    klass = db.klass[rows]
    print(
        f"cubeless equity error against {judge_name}, {len(rows)} held-out positions "
        f"({', '.join(f'{c} {int((klass == CLASSES.index(c)).sum())}' for c in classes)})"
    )
    for title, measure in (("mean absolute error", np.abs), ("mean signed error (bias)", lambda e: e)):
        print(f"{title:<40}" + "".join(f"{c:>18}" for c in ["all", *classes]))
        for name, err in errors.items():
            e = measure(err)
            cells = [e] + [e[klass == CLASSES.index(c)] for c in classes]
            print(f"{name:<40}" + "".join(_cell(c) for c in cells))
    # a back game's error is one-sided: signed by the side holding it, the bias shows
    backgame = klass == CLASSES.index("backgame")
    sign = np.where(backgame_sides(db.boards[rows[backgame]])[:, 1].numpy(), 1.0, -1.0)
    print("back games, signed for the side holding the back game (bias)")
    for name, err in errors.items():
        print(f"{name:<40}" + _cell(sign * err[backgame]))
    # so is a crashed board's, where one side alone has crashed
    side = crashed_side(db.boards[rows])
    crashed = (klass == CLASSES.index("crashed")) & (side != 0)
    sign = side[crashed]
    off = CHECKERS - db.boards[rows[crashed]].sum(-1)  # borne off, [opponent, on roll]
    bearing_off = np.where(sign > 0, off[:, 1], off[:, 0]) > 0
    print(
        f"crashed boards of one side, signed for the crashed side (bias): all ({int(crashed.sum())}), "
        f"bearing off against contact ({int(bearing_off.sum())}), not yet ({int((~bearing_off).sum())})"
    )
    for name, err in errors.items():
        e = sign * err[crashed]
        print(f"{name:<40}" + "".join(_cell(part) for part in (e, e[bearing_off], e[~bearing_off])))


def _cell(errors: np.ndarray) -> str:
    return f"{format_ci95(errors):>19}"


if __name__ == "__main__":
    run_script(main)
