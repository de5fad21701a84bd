"""The doubling cube: cube states, match equity, Janowski's model, gnubg's cube decisions.

The package sits on the search layer: its core reads probabilities only, and the modules on
top of it reach down to boards and evaluators (one way: analysis, then search, then
bearoff, then efficiency). Probabilities are 5-vectors for the player on roll, ``(win, win
gammon, win backgammon, lose gammon, lose backgammon)`` with gammons including backgammons,
batched as ``(N, 5)`` arrays (numpy or torch); every equity and decision is the player on
roll's (the would-be doubler's).

Probabilities in, no boards (they import nothing above :mod:`bgai.cube`):

* :mod:`bgai.cube.state`: :class:`CubeState` and the rules of who may double, :class:`CubeRules`
  (how a game plays the cube: its cap, Jacoby, beavers);
* :mod:`bgai.cube.met`: the Kazaross-XG2 match equity table and score arithmetic;
* :mod:`bgai.cube.money`: Janowski's closed forms and gnubg's money cubeful equity;
* :mod:`bgai.cube.match`: match play in MWC (live-cube cash points, normalised equity);
* :mod:`bgai.cube.decision`: gnubg's exact 0-ply analysis, :func:`analyse_cube` /
  :func:`decision_labels` in gnubg's wording, and the one rule of the taker's answer
  (:func:`answer_to_double`, behind :func:`take_decision`).

Boards and evaluators in (engine, formats, model and :mod:`bgai.search` below them):

* :mod:`bgai.cube.efficiency`: gnubg's position classes and their cube efficiencies;
* :mod:`bgai.cube.bearoff`: exact cubeful money equities of two-sided bear-offs (on the
  tables of :mod:`bgai.bearoff`), which replace Janowski's model there;
* :mod:`bgai.cube.search`: the cubeful n-ply lookahead behind the 1- and 2-ply analysis;
* :mod:`bgai.cube.equity`: the cubeful equity after a move and a roll's cubeful luck (the
  analysis's values and luck, the bench's cubeful luck-adjusted results);
* :mod:`bgai.cube.analysis`: cube states from a :class:`~bgai.formats.MatchState`, the cube
  analysis of positions at 0, 1 or 2 ply, and :class:`~bgai.cube.analysis.CubeDecider`, the
  one cube sense every bot uses.

Bots (:mod:`bgai.bots.cube`), the bench, ``bgai play``, exported opponents and ``bgai cube``
build on this package.
"""

from bgai.cube.decision import (
    NOT_AVAILABLE,
    CubeAnalysis,
    analyse_cube,
    answer_to_double,
    decision_labels,
    doubles,
    take_decision,
)
from bgai.cube.efficiency import cube_efficiency
from bgai.cube.met import MatchEquityTable, kazaross_xg2
from bgai.cube.state import CUBELESS, CubeRules, CubeState, Owner

__all__ = [
    "CUBELESS",
    "NOT_AVAILABLE",
    "CubeAnalysis",
    "CubeRules",
    "CubeState",
    "MatchEquityTable",
    "Owner",
    "analyse_cube",
    "answer_to_double",
    "cube_efficiency",
    "decision_labels",
    "doubles",
    "kazaross_xg2",
    "take_decision",
]
