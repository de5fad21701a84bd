"""The rules engine: boards, the opening roll, and batched legal-move generation.

It knows nothing of networks, search or the cube.
"""

from bgai.engine.board import (
    BAR,
    CHECKERS,
    VARIANTS,
    borne_off,
    checkers_per_side,
    game_value,
    is_race,
    pip_counts,
    starting_board,
    swap_sides,
    validate_board,
)
from bgai.engine.movegen import Afterstates, afterstates, expand

__all__ = [
    "BAR",
    "CHECKERS",
    "VARIANTS",
    "Afterstates",
    "afterstates",
    "borne_off",
    "checkers_per_side",
    "expand",
    "game_value",
    "is_race",
    "pip_counts",
    "starting_board",
    "swap_sides",
    "validate_board",
]
