"""Roll luck (bgai.search.luck) and the bench's luck-adjusted results (variance reduction)."""

from __future__ import annotations

import json
from functools import partial

import numpy as np
import pytest
import torch

from bgai.bench import CubeRules, duel, match_duel
from bgai.bots import PubevalPlayer
from bgai.cli.main import main
from bgai.cube import CubeState, Owner
from bgai.cube.equity import CubefulEquity
from bgai.engine.board import starting_board
from bgai.engine.dice import ROLL_COUNTS, ROLLS, roll_index
from bgai.model.probs import cubeless_equity
from bgai.search.evaluator import afterstate_values
from bgai.search.luck import cubeless_luck, roll_luck
from bgai.search.ply import choose_moves
from bgai.specs import load_player
from tests.positions import pos

ALL_ROLLS = ROLLS.numpy()
WEIGHTS = ROLL_COUNTS.double().numpy() / 36


def test_roll_index_finds_each_roll_in_either_order():
    assert (roll_index(ALL_ROLLS) == np.arange(21)).all()
    assert (roll_index(ALL_ROLLS[:, ::-1]) == np.arange(21)).all()


def test_a_rolls_luck_averages_to_zero_over_the_dice():
    mine = np.random.default_rng(1).normal(size=(4, 21))
    luck = np.stack([roll_luck(mine, np.repeat(ALL_ROLLS[[r]], 4, 0)) for r in range(21)], 1)
    assert np.abs(luck @ WEIGHTS).max() < 1e-12
    assert luck[2, 20] == pytest.approx(mine[2, 20] - mine[2] @ WEIGHTS)


def test_the_opening_rolls_luck_averages_to_zero_over_the_thirty_outcomes():
    """Each of the 15 non-double rolls, won by either side, is equally likely; from the first
    side's view the other side's luck counts against it."""
    rng = np.random.default_rng(2)
    mine, theirs = rng.normal(size=(1, 21)), rng.normal(size=(1, 21))
    opening = np.array([True])
    total = 0.0
    for low, high in ALL_ROLLS[ALL_ROLLS[:, 0] != ALL_ROLLS[:, 1]]:
        dice = np.array([[low, high]])
        total += roll_luck(mine, dice, opening, theirs)[0] - roll_luck(theirs, dice, opening, mine)[0]
    assert abs(total) < 1e-12


@pytest.fixture(scope="module")
def best():
    return load_player("best")


def test_luck_of_real_positions_is_the_judges_best_move_against_the_average():
    """Without a pruning net the judge's best move is its 0-ply choice (with one, the best of
    the pruner's shortlist: the same for every roll, so the luck still averages to zero)."""
    boards = torch.stack(
        [pos("x 6:5 8:3 13:5 24:2; o 6:5 8:3 13:4 24:2 bar:1"), pos("x 1:2 5:3 20:1 bar:1; o 3:4 19:2 6:2")]
    )
    evaluator = load_player("best:noprune").evaluator
    lucks, equities = [], []
    for r in range(21):
        dice = np.repeat(ALL_ROLLS[[r]], len(boards), 0)
        lucks.append(cubeless_luck(evaluator, boards, dice, np.zeros(len(boards), bool)))
        after = choose_moves(evaluator, boards, torch.as_tensor(dice), 0)
        equities.append(cubeless_equity(afterstate_values(evaluator, after).double()).numpy())
    lucks, equities = np.stack(lucks, 1), np.stack(equities, 1)
    assert np.abs(lucks @ WEIGHTS).max() < 1e-9
    assert lucks == pytest.approx(equities - (equities @ WEIGHTS)[:, None], abs=1e-4)


def test_a_player_against_itself_has_no_luck_left_on_duplicate_dice(best):
    result = duel(PubevalPlayer(), PubevalPlayer(), 20, seed=3, luck=best)
    # the judge's float32 values of one position can differ in the last bit between batches
    assert abs(result.luck_ppg) < 1e-6 and result.luck_ci95 < 1e-6 and result.luck_judge == "best"


def test_luck_adjusted_results_keep_the_mean_and_narrow_the_interval(best):
    plain = duel(best, PubevalPlayer(), 80, seed=4)
    adjusted = duel(best, PubevalPlayer(), 80, seed=4, luck=best)
    assert adjusted.ppg == plain.ppg and adjusted.ci95 == plain.ci95  # the games are the same
    assert adjusted.luck_ci95 < plain.ci95 / 1.5
    assert abs(adjusted.luck_ppg - plain.ppg) < plain.ci95
    assert "luck-adjusted (best at 0-ply judges the dice)" in adjusted.table()
    assert plain.luck_ppg is None and "luck-adjusted" not in plain.table()


def test_luck_needs_a_duel_and_a_judge_that_evaluates(capsys):
    assert main(["bench", "--league", "pubeval", "random", "best", "--games", "4", "--luck", "best"]) == 2
    assert "--luck adjusts a duel's result: not with --league" in capsys.readouterr().err
    assert main(["bench", "pubeval", "random", "--games", "4", "--luck", "pubeval", "--cube"]) == 2
    assert "judging the luck needs a player that evaluates positions" in capsys.readouterr().err
    assert main(["bench", "pubeval", "random", "--games", "4", "--luck", "pubeval"]) == 2
    assert "judging the luck needs a player that evaluates positions" in capsys.readouterr().err
    assert main(["bench", "pubeval", "random", "--games", "4", "--luck", "best", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["luck_judge"] == "best" and out["luck_ci95"] is not None


def test_the_opening_board_is_where_opening_luck_is_measured(best):
    """At the opening both sides have the same board, so a roll's luck is the same for either."""
    board = torch.as_tensor(starting_board("standard"))[None].repeat(2, 1, 1)
    dice = np.array([[3, 1], [6, 5]])
    luck = cubeless_luck(best.evaluator, board, dice, np.array([True, True]))
    assert luck[0] > 0 and luck[1] > 0  # 31 and 65 are the best openings: better than average


CUBE_STATES = [
    CubeState.money(1, Owner.CENTRED),
    CubeState.money(2, Owner.ME),
    CubeState.money(4, Owner.OPPONENT, jacoby=False),
    CubeState.match(7, 2, 4, 2, Owner.OPPONENT),
    CubeState.match(5, 4, 1, 1, Owner.CENTRED, crawford=True),
]


def test_cubeful_luck_averages_to_zero_over_the_dice_in_any_cube_state(best):
    boards = torch.stack(
        [
            pos("x 6:5 8:3 13:5 24:2; o 6:5 8:3 13:4 24:2 bar:1"),
            pos("x 1:2 5:3 20:1 bar:1; o 3:4 19:2 6:2"),
            pos("x 6:4 5:3 4:3 8:2 13:3; o 6:3 5:3 4:2 8:3 13:2 24:2"),
            pos("x 1:3 2:3 3:3; o 1:3 2:2 5:2 24:2"),
            pos("x 6:5 8:3 13:5 24:2; o 6:5 8:3 13:5 24:2"),
        ]
    )
    cubeful = CubefulEquity(True, 15)
    opening = np.zeros(len(boards), bool)
    lucks, actual = [], []
    for r in range(21):
        dice = np.repeat(ALL_ROLLS[[r]], len(boards), 0)
        luck, equity = cubeful.luck(best.evaluator, boards, dice, opening, CUBE_STATES)
        lucks.append(luck)
        actual.append(equity)
    lucks, actual = np.stack(lucks, 1), np.stack(actual, 1)
    assert np.abs(lucks @ WEIGHTS).max() < 1e-9
    assert lucks == pytest.approx(actual - (actual @ WEIGHTS)[:, None], abs=1e-9)
    assert np.abs(lucks).max() > 0.05  # the dice matter in every one of them
    # the cube changes what a roll is worth: a dead cube (Crawford) and a live one differ
    money = lucks[0, 3]
    crawford = cubeful.luck(best.evaluator, boards[:1], ALL_ROLLS[[3]], opening[:1], CUBE_STATES[4:])[0]
    assert crawford != pytest.approx(money, abs=1e-4)


@pytest.mark.parametrize("mode", ["cube", "match"])
def test_cubeful_luck_cancels_in_a_self_duel_and_narrows_the_interval(best, mode):
    if mode == "cube":
        play = partial(duel, rules=CubeRules())
        mean, ci, adjusted, adjusted_ci = "ppg", "ci95", "luck_ppg", "luck_ci95"
    else:
        play = partial(match_duel, length=3)
        mean, ci, adjusted, adjusted_ci = "mwc", "ci95", "luck_mwc", "luck_ci95"
    itself = play(best, best, 8, seed=5, luck=best)
    assert getattr(itself, mean) == (0.0 if mode == "cube" else 0.5)
    assert abs(getattr(itself, adjusted) - getattr(itself, mean)) < 1e-6  # batches round apart
    assert getattr(itself, adjusted_ci) < 1e-6
    # against a close opponent (the net before best) the dice are most of what separates them;
    # against pubeval, 40 short matches are too few to show the narrowing reliably
    close = load_player("best_7")
    plain = play(best, close, 40, seed=6)
    lucky = play(best, close, 40, seed=6, luck=best)
    assert getattr(lucky, mean) == getattr(plain, mean)  # the same games
    assert getattr(lucky, adjusted_ci) < getattr(plain, ci) / 2  # ÷ 4 (cube), ÷ 10 (match) measured
    assert "luck-adjusted (best at 0-ply judges the dice)" in lucky.table()
    assert "luck-adjusted" not in plain.table()
