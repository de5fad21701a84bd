"""Supervised fitting of a network to labelled positions (``bgai fit``).

The net starts from a trained one (TD pre-training helps supervised fitting; a wider net or a
richer encoding is grown from it with :func:`bgai.model.grow.grow`, so it starts exactly where
the trained net was) and is fitted by Adam to the labels of the database's training part.
After every epoch the held-out part is measured (squared error of the five probabilities and
absolute equity error, overall and per position class) and the run folder gets an atomic
``latest.pt`` (with the optimiser, to resume) and ``best.pt`` (lowest held-out loss). It stops
when the held-out loss has not improved for ``patience`` epochs. TensorBoard logs go to the
run folder.

Losses: ``mse`` (squared error of the five probabilities plus that of the equity) or ``ce``
(binary cross-entropy of each of the five probabilities, plus the equity's squared error).
A label set may carry a weight (``rollout36t7-best:1,ply1-best:0.1``): each position's loss
counts with the weight of the set that labels it, so accurate but scarce rollout labels can
lead while cheap search labels of the other positions only hold the net where it was.
"""

from __future__ import annotations

import json
import time
from dataclasses import asdict, dataclass
from pathlib import Path

import numpy as np
import torch

from bgai.model.checkpoint import (
    FORMAT,
    checkpoint_path,
    load_checkpoint,
    load_net,
    net_from_checkpoint,
    save_atomic,
)
from bgai.model.grow import grow
from bgai.model.net import ValueNet
from bgai.model.probs import cubeless_equity
from bgai.train.labels import load_labels
from bgai.train.positions import CLASSES, PositionDatabase


@dataclass(frozen=True)
class FitConfig:
    """One fitting run; saved as ``fit.json`` in the run folder."""

    database: str
    labels: tuple[str, ...]  # label names (``name`` or ``name:weight``), later ones win on a position
    init: str = "best"
    hidden: tuple[int, ...] = ()  # () keeps the init net's sizes
    encoding: str = ""  # "" keeps the init net's encoding
    epochs: int = 30
    lr: float = 3e-4
    batch: int = 256
    loss: str = "mse"
    patience: int = 4
    seed: int = 0

    def __post_init__(self) -> None:
        if self.loss not in ("mse", "ce"):
            raise ValueError(f"loss must be mse or ce, got {self.loss!r}")
        for name, value in (("epochs", self.epochs), ("batch", self.batch), ("patience", self.patience)):
            if value < 1:
                raise ValueError(f"{name} must be at least 1, got {value}")
        if not self.lr > 0:
            raise ValueError(f"lr must be positive, got {self.lr}")
        if any(h < 1 for h in self.hidden):
            raise ValueError(f"hidden sizes must be positive, got {list(self.hidden)}")
        if not self.labels:
            raise ValueError("name at least one label set (e.g. ply2-best)")
        for entry in self.labels:
            label_weight(entry)


def label_weight(entry: str) -> tuple[str, float]:
    """``(name, weight)`` of a ``--labels`` entry ``name`` or ``name:weight``."""
    name, _, weight = entry.partition(":")
    try:
        value = float(weight) if weight else 1.0
    except ValueError:
        value = float("nan")
    if not name or not value > 0:
        raise ValueError(f"a label set is NAME or NAME:WEIGHT with a positive weight, got {entry!r}")
    return name, value


_MAY_CHANGE = ("epochs", "patience")  # a resumed fit may run longer or wait longer


def training_data(cfg: FitConfig) -> tuple[PositionDatabase, np.ndarray, np.ndarray, np.ndarray]:
    """(database, labelled rows, their target probabilities ``(M, 5)``, their weights ``(M,)``)."""
    db = PositionDatabase.load(cfg.database)
    targets = np.full((len(db), 5), np.nan, dtype=np.float32)
    weights = np.zeros(len(db), dtype=np.float32)
    for entry in cfg.labels:
        name, weight = label_weight(entry)
        labels = load_labels(cfg.database, name)
        if labels.index.max(initial=-1) >= len(db):
            raise ValueError(f"labels {name!r} point past the end of the database: made for another one?")
        targets[labels.index] = labels.probs
        weights[labels.index] = weight
    rows = np.flatnonzero(~np.isnan(targets[:, 0]))
    if not len(rows):
        raise ValueError("no labelled positions")
    return db, rows, targets[rows], weights[rows]


def initial_net(cfg: FitConfig) -> ValueNet:
    """The init net, grown to ``hidden``/``encoding`` when they ask for more."""
    net = load_net(checkpoint_path(cfg.init))
    if not isinstance(net, ValueNet):
        raise ValueError("fitting starts from a single (not split) network")
    hidden = list(cfg.hidden) or net.hidden
    encoding = cfg.encoding or net.encoding.name
    if hidden != net.hidden or encoding != net.encoding.name:
        grown = ValueNet(encoding, hidden, net.activation, net.checkers)
        grow(net, grown)
        net = grown
    return net


def fit(cfg: FitConfig, run: str | Path, log=print) -> dict:
    """Fit (or resume fitting) in folder ``run``; returns the final held-out report."""
    from torch.utils.tensorboard import SummaryWriter

    run = Path(run)
    run.mkdir(parents=True, exist_ok=True)
    saved = run / "fit.json"
    if saved.exists():
        previous = json.loads(saved.read_text())
        mine = json.loads(json.dumps(asdict(cfg)))
        if {k: v for k, v in previous.items() if k not in _MAY_CHANGE} != {
            k: v for k, v in mine.items() if k not in _MAY_CHANGE
        }:
            raise ValueError(f"{run} holds a fit with other settings: choose another folder")
    saved.write_text(json.dumps(asdict(cfg), indent=2))
    torch.manual_seed(cfg.seed)
    db, rows, targets, weights = training_data(cfg)
    net = initial_net(cfg)
    optimizer = torch.optim.Adam(net.parameters(), lr=cfg.lr)
    state = {"epoch": 0, "best_loss": float("inf"), "since_best": 0, "history": []}
    latest = run / "latest.pt"
    if latest.exists():
        ckpt = load_checkpoint(latest)
        net = net_from_checkpoint(ckpt, str(latest))
        optimizer = torch.optim.Adam(net.parameters(), lr=cfg.lr)
        optimizer.load_state_dict(ckpt["optimizer"])
        state = ckpt["fit_state"]
        log(f"resuming at epoch {state['epoch']}")
    held = db.held_out[rows]
    train_rows, test_rows = np.flatnonzero(~held), np.flatnonzero(held)
    x = _encode(net, db.boards[rows])
    y = torch.as_tensor(targets)
    w = torch.as_tensor(weights)
    klass = db.klass[rows]
    writer = SummaryWriter(str(run), purge_step=state["epoch"] + 1)
    checkpoint = {"format": FORMAT, "net_spec": net.spec(), "model": net.state_dict()}
    if state["epoch"] == 0:  # the starting net is the one to beat
        report = _measure(net, x, y, w, klass, test_rows, cfg.loss)
        state["history"].append({"epoch": 0, **report})
        state["best_loss"] = report["loss"]
        save_atomic(checkpoint, run / "best.pt")
        log(f"epoch 0: {_line(report)}")
    gen = torch.Generator().manual_seed(cfg.seed * 1000 + state["epoch"])
    while state["epoch"] < cfg.epochs and state["since_best"] < cfg.patience:
        t0 = time.monotonic()
        net.train()
        order = torch.as_tensor(train_rows)[torch.randperm(len(train_rows), generator=gen)]
        total = 0.0
        for i in range(0, len(order), cfg.batch):
            batch = order[i : i + cfg.batch]
            loss = position_loss(net.forward_encoded(x[batch]), y[batch], w[batch], cfg.loss)
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            total += float(loss.detach()) * len(batch)
        state["epoch"] += 1
        report = _measure(net, x, y, w, klass, test_rows, cfg.loss)
        report["train_loss"] = total / max(len(order), 1)
        report["seconds"] = time.monotonic() - t0
        state["history"].append({"epoch": state["epoch"], **report})
        for key, value in report.items():
            if isinstance(value, float):
                writer.add_scalar(f"fit/{key}", value, state["epoch"])
        improved = report["loss"] < state["best_loss"]
        state["since_best"] = 0 if improved else state["since_best"] + 1
        checkpoint = {"format": FORMAT, "net_spec": net.spec(), "model": net.state_dict()}
        if improved:
            state["best_loss"] = report["loss"]
            save_atomic(checkpoint, run / "best.pt")
        save_atomic({**checkpoint, "optimizer": optimizer.state_dict(), "fit_state": state}, latest)
        log(f"epoch {state['epoch']}: {_line(report)}{'  (best)' if improved else ''}")
    writer.close()
    return state["history"][-1]


def _encode(net: ValueNet, boards: np.ndarray, chunk: int = 65536) -> torch.Tensor:
    b = torch.as_tensor(boards).long()
    with torch.no_grad():
        return torch.cat([net.encoding(b[i : i + chunk], net.checkers) for i in range(0, len(b), chunk)])


def position_loss(probs: torch.Tensor, target: torch.Tensor, weight: torch.Tensor, kind: str) -> torch.Tensor:
    """The weighted mean over positions of the loss ``kind`` plus the equity's squared error."""
    each = (cubeless_equity(probs) - cubeless_equity(target)).square()
    if kind == "mse":
        each = each + (probs - target).square().sum(1)
    else:
        p = probs.clamp(1e-6, 1 - 1e-6)
        each = each - (target * p.log() + (1 - target) * (1 - p).log()).sum(1)
    return (each * weight).sum() / weight.sum()


def _measure(net: ValueNet, x, y, w, klass, rows, loss_kind: str) -> dict:
    net.eval()
    with torch.no_grad():
        idx = torch.as_tensor(rows)
        probs = torch.cat([net.forward_encoded(x[idx[i : i + 65536]]) for i in range(0, len(idx), 65536)])
        target = y[idx]
        loss = float(position_loss(probs, target, w[idx], loss_kind)) if len(idx) else float("nan")
        err = (cubeless_equity(probs) - cubeless_equity(target)).abs().numpy()
    report = {
        "loss": loss,
        "mse": float((probs - target).square().sum(1).mean()) if len(idx) else float("nan"),
        "equity_mae": float(err.mean()) if len(err) else float("nan"),
    }
    for i, name in enumerate(CLASSES):
        mine = klass[rows] == i
        if mine.any():
            report[f"equity_mae_{name}"] = float(err[mine].mean())
    return report


def _line(report: dict) -> str:
    parts = [f"held-out loss {report['loss']:.5f}", f"equity MAE {report['equity_mae']:.4f}"]
    parts += [
        f"{k.removeprefix('equity_mae_')} {v:.4f}" for k, v in report.items() if k.startswith("equity_mae_")
    ]
    if "train_loss" in report:
        parts.insert(0, f"train loss {report['train_loss']:.5f}")
    return ", ".join(parts)
