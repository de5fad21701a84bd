"""Calibrate the ladder's noise: grade the net at 0-ply with several noise values.

    python scripts/study/calibrate_ladder.py --noise 0 0.02 0.05 0.1 0.15 --games 100 --decisions 300

Each noise value is graded as ``bgai grade`` would grade a level with it (its own games against
the reference bots, then a seeded sample of its unforced decisions judged, by gnubg 2-ply when
installed), so the error rates printed are what ``scripts/build/build_ladder.py`` will report for a
0-ply level with that noise, up to sampling error. One line per noise value on stdout.

With ``--paired N`` every noise value instead plays the same N positions (drawn from the
noiseless player's graded games) and :func:`bgai.opponent.grade.paired_grade` compares them:
far tighter differences between noise values, at the cost of not being each one's own games.
"""

from __future__ import annotations

import argparse
import sys

import torch

from bgai.bots.players import SearchPlayer
from bgai.cli.main import run_script
from bgai.model.checkpoint import load_net
from bgai.opponent.grade import grade, paired_grade
from bgai.search.evaluator import NetEvaluator
from bgai.specs import load_judge


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--checkpoint", default="checkpoints/best.pt")
    parser.add_argument("--noise", type=float, nargs="+", required=True, help="noise values to grade")
    parser.add_argument("--plies", type=int, default=0)
    parser.add_argument("--games", type=int, default=100, help="games against each reference bot")
    parser.add_argument("--decisions", type=int, default=300, help="decisions judged per noise value")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--judge", help="judge spec (default gnubg@2ply if installed)")
    parser.add_argument("--paired", type=int, default=0, help="judge all on the same N positions instead")
    parser.add_argument("--threads", type=int, default=1)
    args = parser.parse_args(argv)

    torch.set_num_threads(args.threads)
    evaluator = NetEvaluator(load_net(args.checkpoint))
    judge = load_judge(args.judge, evaluator)
    if args.paired:
        players = [SearchPlayer(evaluator, args.plies, noise=n, name=f"noise {n:g}") for n in args.noise]
        base = SearchPlayer(evaluator, args.plies, name="noise 0")
        pool = grade(base, games=args.games, seed=args.seed, judge=judge, decisions=args.paired).judged
        print(paired_grade(players, pool, judge, seed=args.seed, progress=True).table(), flush=True)
        return 0
    for noise in args.noise:
        player = SearchPlayer(evaluator, args.plies, noise=noise, name=f"noise {noise:g}")
        r = grade(player, games=args.games, seed=args.seed, judge=judge, decisions=args.decisions)
        ppg = "  ".join(f"{m.opponent} {m.ppg:+.3f}±{m.ci95:.3f}" for m in r.matches)
        print(
            f"noise {noise:.3f}  error rate {r.error_rate:5.1f} ± {r.error_rate_ci95:4.1f}  {r.rating:<12}"
            f"  {ppg}  ({r.decisions} decisions, {r.seconds:.0f} s)",
            flush=True,
        )
    print(f"judged by {judge.name}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    run_script(main)
