"""The batched trial loop: every trial of every rolled-out position advances one ply together.

A block of trials starts from ``R`` root positions (player on roll in row 1), ``B`` trials
each. Each ply, the live trials are, in this order:

1. truncated (at ``truncate`` plies: the evaluator's 0-ply value is the result);
2. ended exactly when both sides are in the two-sided bear-off table: the cubeless result
   from the table, and in money play the cubeful one from the exact cubeful table
   (:mod:`bgai.cube.bearoff`), the mover's cube action included from the second ply on
   (match play plays on, with Janowski's model);
3. offered the cube (cubeful play, from the second ply on: gnubg's 0-ply cube decision for
   the doubler and the taker, exact in money two-sided bear-offs; a pass ends the cubeful
   result, the game goes on for the cubeless one);
4. rolled (:mod:`bgai.rollout.dice`) and moved: one ``expand`` and one evaluator call for all
   of them (in chunks), at 0-ply, or at n-ply through :func:`bgai.search.choose_moves`;
5. ended when the move bore off the last checker.

**Variance reduction** (Dahl's, as gnubg's): each roll's luck, the value of the best move
for the roll thrown minus its average over the 21 rolls (0-ply values, whatever ply moves the
checkers), is summed per trial and subtracted from the result. Its mean is zero whatever the
evaluator, so the estimate stays unbiased; in cubeful play the same is done with the 0-ply
cubeful equity at the trial's cube (:meth:`CubePlay.before_roll`: in a money two-sided
bear-off the very value a trial ends with there, so that the last roll's luck cancels).

Every value is kept from the root player's view (the player on roll at the root): the
channels are the five cubeless probabilities, the cubeless equity, and (cubeful) the cubeful
money equity in units of the root's cube.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass

import numpy as np
import torch

from bgai.bearoff.evaluator import is_bearoff
from bgai.bearoff.two_sided import TWO_SIDED_CHECKERS
from bgai.cube import CubeState, money
from bgai.cube.efficiency import cube_efficiencies
from bgai.cube.met import kazaross_xg2
from bgai.cube.search import RollTree, cube_analysis, cubeful_value, leaf_tree
from bgai.cube.state import Owner
from bgai.engine.board import game_value, swap_sides
from bgai.engine.dice import roll_index
from bgai.model.probs import cubeless_equity, invert
from bgai.rollout.dice import trial_dice
from bgai.search.evaluator import Evaluator, pruner_of, terminal_probs
from bgai.search.luck import roll_luck
from bgai.search.ply import MoveFilter, choose_moves, roll_moves

PROBS, EQUITY, CUBEFUL = slice(0, 5), 5, 6
MAX_PLIES = 2000  # a trial still running then is truncated (no real game lasts that long)

# Owner codes of a trial's cube, relative to the player on roll at that ply.
CENTRED, MOVER, TAKER = 0, 1, 2
_OWNERS = {CENTRED: Owner.CENTRED, MOVER: Owner.ME, TAKER: Owner.OPPONENT}

CHUNK = {"cpu": (64, 4096), "cuda": (8192, 65536)}
"""Positions moved in one go, by device: (over all 21 rolls, for variance reduction; for one roll)."""


@dataclass(frozen=True)
class CubeStart:
    """The cube of each root at the start of its trials, and the game (money or a match score).

    ``state`` is the root player's cube state (money or match, before any branch doubles);
    ``cube`` the cube value each root's trials start with (``2 * state.cube`` for a
    double/take branch), ``owner`` an owner code above.
    """

    state: CubeState
    cube: np.ndarray
    owner: np.ndarray


class CubePlay:
    """Cube play inside the trials, money or match: gnubg's 0-ply decisions for each trial's cube
    (:func:`~bgai.cube.search.cube_analysis` of a 0-ply tree: Janowski's model, but the exact
    table in money two-sided bear-offs), and the cubeful value kept in the trials' cubeful channel.

    That value is, for the player it belongs to, the money equity in units of the root's cube,
    or the match winning chance (MWC) at the root's score.
    """

    def __init__(self, root: CubeState) -> None:
        self.root = root
        self.met = None if root.is_money else kazaross_xg2()

    def state(self, cube: int, owner: int, ply: int) -> CubeState:
        """The cube state of the mover at ``ply`` (the root player at even plies)."""
        state = dataclasses.replace(self.root, cube=int(cube), owner=_OWNERS[owner])
        if ply % 2:  # the opponent is on roll: the score is seen from the other side
            state = dataclasses.replace(state, my_away=self.root.opp_away, opp_away=self.root.my_away)
        return state

    def _groups(self, cube: np.ndarray, owner: np.ndarray, ply: int):
        for c, o in {(int(c), int(o)) for c, o in zip(cube, owner, strict=True)}:
            yield np.flatnonzero((cube == c) & (owner == o)), self.state(c, o, ply)

    def leaves(self, probs, x, boards) -> RollTree:
        """The movers' positions as the cube sees them: probabilities and cube efficiencies, and
        in money play the exact table of those of ``boards`` that are two-sided bear-offs."""
        return leaf_tree(probs, x, boards if self.root.is_money else None)

    def before_roll(self, leaves: RollTree, cube, owner, ply: int) -> np.ndarray:
        """The mover's 0-ply cubeful value before the roll: Janowski's no-double value or, where
        the money table is exact, the value a trial ends with there, the mover's cube action
        included from the second ply on (the root's is the rollout's question)."""
        out = np.empty(leaves.n)
        for rows, state in self._groups(cube, owner, ply):
            part = leaves.subset(rows)
            value = cubeful_value(part, state, may_double=False, met=self.met)
            in_table = np.flatnonzero(np.isfinite(part.exact[0][:, 0])) if part.exact and ply else []
            if len(in_table):
                value[in_table] = cubeful_value(part.subset(in_table), state, met=self.met)
            out[rows] = value / self.root.cube if self.met is None else value
        return out

    def decide(self, leaves: RollTree, cube, owner, ply: int) -> tuple[np.ndarray, np.ndarray]:
        """(doubles, passes): where the mover doubles and where the taker then passes."""
        doubles, passes = np.zeros(leaves.n, bool), np.zeros(leaves.n, bool)
        for rows, state in self._groups(cube, owner, ply):
            if not state.can_double:
                continue
            a = cube_analysis(leaves.subset(rows), state, self.met)
            doubles[rows] = a.should_double
            passes[rows] = a.should_double & (a.dt >= a.dp)
        return doubles, passes

    def outcome(self, points, cube, owner, ply: int) -> np.ndarray:
        """The mover's value when the game ends with the mover winning ``points`` x the cube
        (negative: losing), gammons counted as the rules of the game say."""
        out = np.empty(len(points))
        for rows, state in self._groups(cube, owner, ply):
            won = points[rows]
            if self.met is None:
                if state.jacoby and state.owner is Owner.CENTRED:
                    won = np.sign(won)
                out[rows] = won * state.cube / self.root.cube
            else:
                table = {k: self.met.outcome_mwc(state, k * state.cube) for k in np.unique(won).astype(int)}
                out[rows] = [table[k] for k in won.astype(int)]
        return out

    def other_view(self, values: np.ndarray) -> np.ndarray:
        """The same values seen by the other player."""
        return -values if self.met is None else 1.0 - values

    def root_view(self, values: np.ndarray, ply: int) -> np.ndarray:
        return self.other_view(values) if ply % 2 else values


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
    seeds: np.ndarray | None = None,
) -> np.ndarray:
    """``(R, B, C)`` estimates of trials ``trials`` (B) of each root ``(R, 2, 25)``.

    ``exact``: a :class:`~bgai.bearoff.BearoffEvaluator` for step 2 (``None``: no bear-off stop).
    ``seeds``: each root's dice seed (:func:`bgai.rollout.dice.position_seeds`; default: ``play.seed``
    for all, so that every root rolls the same dice in trial ``i``).
    """
    device = roots.device
    n_roots, n_trials = len(roots), len(trials)
    m = n_roots * n_trials
    board = roots.repeat_interleave(n_trials, 0).clone()
    trial = np.tile(np.asarray(trials, dtype=np.int64), n_roots)
    seed = play.seed if seeds is None else np.repeat(np.asarray(seeds, dtype=np.int64), n_trials)
    result = np.zeros((m, 7 if cube is not None else 6))
    luck = np.zeros_like(result)
    live = np.arange(m)
    rules = trials_cube = None
    if cube is not None:
        rules = CubePlay(cube.state)
        trials_cube = _TrialCube(
            np.repeat(np.asarray(cube.cube, dtype=np.int64), n_trials),
            np.repeat(np.asarray(cube.owner, dtype=np.int64), n_trials),
            np.ones(m, dtype=bool),
        )
    full = _without_pruner(evaluator)
    for ply in range(MAX_PLIES + 1):
        if not len(live):
            break
        b = board[torch.as_tensor(live, device=device)]
        if (play.truncate is not None and ply >= play.truncate) or ply == MAX_PLIES:
            probs = _np(full.evaluate(b))
            result[live, :6] = _root_view(probs, ply)
            if rules is not None:
                value = rules.before_roll(
                    rules.leaves(probs, cube_efficiencies(b), b), *trials_cube.of(live), ply
                )
                trials_cube.settle(live, rules.root_view(value, ply), result)
            break
        if ply == 0:  # a root may be a finished game (the afterstate of a winning move)
            probs, finished = terminal_probs(b)
            done = _np(finished).astype(bool)
            if done.any():
                probs = _np(probs)[done]
                result[live[done], :6] = _root_view(probs, 0)
                if rules is not None:
                    points = np.rint(money.cubeless_equity(probs)).astype(np.int64)
                    trials_cube.settle(
                        live[done], rules.outcome(points, *trials_cube.of(live[done]), 0), result
                    )
                live, b = live[~done], b[torch.as_tensor(~done, device=device)]
                if not len(live):
                    break
        if exact is not None and (rules is None or rules.root.is_money):
            done = _in_two_sided(b)
            if done.any():
                ended, table = live[done], b[torch.as_tensor(done, device=device)]
                probs = _np(exact.bearoff_probs(table))
                result[ended, :6] = _root_view(probs, ply)
                if rules is not None:
                    leaves = rules.leaves(probs, cube_efficiencies(table), table)
                    value = rules.before_roll(leaves, *trials_cube.of(ended), ply)
                    trials_cube.settle(ended, rules.root_view(value, ply), result)
                live, b = live[~done], b[torch.as_tensor(~done, device=device)]
                if not len(live):
                    break
        x = cube_efficiencies(b) if rules is not None else None
        if rules is not None and ply > 0:
            _offer_cube(full, rules, trials_cube, b, x, live, ply, result)
        dice = trial_dice(seed if seeds is None else seed[live], trial[live], ply, play.quasi_random)
        cube_part = None if rules is None else (rules, trials_cube, x)
        children = _move(evaluator, full, b, dice, play, ply, live, luck, cube_part)
        won = _np(game_value(children)).astype(np.int64)
        over = won > 0
        if over.any():
            ended = live[over]
            outcome = np.zeros((len(ended), 5))
            outcome[:, 0] = 1.0
            outcome[:, 1] = won[over] >= 2
            outcome[:, 2] = won[over] >= 3
            result[ended, :6] = _root_view(outcome, ply)
            if rules is not None:
                value = rules.outcome(won[over], *trials_cube.of(ended), ply)
                trials_cube.settle(ended, rules.root_view(value, ply), result)
        keep = torch.as_tensor(~over, device=device)
        live = live[~over]
        board[torch.as_tensor(live, device=device)] = swap_sides(children[keep])
        if rules is not None:
            trials_cube.owner[live] = np.choose(
                trials_cube.owner[live], [CENTRED, TAKER, MOVER]
            )  # turn passes
    return (result - luck).reshape(n_roots, n_trials, result.shape[1])


@dataclass
class _TrialCube:
    """Each trial's cube value and owner code (relative to the player on roll), and whether its
    cubeful result is still open (a pass settles it; the game goes on for the cubeless one)."""

    cube: np.ndarray
    owner: np.ndarray
    open: np.ndarray

    def of(self, rows: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        return self.cube[rows], self.owner[rows]

    def settle(self, rows: np.ndarray, root_values: np.ndarray, result: np.ndarray) -> None:
        """Write the root's cubeful value of the still-open trials among ``rows`` and close them."""
        still = self.open[rows]
        result[rows[still], CUBEFUL] = root_values[still]
        self.open[rows] = False


def _move(evaluator, full, boards, dice, play: Play, ply: int, rows, luck, cube) -> torch.Tensor:
    """The afterstates of ``boards`` after ``dice``; adds each roll's luck to ``luck[rows]``.

    Trials that stand on the same position (all of a root's at the first ply, many at the next
    few) share its expansion and evaluation: each distinct position, or (position, roll) where
    the roll matters, is moved once, in chunks.
    """
    device = boards.device
    dice_t = torch.as_tensor(dice, device=device)
    per_roll_set, per_roll = _chunk(play, device)
    if play.variance_reduction:
        first, inverse = _distinct(boards)
        moves, values = _chunked(lambda part: roll_moves(full, part, 0), per_roll_set, boards[first])
        actual = roll_index(dice)
        v = _np(values)[_np(inverse).astype(np.int64)]  # (n, 21, 5) for the mover
        luck[rows, :6] += roll_luck(_root_view(v.reshape(-1, 5), ply).reshape(len(v), -1, 6), dice)
        if cube is not None:
            rules, trials_cube, x = cube
            cubes, owners = trials_cube.of(rows)
            theirs = np.choose(owners, [CENTRED, TAKER, MOVER])  # the owner code seen by the opponent
            opponent = invert(torch.as_tensor(v)).numpy().reshape(-1, 5)
            positions = swap_sides(moves[inverse].flatten(0, 1))  # each roll's result, the opponent on roll
            leaves = rules.leaves(opponent, np.repeat(x, 21), positions)
            after = rules.before_roll(leaves, np.repeat(cubes, 21), np.repeat(theirs, 21), ply + 1)
            mine = rules.root_view(after.reshape(-1, 21), ply + 1)  # the root's view of each roll's result
            luck[rows, CUBEFUL] += np.where(trials_cube.open[rows], roll_luck(mine, dice), 0.0)
        if play.plies == 0:
            return moves[inverse, torch.as_tensor(actual, device=device)]
    first, inverse = _distinct(boards, dice_t)
    mover = evaluator if play.plies else full
    chosen = _chunked(
        lambda part, d: choose_moves(mover, part, d, play.plies, play.move_filter),
        per_roll,
        boards[first],
        dice_t[first],
    )
    return chosen[inverse]


def _distinct(*rows: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    """(first, inverse): one row index of each distinct row of ``rows`` side by side, and for
    every row the position of its own among them (``first[inverse]`` equals each row)."""
    key = torch.cat([r.reshape(len(r), -1).to(torch.int8) for r in rows], 1)
    _, inverse = torch.unique(key, dim=0, return_inverse=True)
    n = len(key)
    first = torch.full((int(inverse.max()) + 1 if n else 0,), n, dtype=torch.int64, device=key.device)
    first.scatter_reduce_(0, inverse, torch.arange(n, device=key.device), "amin")
    return first, inverse


def _chunked(fn, size: int, *tensors: torch.Tensor):
    """``fn`` over ``size`` rows of ``tensors`` at a time, the outputs (a tensor or a tuple of
    them) concatenated."""
    n = len(tensors[0])
    outs = [fn(*(t[i : i + size] for t in tensors)) for i in range(0, max(n, 1), size)]
    if isinstance(outs[0], tuple):
        return tuple(torch.cat(parts) for parts in zip(*outs, strict=True))
    return torch.cat(outs)


def _offer_cube(
    evaluator, rules: CubePlay, trials_cube: _TrialCube, boards, x, live, ply: int, result
) -> None:
    """gnubg's 0-ply cube action for each live trial whose cubeful result is still open (exact
    in money two-sided bear-offs, which :func:`play_block` ends first when it has the table)."""
    rows = np.flatnonzero(trials_cube.open[live] & (trials_cube.owner[live] != TAKER))
    if not len(rows):
        return
    offered = boards[torch.as_tensor(rows, device=boards.device)]
    leaves = rules.leaves(_np(evaluator.evaluate(offered)), x[rows], offered)
    doubles, passes = rules.decide(leaves, *trials_cube.of(live[rows]), ply)
    passed = live[rows[passes]]
    won = rules.outcome(np.ones(len(passed), dtype=np.int64), *trials_cube.of(passed), ply)
    trials_cube.settle(passed, rules.root_view(won, ply), result)
    taken = live[rows[doubles & ~passes]]
    trials_cube.cube[taken] *= 2
    trials_cube.owner[taken] = TAKER


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


def _chunk(play: Play, device: torch.device) -> tuple[int, int]:
    """Positions moved in one go: (over all 21 rolls, for variance reduction; for one roll)."""
    with_vr, without = CHUNK.get(device.type, CHUNK["cuda"])
    if play.plies:
        without = 16 if device.type == "cpu" else 1024
    return with_vr, without


def _np(t) -> np.ndarray:
    return t.detach().cpu().numpy().astype(np.float64) if isinstance(t, torch.Tensor) else np.asarray(t)
