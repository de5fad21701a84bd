"""Bear-off databases: indexing, hand-checked roll counts, and agreement with gnubg's databases.

gnubg's tables (``gnubg_nn.bearoff_probabilities`` for one side, ``gnubg_nn.probabilities`` for
bear-off positions) are the oracle. They store 16-bit fixed point numbers (steps of 1/65535)
and were themselves built with rounded values, so where two plays are within about 1e-4 rolls
of each other gnubg may pick the other one: the distributions then differ by up to a few
thousandths while the expected roll counts still agree to about 2e-4.
"""

from __future__ import annotations

import numpy as np
import pytest
import torch

from bgai import gnubg as oracle
from bgai.bearoff import (
    BearoffEvaluator,
    RaceTables,
    all_positions,
    build_one_sided,
    build_two_sided,
    is_bearoff,
    load_one_sided,
    one_sided_probs,
    position_count,
    position_index,
)
from bgai.engine.board import starting_board
from bgai.search.evaluator import terminal_probs

pytestmark = pytest.mark.gnubg


def home(*points: tuple[int, int]) -> list[int]:
    """A home position from (point, checkers) pairs, e.g. ``home((6, 2), (1, 3))``."""
    row = [0] * 6
    for point, n in points:
        row[point - 1] = n
    return row


def index_of(*points: tuple[int, int]) -> int:
    return int(position_index(torch.tensor(home(*points))))


def bearoff_board(mover: list[int], opponent: list[int]) -> torch.Tensor:
    """A (2, 25) board with both sides' checkers on their own home points only."""
    board = torch.zeros(2, 25, dtype=torch.int8)
    board[1, :6] = torch.tensor(mover)
    board[0, :6] = torch.tensor(opponent)
    return board


@pytest.fixture(scope="module")
def one_sided():
    return load_one_sided()


@pytest.fixture(scope="module")
def small_two_sided():
    """The exact two-sided table for up to 4 checkers a side (126 x 126, well under a second)."""
    return build_two_sided(4)


# --- indexing ------------------------------------------------------------------------------


def test_index_ranks_every_position_once_and_round_trips():
    positions = all_positions(15)
    assert len(positions) == position_count(15) == 54_264
    assert torch.equal(position_index(positions), torch.arange(len(positions)))
    assert len(torch.unique(positions, dim=0)) == len(positions)


def test_fewer_checkers_come_first_so_small_databases_are_prefixes():
    positions = all_positions(15)
    checkers = positions.long().sum(1)
    assert (checkers[1:] >= checkers[:-1]).all()
    assert torch.equal(all_positions(6), positions[: position_count(6)])
    assert index_of() == 0


def test_moving_a_checker_down_or_off_lowers_the_index():
    assert index_of((5, 1), (2, 3)) < index_of((6, 1), (2, 3))
    assert index_of((6, 1), (1, 3)) < index_of((6, 1), (2, 3))
    assert index_of((6, 1), (2, 2)) < index_of((6, 1), (2, 3))


# --- one-sided: hand-checked cases ---------------------------------------------------------


def test_one_checker_on_the_ace_point_is_off_in_one_roll(one_sided):
    assert one_sided.rolls[index_of((1, 1))][1] == 1.0
    assert one_sided.rolls[index_of((1, 2))][1] == 1.0  # any roll takes two checkers off the 1


def test_nothing_left_needs_no_roll(one_sided):
    assert one_sided.rolls[0][0] == 1.0


def test_one_checker_on_the_six_point():
    # It comes off unless the roll moves it fewer than 6 pips: 1-1 (4 pips), 2-1, 3-1, 4-1, 3-2.
    rolls = build_one_sided(1).rolls[index_of((6, 1))]
    assert rolls[1].item() == pytest.approx(27 / 36)
    assert rolls[2].item() == pytest.approx(9 / 36)


def test_two_checkers_on_the_six_point_need_a_double_of_threes_or_more():
    rolls = build_one_sided(2).rolls[index_of((6, 2))]
    assert rolls[1].item() == pytest.approx(4 / 36)  # 3-3, 4-4, 5-5, 6-6


def test_first_checker_off_from_fifteen_on_the_six_point(one_sided):
    # With checkers left behind on the 6 a die bears off only from its own point: any 6 (11
    # rolls), 5-1 (6/1/off), 4-2 (6/2/off), 2-2 and 3-3. Not 4-3: 6/2 cannot bear off with the 3.
    first = one_sided.first_off[index_of((6, 15))]
    assert first[1].item() == pytest.approx(17 / 36)
    # With a checker already off the gammon is saved: 0 rolls.
    assert one_sided.first_off[index_of((6, 14))][0] == 1.0


def test_distributions_sum_to_one(one_sided):
    assert torch.allclose(
        one_sided.rolls.double().sum(1), torch.ones(len(one_sided.rolls), dtype=torch.float64)
    )
    assert torch.allclose(
        one_sided.first_off.double().sum(1), torch.ones(len(one_sided.rolls), dtype=torch.float64)
    )


def test_a_small_build_is_the_prefix_of_the_shipped_database(one_sided):
    small = build_one_sided(4)
    assert torch.equal(small.rolls, one_sided.rolls[: len(small.rolls)])
    assert torch.equal(small.first_off, one_sided.first_off[: len(small.rolls)])


# --- one-sided: gnubg ----------------------------------------------------------------------


def gnubg_rolls(homes: torch.Tensor) -> np.ndarray:
    """gnubg's distributions in our layout: its entry ``i`` is P(``i + 1`` rolls)."""
    gnubg_nn = oracle.nn()
    out = np.zeros((len(homes), 32))
    for row, h in enumerate(homes.tolist()):
        probs = gnubg_nn.bearoff_probabilities(tuple(h))
        out[row, 1 : 1 + len(probs)] = probs
    return out


def test_rolls_agree_with_gnubg_one_sided_database(one_sided):
    rng = np.random.default_rng(1)
    idx = torch.as_tensor(rng.choice(np.arange(1, len(one_sided.rolls)), 3000, replace=False))
    theirs = gnubg_rolls(all_positions(15)[idx])
    ours = one_sided.rolls[idx].double().numpy()
    gap = np.abs(ours - theirs).max(1)
    assert np.quantile(gap, 0.99) < 1e-4
    assert gap.max() < 5e-3
    counts = np.arange(32)
    assert np.abs(ours @ counts - theirs @ counts).max() < 3e-4


def test_every_position_of_up_to_four_checkers_matches_gnubg_to_a_few_of_its_steps(one_sided):
    n = position_count(4)
    theirs = gnubg_rolls(all_positions(4)[1:])
    assert np.abs(one_sided.rolls[1:n].double().numpy() - theirs).max() < 4 / 65535


# --- two-sided -----------------------------------------------------------------------------


def test_two_sided_by_hand(small_two_sided):
    six, ace = index_of((6, 1)), index_of((1, 1))
    # Lone checkers on the 6: the mover gets off at once (3/4) or after the opponent misses.
    assert small_two_sided.win[six, six].item() == pytest.approx(3 / 4 + 1 / 4 * 1 / 4)
    assert small_two_sided.win[ace, six].item() == 1.0
    assert small_two_sided.win[0, six].item() == 1.0  # nothing left: already won
    assert small_two_sided.win[six, 0].item() == 0.0  # the opponent has already won


def test_two_sided_agrees_with_one_sided_where_the_race_is_decided(one_sided, small_two_sided):
    table = small_two_sided.win
    n = len(table)
    rolls = one_sided.rolls[:n]
    sure_in_one = rolls[:, 1] == 1.0
    never_in_one = (rolls[:, 1] == 0.0) & (torch.arange(n) > 0)
    # A mover who is off in one roll wins; one who cannot finish now loses to such an opponent.
    assert (table[sure_in_one][:, 1:] == 1.0).all()  # column 0: the opponent already won
    assert (table[never_in_one][:, sure_in_one & (torch.arange(n) > 0)] == 0.0).all()
    mover, opponent = torch.meshgrid(torch.arange(1, n), torch.arange(1, n), indexing="ij")
    approx = one_sided_probs(RaceTables.from_db(one_sided), mover.reshape(-1), opponent.reshape(-1))[:, 0]
    gap = (approx - table[1:, 1:].reshape(-1)).abs()
    assert gap.max() < 0.02 and gap.mean() < 2e-3


def test_two_sided_matches_gnubg_exact_bearoff_table(small_two_sided, gnubg_nn):
    positions = all_positions(4)
    n = len(positions)
    mover, opponent = torch.meshgrid(torch.arange(1, n), torch.arange(1, n), indexing="ij")
    boards = torch.zeros((len(mover.reshape(-1)), 2, 25), dtype=torch.int8)
    boards[:, 1, :6] = positions[mover.reshape(-1)]
    boards[:, 0, :6] = positions[opponent.reshape(-1)]
    theirs = np.array([gnubg_nn.probabilities(b.tolist(), 0)[0] for b in boards])
    ours = small_two_sided.win[1:, 1:].reshape(-1).double().numpy()
    assert np.abs(ours - theirs).max() < 1e-4


# --- the evaluator -------------------------------------------------------------------------


class ConstantEvaluator:
    """A fallback that remembers what it was asked and answers 0.5 / 0.1 / 0.01 ..."""

    def __init__(self) -> None:
        self.seen: list[torch.Tensor] = []

    def evaluate(self, boards: torch.Tensor) -> torch.Tensor:
        self.seen.append(boards)
        return torch.tensor([0.5, 0.1, 0.01, 0.1, 0.01]).expand(len(boards), 5)


@pytest.fixture(scope="module")
def evaluator(one_sided, small_two_sided):
    return BearoffEvaluator(ConstantEvaluator(), one_sided=one_sided, two_sided=small_two_sided)


def test_is_bearoff_needs_both_sides_home():
    bear = bearoff_board(home((6, 3)), home((1, 15)))
    back = bear.clone()
    back[0, 24] = 1  # an opponent checker on the bar
    outfield = bear.clone()
    outfield[1, 6] = 1  # a mover checker on its 7-point
    boards = torch.stack([bear, back, outfield, torch.as_tensor(starting_board())])
    assert is_bearoff(boards).tolist() == [True, False, False, False]
    assert isinstance(is_bearoff(boards.numpy()), np.ndarray)


def test_is_bearoff_agrees_with_its_definition_on_many_boards():
    gen = torch.Generator().manual_seed(3)
    weights = torch.ones(25)
    weights[:6] = 40.0  # mostly home boards, so both answers are common
    slots = torch.multinomial(weights.repeat(4000, 1), 15, replacement=True, generator=gen)
    boards = torch.zeros(4000, 25, dtype=torch.int8).scatter_add_(
        1, slots, torch.ones_like(slots, dtype=torch.int8)
    )
    boards = boards.view(2000, 2, 25)
    expected = (boards[..., 6:] == 0).all(-1).all(-1)
    assert 100 < int(expected.sum()) < 1900
    assert torch.equal(is_bearoff(boards), expected)


def test_evaluator_routes_other_positions_to_the_fallback(evaluator):
    start = torch.as_tensor(starting_board())
    bear = bearoff_board(home((1, 1)), home((6, 15)))
    probs = evaluator.evaluate(torch.stack([start, bear, start]))
    assert torch.equal(torch.cat(evaluator.fallback.seen[-1:]), torch.stack([start, start]))
    assert probs[0].tolist() == pytest.approx([0.5, 0.1, 0.01, 0.1, 0.01])
    assert probs[1].tolist() == [1.0, 1.0, 0.0, 0.0, 0.0]  # off in one roll, a gammon
    no_bearoffs = evaluator.evaluate(torch.stack([start, start]))  # the path without copies
    assert no_bearoffs.dtype == torch.float32 and torch.equal(no_bearoffs, probs[[0, 2]])


def test_evaluator_without_fallback_refuses_other_positions(one_sided, small_two_sided):
    bare = BearoffEvaluator(None, one_sided=one_sided, two_sided=small_two_sided)
    with pytest.raises(ValueError, match="not bear-offs"):
        bare.evaluate(torch.as_tensor(starting_board())[None])


def test_game_over_positions(evaluator):
    boards = torch.stack(
        [
            bearoff_board(home(), home((6, 15))),  # mover has just finished: a gammon
            bearoff_board(home(), home((6, 14))),  # a single game
            bearoff_board(home((3, 15)), home()),  # the opponent finished: we are gammoned
        ]
    )
    assert evaluator.evaluate(boards).tolist() == [
        [1.0, 1.0, 0.0, 0.0, 0.0],
        [1.0, 0.0, 0.0, 0.0, 0.0],
        [0.0, 0.0, 0.0, 1.0, 0.0],
    ]


def test_finished_games_match_the_search_layers_terminal_outcomes(evaluator):
    positions = all_positions(15)
    rng = np.random.default_rng(3)
    boards = torch.zeros((400, 2, 25), dtype=torch.int8)
    boards[:200, 0, :6] = positions[rng.integers(1, len(positions), 200)]  # the mover has finished
    boards[200:, 1, :6] = positions[rng.integers(1, len(positions), 200)]  # the opponent has
    probs, finished = terminal_probs(boards)
    assert finished.all()
    assert torch.equal(evaluator.evaluate(boards), probs)


def test_evaluator_agrees_with_gnubg_on_sampled_bearoffs(evaluator, gnubg_nn):
    """Both sides in the exact table (up to 4 checkers here), or at least one side beyond gnubg's
    6-checker two-sided table, so that both programs use the same method."""
    positions = all_positions(15)
    checkers = positions.long().sum(1)
    rng = np.random.default_rng(2)

    def some(n: int, where: torch.Tensor) -> torch.Tensor:
        return torch.as_tensor(rng.choice(np.nonzero(where.numpy())[0], n))

    anyone = checkers > 0
    exact = some(1000, (checkers > 0) & (checkers <= 4)).view(2, -1)
    one_sided = torch.stack([some(1000, anyone), some(1000, checkers >= 7)])
    gammons = torch.stack([some(500, (checkers > 0) & (checkers <= 5)), some(500, checkers == 15)])
    mover, opponent = torch.cat([exact, one_sided, gammons, gammons.flip(0)], 1)
    boards = torch.zeros((len(mover), 2, 25), dtype=torch.int8)
    boards[:, 1, :6] = positions[mover]
    boards[:, 0, :6] = positions[opponent]
    ours = evaluator.evaluate(boards).double().numpy()
    theirs = np.array([gnubg_nn.probabilities(b.tolist(), 0) for b in boards])
    gap = np.abs(ours - theirs)
    assert gap[:, 0].max() < 1e-4  # winning chances: exact table or one-sided formula, as gnubg
    # Gammons: gnubg's first-checker-off data is not exact (see the test below), rarely off by
    # more than its rounding.
    assert np.quantile(gap[:, [1, 3]], 0.99) < 1e-4 and gap.max() < 1e-2
    assert (ours[:, 1] > 0.01).sum() > 100 and (ours[:, 3] > 1e-3).sum() > 50  # gammons are tested


def test_gammon_needs_the_first_checker_off_by_the_rules(evaluator, gnubg_nn):
    """15 checkers on the 3-point bear one off at once except with 2-2 (gnubg_nn.moves agrees: 3/1(4),
    nothing off), so a lone checker on the 6 facing them wins a gammon 3/4 + 1/4 * 1/36 of the
    time. gnubg's database says 3/4: it takes the first checker as sure to come off."""
    board = [[0] * 25, [0] * 25]
    board[1][2] = 15
    keys = gnubg_nn.moves(board, 2, 2)
    assert [gnubg_nn.board_from_position_key(k)[1][:6] for k in keys] == [(4, 0, 11, 0, 0, 0)]
    probs = evaluator.evaluate(bearoff_board(home((6, 1)), home((3, 15)))[None])[0]
    assert probs[1].item() == pytest.approx(3 / 4 + 1 / 4 * 1 / 36)
    assert gnubg_nn.probabilities(bearoff_board(home((6, 1)), home((3, 15))).tolist(), 0)[1] == pytest.approx(
        0.75, abs=1e-4
    )
