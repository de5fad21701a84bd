"""Exact cubeful money equities of two-sided bear-offs: by hand, by the laws of the cube, and
against gnubg's own two-sided database.

gnubg's table stores its equities with limited precision (and was built from rounded values):
on 900 random positions (:func:`random_bearoffs`, seeds 0, 1 and 5) x 3 money cube states,
bgai's ND was within 9.1e-5 of gnubg's (3.6e-5 on average) and DT, twice the opponent-owned ND,
within 1.9e-4, and all 1,800 decisions were gnubg's.
"""

from __future__ import annotations

import numpy as np
import pytest
import torch

from bgai import gnubg as oracle
from bgai.bearoff import BearoffEvaluator, all_positions, load_two_sided, position_index
from bgai.cube import CubeState, Owner, analyse_cube, cube_efficiency
from bgai.cube.analysis import analyse_position, analyse_positions
from bgai.cube.bearoff import (
    OWNERS,
    build_cubeful_two_sided,
    exact_no_double,
    load_cubeful_two_sided,
    with_cube_action,
)
from bgai.engine.board import starting_board
from bgai.engine.dice import ROLL_COUNTS, ROLLS
from bgai.formats import decode_position_id, encode_position_id
from tests.positions import pos

CENTRED, OWNED, THEIRS = (OWNERS.index(o) for o in (Owner.CENTRED, Owner.ME, Owner.OPPONENT))
FLOAT32 = 1e-6  # the table is stored as float32
GNUBG_ND, GNUBG_DT = 1.5e-4, 3e-4  # measured: 9.1e-5 and 1.9e-4 at most (see the module docstring)
LAST_ROLL = "AgAASAAAAAAAAA"  # on roll: the 2 and 4 points; the opponent: his 2 point, off next roll


@pytest.fixture(scope="module")
def evaluator():
    return BearoffEvaluator()


@pytest.fixture(scope="module")
def table():
    """``no_double`` of the full table, float64, without the empty positions."""
    return load_cubeful_two_sided().no_double.double()[1:, 1:]


def random_bearoffs(n: int, seed: int) -> torch.Tensor:
    """``n`` boards, both sides home with 1 to 6 checkers, drawn uniformly from the table's pairs."""
    homes = all_positions(6)
    rng = np.random.default_rng(seed)
    boards = torch.zeros((n, 2, 25), dtype=torch.int8)
    boards[:, 1, :6] = homes[rng.integers(1, len(homes), n)]
    boards[:, 0, :6] = homes[rng.integers(1, len(homes), n)]
    return boards


def indices(board: torch.Tensor) -> tuple[int, int]:
    return int(position_index(board[1, :6])), int(position_index(board[0, :6]))


# --- by hand ------------------------------------------------------------------------------------


def test_lone_checkers_on_the_six_points_by_hand():
    """Each side is off at once with 27 of 36 rolls, and surely after a miss. Cubeless the mover
    wins 3/4 + 1/4 * 1/4 = 13/16. With the cube centred the opponent doubles him out after a
    miss (a last roll at 3/4): ND = 3/4 - 1/4 = 1/2. Owning it he is cubeless (5/8); the
    opponent owning it redoubles him out (1/2), so DT = 2 * 1/2 = 1 = DP."""
    small = build_cubeful_two_sided(1).no_double.double()
    six = indices(pos("x 6; o 19"))
    np.testing.assert_allclose(small[six].numpy(), [1 / 2, 5 / 8, 1 / 2], atol=1e-12)
    assert load_two_sided().win[six].item() == pytest.approx(13 / 16)


def test_a_small_build_is_the_prefix_of_the_full_table():
    small = build_cubeful_two_sided(3).no_double
    n = len(small)
    assert torch.allclose(small, load_cubeful_two_sided().no_double[:n, :n], atol=1e-7)


@pytest.mark.parametrize("plies", [0, 1, 2])
def test_a_last_roll_doubles_and_takes_at_twice_the_cubeless_equity(evaluator, plies):
    """gnubg: ND 0.278, DT 0.556, "Double, take"; Janowski's live cube (x = 0.6) says no double."""
    board = decode_position_id(LAST_ROLL)
    p = load_two_sided().win[indices(torch.as_tensor(board))].item()
    ours = analyse_position(evaluator, board, CubeState.money(), plies=plies)
    assert ours.nd[0] == pytest.approx(2 * p - 1, abs=FLOAT32)
    assert ours.dt[0] == pytest.approx(2 * ours.nd[0], abs=FLOAT32)
    assert ours.decision == ["Double, take"]
    janowski = analyse_cube([[p, 0, 0, 0, 0]], CubeState.money(), cube_efficiency("bearoff_ts"))
    assert janowski.decision[0].startswith("No double")


# --- laws of the cube, over the whole table ------------------------------------------------------


def test_owning_the_cube_beats_a_centred_cube_which_beats_the_opponent_owning_it(table):
    for values in (table, with_cube_action(table.reshape(-1, 3)).view(table.shape)):
        assert (values[..., OWNED] >= values[..., CENTRED] - FLOAT32).all()
        assert (values[..., CENTRED] >= values[..., THEIRS] - FLOAT32).all()


def test_the_owner_never_does_worse_than_cubeless_nor_the_opponent_better(table):
    """The owner may ignore the cube; so may the opponent owning it."""
    cubeless = 2 * load_two_sided().win.double()[1:, 1:] - 1
    assert (table[..., OWNED] >= cubeless - FLOAT32).all()
    assert (table[..., THEIRS] <= cubeless + FLOAT32).all()
    # A centred cube gives both sides their chances: here it moves the equity either way.
    assert (table[..., CENTRED] < cubeless - 0.1).any() and (table[..., CENTRED] > cubeless + 0.1).any()


def test_no_double_lies_in_minus_one_to_one_and_the_taken_cube_in_minus_two_to_two(table):
    assert table.min() >= -1.0 and table.max() <= 1.0
    assert (table == -1.0).any() and (table == 1.0).any()
    double_take = 2 * table[..., THEIRS]
    assert double_take.min() >= -2.0 and double_take.max() <= 2.0


def test_beavers_could_not_change_the_table(table):
    """A beaver answers a double with DT < 0, and nowhere is such a double better than none:
    built with beavers, the table would be the same (so whether gnubg's assumes them is moot)."""
    double_take = 2 * table[..., THEIRS]
    for owner in (CENTRED, OWNED):
        assert not ((double_take < 0) & (double_take > table[..., owner])).any()


# --- in the cube analysis ------------------------------------------------------------------------


def test_the_search_stops_at_two_sided_bearoffs(evaluator):
    boards = random_bearoffs(4, seed=2)
    for state in (CubeState.money(), CubeState.money(2, Owner.ME)):
        zero = analyse_positions(evaluator, boards, state, plies=0)
        for plies in (1, 2):
            deeper = analyse_positions(evaluator, boards, state, plies=plies)
            np.testing.assert_array_equal(deeper.nd, zero.nd)
            np.testing.assert_array_equal(deeper.dt, zero.dt)


def test_a_search_reads_its_bearoff_leaves_from_the_table(evaluator):
    """Seven checkers on the ace bear off two (a double: four) with any roll: every 1-ply leaf
    is a two-sided bear-off, the opponent on roll and free to double as the table says."""
    board = pos("x 1:7; o 19:2 24")
    opponent = int(position_index(board[0, :6]))
    after = [
        int(position_index(pos(f"x 1:{7 - (4 if d1 == d2 else 2)}")[1, :6])) for d1, d2 in ROLLS.tolist()
    ]
    full = load_cubeful_two_sided().no_double.double()
    for state, seen_by_opponent in ((CubeState.money(), CENTRED), (CubeState.money(2, Owner.ME), THEIRS)):
        theirs = with_cube_action(full[opponent, after])[:, seen_by_opponent]
        expected = -(theirs * ROLL_COUNTS.double()).sum() / 36
        ours = analyse_position(evaluator, board, state, plies=1)
        assert ours.nd[0] == pytest.approx(expected.item(), abs=1e-12)


def test_match_play_keeps_janowskis_bearoff_efficiency(evaluator):
    board = decode_position_id(LAST_ROLL)
    state = CubeState.match(7, 0, 0)
    ours = analyse_position(evaluator, board, state)
    janowski = analyse_cube(ours.probs, state, cube_efficiency("bearoff_ts"))
    np.testing.assert_allclose([ours.nd[0], ours.dt[0]], [janowski.nd[0], janowski.dt[0]], atol=1e-12)


def test_only_two_sided_bearoffs_have_exact_equities():
    boards = torch.stack(
        [
            pos("x 2 4; o 23"),  # two-sided: 2 checkers against 1
            torch.as_tensor(starting_board()),
            pos("x 1:7; o 24"),  # 7 checkers: the one-sided database's
            pos("x 7 2; o 23"),  # a checker outside home: a race
        ]
    )
    exact = exact_no_double(boards)
    assert np.isfinite(exact[0]).all() and np.isnan(exact[1:]).all()
    assert np.isnan(exact_no_double(boards[:1], checkers=3)).all()  # hypergammon: gammons are on


# --- gnubg ---------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def gnubg_money(gnubg):
    for command in ("set threads 1", "set output digits 5", "set output mwc off"):
        oracle.command_output(command)
    oracle.command_output("set evaluation cubedecision evaluation plies 0")
    yield
    oracle.command_output("new session")


@pytest.mark.parametrize(("cube", "owner"), [(1, "centred"), (2, "me"), (2, "opponent")])
def test_money_cube_decisions_match_gnubgs_two_sided_database(gnubg_money, evaluator, cube, owner):
    boards = random_bearoffs(300, seed=1)
    ours = analyse_positions(evaluator, boards, CubeState.money(cube, Owner(owner)))
    gnubg = [oracle.cube_analysis(encode_position_id(b.numpy()), cube=cube, owner=owner) for b in boards]
    np.testing.assert_allclose(ours.nd, [g[0] for g in gnubg], atol=GNUBG_ND)
    if owner == "opponent":  # gnubg: "You cannot double."
        assert all(g[3] is None for g in gnubg)
        return
    np.testing.assert_allclose(ours.dt, [g[1] for g in gnubg], atol=GNUBG_DT)
    assert ours.decision == [g[3] for g in gnubg]
