"""Bots: batched players (random, pubeval, search over an evaluator, gnubg), the evaluator
behind a player, and their cube sense (:mod:`bgai.bots.cube`).

Knows the engine, model, search and cube; bench, training, opponents and :mod:`bgai.specs`
(players by the names people type: ``load_player``) build on it.
"""

from bgai.bots.cube import CubePlayer, NoCube, cube_sense
from bgai.bots.players import (
    GnubgPlayer,
    Player,
    PlayerBase,
    PubevalPlayer,
    RandomPlayer,
    SearchPlayer,
    evaluator_of,
    network_evaluator,
)

__all__ = [
    "CubePlayer",
    "GnubgPlayer",
    "NoCube",
    "Player",
    "PlayerBase",
    "PubevalPlayer",
    "RandomPlayer",
    "SearchPlayer",
    "cube_sense",
    "evaluator_of",
    "network_evaluator",
]
