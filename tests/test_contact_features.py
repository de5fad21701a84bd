"""The ``rich_plus`` contact features on positions a player can count, and against plain loops."""

from __future__ import annotations

import pytest
import torch

from bgai.engine.board import starting_board
from bgai.model.contact_features import CONTACT_FEATURES, contact_features
from bgai.model.features import ROLLS
from tests.positions import pos, random_boards


def on_roll(board: torch.Tensor) -> dict[str, float]:
    values = contact_features(board[None])[0, : len(CONTACT_FEATURES)]
    return dict(zip(CONTACT_FEATURES, values.tolist(), strict=True))


def test_starting_position():
    f = on_roll(torch.as_tensor(starting_board()))
    assert f["rear_checker"] == pytest.approx(23 / 24)
    assert f["rear_anchor"] == pytest.approx(24 / 24)
    assert f["forward_anchor"] == pytest.approx(1 / 6)  # the 24-point anchor is the deepest
    assert f["pip_loss"] == 0 and f["double_shots"] == 0
    assert f["outside_pips"] == pytest.approx((2 * 18 + 5 * 7 + 3 * 2) / 100)
    assert f["crossovers"] == pytest.approx((2 * 3 + 5 * 2 + 3 * 1) / 45)


def test_a_blot_eight_pips_in_front_of_two_back_checkers():
    # 6-2, 5-3 (two ways each), 4-4 and 2-2 hit it: 6/36 rolls, each costing 25 - 9 = 16 pips.
    f = on_roll(pos("x 24:2 13:5 9:1 8:3 6:4; o 1:2 12:5 17:3 19:5"))
    assert f["pip_loss"] == pytest.approx(6 / 36 * 16 / 24)
    assert f["double_shots"] == 0


def test_two_blots_in_reach_of_one_checker():
    # Blots 2 and 3 pips in front of the o checker: 2-1, 3-2 (two ways each) and 1-1 hit both.
    f = on_roll(pos("x 3:1 4:1 6:13; o 1:1 19:14"))
    assert f["double_shots"] == pytest.approx(5 / 36)


def test_containment_of_a_full_prime_and_of_nothing():
    assert on_roll(pos("x 2:2 3:2 4:2 5:2 6:2 7:2 8:3; o 24:15"))["containment"] == 1.0
    assert on_roll(pos("x 1:1 3:1 5:1 7:1 9:1 11:1 13:1 15:1 17:1; o 24:15"))["containment"] == 0.0


def test_forward_anchor_and_bar():
    f = on_roll(pos("x bar:1 20:2 23:2 6:10; o 1:15"))
    assert f["rear_checker"] == 1.0  # the bar is the rearmost place
    assert f["rear_anchor"] == pytest.approx(23 / 24)
    assert f["forward_anchor"] == pytest.approx(5 / 6)  # x's 20-point is o's 5-point


def _shots_by_loops(board: torch.Tensor) -> tuple[float, float]:
    """pip_loss and double_shots of the player on roll, counted one roll and one blot at a time."""
    me, opp = board[1].tolist(), board[0].tolist()
    loss = double = 0.0
    for a, b in ROLLS:
        ways = 1 if a == b else 2
        spans = {a, 2 * a, 3 * a, 4 * a} if a == b else {a, b, a + b}
        hit = [i for i in range(24) if me[i] == 1 and any(opp[j] and i + j - 23 in spans for j in range(25))]
        loss += ways * max((24 - i for i in hit), default=0) / 24
        double += ways * (len(hit) >= 2)
    return loss / 36, double / 36


def test_shots_against_plain_loops():
    boards = torch.cat([random_boards(seed, 100, opponent_bar=True) for seed in (3, 4)])
    values = contact_features(boards)
    for k, board in enumerate(boards):
        for side, offset in ((board, 0), (board.flip(0), len(CONTACT_FEATURES))):
            pip_loss, double = _shots_by_loops(side)
            assert values[k, offset + 3].item() == pytest.approx(pip_loss, abs=1e-6)
            assert values[k, offset + 4].item() == pytest.approx(double, abs=1e-6)
