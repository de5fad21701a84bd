"""Are a net's probabilities biased where cube decisions are made? Each output against gnubg 2-ply.

    python scripts/study/value_bias.py --nets gnubg,best_td,best,best@2ply --positions runs/cube_quality.json

Cube decisions turn on the level of the values (above all the strong side's gammons), which a
move-choice fit does not see: a net taught its own search's choices inherits its search's bias.
This takes the positions of a ``scripts/measure/cube_quality.py`` run (``--out`` JSON: positions
where a double is plausible; ``--phase`` contact, race or all) and prints, for every player at
its own plies, the mean signed error of each of the five probabilities (win, gammon win,
backgammon win, gammon loss, backgammon loss of the player on roll) and of the cubeless equity,
and the equity's mean absolute error, judged by gnubg's 2-ply evaluation (95 % intervals).
"""

from __future__ import annotations

import argparse
import json

import numpy as np
import torch

from bgai.bots import evaluator_of
from bgai.cli.main import run_script
from bgai.formats.gnubgid import decode_position_id
from bgai.model.probs import cubeless_equity
from bgai.search import evaluate_position
from bgai.search.evaluator import GnubgEvaluator
from bgai.specs import load_player
from bgai.stats import format_ci95

OUTPUTS = ("win", "gammon", "bg", "gammon lost", "bg lost")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--nets", default="gnubg,best", help="player specs (NET@Nply for search)")
    parser.add_argument("--positions", default="runs/cube_quality.json", help="a cube_quality.py --out file")
    parser.add_argument("--phase", default="contact", choices=("contact", "race", "all"))
    parser.add_argument("--threads", type=int, default=1)
    args = parser.parse_args(argv)
    torch.set_num_threads(args.threads)
    try:
        rows = json.loads(open(args.positions).read())["rows"]
    except (OSError, ValueError, KeyError, TypeError) as e:
        parser.error(f"{args.positions}: not a cube_quality.py output ({e})")
    ids = sorted({r["position_id"] for r in rows if args.phase in ("all", r["phase"])})
    boards = torch.as_tensor(np.stack([decode_position_id(i) for i in ids]))
    truth = GnubgEvaluator(plies=2).evaluate(boards)
    print(f"{len(ids)} {args.phase} positions of {args.positions}; errors against gnubg 2-ply (95 %)")
    print(f"{'player':28s}" + "".join(f"{o:>17s}" for o in (*OUTPUTS, "equity")) + f"{'equity |error|':>17s}")
    for spec in args.nets.split(","):
        evaluator, plies, _ = evaluator_of(load_player(spec), "valuing positions")
        with torch.no_grad():
            probs = evaluate_position(evaluator, boards, plies)
        error = torch.cat([probs - truth, (cubeless_equity(probs) - cubeless_equity(truth))[:, None]], 1)
        cells = [format_ci95(e) for e in error.T.numpy()] + [format_ci95(np.abs(error[:, -1].numpy()))]
        print(f"{spec:28s}" + "".join(f"{c:>17s}" for c in cells))
    return 0


if __name__ == "__main__":
    run_script(main)
