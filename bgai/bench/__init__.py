"""Benchmarks: duplicate-dice duels and leagues, cubeful money games and matches."""

from bgai.bench.cubeful import CubefulResult, CubeRules, MatchResult, cubeful_duel, match_duel
from bgai.bench.dice import dice_of, opening_dice
from bgai.bench.duel import DuelResult, GameRecord, LeagueResult, duel, league

__all__ = [
    "CubeRules",
    "CubefulResult",
    "DuelResult",
    "GameRecord",
    "LeagueResult",
    "MatchResult",
    "cubeful_duel",
    "dice_of",
    "duel",
    "league",
    "match_duel",
    "opening_dice",
]
