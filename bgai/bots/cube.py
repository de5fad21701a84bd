"""Cube sense: how a player answers the doubling cube, batched like its moves.

A :class:`CubePlayer` answers two questions for many games at once. Both see the position
as the **doubler** sees it: the doubler on roll (row 1) before rolling, and the cube state
from the doubler's side (as :func:`bgai.cube.take_decision` does):

* ``cube_decisions(boards, cube_states) -> bool (N,)``: does the player on roll double now?
  Asked only where the cube state lets the player on roll double.
* ``take_decisions(boards, cube_states) -> ["take" | "pass" | "beaver"] * N``: the opponent's
  answer to that double. "beaver" only where the state allows beavers.

Which answers a player gives (:func:`cube_sense`):

* a player that has both methods itself answers for itself;
* a player built on an :class:`~bgai.search.Evaluator` (``SearchPlayer``) and gnubg's own
  players (``GnubgPlayer``, through gnubg's 0-ply net) get :class:`JanowskiCube`: the
  evaluator's 0-ply probabilities and the cube module's gnubg-exact 0-ply analysis with
  gnubg's default cube efficiency by position class (:func:`gnubg_cube_efficiency`). The
  cube decision is 0-ply even for a player that moves at 2-ply. ``gnubg_nn`` has a cube call
  of its own (``evaluate_cube_decision``), but it raises "Not implemented for money" and is
  Heled's older match code with process-wide score state, so gnubg players use its
  probabilities and bgai's cube module instead (which is what gnubg itself does at 0-ply);
* pubeval, random and any other player have no cube sense: :class:`NoCube` never doubles
  and always takes (never passes, never beavers).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol, runtime_checkable

import numpy as np
import torch

from bgai.cube import CubeState, analyse_cube, cube_efficiency, take_decision
from bgai.engine.board import CHECKERS, is_race, pip_counts
from bgai.search.evaluator import Evaluator

ANSWERS = ("take", "pass", "beaver")


@runtime_checkable
class CubePlayer(Protocol):
    """Answers cube questions for many games at once (boards and states: doubler's view)."""

    def cube_decisions(self, boards: torch.Tensor, cube_states: Sequence[CubeState]) -> np.ndarray:
        """``(N,)`` bool: True where the player on roll doubles (redoubles) now."""
        ...

    def take_decisions(self, boards: torch.Tensor, cube_states: Sequence[CubeState]) -> list[str]:
        """The taker's answer to a double by the player on roll: "take", "pass" or "beaver"."""
        ...


class NoCube:
    """No cube sense (pubeval, random): never doubles, always takes."""

    name = "no-cube"

    def cube_decisions(self, boards: torch.Tensor, cube_states: Sequence[CubeState]) -> np.ndarray:
        return np.zeros(len(cube_states), dtype=bool)

    def take_decisions(self, boards: torch.Tensor, cube_states: Sequence[CubeState]) -> list[str]:
        return ["take"] * len(cube_states)


def gnubg_cube_efficiency(boards, checkers: int = CHECKERS) -> np.ndarray:
    """gnubg's default 0-ply cube efficiency ``x`` of each board (player on roll in row 1).

    Contact (and crashed) 0.76; a race ``0.60 + 0.0025 * pips of the player on roll``,
    clamped to [0.60, 0.80]; bear-offs (both sides home: gnubg's one- and two-sided database
    classes) and hypergammon 0.60; a finished game 0. gnubg uses exact cubeful database
    equities in two-sided bear-offs for money; we use its match-play fallback 0.60 there.
    """
    b = torch.as_tensor(boards)
    count = b.sum(-1, dtype=torch.int16)  # (N, 2)
    over = (count == 0).any(-1).cpu().numpy()
    race = is_race(b).cpu().numpy()
    home = (b[..., 6:].sum(-1) == 0).all(-1).cpu().numpy()  # nothing outside either home board
    pips = pip_counts(b)[..., 1].cpu().numpy()
    if checkers == 3:
        x = np.full(len(b), cube_efficiency("hypergammon"))
    else:
        x = np.full(len(b), cube_efficiency("contact"))
        for i in np.flatnonzero(race):
            x[i] = cube_efficiency("bearoff_os") if home[i] else cube_efficiency("race", int(pips[i]))
    x[over] = cube_efficiency("over")
    return x


def _groups(cube_states: Sequence[CubeState]) -> dict[CubeState, np.ndarray]:
    """Indices of the positions sharing each cube state (the cube module takes one state a call)."""
    index: dict[CubeState, list[int]] = {}
    for i, state in enumerate(cube_states):
        index.setdefault(state, []).append(i)
    return {state: np.asarray(rows) for state, rows in index.items()}


class JanowskiCube:
    """Cube answers from an evaluator's 0-ply probabilities and gnubg's 0-ply cube analysis.

    Doubles where gnubg would recommend it ("Double, ...", "Redouble, ...", "Optional ...";
    not when too good, not into a beaver that costs more than it gains); takes, passes and
    beavers as :func:`bgai.cube.take_decision` says.
    """

    def __init__(self, evaluator: Evaluator, checkers: int | None = None) -> None:
        self.evaluator = evaluator
        self.checkers = int(checkers if checkers is not None else getattr(evaluator, "checkers", CHECKERS))
        self.name = f"janowski({getattr(evaluator, 'name', 'evaluator')})"

    def _probs_and_x(self, boards: torch.Tensor) -> tuple[np.ndarray, np.ndarray]:
        boards = torch.as_tensor(boards)
        probs = self.evaluator.evaluate(boards).detach().cpu().double().numpy()
        return probs, gnubg_cube_efficiency(boards, self.checkers)

    def cube_decisions(self, boards: torch.Tensor, cube_states: Sequence[CubeState]) -> np.ndarray:
        double = np.zeros(len(cube_states), dtype=bool)
        if not len(cube_states):
            return double
        probs, x = self._probs_and_x(boards)
        for state, rows in _groups(cube_states).items():
            if not state.can_double:
                continue
            labels = analyse_cube(probs[rows], state, x[rows]).decision
            double[rows] = [label.startswith(("Double", "Redouble", "Optional")) for label in labels]
        return double

    def take_decisions(self, boards: torch.Tensor, cube_states: Sequence[CubeState]) -> list[str]:
        answers = ["take"] * len(cube_states)
        if not len(cube_states):
            return answers
        probs, x = self._probs_and_x(boards)
        for state, rows in _groups(cube_states).items():
            for i, answer in zip(rows, take_decision(probs[rows], state, x[rows]), strict=True):
                answers[i] = answer
        return answers


def cube_sense(player) -> CubePlayer:
    """The cube answers of ``player`` (see the module docstring for who gets which)."""
    if isinstance(player, CubePlayer):
        return player
    from bgai.bots.specs import evaluator_of

    try:
        evaluator, _, _ = evaluator_of(player)
    except ValueError:  # it evaluates no positions
        return NoCube()
    return JanowskiCube(evaluator)
