"""Supervised fitting of a network to labelled positions (``bgai fit``).

The net starts from a trained one (TD pre-training helps supervised fitting; a wider net or a
richer encoding is grown from it with :func:`bgai.model.grow.grow`, so it starts exactly where
the trained net was) and is fitted by Adam to the labels of the database's training part.
After every epoch the held-out part is measured (squared error of the five probabilities and
absolute equity error, overall and per position class) and the run folder gets an atomic
``latest.pt`` (with the optimiser, to resume) and ``best.pt`` (lowest held-out loss), and with
``keep_epochs`` each epoch's net, to judge what the held-out loss does not see (the cube). It stops
when the held-out loss has not improved for ``patience`` epochs. TensorBoard logs go to the
run folder.

Losses: ``mse`` (squared error of the five probabilities plus that of the equity) or ``ce``
(binary cross-entropy of each of the five probabilities, plus the equity's squared error).
A label set may carry a weight (``rollout36t7-best:1,ply1-best:0.1``): each position's loss
counts with the weight of the set that labels it, so accurate but scarce rollout labels can
lead while cheap search labels of the other positions only hold the net where it was.

``listwise`` fits move labels (``bgai data label --kind moves1``): for each (position, roll)
the cross-entropy between the softmax (at ``temperature``, in equity) of the teacher's
equities over the roll's legal moves and the net's (:func:`listwise_loss`), plus
``value_weight`` times the ``mse`` loss of the afterstates' values. Playing at 0-ply with a
net whose every afterstate value is the teacher's n-ply value *is* playing at n-ply, and the
move choice is what play needs: a squared error spreads its effort over the level of all the
values, the choice among a roll's moves is what decides games (``docs/supervised.md``,
"Iteration 2b"). The value term keeps the values' level, which the cube needs. Held out: the
loss, how often the net picks the teacher's move and the equity (by the teacher) it gives away.
Where two move label sets cover a position (an old teacher's and a new one's), the later set's
rolls are the only ones kept for it, as with position labels.
A listwise fit may name position labels beside the move labels (``moves2x2top3-best,
rollout36-best-backgame:3``): each step then adds a share of them (one pass over them an epoch)
at ``value_weight`` times their weight (a set of weight 1 counts as much as all the afterstates'
values), so rollout values teach the level where search values are wrong (back games) while the
moves keep the choices; held out, their equity error per class.
"""

from __future__ import annotations

import json
import math
import time
from dataclasses import MISSING, asdict, dataclass, fields, replace
from pathlib import Path

import numpy as np
import torch

from bgai.engine.choice import segment_argmax
from bgai.model.checkpoint import (
    FORMAT,
    checkpoint_path,
    load_checkpoint,
    load_net,
    net_from_checkpoint,
    save_atomic,
)
from bgai.model.grow import WIDEN, grow
from bgai.model.net import ValueNet
from bgai.model.probs import cubeless_equity, possible_outcomes
from bgai.train.distill import LabelledAfterstates, PairIndex
from bgai.train.labels import is_move_labels, load_labels, load_move_labels, without_positions
from bgai.train.positions import CLASSES, PositionDatabase

LOSSES = ("mse", "ce", "listwise")
CHUNK = 65536  # positions encoded, masked or valued at once outside the training steps (bounds memory)
SCHEDULES = ("constant", "cosine")
SCRATCH = "scratch"  # init: a new net with random weights, seeded by the fit's seed


@dataclass(frozen=True)
class FitConfig:
    """One fitting run; saved as ``fit.json`` in the run folder."""

    database: str
    labels: tuple[str, ...]  # label names (``name`` or ``name:weight``), later ones win on a position
    init: str = "best"  # a checkpoint or shipped name, or SCRATCH: new random weights (seed)
    hidden: tuple[int, ...] = ()  # () keeps the init net's sizes
    residual: tuple[int, ...] = ()  # () keeps the init net's residual blocks (each width: its units)
    encoding: str = ""  # "" keeps the init net's encoding
    epochs: int = 30
    lr: float = 3e-4
    schedule: str = "constant"  # or cosine: each epoch's step size falls from lr towards 0
    batch: int = 256
    loss: str = "mse"
    patience: int = 4
    seed: int = 0
    temperature: float = 0.02  # listwise: of the softmax over a roll's moves, in equity
    value_weight: float = 30.0  # listwise: weight of the afterstates' values
    widen: str = "silent"  # new hidden units when --hidden widens: silent, or split (Net2Net copies)
    share: float = 1.0  # of the training positions fitted (a seeded choice): learning curves by size
    anchor: str = ""  # listwise: a net whose level each roll's values are moved to ("": the teacher's)
    keep_epochs: bool = False  # also keep each epoch's net (epoch_NNN.pt): what held-out loss misses

    def __post_init__(self) -> None:
        if self.loss not in LOSSES:
            raise ValueError(f"loss must be {', '.join(LOSSES)}, got {self.loss!r}")
        if not (self.temperature > 0 and self.value_weight >= 0):
            raise ValueError("temperature must be positive and value weight not negative")
        for name, value in (("epochs", self.epochs), ("batch", self.batch), ("patience", self.patience)):
            if value < 1:
                raise ValueError(f"{name} must be at least 1, got {value}")
        if self.widen not in WIDEN:
            raise ValueError(f"widen must be {' or '.join(WIDEN)}, got {self.widen!r}")
        if not 0 < self.share <= 1:
            raise ValueError(f"share must be in (0, 1], got {self.share}")
        if not self.lr > 0:
            raise ValueError(f"lr must be positive, got {self.lr}")
        if self.schedule not in SCHEDULES:
            raise ValueError(f"schedule must be {' or '.join(SCHEDULES)}, got {self.schedule!r}")
        if self.init == SCRATCH and not (self.hidden and self.encoding):
            raise ValueError("a fit from scratch needs its hidden sizes and encoding (--hidden, --encoding)")
        sizes = [*self.hidden, *self.residual]
        if any(h < 1 for h in sizes):
            raise ValueError(f"hidden and residual sizes must be positive, got {sizes}")
        if not self.labels:
            raise ValueError("name at least one label set (e.g. ply2-best)")
        moves = [is_move_labels(label_weight(entry)[0]) for entry in self.labels]
        if self.loss == "listwise" and not any(moves):
            raise ValueError("a listwise fit needs move labels (bgai data label --kind moves1)")
        if self.loss != "listwise" and any(moves):
            raise ValueError("move labels are fitted with --loss listwise")
        if self.anchor and self.loss != "listwise":
            raise ValueError("an anchor sets the level of move labels' values: it needs --loss listwise")


def epoch_lr(cfg: FitConfig, epoch: int) -> float:
    """Adam's step size in epoch ``epoch`` (0-based). A cosine schedule lets the last epochs
    settle into a minimum that a constant step keeps jumping around; it is a function of the
    epoch alone, so a resumed fit (even one given more epochs) needs no scheduler state."""
    if cfg.schedule == "constant":
        return cfg.lr
    return cfg.lr * 0.5 * (1 + math.cos(math.pi * epoch / cfg.epochs))


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


_MAY_CHANGE = ("epochs", "patience", "keep_epochs")  # a resumed fit may run longer, wait longer, keep more


def training_data(cfg: FitConfig) -> tuple[PositionDatabase, np.ndarray, np.ndarray, np.ndarray]:
    """(database, labelled rows, their target probabilities ``(M, 5)``, their weights ``(M,)``)."""
    db = PositionDatabase.load(cfg.database)
    targets = np.full((len(db), 5), np.nan, dtype=np.float32)
    weights = np.zeros(len(db), dtype=np.float32)
    for entry in cfg.labels:
        name, weight = label_weight(entry)
        labels = load_labels(cfg.database, name, len(db))
        targets[labels.index] = labels.probs
        weights[labels.index] = weight
    rows = np.flatnonzero(~np.isnan(targets[:, 0]) & usable(cfg, db))
    if not len(rows):
        raise ValueError("no labelled positions")
    return db, rows, targets[rows], weights[rows]


def usable(cfg: FitConfig, db: PositionDatabase) -> np.ndarray:
    """``(len(db),)``: the positions the fit reads, the held-out part and the share of the
    training part it fits on: the same seeded choice whatever the labels, so fits on a half and
    on the whole compare like for like. The others are never loaded (memory goes with share)."""
    if cfg.share >= 1:
        return np.ones(len(db), dtype=bool)
    return db.held_out | (np.random.default_rng(cfg.seed).random(len(db)) < cfg.share)


def initial_net(cfg: FitConfig) -> ValueNet:
    """The init net, grown to ``hidden``/``residual``/``encoding`` when they ask for more; from
    scratch a new one of that shape (a deeper net than any trained one, which growing cannot make)."""
    if cfg.init == SCRATCH:
        with torch.random.fork_rng():
            torch.manual_seed(cfg.seed)
            return ValueNet(cfg.encoding, cfg.hidden, residual=cfg.residual)
    net = load_net(checkpoint_path(cfg.init))
    if not isinstance(net, ValueNet):
        raise ValueError("fitting starts from a single (not split) network")
    hidden = tuple(cfg.hidden) or net.hidden
    residual = tuple(cfg.residual) or net.residual
    encoding = cfg.encoding or net.encoding.name
    if (hidden, residual, encoding) != (net.hidden, net.residual, net.encoding.name):
        grown = ValueNet(encoding, hidden, net.activation, net.checkers, residual)
        grow(net, grown, cfg.widen, cfg.seed)
        net = grown
    return net


def fit(cfg: FitConfig, run: str | Path, log=print, device: str | torch.device = "cpu") -> dict:
    """Fit (or resume fitting) in folder ``run``; returns the final held-out report.

    ``device``: where the net and the encoded labels live (not part of the settings: a fit may
    resume on another device); checkpoints are written from the CPU."""
    from torch.utils.tensorboard import SummaryWriter

    run = Path(run)
    run.mkdir(parents=True, exist_ok=True)
    saved = run / "fit.json"
    if saved.exists():
        mine = json.loads(json.dumps(asdict(cfg)))
        defaults = json.loads(
            json.dumps({f.name: f.default for f in fields(FitConfig) if f.default is not MISSING})
        )
        previous = {**defaults, **json.loads(saved.read_text())}  # settings added since keep their defaults
        if {k: v for k, v in previous.items() if k not in _MAY_CHANGE} != {
            k: v for k, v in mine.items() if k not in _MAY_CHANGE
        }:
            raise ValueError(f"{run} holds a fit with other settings: choose another folder")
    saved.write_text(json.dumps(asdict(cfg), indent=2))
    torch.manual_seed(cfg.seed)
    net = initial_net(cfg).to(device)
    optimizer = torch.optim.Adam(net.parameters(), lr=cfg.lr)
    state = {"epoch": 0, "best_loss": float("inf"), "since_best": 0, "history": []}
    latest = run / "latest.pt"
    if latest.exists():
        ckpt = load_checkpoint(latest)
        net = net_from_checkpoint(ckpt, str(latest)).to(device)
        optimizer = torch.optim.Adam(net.parameters(), lr=cfg.lr)
        optimizer.load_state_dict(ckpt["optimizer"])
        state = ckpt["fit_state"]
        log(f"resuming at epoch {state['epoch']}")
    task = (_MoveChoices if cfg.loss == "listwise" else _Positions)(cfg, net)
    writer = SummaryWriter(str(run), purge_step=state["epoch"] + 1)
    checkpoint = _checkpoint(net)
    if state["epoch"] == 0:  # the starting net is the one to beat
        report = task.measure(net)
        state["history"].append({"epoch": 0, **report})
        state["best_loss"] = report["loss"]
        save_atomic(checkpoint, run / "best.pt")
        log(f"epoch 0: {_line(report)}")
    gen = torch.Generator().manual_seed(cfg.seed * 1000 + state["epoch"])
    while state["epoch"] < cfg.epochs and state["since_best"] < cfg.patience:
        t0 = time.monotonic()
        for group in optimizer.param_groups:
            group["lr"] = epoch_lr(cfg, state["epoch"])
        net.train()
        train_loss = task.epoch(net, optimizer, gen)
        state["epoch"] += 1
        report = task.measure(net)
        report["train_loss"] = train_loss
        report["lr"] = optimizer.param_groups[0]["lr"]
        report["seconds"] = time.monotonic() - t0
        state["history"].append({"epoch": state["epoch"], **report})
        for key, value in report.items():
            if isinstance(value, float):
                writer.add_scalar(f"fit/{key}", value, state["epoch"])
        improved = report["loss"] < state["best_loss"]
        state["since_best"] = 0 if improved else state["since_best"] + 1
        checkpoint = _checkpoint(net)
        if improved:
            state["best_loss"] = report["loss"]
            save_atomic(checkpoint, run / "best.pt")
        if cfg.keep_epochs:
            save_atomic(checkpoint, run / f"epoch_{state['epoch']:03d}.pt")
        save_atomic({**checkpoint, "optimizer": optimizer.state_dict(), "fit_state": state}, latest)
        log(f"epoch {state['epoch']}: {_line(report)}{'  (best)' if improved else ''}")
    writer.close()
    return state["history"][-1]


def _checkpoint(net: ValueNet) -> dict:
    return {
        "format": FORMAT,
        "net_spec": net.spec(),
        "model": {k: v.cpu() for k, v in net.state_dict().items()},
    }


class _Positions:
    """Position labels: batches of positions, the loss of their five probabilities."""

    def __init__(self, cfg: FitConfig, net: ValueNet) -> None:
        db, rows, targets, weights = training_data(cfg)
        held = db.held_out[rows]
        self.rows = rows  # the database position of each row
        self.train_rows, self.test_rows = np.flatnonzero(~held), np.flatnonzero(held)
        device = _device(net)
        self.x, self.allowed = _encode(net, db.boards[rows]), _allowed(net, db.boards[rows])
        self.y = torch.as_tensor(targets).to(device) * self.allowed
        self.w = torch.as_tensor(weights).to(device)
        self.klass, self.cfg = db.klass[rows], cfg

    def batches(self, steps: int, gen: torch.Generator) -> list[torch.Tensor]:
        """The training positions in a shuffled order, split into ``steps`` batches."""
        order = torch.as_tensor(self.train_rows)[torch.randperm(len(self.train_rows), generator=gen)]
        return list(order.to(self.x.device).tensor_split(steps))

    def loss(self, net: ValueNet, batch: torch.Tensor) -> torch.Tensor:
        probs = _probs(net, self.x, self.allowed, batch)
        return position_loss(probs, self.y[batch], self.w[batch], self.cfg.loss)

    def epoch(self, net: ValueNet, optimizer, gen: torch.Generator) -> float:
        total = 0.0
        for batch in self.batches(-(-len(self.train_rows) // self.cfg.batch), gen):
            loss = self.loss(net, batch)
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            total += float(loss.detach()) * len(batch)
        return total / max(len(self.train_rows), 1)

    def measure(self, net: ValueNet) -> dict:
        return _measure(net, self.x, self.allowed, self.y, self.w, self.klass, self.test_rows, self.cfg.loss)


class _MoveChoices:
    """Move labels: batches of whole rolls, :func:`listwise_loss` plus the afterstates' values;
    with position labels beside them, a share of those each step."""

    def __init__(self, cfg: FitConfig, net: ValueNet) -> None:
        db = PositionDatabase.load(cfg.database)
        values = tuple(e for e in cfg.labels if not is_move_labels(label_weight(e)[0]))
        self.positions = None
        if values:  # position labels beside the moves (an anchor is for move labels only)
            self.positions = _Positions(replace(cfg, labels=values, loss="mse", anchor=""), net)
        sets, covered = [], ~usable(cfg, db)
        for entry in reversed(cfg.labels):  # a later set wins on the positions both label
            name, _ = label_weight(entry)
            if not is_move_labels(name):
                continue
            labels = load_move_labels(cfg.database, name, len(db))
            labels = without_positions(labels, covered)
            covered[labels.index] = True
            sets.insert(0, (labels.afterstates, np.repeat(labels.index, labels.dice.shape[1])))
        data = LabelledAfterstates.join([d for d, _ in sets])
        self.position = np.concatenate([p for _, p in sets])  # the database position of each pair
        held_pair = db.held_out[self.position]
        device = _device(net)
        self.x, self.allowed, self.cfg = (
            _encode(net, data.boards.numpy()),
            _allowed(net, data.boards.numpy()),
            cfg,
        )
        self.y = data.probs.to(device) * self.allowed  # labels made before the rule may lack its zeros
        self.values = self.y  # what the values are fitted to: the teacher's, or at the anchor's level
        if cfg.anchor:
            self.values = anchored(data, _values_of(cfg.anchor, data.boards)).to(device) * self.allowed
        self.index = PairIndex(data)
        real = (self.index.counts >= 2).numpy()  # rolls with a choice to make
        self.train_pairs = torch.as_tensor(np.flatnonzero(real & ~held_pair))
        self.test_pairs = torch.as_tensor(np.flatnonzero(real & held_pair))
        if not len(self.train_pairs):
            raise ValueError("no labelled rolls with a choice of moves in the training part")

    def _rows(self, pairs: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        """:meth:`PairIndex.rows` of ``pairs``, on the labels' device."""
        return tuple(t.to(self.x.device) for t in self.index.rows(pairs))

    def _loss(self, probs: torch.Tensor, rows: torch.Tensor, local: torch.Tensor, pairs: int) -> torch.Tensor:
        loss = listwise_loss(probs, self.y[rows], local, pairs, self.cfg.temperature)
        if self.cfg.value_weight:
            value = position_loss(probs, self.values[rows], torch.ones(len(rows), device=probs.device), "mse")
            loss = loss + self.cfg.value_weight * value
        return loss

    def _positions_term(self, loss, rows) -> torch.Tensor:
        """The position labels' ``loss`` (weighted mean over ``rows``) as it counts beside the
        moves: a set of weight 1 counts as much as all the afterstates' values."""
        return (
            self.cfg.value_weight
            * self.positions.w[torch.as_tensor(rows, device=self.positions.w.device)].mean()
            * loss
        )

    def epoch(self, net: ValueNet, optimizer, gen: torch.Generator) -> float:
        order = self.train_pairs[torch.randperm(len(self.train_pairs), generator=gen)]
        rolls = max(1, self.cfg.batch // 4)  # about a batch of afterstates (some 15 a roll)
        steps = order.split(rolls)
        shares = self.positions.batches(len(steps), gen) if self.positions else [None] * len(steps)
        total = 0.0
        for pairs, share in zip(steps, shares, strict=True):
            rows, local = self._rows(pairs)
            loss = self._loss(_probs(net, self.x, self.allowed, rows), rows, local, len(pairs))
            if share is not None and len(share):
                loss = loss + self._positions_term(self.positions.loss(net, share), share)
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            total += float(loss.detach()) * len(pairs)
        return total / len(order)

    def measure(self, net: ValueNet) -> dict:
        net.eval()
        losses, same, lost, err = [], 0, 0.0, []
        with torch.no_grad():
            for pairs in self.test_pairs.split(4096):
                rows, local = self._rows(pairs)
                probs = _probs(net, self.x, self.allowed, rows)
                losses.append(float(self._loss(probs, rows, local, len(pairs))) * len(pairs))
                # the mover picks the afterstate of lowest equity for the opponent on roll there
                mine = segment_argmax(-cubeless_equity(probs), local, len(pairs))
                theirs_equity = cubeless_equity(self.y[rows])
                best = segment_argmax(-theirs_equity, local, len(pairs))
                same += int((mine == best).sum())
                lost += float((theirs_equity[mine] - theirs_equity[best]).sum())
                err.append((cubeless_equity(probs) - theirs_equity).abs())
        n = max(len(self.test_pairs), 1)
        errors = torch.cat(err).cpu() if err else torch.zeros(0)
        report = {
            "loss": sum(losses) / n if losses else float("nan"),
            "same_move": same / n,
            "equity_lost": lost / n,
            "equity_mae": float(errors.mean()) if len(errors) else float("nan"),
        }
        if self.positions and len(self.positions.test_rows):  # their loss counts as in training
            theirs = self.positions.measure(net)
            report["loss"] += float(self._positions_term(theirs.pop("loss"), self.positions.test_rows))
            report |= {f"positions_{k}" if k in ("mse", "equity_mae") else k: v for k, v in theirs.items()}
        return report


def anchored(data: LabelledAfterstates, anchor: torch.Tensor) -> torch.Tensor:
    """The teacher's values of ``data``, each roll's moved to the level of ``anchor`` (another
    net's values of the same afterstates): every output shifted by the roll's mean difference.

    The differences between a roll's moves (what the choice is learnt from) stay the teacher's;
    the level (what cube decisions rest on) becomes the anchor's. A teacher that is the
    student's own search passes the student's bias on, and each distilled generation adds to
    it (docs/supervised.md: the strong side's gammons fell by 0.03 over three); a net polished
    by TD self-play, whose games end in real results, does not share it."""
    counts = torch.bincount(data.group, minlength=data.pairs).clamp(min=1)[:, None]
    shift = torch.zeros(data.pairs, 5).index_add_(0, data.group, anchor - data.probs) / counts
    return (data.probs + shift[data.group]).clamp(0, 1)


def _values_of(spec: str, boards: torch.Tensor, chunk: int = CHUNK) -> torch.Tensor:
    """``(M, 5)`` 0-ply probabilities of the net ``spec`` (a checkpoint or shipped name) for
    ``boards`` (the player on roll in row 1), on the CPU."""
    net = load_net(checkpoint_path(spec))
    with torch.no_grad():
        return torch.cat([net(boards[i : i + chunk].long()) for i in range(0, len(boards), chunk)])


def listwise_loss(
    probs: torch.Tensor, target: torch.Tensor, group: torch.Tensor, groups: int, temperature: float
) -> torch.Tensor:
    """Mean over ``groups`` rolls of the cross-entropy between the teacher's and the net's softmax
    of the mover's equity over the roll's afterstates. ``probs``/``target`` are for the player on
    roll in the afterstates (the opponent), so the mover's equity is minus theirs."""
    mine = _group_log_softmax(-cubeless_equity(probs) / temperature, group, groups)
    theirs = _group_log_softmax(-cubeless_equity(target) / temperature, group, groups).exp()
    return -(theirs * mine).sum() / groups


def _group_log_softmax(x: torch.Tensor, group: torch.Tensor, n: int) -> torch.Tensor:
    """log softmax of ``x`` within each of ``n`` groups."""
    top = torch.zeros(n, dtype=x.dtype, device=x.device)
    top.scatter_reduce_(0, group, x.detach(), "amax", include_self=False)
    shifted = x - top[group]
    total = torch.zeros(n, dtype=x.dtype, device=x.device).index_add_(0, group, shifted.exp())
    return shifted - total.log()[group]


def _device(net: ValueNet) -> torch.device:
    return next(net.parameters()).device


def _encode(net: ValueNet, boards: np.ndarray, chunk: int = CHUNK) -> torch.Tensor:
    """The net's inputs for ``boards``, made once, a chunk at a time into one preallocated
    tensor on the net's device (millions of afterstates: the boards stay int8 and the inputs
    are never held twice)."""
    b = torch.as_tensor(boards)
    with torch.no_grad():
        first = net.encoding(b[:chunk].long(), net.checkers)
        x = torch.empty(len(b), first.shape[1], dtype=first.dtype, device=_device(net))
        x[: len(first)] = first
        for i in range(chunk, len(b), chunk):
            x[i : i + chunk] = net.encoding(b[i : i + chunk].long(), net.checkers)
    return x


def _allowed(net: ValueNet, boards: np.ndarray, chunk: int = CHUNK) -> torch.Tensor:
    """``(N, 5)`` bool on the net's device: :func:`possible_outcomes` of ``boards``, which the
    evaluators apply to every value (labels made by a net carry its zeros; so must the student),
    a chunk at a time as :func:`_encode`."""
    b = torch.as_tensor(boards)
    allowed = torch.ones(len(b), 5, dtype=torch.bool, device=_device(net))
    for i in range(0, len(b), chunk):
        allowed[i : i + chunk] = possible_outcomes(b[i : i + chunk].long(), net.checkers)
    return allowed


def _probs(net: ValueNet, x: torch.Tensor, allowed: torch.Tensor, rows: torch.Tensor) -> torch.Tensor:
    """The net's probabilities of encoded rows ``rows``, held to what each board allows."""
    return net.forward_encoded(x[rows]) * allowed[rows]


def position_loss(probs: torch.Tensor, target: torch.Tensor, weight: torch.Tensor, kind: str) -> torch.Tensor:
    """The weighted mean over positions of the loss ``kind`` plus the equity's squared error."""
    each = (cubeless_equity(probs) - cubeless_equity(target)).square()
    if kind == "mse":
        each = each + (probs - target).square().sum(1)
    else:
        p = probs.clamp(1e-6, 1 - 1e-6)
        each = each - (target * p.log() + (1 - target) * (1 - p).log()).sum(1)
    return (each * weight).sum() / weight.sum()


def _measure(net: ValueNet, x, allowed, y, w, klass, rows, loss_kind: str) -> dict:
    net.eval()
    with torch.no_grad():
        idx = torch.as_tensor(rows, device=x.device)
        probs = torch.cat([_probs(net, x, allowed, idx[i : i + CHUNK]) for i in range(0, len(idx), CHUNK)])
        target = y[idx]
        loss = float(position_loss(probs, target, w[idx], loss_kind)) if len(idx) else float("nan")
        err = (cubeless_equity(probs) - cubeless_equity(target)).abs().cpu().numpy()
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
    if "same_move" in report:
        parts += [f"same move {report['same_move']:.4f}", f"equity lost {report['equity_lost']:.5f}"]
    if "positions_equity_mae" in report:
        parts.append(f"positions' equity MAE {report['positions_equity_mae']:.4f}")
    parts += [
        f"{k.removeprefix('equity_mae_')} {v:.4f}" for k, v in report.items() if k.startswith("equity_mae_")
    ]
    if "train_loss" in report:
        parts.insert(0, f"train loss {report['train_loss']:.5f}")
    return ", ".join(parts)
