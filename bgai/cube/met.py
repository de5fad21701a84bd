"""Match equity table (MET) and the score arithmetic built on it.

MWC = match winning chance, in [0, 1]. Everything is indexed by *aways* (points still
needed). The bundled table is Kazaross-XG2 exactly as gnubg 1.1 loads it (native to 25 points,
extended to 64 by gnubg's own extension), dumped by ``scripts/build/make_cube_golden.py --met``.

MET semantics (gnubg's ``getME``):

* ``pre_crawford[i, j]``: MWC of a player ``i+1``-away against ``j+1``-away at the start of a
  game in which nobody has been 1-away yet; row/column 0 is therefore the Crawford game.
* ``post_crawford[j]``: MWC of the trailer ``j+1``-away against a 1-away leader in a
  post-Crawford game (index 0 = double match point, 0.5).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from functools import cache
from pathlib import Path

import numpy as np

from bgai.cube.state import CubeState

MET_PATH = Path(__file__).resolve().parents[1] / "data" / "met_kazaross_xg2.json"


@dataclass(frozen=True)
class MatchEquityTable:
    """A pre-Crawford table and a post-Crawford column, from the row player's view."""

    name: str
    pre_crawford: np.ndarray
    post_crawford: np.ndarray

    @property
    def max_away(self) -> int:
        return self.pre_crawford.shape[0]

    def mwc(self, my_away: int, opp_away: int, *, post_crawford: bool = False) -> float:
        """My MWC at the start of a game; ``post_crawford`` when someone was 1-away before."""
        if my_away <= 0:
            return 1.0
        if opp_away <= 0:
            return 0.0
        if post_crawford and min(my_away, opp_away) == 1:
            if my_away == 1:
                return 1.0 - float(self.post_crawford[opp_away - 1])
            return float(self.post_crawford[my_away - 1])
        return float(self.pre_crawford[my_away - 1, opp_away - 1])

    def mwc_after(self, my_away: int, opp_away: int, points: int, *, crawford_done: bool) -> float:
        """My MWC after this game, winning ``points`` (negative: losing ``-points``).

        ``crawford_done``: this game is the Crawford game or post-Crawford, so if the match goes
        on the next game is post-Crawford (otherwise reaching 1-away starts the Crawford game).
        """
        if points >= 0:
            return self.mwc(my_away - points, opp_away, post_crawford=crawford_done)
        return self.mwc(my_away, opp_away + points, post_crawford=crawford_done)

    def outcome_mwc(self, state: CubeState, points: int) -> float:
        """My MWC after winning ``points`` (negative: losing) from the game at ``state``."""
        return self.mwc_after(state.my_away, state.opp_away, points, crawford_done=state.crawford_done)

    def gammon_values(self, state: CubeState) -> tuple[float, float]:
        """(my, opponent's) gammon value at the current cube: extra MWC of a gammon per single game.

        GV = (MWC(win gammon) - MWC(win)) / (MWC(win) - MWC(lose)); 0.5 in money play.
        gnubg's cubeinfo ``gammonprice`` is ``2 * GV``.
        """
        c = state.cube
        win, lose = self.outcome_mwc(state, c), self.outcome_mwc(state, -c)
        win_g, lose_g = self.outcome_mwc(state, 2 * c), self.outcome_mwc(state, -2 * c)
        spread = win - lose
        return (win_g - win) / spread, (lose - lose_g) / spread


@cache
def kazaross_xg2() -> MatchEquityTable:
    """The bundled Kazaross-XG2 table (gnubg's default MET)."""
    data = json.loads(MET_PATH.read_text())
    return MatchEquityTable(
        name=data["name"],
        pre_crawford=np.asarray(data["pre_crawford"], dtype=np.float64),
        post_crawford=np.asarray(data["post_crawford"], dtype=np.float64),
    )
