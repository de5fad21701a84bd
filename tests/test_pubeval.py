"""Pubeval against gnubg's own implementation (gnubg_nn.pub_eval_score), the oracle."""

from __future__ import annotations

import numpy as np
import pytest
import torch

from bgai import gnubg as oracle
from bgai.engine.board import is_race, starting_board
from bgai.model.pubeval import pubeval_inputs, pubeval_scores, pubeval_weights

pytestmark = pytest.mark.gnubg


def afterstate(mover: dict[int, int], opponent: dict[int, int]) -> torch.Tensor:
    """One board after a move, mover in row 1; points in each side's own numbering, 25 = bar."""
    b = torch.zeros(1, 2, 25, dtype=torch.long)
    for row, side in ((1, mover), (0, opponent)):
        for point, n in side.items():
            b[0, row, point - 1] = n
    return b


def random_afterstates(rng: np.random.Generator, n: int) -> np.ndarray:
    """Legal-looking positions: no shared points, at most 14 off per side; about a third are races."""
    boards = np.zeros((n, 2, 25), dtype=np.int8)
    for i in range(n):
        if rng.random() < 0.35:  # race: the mover holds points 1..split, the opponent the rest
            split = int(rng.integers(6, 19))
            mover_points, opp_points, bars = np.arange(1, split + 1), np.arange(split + 1, 25), False
        else:
            mover_points, opp_points, bars = np.arange(1, 25), np.arange(1, 25), True
        mover_off = int(rng.integers(0, 15)) if rng.random() < 0.3 else 0
        on_bar = min(int(rng.integers(1, 3)) if bars and rng.random() < 0.15 else 0, 15 - mover_off)
        for p in rng.choice(mover_points, size=15 - mover_off - on_bar):
            boards[i, 1, p - 1] += 1
        boards[i, 1, 24] = on_bar
        free = np.array([p for p in opp_points if boards[i, 1, p - 1] == 0])
        opp_off = int(rng.integers(0, 15)) if rng.random() < 0.3 else 0
        opp_bar = min(int(rng.integers(1, 3)) if bars and rng.random() < 0.15 else 0, 15 - opp_off)
        for p in rng.choice(free, size=15 - opp_off - opp_bar):
            boards[i, 0, 24 - p] += 1  # the mover's point p is the opponent's point 25 - p
        boards[i, 0, 24] = opp_bar
    return boards


def gnubg_score(board: np.ndarray) -> float:
    """gnubg scores for board[0]'s player, so hand it the mover first."""
    gnubg_nn = oracle.nn()
    return gnubg_nn.pub_eval_score([board[1].tolist(), board[0].tolist()])


def test_matches_gnubg_on_random_positions():
    boards = random_afterstates(np.random.default_rng(20240601), 3000)
    race = is_race(torch.as_tensor(boards))
    assert 500 < int(race.sum()) < 2500, "the sample should hold both races and contact positions"
    ours = pubeval_scores(torch.as_tensor(boards), race).numpy()
    theirs = np.array([gnubg_score(b) for b in boards])
    np.testing.assert_allclose(ours, theirs, rtol=1e-5, atol=1e-4)


def test_starting_position_matches_gnubg():
    board = torch.as_tensor(starting_board())[None]
    assert pubeval_scores(board, torch.tensor([False])).item() == pytest.approx(
        gnubg_score(board[0].numpy()), abs=1e-4
    )


def test_inputs_follow_the_readme_layout():
    # Our blot on the 24-point, opponent's blot on our 1-point, 2 of ours on the 6, 5 on the 13,
    # 3 of theirs on the bar, 6 of ours borne off.
    x = pubeval_inputs(afterstate({24: 1, 6: 2, 13: 5, 8: 1}, {24: 1, 25: 3}))[0]
    expected = torch.zeros(122)
    expected[5 * 0 + 1] = 1  # our 24-point: a blot
    expected[5 * 23 + 0] = 1  # our 1-point: an opponent blot
    expected[5 * 18 + 2] = 1  # our 6-point: made
    expected[5 * 11 + 2] = 1  # our 13-point: made, 5 checkers
    expected[5 * 11 + 4] = 1.0  # (5 - 3) / 2
    expected[5 * 16 + 1] = 1  # our 8-point: a blot
    expected[120] = 1.5  # 3 opponent checkers on the bar / 2
    expected[121] = 6 / 15
    torch.testing.assert_close(x, expected)


def test_race_flag_picks_the_weights():
    board = torch.as_tensor(starting_board())[None]
    x = pubeval_inputs(board)
    w = pubeval_weights()
    contact, race = pubeval_scores(board.repeat(2, 1, 1), torch.tensor([False, True]))
    assert contact.item() == pytest.approx((x @ w[:, 0]).item(), abs=1e-5)
    assert race.item() == pytest.approx((x @ w[:, 1]).item(), abs=1e-5)
    assert contact.item() != pytest.approx(race.item())


def test_all_borne_off_scores_infinity():
    board = afterstate({}, {6: 15})
    assert pubeval_scores(board, torch.tensor([True])).item() == float("inf")
    assert gnubg_score(board[0].numpy()) >= 1e7  # gnubg's stand-in for infinity
