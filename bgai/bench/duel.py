"""Duels: cubeless money games between two players, many games at once, with duplicate dice.

A duel is the bench's table (:mod:`bgai.bench.games`) with the cube left out: no doubles
and no Jacoby rule, so every game scores what the board shows (1, 2 or 3 points). Games
``2k`` and ``2k + 1`` share dice stream ``k`` with the players in swapped seats (the
default, ``duplicate``), and the confidence interval is computed over the pairs' average
results. :func:`league` plays a duel between every pair of players.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

import numpy as np

from bgai.bench.games import (
    CUBELESS,
    BenchReport,
    GameRecord,
    play_games,
    ppg_lines,
    units_to_play,
)
from bgai.bots.players import Player

__all__ = ["DuelResult", "GameRecord", "LeagueResult", "duel", "league"]


@dataclass
class DuelResult(BenchReport):
    """The outcome of :func:`duel`, from A's side: ``ppg`` is A's points per game."""

    a: str
    b: str
    games: int
    duplicate: bool
    seed: int
    variant: str
    ppg: float
    ci95: float
    """Half-width of the 95 % confidence interval of ``ppg``: 1.96 sd / sqrt(samples), the
    samples being the duplicate pairs' average results (or single games)."""
    a_win: float
    a_gammon: float
    a_backgammon: float
    b_win: float
    b_gammon: float
    b_backgammon: float
    """Fractions of all games; gammons include backgammons."""
    avg_turns: float
    seconds: float
    games_per_sec: float
    records: list[GameRecord] | None = None

    def table(self) -> str:
        """A small results table for people."""
        pairs = f" ({self.games // 2} duplicate pairs)" if self.duplicate else ""
        width = max(len(self.a), len(self.b), 6)
        lines = [
            f"{self.a} vs {self.b}: {self.games} cubeless money games{pairs}, seed {self.seed}"
            + ("" if self.variant == "standard" else f", {self.variant}"),
            *ppg_lines(self, width),
            f"{self.games_per_sec:.1f} games/s, {self.avg_turns:.1f} turns per game, {self.seconds:.1f} s",
        ]
        return "\n".join(lines)


def duel(
    a: Player,
    b: Player,
    games: int,
    seed: int = 0,
    duplicate: bool = True,
    variant: str = "standard",
    progress: bool = False,
    record: bool = False,
    parallel: int = 1024,
) -> DuelResult:
    """Play ``games`` cubeless money games of A against B, up to ``parallel`` at a time.

    With ``duplicate`` an odd ``games`` is rounded up to whole pairs. ``progress`` shows a
    tqdm bar when writing to a terminal. ``record`` keeps every game's moves
    (:class:`GameRecord`) in ``result.records``.
    """
    games = units_to_play(games, duplicate)
    out = play_games(
        a,
        b,
        games,
        seed=seed,
        duplicate=duplicate,
        variant=variant,
        rules=CUBELESS,
        log_turns=record,
        parallel=parallel,
        progress=progress,
    )
    records = [game for games_of in out.turn_logs for game in games_of] if record else None
    return DuelResult(**out.money_summary(a, b, duplicate, seed, variant), records=records)


@dataclass
class LeagueResult:
    """A round robin: ``ppg[i][j]`` is player i's points per game against player j."""

    names: list[str]
    duels: list[DuelResult]

    @property
    def ppg(self) -> list[list[float | None]]:
        n = len(self.names)
        grid: list[list[float | None]] = [[None] * n for _ in range(n)]
        index = {name: k for k, name in enumerate(self.names)}
        for d in self.duels:
            i, j = index[d.a], index[d.b]
            grid[i][j], grid[j][i] = d.ppg, -d.ppg
        return grid

    def average(self) -> list[float]:
        """Each player's mean ppg over its opponents."""
        return [float(np.mean([x for x in row if x is not None])) for row in self.ppg]

    def to_dict(self) -> dict[str, Any]:
        return {
            "players": self.names,
            "ppg": self.ppg,
            "average": self.average(),
            "duels": [d.to_dict() for d in self.duels],
        }

    def to_json(self) -> str:
        return json.dumps(self.to_dict())

    def table(self) -> str:
        """Row player's ppg against each column player, and its average; best first."""
        width = max(8, *(len(n) for n in self.names))
        order = sorted(range(len(self.names)), key=lambda k: -self.average()[k])
        head = f"{'':<{width}}" + "".join(f"  {self.names[k]:>{width}}" for k in order) + f"  {'average':>8}"
        lines = [head]
        grid, avg = self.ppg, self.average()
        for i in order:
            cells = "".join(
                f"  {'-' if grid[i][j] is None else f'{grid[i][j]:+.3f}':>{width}}" for j in order
            )
            lines.append(f"{self.names[i]:<{width}}{cells}  {avg[i]:+8.3f}")
        return "\n".join(lines)


def league(
    players: list[Player],
    games: int,
    seed: int = 0,
    duplicate: bool = True,
    progress: bool = False,
    **duel_options: Any,
) -> LeagueResult:
    """Every pair of ``players`` plays a :func:`duel` of ``games`` games (each with ``seed``)."""
    names = [p.name for p in players]
    if len(set(names)) != len(names):
        raise ValueError(f"league players need distinct names, got {names}")
    if len(players) < 2:
        raise ValueError("a league needs at least two players")
    duels = [
        duel(players[i], players[j], games, seed, duplicate, progress=progress, **duel_options)
        for i in range(len(players))
        for j in range(i + 1, len(players))
    ]
    return LeagueResult(names, duels)
