"""The ``rich_race`` units on positions counted by hand."""

from __future__ import annotations

import pytest
import torch

from bgai.engine.board import starting_board
from bgai.model.race_features import RACE_FEATURES, race_features
from tests.positions import pos


def units(board: torch.Tensor) -> tuple[dict[str, float], dict[str, float]]:
    """The race units of x (on roll) and of o."""
    values = race_features(board[None])[0].tolist()
    n = len(RACE_FEATURES)
    x, o = values[:n], values[n:]
    return dict(zip(RACE_FEATURES, x, strict=True)), dict(zip(RACE_FEATURES, o, strict=True))


def test_the_starting_position():
    x, o = units(torch.as_tensor(starting_board()))
    assert x == o
    # 77 pips to bring everything home (2 x 18 + 5 x 7 + 3 x 2), then the 6-point's checker off.
    assert x["save_pips"] == pytest.approx(83 / 100)
    assert x["least_rolls"] == pytest.approx(167 / (49 / 6) / 30)
    assert x["home_gaps"] == pytest.approx(5 / 5)  # points 1-5 empty below the 6
    assert not any(x[f"off>={k}"] for k in range(1, 15))


def test_a_race_where_one_side_has_borne_off_and_the_other_has_not():
    # x: 4 on the 1-point, 3 on the 4, 1 on the 5; 7 off. o: 10 on its 8, 5 on its 3 (none off).
    x, o = units(pos("x 1:4 4:3 5:1; o 17:10 22:5"))
    assert [x[f"off>={k}"] for k in range(1, 15)] == [1.0] * 7 + [0.0] * 7
    assert x["save_pips"] == 0  # one is off: no gammon to save
    assert x["least_rolls"] == pytest.approx(max(21 / (49 / 6), 8 / 2) / 30)  # the checkers bind
    assert x["home_gaps"] == pytest.approx(2 / 5)  # points 2 and 3 below the 5
    assert not any(o[f"off>={k}"] for k in range(1, 15))
    # o brings its ten 8-point checkers home (2 pips each), then bears off from its 3-point.
    assert o["save_pips"] == pytest.approx((20 + 3) / 100)
    assert o["least_rolls"] == pytest.approx(max(95 / (49 / 6), 15 / 2) / 30)
    assert o["home_gaps"] == pytest.approx(2 / 5)  # its 1 and 2 below its 3


def test_checkers_on_the_bar_count_from_the_25_point():
    x, _ = units(pos("x bar:1 1:14; o 19:15"))
    assert x["save_pips"] == pytest.approx((19 + 1) / 100)
