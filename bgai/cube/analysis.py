"""Cube decisions for positions: a board and a match state in, gnubg's cube analysis out.

The glue between the formats (a board with the player on roll in row 1 and a
:class:`~bgai.formats.MatchState` in gnubg's player numbering), the evaluators of
:mod:`bgai.search` and the probability-only cube model of :mod:`bgai.cube.decision`:

* :func:`cube_state`: the :class:`CubeState` of the player on roll (score, owner, Crawford,
  Jacoby, beavers), and :func:`why_no_double` when that player may not double;
* :func:`position_classes` / :func:`cube_efficiencies`: gnubg's position class of each board and
  the cube efficiency ``x`` :func:`~bgai.cube.decision.cube_efficiency` gives it;
* :func:`analyse_positions` / :func:`analyse_position`: no double / double-take / double-pass
  equities (normalised to the current cube, double/pass = +1) and gnubg's proper cube action,
  at 0-ply (Janowski on the evaluator's probabilities, exactly gnubg's 0-ply) or as a cubeful
  1- or 2-ply search (:mod:`bgai.cube.search`);
* :func:`cube_action`: what a bot does: ``"double"``/``"no double"`` before its roll, or
  ``"take"``/``"pass"``/``"beaver"`` when a double is offered to it.

Equities, probabilities and decisions are always the **player on roll**'s, i.e. the would-be
doubler's. While a double is pending gnubg keeps the doubler on roll (the board is stored
from the doubler's view, the cube still at its old value), so the same analysis answers the
taker's question.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from functools import cache, cached_property

import numpy as np
import torch

from bgai.cube import match
from bgai.cube.decision import CubeAnalysis, cube_efficiency
from bgai.cube.met import MatchEquityTable
from bgai.cube.money import cubeless_equity
from bgai.cube.state import CubeState, Owner
from bgai.engine.board import CHECKERS, is_race, pip_counts
from bgai.formats.gnubgid import MatchState
from bgai.model.probs import OUTPUTS
from bgai.search.evaluator import Evaluator

HOME_POINTS = 6
TWO_SIDED_CHECKERS = 6
"""gnubg's shipped two-sided bear-off database: up to 6 checkers on each side's 6 home points."""


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


# --- position class and cube efficiency -------------------------------------------------------


def position_classes(boards) -> list[str]:
    """gnubg's position class of each board ``(N, 2, 25)``, as :func:`cube_efficiency` names it.

    ``over`` (a side has no checkers left), ``contact`` (gnubg's crashed positions have the same
    efficiency and are not told apart), ``bearoff_ts`` (both sides home with at most 6
    checkers: gnubg's two-sided database), ``bearoff_os`` (both sides home: its one-sided
    database) and ``race``.
    """
    codes = _class_codes(torch.as_tensor(boards))
    return [_CLASS_NAMES[c] for c in codes.tolist()]


def cube_efficiencies(boards, plies: int = 0) -> np.ndarray:
    """``(N,)`` gnubg's cube efficiency ``x`` for each board, from the 0-1 or the 2+ ply set."""
    b = torch.as_tensor(boards)
    codes = _class_codes(b).numpy()
    pips = pip_counts(b)[..., 1].cpu().numpy()
    by_class = np.array([cube_efficiency(name, 0, plies=plies) for name in _CLASS_NAMES])
    x = by_class[codes]
    race = codes == _CLASS_NAMES.index("race")
    x[race] = _race_efficiency(plies >= 2)[np.minimum(pips[race], _MAX_PIPS)]
    return x


_CLASS_NAMES = ("over", "contact", "race", "bearoff_os", "bearoff_ts")
_MAX_PIPS = 25 * CHECKERS


@cache
def _race_efficiency(deep: bool) -> np.ndarray:
    """Race efficiency by pip count of the player on roll, tabulated from :func:`cube_efficiency`."""
    return np.array([cube_efficiency("race", p, plies=2 if deep else 0) for p in range(_MAX_PIPS + 1)])


def _class_codes(boards: torch.Tensor) -> torch.Tensor:
    """Index into :data:`_CLASS_NAMES` for each board (on the CPU)."""
    b = boards.cpu().reshape(-1, 2, 25).long()
    counts = b.sum(-1)
    home = (b[..., HOME_POINTS:] == 0).all(-1).all(-1)
    small = (counts <= TWO_SIDED_CHECKERS).all(-1)
    codes = torch.full((len(b),), _CLASS_NAMES.index("race"))
    codes[home] = _CLASS_NAMES.index("bearoff_os")
    codes[home & small] = _CLASS_NAMES.index("bearoff_ts")
    codes[~is_race(b)] = _CLASS_NAMES.index("contact")
    codes[(counts == 0).any(-1)] = _CLASS_NAMES.index("over")
    return codes


# --- analysis ---------------------------------------------------------------------------------


@dataclass(frozen=True)
class PositionCubeAnalysis(CubeAnalysis):
    """A :class:`CubeAnalysis` of boards, with what it was computed from.

    ``probs`` are the cubeless probabilities of the player on roll at ``plies`` (gnubg prints
    them above its cube analysis), ``states`` each position's :class:`CubeState`.
    """

    probs: np.ndarray
    states: tuple[CubeState, ...]
    plies: int

    @cached_property
    def take(self) -> list[str | None]:
        """The taker's answer to a double ("take", "pass" or "beaver"); None where none is possible."""
        return [
            answer_to_double(dt, dp, state) if state.can_double else None
            for dt, dp, state in zip(self.dt, self.dp, self.states, strict=True)
        ]

    def record(self, i: int) -> dict:
        """Position ``i`` as plain numbers (JSON-ready; ``None`` where the cube is not available).

        ``cubeless_equity`` is gnubg's: money equity, or in match play the cubeless match
        winning chance as normalised equity; ``cubeless_money_equity`` is always the money one.
        """

        def number(value) -> float | None:
            return None if np.isnan(value) else float(value)

        state = self.states[i]
        money_equity = float(cubeless_equity(self.probs[i])[0])
        if state.is_money:
            equity = money_equity
        else:  # gnubg prints the cubeless MWC as normalised equity in match play
            equity = float(match.mwc_to_equity(match.cubeless_mwc(self.probs[i], state), state)[0])
        return {
            "plies": self.plies,
            "probs": dict(zip(OUTPUTS, (float(p) for p in self.probs[i]), strict=True)),
            "cubeless_equity": equity,
            "cubeless_money_equity": money_equity,
            "nd": number(self.nd[i]),
            "dt": number(self.dt[i]),
            "dp": number(self.dp[i]),
            "decision": self.decision[i],
            "take": self.take[i],
        }


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
    from bgai.cube.search import cube_analysis, roll_tree

    boards = boards if isinstance(boards, torch.Tensor) else torch.as_tensor(np.asarray(boards))
    if boards.ndim == 2:
        boards = boards[None]
    n = len(boards)
    states = (states,) * n if isinstance(states, CubeState) else tuple(states)
    if len(states) != n:
        raise ValueError(f"{n} boards but {len(states)} cube states")
    finished = (boards.sum(-1) == 0).any(-1)
    if finished.any():
        raise ValueError("the game is over: a side has borne off every checker")
    tree = roll_tree(evaluator, boards, plies)
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
    analysis = analyse_position(evaluator, board, state, plies)
    if match_state is not None and match_state.double_offered:
        return analysis.take[0]
    return "double" if doubles(analysis.decision[0]) else "no double"


def doubles(decision: str) -> bool:
    """Does gnubg's proper cube action (its wording) turn the cube?"""
    return decision.startswith(("Double", "Redouble", "Optional"))


def answer_to_double(dt: float, dp: float, state: CubeState) -> str:
    """The taker's answer from the doubler's equities (as :func:`bgai.cube.take_decision`)."""
    if dt >= dp:
        return "pass"
    if state.is_money and state.beavers and -2.0 <= dt <= 0.0:
        return "beaver"
    return "take"
