"""Standard error of a rollout against its trials, with and without variance reduction and
quasi-random dice, measured over independent dice seeds (not as the rollout reports it).

    nice python scripts/measure/rollout_variance.py              # 8 positions, ~30 CPU-min
    python scripts/measure/rollout_variance.py --positions 4 --seeds 8 --vr-seeds 4 --max-trials 144 \
        --vr-max-trials 36

Positions: ``--positions`` contact positions from ``best``'s 0-ply self-play (scripts/
measure/rollout_common.py), rolled out by ``best`` at 0-ply to the end (or the exact two-sided table).
For each of the four settings (plain dice or quasi-random, without or with variance reduction)
and each number of trials n, the n-trial rollout of every position is played with several dice
seeds (``--seeds`` × 36 / n of them without variance reduction, ``--vr-seeds`` × 36 / n with it,
at least ``--min-seeds``; :func:`bgai.rollout.trials.play_block`, the loop
:func:`bgai.rollout.rollout_positions` runs). The SE at n trials is the spread of the n-trial
means over the seeds (the unbiased variance over seeds, pooled over positions, square-rooted):
what the estimate really scatters by. The SE a rollout reports (the spread of its own trials
over √n) is printed too: it is right for plain dice and overstates the error of quasi-random
dice, whose first rolls are balanced. Last: how many trials without variance reduction give the
SE of 144 with it, and the CPU time per trial of each setting.
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
from bgai.cli.main import run_script  # noqa: E402
from bgai.rollout import RolloutSettings  # noqa: E402
from bgai.rollout.trials import EQUITY, play_block  # noqa: E402
from bgai.specs import load_player  # noqa: E402

LEVELS = (36, 144, 576, 1296)


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--positions", type=int, default=8)
    parser.add_argument(
        "--seeds", type=int, default=32, help="dice seeds at 36 trials, fewer for more trials"
    )
    parser.add_argument("--vr-seeds", type=int, default=16, help="the same with variance reduction")
    parser.add_argument("--min-seeds", type=int, default=4)
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
        levels = [k for k in LEVELS if k <= n]
        real, naive, cpu, played = [], [], 0.0, 0
        for li, k in enumerate(levels):
            seeds = max(args.min_seeds, round((args.vr_seeds if vr else args.seeds) * 36 / k))
            means, reported = [], []
            for s in range(seeds):
                play = RolloutSettings(
                    trials=k, variance_reduction=vr, quasi_random=quasi, seed=args.seed + 1000 * (li + 1) + s
                ).play()
                with Clock() as clock:
                    est = play_block(evaluator, boards, np.arange(k), play, None, exact)[
                        ..., EQUITY
                    ]  # (P, k)
                cpu += clock.cpu
                played += k * len(boards)
                means.append(est.mean(1))
                reported.append(est.std(1, ddof=1) / np.sqrt(k))
            real.append(np.sqrt(np.array(means).var(0, ddof=1).mean()))  # over seeds, pooled over positions
            naive.append(np.sqrt((np.array(reported) ** 2).mean()))
            print(f"  {dice}, VR {vr}: {k} trials x {seeds} seeds", file=sys.stderr, flush=True)
        real, naive = np.array(real), np.array(naive)
        rows[(dice, vr)] = dict(
            levels=levels, real=real, naive=naive, ms=1000 * cpu / (args.seeds * n * len(boards))
        )

    print(
        f"\n{len(boards)} contact positions from best's self-play (seed {args.seed}), best at 0-ply to the "
        f"end; equity SE over dice seeds (reported SE in brackets)\n"
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
    run_script(main)
