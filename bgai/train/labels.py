"""Labels for the position database from bgai's own search: n-ply evaluations or rollouts.

A label is the five probabilities for the player on roll before the roll, with the
standard error of its equity (0 for a search value). Labelling is a long job, so it runs in
chunks and keeps what it has: after each chunk the label file is rewritten atomically with
every label so far, and a restarted job carries on after the last one. Positions are taken in
an order shuffled by the job's seed, so a job stopped early (``--hours``) has labelled a fair
sample of its classes, not the database's first games. ``shard=(k, n)`` takes every ``n``-th
position of that order from the ``k``-th, so that ``n`` processes (or machines) share one
database, each writing its own file; :func:`load_labels` merges them. ``worst_first`` mines
instead: it takes the positions another label set covers in the order of how far that set's
equity lies from the player's own 0-ply equity, largest first, so that a job stopped early has
labelled where the net is most wrong (as gnubg's and wildbg's trainers pick positions).

Label kinds: ``ply0``, ``ply1``, ``ply2`` (:func:`bgai.search.evaluate_position`) and
``rollout`` (:func:`bgai.rollout.rollout_positions`, with the job's rollout settings) label
positions. ``moves0``, ``moves1``, ``moves2`` label move choices: for each position and each of
``rolls`` rolls (a seeded hash of the position's number, so every shard draws the same), every
legal afterstate with its value at that many plies (:func:`bgai.train.distill.afterstates_of`):
what a net must learn to play at 0-ply as the teacher plays at n-ply (``bgai fit --loss
listwise``). They are many (about 15 afterstates a roll), so each chunk is its own file in the
shard's folder rather than one file rewritten.
Labels never come from gnubg.
"""

from __future__ import annotations

import dataclasses
import json
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass
from pathlib import Path

import numpy as np
import torch

from bgai.bearoff.evaluator import is_bearoff
from bgai.engine.dice import dice_of
from bgai.model.probs import cubeless_equity
from bgai.rollout import RolloutSettings, rollout_positions
from bgai.search.evaluator import Evaluator
from bgai.search.ply import FilterStage, evaluate_position, keep_by_filter
from bgai.train.distill import LabelledAfterstates, afterstates_of
from bgai.train.positions import PositionDatabase, class_codes, load_npz, save_npz, source_codes

POSITION_KINDS = ("ply0", "ply1", "ply2", "rollout")
MOVE_KINDS = ("moves0", "moves1", "moves2")
KINDS = POSITION_KINDS + MOVE_KINDS


def is_move_labels(name: str) -> bool:
    """Whether the label set called ``name`` (:attr:`LabelJob.name`) labels move choices."""
    return name.startswith(MOVE_KINDS)


@dataclass(frozen=True)
class LabelJob:
    """What to label and how; its fields are saved with the labels (the recipe)."""

    kind: str
    player: str = "best"
    classes: tuple[str, ...] = ()  # only these classes (default: all)
    sources: tuple[str, ...] = ()  # only positions from these sources (default: all)
    held_out_only: bool = False
    shard: tuple[int, int] = (0, 1)
    chunk: int = 256
    trials: int = 36
    truncate: int | None = None
    rollout_plies: int = 0
    variance_reduction: bool = True  # rollouts; off: plain trials (to the end: better at 0 ply, not at 1)
    seed: int = 0
    rolls: int = 1  # move kinds: rolls per position
    top: int = 0  # move kinds past 1 ply: only each roll's top moves (by 1-ply) that deep; 0: all
    teacher: str = ""  # the player's weights_digest: "best" names another net after a promotion
    worst_first: str = ""  # a label set's name: its positions, furthest from the player's 0-ply first

    def __post_init__(self) -> None:
        if self.kind not in KINDS:
            raise ValueError(f"unknown label kind {self.kind!r}: choose one of {', '.join(KINDS)}")
        if self.player.split("@")[0].split(":")[0] == "gnubg":
            raise ValueError("labels never come from gnubg (it may only judge): label with a bgai player")
        class_codes(self.classes)
        source_codes(self.sources)
        if self.rolls < 1:
            raise ValueError(f"rolls must be at least 1, got {self.rolls}")
        if self.top < 0 or (self.top and not (self.moves and self.plies >= 2)):
            raise ValueError(f"top (got {self.top}) is for move kinds of 2 plies or more, and not negative")
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
            variance_reduction=self.variance_reduction,
            seed=self.seed,
            block=self.trials,
        )

    @property
    def moves(self) -> bool:
        """Whether this job labels move choices (afterstates), not positions."""
        return self.kind in MOVE_KINDS

    @property
    def plies(self) -> int:
        """The search depth of a ply or moves label (a rollout's: that of its checker play)."""
        return self.rollout_plies if self.kind == "rollout" else int(self.kind[-1])

    @property
    def name(self) -> str:
        how = self.kind
        if self.kind == "rollout":
            how = (
                f"rollout{self.trials}"
                + (f"t{self.truncate}" if self.truncate else "")
                + (f"p{self.rollout_plies}" if self.rollout_plies else "")
                + ("" if self.variance_reduction else "nv")
            )
        elif self.moves:
            how += (f"x{self.rolls}" if self.rolls > 1 else "") + (f"top{self.top}" if self.top else "")
        part = "".join(f"-{c}" for c in self.classes + self.sources)
        part += "-heldout" if self.held_out_only else ""
        part += f"-by{self.worst_first.split('-')[0]}" if self.worst_first else ""
        return f"{how}-{self.player.replace('/', '_').replace(':', '_')}{part}"

    def path(self, folder: Path) -> Path:
        """The shard's label file (a folder of chunk files for move labels)."""
        k, n = self.shard
        return Path(folder) / "labels" / (f"{self.name}.{k}of{n}" + ("" if self.moves else ".npz"))

    def selection(self, db: PositionDatabase, rank: np.ndarray | None = None) -> np.ndarray:
        """Indices of the positions this job (shard) labels, in its order: each segment of the
        database (:meth:`PositionDatabase.extend`) shuffled by the seed, the older ones first, so
        extending a database leaves a job's order so far as it was. With ``rank`` (a score per
        database position, NaN where there is none): only the ranked ones, highest first."""
        keep = np.ones(len(db), dtype=bool)
        if self.classes:
            keep &= np.isin(db.klass, class_codes(self.classes))
        if self.sources:
            keep &= np.isin(db.source, source_codes(self.sources))
        if self.held_out_only:
            keep &= db.held_out
        parts, start = [], 0
        for size in db.segments:
            rows = start + np.flatnonzero(keep[start : start + size])
            parts.append(rows[np.random.default_rng(self.seed).permutation(len(rows))])
            start += size
        order = np.concatenate(parts)
        if rank is not None:
            order = order[~np.isnan(rank[order])]
            order = order[np.argsort(-rank[order], kind="stable")]
        k, n = self.shard
        return order[k::n]


@dataclass(frozen=True)
class Labels:
    """``index`` into the database, ``probs`` ``(M, 5)``, ``se`` ``(M,)`` (equity SE) and the
    seconds of CPU wall time they took."""

    index: np.ndarray
    probs: np.ndarray
    se: np.ndarray
    seconds: float
    job: dict


@dataclass(frozen=True)
class MoveLabels:
    """Move-choice labels: positions ``index`` ``(P,)``, their ``dice`` ``(P, R, 2)``, and the
    labelled ``afterstates`` of every (position, roll): pair ``p * R + r`` is position
    ``index[p]`` with roll ``dice[p, r]``; ``seconds`` of CPU wall time they took."""

    index: np.ndarray
    dice: np.ndarray
    afterstates: LabelledAfterstates
    seconds: float
    job: dict


SAVE_EVERY = 30.0
"""Seconds between rewrites of a job's label file: a killed job loses at most this much work."""


def label(
    evaluator: Evaluator,
    folder: str | Path,
    job: LabelJob,
    progress: Callable[[int, int], None] | None = None,
    stop_after: float | None = None,
    device: str | torch.device = "cpu",
) -> Labels | MoveLabels:
    """Label the job's positions of the database in ``folder``, resuming its own file.

    ``progress(done, total)`` after each chunk; ``stop_after`` seconds ends the run early
    (what is done is kept). ``device``: where the boards go (move generation, search and
    rollouts run there; the evaluator's nets must be there too, :func:`bgai.specs.load_player`);
    labels come back to the CPU. The device is not part of the recipe: a job may resume on another.
    """
    folder = Path(folder)
    db = PositionDatabase.load(folder)
    rank = disagreement(evaluator, folder, db, job.worst_first, device) if job.worst_first else None
    rows = job.selection(db, rank)
    path = job.path(folder)
    have = _read(path, job) if path.exists() else _join([], job)
    done = len(have.index)
    if done and not np.array_equal(have.index, rows[:done]):
        raise ValueError(f"{path} was made from another database or selection: remove it or label elsewhere")
    parts, started = [have], time.monotonic()
    saved = started
    while done < len(rows):
        part = rows[done : done + job.chunk]
        t0 = time.monotonic()
        chunk = _label_chunk(evaluator, torch.as_tensor(db.boards[part]).to(device), part, job)
        parts.append(dataclasses.replace(chunk, seconds=time.monotonic() - t0))
        if job.moves:  # each chunk its own file, named by where it starts
            _write(path / f"{done:09d}.npz", parts[-1])
        done += len(part)
        if progress is not None:
            progress(done, len(rows))
        if stop_after is not None and time.monotonic() - started > stop_after:
            break
        if not job.moves and time.monotonic() - saved >= SAVE_EVERY:
            # the one file is rewritten whole: after every cheap chunk that grows quadratically
            parts, saved = [_join(parts, job)], time.monotonic()
            _write(path, parts[0])
    labels = _join(parts, job)
    if not job.moves and len(parts) > 1:  # what the last save left out
        _write(path, labels)
    return labels


def disagreement(
    evaluator: Evaluator, folder: Path, db: PositionDatabase, name: str, device: str | torch.device = "cpu"
) -> np.ndarray:
    """Per database position, how far the label set ``name``'s cubeless equity lies from the
    evaluator's 0-ply equity (NaN where ``name`` has no label): the mining score."""
    labels = load_labels(folder, name, len(db))
    rank = np.full(len(db), np.nan)
    for start in range(0, len(labels.index), 65536):
        part = slice(start, start + 65536)
        boards = torch.as_tensor(db.boards[labels.index[part]]).to(device)
        mine = cubeless_equity(evaluate_position(evaluator, boards, 0).float()).cpu().numpy()
        rank[labels.index[part]] = np.abs(cubeless_equity(torch.as_tensor(labels.probs[part])).numpy() - mine)
    return rank


def _label_chunk(evaluator: Evaluator, boards: torch.Tensor, index: np.ndarray, job: LabelJob):
    if job.moves:
        rolls = np.arange(job.rolls)
        dice = dice_of(job.seed, np.repeat(index, job.rolls), np.tile(rolls, len(index)))
        data = afterstates_of(
            evaluator,
            boards.repeat_interleave(job.rolls, 0),
            torch.as_tensor(dice, device=boards.device),
            skip=is_bearoff,
            chunk=256,
            plies=1 if job.top else job.plies,
        )
        if job.top:
            data = _deepen(evaluator, data, job.plies, job.top)
        data = LabelledAfterstates(data.boards.cpu(), data.probs.cpu(), data.group.cpu(), data.pairs)
        dice = dice.reshape(len(index), job.rolls, 2).astype(np.int8)
        return MoveLabels(index, dice, data, 0.0, asdict(job))
    if job.kind == "rollout":
        r = rollout_positions(evaluator, boards, job.rollout_settings())
        probs, se = r.probs.astype(np.float32), r.equity_se.astype(np.float32)
    else:
        probs = evaluate_position(evaluator, boards, job.plies).float().cpu().numpy()
        se = np.zeros(len(boards), np.float32)
    return Labels(index, probs, se, 0.0, asdict(job))


def _deepen(evaluator: Evaluator, data: LabelledAfterstates, plies: int, top: int) -> LabelledAfterstates:
    """Each roll's ``top`` moves (by their 1-ply values in ``data``) valued at ``plies``; the
    roll's other moves keep their 1-ply values moved by the roll's mean change of its top moves,
    so that the odd-even difference between depths does not rank them against the deep ones
    (the listwise loss compares all of a roll's moves). Probabilities are clipped to [0, 1]."""
    mover = -cubeless_equity(data.probs)  # the afterstates' values are the opponent's
    deep = keep_by_filter(mover, data.group, data.pairs, FilterStage(top, 0, 0.0))
    counts = torch.bincount(data.group, minlength=data.pairs)
    probs = data.probs.clone()
    probs[deep] = evaluate_position(evaluator, data.boards[deep].long(), plies).float()
    change = torch.zeros(data.pairs, 5, device=probs.device).index_add_(
        0, data.group[deep], probs[deep] - data.probs[deep]
    )
    change /= counts.clamp(max=top).clamp(min=1)[:, None].float()
    probs[~deep] = (probs[~deep] + change[data.group[~deep]]).clamp(0, 1)
    return LabelledAfterstates(data.boards, probs, data.group, data.pairs)


def without_positions(labels: MoveLabels, drop: np.ndarray) -> MoveLabels:
    """``labels`` less the positions ``drop`` marks (``(database size,)`` bool): how a later
    label set wins over an earlier one on the positions both cover."""
    keep = ~drop[labels.index]
    pairs = np.repeat(keep, labels.dice.shape[1])  # pair p * R + r is position p's roll r
    a = labels.afterstates
    rows = torch.as_tensor(pairs)[a.group]
    renumber = torch.as_tensor(np.cumsum(pairs) - 1)
    kept = LabelledAfterstates(a.boards[rows], a.probs[rows], renumber[a.group[rows]], int(pairs.sum()))
    return dataclasses.replace(labels, index=labels.index[keep], dice=labels.dice[keep], afterstates=kept)


def _join(parts: list, job: LabelJob) -> Labels | MoveLabels:
    """The labels of ``parts`` (of the job's kind) one after the other; none: empty labels."""
    index = np.concatenate([np.zeros(0, np.int64)] + [p.index for p in parts])
    seconds = float(sum(p.seconds for p in parts))
    if not job.moves:
        return Labels(
            index,
            np.concatenate([np.zeros((0, 5), np.float32)] + [p.probs for p in parts]),
            np.concatenate([np.zeros(0, np.float32)] + [p.se for p in parts]),
            seconds,
            asdict(job),
        )
    afterstates = LabelledAfterstates.join([p.afterstates for p in parts])
    dice = np.concatenate([np.zeros((0, job.rolls, 2), np.int8)] + [p.dice for p in parts])
    return MoveLabels(index, dice, afterstates, seconds, asdict(job))


def _write(path: Path, labels: Labels | MoveLabels) -> None:
    if isinstance(labels, MoveLabels):
        a = labels.afterstates
        arrays = {
            "dice": labels.dice,
            "boards": a.boards.numpy(),
            "probs": a.probs.numpy(),
            "group": a.group.numpy().astype(np.int32),
        }
    else:
        arrays = {"probs": labels.probs, "se": labels.se}
    save_npz(path, index=labels.index, seconds=labels.seconds, job=json.dumps(labels.job), **arrays)


def _read(path: Path, job: LabelJob) -> Labels | MoveLabels:
    return read_move_labels(path, job) if job.moves else read_labels(path, job)


def _check_job(path: Path, theirs: dict, job: LabelJob | None) -> None:
    """With ``job``: ``theirs`` (a label file's recipe) must be the same, chunk size aside."""
    if job is None:
        return
    mine = json.loads(json.dumps(asdict(job)))
    full = {**json.loads(json.dumps(asdict(LabelJob(kind=theirs.get("kind", job.kind))))), **theirs}
    if job.teacher and full["teacher"] != job.teacher:
        raise ValueError(
            f"{path} was labelled by another net than today's {job.player!r} (weights "
            f"{full['teacher'] or 'not recorded'}, now {job.teacher}): move it aside or label elsewhere"
        )
    if {k: v for k, v in mine.items() if k != "chunk"} != {k: v for k, v in full.items() if k != "chunk"}:
        raise ValueError(f"{path} was labelled with other settings: {theirs}")


def read_labels(path: Path, job: LabelJob | None = None) -> Labels:
    """One label file (one shard); with ``job``, check that it was made with the same settings."""
    data = load_npz(path, "label file", ("index", "probs", "se", "seconds", "job"))
    _check_job(path, data["job"], job)
    return Labels(data["index"], data["probs"], data["se"], float(data["seconds"]), data["job"])


def read_move_labels(path: Path, job: LabelJob | None = None) -> MoveLabels:
    """One shard's folder of move-label chunks, joined; with ``job``, check their settings."""
    parts = []
    for f in sorted(Path(path).glob("*.npz")):
        d = load_npz(f, "move label file", ("index", "dice", "boards", "probs", "group", "seconds", "job"))
        _check_job(f, d["job"], job)
        pairs = d["dice"].shape[0] * d["dice"].shape[1]
        if len(d["group"]) and not (d["group"].min() >= 0 and d["group"].max() < pairs):
            raise ValueError(f"{f} is not a bgai move label file (its afterstates point past its positions)")
        group = torch.as_tensor(d["group"]).long()
        data = LabelledAfterstates(torch.as_tensor(d["boards"]), torch.as_tensor(d["probs"]), group, pairs)
        parts.append(MoveLabels(d["index"], d["dice"], data, float(d["seconds"]), d["job"]))
    if not parts and job is None:
        raise ValueError(f"{path} holds no move labels")
    return _join(parts, job or _job_of(parts[0].job))


def _check_fits(index: np.ndarray, name: str, positions: int | None) -> None:
    """Labels must point into a database of ``positions`` (when given): else made for another one."""
    if positions is not None and index.max(initial=-1) >= positions:
        raise ValueError(f"labels {name!r} point past the end of the database: made for another one?")


def load_labels(folder: str | Path, name: str, positions: int | None = None) -> Labels:
    """Every shard of the labels called ``name`` (e.g. ``ply2-best``) in ``folder``, merged;
    with ``positions`` (the database's size), checked to fit it."""
    files = sorted((Path(folder) / "labels").glob(f"{name}.*of*.npz"))
    if not files:
        raise ValueError(f"no labels called {name!r} in {folder}/labels")
    parts = [read_labels(f) for f in files]
    index = np.concatenate([p.index for p in parts])
    _check_fits(index, name, positions)
    order = np.argsort(index, kind="stable")
    return Labels(
        index[order],
        np.concatenate([p.probs for p in parts])[order],
        np.concatenate([p.se for p in parts])[order],
        sum(p.seconds for p in parts),
        parts[0].job,
    )


def load_move_labels(folder: str | Path, name: str, positions: int | None = None) -> MoveLabels:
    """Every shard of the move labels called ``name`` (e.g. ``moves1x2-best``) in ``folder``,
    joined; with ``positions`` (the database's size), checked to fit it."""
    shards = sorted(p for p in (Path(folder) / "labels").glob(f"{name}.*of*") if p.is_dir())
    if not shards:
        raise ValueError(f"no move labels called {name!r} in {folder}/labels")
    parts = [read_move_labels(p) for p in shards]
    labels = _join(parts, _job_of(parts[0].job))
    _check_fits(labels.index, name, positions)
    return labels


def _job_of(recipe: dict) -> LabelJob:
    """The job a label file's saved recipe describes."""
    return LabelJob(**{k: tuple(v) if isinstance(v, list) else v for k, v in recipe.items()})
