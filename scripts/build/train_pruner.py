"""Distil a pruning net: a small tesauro198 net that ranks replies as ``best`` (``--teacher``) does.

    python scripts/build/train_pruner.py [--hidden 64] [--pairs 150000] [--epochs 40] [--seconds 540]
                                   [--threads 1] [--teacher best] [--out checkpoints/best_pruner.pt]

The teacher is ``best`` (or ``--teacher``) with its bear-off databases (``best:noprune``). Its 0-ply self-play
(greedy with a little equity noise) gives (position, roll) pairs; every legal afterstate of
each (sides swapped, opponent on roll: what the search asks the pruner about) is labelled with
the teacher's five probabilities. Bear-offs (both sides all home) and finished games are left
out: the pruner sits behind the same databases and the search values finished games exactly.
The student (:class:`bgai.model.net.ValueNet`, ``tesauro198``, one hidden layer) is fitted by
:func:`bgai.train.distill.distill` and measured on held-out pairs by
:func:`bgai.train.distill.ranking_agreement`. Writes the checkpoint (the usual bgai format plus
a ``distill`` record) and ``<out>.md`` next to it.
"""

from __future__ import annotations

import argparse
import shlex
import sys
import time
from pathlib import Path

import torch

from bgai.bearoff import BearoffEvaluator, is_bearoff
from bgai.bots import evaluator_of
from bgai.cli.main import run_script
from bgai.engine.sampling import sample_positions
from bgai.model.checkpoint import FORMAT, checkpoint_path, save_atomic
from bgai.model.net import ValueNet
from bgai.search import NetEvaluator
from bgai.specs import load_player
from bgai.train.distill import Agreement, afterstates_of, distill, ranking_agreement, selfplay_positions

ROOT = Path(__file__).resolve().parents[2]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--hidden", type=int, default=64, help="hidden units of the pruning net")
    parser.add_argument("--pairs", type=int, default=150_000, help="(position, roll) pairs of training data")
    parser.add_argument("--epochs", type=int, default=40)
    parser.add_argument("--seconds", type=float, default=540.0, help="stop training after this long")
    parser.add_argument("--batch", type=int, default=1024)
    parser.add_argument("--lr", type=float, default=3e-3)
    parser.add_argument("--equity-weight", type=float, default=1.0)
    parser.add_argument("--rank-weight", type=float, default=10.0)
    parser.add_argument("--noise", type=float, default=0.03, help="equity noise of the teacher's self-play")
    parser.add_argument("--games", type=int, default=256, help="self-play games run at once")
    parser.add_argument("--test-pairs", type=int, default=5000, help="held-out pairs per test set")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--threads", type=int, default=1, help="torch threads")
    parser.add_argument("--teacher", default="best", help="the net it prunes for (shipped name or path)")
    parser.add_argument("--out", type=Path, help="where it goes (default: checkpoints/<teacher>_pruner.pt)")
    args = parser.parse_args()
    if args.out is None:  # X.pt carries X_pruner.pt beside it
        base = checkpoint_path(args.teacher)
        args.out = base.with_name(f"{base.stem}_pruner.pt")
    torch.set_num_threads(args.threads)
    command = " ".join(["python scripts/build/train_pruner.py", shlex.join(sys.argv[1:])]).strip()
    begin = time.perf_counter()

    teacher = evaluator_of(load_player(f"{args.teacher}:noprune"), "distilling a pruner")[0]
    boards, dice = selfplay_positions(teacher, args.pairs, args.seed, args.games, args.noise)
    data = afterstates_of(teacher, boards, dice, skip=is_bearoff)
    data_seconds = time.perf_counter() - begin
    print(f"data: {args.pairs} pairs, {len(data)} afterstates in {data_seconds:.0f} s", flush=True)

    torch.manual_seed(args.seed)
    student = ValueNet("tesauro198", (args.hidden,))
    result = distill(
        student,
        data,
        epochs=args.epochs,
        batch=args.batch,
        lr=args.lr,
        seed=args.seed,
        equity_weight=args.equity_weight,
        rank_weight=args.rank_weight,
        seconds=args.seconds,
        log=lambda line: print(line, flush=True),
    )

    pruner = BearoffEvaluator(NetEvaluator(student), teacher.one_sided, teacher.two_sided)
    test_sets = {
        "best's self-play (held-out games)": selfplay_positions(
            teacher, args.test_pairs, args.seed + 1000, args.games, args.noise
        ),
        "greedy-heuristic games (sample_positions)": sample_positions(
            args.test_pairs, "greedy", seed=args.seed
        ),
        "bear-off games with contact (sample_positions)": sample_positions(
            args.test_pairs, "bearoff", seed=args.seed
        ),
    }
    agreements = {name: ranking_agreement(pruner, teacher, b, d) for name, (b, d) in test_sets.items()}
    total_seconds = time.perf_counter() - begin

    config = {k: (_shown(v) if isinstance(v, Path) else v) for k, v in vars(args).items()}
    record = {
        "command": command,
        "config": config,
        "teacher": f"{args.teacher}:noprune ({args.teacher} behind the bear-off databases)",
        "pairs": args.pairs,
        "afterstates": len(data),
        "epochs_run": len(result.losses),
        "samples_seen": result.samples,
        "losses": result.losses,
        "data_seconds": data_seconds,
        "train_seconds": result.seconds,
        "total_seconds": total_seconds,
        "agreement": {
            name: {"pairs": a.pairs, "same": a.same, "equity_lost": a.equity_lost, "in_top": dict(a.in_top)}
            for name, a in agreements.items()
        },
    }
    checkpoint = {"format": FORMAT, "net_spec": student.spec(), "model": student.state_dict()}
    checkpoint["distill"] = record
    save_atomic(checkpoint, args.out)
    args.out.with_suffix(".md").write_text(report(args, record, agreements))
    print(f"wrote {args.out} and {args.out.with_suffix('.md')} ({total_seconds:.0f} s)")
    for name, a in agreements.items():
        print(f"{name}: same move {100 * a.same:.1f} % of {a.pairs} pairs, equity lost {a.equity_lost:.4f}")


def _shown(path: Path) -> str:
    """``path`` relative to the repository when it lies inside it."""
    try:
        return str(path.resolve().relative_to(ROOT))
    except ValueError:
        return str(path)


def report(args: argparse.Namespace, record: dict, agreements: dict[str, Agreement]) -> str:
    lines = [
        f"# `{args.out.name}` — the pruning net of `{args.teacher}`",
        "",
        f'A `ValueNet("tesauro198", hidden=({args.hidden},))` distilled from `{args.teacher}` (see',
        f"`scripts/build/train_pruner.py`, `bgai/train/distill.py`). `{args.teacher}` at 1 ply and deeper "
        "uses it to short-list",
        f"the replies at the search's inner nodes (`{args.teacher}:noprune` does not); `{args.teacher}` "
        "picks among the shortlist (gnubg's rule, `bgai.search.ply.shortlist_sizes`).",
        "",
        "* **Command** (one core):",
        "",
        "```bash",
        f"taskset -c 0 {record['command']}",
        "```",
        "",
        f"* **Config**: `{record['config']}`",
        f"* **Teacher**: {record['teacher']}.",
        f"* **Data**: {record['pairs']:,} (position, roll) pairs of the teacher's 0-ply self-play "
        f"({args.games} games at once, equity noise {args.noise}); all {record['afterstates']:,} legal "
        "afterstates that are not bear-offs or finished games, labelled with the teacher's 0-ply "
        "probabilities.",
        f"* **Loss**: 5 x MSE on the five probabilities + {args.equity_weight} x MSE on equity + "
        f"{args.rank_weight} x MSE on equity relative to the other moves of the same (position, roll); "
        f"Adam, lr {args.lr} cosine to 5 %, batches of {args.batch}.",
        f"* **Training**: {record['epochs_run']} epochs ({record['samples_seen']:,} samples), final loss "
        f"{record['losses'][-1]:.5f}.",
        f"* **Wall time**: {record['data_seconds']:.0f} s data, {record['train_seconds']:.0f} s training, "
        f"{record['total_seconds']:.0f} s in all (with the tests below), on a 2-core machine shared "
        "with other jobs. The learning rate's schedule follows the epochs or the time limit, whichever "
        "is further along, so a rerun on a busier machine can differ.",
        "",
        "**Ranking agreement** with the teacher on held-out (position, roll) pairs with two or more legal",
        "moves, the pruner behind the same bear-off databases (so bear-offs agree by construction): how",
        "often it picks the teacher's move, the mean equity (teacher's 0-ply, cubeless) its pick gives",
        "away, and how often the teacher's move is in the pruner's top k:",
        "",
        "| positions | pairs | same move | equity lost | teacher's in top 2 | top 3 | top 5 |",
        "|---|---:|---:|---:|---:|---:|---:|",
    ]
    for name, a in agreements.items():
        lines.append(
            f"| {name} | {a.pairs:,} | {100 * a.same:.1f} % | {a.equity_lost:.4f} | "
            f"{100 * a.in_top[2]:.1f} % | {100 * a.in_top[3]:.1f} % | {100 * a.in_top[5]:.1f} % |"
        )
    return "\n".join(lines) + "\n"


if __name__ == "__main__":
    run_script(main)
