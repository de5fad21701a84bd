"""The one bot people meet: its moves, cube actions, resignation answers and hints' judgement.

A :class:`Bot` is what ``bgai play`` (and any front end) plays against and asks: an exported
opponent (:class:`~bgai.opponent.Opponent` is a Bot read from ``bgai export``'s folder) or any
player of :func:`bgai.load_player` (:meth:`Bot.of_player`). It is made of

* ``player``: the batched :class:`~bgai.bots.Player` that chooses its moves (and plays bench
  games and grading with the same judgement);
* ``evaluator`` at ``plies`` with ``move_filter``: its judgement of positions, behind
  :meth:`probabilities`, resignation answers and the hints a front end gives; ``None`` for a
  bot that evaluates nothing (random, pubeval): it gives no hints;
* ``cube``: its cube sense (:class:`~bgai.cube.analysis.CubeDecider` or the player's own);
  ``None``: it has none, and a session with it plays without the cube.

Whose view: every method takes a position as text and reads it with
:func:`bgai.formats.read_position`, so the board is seen from the player on roll. A GNUbgID or
XGID carries the match state (cube, score, Jacoby, a double or resignation on offer); a bare
Position ID is a money game with a centred cube under the bot's Jacoby and beaver defaults.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import torch

from bgai.bots.cube import NoCube, cube_sense
from bgai.bots.players import Player, evaluator_of
from bgai.cube.analysis import CubeDecider, cube_state, why_no_double
from bgai.cube.match import cubeless_mwc
from bgai.cube.met import kazaross_xg2
from bgai.cube.money import cubeless_equity
from bgai.engine.board import most_points_left, require_game_on, swap_sides
from bgai.formats import MatchState, read_position
from bgai.model.probs import invert
from bgai.search.evaluator import Evaluator
from bgai.search.ply import DEFAULT_FILTER, MoveFilter, evaluate_position

RESIGN_LEVELS = (1, 2, 3)
"""A resignation offers a single game (1), a gammon (2) or a backgammon (3), times the cube."""


class Bot:
    """A bot to play against: ``choose_move``, ``cube_action``, ``resign_decision``, ``probabilities``."""

    def __init__(
        self,
        player: Player,
        *,
        evaluator: Evaluator | None = None,
        plies: int = 0,
        move_filter: MoveFilter = DEFAULT_FILTER,
        cube: CubeDecider | None = None,
        name: str | None = None,
        jacoby: bool = True,
        beavers: bool = True,
    ) -> None:
        self.player = player
        self.name: str = name or str(getattr(player, "name", None) or "bgai")
        self.evaluator = evaluator
        """Its judgement (hints, resignations, :meth:`probabilities`); None: it evaluates nothing."""
        self.plies = int(plies)
        self.move_filter = move_filter
        self.cube = cube
        """Its cube sense (``cube_decisions`` / ``take_decisions``); None: it plays without the cube."""
        self.jacoby = bool(jacoby)
        self.beavers = bool(beavers)

    @classmethod
    def of_player(cls, player: Player, name: str | None = None) -> Bot:
        """A bgai player as a bot: its evaluator's judgement (:func:`~bgai.bots.evaluator_of`) and
        its cube sense (:func:`~bgai.bots.cube.cube_sense`); random and pubeval get neither."""
        cube = cube_sense(player)
        cube = None if isinstance(cube, NoCube) else cube
        try:
            evaluator, plies, move_filter = evaluator_of(player)
        except ValueError:  # random, pubeval: no judgement to give
            return cls(player, cube=cube, name=name)
        return cls(player, evaluator=evaluator, plies=plies, move_filter=move_filter, cube=cube, name=name)

    def __repr__(self) -> str:
        return f"<{type(self).__name__} {self.name} ({self.plies}-ply)>"

    # --- checker play ---------------------------------------------------------------------

    def choose_move(self, position_id: str, dice: str | Sequence[int]) -> str:
        """The move it plays, written exactly as :func:`bgai.legal_moves` writes it ("" if none)."""
        return self.player.choose_move(position_id, dice)

    def probabilities(self, position_id: str) -> list[float]:
        """Its five probabilities for the player on roll before the roll, at its plies (no noise)."""
        board, _ = _live_board(position_id)
        return self._probs(board).tolist()

    def _probs(self, board: np.ndarray) -> np.ndarray:
        if self.evaluator is None:
            raise ValueError(f"{self.name} evaluates no positions")
        boards = torch.as_tensor(board, dtype=torch.int8)[None]
        return evaluate_position(self.evaluator, boards, self.plies)[0].double().cpu().numpy()

    # --- the cube -------------------------------------------------------------------------

    def cube_action(self, position_id: str) -> str:
        """Its cube action in this position (best given as a GNUbgID or XGID, which carry the cube).

        * A double on offer (the ID says so): it is the one doubled and answers ``"take"``,
          ``"pass"`` or ``"beaver"`` (money play with beavers allowed).
        * Otherwise it is the player on roll, before rolling: ``"double"`` or ``"no double"``;
          ``"no double"`` also whenever it may not double (cube owned by the other side, the
          Crawford game, a dead cube, dice already rolled).

        Its :attr:`cube` decides; a bot without cube sense never doubles and always takes.
        """
        board, match_state = _live_board(position_id)
        if match_state is None:  # a bare Position ID: a money game under the bot's defaults
            match_state = MatchState(jacoby=self.jacoby, beavers=self.beavers)
        beavers = None if _is_xgid(position_id) else self.beavers  # a Match ID has no beaver bit
        state = cube_state(match_state, beavers=beavers)
        reason = why_no_double(state)
        boards = torch.as_tensor(board, dtype=torch.int8)[None]
        if match_state.double_offered:
            if reason:
                raise ValueError(f"{position_id.strip()!r}: a double is on offer, but {reason}")
            return "take" if self.cube is None else self.cube.take_decisions(boards, [state])[0]
        if reason or match_state.dice or self.cube is None:
            return "no double"
        return "double" if self.cube.cube_decisions(boards, [state])[0] else "no double"

    # --- resignations ---------------------------------------------------------------------

    def resign_decision(self, position_id: str, points: int) -> bool:
        """Accept a resignation of ``points`` (1 single, 2 gammon, 3 backgammon, times the cube)?

        The resigning side is the player on roll, unless the ID (a GNUbgID or XGID) has a
        resignation on offer, in which case the side to decide (its ``turn``) is this bot. It
        accepts when what it is offered is worth at least playing on, by its own cubeless
        evaluation at its plies: in money play the points against its expected points (with
        Jacoby and a centred cube a gammon counts as a single game), in a match the match
        winning chances after taking them against its cubeless match winning chances. A bot
        that evaluates nothing accepts only the most the board still allows it to win.
        """
        if points not in RESIGN_LEVELS:
            raise ValueError(f"a resignation offers 1, 2 or 3 points, got {points!r}")
        board, ms = _live_board(position_id)
        on_roll_resigns = ms is None or not ms.resign or ms.turn != ms.on_roll
        mine = swap_sides(board) if on_roll_resigns else board  # this bot in row 1
        ms = ms if ms is not None else MatchState()  # a bare Position ID: money, gammons count
        blanked = ms.is_money and ms.jacoby and ms.cube_owner is None
        level = 1 if blanked else points
        if self.evaluator is None:
            return level >= (1 if blanked else int(most_points_left(mine)))
        probs = self._probs(board)
        probs = invert(probs) if on_roll_resigns else probs
        state = cube_state(ms, beavers=False)
        state = state.swapped() if on_roll_resigns else state
        if state.is_money:
            expected = float(cubeless_equity(probs, gammons=not blanked)[0])
            return level >= expected - 1e-6  # float32 sums: a tie accepts
        met = kazaross_xg2()
        offered = met.outcome_mwc(state, ms.cube_value * level)
        return offered >= float(cubeless_mwc(probs, state, met)[0]) - 1e-6


def _live_board(position_id: str) -> tuple[np.ndarray, MatchState | None]:
    if not isinstance(position_id, str):
        raise ValueError(f"a position is a string (Position ID, GNUbgID or XGID), got {position_id!r}")
    board, ms = read_position(position_id)
    require_game_on(board, f" in {position_id.strip()[:40]!r}")
    return board, ms


def _is_xgid(text: str) -> bool:
    body = text.strip()
    return body.upper().startswith("XGID=") or body.count(":") == 9
