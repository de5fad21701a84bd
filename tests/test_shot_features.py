"""The ``rich_shots`` hit units: by the rules (blocked points, the bar), against the move generator."""

from __future__ import annotations

import pytest
import torch

from bgai.engine.dice import ROLLS
from bgai.engine.movegen import expand
from bgai.model.features import exposure
from bgai.model.shot_features import SHOT_FEATURES, _hits, _tables, shot_features
from tests.positions import pos, random_boards


def blots_of_o(board: torch.Tensor) -> dict[str, float]:
    """The shot units of o (not on roll): how x, on roll, can hit o's blots."""
    values = shot_features(board[None])[0, len(SHOT_FEATURES) :].tolist()
    return dict(zip(SHOT_FEATURES, values, strict=True))


def test_a_combination_shot_must_land_on_open_points():
    # x's checker on 18 is 8 pips from o's blot on x's 10: 6-2 (via 12 or 16), 4-4 and 2-2 (via
    # 14) are blocked by o's points; 5-3 gets through by 15.
    board = pos("x 18:1 6:14; o 10:1 12:2 13:2 14:2 16:2 24:6")
    o = blots_of_o(board)
    assert o["hit_rolls"] == pytest.approx(2 / 36)
    assert o["hit_pip_loss"] == pytest.approx(2 / 36 * 10 / 24)  # the blot is on o's 15-point
    assert o["double_hits"] == 0
    assert exposure(board[None, 0].long(), board[None, 1].long()) == pytest.approx(6 / 36)  # the old count


def test_with_two_on_the_bar_only_entering_and_doubles_hit():
    # x has two on the bar: a 3 enters hitting on 22; o's blot on 16 is reached only by 3-3 (two
    # enter, two more steps 22/19/16), and 1-1 enters on 24 and walks to 22; 5s cannot enter.
    board = pos("x bar:2 6:13; o 22:1 16:1 20:13")
    o = blots_of_o(board)
    assert o["hit_rolls"] == pytest.approx(12 / 36)
    assert o["double_hits"] == pytest.approx(1 / 36)


def _legal_hits(boards: torch.Tensor, roll: tuple[int, int]) -> torch.Tensor:
    """Masks (bit i + 1: o's index i) of o's blots that some legal move of x with ``roll`` hits."""
    dice = torch.tensor([roll]).expand(len(boards), 2)
    children, parent = expand(boards, dice)
    emptied = (boards[parent, 0, :24] == 1) & (children[:, 0, :24] == 0)
    masks = (emptied.long() << (torch.arange(24) + 1)).sum(1)
    out = torch.zeros(len(boards), dtype=torch.long)
    for bit in range(1, 25):
        hit = torch.zeros(len(boards), dtype=torch.long).index_reduce_(0, parent, (masks >> bit) & 1, "amax")
        out |= hit << bit
    return out


@pytest.mark.filterwarnings("ignore:index_reduce")
def test_the_hits_are_those_of_the_legal_moves():
    """Against every legal move of 3,000 random boards (bars included), each roll: the units
    never miss a hit, and claim one only where a rule about using both dice or the larger one
    forbids it (rare with few checkers, rarer with fifteen)."""
    boards = random_boards(11, 3000, opponent_bar=True).long()
    mine = _hits(boards[:, 0], boards[:, 1], _tables(boards.device))
    agree = 0
    for r, roll in enumerate(ROLLS.tolist()):
        legal = _legal_hits(boards, tuple(roll))
        assert not torch.any(legal & ~mine[r]), roll  # nothing legal is missed
        agree += int((legal == mine[r]).sum())
    assert agree / (len(ROLLS) * len(boards)) > 0.995
    # the way taken off the CPU (no data-dependent shapes) gives the same masks
    assert torch.equal(_hits(boards[:, 0], boards[:, 1], _tables(boards.device), subset=False), mine)


def test_swapping_the_sides_swaps_the_units():
    boards = random_boards(5, 400, opponent_bar=True)
    both = shot_features(boards)
    swapped = shot_features(boards.flip(1))
    k = len(SHOT_FEATURES)
    torch.testing.assert_close(swapped, torch.cat([both[:, k:], both[:, :k]], 1))
