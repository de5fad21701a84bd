"""Benchmarks: duplicate-dice money games (cubeless or with the cube) and leagues, matches.

Every game leaves one :class:`GameLog`; results, ``.mat`` files and grading decisions are
views of those logs.
"""

from bgai.bench.dice import dice_of, opening_dice
from bgai.bench.duel import LeagueResult, MoneyResult, duel, league
from bgai.bench.games import CubeStats, GameLog
from bgai.bench.match import MatchResult, match_duel
from bgai.cube.state import CUBELESS, CubeRules

__all__ = [
    "CUBELESS",
    "CubeRules",
    "CubeStats",
    "GameLog",
    "LeagueResult",
    "MatchResult",
    "MoneyResult",
    "dice_of",
    "duel",
    "league",
    "match_duel",
    "opening_dice",
]
