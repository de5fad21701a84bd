"""The analysis API of ``bgai serve``, for programs: a position in, the bot's answer out.

Positions are anything :func:`bgai.formats.read_position` reads (gnubg Position ID, GNUbgID
``PositionID:MatchID``, XGID), seen from the player on roll. Each answer comes from one of the
opponents the server offers (``opponent``, default :attr:`Opponents.default`) and, where asked,
at ``plies`` instead of its own lookahead. The same library calls answer as ``bgai hint`` and
``bgai cube`` with ``--player <that opponent's folder>``, so the numbers are the same.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence

import numpy as np
import torch

from bgai.cube.report import cube_records, read_cube_position
from bgai.engine.board import swap_sides
from bgai.engine.steps import move_steps
from bgai.formats import MatchState, encode_gnubg_id, encode_position_id, format_move, read_position
from bgai.model.probs import cubeless_equity
from bgai.moves import apply_move, hint_moves, position_and_roll
from bgai.search.ply import evaluate_position
from bgai.serve.state import PROBS, Opponents

MAX_PLIES = 2
"""The deepest lookahead a request may ask for (2-ply takes ~50 ms a decision on one core)."""


def _evaluator(bot, task: str):
    if bot.evaluator is None:
        raise ValueError(f"{task} needs an opponent that evaluates positions, not {bot.name}")
    return bot.evaluator


def _plies(bot, plies: int | None) -> int:
    plies = bot.plies if plies is None else int(plies)
    if not 0 <= plies <= MAX_PLIES:
        raise ValueError(f"plies must be 0-{MAX_PLIES}, got {plies}")
    return plies


def _live(position: str):
    """Board and match state of a position whose game is still on."""
    board, match_state = read_position(position)
    for row, who in ((1, "player on roll"), (0, "opponent")):
        if board[row].sum() == 0:
            raise ValueError(f"the game is over: the {who} has borne off every checker")
    return board, match_state


def read_move_request(position: str, dice=None) -> tuple[np.ndarray, tuple[int, int]]:
    """The board (player on roll in row 1) and roll of a move request; ``ValueError`` if malformed."""
    return position_and_roll(position, dice)


def choose_moves(
    bot, boards: Sequence[np.ndarray], rolls: Sequence[tuple[int, int]]
) -> list[tuple[str, str]]:
    """The moves ``bot`` plays in many positions at once: one call of its batched player.

    Each answer is ``(move, Position ID after it)``, the move written as
    :func:`bgai.legal_moves` writes it (``""`` and the position passed over for a dance),
    exactly what ``bot.choose_move`` answers one position at a time.
    """
    boards = np.stack(boards).astype(np.int8)
    dice = np.array(rolls)
    chosen = bot.player.choose(torch.as_tensor(boards), torch.as_tensor(dice)).cpu().numpy()
    # the path the move generator lists for each result: the one legal_moves writes the move by
    paths = move_steps(boards, dice, chosen)
    return [
        (format_move(board, steps), encode_position_id(swap_sides(after)))
        for board, after, steps in zip(boards, chosen, paths, strict=True)
    ]


def best_move(
    opponents: Opponents, position: str, dice=None, opponent: str | None = None, plies: int | None = None
) -> dict:
    """The move the opponent plays (its own level, noise included); with ``plies``, the best
    move of ``bgai hint`` at that lookahead. ``move`` is ``""`` when no move is legal.

    The server answers the first kind in batches (:func:`choose_moves`); this is the one-position form.
    """
    bot = opponents.bot(opponent)
    board, roll = read_move_request(position, dice)
    if plies is None:
        [(move, after)] = choose_moves(bot, [board], [roll])
        used = bot.plies
    else:
        used = _plies(bot, plies)
        ranked = hint_moves(_evaluator(bot, "a move at a chosen ply"), board, roll, used, bot.move_filter)
        move = ranked[0].move if ranked else ""
        after = apply_move(position, roll, move)
    return move_answer(opponents, opponent, move, after, roll, used)


def move_answer(opponents: Opponents, opponent: str | None, move: str, after: str, roll, plies: int) -> dict:
    return {
        "move": move,
        "position_id": after,
        "dice": list(roll),
        "opponent": opponents.default if opponent is None else opponent,
        "plies": plies,
    }


def hint(
    opponents: Opponents,
    position: str,
    dice=None,
    opponent: str | None = None,
    plies: int | None = None,
    limit: int | None = None,
) -> dict:
    """Every legal move best first with probabilities and cubeless equity, as ``bgai hint --json``."""
    bot = opponents.bot(opponent)
    board, roll = position_and_roll(position, dice)
    used = _plies(bot, plies)
    moves = hint_moves(_evaluator(bot, "a hint"), board, roll, used, bot.move_filter)
    rows = [
        {
            "move": m.move,
            "position_id": m.position_id,
            "ply": m.ply,
            "equity": m.equity,
            "probs": dict(zip(PROBS, m.probs, strict=True)),
        }
        for m in moves[:limit]
    ]
    return {
        "dice": list(roll),
        "opponent": opponents.default if opponent is None else opponent,
        "plies": used,
        "moves": rows,
    }


def evaluate(
    opponents: Opponents, position: str, opponent: str | None = None, plies: int | None = None
) -> dict:
    """The five probabilities and cubeless equity of the player on roll before the roll, as ``bgai hint``
    without dice."""
    bot = opponents.bot(opponent)
    board, _ = _live(position)
    used = _plies(bot, plies)
    probs = evaluate_position(_evaluator(bot, "an evaluation"), torch.as_tensor(board)[None], used)[
        0
    ].tolist()
    return {
        "opponent": opponents.default if opponent is None else opponent,
        "plies": used,
        "probs": dict(zip(PROBS, probs, strict=True)),
        "equity": float(cubeless_equity(torch.tensor(probs))),
    }


def cube(
    opponents: Opponents,
    position: str,
    opponent: str | None = None,
    plies: int | None = None,
    beavers: bool = True,
) -> dict:
    """The cube analysis of ``bgai cube --json`` (normalised ND / DT / DP, the proper action and,
    with a double on offer, the taker's answer), and ``action``: what this opponent does
    there itself (``double`` / ``no double``, or ``take`` / ``pass`` / ``beaver`` when doubled)."""
    bot = opponents.bot(opponent)
    parsed = read_cube_position(position, no_beavers=not beavers)
    used = _plies(bot, plies)
    [record] = cube_records(_evaluator(bot, "a cube decision"), [parsed], used)
    record["action"] = bot.cube_action(
        position
    )  # the ID as given: a bare Position ID gets the bot's defaults
    record["opponent"] = opponents.default if opponent is None else opponent
    return record


def resign(opponents: Opponents, position: str, points: int, opponent: str | None = None) -> dict:
    """Does the opponent accept when the player on roll offers to resign ``points`` (1 a single
    game, 2 a gammon, 3 a backgammon, times the cube)? It weighs them against playing on."""
    if points not in (1, 2, 3):
        raise ValueError(f"a resignation offers 1, 2 or 3 points (single, gammon, backgammon), got {points}")
    bot = opponents.bot(opponent)
    board, match_state = _live(position)
    match_state = match_state or MatchState()
    if match_state.double_offered:
        raise ValueError("a double is on offer: answer it before resigning")
    offer = dataclasses.replace(match_state, resign=points, turn=1 - match_state.on_roll)
    accept = bool(bot.resign_decision(encode_gnubg_id(board, offer), points))
    return {
        "accept": accept,
        "points": points * match_state.cube_value,
        "opponent": opponents.default if opponent is None else opponent,
    }
