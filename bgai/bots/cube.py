"""Cube sense: how a player answers the doubling cube, batched like its moves.

A :class:`CubePlayer` answers two questions for many games at once. Both see the position
as the **doubler** sees it: the doubler on roll (row 1) before rolling, and the cube state
from the doubler's side (as :func:`bgai.cube.take_decision` does):

* ``cube_decisions(boards, cube_states) -> bool (N,)``: does the player on roll double now?
  Asked only where the cube state lets the player on roll double.
* ``take_decisions(boards, cube_states) -> ["take" | "pass" | "beaver"] * N``: the opponent's
  answer to that double. "beaver" only where the state allows beavers.

Which answers a player gives (:func:`cube_sense`):

* a player that has both methods itself answers for itself (an exported opponent's player
  decides at its own plies, with its noise);
* a player built on an :class:`~bgai.search.Evaluator` (``SearchPlayer``) and gnubg's own
  players (``GnubgPlayer``, through gnubg's 0-ply net) get a 0-ply
  :class:`~bgai.cube.analysis.CubeDecider`: the evaluator's probabilities and the cube
  module's gnubg-exact 0-ply analysis with gnubg's cube efficiencies. The cube decision is
  0-ply even for a player that moves at 2-ply. ``gnubg_nn`` has a cube call of its own
  (``evaluate_cube_decision``), but it raises "Not implemented for money" and is Heled's
  older match code with process-wide score state, so gnubg players use its probabilities and
  bgai's cube module instead (which is what gnubg itself does at 0-ply);
* pubeval, random and any other player have no cube sense: :class:`NoCube` never doubles
  and always takes (never passes, never beavers).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol, runtime_checkable

import numpy as np
import torch

from bgai.bots.players import evaluator_of
from bgai.cube import CubeState
from bgai.cube.analysis import CubeDecider

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


def cube_sense(player) -> CubePlayer:
    """The cube answers of ``player`` (see the module docstring for who gets which)."""
    if isinstance(player, CubePlayer):
        return player
    try:
        evaluator, _, _ = evaluator_of(player)
    except ValueError:  # it evaluates no positions
        return NoCube()
    return CubeDecider(evaluator, 0)
