"""Labels for the position database from bgai's own search: n-ply evaluations or rollouts.

A label is the five probabilities for the player on roll before the roll, with the
standard error of its equity (0 for a search value). Labelling is a long job, so it runs in
chunks and keeps what it has: after each chunk the label file is rewritten atomically with
every label so far, and a restarted job carries on after the last one. Positions are taken in
an order shuffled by the job's seed, so a job stopped early (``--hours``) has labelled a fair
sample of its classes, not the database's first games. ``shard=(k, n)`` takes every ``n``-th
position of that order from the ``k``-th, so that ``n`` processes (or machines) share one
database, each writing its own file; :func:`load_labels` merges them.

Label kinds: ``ply0``, ``ply1``, ``ply2`` (:func:`bgai.search.evaluate_position`) and
``rollout`` (:func:`bgai.rollout.rollout_positions`, with the job's rollout settings).
Labels never come from gnubg.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass
from pathlib import Path

import numpy as np
import torch

from bgai.rollout import RolloutSettings, rollout_positions
from bgai.search.evaluator import Evaluator
from bgai.search.ply import evaluate_position
from bgai.train.positions import CLASSES, PositionDatabase, load_npz, save_npz

KINDS = ("ply0", "ply1", "ply2", "rollout")


@dataclass(frozen=True)
class LabelJob:
    """What to label and how; its fields are saved with the labels (the recipe)."""

    kind: str
    player: str = "best"
    classes: tuple[str, ...] = ()  # only these classes (default: all)
    held_out_only: bool = False
    shard: tuple[int, int] = (0, 1)
    chunk: int = 256
    trials: int = 36
    truncate: int | None = None
    rollout_plies: int = 0
    seed: int = 0

    def __post_init__(self) -> None:
        if self.kind not in KINDS:
            raise ValueError(f"unknown label kind {self.kind!r}: choose one of {', '.join(KINDS)}")
        unknown = [c for c in self.classes if c not in CLASSES]
        if unknown:
            raise ValueError(f"unknown position class {unknown[0]!r}: choose from {', '.join(CLASSES)}")
        k, n = self.shard
        if not (n >= 1 and 0 <= k < n):
            raise ValueError(f"shard must be K/N with 0 <= K < N, got {k}/{n}")
        if self.chunk < 1:
            raise ValueError(f"chunk must be at least 1, got {self.chunk}")
        self.rollout_settings()  # checks trials and truncation

    def rollout_settings(self) -> RolloutSettings:
        return RolloutSettings(
            trials=self.trials,
            truncate=self.truncate,
            plies=self.rollout_plies,
            seed=self.seed,
            block=self.trials,
        )

    @property
    def name(self) -> str:
        how = (
            self.kind
            if self.kind != "rollout"
            else (
                f"rollout{self.trials}"
                + (f"t{self.truncate}" if self.truncate else "")
                + (f"p{self.rollout_plies}" if self.rollout_plies else "")
            )
        )
        part = "".join(f"-{c}" for c in self.classes) + ("-heldout" if self.held_out_only else "")
        return f"{how}-{self.player.replace('/', '_').replace(':', '_')}{part}"

    def path(self, folder: Path) -> Path:
        k, n = self.shard
        return Path(folder) / "labels" / f"{self.name}.{k}of{n}.npz"

    def selection(self, db: PositionDatabase) -> np.ndarray:
        """Indices of the positions this job (shard) labels, in its order (shuffled by the seed)."""
        rows = np.arange(len(db))
        keep = np.ones(len(db), dtype=bool)
        if self.classes:
            keep &= np.isin(db.klass, [CLASSES.index(c) for c in self.classes])
        if self.held_out_only:
            keep &= db.held_out
        rows = rows[keep]
        rows = rows[np.random.default_rng(self.seed).permutation(len(rows))]
        k, n = self.shard
        return rows[k::n]


@dataclass(frozen=True)
class Labels:
    """``index`` into the database, ``probs`` ``(M, 5)``, ``se`` ``(M,)`` (equity SE) and the
    seconds of CPU wall time they took."""

    index: np.ndarray
    probs: np.ndarray
    se: np.ndarray
    seconds: float
    job: dict


def label(
    evaluator: Evaluator,
    folder: str | Path,
    job: LabelJob,
    progress: Callable[[int, int], None] | None = None,
    stop_after: float | None = None,
) -> Labels:
    """Label the job's positions of the database in ``folder``, resuming its own file.

    ``progress(done, total)`` after each chunk; ``stop_after`` seconds ends the run early
    (what is done is kept).
    """
    folder = Path(folder)
    db = PositionDatabase.load(folder)
    rows = job.selection(db)
    path = job.path(folder)
    have = (
        read_labels(path, job)
        if path.exists()
        else Labels(
            np.zeros(0, np.int64), np.zeros((0, 5), np.float32), np.zeros(0, np.float32), 0.0, asdict(job)
        )
    )
    done = len(have.index)
    if done and not np.array_equal(have.index, rows[:done]):
        raise ValueError(f"{path} was made from another database or selection: remove it or label elsewhere")
    index, probs, se, seconds = [have.index], [have.probs], [have.se], have.seconds
    started = time.monotonic()
    while done < len(rows):
        part = rows[done : done + job.chunk]
        t0 = time.monotonic()
        p, s = _label_chunk(evaluator, torch.as_tensor(db.boards[part]), job)
        seconds += time.monotonic() - t0
        index.append(part), probs.append(p), se.append(s)
        done += len(part)
        result = Labels(
            np.concatenate(index), np.concatenate(probs), np.concatenate(se), seconds, asdict(job)
        )
        _write(path, result)
        if progress is not None:
            progress(done, len(rows))
        if stop_after is not None and time.monotonic() - started > stop_after:
            break
    return Labels(np.concatenate(index), np.concatenate(probs), np.concatenate(se), seconds, asdict(job))


def _label_chunk(evaluator: Evaluator, boards: torch.Tensor, job: LabelJob) -> tuple[np.ndarray, np.ndarray]:
    if job.kind == "rollout":
        r = rollout_positions(evaluator, boards, job.rollout_settings())
        return r.probs.astype(np.float32), r.equity_se.astype(np.float32)
    plies = KINDS.index(job.kind)
    probs = evaluate_position(evaluator, boards, plies)
    return probs.float().numpy(), np.zeros(len(boards), np.float32)


def _write(path: Path, labels: Labels) -> None:
    save_npz(
        path,
        index=labels.index,
        probs=labels.probs,
        se=labels.se,
        seconds=labels.seconds,
        job=json.dumps(labels.job),
    )


def read_labels(path: Path, job: LabelJob | None = None) -> Labels:
    """One label file (one shard); with ``job``, check that it was made with the same settings."""
    data = load_npz(path, "label file", ("index", "probs", "se", "seconds", "job"))
    labels = Labels(data["index"], data["probs"], data["se"], float(data["seconds"]), data["job"])
    if job is not None:
        mine = json.loads(json.dumps(asdict(job)))
        theirs = {k: v for k, v in labels.job.items() if k != "chunk"}
        if {k: v for k, v in mine.items() if k != "chunk"} != theirs:
            raise ValueError(f"{path} was labelled with other settings: {labels.job}")
    return labels


def load_labels(folder: str | Path, name: str) -> Labels:
    """Every shard of the labels called ``name`` (e.g. ``ply2-best``) in ``folder``, merged."""
    files = sorted((Path(folder) / "labels").glob(f"{name}.*of*.npz"))
    if not files:
        raise ValueError(f"no labels called {name!r} in {folder}/labels")
    parts = [read_labels(f) for f in files]
    index = np.concatenate([p.index for p in parts])
    order = np.argsort(index, kind="stable")
    return Labels(
        index[order],
        np.concatenate([p.probs for p in parts])[order],
        np.concatenate([p.se for p in parts])[order],
        sum(p.seconds for p in parts),
        parts[0].job,
    )
