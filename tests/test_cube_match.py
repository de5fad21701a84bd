"""Match-play cube: the MET, take points and gammon values at a score, availability rules."""

from __future__ import annotations

import numpy as np
import pytest

from bgai.cube import NOT_AVAILABLE, CubeState, Owner, analyse_cube, kazaross_xg2
from bgai.cube.match import (
    cubeful_mwc,
    cubeless_mwc,
    dead_take_point,
    equity_to_mwc,
    live_cash_points,
    mwc_to_equity,
)

OPENING = [
    0.5214855670928955,
    0.15417563915252686,
    0.0075654503889381886,
    0.1296507716178894,
    0.007496579084545374,
]
CONTACT_X = 0.76
MET = kazaross_xg2()


# --- the table ------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("my_away", "opp_away", "mwc"),
    [
        (1, 2, 0.6774),
        (2, 1, 0.3226),
        (3, 3, 0.5),
        (3, 5, 0.6479),
        (5, 3, 0.3521),
        (4, 7, 0.6992),
        (7, 4, 0.3008),
    ],
)
def test_kazaross_xg2_values(my_away, opp_away, mwc):
    assert MET.name == "Kazaross-XG2"
    assert MET.mwc(my_away, opp_away) == pytest.approx(mwc, abs=1e-4)


def test_met_is_complementary_and_covers_64_points():
    assert MET.max_away == 64
    np.testing.assert_allclose(MET.pre_crawford + MET.pre_crawford.T, 1.0, atol=2e-7)
    assert MET.mwc(0, 5) == 1.0 and MET.mwc(5, 0) == 0.0


@pytest.mark.parametrize(
    ("trailer_away", "mwc"), [(2, 0.4880), (3, 0.3226), (4, 0.3100), (5, 0.1901), (7, 0.1156)]
)
def test_post_crawford_trailer_equities_step_at_even_aways(trailer_away, mwc):
    assert MET.mwc(trailer_away, 1, post_crawford=True) == pytest.approx(mwc, abs=1e-4)
    assert MET.mwc(1, trailer_away, post_crawford=True) == pytest.approx(1 - mwc, abs=1e-4)


def test_reaching_1_away_starts_the_crawford_game_only_once():
    # 3-away vs 3-away, I win 2: Crawford game at 1-away vs 3-away.
    assert MET.mwc_after(3, 3, 2, crawford_done=False) == pytest.approx(MET.pre_crawford[0, 2])
    # Already post-Crawford (opponent 1-away): I win 2 from 4-away -> post-Crawford 2-away.
    assert MET.mwc_after(4, 1, 2, crawford_done=True) == pytest.approx(MET.post_crawford[1])
    assert MET.mwc_after(4, 1, -1, crawford_done=True) == 0.0


# --- take points and gammon values at a score ---------------------------------------------


@pytest.mark.parametrize(
    ("state", "take_point"),
    [
        (CubeState.match(3, 0, 0), 0.302),  # 3a3a: 30.2 % (money: 25 %)
        (CubeState.match(7, 5, 5), 0.323),  # 2a2a: game for the match, TP = MWC after a pass
        (CubeState.match(5, 3, 1), 0.186),  # doubler 2a, taker 4a redoubles at once: 18.6 %
    ],
)
def test_dead_cube_take_points_from_the_met(state, take_point):
    assert dead_take_point(state) == pytest.approx(take_point, abs=5e-4)


@pytest.mark.parametrize(
    ("state", "mine", "theirs"),
    [
        (CubeState.match(7, 0, 0), 0.509, 0.509),
        (CubeState.match(7, 0, 0, 2, Owner.ME), 0.537, 0.537),
        (CubeState.match(5, 3, 1), 0.864, 0.463),
        (CubeState.match(3, 0, 0), 0.760, 0.760),
        (CubeState.match(3, 1, 0), 0.994, 0.707),
        (CubeState.match(7, 4, 0), 0.496, 0.483),
    ],
)
def test_gammon_values_at_a_score_match_gnubg(state, mine, theirs):
    assert MET.gammon_values(state) == pytest.approx((mine, theirs), abs=1e-3)


# --- cubeful MWC and normalised equity ----------------------------------------------------


def test_double_pass_is_plus_one_and_the_conversion_round_trips():
    state = CubeState.match(7, 2, 4, 2, Owner.ME)
    win = MET.outcome_mwc(state, 2)
    assert mwc_to_equity(win, state) == pytest.approx(1.0)
    assert mwc_to_equity(MET.outcome_mwc(state, -2), state) == pytest.approx(-1.0)
    assert equity_to_mwc(mwc_to_equity(0.37, state), state) == pytest.approx(0.37)


def test_zero_cube_efficiency_gives_the_cubeless_mwc():
    probs = np.array([OPENING, [0.7, 0.3, 0.02, 0.05, 0.0]])
    state = CubeState.match(9, 2, 4)
    np.testing.assert_allclose(cubeful_mwc(probs, state, 0.0), cubeless_mwc(probs, state))


def test_symmetric_score_gives_symmetric_cash_points():
    no_gammons = [[0.5, 0.0, 0.0, 0.0, 0.0]]
    mine, theirs = live_cash_points(no_gammons, CubeState.match(7, 0, 0))
    assert mine[0] == pytest.approx(theirs[0])
    assert 0.7 < mine[0] < 0.8


def test_post_crawford_leader_never_cashes():
    mine, theirs = live_cash_points([OPENING], CubeState.match(7, 6, 3))
    assert mine[0] == pytest.approx(1.0)
    assert theirs[0] < 1.0


@pytest.mark.parametrize(
    ("state", "nd", "dt", "decision"),
    [  # gnubg 1.1.0a16 0-ply on the opening position (hint, normalised equities)
        (CubeState.match(7, 3, 6), 0.81626, 1.06691, "Double, pass"),  # 4a vs 1a post-Crawford
        (CubeState.match(7, 5, 5), 0.08758, 0.12114, "Double, take"),  # 2a2a: cubeless
        (CubeState.match(5, 3, 1), -0.19871, -1.33618, "No double, take"),  # 2a vs 4a
    ],
)
def test_opening_position_match_decisions_match_gnubg(state, nd, dt, decision):
    analysis = analyse_cube([OPENING], state, CONTACT_X)
    assert analysis.nd[0] == pytest.approx(nd, abs=1e-5)
    assert analysis.dt[0] == pytest.approx(dt, abs=1e-5)
    assert analysis.dp[0] == 1.0
    assert analysis.decision == [decision]


# --- availability -------------------------------------------------------------------------


def test_no_doubling_in_the_crawford_game():
    for mine, theirs in ((6, 3), (3, 6)):
        state = CubeState.match(7, mine, theirs, crawford=True)
        assert not state.can_double and not state.opponent_can_double and state.cube_is_dead
        analysis = analyse_cube([OPENING], state, CONTACT_X)
        assert analysis.decision == ["Never double, take (dead cube)"]
        assert analysis.nd[0] == pytest.approx(mwc_to_equity(cubeless_mwc([OPENING], state), state)[0])


def test_post_crawford_only_the_trailer_doubles():
    trailer = CubeState.match(7, 3, 6)
    leader = trailer.swapped()
    assert trailer.is_post_crawford and leader.is_post_crawford
    assert trailer.can_double and not trailer.opponent_can_double
    assert not leader.can_double and leader.opponent_can_double
    assert not trailer.cube_is_dead


def test_only_the_owner_redoubles():
    for state in (CubeState.money(2, Owner.ME), CubeState.match(7, 0, 0, 2, Owner.ME)):
        assert state.can_double and not state.opponent_can_double
        assert state.swapped().opponent_can_double and not state.swapped().can_double
    analysis = analyse_cube([OPENING], CubeState.match(7, 0, 0, 2, Owner.OPPONENT), CONTACT_X)
    assert analysis.decision == [NOT_AVAILABLE] and np.isnan(analysis.dt[0])


def test_no_double_when_the_cube_already_covers_what_i_need():
    state = CubeState.match(7, 5, 0, 2, Owner.ME)  # 2-away holding a 2-cube
    assert not state.can_double
    assert analyse_cube([OPENING], state, CONTACT_X).decision == ["Never redouble, take (dead cube)"]
    assert CubeState.match(7, 5, 0).can_double  # 2-away with a 1-cube may still double


def test_cube_is_dead_when_both_sides_are_covered_and_at_2_away_2_away():
    assert CubeState.match(5, 3, 3, 2, Owner.ME).cube_is_dead
    assert not CubeState.match(5, 3, 2, 2, Owner.ME).cube_is_dead
    assert CubeState.match(7, 5, 5).cube_is_dead  # gnubg: 2a2a evaluated cubeless
    assert CubeState.match(7, 5, 5).can_double  # ... but the double itself is offered
    assert not CubeState.money().cube_is_dead


def test_doubled_state_keeps_the_player_on_roll_and_gives_the_cube_away():
    doubled = CubeState.match(7, 1, 2).doubled()
    assert (doubled.cube, doubled.owner, doubled.my_away) == (2, Owner.OPPONENT, 6)


@pytest.mark.parametrize(
    "kwargs",
    [
        {"cube": 3},
        {"cube": 2},  # a centred cube is worth 1
        {"match_length": 5, "my_away": 6, "opp_away": 2},
        {"match_length": 5, "my_away": 3, "opp_away": 2, "crawford": True},
        {"my_away": 2},  # money has no score
    ],
)
def test_impossible_cube_states_are_rejected(kwargs):
    with pytest.raises(ValueError):
        CubeState(**kwargs)
