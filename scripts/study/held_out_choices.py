"""How well nets (and averages of nets) pick the teacher's moves on the held-out move labels.

    python scripts/study/held_out_choices.py runs/data/db2 \
        --labels moves2x2top3-best_2c-selfplay,moves2x2top3-best-selfplay \
        --nets best,runs/fit8/A/best.pt,runs/fit8/W1024/best.pt,runs/fit8/A/best.pt+runs/fit8/W1024/best.pt

Each entry of ``--nets`` is a checkpoint (or shipped name) or several joined by ``+``, whose
five probabilities are averaged (an ensemble at 0-ply). Per class of the position and overall:
how often the net's 0-ply choice is the teacher's, and the equity (by the teacher) it gives away
per roll, with its 95 % interval. Later label sets win where two cover a position, as in
``bgai fit``.
"""

from __future__ import annotations

import argparse

import numpy as np
import torch

from bgai.cli.main import run_script
from bgai.engine.choice import segment_argmax
from bgai.model.checkpoint import checkpoint_path, load_net
from bgai.model.probs import cubeless_equity
from bgai.stats import mean_ci95
from bgai.train.labels import load_move_labels, without_positions
from bgai.train.positions import CLASSES, PositionDatabase


def held_out_labels(database: str, names: list[str]):
    """(boards, teacher probs, pair of each row, position of each pair) of the held-out part."""
    db = PositionDatabase.load(database)
    covered = ~db.held_out
    boards, probs, group, position, pairs = [], [], [], [], 0
    for name in reversed(names):  # a later set wins on the positions both label
        labels = without_positions(load_move_labels(database, name), covered)
        covered[labels.index] = True
        a = labels.afterstates
        boards.append(a.boards)
        probs.append(a.probs)
        group.append(a.group + pairs)
        position.append(np.repeat(labels.index, labels.dice.shape[1]))
        pairs += a.pairs
    return db, torch.cat(boards), torch.cat(probs), torch.cat(group), np.concatenate(position)


def evaluate(entry: str, boards: torch.Tensor, chunk: int = 65536) -> torch.Tensor:
    nets = [load_net(checkpoint_path(name)) for name in entry.split("+")]
    out = torch.zeros(len(boards), 5)
    with torch.inference_mode():
        for net in nets:
            for i in range(0, len(boards), chunk):
                out[i : i + chunk] += net(boards[i : i + chunk].long())
    return out / len(nets)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("database")
    parser.add_argument("--labels", required=True)
    parser.add_argument("--nets", required=True)
    args = parser.parse_args()
    db, boards, target, group, position = held_out_labels(args.database, args.labels.split(","))
    pairs = len(position)
    counts = torch.bincount(group, minlength=pairs)
    real = torch.nonzero(counts >= 2).squeeze(1)  # rolls with a choice to make
    theirs = cubeless_equity(target)
    best = segment_argmax(-theirs, group, pairs)[real]
    klass = db.klass[position[real.numpy()]]
    print(f"{len(real):,} held-out rolls with a choice, {len(boards):,} afterstates")
    print("| net | class | rolls | same move | equity lost × 1000 |")
    print("|---|---|---:|---:|---:|")
    for entry in args.nets.split(","):
        mine = segment_argmax(-cubeless_equity(evaluate(entry, boards)), group, pairs)[real]
        lost = (theirs[mine] - theirs[best]).numpy()
        same = (mine == best).numpy()
        for c, name in [*enumerate(CLASSES), (None, "all")]:
            keep = klass == c if c is not None else np.ones(len(klass), dtype=bool)
            if not keep.any():
                continue
            m, ci = mean_ci95(1000 * lost[keep])
            print(
                f"| {entry} | {name} | {int(keep.sum()):,} | {same[keep].mean():.4f} | {m:.3f} ± {ci:.3f} |"
            )


if __name__ == "__main__":
    run_script(main)
