"""Grading a player: results against reference bots, and its error rate judged by a stronger engine.

:func:`grade` plays duplicate-dice cubeless money games (:func:`bgai.bench.duel`) against
pubeval and, when the optional gnubg packages are installed, gnubg's 0-ply, keeping every move
the graded player (A) made. From its *unforced* decisions (two or more legal moves) it draws a
seeded sample and asks a judge how much equity each choice gave away:

    equity lost = judge's equity of its best move - judge's equity of the move played  (>= 0)

both afterstates valued by the judge at its plies (cubeless money equity, for the player who
moved). The **error rate** is the mean equity lost per decision x 1000, gnubg's "error rate per
move" in millipoints; the **PR** (eXtreme Gammon's Performance Rating) is the mean x 500. The
error rate is placed on gnubg's rating scale (:data:`RATING_SCALE`).

The judge is gnubg at 2-ply when gnubg is installed (``gnubg_nn.best_move(..., n=2)`` for its
best move, ``gnubg_nn.probabilities(..., 2)`` for both values), else bgai's shipped ``best`` net
at 2-ply, else the graded player's own net at 2-ply (:func:`default_judge`); ``--judge SPEC``
picks another (:func:`bgai.specs.load_judge`).
Checker play only: cube decisions are not graded.

A ladder of players is compared on the *same* decisions by :func:`paired_grade`: every player
chooses its move in each of a common set of positions (:func:`common_positions` draws them
from the players' own judged decisions), every choice is judged, and each player's mean
difference in equity lost from the next stronger one gets a 95 % interval. Luck of the
positions cancels out and two players choosing the same move differ by exactly zero, so this
separates neighbouring levels with far fewer decisions than comparing their separate grades.
A player is *measurably stronger* than the one below when that interval lies above zero.
"""

from __future__ import annotations

import math
import sys
import time
from dataclasses import asdict, dataclass, field, fields
from typing import Any, Protocol

import numpy as np
import torch

from bgai import gnubg
from bgai.bench import GameLog, MoneyResult, duel
from bgai.bots.players import GnubgPlayer, PlayerBase, PubevalPlayer, network_evaluator
from bgai.engine.movegen import expand
from bgai.model.probs import cubeless_equity
from bgai.search.evaluator import Evaluator, GnubgEvaluator, afterstate_values
from bgai.search.ply import DEFAULT_FILTER, MoveFilter, afterstate_values_at, score_candidates
from bgai.stats import mean_ci95

RATING_SCALE: tuple[tuple[str, float], ...] = (
    ("Supernatural", 2.0),
    ("World class", 5.0),
    ("Expert", 8.0),
    ("Advanced", 12.0),
    ("Intermediate", 18.0),
    ("Casual", 26.0),
    ("Beginner", 35.0),
    ("Awful!", math.inf),
)
"""gnubg's rating thresholds (gnubg manual, "Threshold for ratings"; docs/formats.md §8):
each class covers error rates (x 1000) from the previous bound up to, not including, its own."""

MIN_DECISIONS_TO_WRITE = 200
"""``bgai grade --write`` stores no grade judged on fewer decisions: at the default 300 the 95 %
interval of the error rate is a few points per 1000 wide, about one class of the scale; from
a few dozen it spans several."""


def rating_class(error_rate: float) -> str:
    """gnubg's name for an error rate per move (x 1000): 4.9 is "World class", 5.0 "Expert"."""
    if not error_rate >= 0:
        raise ValueError(f"an error rate is a non-negative number, got {error_rate!r}")
    return next(name for name, bound in RATING_SCALE if error_rate < bound)


# --- decisions --------------------------------------------------------------------------------


@dataclass
class Decisions:
    """Checker-play decisions: ``boards`` before (mover in row 1), ``dice``, the ``chosen`` afterstates."""

    boards: torch.Tensor
    dice: torch.Tensor
    chosen: torch.Tensor

    def __len__(self) -> int:
        return len(self.boards)

    def subset(self, index: np.ndarray | torch.Tensor) -> Decisions:
        index = torch.as_tensor(index, dtype=torch.long)
        return Decisions(self.boards[index], self.dice[index], self.chosen[index])

    @classmethod
    def concat(cls, parts: list[Decisions]) -> Decisions:
        return cls(*(torch.cat([getattr(p, k) for p in parts]) for k in ("boards", "dice", "chosen")))


def decisions_of(logs: list[GameLog], side: str = "A") -> Decisions:
    """Every move ``side`` ('A' or 'B') made in recorded games (``duel(record=True).logs``)."""
    column = "AB".index(side)
    turns = [m for log in logs for m in (log.moves or ()) if m[1] == column]
    if not turns:
        empty = torch.zeros((0, 2, 25), dtype=torch.int8)
        return Decisions(empty, torch.zeros((0, 2), dtype=torch.long), empty.clone())
    return Decisions(
        torch.as_tensor(np.stack([m[3] for m in turns])).to(torch.int8),
        torch.tensor([m[2] for m in turns], dtype=torch.long),
        torch.as_tensor(np.stack([m[4] for m in turns])).to(torch.int8),
    )


def unforced(decisions: Decisions) -> torch.Tensor:
    """Bool mask of the decisions with at least two different legal afterstates (a real choice)."""
    if not len(decisions):
        return torch.zeros(0, dtype=torch.bool)
    _, parent = expand(decisions.boards, decisions.dice)
    return torch.bincount(parent, minlength=len(decisions)) >= 2


def sample(decisions: Decisions, n: int, seed: int = 0) -> Decisions:
    """Up to ``n`` of ``decisions``, drawn without replacement by a seeded generator, in game order."""
    if n >= len(decisions):
        return decisions
    picked = np.sort(np.random.default_rng(seed).choice(len(decisions), size=n, replace=False))
    return decisions.subset(picked)


# --- judges -----------------------------------------------------------------------------------


class Judge(Protocol):
    """Says how much equity each chosen move gave away, by its own evaluation."""

    name: str

    def equity_lost(self, decisions: Decisions) -> np.ndarray:
        """``(N,)`` equity (cubeless, for the mover) of the judge's best move minus the chosen one's, >= 0."""
        ...


class SearchJudge:
    """A bgai evaluator at ``plies`` (gnubg's numbering) with a move filter, batched."""

    def __init__(
        self,
        evaluator: Evaluator,
        plies: int = 2,
        move_filter: MoveFilter = DEFAULT_FILTER,
        name: str = "",
        judges_itself: bool = False,
    ) -> None:
        self.evaluator = evaluator
        self.plies = int(plies)
        self.move_filter = move_filter
        self.name = name or f"{getattr(evaluator, 'name', 'evaluator')}@{self.plies}ply"
        self.judges_itself = judges_itself
        """The graded player's own evaluator: it cannot see the errors its own judgement makes."""

    def equity_lost(self, decisions: Decisions) -> np.ndarray:
        if not len(decisions):
            return np.zeros(0)
        n = len(decisions)
        c = score_candidates(self.evaluator, decisions.boards, decisions.dice, self.plies, self.move_filter)
        at_depth = torch.where(c.ply == self.plies, c.equity, torch.full_like(c.equity, -math.inf))
        best = torch.full((n,), -math.inf, dtype=at_depth.dtype).scatter_reduce(0, c.parent, at_depth, "amax")
        chosen = cubeless_equity(afterstate_values_at(self.evaluator, decisions.chosen, self.plies)).to(best)
        return (torch.maximum(best, chosen) - chosen).double().numpy()


class GnubgJudge:
    """gnubg at ``plies`` (:mod:`bgai.gnubg`): its best move by ``best_moves``, its values by
    ``probabilities``.

    gnubg_nn's search filter is process-wide; it is set to gnubg's "normal" filter before judging.
    It remembers what it worked out: each position's best move and value (``best_move`` costs
    about 0.1 s at 2-ply) and each afterstate's value, so judging other moves in positions it
    has seen (a ladder's levels on the same positions) costs only the new afterstates' values.
    """

    def __init__(self, plies: int = 2) -> None:
        self.plies = int(plies)
        self.evaluator = GnubgEvaluator(self.plies)
        self.name = f"gnubg@{self.plies}ply"
        self._best: dict[bytes, bytes] = {}
        """(board, sorted dice) -> the best afterstate's bytes."""
        self._value: dict[bytes, float] = {}
        """afterstate bytes -> its cubeless equity for the player who moved."""

    def equity_lost(self, decisions: Decisions) -> np.ndarray:
        if not len(decisions):
            return np.zeros(0)
        boards = decisions.boards.to(torch.int8).numpy()
        dice = np.sort(decisions.dice.numpy(), axis=1)
        keys = [b.tobytes() + bytes(d.astype(np.int8)) for b, d in zip(boards, dice, strict=True)]
        new = [k for k, key in enumerate(keys) if key not in self._best]
        if new:
            found = gnubg.best_moves(boards[new], dice[new], self.plies, "normal")
            self._best.update((keys[k], after.tobytes()) for k, after in zip(new, found, strict=True))
        chosen = decisions.chosen.to(torch.int8).numpy()
        best = [self._best[key] for key in keys]
        self._values([*best, *(c.tobytes() for c in chosen)])
        lost = [
            0.0 if b == c.tobytes() else max(self._value[b] - self._value[c.tobytes()], 0.0)
            for b, c in zip(best, chosen, strict=True)
        ]
        return np.array(lost, dtype=np.float64)

    def _values(self, afterstates: list[bytes]) -> None:
        """Value the afterstates not valued yet."""
        todo = list(dict.fromkeys(a for a in afterstates if a not in self._value))
        if not todo:
            return
        boards = torch.tensor(np.frombuffer(b"".join(todo), dtype=np.int8).reshape(-1, 2, 25))
        equity = cubeless_equity(afterstate_values(self.evaluator, boards)).double().tolist()
        self._value.update(zip(todo, equity, strict=True))


def gnubg_available() -> bool:
    """Are the optional gnubg packages installed (:func:`bgai.gnubg.available`)?"""
    return gnubg.available()


def default_judge(fallback: Evaluator | None = None) -> Judge:
    """The strongest judge available: gnubg at 2-ply, else the shipped ``best`` at 2-ply, else
    ``fallback`` (the graded player's own evaluator) at 2-ply; its ``name`` says which."""
    if gnubg_available():
        return GnubgJudge(2)
    try:
        return SearchJudge(network_evaluator("best"), 2, name="best@2ply")
    except ValueError:
        if fallback is None:
            raise ValueError("no judge: install gnubg-nn, ship checkpoints/best.pt or give --judge") from None
        name = f"{getattr(fallback, 'name', 'own net')}@2ply (its own net)"
        return SearchJudge(fallback, 2, name=name, judges_itself=True)


def judge_note(judge: Judge) -> str | None:
    """One line for people when the judge is not gnubg (``None`` when it is): who judged, and
    what a grade from a net judging itself is worth."""
    if isinstance(judge, GnubgJudge):
        return None
    if getattr(judge, "judges_itself", False):
        return (
            f"judged by its own network ({judge.name}), not gnubg: a net does not see its own errors, "
            "so the grade says little; install the gnubg extra (pip install 'bgai[gnubg]') or give --judge"
        )
    extra = "gnubg's judgement needs the gnubg extra: pip install 'bgai[gnubg]'"
    return f"judged by {judge.name}, not gnubg ({extra})"


def check_writable(result: GradeResult, judge: Judge) -> None:
    """Refuse (``ValueError``) to store a grade judged on too few decisions or by the net itself."""
    if result.decisions < MIN_DECISIONS_TO_WRITE:
        raise ValueError(
            f"a grade is written only from at least {MIN_DECISIONS_TO_WRITE} decisions; this one judged "
            f"{result.decisions} (raise --decisions, or --games when the games held too few)"
        )
    if getattr(judge, "judges_itself", False):
        raise ValueError(f"not writing a grade judged by its own network ({judge.name}): give --judge")


# --- grading ----------------------------------------------------------------------------------


@dataclass
class Match:
    """The graded player's result against one reference opponent (its points per game)."""

    opponent: str
    ppg: float
    ci95: float
    games: int

    @classmethod
    def of(cls, result: MoneyResult) -> Match:
        return cls(result.b, result.ppg, result.ci95, result.games)


@dataclass
class GradeResult:
    """A grade: error rate and PR over ``decisions`` sampled decisions, and match results."""

    player: str
    judge: str
    decisions: int
    """Decisions judged (a seeded sample of the unforced ones)."""
    unforced: int
    """Unforced decisions the graded player made in all its games."""
    error_rate: float
    """Mean equity lost per decision x 1000."""
    error_rate_ci95: float
    pr: float
    """Mean equity lost per decision x 500."""
    rating: str
    games: int
    """Games against each reference opponent."""
    seed: int
    matches: list[Match] = field(default_factory=list)
    seconds: float = 0.0
    judged: Decisions | None = field(default=None, repr=False, compare=False)
    """The decisions judged (not stored in ``bgai.json``): positions for :func:`paired_grade`."""

    def to_dict(self) -> dict[str, Any]:
        out = {f.name: getattr(self, f.name) for f in fields(self) if f.name != "judged"}
        out["matches"] = [asdict(m) for m in self.matches]
        return {k: _finite(v) for k, v in out.items()}

    def strength(self) -> dict[str, Any]:
        """What ``bgai grade --write`` stores as ``strength`` in ``bgai.json``."""
        from bgai import __version__

        out = self.to_dict()
        out.pop("player")
        out["matches"] = [{k: _finite(v) for k, v in asdict(m).items()} for m in self.matches]
        out["seconds"] = round(self.seconds, 1)
        out["graded_by"] = f"bgai {__version__}"
        return out

    def table(self) -> str:
        lines = [
            f"{self.player}: error rate {self.error_rate:.1f} ± {self.error_rate_ci95:.1f} per 1000 "
            f"(PR {self.pr:.1f}), {self.rating}",
            f"  judged by {self.judge} on {self.decisions} of {self.unforced} unforced decisions "
            f"(seed {self.seed})",
        ]
        for m in self.matches:
            ci = f"{m.ci95:.3f}" if math.isfinite(m.ci95) else "n/a"
            lines.append(f"  vs {m.opponent}: {m.ppg:+.3f} ± {ci} ppg over {m.games} games (duplicate dice)")
        lines.append(f"  {self.seconds:.1f} s")
        return "\n".join(lines)


def _finite(v: Any) -> Any:
    return None if isinstance(v, float) and not math.isfinite(v) else v


def reference_opponents() -> list[PlayerBase]:
    """pubeval, and gnubg's 0-ply when the optional gnubg packages are installed."""
    players: list[PlayerBase] = [PubevalPlayer()]
    if gnubg_available():
        players.append(GnubgPlayer(0, name="gnubg@0ply"))
    return players


def judge_decisions(judge: Judge, decisions: Decisions) -> tuple[float, float]:
    """(error rate, its 95 % half-width), both x 1000, of ``decisions`` by ``judge``."""
    lost = judge.equity_lost(decisions)
    if not len(lost):
        return math.nan, math.nan
    return _mean_ci(lost)


def grade(
    player: PlayerBase,
    games: int = 200,
    seed: int = 0,
    judge: Judge | None = None,
    decisions: int = 300,
    opponents: list[PlayerBase] | None = None,
    progress: bool = False,
    parallel: int = 256,
) -> GradeResult:
    """Grade ``player``: ``games`` games against each reference opponent, then judge a sample of
    ``decisions`` of its unforced moves from those games (see the module docstring)."""
    if games < 1 or decisions < 1:
        raise ValueError(f"games and decisions must be at least 1, got {games} and {decisions}")
    began = time.perf_counter()
    if judge is None:
        judge = default_judge(getattr(player, "evaluator", None))
    opponents = reference_opponents() if opponents is None else opponents
    if not opponents:
        raise ValueError("grading needs at least one reference opponent to play")
    matches, made = [], []
    for opponent in opponents:
        result = duel(player, opponent, games, seed, record=True, progress=progress, parallel=parallel)
        matches.append(Match.of(result))
        made.append(decisions_of(result.logs or [], "A"))
    pool = Decisions.concat(made)
    pool = pool.subset(unforced(pool).nonzero().squeeze(1))
    picked = sample(pool, decisions, seed)
    error_rate, ci = judge_decisions(judge, picked)
    return GradeResult(
        player=player.name,
        judge=judge.name,
        decisions=len(picked),
        unforced=len(pool),
        error_rate=error_rate,
        error_rate_ci95=ci,
        pr=error_rate / 2,
        rating=rating_class(error_rate) if math.isfinite(error_rate) else "n/a",
        games=games + games % 2,
        seed=seed,
        matches=matches,
        seconds=time.perf_counter() - began,
        judged=picked,
    )


# --- a ladder, judged on the same decisions --------------------------------------------------


def common_positions(samples: list[Decisions], n: int, seed: int = 0) -> Decisions:
    """``n`` positions (with their rolls) drawn evenly from ``samples`` (each level's judged
    decisions), seeded: one set every level of a ladder is judged on (:func:`paired_grade`)."""
    if not samples or n < 1:
        raise ValueError("common positions need at least one sample and n >= 1")
    shares = [n // len(samples) + (i < n % len(samples)) for i in range(len(samples))]
    parts = [sample(s, k, seed + i) for i, (s, k) in enumerate(zip(samples, shares, strict=True))]
    return Decisions.concat(parts)


@dataclass
class PairedStep:
    """One rung of a ladder: how much more equity ``weaker`` loses than ``stronger`` per decision
    (x 1000), both judged on the same positions, with the 95 % interval of that mean difference."""

    weaker: str
    stronger: str
    difference: float
    """Mean over the positions of (weaker's equity lost - stronger's), x 1000."""
    ci95: float
    """Half-width of its 95 % interval: 1.96 sd / sqrt(positions) of the per-position differences."""
    differ: float
    """Fraction of the positions where the two chose different moves."""

    @property
    def separated(self) -> bool:
        """The stronger player is measurably stronger: the interval lies above zero."""
        return self.difference - self.ci95 > 0


@dataclass
class PairedGrade:
    """Players (weakest first) judged on one set of positions, and each adjacent pair's difference."""

    judge: str
    positions: int
    players: list[str]
    error_rates: list[float]
    """Each player's error rate (x 1000) on the common positions."""
    error_rate_ci95: list[float]
    steps: list[PairedStep]
    seed: int = 0
    seconds: float = 0.0

    @property
    def monotone(self) -> bool:
        """Every player measurably stronger than the one before it (each step's interval above 0)."""
        return all(step.separated for step in self.steps)

    def to_dict(self) -> dict[str, Any]:
        out = asdict(self)
        out["monotone"] = self.monotone
        for step in out["steps"]:
            step["separated"] = step["difference"] - step["ci95"] > 0
        return out

    def table(self) -> str:
        lines = [f"judged by {self.judge} on the same {self.positions} positions (seed {self.seed})"]
        for name, rate, ci in zip(self.players, self.error_rates, self.error_rate_ci95, strict=True):
            lines.append(f"  {name}: error rate {rate:.1f} ± {ci:.1f}")
        for step in self.steps:
            mark = "separated" if step.separated else "NOT separated"
            lines.append(
                f"  {step.weaker} - {step.stronger}: {step.difference:+.2f} ± {step.ci95:.2f} per 1000 "
                f"({100 * step.differ:.0f} % of moves differ), {mark}"
            )
        lines.append(f"  monotone: {'yes' if self.monotone else 'no'}; {self.seconds:.1f} s")
        return "\n".join(lines)


def choices_of(player: PlayerBase, positions: Decisions, chunk: int = 128) -> Decisions:
    """``positions`` (boards and rolls) with ``player``'s move in each, chosen ``chunk`` at a time."""
    boards, dice = positions.boards, positions.dice
    moves = [player.choose(boards[i : i + chunk], dice[i : i + chunk]) for i in range(0, len(boards), chunk)]
    return Decisions(boards, dice, torch.cat(moves).to(torch.int8))


def paired_grade(
    players: list[PlayerBase],
    positions: Decisions,
    judge: Judge,
    seed: int = 0,
    chunk: int = 128,
    progress: bool = False,
) -> PairedGrade:
    """Let every player (weakest first) choose its move in each of ``positions`` (their boards and
    rolls; ``chosen`` is ignored), judge every choice, and compare each player with the next.

    A paired comparison: the same positions for all, so the luck of which positions came up
    cancels out, and where two players choose the same move their difference is exactly 0.
    """
    if len(players) < 2 or not len(positions):
        raise ValueError("a paired grade needs at least two players and one position")
    began = time.perf_counter()
    lost, chosen = [], []
    for player in players:
        start = time.perf_counter()
        choices = choices_of(player, positions, chunk)
        lost.append(judge.equity_lost(choices))
        chosen.append(choices.chosen)
        if progress:
            print(
                f"  {player.name}: {1000 * lost[-1].mean():.2f} per 1000 on {len(positions)} common "
                f"positions ({time.perf_counter() - start:.0f} s)",
                file=sys.stderr,
                flush=True,
            )
    rates = [_mean_ci(x) for x in lost]
    steps = []
    for k in range(len(players) - 1):
        mean, ci = _mean_ci(lost[k] - lost[k + 1])
        differ = float((chosen[k] != chosen[k + 1]).flatten(1).any(1).double().mean())
        steps.append(PairedStep(players[k].name, players[k + 1].name, mean, ci, differ))
    return PairedGrade(
        judge=judge.name,
        positions=len(positions),
        players=[p.name for p in players],
        error_rates=[r for r, _ in rates],
        error_rate_ci95=[c for _, c in rates],
        steps=steps,
        seed=seed,
        seconds=time.perf_counter() - began,
    )


def _mean_ci(lost: np.ndarray) -> tuple[float, float]:
    """Mean x 1000 and its 95 % half-width x 1000 (:func:`bgai.stats.mean_ci95`)."""
    mean, ci = mean_ci95(lost)
    return 1000 * mean, 1000 * ci


def write_strength(folder, result: GradeResult) -> None:
    """Store ``result`` as the ``strength`` of the exported opponent in ``folder``."""
    from pathlib import Path

    from bgai.opponent.export import write_config
    from bgai.opponent.opponent import read_config

    info = read_config(Path(folder))
    info["strength"] = result.strength()
    write_config(folder, info)
