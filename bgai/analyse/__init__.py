"""Analysis of games and matches: every decision judged, error rates and luck per player.

* :mod:`bgai.analyse.replay`: a ``.mat`` file replayed into turns (board, cube state, action);
* :mod:`bgai.analyse.judge`: who judges (an evaluator at a ply) and gnubg's marks;
* :mod:`bgai.analyse.analysis`: :func:`analyse_match`, all decisions of a file judged in
  batches, and each player's figures as gnubg's statistics has them;
* :mod:`bgai.analyse.report`: the table, the worst decisions, the summary line;
* :mod:`bgai.analyse.html`: a self-contained page with boards, alternatives and equity plots.
"""

from bgai.analyse.analysis import Decision, MatchAnalysis, PlayerStats, Roll, analyse_match
from bgai.analyse.judge import ANALYSIS_FILTER, Judge, analysis_judge, luck_mark, skill_mark
from bgai.analyse.replay import read_match, replay
from bgai.cube.state import CubeRules

__all__ = [
    "ANALYSIS_FILTER",
    "CubeRules",
    "Decision",
    "Judge",
    "MatchAnalysis",
    "PlayerStats",
    "Roll",
    "analyse_match",
    "analysis_judge",
    "luck_mark",
    "read_match",
    "replay",
    "skill_mark",
]
