"""Positions judged by long gnubg rollouts: the set, and every net's error on it.

    python scripts/study/judge_set.py roll runs/data/bg5 --out runs/judge/bg --shard 0/2 &  # and 1/2
    python scripts/study/judge_set.py join runs/judge/bg --out checkpoints/judges/backgames.npz
    python scripts/study/judge_set.py report checkpoints/judges/backgames.npz --nets best,best_7
    python scripts/study/judge_set.py roll runs/data/bg5 --out runs/judge/cls --classes contact,crashed,race \
        --sources selfplay --positions 500 --trials 144 --variance-reduction --shard 0/2 &  # and 1/2

A judge that shares a net with the judged (gnubg 2-ply judging gnubg 0-ply) flatters it, most
of all where that net is wrong; so the judge here is gnubg's own rollout played to the end:
``--positions`` held-out positions of each of ``--classes`` of a database (by default back
games, :func:`bgai.train.positions.backgame_sides`: a side holds two or more points in the
other's home board while trailing in the race; chosen by ``--seed``, from ``--sources``),
cubeless, 0-ply checker play by gnubg's net, quasi-random dice, ``--trials`` trials, with
gnubg's variance reduction when asked (settings in scripts/measure/rollout_common.py). gnubg
judges; its values never become training labels.

``roll`` rolls out shard K of N (every N-th position of the selection) and saves after every
``--save-every`` positions, so a killed run resumes where it stopped; ``join`` merges the
shards into one small file that carries the boards (the judge set needs no database); ``report``
prints, per player (bgai specs at their plies, e.g. ``best@2ply``; ``gnubg``: gnubg's 0-ply
net): the mean absolute error, the bias (for the side holding the back game in back games, for
the player on roll elsewhere), the RMSE with the judge's noise taken out
(``sqrt(mean d² − mean SE²)``) and the mean squared error less gnubg 0-ply's (the judge's noise
cancels there), all with 95 % intervals, over all positions, per class and per source
(self-play, or games started from back-game set-ups).
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from pathlib import Path

import numpy as np
import torch

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "measure"))
from rollout_common import GnubgRollouts  # noqa: E402

from bgai.bots import evaluator_of  # noqa: E402
from bgai.cli.main import run_script  # noqa: E402
from bgai.formats import encode_position_id  # noqa: E402
from bgai.model.probs import cubeless_equity  # noqa: E402
from bgai.search.ply import evaluate_position  # noqa: E402
from bgai.specs import load_player  # noqa: E402
from bgai.stats import format_ci95, mean_ci95  # noqa: E402
from bgai.train.positions import (  # noqa: E402
    CLASSES,
    SOURCES,
    PositionDatabase,
    backgame_sides,
    class_codes,
    classify,
    source_codes,
)

RESULTS = ("probs", "probs_se", "equity", "equity_se", "seconds")  # per position, from gnubg
FIELDS = ("boards", "source", *RESULTS)


def select(
    db: PositionDatabase, positions: int, seed: int, classes: list[int], sources: list[int]
) -> np.ndarray:
    """The judge set's rows: ``positions`` held-out positions of each class (:data:`CLASSES`
    indices) from ``sources``, drawn by ``seed``."""
    rng, chosen = np.random.default_rng(seed), []
    kept = db.held_out & np.isin(db.source, sources)
    for code in classes:
        rows = np.flatnonzero(kept & (db.klass == code))
        if len(rows) < positions:
            raise SystemExit(
                f"error: only {len(rows)} held-out {CLASSES[code]} positions in the database, not {positions}"
            )
        chosen.append(rng.permutation(rows)[:positions])
    return np.sort(np.concatenate(chosen))


def save(path: Path, data: dict) -> None:
    """Atomically: a killed run never leaves a torn file."""
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f".{path.name}.tmp.npz")
    np.savez_compressed(tmp, **data)
    os.replace(tmp, path)


def load(path: Path) -> dict:
    with np.load(path, allow_pickle=False) as f:
        return {k: f[k] for k in f.files}


def roll(args: argparse.Namespace) -> None:
    k, n = (int(x) for x in args.shard.split("/"))
    classes, sources = class_codes(args.classes.split(",")), source_codes(args.sources.split(","))
    db = PositionDatabase.load(args.database)
    rows = select(db, args.positions, args.seed, classes, sources)[k::n]
    path = Path(args.out) / f"shard{k}of{n}.npz"
    settings = "database positions seed trials shard classes sources variance_reduction".split()
    meta = {name: getattr(args, name) for name in settings}
    old = load(path) if path.is_file() else None
    if old is not None and (
        json.loads(str(old["meta"])) != meta or not np.array_equal(old["rows"], rows[: len(old["rows"])])
    ):
        raise SystemExit(f"error: {path} holds another selection or settings: remove it or use its settings")
    done = 0 if old is None else len(old["rows"])
    results = {f: [] if old is None else list(old[f]) for f in RESULTS}
    gnubg = GnubgRollouts(threads=1)
    gnubg.configure(trials=args.trials, variance_reduction=args.variance_reduction)
    for i, row in enumerate(rows[done:], done):
        start = time.process_time()
        r = gnubg.rollout(encode_position_id(torch.as_tensor(db.boards[row])), seed=args.seed + int(row))
        values = (r.probs, r.probs_se, r.equity, r.equity_se, time.process_time() - start)
        for f, value in zip(RESULTS, values, strict=True):
            results[f].append(value)
        if (i + 1 - done) % args.save_every == 0 or i == len(rows) - 1:
            kept = rows[: i + 1]
            arrays = {f: np.array(v) for f, v in results.items()}
            save(
                path,
                dict(
                    rows=kept,
                    boards=db.boards[kept],
                    source=db.source[kept],
                    **arrays,
                    meta=np.array(json.dumps(meta)),
                ),
            )
            print(f"{i + 1}/{len(rows)} positions, {arrays['seconds'].mean():.2f} CPU s each", flush=True)


def join(args: argparse.Namespace) -> None:
    parts = [load(p) for p in sorted(Path(args.folder).glob("shard*of*.npz"))]
    if not parts:
        raise SystemExit(f"error: no shard files in {args.folder}")
    joined = {f: np.concatenate([p[f] for p in parts]) for f in ("rows",) + FIELDS}
    order = np.argsort(joined["rows"])
    meta = {k: v for k, v in json.loads(str(parts[0]["meta"])).items() if k != "shard"}
    save(Path(args.out), {f: v[order] for f, v in joined.items()} | {"meta": np.array(json.dumps(meta))})
    print(f"{len(order)} positions -> {args.out}")


def report(args: argparse.Namespace) -> None:
    data = load(Path(args.judge))
    boards = torch.as_tensor(data["boards"]).long()
    judge, judge_se = data["equity"], data["equity_se"]
    klass = classify(boards)
    # the side holding the back game (the player on roll where both do: rare, and signed as his);
    # elsewhere the player on roll
    holds = backgame_sides(boards)[:, 1].numpy() | (klass != CLASSES.index("backgame"))
    sign = np.where(holds, 1.0, -1.0)
    errors = {}
    for spec in args.nets.split(","):
        evaluator, plies, _ = evaluator_of(load_player(spec), "judging")  # gnubg: its 0-ply net
        values = evaluate_position(evaluator, boards, plies)
        errors[spec] = cubeless_equity(values).double().numpy() - judge
    ref = errors.get("gnubg")
    groups = [(f"class {c}", klass == CLASSES.index(c)) for c in CLASSES]
    groups += [(f"source {s}", data["source"] == SOURCES.index(s)) for s in SOURCES]
    parts = [("all", np.ones(len(judge), bool))] + [(n, m) for n, m in groups if 0 < m.sum() < len(judge)]
    kinds = ", ".join(f"{CLASSES[c]} {(klass == c).sum()}" for c in np.unique(klass))
    print(
        f"cubeless equity against gnubg rollouts to the end ({meta_text(data)}): "
        f"{len(judge)} positions ({kinds}), "
        f"judge RMS SE {np.sqrt((judge_se**2).mean()):.4f}, {data['seconds'].mean():.1f} CPU s a position"
    )
    for name, mask in parts:
        print(f"\n{name} ({int(mask.sum())} positions)")
        print("| player | mean abs error | bias (its side) | RMSE (judge noise out) | MSE − gnubg 0-ply's |")
        print("|---|---:|---:|---:|---:|")
        for spec, d in errors.items():
            d = d[mask]
            rmse = np.sqrt(max((d**2).mean() - (judge_se[mask] ** 2).mean(), 0.0))
            paired = format_ci95(d**2 - ref[mask] ** 2) if ref is not None and spec != "gnubg" else ""
            cells = (format_ci95(np.abs(d)), format_ci95(sign[mask] * d), f"{rmse:.4f}", paired)
            print(f"| {spec} | " + " | ".join(cells) + " |")
    if ref is not None:
        for spec, d in errors.items():
            if spec != "gnubg":
                gap, half = mean_ci95(np.abs(d) - np.abs(ref))
                print(f"{spec}: mean abs error − gnubg 0-ply's = {gap:+.4f} ± {half:.4f}")


def meta_text(data: dict) -> str:
    meta = json.loads(str(data["meta"]))
    reduced = ", variance reduction" if meta.get("variance_reduction") else ""
    play = "quasi-random dice, 0-ply gnubg checker play"
    return f"{meta['trials']} trials{reduced}, {play}; set seed {meta['seed']}"


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="action", required=True)
    r = sub.add_parser("roll", help="roll out one shard of the judge set (resumable)")
    r.add_argument("database")
    r.add_argument("--out", required=True, help="folder of the shard files")
    r.add_argument("--positions", type=int, default=2000, help="positions of each class (default 2000)")
    r.add_argument(
        "--classes", default="backgame", help=f"comma separated, of {', '.join(CLASSES)} (default backgame)"
    )
    r.add_argument(
        "--sources", default=",".join(SOURCES), help=f"comma separated, of {', '.join(SOURCES)} (default all)"
    )
    r.add_argument(
        "--variance-reduction", action="store_true", help="gnubg's variance reduction (default off)"
    )
    r.add_argument("--seed", type=int, default=1)
    r.add_argument("--trials", type=int, default=1296)
    r.add_argument("--shard", default="0/1")
    r.add_argument("--save-every", type=int, default=10)
    j = sub.add_parser("join", help="merge the shards into one judge file")
    j.add_argument("folder")
    j.add_argument("--out", required=True)
    p = sub.add_parser("report", help="every net's error on the judge set")
    p.add_argument("judge")
    p.add_argument("--nets", default="best,gnubg", help="bgai player specs or gnubg, comma separated")
    args = parser.parse_args(argv)
    {"roll": roll, "join": join, "report": report}[args.action](args)


if __name__ == "__main__":
    run_script(main)
