"""Cube decisions of positions: the match state seen from the player on roll, evaluators turned
into gnubg's ND / DT / DP, the cubeful 1- and 2-ply search, and the bots' cube actions.

gnubg (the optional extra) is the oracle for the player numbering and score conversions: its own
0-ply cube analysis of a handful of GNUbgIDs must come out of ``analyse_position`` with gnubg's
net as the evaluator.
"""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest
import torch

from bgai import gnubg as oracle
from bgai.cube import CubeState, Owner, analyse_cube, cube_efficiency
from bgai.cube.analysis import (
    analyse_position,
    analyse_positions,
    cube_action,
    cube_efficiencies,
    cube_state,
    position_classes,
    why_no_double,
)
from bgai.cube.search import cube_analysis, roll_tree
from bgai.engine.board import starting_board
from bgai.formats import MatchState, decode_gnubg_id, decode_position_id
from bgai.search.evaluator import GnubgEvaluator, terminal_probs

MONEY = MatchState(match_length=0, jacoby=True, beavers=True)


class FixedEvaluator:
    """The same probabilities for every live position; finished games get their exact result."""

    def __init__(self, probs) -> None:
        self.probs = torch.tensor(probs, dtype=torch.float32)

    def evaluate(self, boards: torch.Tensor) -> torch.Tensor:
        probs, finished = terminal_probs(boards)
        probs[~finished] = self.probs
        return probs


ON_ROLL_WINS = FixedEvaluator([1.0, 0.0, 0.0, 0.0, 0.0])
"""Exact in the last-roll positions below: whoever is on roll after the mover's miss bears off."""

# cube.md §3.1: the player on roll has two checkers left, the opponent one on his ace point.
LAST_ROLL = {  # Position ID -> rolls (of 36) that bear off both checkers
    "AQAAoAAAAAAAAA": 10,  # 5 and 4
    "AQAABAEAAAAAAA": 15,  # 6 and 1
    "AQAAUAAAAAAAAA": 17,  # 4 and 3
    "AQAAiAAAAAAAAA": 19,  # 5 and 2
    "AQAAKAAAAAAAAA": 25,  # 3 and 2
    "AQAAFAAAAAAAAA": 36,  # 2 and 1
}


# --- the cube state of the player on roll -------------------------------------------------


def test_money_cube_owner_is_relative_to_the_player_on_roll():
    owned = MatchState(cube_value=2, cube_owner=1, on_roll=1, jacoby=True, beavers=True)
    assert cube_state(owned) == CubeState.money(2, Owner.ME, jacoby=True, beavers=True)
    theirs = MatchState(cube_value=4, cube_owner=1, on_roll=0, jacoby=False)
    assert cube_state(theirs) == CubeState.money(4, Owner.OPPONENT, jacoby=False, beavers=False)
    assert cube_state(MatchState(on_roll=0)).owner is Owner.CENTRED


def test_a_bare_position_id_is_money_with_gnubgs_defaults():
    assert cube_state(None) == CubeState.money(jacoby=True, beavers=True)


def test_a_match_id_cannot_say_beavers_so_the_caller_may():
    assert cube_state(MatchState(jacoby=True), beavers=True).beavers
    assert not cube_state(MatchState(jacoby=True, beavers=True), beavers=False).beavers


def test_match_score_is_counted_from_the_player_on_roll():
    # Player 0 has 3 and player 1 has 5 points in a 7-point match.
    zero = cube_state(MatchState(match_length=7, score=(3, 5), on_roll=0))
    assert (zero.my_away, zero.opp_away) == (4, 2)
    one = cube_state(MatchState(match_length=7, score=(3, 5), on_roll=1, cube_value=2, cube_owner=0))
    assert (one.my_away, one.opp_away, one.cube, one.owner) == (2, 4, 2, Owner.OPPONENT)


def test_crawford_game_has_no_doubling():
    state = cube_state(MatchState(match_length=7, score=(6, 3), crawford=True, on_roll=1))
    assert state.crawford and (state.my_away, state.opp_away) == (4, 1)
    assert why_no_double(state) == "Crawford game: no doubling"


def test_post_crawford_only_the_trailer_may_double():
    leader = cube_state(MatchState(match_length=7, score=(6, 3), on_roll=0))
    trailer = cube_state(MatchState(match_length=7, score=(6, 3), on_roll=1))
    assert leader.is_post_crawford and "leader" in why_no_double(leader)
    assert trailer.is_post_crawford and why_no_double(trailer) is None


def test_reasons_for_a_cube_that_cannot_be_turned():
    assert "opponent owns" in why_no_double(CubeState.money(2, Owner.OPPONENT))
    dead = CubeState.match(5, 3, 1, 2, Owner.ME)  # 2-away owning a 2-cube
    assert "dead cube" in why_no_double(dead)


def test_a_finished_match_is_an_error():
    with pytest.raises(ValueError, match="match is over"):
        cube_state(MatchState(match_length=5, score=(5, 2)))


# --- position classes and cube efficiency --------------------------------------------------


def test_position_classes_follow_gnubg():
    race = torch.zeros((2, 25), dtype=torch.int8)  # contact broken, checkers still outside home
    race[1, [0, 4, 7]] = torch.tensor([5, 5, 5], dtype=torch.int8)  # on roll: 1, 5 and 8 points
    race[0, [2, 5, 9]] = torch.tensor([5, 5, 5], dtype=torch.int8)  # opponent: its 3, 6 and 10 points
    home15 = torch.zeros((2, 25), dtype=torch.int8)
    home15[:, :6] = torch.tensor([3, 3, 3, 2, 2, 2])
    home6 = torch.zeros((2, 25), dtype=torch.int8)
    home6[:, :3] = 2
    boards = torch.stack([torch.as_tensor(starting_board()), torch.as_tensor(race), home15, home6])
    assert position_classes(boards) == ["contact", "race", "bearoff_os", "bearoff_ts"]
    pips = int((torch.arange(1, 26) * torch.as_tensor(race)[1]).sum())
    expected = [0.76, cube_efficiency("race", pips), 0.6, 0.6]
    np.testing.assert_allclose(cube_efficiencies(boards), expected)
    np.testing.assert_allclose(
        cube_efficiencies(boards, plies=2)[:2], [0.68, cube_efficiency("race", pips, plies=2)]
    )


# --- analyses against gnubg and against the probability-only module ---------------------------


@pytest.fixture(scope="module")
def gnubg_0ply(gnubg):
    """gnubg's 0-ply net as an evaluator, with gnubg's own cube analysis set to 0-ply."""
    for command in ("set threads 1", "set output digits 5", "set output mwc off"):
        oracle.command_output(command)
    oracle.command_output("set evaluation cubedecision evaluation plies 0")
    yield GnubgEvaluator(0)
    oracle.command_output("new session")  # leave gnubg in a money session, as other tests find it


# (cube, gnubg owner: -1 centred, player on roll fMove, match length, score, crawford, Jacoby)
GNUBG_CASES = [
    (1, -1, 1, 0, (0, 0), 0, 1),
    (2, 0, 0, 0, (0, 0), 0, 0),
    (2, 1, 0, 0, (0, 0), 0, 1),  # the opponent owns the cube
    (1, -1, 0, 7, (2, 4), 0, 0),
    (1, -1, 1, 7, (2, 4), 0, 0),
    (2, 1, 1, 7, (4, 2), 0, 0),
    (1, -1, 1, 7, (6, 3), 0, 0),  # post-Crawford, the trailer (player 1, 3 points) is on roll
    (1, -1, 0, 7, (6, 3), 0, 0),  # post-Crawford, the leader is on roll: no doubling
    (1, -1, 0, 7, (6, 3), 1, 0),  # the Crawford game
    (2, 0, 0, 5, (3, 1), 0, 0),
]


@pytest.mark.parametrize("pid", ["mOfBIUDb1hgAAw", "sM8BwUHbeIUEIA"])
@pytest.mark.parametrize("case", GNUBG_CASES)
def test_gnubg_ids_analyse_as_gnubg_does(gnubg_0ply, pid, case):
    cube, owner, on_roll, length, score, crawford, jacoby = case
    match_id = oracle.match_id(length, score, cube, owner, on_roll, crawford, jacoby)
    nd, dt, _, decision = oracle.cube_hint(f"{pid}:{match_id}", beavers=True)

    board, match_state = decode_gnubg_id(f"{pid}:{match_id}")
    state = cube_state(match_state, beavers=True)
    if decision is None:  # gnubg: "You cannot double."
        assert why_no_double(state) is not None
        return
    assert why_no_double(state) is None
    ours = analyse_position(gnubg_0ply, board, state)
    assert ours.nd[0] == pytest.approx(nd, abs=1e-3)
    assert ours.dt[0] == pytest.approx(dt, abs=1e-3)
    assert ours.decision[0] == decision


@pytest.mark.parametrize(
    "state",
    [CubeState.money(), CubeState.money(2, Owner.ME), CubeState.match(7, 2, 4), CubeState.match(5, 3, 1)],
)
def test_zero_ply_is_the_cube_module_on_the_evaluators_probabilities(state):
    probs = [0.68, 0.22, 0.01, 0.08, 0.004]
    board = torch.as_tensor(starting_board())
    ours = analyse_position(FixedEvaluator(probs), board, state)
    expected = analyse_cube([probs], state, cube_efficiency("contact"))
    np.testing.assert_allclose(
        [ours.nd[0], ours.dt[0], ours.dp[0]], [expected.nd[0], expected.dt[0], 1.0], atol=1e-6
    )
    assert ours.decision == expected.decision
    np.testing.assert_allclose(ours.probs[0], probs, atol=1e-6)


def test_many_positions_with_their_own_cube_states_equal_one_at_a_time():
    boards = torch.as_tensor(np.stack([decode_position_id(pid) for pid in LAST_ROLL]))
    states = [CubeState.money(), CubeState.match(7, 2, 4), CubeState.money(2, Owner.ME)] * 2
    together = analyse_positions(ON_ROLL_WINS, boards, states, plies=1)
    for i, (board, state) in enumerate(zip(boards, states, strict=True)):
        alone = analyse_position(ON_ROLL_WINS, board, state, plies=1)
        assert together.nd[i] == pytest.approx(alone.nd[0])
        assert together.dt[i] == pytest.approx(alone.dt[0])
        assert together.decision[i] == alone.decision[0]


# --- the cubeful search ------------------------------------------------------------------------


def search_alone(evaluator, board, state: CubeState, plies: int):
    """The cubeful search with Janowski's leaves only: the tree without the exact money table
    of two-sided bear-offs (:mod:`bgai.cube.bearoff`), which every position here is."""
    tree = roll_tree(evaluator, torch.as_tensor(board)[None], plies)
    return cube_analysis(dataclasses.replace(tree, exact=()), state)


@pytest.mark.parametrize("plies", [1, 2])
@pytest.mark.parametrize("pid", list(LAST_ROLL))
def test_last_roll_positions_are_exact_at_one_and_two_plies(pid, plies):
    """Money, centred cube: ND = 2p - 1 and DT = 2(2p - 1) with p the share of the 21 rolls
    (doubles once, the others twice) that bear off both checkers (cube.md §3.1)."""
    p = LAST_ROLL[pid] / 36
    ours = search_alone(ON_ROLL_WINS, decode_position_id(pid), CubeState.money(), plies)
    assert ours.nd[0] == pytest.approx(2 * p - 1, abs=1e-12)
    assert ours.dt[0] == pytest.approx(2 * (2 * p - 1), abs=1e-12)
    assert ours.probs[0, 0] == pytest.approx(p, abs=1e-12)
    expected = "No double" if p < 0.5 else "Double, take" if p <= 0.75 else "Double, pass"
    assert ours.decision[0].startswith(expected)


def test_the_zero_ply_leaf_misses_the_dead_cube_that_the_search_sees():
    """Janowski with a live cube says no double at p = 19/36; one ply of lookahead doubles, and
    so does the exact table of money bear-offs at 0-ply already."""
    board = decode_position_id("AQAAiAAAAAAAAA")
    exact_probs = FixedEvaluator([19 / 36, 0, 0, 0, 0])
    assert search_alone(exact_probs, board, CubeState.money(), 0).decision[0].startswith("No double")
    assert search_alone(ON_ROLL_WINS, board, CubeState.money(), 1).decision[0] == "Double, take"
    assert analyse_position(exact_probs, board, CubeState.money(), plies=0).decision[0] == "Double, take"


def test_the_roll_tree_has_21_leaves_per_ply():
    boards = torch.as_tensor(np.stack([decode_position_id(pid) for pid in list(LAST_ROLL)[:2]]))
    tree = roll_tree(ON_ROLL_WINS, boards, 2)
    assert tree.probs.shape == (2 * 21 * 21, 5) and tree.x.shape == (2 * 21 * 21,)
    assert tree.subset([1]).n == 1
    np.testing.assert_allclose(tree.cubeless()[:, 0], [10 / 36, 15 / 36])


# --- what a bot does ---------------------------------------------------------------------------


def offered(**fields) -> MatchState:
    return MatchState(double_offered=True, **{"jacoby": True, "beavers": True, **fields})


def test_cube_action_before_the_roll():
    assert cube_action(ON_ROLL_WINS, decode_position_id("AQAAKAAAAAAAAA"), MONEY, plies=1) == "double"
    assert cube_action(ON_ROLL_WINS, decode_position_id("AQAAoAAAAAAAAA"), MONEY, plies=1) == "no double"


def test_cube_action_answers_a_double_from_the_doublers_board():
    def answer(pid, **fields):
        return cube_action(ON_ROLL_WINS, decode_position_id(pid), offered(**fields), plies=1)

    assert answer("AQAAKAAAAAAAAA") == "take"  # 25/36
    assert answer("AQAAFAAAAAAAAA") == "pass"  # 36/36
    assert answer("AQAAUAAAAAAAAA") == "beaver"  # 17/36: the taker is the favourite
    assert answer("AQAAUAAAAAAAAA", beavers=False) == "take"


def test_cube_action_says_why_the_cube_cannot_be_turned():
    crawford = MatchState(match_length=7, score=(6, 3), crawford=True)
    with pytest.raises(ValueError, match="Crawford game: no doubling"):
        cube_action(ON_ROLL_WINS, decode_position_id("AQAAKAAAAAAAAA"), crawford)


def test_in_a_match_the_lookahead_picks_each_reply_by_the_movers_match_winning_chance():
    """At 1-away post-Crawford gammons are worth nothing to the leader and everything to the
    trailer: the tree's replies maximise the mover's cubeless MWC at the score, not money equity."""
    from bgai.bots import evaluator_of
    from bgai.cube.match import cubeless_mwc
    from bgai.engine.board import swap_sides
    from bgai.engine.dice import ROLLS
    from bgai.engine.movegen import expand
    from bgai.model.probs import invert
    from bgai.search.evaluator import afterstate_values
    from bgai.specs import load_player

    evaluator = evaluator_of(load_player("best_2c"))[0]  # whose replies differ by money and by MWC here
    # best-intermediate-006, game 6, move 10, the sides swapped: the leader (1-away, owning the
    # 2-cube) on roll against the trailer at 3-away
    board = swap_sides(torch.as_tensor(decode_position_id("0zrIAQyx7Q0GAA"))[None])
    leader = CubeState.match(7, 6, 4, cube=2, owner=Owner.ME)
    money = roll_tree(evaluator, board, 1)
    tree = roll_tree(evaluator, board, 1, states=[leader])
    assert np.array_equal(roll_tree(evaluator, board, 1, states=[CubeState.money()]).probs, money.probs)
    children, parent = expand(board.repeat(21, 1, 1), ROLLS)
    mwc = cubeless_mwc(afterstate_values(evaluator, children).double().numpy(), leader)
    chosen = cubeless_mwc(invert(tree.probs), leader)  # the leader's MWC of each roll's reply
    best = np.array([mwc[parent.numpy() == r].max() for r in range(21)])
    np.testing.assert_allclose(chosen, best, atol=1e-6)
    by_money = cubeless_mwc(invert(money.probs), leader)
    assert (by_money <= best + 1e-9).all() and (by_money < best - 1e-4).any()  # here it matters
