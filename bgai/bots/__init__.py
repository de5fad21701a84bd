"""Bots: batched players (random, pubeval, search over an evaluator, gnubg) and their specs.

Knows the engine, model and search; bench, play and the CLI build on it.
"""

from bgai.bots.players import (
    GnubgPlayer,
    Player,
    PlayerBase,
    PubevalPlayer,
    RandomPlayer,
    SearchPlayer,
)
from bgai.bots.specs import GNUBG_LEVELS, SPEC_HELP, load_player

__all__ = [
    "GNUBG_LEVELS",
    "SPEC_HELP",
    "GnubgPlayer",
    "Player",
    "PlayerBase",
    "PubevalPlayer",
    "RandomPlayer",
    "SearchPlayer",
    "load_player",
]
