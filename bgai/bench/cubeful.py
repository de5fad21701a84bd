"""Cubeful bench: money games with the doubling cube, and matches with the Crawford rule.

The games are played on the bench's table (:mod:`bgai.bench.games`, where the rules of a
turn, the scoring and the duplicate dice are described); this module turns them into
results. A cubeful money game reads its dice exactly as the cubeless duel does (the same
rolls as ``duel`` with the same seed).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from bgai.bench.games import (
    MAX_CUBE,
    BenchReport,
    CubeRules,
    CubeStats,
    ci95,
    play_games,
    ppg_lines,
    units_to_play,
)
from bgai.bench.records import mat_names, money_comment, money_session
from bgai.bots.players import Player
from bgai.formats.mat import MatchRecord

__all__ = ["MAX_CUBE", "CubeRules", "CubeStats", "CubefulResult", "MatchResult", "cubeful_duel", "match_duel"]


def _cube_lines(a: str, b: str, stats: tuple[CubeStats, CubeStats], width: int) -> list[str]:
    head = f"{'cube':<{width}}  {'doubles':>7}  {'takes':>6}  {'passes':>6}  {'beavers':>7}"
    rows = [
        f"{name:<{width}}  {s.doubles:7d}  {s.takes:6d}  {s.passes:6d}  {s.beavers:7d}"
        for name, s in zip((a, b), stats, strict=True)
    ]
    return [head, *rows]


@dataclass
class CubefulResult(BenchReport):
    """Cubeful money games, from A's side: ``ppg`` is A's points per game."""

    a: str
    b: str
    games: int
    duplicate: bool
    seed: int
    variant: str
    jacoby: bool
    beavers: bool
    max_cube: int
    ppg: float
    ci95: float
    """Half-width of the 95 % interval of ``ppg`` over the duplicate pairs (or single games)."""
    a_win: float
    a_gammon: float
    a_backgammon: float
    b_win: float
    b_gammon: float
    b_backgammon: float
    """Fractions of all games; a win by a pass counts as a win; gammons (including
    backgammons) are what the board shows when the last checker is off, Jacoby or not."""
    a_cube: CubeStats
    b_cube: CubeStats
    avg_cube: float
    """Mean cube value at the end of a game (before the double for a pass)."""
    avg_turns: float
    seconds: float
    games_per_sec: float
    records: MatchRecord | None = None

    def table(self) -> str:
        pairs = f" ({self.games // 2} duplicate pairs)" if self.duplicate else ""
        rules = f"Jacoby {'on' if self.jacoby else 'off'}, beavers {'on' if self.beavers else 'off'}"
        width = max(len(self.a), len(self.b), 7)
        lines = [
            f"{self.a} vs {self.b}: {self.games} cubeful money games{pairs}, seed {self.seed}, "
            f"{rules}, cube up to {self.max_cube}"
            + ("" if self.variant == "standard" else f", {self.variant}"),
            *ppg_lines(self, width),
            *_cube_lines(self.a, self.b, (self.a_cube, self.b_cube), width),
            f"average cube {self.avg_cube:.2f}; {self.games_per_sec:.1f} games/s, "
            f"{self.avg_turns:.1f} turns per game, {self.seconds:.1f} s",
        ]
        return "\n".join(lines)


@dataclass
class MatchResult(BenchReport):
    """Matches to ``length`` points, from A's side: ``mwc`` is the fraction A won."""

    a: str
    b: str
    length: int
    matches: int
    duplicate: bool
    seed: int
    variant: str
    max_cube: int
    mwc: float
    ci95: float
    """Half-width of the 95 % interval of ``mwc`` over the duplicate pairs (or single matches)."""
    games: int
    """Games played in all the matches."""
    avg_games: float
    a_cube: CubeStats
    b_cube: CubeStats
    avg_cube: float
    seconds: float
    games_per_sec: float
    matches_per_sec: float
    records: list[MatchRecord] | None = None

    def table(self) -> str:
        pairs = f" ({self.matches // 2} duplicate pairs)" if self.duplicate else ""
        ci = f"{100 * self.ci95:.1f}" if math.isfinite(self.ci95) else "n/a"
        width = max(len(self.a), len(self.b), 7)
        lines = [
            f"{self.a} vs {self.b}: {self.matches} matches to {self.length} points{pairs}, seed "
            f"{self.seed}, Crawford rule, cube up to {self.max_cube}"
            + ("" if self.variant == "standard" else f", {self.variant}"),
            f"{'player':<{width}}  {'match wins %':>14}",
            f"{self.a:<{width}}  {100 * self.mwc:6.1f} ± {ci:<5}",
            f"{self.b:<{width}}  {100 * (1 - self.mwc):6.1f} ± {ci:<5}",
            *_cube_lines(self.a, self.b, (self.a_cube, self.b_cube), width),
            f"{self.games} games ({self.avg_games:.2f} per match), average cube {self.avg_cube:.2f}; "
            f"{self.games_per_sec:.1f} games/s, {self.matches_per_sec:.2f} matches/s, {self.seconds:.1f} s",
        ]
        return "\n".join(lines)


def cubeful_duel(
    a: Player,
    b: Player,
    games: int,
    seed: int = 0,
    duplicate: bool = True,
    variant: str = "standard",
    rules: CubeRules | None = None,
    progress: bool = False,
    record: bool = False,
    parallel: int = 1024,
) -> CubefulResult:
    """Play ``games`` cubeful money games of A against B (centred cube at the start).

    With ``duplicate`` an odd ``games`` is rounded up to whole pairs. ``record`` keeps the
    session as a :class:`~bgai.formats.mat.MatchRecord` (match length 0) in ``result.records``.
    """
    games = units_to_play(games, duplicate)
    rules = rules or CubeRules()
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
    )
    records = None
    if record:
        records = money_session(
            mat_names(a.name, b.name),
            [g for games_of in out.records for g in games_of],
            variant,
            _event(seed),
            money_comment(True, rules.jacoby, rules.beavers, rules.max_cube),
        )
    return CubefulResult(
        **out.money_summary(a, b, duplicate, seed, variant),
        jacoby=rules.jacoby,
        beavers=rules.beavers,
        max_cube=rules.max_cube,
        a_cube=out.stats[0],
        b_cube=out.stats[1],
        avg_cube=float(np.mean(out.game_cube)),
        records=records,
    )


def match_duel(
    a: Player,
    b: Player,
    matches: int,
    length: int,
    seed: int = 0,
    duplicate: bool = True,
    variant: str = "standard",
    max_cube: int = MAX_CUBE,
    progress: bool = False,
    record: bool = False,
    parallel: int = 1024,
) -> MatchResult:
    """Play ``matches`` matches to ``length`` points of A against B (Crawford rule).

    With ``duplicate`` an odd ``matches`` is rounded up to whole pairs. ``record`` keeps each
    match as a :class:`~bgai.formats.mat.MatchRecord` in ``result.records``.
    """
    from bgai.cube import kazaross_xg2

    matches = units_to_play(matches, duplicate, "matches")
    if not 1 <= length <= kazaross_xg2().max_away:
        raise ValueError(f"match length must be 1-{kazaross_xg2().max_away} (the match equity table's size)")
    rules = CubeRules(jacoby=False, beavers=False, max_cube=max_cube)
    out = play_games(
        a,
        b,
        matches,
        seed=seed,
        duplicate=duplicate,
        variant=variant,
        rules=rules,
        length=length,
        record=record,
        parallel=parallel,
        progress=progress,
    )
    n_games = len(out.game_a_won)
    records = None
    if record:
        names = mat_names(a.name, b.name)
        records = [
            MatchRecord(length, names, games_of, variant=variant, event=_event(seed, k + 1))
            for k, games_of in enumerate(out.records)
        ]
    return MatchResult(
        a=a.name,
        b=b.name,
        length=length,
        matches=matches,
        duplicate=duplicate,
        seed=seed,
        variant=variant,
        max_cube=max_cube,
        mwc=float(out.unit_result.mean()),
        ci95=ci95(out.unit_result, duplicate),
        games=n_games,
        avg_games=n_games / matches,
        a_cube=out.stats[0],
        b_cube=out.stats[1],
        avg_cube=float(np.mean(out.game_cube)),
        seconds=out.seconds,
        games_per_sec=out.per_second(n_games),
        matches_per_sec=out.per_second(matches),
        records=records,
    )


def _event(seed: int, match: int | None = None) -> str:
    return f"bgai bench, seed {seed}" + ("" if match is None else f", match {match}")
