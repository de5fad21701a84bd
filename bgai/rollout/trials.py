"""The batched trial loop: every trial of every rolled-out position advances one ply together.

A block of trials starts from ``R`` root positions (player on roll in row 1), ``B`` trials
each. Each ply, the live trials are, in this order:

1. truncated (at ``truncate`` plies: the evaluator's 0-ply value is the result);
2. ended exactly when both sides are in the two-sided bear-off table (cubeless only);
3. offered the cube (cubeful money play, from the second ply on: gnubg's 0-ply cube
   decision for the doubler and the taker; a pass ends the cubeful result, the game goes on
   for the cubeless one);
4. rolled (:mod:`bgai.rollout.dice`) and moved: one ``expand`` and one evaluator call for all
   of them (in chunks), at 0-ply, or at n-ply through :func:`bgai.search.choose_moves`;
5. ended when the move bore off the last checker.

**Variance reduction** (Dahl's, as gnubg's): each roll's luck, the value of the best move
for the roll thrown minus its average over the 21 rolls (0-ply values, whatever ply moves the
checkers), is summed per trial and subtracted from the result. Its mean is zero whatever the
evaluator, so the estimate stays unbiased; in cubeful play the same is done with the 0-ply
cubeful equity at the trial's cube.

Every value is kept from the root player's view (the player on roll at the root): the
channels are the five cubeless probabilities, the cubeless equity, and (cubeful) the cubeful
money equity in units of the root's cube.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import torch

from bgai.bearoff.evaluator import is_bearoff
from bgai.bearoff.two_sided import TWO_SIDED_CHECKERS
from bgai.cube import money
from bgai.cube.efficiency import cube_efficiencies
from bgai.cube.state import Owner
from bgai.engine.board import game_value, swap_sides
from bgai.model.probs import cubeless_equity, invert
from bgai.rollout.dice import roll_index, trial_dice
from bgai.search.evaluator import Evaluator, pruner_of, terminal_probs
from bgai.search.ply import ROLL_WEIGHTS, MoveFilter, choose_moves, roll_moves

PROBS, EQUITY, CUBEFUL = slice(0, 5), 5, 6
MAX_PLIES = 2000  # a trial still running then is truncated (no real game lasts that long)

# Owner codes of a trial's cube, relative to the player on roll at that ply.
CENTRED, MOVER, TAKER = 0, 1, 2
_OWNERS = {CENTRED: Owner.CENTRED, MOVER: Owner.ME, TAKER: Owner.OPPONENT}

CHUNK = {"cpu": (64, 4096), "cuda": (8192, 65536)}
"""Live trials moved in one go, by device: (with variance reduction (x 21 rolls), without)."""


@dataclass(frozen=True)
class CubeStart:
    """The cube of each root at the start of its trials (money play, from the root's view).

    ``value`` in units of the cube the equities are normalised to (2 for a double/take branch),
    ``owner`` a code above, ``jacoby`` whether gammons count with the cube still centred.
    """

    value: np.ndarray
    owner: np.ndarray
    jacoby: bool = True


@dataclass(frozen=True)
class Play:
    """How the trials play: checker play at ``plies``, where they stop, what they subtract."""

    plies: int
    move_filter: MoveFilter
    truncate: int | None
    variance_reduction: bool
    quasi_random: bool
    bearoff: bool
    seed: int


def play_block(
    evaluator: Evaluator,
    roots: torch.Tensor,
    trials: np.ndarray,
    play: Play,
    cube: CubeStart | None = None,
    exact=None,
) -> np.ndarray:
    """``(R, B, C)`` estimates of trials ``trials`` (B) of each root ``(R, 2, 25)``.

    ``exact``: a :class:`~bgai.bearoff.BearoffEvaluator` for step 2 (``None``: no bear-off stop).
    """
    device = roots.device
    n_roots, n_trials = len(roots), len(trials)
    m = n_roots * n_trials
    channels = 7 if cube is not None else 6
    board = roots.repeat_interleave(n_trials, 0).clone()
    trial = np.tile(np.asarray(trials, dtype=np.int64), n_roots)
    result = np.zeros((m, channels))
    luck = np.zeros((m, channels))
    live = np.arange(m)
    if cube is not None:
        value = np.repeat(np.asarray(cube.value, dtype=np.float64), n_trials)
        owner = np.repeat(np.asarray(cube.owner, dtype=np.int64), n_trials)
        cube_live = np.ones(m, dtype=bool)
    full = _without_pruner(evaluator)
    for ply in range(MAX_PLIES + 1):
        if not len(live):
            break
        b = board[torch.as_tensor(live, device=device)]
        sign = -1.0 if ply % 2 else 1.0  # the root player's view of the mover's equities
        if (play.truncate is not None and ply >= play.truncate) or ply == MAX_PLIES:
            probs = _np(full.evaluate(b))
            result[live, :6] = _root_view(probs, ply)
            if cube is not None:
                x = cube_efficiencies(b)
                eq = _cubeful_before_roll(probs, x, owner[live], cube.jacoby)
                open_ = cube_live[live]
                result[live[open_], CUBEFUL] = sign * value[live[open_]] * eq[open_]
            break
        if ply == 0:  # a root may be a finished game (the afterstate of a winning move)
            probs, finished = terminal_probs(b)
            done = _np(finished).astype(bool)
            if done.any():
                probs = _np(probs)[done]
                result[live[done], :6] = _root_view(probs, 0)
                if cube is not None:
                    points = money.cubeless_equity(probs, gammons=not cube.jacoby)
                    points = np.where(owner[live[done]] == CENTRED, points, money.cubeless_equity(probs))
                    result[live[done], CUBEFUL] = value[live[done]] * points
                live, b = live[~done], b[torch.as_tensor(~done, device=device)]
                if not len(live):
                    break
        if exact is not None and cube is None:
            done = _in_two_sided(b)
            if done.any():
                probs = _np(exact.bearoff_probs(b[torch.as_tensor(done, device=device)]))
                result[live[done], :6] = _root_view(probs, ply)
                live, b = live[~done], b[torch.as_tensor(~done, device=device)]
                if not len(live):
                    break
        x = cube_efficiencies(b) if cube is not None else None
        if cube is not None and ply > 0:
            _offer_cube(full, b, x, live, sign, value, owner, cube_live, result, cube.jacoby)
        dice = trial_dice(play.seed, trial[live], ply, play.quasi_random)
        children = torch.empty_like(b)
        for part in np.array_split(np.arange(len(live)), max(1, -(-len(live) // _chunk(play, device)))):
            if not len(part):
                continue
            rows = torch.as_tensor(part, device=device)
            children[rows] = _move(
                evaluator,
                full,
                b[rows],
                dice[part],
                play,
                ply,
                live[part],
                luck,
                x[part] if x is not None else None,
                (value, owner, cube_live, cube.jacoby) if cube is not None else None,
            )
        won = _np(game_value(children)).astype(np.int64)
        over = won > 0
        if over.any():
            ended = live[over]
            outcome = np.zeros((len(ended), 5))
            outcome[:, 0] = 1.0
            outcome[:, 1] = won[over] >= 2
            outcome[:, 2] = won[over] >= 3
            result[ended, :6] = _root_view(outcome, ply)
            if cube is not None:
                points = won[over].astype(np.float64)
                if cube.jacoby:
                    points = np.where(owner[ended] == CENTRED, 1.0, points)
                open_ = cube_live[ended]
                result[ended[open_], CUBEFUL] = sign * value[ended[open_]] * points[open_]
        keep = torch.as_tensor(~over, device=device)
        live = live[~over]
        board[torch.as_tensor(live, device=device)] = swap_sides(children[keep])
        if cube is not None:
            owner[live] = np.choose(owner[live], [CENTRED, TAKER, MOVER])  # the turn passes
    estimate = result - luck
    return estimate.reshape(n_roots, n_trials, channels)


def _move(evaluator, full, boards, dice, play: Play, ply: int, rows, luck, x, cube) -> torch.Tensor:
    """The afterstates of ``boards`` after ``dice``; adds each roll's luck to ``luck[rows]``."""
    dice_t = torch.as_tensor(dice, device=boards.device)
    if not play.variance_reduction:
        return choose_moves(evaluator if play.plies else full, boards, dice_t, play.plies, play.move_filter)
    moves, values = roll_moves(full, boards, 0)
    actual = torch.as_tensor(roll_index(dice), device=boards.device)
    pick = torch.arange(len(boards), device=boards.device)
    v = _np(values)  # (n, 21, 5) for the mover
    w = ROLL_WEIGHTS.double().numpy()[None, :, None]
    mean = (v * w).sum(1)
    thrown = v[np.arange(len(v)), roll_index(dice)]
    luck[rows, :6] += _root_view(thrown, ply) - _root_view(mean, ply)
    if cube is not None:
        value, owner, cube_live, jacoby = cube
        eq = _cubeful_after_move(v, x, owner[rows], jacoby) * value[rows, None]  # (n, 21), mover's
        sign = -1.0 if ply % 2 else 1.0
        cube_luck = sign * (eq[np.arange(len(eq)), roll_index(dice)] - (eq * w[..., 0]).sum(1))
        luck[rows, CUBEFUL] += np.where(cube_live[rows], cube_luck, 0.0)
    if play.plies == 0:
        return moves[pick, actual]
    return choose_moves(evaluator, boards, dice_t, play.plies, play.move_filter)


def _offer_cube(evaluator, boards, x, live, sign, value, owner, cube_live, result, jacoby) -> None:
    """gnubg's 0-ply money cube action for each live trial whose mover may double."""
    may = cube_live[live] & (owner[live] != TAKER)
    if not may.any():
        return
    rows = np.flatnonzero(may)
    probs = _np(evaluator.evaluate(boards[torch.as_tensor(rows, device=boards.device)]))
    nd = _cubeful_before_roll(probs, x[rows], owner[live[rows]], jacoby)
    dt = 2.0 * money.cubeful_equity(probs, x[rows], Owner.OPPONENT)
    doubles = (dt >= nd) & (nd <= 1.0)
    passes = doubles & (dt >= 1.0)
    passed = live[rows[passes]]
    result[passed, CUBEFUL] = sign * value[passed]
    cube_live[passed] = False
    taken = live[rows[doubles & ~passes]]
    value[taken] *= 2.0
    owner[taken] = TAKER


def _cubeful_before_roll(probs: np.ndarray, x: np.ndarray, owner: np.ndarray, jacoby: bool) -> np.ndarray:
    """gnubg's 0-ply cubeful money equity of the player on roll, per unit cube, by owner code."""
    eq = np.empty(len(probs))
    for code, who in _OWNERS.items():
        rows = owner == code
        if rows.any():
            eq[rows] = money.cubeful_equity(probs[rows], x[rows], who, jacoby=jacoby)
    return eq


def _cubeful_after_move(values: np.ndarray, x: np.ndarray, owner: np.ndarray, jacoby: bool) -> np.ndarray:
    """``(n, 21)`` the mover's 0-ply cubeful equity after each roll's best move (per unit cube).

    The opponent is then on roll: their equity, with the owner code seen from them, negated.
    ``x`` is the position's before the roll (any fixed choice keeps the luck's mean at zero).
    """
    n = len(values)
    opponent = invert(torch.as_tensor(values)).numpy().reshape(n * 21, 5)
    their_owner = np.repeat(np.choose(owner, [CENTRED, TAKER, MOVER]), 21)
    return -_cubeful_before_roll(opponent, np.repeat(x, 21), their_owner, jacoby).reshape(n, 21)


def _root_view(probs: np.ndarray, ply: int) -> np.ndarray:
    """``(n, 6)``: the mover's probabilities at ``ply`` seen by the root player, and their equity."""
    p = torch.as_tensor(np.asarray(probs, dtype=np.float64))
    if ply % 2:
        p = invert(p)
    return torch.cat([p, cubeless_equity(p)[:, None]], 1).numpy()


def _in_two_sided(boards: torch.Tensor) -> np.ndarray:
    """Where both sides are home with at most the two-sided table's checkers: exact values."""
    small = (boards.sum(-1) <= TWO_SIDED_CHECKERS).all(-1)
    return _np(is_bearoff(boards) & small).astype(bool)


def _without_pruner(evaluator: Evaluator) -> Evaluator:
    """The evaluator that values and picks 0-ply moves: a pruned evaluator's full net."""
    return getattr(evaluator, "evaluator", evaluator) if pruner_of(evaluator) is not None else evaluator


def _chunk(play: Play, device: torch.device) -> int:
    with_vr, without = CHUNK.get(device.type, CHUNK["cuda"])
    if play.plies:
        return 16 if device.type == "cpu" else 1024
    return with_vr if play.variance_reduction else without


def _np(t) -> np.ndarray:
    return t.detach().cpu().numpy().astype(np.float64) if isinstance(t, torch.Tensor) else np.asarray(t)
