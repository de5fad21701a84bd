"""Can a 0-ply net learn its own 1-ply move choices? (a study of the supervised-training issue)

    python scripts/study/rank_fit_study.py runs/data/db1 --pairs 20000 --hidden 128 --epochs 4
    python scripts/study/rank_fit_study.py runs/data/db1 --pairs 20000 --hidden 512 --lr 1e-3 --epochs 4
    python scripts/study/rank_fit_study.py runs/data/db1 --pairs 20000 --rank-weight 30 --equity-weight 0
    python scripts/study/rank_fit_study.py runs/data/db1 --pairs 20000 --listwise 0.02 --epochs 6

    # label many pairs in two processes first, then fit on them
    python scripts/study/rank_fit_study.py runs/data/db1 --pairs 100000 --part 0/2 &
    python scripts/study/rank_fit_study.py runs/data/db1 --pairs 100000 --part 1/2

Playing at 0-ply with a net equal to the 1-ply value of every afterstate *is* playing at 1-ply,
and ``best@1ply`` is far stronger than ``best``. So: label every legal afterstate of ``--pairs``
(position, roll) pairs from the database's training part with ``--player``'s 1-ply value, fit
the net (grown to ``--hidden`` units) to them with :func:`bgai.train.distill.distill` (squared
error of the probabilities, of the equity, and of the equity relative to its roll's other moves),
and report after every two epochs how often its 0-ply move choice equals the 1-ply one, and the
equity the 1-ply judge says it gives away, on 2,000 held-out pairs and on 1,500 training pairs.
``--dice-seeds 1,2`` gives each position a second roll (twice the pairs).
The labelled afterstates are cached next to the database (``study-ply1-afterstates-<pairs>.pt``);
``--part K/N`` labels only every N-th pair from the K-th into its own file and stops, so that N
processes share the labelling; a later run without ``--part`` merges the parts.
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

import numpy as np
import torch

from bgai.bearoff.evaluator import is_bearoff
from bgai.bots import evaluator_of
from bgai.cli.main import run_script
from bgai.model.checkpoint import FORMAT, checkpoint_path, load_net, save_atomic
from bgai.model.grow import grow
from bgai.model.net import ValueNet
from bgai.search.evaluator import NetEvaluator
from bgai.search.ply import evaluate_position
from bgai.specs import load_player
from bgai.train.distill import LabelledAfterstates, PairIndex, afterstates_of, distill, ranking_agreement
from bgai.train.fit import listwise_loss, position_loss
from bgai.train.positions import SOURCES, PositionDatabase


class Lookahead:
    """``evaluator`` looking ``plies`` ahead, as an evaluator (the teacher)."""

    def __init__(self, evaluator, plies: int) -> None:
        self.evaluator, self.plies = evaluator, plies

    def evaluate(self, boards: torch.Tensor) -> torch.Tensor:
        return evaluate_position(self.evaluator, boards, self.plies)


def listwise(
    net,
    optimiser,
    data: LabelledAfterstates,
    x,
    epochs: int,
    temperature: float,
    value_weight: float,
    seed: int,
) -> None:
    """Fit each roll's move choice: cross-entropy between the softmax of the teacher's equities
    and of the net's over the moves of one (position, roll), batches of whole rolls (``x``: the
    afterstates' encoded inputs, made once). The afterstates have the opponent on roll, so the
    mover's best move is the one with the lowest equity: the softmax is of minus the equity.
    The choice alone leaves the level of the values free (cube decisions need it), so
    ``value_weight`` adds ``bgai fit``'s squared error of the probabilities and of the equity."""
    gen = torch.Generator().manual_seed(seed)
    index = PairIndex(data)
    net.train()
    for _ in range(epochs):
        for groups in torch.randperm(data.pairs, generator=gen).split(64):
            groups = groups[index.counts[groups] >= 2]
            if not len(groups):
                continue
            rows, local = index.rows(groups)

            probs = net.forward_encoded(x[rows])
            loss = listwise_loss(probs, data.probs[rows], local, len(groups), temperature)
            if value_weight:
                loss = loss + value_weight * position_loss(
                    probs, data.probs[rows], torch.ones(len(rows)), "mse"
                )
            optimiser.zero_grad()
            loss.backward()
            optimiser.step()
    net.eval()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("database")
    parser.add_argument("--player", default="best")
    parser.add_argument("--pairs", type=int, default=20000)
    parser.add_argument("--hidden", type=int, default=0, help="grow the net to this width (0: keep it)")
    parser.add_argument("--epochs", type=int, default=4)
    parser.add_argument("--lr", type=float, default=3e-4)
    parser.add_argument("--equity-weight", type=float, default=1.0)
    parser.add_argument("--rank-weight", type=float, default=1.0)
    parser.add_argument(
        "--listwise",
        type=float,
        default=0.0,
        help="instead: softmax cross-entropy over each roll's moves at this temperature (equity)",
    )
    parser.add_argument("--save", type=Path, help="keep the fitted net as a checkpoint")
    parser.add_argument(
        "--value-weight", type=float, default=0.0, help="with --listwise: weight of the values"
    )
    parser.add_argument("--source", default="all", help="all, or the pairs' positions only from this source")
    parser.add_argument(
        "--dice-seeds", default="1", help="one roll per position and seed: 1,2 doubles the pairs (default 1)"
    )
    parser.add_argument("--part", default="", help="K/N: only label every N-th pair from the K-th, then stop")
    parser.add_argument("--report-every", type=int, default=2, help="epochs between agreement reports")
    parser.add_argument("--report-pairs", type=int, default=2000, help="held-out pairs in each report")
    args = parser.parse_args()
    torch.set_num_threads(1)
    teacher = Lookahead(evaluator_of(load_player(args.player))[0], 1)
    db = PositionDatabase.load(args.database)
    rng = np.random.default_rng(0)
    pool = np.ones(len(db), dtype=bool) if args.source == "all" else db.source == SOURCES.index(args.source)
    train = rng.choice(np.flatnonzero(pool & ~db.held_out), args.pairs, replace=False)
    test = rng.choice(np.flatnonzero(pool & db.held_out), 2000, replace=False)[: args.report_pairs]
    dice = _dice(len(db), 1)  # the reports' rolls
    seeds = [int(v) for v in args.dice_seeds.split(",")]
    if args.part:
        k, n = (int(v) for v in args.part.split("/"))
        for seed in seeds:
            _label_part(args, db, train, teacher, seed, k, n)
        return
    sets = [_labelled(args, db, train, teacher, seed) for seed in seeds]
    data = LabelledAfterstates(
        torch.cat([d.boards for d in sets]),
        torch.cat([d.probs for d in sets]),
        torch.cat([d.group + i * args.pairs for i, d in enumerate(sets)]),
        args.pairs * len(sets),
    )
    net = load_net(checkpoint_path(args.player.split("@")[0]))
    if args.hidden and args.hidden != net.hidden[0]:
        grown = ValueNet(net.encoding.name, [args.hidden], net.activation, net.checkers)
        grow(net, grown)
        net = grown

    def report(tag: str) -> None:
        held = ranking_agreement(NetEvaluator(net), teacher, torch.as_tensor(db.boards[test]), dice[test])
        seen = ranking_agreement(
            NetEvaluator(net), teacher, torch.as_tensor(db.boards[train[:1500]]), dice[train[:1500]]
        )
        print(
            f"{tag}: held-out same move {held.same:.4f}, equity lost {held.equity_lost:.5f} | "
            f"training pairs same move {seen.same:.4f}, equity lost {seen.equity_lost:.5f}",
            flush=True,
        )
        net.train()

    report("start")
    x = None
    optimiser = torch.optim.Adam(net.parameters(), lr=args.lr)
    if args.listwise:
        with torch.no_grad():
            x = torch.cat([net.encoding(b.long(), net.checkers) for b in data.boards.split(65536)])
    step = args.report_every
    for k in range(0, args.epochs, step):
        epochs = min(step, args.epochs - k)
        if args.listwise:
            listwise(net, optimiser, data, x, epochs, args.listwise, args.value_weight, seed=k)
        else:
            distill(
                net,
                data,
                epochs=epochs,
                lr=args.lr,
                seed=k,
                equity_weight=args.equity_weight,
                rank_weight=args.rank_weight,
            )
        report(f"after {min(k + step, args.epochs)} epochs")
    if args.save:
        save_atomic({"format": FORMAT, "net_spec": net.spec(), "model": net.state_dict()}, args.save)


def _dice(n: int, seed: int) -> torch.Tensor:
    """One roll for each of the database's ``n`` positions, from ``seed``."""
    return torch.randint(1, 7, (n, 2), generator=torch.Generator().manual_seed(seed))


def _cache(args, seed: int) -> Path:
    name = (
        f"{args.pairs}"
        + ("" if args.source == "all" else f"-{args.source}")
        + ("" if seed == 1 else f"-d{seed}")
    )
    return Path(args.database) / f"study-ply1-afterstates-{name}.pt"


def _label_part(args, db, train, teacher, seed: int, k: int, n: int) -> Path:
    """Label every ``n``-th training pair from the ``k``-th with the rolls of ``seed``; its file."""
    mine = train[k::n]
    t0 = time.perf_counter()
    boards = torch.as_tensor(db.boards[mine])
    data = afterstates_of(teacher, boards, _dice(len(db), seed)[mine], skip=is_bearoff, chunk=256)
    print(f"{len(data)} afterstates labelled at 1-ply in {time.perf_counter() - t0:.0f} s", flush=True)
    path = _cache(args, seed).with_suffix(f".{k}of{n}.pt")
    _save(data, path)
    return path


def _labelled(args, db, train, teacher, seed: int) -> LabelledAfterstates:
    """The training pairs with the rolls of ``seed``, labelled: from the cache, its parts, or now."""
    cache = _cache(args, seed)
    if not cache.exists():  # merge the parts (labelled now if there are none): part k's pair j is k + j n
        parts = sorted(cache.parent.glob(f"{cache.stem}.*of*.pt"))
        parts = parts or [_label_part(args, db, train, teacher, seed, 0, 1)]
        loaded = [torch.load(f) for f in parts]
        merged = LabelledAfterstates(
            torch.cat([d["boards"] for d in loaded]),
            torch.cat([d["probs"] for d in loaded]),
            torch.cat([k + d["group"] * len(parts) for k, d in enumerate(loaded)]),
            args.pairs,
        )
        _save(merged, cache)
    d = torch.load(cache)
    return LabelledAfterstates(d["boards"], d["probs"], d["group"], d["pairs"])


def _save(data: LabelledAfterstates, path: Path) -> None:
    torch.save({"boards": data.boards, "probs": data.probs, "group": data.group, "pairs": data.pairs}, path)


if __name__ == "__main__":
    run_script(main)
