"""The rules engine: boards, the opening roll, batched legal-move generation, checker steps.

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
from bgai.engine.steps import BAR_POINT, OFF_POINT, Step, apply_steps, move_steps, path_steps

__all__ = [
    "BAR",
    "BAR_POINT",
    "CHECKERS",
    "OFF_POINT",
    "VARIANTS",
    "Afterstates",
    "Step",
    "afterstates",
    "apply_steps",
    "borne_off",
    "checkers_per_side",
    "expand",
    "game_value",
    "is_race",
    "move_steps",
    "path_steps",
    "pip_counts",
    "starting_board",
    "swap_sides",
    "validate_board",
]
