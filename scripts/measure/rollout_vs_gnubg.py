"""bgai's rollout machinery driven by gnubg's own net against gnubg's own rollout.

    nice python scripts/measure/rollout_vs_gnubg.py                 # 200 positions, ~15 CPU-min
    python scripts/measure/rollout_vs_gnubg.py --positions 20 --trials 72 --full-trials 18

Positions: ``--positions`` contact positions from ``best``'s 0-ply self-play (scripts/
measure/rollout_common.py). Each is rolled out twice over, cubeless, both sides moving at 0-ply by gnubg's
net, quasi-random dice, no variance reduction, trials stopped where both sides are in the exact
two-sided bear-off table:

* bgai: :func:`bgai.rollout.rollout_positions` with :class:`bgai.search.GnubgEvaluator` (gnubg's
  0-ply net through ``gnubg_nn.probabilities``, one board at a time), bgai's own dice and two-
  sided table; one call per position, each with its own dice seed (the positions of one call
  share their dice, which would tie their errors together);
* gnubg: its ``rollout`` command with the settings scripts/measure/rollout_common.py lists (cubeless
  0-ply checker play without pruning, exact bear-off stop, no one-sided stop).

Three kinds: truncated after 2 plies with 1,296 trials on the first ``--exact-positions``
(quasi-random dice hold every pair of first two rolls exactly once in 1,296 trials, so both
rollouts are the exact two-roll average of gnubg's 0-ply values and must agree to the last
printed digit); truncated after ``--truncate`` plies (both value the position there with gnubg's
0-ply net: gnubg's truncation evaluation set to 0-ply) with ``--trials`` (bgai) and
``--gnubg-trials``; played to the end with ``--full-trials`` and ``--gnubg-full-trials``.
Per position ``z = (bgai - gnubg) / sqrt(SE_bgai² + SE_gnubg²)`` for the cubeless equity and the
win chance; printed: the share within 2 combined SEs (95 % expected if both estimate the same
value), mean |z| and RMS z (~0.8 and 1), the mean difference with its SE, the largest
difference. Results go to ``--cache`` (JSON, per kind and position) as they come; a rerun only
does what is missing.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

import numpy as np
import torch

sys.path.insert(0, str(Path(__file__).resolve().parent))
from rollout_common import Clock, GnubgRollouts, selfplay_boards  # noqa: E402

from bgai.cli.main import run_script  # noqa: E402
from bgai.formats import encode_position_id  # noqa: E402
from bgai.rollout import RolloutSettings, rollout_positions  # noqa: E402
from bgai.search.evaluator import GnubgEvaluator  # noqa: E402


def load(path: Path) -> dict:
    return json.loads(path.read_text()) if path.is_file() else {}


def save(path: Path, cache: dict) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_suffix(".tmp")
    tmp.write_text(json.dumps(cache))
    tmp.replace(path)


def run_kind(name, boards, ids, truncate, trials, gnubg_trials, seed, cache, path) -> None:
    """Fill ``cache[name][pid] = {"bgai": ..., "gnubg": ...}`` for every position."""
    done = cache.setdefault(name, {})
    gnubg = GnubgRollouts(threads=1)
    gnubg.configure(trials=gnubg_trials, truncate=truncate)
    cpu = {"gnubg": 0.0, "bgai": 0.0}
    for i, pid in enumerate(ids):
        if "gnubg" not in done.get(pid, {}):
            with Clock() as clock:
                r = gnubg.rollout(pid, seed=seed + i)
            cpu["gnubg"] += clock.cpu
            done.setdefault(pid, {})["gnubg"] = dict(
                equity=r.equity, equity_se=r.equity_se, win=r.probs[0], win_se=r.probs_se[0], trials=r.trials
            )
            if i % 20 == 19:
                save(path, cache)
    save(path, cache)
    evaluator = GnubgEvaluator(0)
    todo = [i for i, pid in enumerate(ids) if "bgai" not in done[pid]]
    for k, i in enumerate(todo):  # one call per position: its own dice (one batch shares them)
        settings = RolloutSettings(trials=trials, truncate=truncate, variance_reduction=False, seed=seed + i)
        with Clock() as clock:
            r = rollout_positions(evaluator, boards[i : i + 1], settings)
        cpu["bgai"] += clock.cpu
        done[ids[i]]["bgai"] = dict(
            equity=float(r.equity[0]),
            equity_se=float(r.equity_se[0]),
            win=float(r.probs[0, 0]),
            win_se=float(r.probs_se[0, 0]),
            trials=int(r.trials[0]),
        )
        if k % 10 == 9 or k == len(todo) - 1:
            save(path, cache)
            print(f"  {name}: bgai {k + 1}/{len(todo)}", file=sys.stderr, flush=True)
    print(
        f"  {name}: CPU seconds this run: gnubg {cpu['gnubg']:.0f}, bgai {cpu['bgai']:.0f}", file=sys.stderr
    )


def compare(name: str, records: list[dict]) -> None:
    for quantity in ("equity", "win"):
        b = np.array([r["bgai"][quantity] for r in records])
        g = np.array([r["gnubg"][quantity] for r in records])
        sb = np.array([r["bgai"][quantity + "_se"] for r in records])
        sg = np.array([r["gnubg"][quantity + "_se"] for r in records])
        combined = np.sqrt(sb**2 + sg**2)
        z = (b - g) / np.maximum(combined, 1e-12)
        diff = b - g
        mean_se = np.sqrt((combined**2).sum()) / len(diff)
        print(
            f"| {name} | {quantity} | {len(records)} | {records[0]['bgai']['trials']} / "
            f"{records[0]['gnubg']['trials']} | {100 * np.mean(np.abs(z) <= 2):.1f} % "
            f"| {np.abs(z).mean():.2f} | {np.sqrt((z**2).mean()):.2f} | {diff.mean():+.5f} ± {mean_se:.5f} "
            f"| {np.abs(diff).max():.5f} | {np.sqrt((sb**2).mean()):.4f} | {np.sqrt((sg**2).mean()):.4f} |"
        )


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--positions", type=int, default=200)
    parser.add_argument("--exact-positions", type=int, default=20)
    parser.add_argument("--truncate", type=int, default=8)
    parser.add_argument("--trials", type=int, default=288, help="bgai, truncated")
    parser.add_argument("--gnubg-trials", type=int, default=1296, help="gnubg, truncated")
    parser.add_argument("--full-trials", type=int, default=72, help="bgai, to the end")
    parser.add_argument("--gnubg-full-trials", type=int, default=576, help="gnubg, to the end")
    parser.add_argument("--seed", type=int, default=11)
    parser.add_argument("--cache", type=Path, default=Path("runs/rollout/vs_gnubg.json"))
    args = parser.parse_args()

    torch.set_num_threads(1)
    boards = selfplay_boards(args.positions, seed=args.seed, kind="contact")
    ids = [encode_position_id(b) for b in boards.numpy()]
    cache = load(args.cache)
    kinds = [
        ("truncated at 2, every pair of first rolls", 2, 1296, 1296, args.exact_positions),
        (f"truncated at {args.truncate}", args.truncate, args.trials, args.gnubg_trials, len(ids)),
        ("to the end", None, args.full_trials, args.gnubg_full_trials, len(ids)),
    ]
    for name, truncate, trials, gnubg_trials, n in kinds:
        key = f"{name}, bgai {trials}, gnubg {gnubg_trials}"
        run_kind(key, boards[:n], ids[:n], truncate, trials, gnubg_trials, args.seed, cache, args.cache)
    print(
        f"{len(ids)} contact positions from best's self-play (seed {args.seed}); cubeless, 0-ply checker "
        "play by gnubg's net on both sides, quasi-random dice, no variance reduction, exact two-sided "
        "bear-off stop\n"
    )
    print("| rollout | value | positions | trials bgai / gnubg | within 2 SE | mean abs z | RMS z ", end="")
    print("| mean bgai - gnubg | largest difference | RMS SE bgai | RMS SE gnubg |")
    print("|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
    for name, _, trials, gnubg_trials, n in kinds:
        key = f"{name}, bgai {trials}, gnubg {gnubg_trials}"
        compare(name, [cache[key][pid] for pid in ids[:n]])


if __name__ == "__main__":
    run_script(main)
