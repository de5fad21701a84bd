"""Standard error of a rollout against its trials, with and without variance reduction and
quasi-random dice, measured over independent dice seeds (not as the rollout reports it).

    nice python scripts/rollout_variance.py              # 8 positions x 4 seeds, ~20 CPU-min
    python scripts/rollout_variance.py --positions 4 --seeds 3 --max-trials 144 --vr-max-trials 36

Positions: ``--positions`` contact positions from ``best``'s 0-ply self-play (scripts/
rollout_common.py), rolled out by ``best`` at 0-ply to the end (or the exact two-sided table).
For each of the four settings (plain dice or quasi-random, without or with variance reduction)
and each of ``--seeds`` dice seeds, the trials 0 .. N-1 of every position are played once
(:func:`bgai.rollout.trials.play_block`, the loop :func:`bgai.rollout.rollout_positions` runs;
a trial's dice depend only on the seed and its number, so the first n of them *are* the
n-trial rollout). The SE at n trials is the spread of the n-trial means over the seeds (the
unbiased variance over seeds, pooled over positions, square-rooted): what the estimate really
scatters by. The SE a rollout reports (the spread of its own trials over √n) is printed too:
it is right for plain dice and overstates the error of quasi-random dice, whose first rolls
are balanced. Last: how many trials without variance reduction give the SE of 144 with it,
and the CPU time per trial of each setting.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np
import torch

sys.path.insert(0, str(Path(__file__).resolve().parent))
from rollout_common import Clock, selfplay_boards  # noqa: E402

from bgai.bearoff import BearoffEvaluator  # noqa: E402
from bgai.bots import evaluator_of  # noqa: E402
from bgai.rollout import RolloutSettings  # noqa: E402
from bgai.rollout.trials import EQUITY, play_block  # noqa: E402
from bgai.specs import load_player  # noqa: E402

LEVELS = (36, 144, 576, 1296)


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--positions", type=int, default=8)
    parser.add_argument("--seeds", type=int, default=4)
    parser.add_argument("--max-trials", type=int, default=1296, help="without variance reduction")
    parser.add_argument("--vr-max-trials", type=int, default=144, help="with variance reduction")
    parser.add_argument("--seed", type=int, default=21, help="positions; dice seeds follow it")
    args = parser.parse_args()

    torch.set_num_threads(1)
    boards = selfplay_boards(args.positions, seed=args.seed, kind="contact")
    evaluator, _, _ = evaluator_of(load_player("best"))
    exact = BearoffEvaluator(None)
    settings = [
        ("plain", False, False),
        ("quasi-random", True, False),
        ("plain", False, True),
        ("quasi-random", True, True),
    ]
    rows = {}
    for dice, quasi, vr in settings:
        n = args.vr_max_trials if vr else args.max_trials
        means, reported, cpu = [], [], 0.0
        for s in range(args.seeds):
            play = RolloutSettings(
                trials=n, variance_reduction=vr, quasi_random=quasi, seed=args.seed + 1 + s
            ).play()
            with Clock() as clock:
                est = play_block(evaluator, boards, np.arange(n), play, None, exact)[..., EQUITY]  # (P, n)
            cpu += clock.cpu
            levels = [k for k in LEVELS if k <= n]
            means.append([est[:, :k].mean(1) for k in levels])
            reported.append([est[:, :k].std(1, ddof=1) / np.sqrt(k) for k in levels])
            print(f"  {dice}, VR {vr}: seed {s + 1}/{args.seeds}", file=sys.stderr, flush=True)
        means = np.array(means)  # (seeds, levels, P)
        real = np.sqrt(means.var(0, ddof=1).mean(-1))
        naive = np.sqrt((np.array(reported) ** 2).mean((0, 2)))
        rows[(dice, vr)] = dict(
            levels=levels, real=real, naive=naive, ms=1000 * cpu / (args.seeds * n * len(boards))
        )

    print(
        f"\n{len(boards)} contact positions from best's self-play (seed {args.seed}), best at 0-ply to the "
        f"end; equity SE over {args.seeds} dice seeds (reported SE in brackets)\n"
    )
    print(
        "| dice | variance reduction | " + " | ".join(f"{k} trials" for k in LEVELS) + " | CPU ms per trial |"
    )
    print("|---|---|" + "---:|" * len(LEVELS) + "---:|")
    for (dice, vr), row in rows.items():
        cells = []
        for k in LEVELS:
            if k in row["levels"]:
                i = row["levels"].index(k)
                cells.append(f"{row['real'][i]:.4f} ({row['naive'][i]:.4f})")
            else:
                cells.append("")
        print(f"| {dice} | {'yes' if vr else 'no'} | " + " | ".join(cells) + f" | {row['ms']:.1f} |")
    print()
    for dice in ("plain", "quasi-random"):
        plain, reduced = rows[(dice, False)], rows[(dice, True)]
        if 144 not in reduced["levels"]:
            continue
        se_vr = reduced["real"][reduced["levels"].index(144)]
        # without VR the SE falls as 1/sqrt(n): fit sigma on every level measured
        sigma = np.mean([se * np.sqrt(k) for se, k in zip(plain["real"], plain["levels"], strict=True)])
        match = (sigma / se_vr) ** 2
        print(
            f"{dice} dice: 144 trials with variance reduction (SE {se_vr:.4f}) match {match:.0f} trials "
            f"without (SE·√n {sigma:.3f}); per CPU second variance reduction gives "
            f"{match / 144 * plain['ms'] / reduced['ms']:.2f}× the information"
        )


if __name__ == "__main__":
    main()
