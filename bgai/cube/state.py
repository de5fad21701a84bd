"""Where the cube stands, always seen from the player on roll.

A :class:`CubeState` says who may turn the cube and what a game is worth; it knows nothing
about the board. Money play has ``match_length == 0``; in match play the score is kept as
the points each side still needs (``my_away`` for the player on roll, ``opp_away`` for the
opponent), because every match-equity fact is a function of the aways.

Rules encoded here (gnubg's ``GetDPEq`` / ``fDoCubeful``):

* money: the cube can be turned when it is centred or owned by the player on roll;
* match: additionally never in the Crawford game, never by the post-Crawford leader, and
  never when the cube already covers what the player needs (``my_away <= cube``);
* match cube "dead" (cubeless evaluation): both sides' aways are covered by the cube, the
  Crawford game, and - gnubg's modelling choice - 2-away/2-away.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from enum import Enum

MAX_CUBE = 4096
"""gnubg's largest cube (``MAX_CUBE`` in its ``backgammon.h``: ``1 << 12``): no double or beaver
beyond it."""


def _power_of_two(name: str, value: int) -> None:
    """A one-line error unless ``value`` is a cube value (a power of two, 1 included)."""
    if value < 1 or value & (value - 1):
        raise ValueError(f"{name} must be a power of two, got {value}")


@dataclass(frozen=True)
class CubeRules:
    """How a game or session plays the cube: the cap (1: no cube at all, every game counts what
    the board says) and money play's Jacoby rule and beavers."""

    jacoby: bool = True
    beavers: bool = True
    max_cube: int = MAX_CUBE

    def __post_init__(self) -> None:
        _power_of_two("max_cube", self.max_cube)

    @property
    def in_use(self) -> bool:
        """The cube is in play (it may be turned at least once)."""
        return self.max_cube > 1


CUBELESS = CubeRules(jacoby=False, max_cube=1)
"""Money games without a cube: every game counts 1, 2 or 3 points as the board says."""


class Owner(Enum):
    """Who holds the cube, relative to the player on roll."""

    CENTRED = "centred"
    ME = "me"
    OPPONENT = "opponent"

    def flipped(self) -> Owner:
        """The same owner seen from the other player."""
        return {Owner.CENTRED: Owner.CENTRED, Owner.ME: Owner.OPPONENT, Owner.OPPONENT: Owner.ME}[self]


@dataclass(frozen=True)
class CubeState:
    """Cube value, owner and score, from the viewpoint of the player on roll.

    ``crawford`` marks the Crawford game itself; post-Crawford is implied by one side being
    1-away without ``crawford``. ``jacoby`` and ``beavers`` only matter for money play.
    """

    cube: int = 1
    owner: Owner = Owner.CENTRED
    match_length: int = 0
    my_away: int = 0
    opp_away: int = 0
    crawford: bool = False
    jacoby: bool = True
    beavers: bool = True

    def __post_init__(self) -> None:
        _power_of_two("cube", self.cube)
        if self.owner is Owner.CENTRED and self.cube != 1:
            raise ValueError("a centred cube has value 1")
        if self.match_length < 0:
            raise ValueError("match_length must be >= 0 (0 = money)")
        if self.is_money:
            if self.my_away or self.opp_away or self.crawford:
                raise ValueError("money play has no score and no Crawford game")
            return
        for away in (self.my_away, self.opp_away):
            if not 1 <= away <= self.match_length:
                raise ValueError(f"away scores must lie in 1..{self.match_length}")
        if self.crawford and (min(self.my_away, self.opp_away) != 1 or max(self.my_away, self.opp_away) == 1):
            raise ValueError("the Crawford game needs exactly one side 1-away")
        if self.crawford and self.owner is not Owner.CENTRED:
            raise ValueError("the cube stays centred in the Crawford game")

    # --- constructors -------------------------------------------------------------------

    @classmethod
    def money(
        cls, cube: int = 1, owner: Owner = Owner.CENTRED, *, jacoby: bool = True, beavers: bool = True
    ) -> CubeState:
        """A money game (gnubg's defaults: Jacoby on, beavers allowed)."""
        return cls(cube=cube, owner=owner, jacoby=jacoby, beavers=beavers)

    @classmethod
    def match(
        cls,
        length: int,
        my_score: int,
        opp_score: int,
        cube: int = 1,
        owner: Owner = Owner.CENTRED,
        *,
        crawford: bool = False,
    ) -> CubeState:
        """A match to ``length`` at the given score (points won so far, player on roll first)."""
        return cls(
            cube=cube,
            owner=owner,
            match_length=length,
            my_away=length - my_score,
            opp_away=length - opp_score,
            crawford=crawford,
            jacoby=False,
            beavers=False,
        )

    # --- derived facts --------------------------------------------------------------------

    @property
    def is_money(self) -> bool:
        return self.match_length == 0

    @property
    def is_post_crawford(self) -> bool:
        """One side is 1-away and the Crawford game has been played."""
        return not self.is_money and not self.crawford and min(self.my_away, self.opp_away) == 1

    @property
    def crawford_done(self) -> bool:
        """Someone is 1-away already, so any later game is post-Crawford (gnubg's MET lookup)."""
        return not self.is_money and (self.crawford or min(self.my_away, self.opp_away) == 1)

    def _may_double(self, away: int, holder: Owner) -> bool:
        if self.owner not in (Owner.CENTRED, holder):
            return False
        if self.is_money:
            return True
        if self.crawford or away <= self.cube:
            return False
        return not (self.is_post_crawford and away == 1)

    @property
    def can_double(self) -> bool:
        """May the player on roll offer the cube now?"""
        return self._may_double(self.my_away, Owner.ME)

    @property
    def opponent_can_double(self) -> bool:
        """Could the opponent offer the cube at this cube value on his turn?"""
        return self._may_double(self.opp_away, Owner.OPPONENT)

    @property
    def cube_is_dead(self) -> bool:
        """gnubg treats the game as cubeless (match only): no side can gain from the cube."""
        if self.is_money:
            return False
        both_covered = self.my_away <= self.cube and self.opp_away <= self.cube
        return both_covered or self.crawford or (self.my_away == 2 and self.opp_away == 2)

    def doubled(self) -> CubeState:
        """The state after the player on roll doubles and the opponent takes (same player on roll)."""
        return dataclasses.replace(self, cube=2 * self.cube, owner=Owner.OPPONENT)

    def swapped(self) -> CubeState:
        """The same state seen from the opponent."""
        return dataclasses.replace(
            self, owner=self.owner.flipped(), my_away=self.opp_away, opp_away=self.my_away
        )
