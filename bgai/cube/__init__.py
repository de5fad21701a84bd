"""The doubling cube: cube states, match equity, Janowski's model and gnubg-exact 0-ply decisions.

This package knows probabilities, never networks or boards. Probabilities are 5-vectors for
the player on roll, ``(win, win gammon, win backgammon, lose gammon, lose backgammon)`` with
gammons including backgammons, batched as ``(N, 5)`` arrays (numpy or torch).

* :mod:`bgai.cube.state`: :class:`CubeState` and the availability rules;
* :mod:`bgai.cube.met`: the Kazaross-XG2 match equity table and score arithmetic;
* :mod:`bgai.cube.money`: Janowski's closed forms and gnubg's money cubeful equity;
* :mod:`bgai.cube.match`: match play in MWC (live-cube cash points, normalised equity);
* :mod:`bgai.cube.decision`: :func:`analyse_cube` / :func:`take_decision` in gnubg's wording.
"""

from bgai.cube.decision import NOT_AVAILABLE, CubeAnalysis, analyse_cube, cube_efficiency, take_decision
from bgai.cube.met import MatchEquityTable, kazaross_xg2
from bgai.cube.state import CubeState, Owner

__all__ = [
    "NOT_AVAILABLE",
    "CubeAnalysis",
    "CubeState",
    "MatchEquityTable",
    "Owner",
    "analyse_cube",
    "cube_efficiency",
    "kazaross_xg2",
    "take_decision",
]
