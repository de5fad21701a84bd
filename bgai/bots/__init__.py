"""Bots: batched players (random, pubeval, search over an evaluator, gnubg), their specs, and
their cube sense (:mod:`bgai.bots.cube`).

Knows the engine, model, search and cube; bench, play and the CLI build on it.
"""

from bgai.bots.cube import CubePlayer, cube_sense
from bgai.bots.players import (
    GnubgPlayer,
    Player,
    PlayerBase,
    PubevalPlayer,
    RandomPlayer,
    SearchPlayer,
)
from bgai.bots.specs import GNUBG_LEVELS, SPEC_HELP, evaluator_of, load_player

__all__ = [
    "GNUBG_LEVELS",
    "SPEC_HELP",
    "CubePlayer",
    "GnubgPlayer",
    "Player",
    "PlayerBase",
    "PubevalPlayer",
    "RandomPlayer",
    "SearchPlayer",
    "cube_sense",
    "evaluator_of",
    "load_player",
]
