"""Cubeful n-ply cube decisions, as gnubg's n-ply cube analysis computes them.

gnubg values a cube decision at n plies by a lookahead in which **every node but the root is
a cube decision** and Janowski's cube efficiency is used **only at the leaves**:

* a node with X on roll in cube state ``s`` has a no-double value ND (in ``s``) and, where X
  may double, a double/take value DT (in ``s.doubled()``: O owns twice the cube) and a
  double/pass value DP (what X cashes); X chooses, so the node is worth ``max(ND, min(DT, DP))``;
* at a leaf (0-ply) ND and DT are gnubg's 0-ply cubeful equities of the evaluator's cubeless
  probabilities, with the leaf's cube efficiency (:func:`bgai.cube.efficiency.cube_efficiencies`,
  gnubg's 0-1 ply set in a 1-ply search, its 2+ ply set in a 2-ply one);
* in money play a two-sided bear-off, leaf or node (the root too), takes its exact ND and DT
  from :mod:`bgai.cube.bearoff` instead: the search stops there, as gnubg's does;
* above a leaf, ND (or DT) is the average over the 21 rolls of X's best move, the resulting
  position (O on roll, in the same cube state seen from O) valued one ply shallower from O's
  side and turned back into X's value;
* the root takes no decision: its ND and DT are reported, and DP is +1.

A 2-ply analysis thus values leaves in the states centred 1-cube, opponent-owned 2-cube,
owned 4-cube ... that gnubg's manual lists. Values are kept in their natural currency on the
way up (money: points, i.e. cube x equity per unit; match: match winning chances of the
player on roll) and normalised to the root's cube at the end, as gnubg does.

Batching: the cubeless part, a :class:`RollTree` (positions x 21 rolls per ply, best moves and
leaf probabilities), is built once for a batch of positions, through the batched engine and
one evaluator call per ply level (in chunks of :data:`bgai.search.ply.MAX_BOARDS_PER_CHUNK`
positions); each cube state is then a cheap numpy pass over the tree.

Simplifications compared with gnubg (deliberate):

* moves inside the search are chosen by **cubeless** 0-ply money equity, or in a match by the
  mover's cubeless match winning chance at the score (gammons priced by the match equity
  table); gnubg picks them by 0-ply cubeful equity in the node's cube state, by default after
  a pre-selection with its pruning nets;
* beavers are not considered inside the search (gnubg neither), only in the root's wording;
* two-sided bear-offs in match play get the 0.6 efficiency of bear-offs (the exact table is
  for money play); gnubg's match play departs from that in about a third of them
  (``docs/cube.md``, "Exact equities in small bear-offs").

Measured (``scripts/measure/cube_quality.py --player gnubg --plies 2``): with gnubg's own 0-ply net as
the evaluator, this search gives gnubg 2-ply's proper cube action on 99.3 % of 5000 (position,
cube state) pairs (1000 self-play positions x money centred and owned, 7pt 0-0, 5pt 2a-4a,
7pt post-Crawford 4a-1a), and loses under 0.0001 equity per decision by gnubg's equities
(measured before match play chose the search's moves by match winning chance).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import torch

from bgai.cube import match
from bgai.cube.bearoff import OWNERS, exact_no_double
from bgai.cube.decision import PositionCubeAnalysis, analyse_cube, decision_labels
from bgai.cube.efficiency import cube_efficiencies
from bgai.cube.met import MatchEquityTable, kazaross_xg2
from bgai.cube.money import cubeful_equity
from bgai.cube.state import CubeState
from bgai.engine.board import CHECKERS, swap_sides
from bgai.engine.choice import segment_argmax
from bgai.engine.dice import ROLL_COUNTS, ROLLS
from bgai.engine.movegen import expand
from bgai.model.probs import cubeless_equity, invert
from bgai.search.evaluator import Evaluator, afterstate_values, terminal_probs
from bgai.search.ply import MAX_BOARDS_PER_CHUNK

N_ROLLS = len(ROLLS)
_ROLL_COUNTS = ROLL_COUNTS.double().numpy()  # 1 for doubles, 2 for the others


def _average_over_rolls(values: np.ndarray) -> np.ndarray:
    """``(..., 21) -> (...)`` probability-weighted mean; integer weights, so 21 ones average to exactly 1."""
    return (values @ _ROLL_COUNTS) / 36.0


@dataclass(frozen=True)
class RollTree:
    """The cubeless lookahead of ``n`` positions to ``plies`` plies.

    Leaf ``k`` of position ``i`` is row ``i * 21**plies + k``; ``k`` counts the rolls of the
    first ply slowest (in :data:`bgai.engine.dice.ROLLS` order). ``probs`` ``(n * 21**plies, 5)``
    are for the player on roll at the leaf (the root's player when ``plies`` is even), ``x``
    the leaf's cube efficiency. ``exact[d]``, for the nodes ``d`` plies above the leaves (rows
    as the leaves', ``21**(plies - d)`` per position), holds the exact money no-double equities
    of two-sided bear-offs by cube owner (:func:`bgai.cube.bearoff.exact_no_double`: NaN
    elsewhere); empty, no node has any.
    """

    probs: np.ndarray
    x: np.ndarray
    plies: int
    n: int
    exact: tuple[np.ndarray, ...] = ()

    def subset(self, rows) -> RollTree:
        """The tree of positions ``rows`` only."""
        rows = np.asarray(rows, dtype=np.int64)

        def nodes(depth: int) -> np.ndarray:
            per_position = N_ROLLS ** (self.plies - depth)
            return (rows[:, None] * per_position + np.arange(per_position)[None, :]).ravel()

        leaves = nodes(0)
        exact = tuple(level[nodes(d)] for d, level in enumerate(self.exact))
        return RollTree(self.probs[leaves], self.x[leaves], self.plies, len(rows), exact)

    def cubeless(self) -> np.ndarray:
        """``(n, 5)`` cubeless probabilities of each root at ``plies`` (the n-ply evaluation)."""
        probs = self.probs
        for _ in range(self.plies):
            probs = _average_over_rolls(invert(probs).reshape(-1, N_ROLLS, 5).transpose(0, 2, 1))
        return probs


def roll_tree(
    evaluator: Evaluator,
    boards,
    plies: int,
    efficiency_plies: int | None = None,
    states: Sequence[CubeState] | None = None,
    met: MatchEquityTable | None = None,
) -> RollTree:
    """Build the lookahead of ``boards`` (player on roll in row 1) to ``plies`` plies.

    At each ply every (position, roll) pair plays its best move: by cubeless 0-ply money
    equity, or, where ``states`` (the cube state of each board's player on roll) says a match
    is on, by the mover's cubeless match winning chance at the score, so that a player at
    1-away, say, saves gammons as gnubg's cubeful search does. A finished game stays finished.
    ``efficiency_plies`` picks gnubg's cube efficiency set for the leaves (default ``plies``:
    the 0-1 ply set up to 1-ply, the 2+ ply set beyond). Every ply's two-sided bear-offs get
    their exact money equities.
    """
    if plies < 0:
        raise ValueError(f"plies must be 0 or more, got {plies}")
    current = torch.as_tensor(boards)
    n = len(current)
    checkers = getattr(evaluator, "checkers", CHECKERS)
    if plies == 0:
        probs = evaluator.evaluate(current)
    movers = None
    if states is not None and any(not s.is_money for s in states):
        movers = list(states)
        met = met or kazaross_xg2()
    above = []  # the exact equities of the nodes above the leaves, the root's first
    for _ in range(plies):
        above.append(exact_no_double(current, checkers))
        current, probs = _best_replies(evaluator, current, movers, met)
        if movers is not None:  # the next player on roll, 21 rolls per position
            movers = [s.swapped() for s in movers for _ in range(N_ROLLS)]
    x = cube_efficiencies(current, plies if efficiency_plies is None else efficiency_plies, checkers)
    leaves = leaf_tree(probs.double().cpu().numpy(), x, current, checkers)
    return RollTree(leaves.probs, leaves.x, plies, n, leaves.exact + tuple(reversed(above)))


def leaf_tree(probs, x, boards=None, checkers: int = CHECKERS) -> RollTree:
    """The 0-ply tree of positions whose player on roll has cubeless probabilities ``probs``
    ``(N, 5)``, at cube efficiencies ``x``: Janowski's model, but for the exact money equities
    of the two-sided bear-offs among ``boards`` ``(N, 2, 25)`` (player on roll in row 1; none
    looked up without them). The leaves of :func:`roll_tree`, the candidate moves of checker-play
    analysis and the trials of cubeful rollouts are all made so, and value those bear-offs alike.
    """
    probs = np.asarray(probs, dtype=np.float64)
    exact = () if boards is None else (exact_no_double(boards, checkers),)
    return RollTree(probs, np.asarray(x, dtype=np.float64), 0, len(probs), exact)


def _best_replies(
    evaluator: Evaluator,
    boards: torch.Tensor,
    movers: Sequence[CubeState] | None = None,
    met: MatchEquityTable | None = None,
) -> tuple[torch.Tensor, torch.Tensor]:
    """For each board and each of the 21 rolls, the position after the best move and its value.

    Returns ``(boards (N * 21, 2, 25), probs (N * 21, 5))``, the next player on roll in row 1
    and the probabilities for them. A finished game is repeated (seen from the other side).
    ``movers``: each board's player's cube state, to rank moves by match winning chance.
    """
    n = len(boards)
    after = swap_sides(boards).repeat_interleave(N_ROLLS, 0)
    probs, finished = terminal_probs(after, getattr(evaluator, "checkers", CHECKERS))
    probs = probs.float()
    live = (~finished.view(n, N_ROLLS)[:, 0]).nonzero().squeeze(1)
    rolls = ROLLS.to(boards.device)
    spread = torch.arange(N_ROLLS, device=boards.device)
    for chunk in live.split(MAX_BOARDS_PER_CHUNK.get(boards.device.type, 4096)):
        m = len(chunk)
        children, parent = expand(
            boards.index_select(0, chunk).repeat_interleave(N_ROLLS, 0), rolls.repeat(m, 1)
        )
        values = afterstate_values(evaluator, children)
        score = cubeless_equity(values)
        if movers is not None:
            which = (chunk[parent // N_ROLLS]).cpu().numpy()
            score = torch.as_tensor(match.normalised_cubeless(values.double().cpu(), movers, which, met))
        best = segment_argmax(score, parent, m * N_ROLLS)
        rows = (chunk[:, None] * N_ROLLS + spread[None, :]).reshape(-1)
        after[rows] = swap_sides(children.index_select(0, best))
        probs[rows] = invert(values.index_select(0, best)).to(probs)
    return after, probs


def cube_analysis(
    tree: RollTree, state: CubeState, met: MatchEquityTable | None = None
) -> PositionCubeAnalysis:
    """ND / DT / DP (normalised to the root's cube) and gnubg's wording, for every root of ``tree``.

    At 0-ply this is :func:`~bgai.cube.decision.analyse_cube` on the leaves' probabilities, but
    for the exact equities of money two-sided bear-offs.
    """
    met = met or kazaross_xg2()
    probs = tree.cubeless()
    states = (state,) * tree.n
    nd = _normalise(_value(tree, state, tree.plies, False, met), state, met)
    if not state.can_double:
        # Only gnubg's wording of "no cube" is wanted from the 0-ply analysis.
        a = analyse_cube(probs, state, 0.0, met)
        return PositionCubeAnalysis(nd, a.dt, a.dp, a.decision, probs, states, tree.plies)
    dt = _normalise(_value(tree, state.doubled(), tree.plies, False, met), state, met)
    dp = np.ones(tree.n)
    decision = decision_labels(nd, dt, dp, probs, state)
    return PositionCubeAnalysis(nd, dt, dp, decision, probs, states, tree.plies)


def cubeful_value(
    tree: RollTree, state: CubeState, *, may_double: bool = True, met: MatchEquityTable | None = None
) -> np.ndarray:
    """gnubg's cubeful value of each root of ``tree`` for its player on roll in ``state``, who may
    first turn the cube when ``may_double`` (``max(ND, min(DT, DP))``, as at every node of a search
    but the top one): a cube decision at every node, Janowski at the leaves (the exact table at
    the tree's money two-sided bear-offs). Money in points (cube x equity per unit), match in MWC.

    Checker-play analysis (:mod:`bgai.analyse`) values each candidate move so: the tree of its
    afterstate, the opponent on roll (a 0-ply tree is :func:`leaf_tree`); so do the cubeful
    rollouts' trials (:mod:`bgai.rollout.trials`).
    """
    return _value(tree, state, tree.plies, may_double, met or kazaross_xg2())


def _value(tree: RollTree, state: CubeState, depth: int, decide: bool, met: MatchEquityTable) -> np.ndarray:
    """Cubeful value of each node ``depth`` plies above the leaves, for its player on roll.

    Money: points (cube x normalised equity); match: MWC. ``decide``: the player on roll may
    turn the cube here (every node but the root, leaves included). The one place where a value
    does not come from the children: Janowski on a leaf's probabilities or, in money play, the
    exact table of a two-sided bear-off, leaf or not.
    """

    def in_state(s: CubeState) -> np.ndarray:
        if depth == 0:
            if s.is_money:
                value = s.cube * cubeful_equity(tree.probs, tree.x, s.owner, jacoby=s.jacoby)
            else:
                value = match.cubeful_mwc(tree.probs, s, tree.x, met)
        else:
            child = _value(tree, s.swapped(), depth - 1, True, met).reshape(-1, N_ROLLS)
            value = _average_over_rolls(-child if s.is_money else 1.0 - child)
        if s.is_money and depth < len(tree.exact):
            exact = tree.exact[depth][:, OWNERS.index(s.owner)]
            value = np.where(np.isnan(exact), value, s.cube * exact)
        return value

    no_double = in_state(state)
    if not (decide and state.can_double):
        return no_double
    double_take = in_state(state.doubled())
    double_pass = state.cube if state.is_money else met.outcome_mwc(state, state.cube)
    return np.maximum(no_double, np.minimum(double_take, double_pass))


def _normalise(value: np.ndarray, state: CubeState, met: MatchEquityTable) -> np.ndarray:
    """Points or MWC of the root's player as equity per unit of the root's cube (DP = +1)."""
    if state.is_money:
        return value / state.cube
    return match.mwc_to_equity(value, state, met)
