"""Exact cubeful money equities of small bear-offs, solved with the cube.

Where both sides are home with at most 6 checkers (gnubg's two-sided class, ``bearoff_ts`` of
:mod:`bgai.cube.efficiency`) no gammon is possible and the whole game is small enough to solve
with the cube in it; gnubg answers money cube decisions there from such a table, not from
Janowski's model, and so does bgai. Match play keeps Janowski's model (x = 0.6), which gnubg's
match play there follows in about two positions out of three (``docs/cube.md``).

``no_double[a, b, o]``: the money equity, per unit of the cube, of the player on roll with home
position ``a`` (an index of :func:`bgai.bearoff.one_sided.position_index`) against ``b``, before
rolling, when he does not double now; the cube centred (``o = 0``), his (1) or the opponent's
(2); both sides play on perfectly, checkers and cube. A cube decision there is therefore::

    ND = no_double[a, b, o]      DT = 2 * no_double[a, b, 2]      DP = +1

(after a take the taker owns the cube at twice the value), and the position is worth
``max(ND, min(DT, DP))`` to a player on roll who may double, ``ND`` to one who may not.

Dynamic programming over the pairs by increasing total pips, on the afterstate edges and pip
levels of :mod:`bgai.bearoff.two_sided`::

    no_double[a, b, o] = mean over rolls of max over afterstates c of -value[b, c, o']

with ``o'`` the same cube seen by the opponent, ``value`` the position with the cube action,
``value[empty, b] = +1`` and ``value[a, empty] = -1``: each roll is played for the best
afterstate in that cube state. Beavers stay out of the table, and could not change it: nowhere
would a double into a beaver (DT < 0) beat no double (``tests/test_cube_bearoff.py``). They
enter the decision at the root only (:func:`bgai.cube.decision.answer_to_double`).
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache
from pathlib import Path

import numpy as np
import torch

from bgai.bearoff.one_sided import POINTS, afterstate_edges, all_positions, find_or_build, position_index
from bgai.bearoff.two_sided import TWO_SIDED_CHECKERS, mean_of_best_moves, pair_levels
from bgai.cube.efficiency import CLASSES, class_codes
from bgai.cube.state import Owner
from bgai.engine.board import CHECKERS

OWNERS = (Owner.CENTRED, Owner.ME, Owner.OPPONENT)
"""The cube owner of each column of ``no_double``, seen from the player on roll."""
_SEEN_BY_OPPONENT = torch.tensor([OWNERS.index(owner.flipped()) for owner in OWNERS])
_MAY_DOUBLE = [OWNERS.index(Owner.CENTRED), OWNERS.index(Owner.ME)]
_TAKEN = OWNERS.index(Owner.OPPONENT)
CUBEFUL_FILE = f"two_sided_cubeful_{TWO_SIDED_CHECKERS}.npz"


@dataclass(frozen=True)
class CubefulTwoSidedDB:
    """``no_double`` ``(M, M, 3)`` float32: money equity per unit cube, [mover, opponent, owner]."""

    no_double: torch.Tensor

    def save(self, path: Path) -> None:
        path.parent.mkdir(parents=True, exist_ok=True)
        np.savez_compressed(path, no_double=self.no_double.numpy())

    @classmethod
    def load(cls, path: Path) -> CubefulTwoSidedDB:
        with np.load(path) as data:
            return cls(torch.from_numpy(data["no_double"]))


def build_cubeful_two_sided(max_checkers: int = TWO_SIDED_CHECKERS) -> CubefulTwoSidedDB:
    """Solve money bear-offs of up to ``max_checkers`` checkers a side with the cube."""
    homes = all_positions(max_checkers)
    child, start = afterstate_edges(homes)
    n = len(homes)
    value = torch.empty((n, n, len(OWNERS)), dtype=torch.float64)
    value[0] = 1.0  # the player on roll has borne off everything: won
    value[1:, 0] = -1.0  # the opponent has
    no_double = value.clone()

    def reply(opponent: torch.Tensor, after: torch.Tensor) -> torch.Tensor:
        return -value[opponent, after][:, _SEEN_BY_OPPONENT]

    for a, b in pair_levels(homes):
        no_double[a, b] = nd = mean_of_best_moves(a, b, child, start, reply)
        value[a, b] = with_cube_action(nd)
    return CubefulTwoSidedDB(no_double.float())


def with_cube_action(no_double: torch.Tensor) -> torch.Tensor:
    """``(N, 3)`` values of positions ``(N, 3)`` of :data:`OWNERS` columns, the cube action of the
    player on roll included: ``max(ND, min(DT, DP))`` where he may double (centred or his cube)."""
    double = (2.0 * no_double[:, _TAKEN]).clamp(max=1.0)
    value = no_double.clone()
    value[:, _MAY_DOUBLE] = torch.maximum(no_double[:, _MAY_DOUBLE], double[:, None])
    return value


@cache
def load_cubeful_two_sided() -> CubefulTwoSidedDB:
    """The table for up to 6 checkers a side: cached on disk once built (about 10 s), once a process."""
    return find_or_build(CUBEFUL_FILE, build_cubeful_two_sided, CubefulTwoSidedDB.load)


def exact_no_double(boards, checkers: int = CHECKERS) -> np.ndarray:
    """``(N, 3)`` float64 ``no_double`` of each board ``(N, 2, 25)`` (player on roll in row 1),
    columns by :data:`OWNERS`; NaN where the board is not a two-sided bear-off.

    ``checkers``: the game's checkers a side (gnubg's classes: no table in hypergammon).
    """
    b = torch.as_tensor(boards).cpu().reshape(-1, 2, 25)
    out = np.full((len(b), len(OWNERS)), np.nan)
    inside = (class_codes(b, checkers) == CLASSES.index("bearoff_ts")).numpy()
    if inside.any():
        homes = b[inside][..., :POINTS]
        table = load_cubeful_two_sided().no_double
        out[inside] = table[position_index(homes[:, 1]), position_index(homes[:, 0])].double().numpy()
    return out
