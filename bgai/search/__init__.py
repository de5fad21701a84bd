"""Search: evaluators (boards to probabilities) and n-ply lookahead over them.

Knows the engine and the model, nothing of bots, cube or benchmarks. Probabilities are
always for the player on roll unless a function says otherwise (afterstate values are for
the player who just moved).
"""

from bgai.search.evaluator import (
    Evaluator,
    GnubgEvaluator,
    NetEvaluator,
    PrunedEvaluator,
    PubevalEvaluator,
    afterstate_values,
    pruner_of,
    terminal_probs,
    weights_digest,
)
from bgai.search.ply import (
    DEFAULT_FILTER,
    FILTERS,
    ROLL_WEIGHTS,
    ROLLS,
    Candidates,
    FilterStage,
    MoveFilter,
    RankedMove,
    afterstate_values_at,
    choose_moves,
    evaluate_position,
    keep_by_filter,
    pick_best,
    position_noise,
    rank_moves,
    roll_moves,
    roll_values,
    score_candidates,
    shortlist_sizes,
)

__all__ = [
    "DEFAULT_FILTER",
    "FILTERS",
    "ROLLS",
    "ROLL_WEIGHTS",
    "Candidates",
    "Evaluator",
    "FilterStage",
    "GnubgEvaluator",
    "MoveFilter",
    "NetEvaluator",
    "PrunedEvaluator",
    "PubevalEvaluator",
    "RankedMove",
    "afterstate_values",
    "afterstate_values_at",
    "choose_moves",
    "evaluate_position",
    "keep_by_filter",
    "pick_best",
    "position_noise",
    "pruner_of",
    "rank_moves",
    "roll_moves",
    "roll_values",
    "score_candidates",
    "shortlist_sizes",
    "terminal_probs",
    "weights_digest",
]
