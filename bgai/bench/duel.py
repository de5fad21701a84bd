"""Money games between two players, many at once, with duplicate dice: cubeless or with the cube.

One entry point, :func:`duel`, for both: its ``rules`` say how the cube is played; the
default :data:`~bgai.bench.games.CUBELESS` leaves it out (no doubles and no Jacoby rule, so
every game scores what the board shows, 1, 2 or 3 points). The games are played on the
bench's table (:mod:`bgai.bench.games`, where the rules of a turn, the scoring and the
duplicate dice are described): games ``2k`` and ``2k + 1`` share dice stream ``k`` with the
players in swapped seats (``duplicate``), and the confidence interval is computed over the
pairs' average results. A game with the cube reads its dice exactly as without it. :func:`league`
plays a duel between every pair of players.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

import numpy as np

from bgai.bench.games import (
    BenchResult,
    cube_lines,
    luck_judge,
    luck_line,
    play_games,
    ppg_lines,
    units_to_play,
)
from bgai.bots.players import Player
from bgai.cube.state import CUBELESS, CubeRules
from bgai.formats.mat import MatchRecord

__all__ = ["LeagueResult", "MoneyResult", "duel", "league"]


@dataclass(kw_only=True)
class MoneyResult(BenchResult):
    """Money games, from A's side: ``ppg`` is A's points per game (``max_cube`` 1: cubeless)."""

    games: int
    jacoby: bool
    beavers: bool
    ppg: float
    a_win: float
    a_gammon: float
    a_backgammon: float
    b_win: float
    b_gammon: float
    b_backgammon: float
    """Fractions of all games; a win by a pass counts as a win; gammons (including
    backgammons) are what the board shows when the last checker is off, Jacoby or not."""
    luck_judge: str | None = None
    luck_ppg: float | None = None
    luck_ci95: float | None = None
    """With a luck judge: A's ppg with every roll's luck taken out (its judge's 0-ply view,
    cubeless or cubeful as the games are: :mod:`bgai.search.luck`, :mod:`bgai.cube.equity`),
    an unbiased estimate of the same mean with a narrower interval."""

    @property
    def cubeful(self) -> bool:
        return self.max_cube > 1

    def table(self) -> str:
        """A small results table for people."""
        pairs = f" ({self.games // 2} duplicate pairs)" if self.duplicate else ""
        variant = "" if self.variant == "standard" else f", {self.variant}"
        width = max(len(self.a), len(self.b), 7)
        speed = f"{self.games_per_sec:.1f} games/s, {self.avg_turns:.1f} turns per game"
        speed += f", {self.seconds:.1f} s"
        if not self.cubeful:
            head = f"{self.a} vs {self.b}: {self.games} cubeless money games{pairs}, seed {self.seed}"
            head += variant
            return "\n".join([head, *ppg_lines(self, width), *self._luck_line(), speed])
        rules = f"Jacoby {'on' if self.jacoby else 'off'}, beavers {'on' if self.beavers else 'off'}"
        return "\n".join(
            [
                f"{self.a} vs {self.b}: {self.games} cubeful money games{pairs}, seed {self.seed}, "
                f"{rules}, cube up to {self.max_cube}{variant}",
                *ppg_lines(self, width),
                *self._luck_line(),
                *cube_lines(self, width),
                f"average cube {self.avg_cube:.2f}; {speed}",
            ]
        )

    def _luck_line(self) -> list[str]:
        if self.luck_ppg is None:
            return []
        return [luck_line(self.a, self.luck_judge, f"{self.luck_ppg:+.3f} ± {self.luck_ci95:.3f} ppg")]

    def session(self, event: str | None = None) -> MatchRecord:
        """The games as one ``.mat`` money session (:func:`bgai.bench.records.money_session`)."""
        from bgai.bench.records import mat_games, mat_names, money_comment, money_session

        comment = money_comment(self.cubeful, self.jacoby, self.beavers, self.max_cube)
        names = mat_names(self.a, self.b)
        return money_session(names, mat_games(self._logs()), self.variant, event, comment)


def duel(
    a: Player,
    b: Player,
    games: int,
    seed: int = 0,
    duplicate: bool = True,
    variant: str = "standard",
    rules: CubeRules = CUBELESS,
    progress: bool = False,
    record: bool = False,
    parallel: int = 1024,
    luck: Player | None = None,
) -> MoneyResult:
    """Play ``games`` money games of A against B, up to ``parallel`` at a time, cubeless unless
    ``rules`` bring the cube in (a centred cube at the start of each game).

    With ``duplicate`` an odd ``games`` is rounded up to whole pairs. ``progress`` shows a
    tqdm bar when writing to a terminal. ``record`` keeps every game's moves in ``result.logs``
    (``result.session()`` is then the ``.mat`` file). ``luck``: a player whose net judges every
    roll's luck (cubeful where the cube is in play), for a luck-adjusted result beside the plain one.
    """
    judge = luck_judge(luck)
    games = units_to_play(games, duplicate)
    out = play_games(
        a,
        b,
        games,
        seed=seed,
        duplicate=duplicate,
        variant=variant,
        rules=rules,
        record=record,
        parallel=parallel,
        progress=progress,
        luck=judge,
    )
    summary = out.money_summary(a, b, duplicate, seed, variant, rules)
    if luck is not None:
        summary["luck_judge"] = luck.name
    return MoneyResult(**summary, logs=out.in_order() if record else None)


@dataclass
class LeagueResult:
    """A round robin: ``ppg[i][j]`` is player i's points per game against player j."""

    names: list[str]
    duels: list[MoneyResult]

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
