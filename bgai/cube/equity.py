"""Cubeful equity after a move, and the cubeful luck of a roll, as gnubg measures them.

An afterstate is valued from the opponent's side, on roll there and free to double first:
Janowski's model on the probabilities with gnubg's cube efficiency (gnubg's 0-ply cubeful
evaluation, exactly), the exact table in money two-sided bear-offs. Equities are
**normalised** (per unit of the current cube; in a match, match winning chances mapped so that
winning the cube is +1 and losing it -1); :meth:`CubefulEquity.cost` turns them into points or
match winning chance. ``bgai analyse`` values its moves and its luck with these, and the bench
its cubeful luck-adjusted results.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import torch

from bgai.cube import match as match_cube
from bgai.cube.efficiency import cube_efficiencies
from bgai.cube.met import kazaross_xg2
from bgai.cube.search import RollTree, cubeful_value, leaf_tree
from bgai.cube.state import CubeState
from bgai.engine.board import swap_sides
from bgai.engine.dice import ROLLS, roll_index
from bgai.model.probs import invert
from bgai.search.evaluator import Evaluator
from bgai.search.luck import roll_luck
from bgai.search.ply import roll_moves


class CubefulEquity:
    """Turns probabilities into gnubg's cubeful normalised equities and costs, for given cube
    states; ``in_use`` False values everything cubeless (a game played without the cube)."""

    def __init__(self, in_use: bool, checkers: int) -> None:
        self.in_use = in_use
        self.checkers = checkers
        self.met = kazaross_xg2()

    def after_move(
        self,
        probs: np.ndarray,
        afters: np.ndarray,
        states: Sequence[CubeState],
        plies,
        which: np.ndarray | None = None,
    ) -> np.ndarray:
        """Cubeful equity, normalised, for the mover of each afterstate (mover in row 1; ``probs``
        the mover's at ``plies``): Janowski on those probabilities, the opponent on roll there and
        free to double first, with gnubg's cube efficiency of that ply (gnubg's 0-ply, exactly);
        in money play a two-sided bear-off's exact value instead (:func:`leaf_tree`).

        ``states[which[i]]`` is row ``i``'s mover's cube state (``which`` defaults to one state a row).
        """
        n = len(probs)
        if not n:
            return np.zeros(0)
        plies = np.broadcast_to(np.asarray(plies), (n,))
        opponent_boards = swap_sides(torch.as_tensor(np.asarray(afters)))
        shallow = cube_efficiencies(opponent_boards, 0, self.checkers)
        deep = cube_efficiencies(opponent_boards, 2, self.checkers) if (plies >= 2).any() else shallow
        theirs = invert(np.asarray(probs, dtype=np.float64))
        tree = leaf_tree(theirs, np.where(plies >= 2, deep, shallow), opponent_boards, self.checkers)
        return self.tree_values(tree, states, which)

    def tree_values(
        self, tree: RollTree, states: Sequence[CubeState], which: np.ndarray | None = None
    ) -> np.ndarray:
        """Cubeful equity, normalised, for the mover of each root of ``tree``, a lookahead of
        afterstates with the opponent on roll (gnubg's cubeful n-ply: a cube decision at every
        node, Janowski at the leaves, money two-sided bear-offs exact). ``states`` and ``which``
        as in :meth:`after_move`."""
        if not self.in_use:  # no cube: every value is cubeless (no cubeful table either)
            tree = RollTree(tree.probs, np.zeros_like(tree.x), tree.plies, tree.n)
        out = np.empty(tree.n)
        for state, rows in _by_state(states, which):
            part = tree if len(rows) == tree.n else tree.subset(rows)
            value = cubeful_value(part, state.swapped(), may_double=self.in_use, met=self.met)
            if state.is_money:
                out[rows] = -value / state.cube
            else:
                out[rows] = match_cube.mwc_to_equity(1.0 - value, state, self.met)
        return out

    def cost(self, equity: np.ndarray | float, state: CubeState) -> np.ndarray:
        """Normalised equity as points (money: x cube) or match winning chance (match)."""
        equity = np.asarray(equity, dtype=np.float64)
        if state.is_money:
            return equity * state.cube
        zero = match_cube.equity_to_mwc(0.0, state, self.met)
        return match_cube.equity_to_mwc(equity, state, self.met) - zero

    def costs(self, equity: np.ndarray, states: Sequence[CubeState]) -> np.ndarray:
        """:meth:`cost` of each row's equity in its own cube state ``states[i]``."""
        equity = np.asarray(equity, dtype=np.float64)
        out = np.empty(len(equity))
        for state, rows in _by_state(states):
            out[rows] = self.cost(equity[rows], state)
        return out

    def player0(self, equity: float, state: CubeState, player: int) -> float:
        """The mover's normalised equity as player 0's points (money) or match winning chance."""
        if state.is_money:
            value = equity * state.cube
            return value if player == 0 else -value
        mwc = float(match_cube.equity_to_mwc(equity, state, self.met))
        return mwc if player == 0 else 1.0 - mwc

    def roll_equities(
        self, evaluator: Evaluator, boards: torch.Tensor, states: Sequence[CubeState]
    ) -> np.ndarray:
        """``(N, 21)`` cubeful equity of each roll's best move on ``boards`` (mover in row 1,
        cube state ``states[i]``) at 0-ply, the move picked by that equity."""
        rolls = len(ROLLS)

        def rank(values: torch.Tensor, children: torch.Tensor, parent: torch.Tensor) -> torch.Tensor:
            probs = values.double().cpu().numpy()
            owners = (parent // rolls).cpu().numpy()
            return torch.as_tensor(self.after_move(probs, children.cpu().numpy(), states, 0, owners))

        afters, values = roll_moves(evaluator, boards, 0, rank=rank)
        n = len(boards)
        equity = self.after_move(
            values.reshape(n * rolls, 5).double().cpu().numpy(),
            afters.reshape(n * rolls, 2, 25).cpu().numpy(),
            states,
            0,
            np.arange(n * rolls) // rolls,
        )
        return equity.reshape(n, rolls)

    def luck(
        self,
        evaluator: Evaluator,
        boards: torch.Tensor,
        dice: np.ndarray,
        opening: np.ndarray,
        states: Sequence[CubeState],
    ) -> tuple[np.ndarray, np.ndarray]:
        """(luck of each roll ``dice`` on ``boards``, the cubeful equity of the roll's best move),
        normalised, 0-ply, for movers in cube states ``states``. ``opening`` (bool ``(N,)``) marks
        non-double opening rolls, which either player might have won (:func:`roll_luck`)."""
        if not len(boards):
            return np.zeros(0), np.zeros(0)
        mine = self.roll_equities(evaluator, boards, states)
        theirs = None
        if opening.any():
            rows = np.flatnonzero(opening)
            index = torch.as_tensor(rows, device=boards.device)
            theirs = self.roll_equities(
                evaluator, boards.index_select(0, index), [states[i].swapped() for i in rows]
            )
        actual = mine[np.arange(len(boards)), roll_index(dice)]
        return roll_luck(mine, dice, opening, theirs), actual


def _by_state(states: Sequence[CubeState], which: np.ndarray | None = None):
    """``(state, rows)`` for each distinct cube state, ``rows`` where row ``i``'s state is
    ``states[which[i]]`` (``which`` defaults to one state a row): batches that share a state."""
    distinct: dict[CubeState, int] = {}
    ids = np.array([distinct.setdefault(state, len(distinct)) for state in states], dtype=np.int64)
    group = ids if which is None else ids[np.asarray(which)]
    for state, g in distinct.items():
        rows = np.flatnonzero(group == g)
        if len(rows):
            yield state, rows
