"""Rollout speed: bgai's batched trials against gnubg's own rollout, on the same positions.

    python scripts/measure/bench_rollout.py                     # ~10 min on the shared 2-core machine
    python scripts/measure/bench_rollout.py --positions 8 --scale 0.5 --profile

Positions: ``--positions`` contact positions from ``best``'s 0-ply self-play (scripts/
measure/rollout_common.py). Four kinds of cubeless 0-ply rollout, each with its own trials per position
(``--scale`` multiplies them): full (to the end, or to the exact two-sided bear-off table) and
truncated after ``--truncate`` plies (0-ply value there), each without and with variance
reduction; quasi-random dice throughout.

* bgai: :func:`bgai.rollout.rollout_positions` with ``best`` (its net behind the bear-off
  databases; a 0-ply rollout moves by the full net, not the pruning net), one process (one
  torch thread) and two worker processes, all positions of a kind in one call.
* gnubg: its ``rollout`` command (scripts/measure/rollout_common.py says how and with which settings),
  one position at a time with one and with two threads; the time counted is the ``rollout``
  command's alone, each position with its own seed (gnubg's evaluation cache is on, as in
  normal use, but never sees the same game twice).

Each row runs gnubg 1 thread, bgai 1 process, gnubg 2 threads, bgai 2 processes in turn, so
they share the machine's load. Printed: trials per second of wall clock, and trials per CPU
second (this process and its threads and children: what the work costs, whatever else runs),
and bgai over gnubg (one process or thread). With ``--profile`` a cProfile of bgai's full
rollout without variance reduction (one process) says where its time goes.
"""

from __future__ import annotations

import argparse
import cProfile
import json
import pstats
import sys
from pathlib import Path

import numpy as np
import torch

sys.path.insert(0, str(Path(__file__).resolve().parent))
from rollout_common import Clock, GnubgRollouts, selfplay_boards  # noqa: E402

from bgai.bots import evaluator_of  # noqa: E402
from bgai.cli.main import run_script  # noqa: E402
from bgai.formats import encode_position_id  # noqa: E402
from bgai.rollout import RolloutSettings, rollout_positions  # noqa: E402
from bgai.specs import load_player  # noqa: E402

KINDS = [  # (name, truncated?, variance reduction, trials per position before --scale)
    ("full", False, False, 288),
    ("full, VR", False, True, 18),
    ("truncated", True, False, 576),
    ("truncated, VR", True, True, 72),
]


def bgai_rollout(evaluator, boards, trials, truncate, vr, processes, seed) -> dict:
    settings = RolloutSettings(
        trials=trials, truncate=truncate, variance_reduction=vr, processes=processes, seed=seed
    )
    with Clock() as clock:
        result = rollout_positions(evaluator, boards, settings)
    n = trials * len(boards)
    return dict(
        wall=clock.wall,
        cpu=clock.cpu,
        rate=n / clock.wall,
        per_cpu=n / clock.cpu,
        se=float(np.sqrt(np.mean(result.equity_se**2))),
    )


def gnubg_rollout(gnubg: GnubgRollouts, ids, trials, truncate, vr, threads, seed) -> dict:
    gnubg.configure(trials=trials, truncate=truncate, variance_reduction=vr, threads=threads)
    wall, ses = 0.0, []
    with Clock() as clock:
        for i, pid in enumerate(ids):
            r = gnubg.rollout(pid, seed=seed + i)
            wall += r.seconds
            ses.append(r.equity_se)
    n = trials * len(ids)
    # CPU of the whole loop (the few commands around each rollout cost next to nothing)
    return dict(
        wall=wall,
        cpu=clock.cpu,
        rate=n / wall,
        per_cpu=n / clock.cpu,
        se=float(np.sqrt(np.mean(np.square(ses)))),
    )


def profile(evaluator, boards, trials) -> None:
    profiler = cProfile.Profile()
    profiler.enable()
    rollout_positions(evaluator, boards, RolloutSettings(trials=trials, variance_reduction=False, seed=9))
    profiler.disable()
    stats = pstats.Stats(profiler)
    total = stats.total_tt
    wanted = {
        "hand-crafted features (all)": "extended_features",
        "  of which contact_features": "contact_features",
        "  of which rich_features": "rich_features",
        "net first layer (embedding_bag)": "embedding_bag",
        "whole net forward (features included)": "logits",
        "move generation (expand)": "expand",
        "bear-off table lookups": "bearoff_probs",
    }
    print(f"\nProfile of bgai's full rollout without VR, one process ({total:.1f} s in all):")
    for label, name in wanted.items():
        cum = max((v[3] for k, v in stats.stats.items() if k[2] == name), default=0.0)
        print(f"  {label:<40} {cum:7.1f} s  {100 * cum / total:5.1f} %")


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--positions", type=int, default=16)
    parser.add_argument("--scale", type=float, default=1.0, help="multiply every kind's trials")
    parser.add_argument("--truncate", type=int, default=7)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--profile", action="store_true")
    parser.add_argument("--json", type=Path, help="write the figures here too")
    args = parser.parse_args()

    torch.set_num_threads(1)
    boards = selfplay_boards(args.positions, seed=args.seed, kind="contact")
    ids = [encode_position_id(b) for b in boards.numpy()]
    evaluator, _, _ = evaluator_of(load_player("best"))
    gnubg = GnubgRollouts(threads=1)
    print(
        f"{len(boards)} contact positions from best's self-play (seed {args.seed}); cubeless 0-ply "
        f"rollouts, quasi-random dice, exact two-sided bear-off stop; truncation at {args.truncate} plies"
    )
    rows = []
    for k, (name, truncated, vr, base) in enumerate(KINDS):
        trials = max(36, int(round(base * args.scale / 18)) * 18)
        truncate = args.truncate if truncated else None
        seed = 1000 * (k + 1) + args.seed
        row = dict(kind=name, trials=trials)
        row["gnubg_1"] = gnubg_rollout(gnubg, ids, trials, truncate, vr, 1, seed)
        row["bgai_1"] = bgai_rollout(evaluator, boards, trials, truncate, vr, 1, seed)
        row["gnubg_2"] = gnubg_rollout(gnubg, ids, trials, truncate, vr, 2, seed + 100)
        row["bgai_2"] = bgai_rollout(evaluator, boards, trials, truncate, vr, 2, seed + 100)
        rows.append(row)
        print(f"  {name}: done", file=sys.stderr, flush=True)

    print(
        "\nTrials per second (wall clock) and bgai / gnubg with 1 and 2 processes or threads; trials per "
        "CPU second (1 process or thread) and bgai / gnubg; equity SE (RMS over positions, 1 process)"
    )
    print(
        "| rollout | trials/pos | gnubg 1 thr | bgai 1 proc | ratio | gnubg 2 thr | bgai 2 procs | ratio "
        "| per CPU-s: gnubg | bgai | ratio | SE gnubg | SE bgai |"
    )
    print("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
    for r in rows:
        g1, b1, g2, b2 = r["gnubg_1"], r["bgai_1"], r["gnubg_2"], r["bgai_2"]
        g_cpu, b_cpu = g1["per_cpu"], b1["per_cpu"]
        print(
            f"| {r['kind']} | {r['trials']} | {g1['rate']:.0f} | {b1['rate']:.0f} "
            f"| {b1['rate'] / g1['rate']:.2f}× "
            f"| {g2['rate']:.0f} | {b2['rate']:.0f} | {b2['rate'] / g2['rate']:.2f}× "
            f"| {g_cpu:.0f} | {b_cpu:.0f} | {b_cpu / g_cpu:.2f}× | {g1['se']:.4f} | {b1['se']:.4f} |"
        )
    if args.json:
        args.json.write_text(json.dumps(dict(positions=ids, truncate=args.truncate, rows=rows), indent=1))
    if args.profile:
        profile(evaluator, boards, max(36, int(72 * args.scale)))


if __name__ == "__main__":
    run_script(main)
