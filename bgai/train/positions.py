"""The position database for supervised training on bgai's own search and rollouts.

Positions (player on roll in row 1, before the roll) come from two sources:

* ``selfplay``: games of the current evaluator against itself from the opening position,
  choosing the best 0-ply move plus normal noise of ``noise`` equity (exploration);
* ``backgame``: the same kind of games started from random **back-game set-ups** (one side
  holds two or three anchors in the other's home board and trails in the race, see
  :func:`backgame_starts`), which self-play from the opening hardly ever reaches; the games run
  on through containment, primes, crashed boards and bear-offs against contact.

The database is de-duplicated, each position classified (:data:`CLASSES`, see
:func:`classify`), and split into training and held-out parts by a hash of the board, so a
position lands in the same part in every database. Positions both databases answer exactly
(two-sided bear-offs) are left out: they need no label. A database grows by more builds
(:meth:`PositionDatabase.extend`, ``bgai data build --extend``): each adds a segment of new
positions after the old ones, whose numbers and labels stay as they were.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import torch

from bgai.bearoff.evaluator import is_bearoff
from bgai.bearoff.two_sided import TWO_SIDED_CHECKERS
from bgai.engine.board import CHECKERS, is_race, pip_counts
from bgai.engine.sampling import backgame_starts
from bgai.search.evaluator import Evaluator, terminal_probs
from bgai.train.distill import selfplay_positions

SOURCES = ("selfplay", "backgame")
CLASSES = ("contact", "crashed", "backgame", "race", "bearoff")
"""Position classes (a split of bgai's own, measured per class):

* ``backgame``: contact, and a side holds two or more points (2+ checkers) in the other's home
  board while trailing in the race;
* ``crashed``: other contact positions where a side has six or more checkers on its own 1- to
  3-points or borne off (its board has crashed or is crashing);
* ``contact``: every other contact position;
* ``race``: no contact, some checker still outside the home boards; ``bearoff``: all home.
"""
FORMAT = 1
HELD_OUT_PER_MILLE = 100  # 10 % of positions, by board hash


def class_codes(names) -> list[int]:
    """Indices into :data:`CLASSES` of these class names; an unknown one is a one-line error."""
    unknown = [c for c in names if c not in CLASSES]
    if unknown:
        raise ValueError(f"unknown position class {unknown[0]!r}: choose from {', '.join(CLASSES)}")
    return [CLASSES.index(c) for c in names]


def source_codes(names) -> list[int]:
    """Indices into :data:`SOURCES` of these source names; an unknown one is a one-line error."""
    unknown = [s for s in names if s not in SOURCES]
    if unknown:
        raise ValueError(f"unknown position source {unknown[0]!r}: choose from {', '.join(SOURCES)}")
    return [SOURCES.index(s) for s in names]


def backgame_sides(boards) -> torch.Tensor:
    """``(N, 2)`` bool, per side ``[opponent, on roll]``: it holds a back game (two or more
    points in the other side's home board while trailing in the race). Errors in back games
    are one-sided, so they are measured from this side's point of view."""
    b = torch.as_tensor(boards).long()
    pips = pip_counts(b)  # (N, 2): [opponent, on roll]
    anchors = (b[:, :, 18:24] >= 2).sum(-1)  # points held in the other side's home board, per side
    trailing = torch.stack([pips[:, 0] > pips[:, 1], pips[:, 1] > pips[:, 0]], 1)
    return (anchors >= 2) & trailing


def crashed_sides(boards) -> torch.Tensor:
    """``(N, 2)`` bool, per side ``[opponent, on roll]``: its board has crashed (six or more
    checkers on its 1-3 points or borne off). Like back games, crashed positions are misjudged
    one-sidedly, so their errors are measured from the crashed side's point of view."""
    b = torch.as_tensor(boards).long()
    return b[:, :, :3].sum(-1) + (CHECKERS - b.sum(-1)) >= 6


def crashed_side(boards) -> np.ndarray:
    """``(N,)`` +1 where only the player on roll has crashed (:func:`crashed_sides`), -1 where
    only his opponent has, 0 otherwise: the sign that turns an error into the crashed side's."""
    sides = crashed_sides(boards).numpy()
    return np.where(sides.sum(-1) == 1, np.where(sides[:, 1], 1, -1), 0)


def classify(boards) -> np.ndarray:
    """``(N,)`` index into :data:`CLASSES` of each board ``(N, 2, 25)``."""
    b = torch.as_tensor(boards).long()
    race = is_race(b)
    backgame = backgame_sides(b).any(-1)
    crashed = crashed_sides(b).any(-1)
    codes = torch.full((len(b),), CLASSES.index("contact"))
    codes[crashed] = CLASSES.index("crashed")
    codes[backgame] = CLASSES.index("backgame")
    codes[race] = CLASSES.index("race")
    codes[is_bearoff(b)] = CLASSES.index("bearoff")
    return codes.numpy().astype(np.int8)


@dataclass(frozen=True)
class PositionDatabase:
    """``boards`` ``(N, 2, 25)`` int8 (player on roll in row 1), ``source``/``klass`` indices
    into :data:`SOURCES`/:data:`CLASSES`, ``held_out`` the evaluation part; ``meta`` how it was made."""

    boards: np.ndarray
    source: np.ndarray
    klass: np.ndarray
    held_out: np.ndarray
    meta: dict

    def __len__(self) -> int:
        return len(self.boards)

    def save(self, path: str | Path) -> None:
        """Write the database atomically."""
        save_npz(
            path,
            boards=self.boards,
            source=self.source,
            klass=self.klass,
            held_out=self.held_out,
            meta=json.dumps({**self.meta, "format": FORMAT}),
        )

    @classmethod
    def load(cls, path: str | Path) -> PositionDatabase:
        """Read a database; a missing, corrupt or foreign file is a one-line ``ValueError``."""
        path = Path(path)
        if path.is_dir():
            path = path / "positions.npz"
        if not path.is_file():
            raise ValueError(f"no position database at {path}")
        data = load_npz(path, "position database", ("boards", "source", "klass", "held_out", "meta"))
        meta = data["meta"]
        db = cls(data["boards"], data["source"], data["klass"], data["held_out"], meta)
        if meta.get("format") != FORMAT or db.boards.ndim != 3 or db.boards.shape[1:] != (2, 25):
            raise ValueError(f"{path} is not a bgai position database of format {FORMAT}")
        if not len(db.source) == len(db.klass) == len(db.held_out) == len(db.boards) == sum(db.segments):
            raise ValueError(f"{path} is corrupt: its arrays differ in length")
        return db

    @property
    def segments(self) -> list[int]:
        """Sizes of the parts each build added, in order (:meth:`extend`); one part if never extended."""
        return list(self.meta.get("segments", [len(self)]))

    def extend(self, more: PositionDatabase) -> PositionDatabase:
        """This database with ``more``'s positions that it lacks appended as a new segment.

        Every position keeps its number, so labels made before stay valid, and a label job's
        order (:meth:`bgai.train.labels.LabelJob.selection`) keeps its old positions first: a job
        resumes across the extension and then carries on into the new positions. ``more``'s
        ``meta`` is kept in this one's ``extensions``; a seed already used is refused (the
        same games again would add nothing).
        """
        self.check_new_seed(more.meta.get("seed"))
        flat = self.boards.reshape(len(self), -1)
        new = more.boards.reshape(len(more), -1)
        _, first = np.unique(np.concatenate([flat, new]), axis=0, return_index=True)
        add = np.sort(first[first >= len(self)]) - len(self)
        meta = {
            **self.meta,
            "segments": self.segments + [len(add)],
            "extensions": [*self.meta.get("extensions", []), more.meta],
        }
        return PositionDatabase(
            np.concatenate([self.boards, more.boards[add]]),
            np.concatenate([self.source, more.source[add]]),
            np.concatenate([self.klass, more.klass[add]]),
            np.concatenate([self.held_out, more.held_out[add]]),
            meta,
        )

    def check_new_seed(self, seed: int | None) -> None:
        """Refuse (one line) a build seed this database was already made with."""
        seeds = [self.meta.get("seed")] + [e.get("seed") for e in self.meta.get("extensions", [])]
        if seed in seeds:
            raise ValueError(f"seed {seed} already built this database: extend it with another")

    def part_boards(self, classes: str = "", held_out: bool = False) -> np.ndarray:
        """The boards of the training (or held-out) part of these classes (comma separated;
        empty: all). Self-play starts from training positions only, so that held-out ones can
        judge the result."""
        codes = class_codes([c.strip() for c in classes.split(",") if c.strip()])
        keep = (self.held_out == held_out) & (np.isin(self.klass, codes) if codes else True)
        if not keep.any():
            part = "held-out" if held_out else "training"
            raise ValueError(f"the database has no {part} positions of class {classes or 'any'}")
        return self.boards[keep]

    def counts(self) -> dict[str, dict[str, int]]:
        """Positions per class, per source and per part."""
        return {
            "class": {name: int((self.klass == i).sum()) for i, name in enumerate(CLASSES)},
            "source": {name: int((self.source == i).sum()) for i, name in enumerate(SOURCES)},
            "part": {"train": int((~self.held_out).sum()), "held_out": int(self.held_out.sum())},
        }


def build_database(
    evaluator: Evaluator,
    selfplay: int,
    backgame: int,
    noise: float = 0.05,
    seed: int = 0,
    games: int = 512,
    meta: dict | None = None,
) -> PositionDatabase:
    """About ``selfplay`` + ``backgame`` distinct positions (before de-duplication they are
    drawn 10 % over), classified and split; see the module docstring."""
    parts, sources = [], []
    for code, wanted, starts in ((0, selfplay, None), (1, backgame, backgame_starts)):
        if wanted <= 0:
            continue
        boards, _ = selfplay_positions(
            evaluator, int(wanted * 1.1), seed=seed + code, games=games, noise=noise, starts=starts
        )
        parts.append(boards.to(torch.int8))
        sources.append(torch.full((len(boards),), code, dtype=torch.int8))
    if not parts:
        raise ValueError("ask for some positions: selfplay and backgame are both 0")
    boards, source = torch.cat(parts), torch.cat(sources)
    keep = ~terminal_probs(boards)[1] & ~_exact(boards)
    boards, source = boards[keep].numpy(), source[keep].numpy()
    _, first = np.unique(boards.reshape(len(boards), -1), axis=0, return_index=True)
    first = np.sort(first)
    boards, source = boards[first], source[first]
    return PositionDatabase(
        boards,
        source,
        classify(boards),
        held_out(boards),
        {**(meta or {}), "seed": seed, "noise": noise, "selfplay": selfplay, "backgame": backgame},
    )


def held_out(boards: np.ndarray) -> np.ndarray:
    """``(N,)`` bool: the held-out part, chosen by a fixed hash of each board."""
    weights = np.random.default_rng(0x5EED).integers(1, 2**31, size=50)
    key = boards.reshape(len(boards), -1).astype(np.int64) @ weights
    return (key % 1000) < HELD_OUT_PER_MILLE


def _exact(boards: torch.Tensor) -> torch.Tensor:
    """Two-sided bear-offs: the exact table answers them; no label needed."""
    return is_bearoff(boards) & (boards.long().sum(-1) <= TWO_SIDED_CHECKERS).all(-1)


def save_npz(path: str | Path, **arrays) -> None:
    """Write ``arrays`` to ``path`` (compressed .npz) atomically: a temporary file, then a rename."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f".{path.name}.tmp")
    try:
        with open(tmp, "wb") as f:
            np.savez_compressed(f, **arrays)
        tmp.replace(path)
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise


def load_npz(path: Path, what: str, keys: tuple[str, ...]) -> dict:
    """The arrays ``keys`` of a file :func:`save_npz` wrote (``meta``/``job`` strings parsed as
    JSON); a corrupt or foreign file is a one-line ``ValueError`` naming ``what`` it should be."""
    try:
        with np.load(path, allow_pickle=False) as data:
            out = {k: data[k] for k in keys}
        for k in ("meta", "job"):
            if k in out:
                out[k] = json.loads(str(out[k]))
    except (OSError, ValueError, KeyError, json.JSONDecodeError) as exc:
        raise ValueError(f"{path} is not a bgai {what} ({type(exc).__name__})") from None
    return out
