"""Cube decisions for positions: a board and a match state in, gnubg's cube analysis out.

The glue between the formats (a board with the player on roll in row 1 and a
:class:`~bgai.formats.MatchState` in gnubg's player numbering), the evaluators of
:mod:`bgai.search` and the probability-only cube model of :mod:`bgai.cube.decision`:

* :func:`cube_state`: the :class:`CubeState` of the player on roll (score, owner, Crawford,
  Jacoby, beavers), and :func:`why_no_double` when that player may not double;
* :func:`analyse_positions` / :func:`analyse_position`: no double / double-take / double-pass
  equities (normalised to the current cube, double/pass = +1) and gnubg's proper cube action,
  at 0-ply (Janowski on the evaluator's probabilities with the cube efficiencies of
  :mod:`bgai.cube.efficiency`, exactly gnubg's 0-ply) or as a cubeful 1- or 2-ply search
  (:mod:`bgai.cube.search`);
* :class:`CubeDecider`: the one cube sense of every bot (bench games, ``bgai play``, exported
  opponents): doubles where that analysis says so, and answers a double by
  :func:`~bgai.cube.decision.answer_to_double`, many positions at once;
* :func:`cube_action`: one position's action: ``"double"``/``"no double"`` before the roll,
  or ``"take"``/``"pass"``/``"beaver"`` when a double is offered.

Equities, probabilities and decisions are always the **player on roll**'s, i.e. the would-be
doubler's. While a double is pending gnubg keeps the doubler on roll (the board is stored
from the doubler's view, the cube still at its old value), so the same analysis answers the
taker's question.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import torch

from bgai.cube.decision import PositionCubeAnalysis, answer_to_double, doubles
from bgai.cube.efficiency import cube_efficiencies, position_classes
from bgai.cube.met import MatchEquityTable
from bgai.cube.search import cube_analysis, roll_tree
from bgai.cube.state import CubeState, Owner
from bgai.engine.board import is_over
from bgai.formats.gnubgid import MatchState
from bgai.formats.mat import MAX_MATCH_LENGTH
from bgai.search.evaluator import Evaluator

__all__ = [  # the last five live lower in the package and stay importable from here
    "CubeDecider",
    "analyse_position",
    "analyse_positions",
    "cube_action",
    "cube_state",
    "why_no_double",
    "PositionCubeAnalysis",
    "answer_to_double",
    "cube_efficiencies",
    "doubles",
    "position_classes",
]


# --- cube state of the player on roll ---------------------------------------------------------


def cube_state(match_state: MatchState | None, *, beavers: bool | None = None) -> CubeState:
    """The cube as the player on roll (``match_state.on_roll``, row 1 of the board) sees it.

    gnubg numbers the players 0 and 1 and keeps the score and the cube owner by number; a
    :class:`CubeState` keeps them relative to the player on roll. ``None`` (a bare Position
    ID) is a money game with a centred cube under gnubg's defaults (Jacoby on, beavers
    allowed). ``beavers`` overrides the match state's flag: a Match ID has no bit for it.
    """
    if match_state is None:
        return CubeState.money(beavers=True if beavers is None else beavers)
    me = match_state.on_roll
    if match_state.cube_owner is None:
        owner = Owner.CENTRED
    else:
        owner = Owner.ME if match_state.cube_owner == me else Owner.OPPONENT
    if match_state.is_money:
        allow_beavers = match_state.beavers if beavers is None else beavers
        return CubeState.money(
            match_state.cube_value, owner, jacoby=match_state.jacoby, beavers=allow_beavers
        )
    length, score = match_state.match_length, match_state.score
    if length > MAX_MATCH_LENGTH:
        raise ValueError(f"a match is at most {MAX_MATCH_LENGTH} points (as the equity table), got {length}")
    if max(score) >= length:
        raise ValueError(f"the match is over: score {score[0]}-{score[1]} in a {length}-point match")
    return CubeState.match(
        length, score[me], score[1 - me], match_state.cube_value, owner, crawford=match_state.crawford
    )


def why_no_double(state: CubeState) -> str | None:
    """Why the player on roll may not double now, in one line; ``None`` when they may."""
    if state.can_double:
        return None
    if state.owner is Owner.OPPONENT:
        return "the opponent owns the cube: no doubling"
    if state.crawford:
        return "Crawford game: no doubling"
    if state.is_post_crawford and state.my_away == 1:
        return "post-Crawford: the leader (1-away) may not double"
    return f"dead cube: the player on roll needs {state.my_away} and the cube is already at {state.cube}"


# --- analysis ---------------------------------------------------------------------------------


def analyse_positions(
    evaluator: Evaluator,
    boards,
    states: CubeState | Sequence[CubeState],
    plies: int = 0,
    met: MatchEquityTable | None = None,
) -> PositionCubeAnalysis:
    """Cube analysis of many boards (player on roll in row 1), one :class:`CubeState` each or one for all.

    The lookahead (boards x rolls, the evaluator) runs once for all boards; each distinct cube
    state is then a cheap pass over it. ``plies`` 0 is gnubg's 0-ply cube analysis, 1 and 2
    its cubeful n-ply search (:mod:`bgai.cube.search`).
    """
    boards = boards if isinstance(boards, torch.Tensor) else torch.as_tensor(np.asarray(boards))
    if boards.ndim == 2:
        boards = boards[None]
    n = len(boards)
    states = (states,) * n if isinstance(states, CubeState) else tuple(states)
    if len(states) != n:
        raise ValueError(f"{n} boards but {len(states)} cube states")
    if is_over(boards).any():
        raise ValueError("the game is over: a side has borne off every checker")
    tree = roll_tree(evaluator, boards, plies, states=states, met=met)
    nd, dt, dp = np.empty(n), np.empty(n), np.empty(n)
    decision: list[str] = [""] * n
    probs = np.empty((n, 5))
    groups: dict[CubeState, list[int]] = {}
    for i, state in enumerate(states):
        groups.setdefault(state, []).append(i)
    for state, members in groups.items():
        rows = np.array(members)
        part = cube_analysis(tree.subset(rows), state, met)
        nd[rows], dt[rows], dp[rows], probs[rows] = part.nd, part.dt, part.dp, part.probs
        for row, label in zip(rows, part.decision, strict=True):
            decision[row] = label
    return PositionCubeAnalysis(
        nd=nd, dt=dt, dp=dp, decision=decision, probs=probs, states=states, plies=plies
    )


def analyse_position(
    evaluator: Evaluator,
    board,
    match_state: MatchState | CubeState | None = None,
    plies: int = 0,
    met: MatchEquityTable | None = None,
) -> PositionCubeAnalysis:
    """Cube analysis of one board (player on roll in row 1); ``match_state`` may be a ready CubeState."""
    state = match_state if isinstance(match_state, CubeState) else cube_state(match_state)
    return analyse_positions(evaluator, np.asarray(board)[None], state, plies, met)


class CubeDecider:
    """The cube sense of an evaluator: gnubg's cube analysis at ``plies``, for many games at once.

    Both questions see the position as the **doubler** sees it: the doubler on roll (row 1)
    before rolling, and each :class:`CubeState` from the doubler's side.

    * :meth:`cube_decisions`: does the player on roll double now? Where gnubg's proper action
      doubles (:func:`~bgai.cube.decision.doubles`: optional doubles too; not when too good, not
      into a beaver that costs more than it gains), and only where the state lets them.
    * :meth:`take_decisions`: the other side's answer to that double, "take", "pass" or
      "beaver" (:func:`~bgai.cube.decision.answer_to_double`).

    The bench, ``bgai play``, exported opponents and ``bgai cube`` all decide through
    :func:`analyse_positions`; this class is what a bot carries.
    """

    def __init__(self, evaluator: Evaluator, plies: int = 0, met: MatchEquityTable | None = None) -> None:
        self.evaluator = evaluator
        self.plies = int(plies)
        self.met = met
        self.name = f"cube({getattr(evaluator, 'name', 'evaluator')}@{self.plies}ply)"

    def analyse(self, boards, states: CubeState | Sequence[CubeState]) -> PositionCubeAnalysis:
        """The full analysis behind the decisions (equities, gnubg's wording, the taker's answer)."""
        return analyse_positions(self.evaluator, boards, states, self.plies, self.met)

    def cube_decisions(self, boards, cube_states: Sequence[CubeState]) -> np.ndarray:
        """``(N,)`` bool: True where the player on roll doubles (redoubles) now."""
        if not len(cube_states):
            return np.zeros(0, dtype=bool)
        decision = self.analyse(boards, cube_states).decision
        return np.array([s.can_double and doubles(d) for d, s in zip(decision, cube_states, strict=True)])

    def take_decisions(self, boards, cube_states: Sequence[CubeState]) -> list[str]:
        """The answer ("take", "pass" or "beaver") to a double by the player on roll of each board."""
        if not len(cube_states):
            return []
        return [answer or "take" for answer in self.analyse(boards, cube_states).take]


def cube_action(
    evaluator: Evaluator,
    board,
    match_state: MatchState | None = None,
    plies: int = 0,
    *,
    beavers: bool | None = None,
) -> str:
    """Whoever must act: ``"double"``/``"no double"``, or ``"take"``/``"pass"``/``"beaver"``.

    Before the roll (no double offered) the player on roll decides whether to double; gnubg's
    optional doubles count as doubles, "too good" and "No double, beaver" as not doubling.
    With ``match_state.double_offered`` the board is the doubler's (gnubg keeps the doubler on
    roll and the cube at its old value) and the answer is the taker's. Raises ``ValueError``
    saying why when the cube may not be turned.
    """
    state = cube_state(match_state, beavers=beavers)
    reason = why_no_double(state)
    if reason:
        raise ValueError(reason)
    decider = CubeDecider(evaluator, plies)
    boards = np.asarray(board)[None]
    if match_state is not None and match_state.double_offered:
        return decider.take_decisions(boards, [state])[0]
    return "double" if decider.cube_decisions(boards, [state])[0] else "no double"
