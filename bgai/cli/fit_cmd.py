"""``bgai fit DB RUN --labels NAME[,NAME]``: fit a network to labelled positions (supervised).

    bgai fit runs/data/db1 runs/fit/wide256 --labels ply2-best --init best --hidden 256
    bgai fit runs/data/db2 runs/fit/moves --labels moves1x2-best-selfplay --loss listwise --hidden 256
    bgai fit runs/data/db2 runs/fit/mix --labels moves1x2-best,rollout36-best-backgame:0.5 --loss listwise

Starts from ``--init`` (grown to ``--hidden``/``--encoding`` when they ask for more; ``--init
scratch``: random weights of that shape, e.g. two hidden layers no trained net can grow into), fits the
labels of the database's training part, measures the held-out part after every epoch and keeps
``best.pt`` (lowest held-out loss) and ``latest.pt``; the same command again resumes.
"""

from __future__ import annotations

import argparse


def register(subparsers) -> None:
    parser = subparsers.add_parser(
        "fit",
        help="fit a network to a labelled position database (supervised training)",
        description="Supervised fitting of a network, started from a trained one, to the labels of a "
        "position database (bgai data); held-out loss per epoch, early stopping, resumable.",
    )
    parser.add_argument("database", help="the database folder (bgai data build)")
    parser.add_argument("run_dir", metavar="run", help="the run folder (created; an existing one is resumed)")
    parser.add_argument(
        "--labels",
        required=True,
        help="label names, comma separated (later ones win on shared positions), each with an optional "
        "loss weight, e.g. ply1-best:0.1,rollout36t7-best; a listwise fit takes move labels and may take "
        "position labels beside them (moves2x2top3-best,rollout36-best-backgame:0.5)",
    )
    parser.add_argument(
        "--init",
        default="best",
        help="start from this checkpoint or shipped name (best), or from scratch (random weights of "
        "--hidden and --encoding, seeded by --seed)",
    )
    parser.add_argument("--hidden", default="", help="hidden sizes, e.g. 256 or 256,128 (default: init's)")
    parser.add_argument(
        "--residual",
        default="",
        help="residual blocks after the last hidden layer, each's width, e.g. 128 or 128,128 "
        "(default: init's); new blocks start adding nothing, so the fit starts where init was",
    )
    parser.add_argument("--encoding", default="", help="input encoding (default: init's)")
    parser.add_argument(
        "--widen",
        default="silent",
        help="a wider --hidden's new units: silent (zero weights out) or split (copies of old units "
        "that share their weights out: all carry signal from the start)",
    )
    parser.add_argument("--epochs", type=int, default=30)
    parser.add_argument("--lr", type=float, default=3e-4, help="Adam step size (default 3e-4)")
    parser.add_argument(
        "--schedule",
        default="constant",
        help="step size per epoch: constant, or cosine (falling from --lr towards 0 over --epochs)",
    )
    parser.add_argument("--batch", type=int, default=256)
    parser.add_argument(
        "--loss",
        default="mse",
        help="mse or ce (position labels), listwise (move labels: each roll's move choice, and the values)",
    )
    parser.add_argument(
        "--temperature", type=float, default=0.02, help="listwise: softmax temperature in equity (0.02)"
    )
    parser.add_argument(
        "--value-weight", type=float, default=30.0, help="listwise: weight of the afterstates' values (30)"
    )
    parser.add_argument(
        "--patience", type=int, default=4, help="epochs without a better held-out loss before stopping"
    )
    parser.add_argument(
        "--share",
        type=float,
        default=1.0,
        help="fit on this share of the training positions (a seeded choice; default 1): learning curves",
    )
    parser.add_argument(
        "--anchor",
        default="",
        help="listwise: move each roll's values to this net's level (e.g. one polished by TD self-play), "
        "keeping the teacher's differences between the moves (default: the teacher's level)",
    )
    parser.add_argument(
        "--keep-epochs",
        action="store_true",
        help="also keep each epoch's net (epoch_NNN.pt), to judge what the held-out loss does not "
        "see, e.g. the cube (scripts/measure/cube_quality.py --player RUN/epoch_050.pt)",
    )
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument(
        "--device", default="cpu", help="cpu, cuda or cuda:N: where the net is fitted (default cpu)"
    )
    parser.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    from bgai.model.net import device_of
    from bgai.train.fit import FitConfig, fit

    device = device_of(args.device)
    hidden, residual = (_sizes(args.hidden, "--hidden"), _sizes(args.residual, "--residual"))
    cfg = FitConfig(
        database=args.database,
        labels=tuple(n for n in args.labels.split(",") if n),
        init=args.init,
        hidden=hidden,
        residual=residual,
        encoding=args.encoding,
        epochs=args.epochs,
        lr=args.lr,
        schedule=args.schedule,
        batch=args.batch,
        loss=args.loss,
        patience=args.patience,
        seed=args.seed,
        temperature=args.temperature,
        value_weight=args.value_weight,
        share=args.share,
        widen=args.widen,
        anchor=args.anchor,
        keep_epochs=args.keep_epochs,
    )
    fit(cfg, args.run_dir, log=lambda line: print(line, flush=True), device=device)
    best = f"{args.run_dir}/best.pt"
    print(f"best held-out net: {best}  (bench it: bgai bench {best} best --games 2000)")
    return 0


def _sizes(text: str, option: str) -> tuple[int, ...]:
    try:
        return tuple(int(h) for h in text.split(",") if h.strip())
    except ValueError:
        raise ValueError(f"{option} must be sizes like 256 or 256,128, got {text!r}") from None
