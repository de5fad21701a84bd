"""Benchmarks: duplicate-dice duels and round-robin leagues between players."""

from bgai.bench.duel import DuelResult, GameRecord, LeagueResult, dice_of, duel, league, opening_dice

__all__ = ["DuelResult", "GameRecord", "LeagueResult", "dice_of", "duel", "league", "opening_dice"]
