"""Rollouts: batched Monte Carlo evaluation of positions, candidate moves and cube decisions.

Builds on the engine, the search (evaluators, move choice) and the cube; knows nothing of
bots, bench or training. See :mod:`bgai.rollout.rollout` for the API and
:mod:`bgai.rollout.trials` for the trial loop, :mod:`bgai.rollout.dice` for the dice.
"""

from bgai.rollout.rollout import (
    MoveRollout,
    PositionRollout,
    RolloutSettings,
    rollout_moves,
    rollout_positions,
)

__all__ = ["MoveRollout", "PositionRollout", "RolloutSettings", "rollout_moves", "rollout_positions"]
