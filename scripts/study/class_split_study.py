"""Does one net per position class imitate the 2-ply teacher better than one net for all?

    python scripts/study/class_split_study.py runs/data/db2 \
        --labels moves2x2top3-best_2c-selfplay,moves2x2top3-best-selfplay \
        --init best --epochs 10 --lr 5e-4 --compare runs/fit8/A/best.pt --out runs/study/split

bgsage's contact error fell from 16.1 (one 400-unit net) to 9.49 with nets by game plan, while
width alone bought little (``../shared/reference/rollouts-and-training.md``); bgai's 1024-unit
net fitted no better than its 512-unit one (docs/supervised.md, iteration 7). Here every
afterstate goes to the net of its class (contact, crashed, back game, race and bear-off), all
started from ``--init`` and fitted jointly by ``bgai fit``'s listwise loss and cosine schedule;
held out, per class of the teacher's move: how often the net picks the teacher's move and the
equity (by the teacher) it gives away, for the split nets and for ``--compare`` (one net).
"""

from __future__ import annotations

import argparse
import copy
import json
import time
from pathlib import Path

import numpy as np
import torch
from torch import nn

import bgai.train.fit as fit_module
from bgai.cli.main import run_script
from bgai.engine.choice import segment_argmax
from bgai.model.checkpoint import FORMAT, checkpoint_path, load_net, save_atomic
from bgai.model.probs import cubeless_equity
from bgai.train.fit import FitConfig, epoch_lr
from bgai.train.positions import CLASSES, classify

GROUPS = {"contact": 0, "crashed": 1, "backgame": 2, "race": 3, "bearoff": 3}


class Routed(nn.Module):
    """One copy of ``base`` per group; row ``i`` of the inputs goes to net ``route[i]``."""

    def __init__(self, base: nn.Module, groups: int) -> None:
        super().__init__()
        self.nets = nn.ModuleList(copy.deepcopy(base) for _ in range(groups))

    def forward_encoded(self, x: torch.Tensor, route: torch.Tensor) -> torch.Tensor:
        out = torch.empty(len(x), 5, dtype=x.dtype)
        for k, net in enumerate(self.nets):
            rows = torch.nonzero(route == k).squeeze(1)
            if len(rows):
                out = out.index_put((rows,), net.forward_encoded(x[rows]))
        return out


def classes_of(boards: np.ndarray, chunk: int = 1 << 18) -> torch.Tensor:
    return torch.as_tensor(
        np.concatenate([classify(boards[i : i + chunk]) for i in range(0, len(boards), chunk)])
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("database")
    parser.add_argument("--labels", required=True)
    parser.add_argument("--init", default="best")
    parser.add_argument("--compare", default="")
    parser.add_argument("--epochs", type=int, default=10)
    parser.add_argument("--lr", type=float, default=5e-4)
    parser.add_argument("--out", type=Path, required=True)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    torch.manual_seed(args.seed)
    cfg = FitConfig(
        args.database,
        tuple(args.labels.split(",")),
        init=args.init,
        epochs=args.epochs,
        lr=args.lr,
        schedule="cosine",
        loss="listwise",
    )
    base = load_net(checkpoint_path(args.init))
    seen: dict[str, torch.Tensor] = {}
    encode = fit_module._encode

    def capture(net, boards, chunk=65536):
        seen["class"] = classes_of(boards)
        return encode(net, boards, chunk)

    fit_module._encode = capture
    data = fit_module._MoveChoices(cfg, base)
    klass = seen["class"]
    route = torch.as_tensor([GROUPS[c] for c in CLASSES])[klass.long()]
    print(
        f"{len(data.x):,} afterstates; classes {np.bincount(klass.numpy(), minlength=len(CLASSES)).tolist()}"
    )

    def measure(evaluate) -> dict:
        lost = torch.zeros(len(CLASSES), dtype=torch.float64)
        same, count = torch.zeros(len(CLASSES)), torch.zeros(len(CLASSES))
        with torch.no_grad():
            for pairs in data.test_pairs.split(4096):
                rows, local = data._rows(pairs)
                probs = evaluate(rows)
                mine = segment_argmax(-cubeless_equity(probs), local, len(pairs))
                theirs = cubeless_equity(data.y[rows])
                best = segment_argmax(-theirs, local, len(pairs))
                k = klass[rows[best]].long()
                lost.index_add_(0, k, (theirs[mine] - theirs[best]).double())
                same.index_add_(0, k, (mine == best).float())
                count.index_add_(0, k, torch.ones(len(k)))
        out = {
            c: {"pairs": int(n), "same": float(s / max(n, 1)), "lost": float(e / max(n, 1))}
            for c, n, s, e in zip(CLASSES, count, same, lost, strict=True)
        }
        out["all"] = {
            "pairs": int(count.sum()),
            "same": float(same.sum() / count.sum()),
            "lost": float(lost.sum() / count.sum()),
        }
        return out

    report = {}
    if args.compare:
        single = load_net(checkpoint_path(args.compare)).eval()
        report["single"] = measure(lambda rows: single.forward_encoded(data.x[rows]))
        print("single", json.dumps(report["single"]["all"]))
    model = Routed(base, max(GROUPS.values()) + 1)
    report["start"] = measure(lambda rows: model.forward_encoded(data.x[rows], route[rows]))
    optimizer = torch.optim.Adam(model.parameters(), lr=cfg.lr)
    gen = torch.Generator().manual_seed(args.seed)
    args.out.mkdir(parents=True, exist_ok=True)
    for epoch in range(cfg.epochs):
        for group in optimizer.param_groups:
            group["lr"] = epoch_lr(cfg, epoch)
        model.train()
        started, order = time.time(), data.train_pairs[torch.randperm(len(data.train_pairs), generator=gen)]
        for pairs in order.split(max(1, cfg.batch // 4)):
            rows, local = data._rows(pairs)
            loss = data._loss(model.forward_encoded(data.x[rows], route[rows]), rows, local, len(pairs))
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
        model.eval()
        report[f"epoch{epoch + 1}"] = measure(lambda rows: model.forward_encoded(data.x[rows], route[rows]))
        print(
            f"epoch {epoch + 1} ({time.time() - started:.0f} s)",
            json.dumps(report[f"epoch{epoch + 1}"]["all"]),
        )
        for k, net in enumerate(model.nets):
            save_atomic(
                {"format": FORMAT, "net_spec": net.spec(), "model": net.state_dict()}, args.out / f"net{k}.pt"
            )
        (args.out / "report.json").write_text(json.dumps(report, indent=1))
    last = report[f"epoch{cfg.epochs}"]
    print("| class | pairs | same move: one net | split | equity lost: one net | split |")
    print("|---|---:|---:|---:|---:|---:|")
    for c in (*CLASSES, "all"):
        one = report.get("single", report["start"])[c]
        print(
            f"| {c} | {last[c]['pairs']:,} | {one['same']:.4f} | {last[c]['same']:.4f} "
            f"| {one['lost']:.5f} | {last[c]['lost']:.5f} |"
        )


if __name__ == "__main__":
    run_script(main)
