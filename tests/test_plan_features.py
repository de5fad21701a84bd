"""The ``rich_plan`` game-plan features on positions a player can count, and mobility against loops."""

from __future__ import annotations

import numpy as np
import pytest
import torch

from bgai.model.features import escapes
from bgai.model.plan_features import PLAN_FEATURES, plan_features
from tests.positions import pos, random_boards


def sides(board: torch.Tensor) -> tuple[dict[str, float], dict[str, float]]:
    """The features of the player on roll (x) and of the opponent (o)."""
    values = plan_features(board[None])[0].tolist()
    k = len(PLAN_FEATURES)
    return dict(zip(PLAN_FEATURES, values[:k], strict=True)), dict(
        zip(PLAN_FEATURES, values[k:], strict=True)
    )


def test_a_race():
    x, o = sides(pos("x 9:2 8:3 6:10; o 16:2 17:3 19:10"))  # o's 9, 8 and 6 points
    assert x["mobility"] == pytest.approx(5 / 15)  # nothing blocks: the checkers outside home
    assert x["timing"] == pytest.approx((18 + 24 + 60 - 12) / 100)  # the 6-point's two stay
    assert x["back_game"] == 0 and x["trailing_hold"] == 0
    assert x == pytest.approx(o)  # the same position seen from the other side


def test_a_back_game():
    x, o = sides(pos("x 24:2 22:2 13:3 8:4 6:4; o 19:4 20:3 21:3 10:5"))
    points = [24, 24, 22, 22, 13, 13, 13, 8, 8, 8, 8, 6, 6, 6, 6]
    pips, theirs = sum(points), 4 * 6 + 3 * 5 + 3 * 4 + 5 * 15
    assert x["back_game"] == 1 and x["trailing_hold"] == pytest.approx((pips - theirs) / 100)
    assert x["timing"] == pytest.approx((pips - 2 * 24 - 2 * 22 - 2 * 6) / 100)
    assert x["spread"] == pytest.approx(np.std(points) / 12, abs=1e-6)
    assert o["back_game"] == 0 and o["trailing_hold"] == 0  # o holds nothing in x's board and leads


def test_one_anchor_is_a_holding_game_not_a_back_game():
    x, _ = sides(pos("x 20:2 13:5 8:4 6:4; o 19:5 21:5 22:5"))
    assert x["back_game"] == 0 and x["trailing_hold"] > 0


def test_a_full_prime_stops_every_checker_behind_it():
    x, _ = sides(pos("x 24:2 23:13; o 17:2 18:2 19:2 20:2 21:2 22:3 1:2"))
    assert x["mobility"] == 0  # o's 3- to 8-points in front of every x checker


def test_mobility_adds_up_each_checkers_escapes():
    boards = torch.cat([random_boards(seed, 60, opponent_bar=True) for seed in (5, 6)])
    values = plan_features(boards)
    for k, board in enumerate(boards):
        for side, column in ((board, 0), (board.flip(0), len(PLAN_FEATURES))):
            me, opp = side[1], side[0]
            total = 0.0
            for i in range(6, 25):
                if me[i]:
                    alone = torch.zeros(25, dtype=me.dtype)
                    alone[i] = 1  # one checker: escapes() looks at exactly that checker
                    total += me[i].item() * escapes(alone[None], opp[None]).item()
            assert values[k, column].item() == pytest.approx(total / 15, abs=1e-5)
