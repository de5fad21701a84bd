"""Matches to ``length`` points with the cube and the Crawford rule, on the bench's table.

The games are played on the bench's table (:mod:`bgai.bench.games`, where the rules of a
turn, the scoring and the duplicate dice are described); this module turns their logs into a
result. Money games, cubeless or with the cube, are :func:`bgai.bench.duel`'s.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from bgai.bench.games import (
    BenchResult,
    ci95,
    cube_lines,
    luck_judge,
    luck_line,
    play_games,
    units_to_play,
)
from bgai.bots.players import Player
from bgai.cube.state import MAX_CUBE, CubeRules
from bgai.formats.mat import MatchRecord

__all__ = ["MatchResult", "match_duel"]


@dataclass(kw_only=True)
class MatchResult(BenchResult):
    """Matches to ``length`` points, from A's side: ``mwc`` is the fraction A won."""

    length: int
    matches: int
    mwc: float
    games: int
    """Games played in all the matches."""
    avg_games: float
    matches_per_sec: float
    luck_judge: str | None = None
    luck_mwc: float | None = None
    luck_ci95: float | None = None
    """With a luck judge: A's match wins with every roll's luck taken out (its judge's 0-ply
    cubeful view in match winning chance, :mod:`bgai.cube.equity`), an unbiased estimate of the
    same fraction with a narrower interval."""

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
            *self._luck_line(),
            *cube_lines(self, width),
            f"{self.games} games ({self.avg_games:.2f} per match), average cube {self.avg_cube:.2f}; "
            f"{self.games_per_sec:.1f} games/s, {self.matches_per_sec:.2f} matches/s, {self.seconds:.1f} s",
        ]
        return "\n".join(lines)

    def _luck_line(self) -> list[str]:
        if self.luck_mwc is None:
            return []
        return [
            luck_line(self.a, self.luck_judge, f"{100 * self.luck_mwc:.1f} ± {100 * self.luck_ci95:.1f} %")
        ]

    def sessions(self) -> list[MatchRecord]:
        """Each match as a ``.mat`` record (:func:`bgai.bench.records.match_records`)."""
        from bgai.bench.records import match_records

        return match_records(self._logs(), self.matches, self.length, self.a, self.b, self.variant, self.seed)


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
    luck: Player | None = None,
) -> MatchResult:
    """Play ``matches`` matches to ``length`` points of A against B (Crawford rule).

    With ``duplicate`` an odd ``matches`` is rounded up to whole pairs. ``record`` keeps every
    game's moves in ``result.logs`` (``result.sessions()`` is then one ``.mat`` record per match).
    ``luck``: a player whose net judges every roll's luck, for a luck-adjusted result beside
    the plain one.
    """
    from bgai.cube import kazaross_xg2

    judge = luck_judge(luck)

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
        luck=judge,
    )
    adjusted = out.luck_adjusted(duplicate)
    luck_fields = (
        {} if adjusted is None else dict(luck_judge=luck.name, luck_mwc=adjusted[0], luck_ci95=adjusted[1])
    )
    return MatchResult(
        **out.summary(a, b, duplicate, seed, variant, rules),
        length=length,
        matches=matches,
        mwc=float(out.unit_result.mean()),
        ci95=ci95(out.unit_result, duplicate),
        games=len(out.logs),
        avg_games=len(out.logs) / matches,
        matches_per_sec=out.per_second(matches),
        logs=out.in_order() if record else None,
        **luck_fields,
    )
