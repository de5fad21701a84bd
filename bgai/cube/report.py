"""Cube analysis of positions given as IDs, as plain records: what ``bgai cube`` prints and
``bgai serve`` answers.

* :func:`read_cube_position`: board, match state and :class:`CubeState` of a GNUbgID, XGID or
  bare Position ID, or a one-line ``ValueError`` saying why it has no cube decision;
* :func:`cube_records`: one batched analysis of many such positions, a JSON-ready record each;
* :func:`describe_cube`: the cube situation in words.

Every equity and decision is the player on roll's (the would-be doubler's), as in
:mod:`bgai.cube.analysis`.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from bgai.cube.analysis import analyse_positions, cube_state, why_no_double
from bgai.cube.state import CubeState, Owner
from bgai.engine.board import require_game_on
from bgai.formats import MatchState, read_position
from bgai.search.evaluator import Evaluator

CubePosition = tuple[np.ndarray, MatchState | None, CubeState]
"""(board with the player on roll in row 1, match state or None for a bare Position ID, cube state)."""


def read_cube_position(text: str, no_beavers: bool = False) -> CubePosition:
    """The position of one ID, ready for :func:`cube_records`.

    Beavers: off with ``no_beavers``; otherwise an XGID's own flag, and gnubg's default
    (allowed) for Match IDs, which cannot say. Raises ``ValueError`` when the game is over, the
    dice are already rolled, or the player on roll may not double (owned cube, Crawford, dead cube).
    """
    board, match_state = read_position(text)
    require_game_on(board)
    if match_state is not None and match_state.dice is not None:
        d1, d2 = match_state.dice
        raise ValueError(f"the player on roll has rolled {d1}{d2}: cube decisions come before the roll")
    is_xgid = text.strip().upper().startswith("XGID=") or text.count(":") == 9
    beavers = False if no_beavers else (None if is_xgid else True)
    state = cube_state(match_state, beavers=beavers)
    reason = why_no_double(state)
    if reason:
        raise ValueError(reason)
    return board, match_state, state


def cube_records(evaluator: Evaluator, positions: Sequence[CubePosition], plies: int) -> list[dict]:
    """One batched analysis of ``positions`` at ``plies``: a record each.

    A record is :meth:`~bgai.cube.analysis.PositionCubeAnalysis.record` (probabilities,
    cubeless equities, normalised ND / DT / DP, gnubg's proper action, the taker's answer) with
    ``cube`` (:func:`describe_cube`); ``take`` is ``None`` unless the ID has a double on offer.
    """
    if not positions:
        return []
    boards = np.stack([board for board, _, _ in positions])
    analysis = analyse_positions(evaluator, boards, [state for _, _, state in positions], plies)
    records = []
    for i, (_, match_state, state) in enumerate(positions):
        record = {"cube": describe_cube(state), **analysis.record(i)}
        if not (match_state is not None and match_state.double_offered):
            record["take"] = None
        records.append(record)
    return records


def describe_cube(state: CubeState) -> str:
    """The cube situation in words, from the player on roll's side."""
    if state.owner is Owner.CENTRED:
        cube = "centred cube"
    elif state.owner is Owner.ME:
        cube = f"player on roll owns the {state.cube}-cube"
    else:
        cube = f"opponent owns the {state.cube}-cube"
    if state.is_money:
        rules = ", ".join(
            f"{rule} {'on' if flag else 'off'}"
            for rule, flag in (("Jacoby", state.jacoby), ("beavers", state.beavers))
        )
        return f"money game, {cube}, {rules}"
    score = f"{state.match_length}-point match, {state.my_away}-away vs {state.opp_away}-away"
    phase = ", Crawford game" if state.crawford else (", post-Crawford" if state.is_post_crawford else "")
    return f"{score}{phase}, {cube}"
