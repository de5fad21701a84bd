"""Rollouts of bear-offs against the exact two-sided table: are they right within their errors?

    python scripts/measure/rollout_exactness.py                 # 500 positions, ~10 CPU-min
    python scripts/measure/rollout_exactness.py --positions 100 --trials 144 --vr-trials 36

Positions: ``--positions`` distinct bear-offs inside the two-sided table (1-6 checkers a side,
all home; scripts/measure/rollout_common.py) whose exact win chance lies between 5 % and 95 % (a nearly
certain result leaves many rollouts without a single other outcome, and their SE at 0). Each
is rolled out played to the end (``bearoff=False``: the table is not used to stop the trials)
and compared with the table's exact cubeless equity (no gammons are possible here, so the
equity is 2 p - 1 of the exact win chance p):

* ``perfect``: the databases themselves play, without variance reduction: a check of the trial
  loop and of the standard errors (the rollout is unbiased for the exact value);
* ``best:nodb``: the network alone plays (and measures the luck), without and with variance
  reduction; its rollout is unbiased for the value of the game *as the net plays it*, so a net
  that misplays bear-offs would show as errors beyond the SEs.

Each position is rolled out in its own call with its own dice seed: the trials of one call's
positions share their dice (trial i rolls the same numbers for every position), which ties the
errors of positions in one batch together and makes their mean error stray beyond its SE.

Printed per row: the share of positions within 2 SE of the exact value (SE as the rollout
reports it; quasi-random dice make that SE a slight overestimate), the mean error and its
standard error (the root of the summed squared SEs over the count), the mean |z| and RMS z (~0.8
and 1 expected from a normal error), the RMS SE, and the SD of one trial (SE × √trials). Then:
how the net's rollouts with and without variance reduction agree with each other (both
estimate the game as the net plays it, on other dice); how often the net alone misplays these
bear-offs by the table (which is what its rollouts then measure); and by what factor variance
reduction cuts the SE at equal trials, how many trials without it match one with it.
"""

from __future__ import annotations

import argparse
import dataclasses
import sys
from pathlib import Path
from types import SimpleNamespace

import numpy as np
import torch

sys.path.insert(0, str(Path(__file__).resolve().parent))
from rollout_common import Clock, small_bearoffs  # noqa: E402

from bgai.bearoff import BearoffEvaluator  # noqa: E402
from bgai.bots import evaluator_of  # noqa: E402
from bgai.cli.main import run_script  # noqa: E402
from bgai.model.probs import cubeless_equity  # noqa: E402
from bgai.rollout import RolloutSettings, rollout_positions  # noqa: E402
from bgai.search.evaluator import afterstate_values  # noqa: E402
from bgai.search.ply import ROLL_WEIGHTS, roll_moves  # noqa: E402
from bgai.specs import load_player  # noqa: E402

FIELDS = ("trials", "equity", "equity_se")


def uncertain_bearoffs(n: int, seed: int, exact: BearoffEvaluator) -> torch.Tensor:
    pool = small_bearoffs(4 * n, seed)
    win = exact.evaluate(pool)[:, 0]
    keep = ((win >= 0.05) & (win <= 0.95)).nonzero().squeeze(1)[:n]
    if len(keep) < n:
        raise RuntimeError(f"only {len(keep)} bear-offs with a win chance of 5-95 %")
    return pool[keep]


def net_misplays(net, exact: BearoffEvaluator, boards: torch.Tensor) -> tuple[float, float]:
    """(mean equity lost per decision, share of wrong decisions) of ``net``'s 0-ply move choice
    over every roll of ``boards``, judged by the exact table."""
    ours, _ = roll_moves(net, boards, 0)
    perfect, _ = roll_moves(exact, boards, 0)
    value = [
        cubeless_equity(afterstate_values(exact, m.reshape(-1, 2, 25))).view(len(boards), 21)
        for m in (ours, perfect)
    ]
    loss = (value[1] - value[0]).double()
    weights = ROLL_WEIGHTS.double()
    return float((loss * weights).sum(1).mean()), float(((loss > 1e-6).double() * weights).sum(1).mean())


def summary(name: str, result, truth: np.ndarray, clock: Clock) -> dict:
    err = result.equity - truth
    se = result.equity_se
    trials = int(result.trials[0])
    z = err / np.maximum(se, 1e-12)
    within = np.abs(err) <= 2 * se + 1e-9
    row = dict(
        name=name,
        trials=trials,
        within=float(within.mean()),
        mean_error=float(err.mean()),
        mean_error_se=float(np.sqrt((se**2).sum()) / len(se)),
        mean_abs_z=float(np.abs(z).mean()),
        rms_z=float(np.sqrt((z**2).mean())),
        rms_se=float(np.sqrt((se**2).mean())),
        sd_trial=float(np.sqrt((se**2).mean()) * np.sqrt(trials)),
        cpu=clock.cpu,
    )
    mean = f"{row['mean_error']:+.5f} ± {row['mean_error_se']:.5f}"
    print(
        f"| {name} | {trials} | {100 * row['within']:.1f} % | {mean} | {row['mean_abs_z']:.2f} "
        f"| {row['rms_z']:.2f} | {row['rms_se']:.4f} | {row['sd_trial']:.3f} | {clock.cpu:.1f} |",
        flush=True,
    )
    return row


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--positions", type=int, default=500)
    parser.add_argument("--trials", type=int, default=1296, help="trials without variance reduction")
    parser.add_argument("--vr-trials", type=int, default=324, help="trials with variance reduction")
    parser.add_argument("--seed", type=int, default=0, help="positions and dice")
    parser.add_argument("--processes", type=int, default=1)
    args = parser.parse_args()

    torch.set_num_threads(1)
    exact = BearoffEvaluator(None)
    boards = uncertain_bearoffs(args.positions, args.seed, exact)
    truth = cubeless_equity(exact.evaluate(boards).double()).numpy()
    net, _, _ = evaluator_of(load_player("best:nodb"))
    print(
        f"{len(boards)} bear-offs inside the two-sided table (seed {args.seed}), played to the end, "
        "quasi-random dice; cubeless equity against the exact table\n"
    )
    print(
        "| player | trials | within 2 SE | mean error ± SE | mean abs z | RMS z | RMS SE | SD of a trial ",
        end="",
    )
    print("| CPU s |")
    print("|---|---:|---:|---:|---:|---:|---:|---:|---:|")
    rows, results = [], []
    for row, (name, evaluator, vr, trials) in enumerate(
        [
            ("perfect (the databases), no VR", exact, False, args.trials),
            ("best:nodb, no VR", net, False, args.trials),
            ("best:nodb, VR", net, True, args.vr_trials),
        ]
    ):
        settings = RolloutSettings(
            trials=trials,
            bearoff=False,
            variance_reduction=vr,
            processes=args.processes,
        )
        with Clock() as clock:  # one call per position: its own dice (one batch shares them)
            parts = [
                rollout_positions(
                    evaluator,
                    boards[i : i + 1],
                    dataclasses.replace(settings, seed=args.seed + 100_000 * row + i),
                )
                for i in range(len(boards))
            ]
        result = SimpleNamespace(**{k: np.concatenate([getattr(r, k) for r in parts]) for k in FIELDS})
        rows.append(summary(name, result, truth, clock))
        results.append(result)
    plain, vr = rows[1], rows[2]
    a, b = results[1], results[2]
    z = (b.equity - a.equity) / np.sqrt(a.equity_se**2 + b.equity_se**2)
    print(
        f"\nbest:nodb with VR against best:nodb without (both estimate the net's own game, other dice): "
        f"{100 * np.mean(np.abs(z) <= 2):.1f} % within 2 combined SE, RMS z {np.sqrt(np.mean(z**2)):.2f}"
    )
    lost, share = net_misplays(net, exact, boards)
    print(
        f"best:nodb's own bear-off play, judged by the table: it errs on {100 * share:.1f} % of (position, "
        f"roll) pairs, {lost:.4f} equity per decision on average"
    )
    factor = plain["sd_trial"] / vr["sd_trial"]
    print(
        f"\nVariance reduction (best:nodb): SE at equal trials {factor:.1f}× smaller; one trial with it is "
        f"worth {factor**2:.0f} without; per CPU second "
        f"{factor**2 * (plain['cpu'] / plain['trials']) / (vr['cpu'] / vr['trials']):.1f}× the information."
    )


if __name__ == "__main__":
    run_script(main)
