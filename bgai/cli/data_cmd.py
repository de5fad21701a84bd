"""``bgai data build|label|info``: the position database for supervised training and its labels.

    bgai data build runs/data/db1 --selfplay 200000 --backgame 100000 --seed 1
    bgai data build runs/data/db1 --extend --selfplay 200000 --backgame 0 --seed 2   # more positions
    bgai data label runs/data/db1 --kind ply2 --shard 0/2 &   # two processes share the work
    bgai data label runs/data/db1 --kind ply2 --shard 1/2 &
    bgai data label runs/data/db1 --kind rollout --trials 36 --truncate 10 --classes backgame
    bgai data label runs/data/db1 --kind moves1 --rolls 2 --sources selfplay   # move choices at 1-ply
    bgai data info runs/data/db1

A labelling run keeps every finished chunk; run the same command again to carry on.
"""

from __future__ import annotations

import argparse
import json
import sys


def register(subparsers) -> None:
    parser = subparsers.add_parser(
        "data",
        help="build a position database and label it with bgai's own search or rollouts",
        description="The supervised-training data: positions from self-play and from back-game "
        "set-ups, de-duplicated, classified and split; labels from n-ply search or rollouts "
        "(resumable, shardable over processes).",
    )
    sub = parser.add_subparsers(dest="action", required=True, metavar="<action>")
    build = sub.add_parser("build", help="play games and collect positions into FOLDER/positions.npz")
    build.add_argument("folder")
    build.add_argument("--player", default="best", help="who plays the games (default best)")
    build.add_argument("--selfplay", type=int, default=20000, help="positions from self-play (default 20000)")
    build.add_argument(
        "--backgame",
        type=int,
        default=10000,
        help="positions from games started at back-game set-ups (default 10000)",
    )
    build.add_argument("--noise", type=float, default=0.05, help="exploration: equity noise per move (0.05)")
    build.add_argument("--seed", type=int, default=0)
    build.add_argument("--force", action="store_true", help="replace an existing database")
    build.add_argument(
        "--extend",
        action="store_true",
        help="add the new positions to the existing database (another --seed); its labels stay valid",
    )
    label = sub.add_parser("label", help="label the database's positions (resumable)")
    label.add_argument("folder")
    label.add_argument(
        "--kind",
        required=True,
        help="positions: ply0, ply1, ply2 or rollout; move choices (every legal move of a roll, "
        "valued at n-ply): moves0, moves1 or moves2",
    )
    label.add_argument("--player", default="best", help="whose search labels (default best)")
    label.add_argument("--classes", default="", help="only these classes, comma separated")
    label.add_argument("--sources", default="", help="only positions from these sources, comma separated")
    label.add_argument("--rolls", type=int, default=1, help="move kinds: rolls per position (default 1)")
    label.add_argument(
        "--top",
        type=int,
        default=0,
        help="moves2 and deeper: only each roll's TOP best moves by 1-ply that deep (default 0: all)",
    )
    label.add_argument("--held-out-only", action="store_true", help="only the held-out part")
    label.add_argument("--shard", default="0/1", help="K/N: this process labels every N-th position from K")
    label.add_argument("--chunk", type=int, default=256, help="positions a batch; saved every 30 s at most")
    label.add_argument("--trials", type=int, default=36, help="rollout trials per position (default 36)")
    label.add_argument("--truncate", type=int, default=None, help="rollout truncation in plies")
    label.add_argument("--rollout-ply", type=int, default=0, help="rollout checker play ply (default 0)")
    label.add_argument(
        "--no-vr", action="store_true", help="rollouts without variance reduction (plain trials)"
    )
    label.add_argument(
        "--worst-first",
        default="",
        help="mine: only the positions this label set (e.g. ply1-best) covers, those furthest from "
        "the player's own 0-ply first",
    )
    label.add_argument("--seed", type=int, default=0)
    label.add_argument("--hours", type=float, default=None, help="stop after this long (keeps what is done)")
    label.add_argument(
        "--device", default="cpu", help="cpu, cuda or cuda:N: where the search runs (default cpu)"
    )
    info = sub.add_parser("info", help="counts per class, source and part, and the labels present")
    info.add_argument("folder")
    info.add_argument("--json", action="store_true")
    parser.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    return {"build": _build, "label": _label, "info": _info}[args.action](args)


def _evaluator(spec: str, device: str = "cpu"):
    from bgai.bots import evaluator_of
    from bgai.specs import load_player

    evaluator, _, _ = evaluator_of(load_player(spec, device), "labelling")
    return evaluator


def _build(args) -> int:
    from pathlib import Path

    from bgai.train.positions import PositionDatabase, build_database

    path = Path(args.folder) / "positions.npz"
    if args.extend and args.force:
        raise ValueError("--extend adds to the database and --force replaces it: choose one")
    old = PositionDatabase.load(path) if args.extend else None  # a one-line error if missing
    if path.exists() and not (args.force or args.extend):
        raise ValueError(
            f"{path} exists: use --force to replace it, --extend to add to it, or another folder"
        )
    if args.selfplay < 0 or args.backgame < 0 or args.noise < 0:
        raise ValueError("--selfplay, --backgame and --noise must not be negative")
    if old is not None:
        old.check_new_seed(args.seed)
    evaluator = _evaluator(args.player)
    total = args.selfplay + args.backgame
    games = min(512, max(16, total // 400))
    db = build_database(
        evaluator,
        args.selfplay,
        args.backgame,
        args.noise,
        args.seed,
        games,
        meta={"player": args.player, "command": " ".join(sys.argv)},
    )
    if old is not None:
        db = old.extend(db)
        print(f"{db.segments[-1]} new positions added", end="; ")
    db.save(path)
    print(f"{len(db)} positions in {path}: {json.dumps(db.counts())}")
    return 0


def _label(args) -> int:
    import dataclasses

    from tqdm import tqdm

    from bgai.model.net import device_of
    from bgai.search import weights_digest
    from bgai.train.labels import LabelJob, label

    try:
        k, n = (int(x) for x in args.shard.split("/"))
    except ValueError:
        raise ValueError(f"--shard must look like K/N, got {args.shard!r}") from None
    job = LabelJob(
        kind=args.kind,
        player=args.player,
        classes=tuple(c for c in args.classes.split(",") if c),
        sources=tuple(c for c in args.sources.split(",") if c),
        rolls=args.rolls,
        top=args.top,
        held_out_only=args.held_out_only,
        shard=(k, n),
        chunk=args.chunk,
        trials=args.trials,
        truncate=args.truncate,
        rollout_plies=args.rollout_ply,
        variance_reduction=not args.no_vr,
        seed=args.seed,
        worst_first=args.worst_first,
    )
    device = device_of(args.device)
    evaluator = _evaluator(args.player, args.device)
    job = dataclasses.replace(job, teacher=weights_digest(evaluator))
    bar = tqdm(unit="pos", file=sys.stderr)

    def progress(done: int, total: int) -> None:
        bar.total = total
        bar.n = done
        bar.refresh()

    try:
        labels = label(
            evaluator,
            args.folder,
            job,
            progress,
            stop_after=None if args.hours is None else args.hours * 3600,
            device=device,
        )
    finally:
        bar.close()
    rate = len(labels.index) / labels.seconds if labels.seconds else float("nan")
    moves = f" ({len(labels.afterstates)} afterstates)" if job.moves else ""
    print(
        f"{len(labels.index)} positions{moves} labelled ({job.name}, shard {k}/{n}) in "
        f"{labels.seconds:.0f} s ({rate:.1f} per second): {job.path(args.folder)}"
    )
    return 0


def _info(args) -> int:
    from pathlib import Path

    from bgai.train.labels import read_labels, read_move_labels
    from bgai.train.positions import PositionDatabase

    db = PositionDatabase.load(args.folder)
    labels = {}
    for f in sorted((Path(args.folder) / "labels").glob("*of*")):
        lab = read_move_labels(f) if f.is_dir() else read_labels(f)
        labels[f.name] = {"positions": len(lab.index), "seconds": round(lab.seconds, 1)}
        if f.is_dir():
            labels[f.name]["afterstates"] = len(lab.afterstates)
    report = {"positions": len(db), **db.counts(), "meta": db.meta, "labels": labels}
    print(json.dumps(report, indent=None if args.json else 2))
    return 0
