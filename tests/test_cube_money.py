"""Money-play cube: Janowski's closed forms, gnubg's cubeful model, labels, beavers, Jacoby."""

from __future__ import annotations

import numpy as np
import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st

from bgai.cube import CubeState, Owner, analyse_cube, cube_efficiency, take_decision
from bgai.cube import money as m

OPENING = [
    0.5214855670928955,
    0.15417563915252686,
    0.0075654503889381886,
    0.1296507716178894,
    0.007496579084545374,
]
CONTACT_X = 0.76  # gnubg's 0-ply cube efficiency for contact positions


def probs_with(p: float, W: float = 1.0, L: float = 1.0) -> np.ndarray:
    """Probabilities (no backgammons) with win chance p and Janowski values W, L."""
    return np.array([[p, p * (W - 1.0), 0.0, (1.0 - p) * (L - 1.0), 0.0]])


def solve(f, lo: float, hi: float) -> float:
    """Bisection root of f on [lo, hi] (f changes sign there)."""
    for _ in range(80):
        mid = (lo + hi) / 2
        lo, hi = (lo, mid) if f(lo) * f(mid) <= 0 else (mid, hi)
    return (lo + hi) / 2


# --- Janowski closed forms -----------------------------------------------------------------


@pytest.mark.parametrize(("x", "expected"), [(0.0, 0.25), (2 / 3, 0.2142857), (1.0, 0.20)])
def test_gammonless_take_point_falls_from_25_to_20_percent_as_the_cube_comes_alive(x, expected):
    assert m.take_point(1.0, 1.0, x) == pytest.approx(expected, abs=1e-6)


@pytest.mark.parametrize(
    ("W", "L", "x", "expected"),
    [
        (1.0, 1.0, 2 / 3, 0.214),  # Janowski table 1b
        (1.5, 1.5, 2 / 3, 0.300),
        (1.0, 2.0, 2 / 3, 0.450),  # taker loses many gammons: take point rises
        (2.0, 1.0, 2 / 3, 0.150),  # taker wins many gammons: take point falls
        (1.25, 1.25, 0.0, 0.300),  # table 1a, dead cube
        (1.25, 1.25, 1.0, 0.250),  # table 1c, live cube
    ],
)
def test_janowski_take_point_table(W, L, x, expected):
    assert m.take_point(W, L, x) == pytest.approx(expected, abs=5e-4)


def test_janowski_points_for_a_gammonless_game_at_two_thirds_efficiency():
    W = L = 1.0
    x = 2 / 3
    assert m.beaver_point(W, L, x) == pytest.approx(3 / 7)
    assert m.raccoon_point(W, L, x) == pytest.approx(4 / 7)
    assert m.redouble_point(W, L, x) == pytest.approx(5 / 7)
    assert m.cash_point(W, L, x) == pytest.approx(11 / 14)
    assert m.too_good_point(W, L, x) == pytest.approx(6 / 7)
    assert m.initial_double_point(W, L, x) == pytest.approx(0.678571, abs=1e-6)


def test_dead_and_live_envelopes_of_the_initial_double_point():
    assert m.initial_double_point(1.0, 1.0, 0.0) == pytest.approx(0.5)
    assert m.initial_double_point(1.0, 1.0, 1.0) == pytest.approx(0.8)
    assert m.cash_point(1.0, 1.0, 1.0) == pytest.approx(0.8)


def test_doubler_cash_point_is_one_minus_the_takers_take_point():
    W, L, x = 1.3, 1.1, 0.68
    assert m.cash_point(W, L, x) == pytest.approx(1.0 - m.take_point(L, W, x))


def test_ballard_senkiewicz_reno_1986_is_a_money_take():
    # Taker 35 % wins (4 % gammons); doubler 65 % (17 % gammons + 1 % backgammons).
    taker = np.array([[0.35, 0.04, 0.0, 0.18, 0.01]])
    W, L = m.average_win_loss(taker)
    assert (W[0], L[0]) == pytest.approx((1.114, 1.292), abs=1e-3)
    assert m.take_point(W, L, 0.0)[0] == pytest.approx(0.329, abs=1e-3)
    assert m.take_point(W, L, 1.0)[0] == pytest.approx(0.2725, abs=5e-4)
    assert m.take_point(W, L, 2 / 3)[0] == pytest.approx(0.289, abs=1e-3)
    assert 0.35 > m.take_point(W, L, 2 / 3)[0]


def test_janowski_linear_equities_collapse_to_the_cubeless_equity_for_a_dead_cube():
    p, W, L = 0.6, 1.2, 1.3
    cubeless = p * W - (1 - p) * L
    for owner in Owner:
        assert m.janowski_equity(p, W, L, 0.0, owner) == pytest.approx(cubeless)
    owned = m.janowski_equity(p, W, L, 0.7, Owner.ME)
    assert m.janowski_equity(p, W, L, 0.7, Owner.OPPONENT) == pytest.approx(owned - 0.35)


# --- gnubg's piecewise-linear cubeful equity -----------------------------------------------


@pytest.mark.parametrize(("W", "L", "x"), [(1.0, 1.0, 2 / 3), (1.3, 1.2, 0.68), (1.2, 1.5, 0.76)])
def test_gnubg_model_reproduces_janowski_redouble_and_cash_points(W, L, x):
    def owned(p):
        return m.cubeful_equity(probs_with(p, W, L), x, Owner.ME)[0]

    def doubled(p):
        return 2.0 * m.cubeful_equity(probs_with(p, W, L), x, Owner.OPPONENT)[0]

    assert solve(lambda p: owned(p) - doubled(p), 0.3, 0.99) == pytest.approx(m.redouble_point(W, L, x))
    assert solve(lambda p: doubled(p) - 1.0, 0.3, 0.999) == pytest.approx(m.cash_point(W, L, x))


def test_gnubg_initial_double_point_is_slightly_above_janowski_eq7():
    # W = L = 1, x = 0.68, no Jacoby: gnubg's model 69.2 %, Janowski's eq. 7 68.3 %.
    def centred_minus_doubled(p):
        probs = probs_with(p)
        nd = m.cubeful_equity(probs, 0.68, Owner.CENTRED)[0]
        return nd - 2.0 * m.cubeful_equity(probs, 0.68, Owner.OPPONENT)[0]

    assert solve(centred_minus_doubled, 0.5, 0.79) == pytest.approx(0.692, abs=5e-4)
    assert m.initial_double_point(1.0, 1.0, 0.68) == pytest.approx(0.683, abs=5e-4)


def test_cubeful_equity_is_the_cubeless_equity_when_the_cube_is_dead():
    probs = np.array([OPENING, [0.7, 0.3, 0.02, 0.05, 0.0]])
    for owner in Owner:
        dead = m.cubeful_equity(probs, 0.0, owner)
        np.testing.assert_allclose(dead, m.cubeless_equity(probs))
    jacoby_dead = m.cubeful_equity(probs, 0.0, Owner.CENTRED, jacoby=True)
    np.testing.assert_allclose(jacoby_dead, 2 * probs[:, 0] - 1)


def test_certain_wins_and_losses_are_cubeless():
    probs = np.array([[1.0, 0.4, 0.1, 0.0, 0.0], [0.0, 0.0, 0.0, 0.3, 0.0]])
    np.testing.assert_allclose(m.cubeful_equity(probs, 0.76, Owner.ME), [1.5, -1.3])


def test_opening_position_matches_gnubg_0_ply():
    # gnubg 1.1.0a16, 0-ply, contact x = 0.76 (hint / eval output).
    assert m.cubeful_equity(OPENING, CONTACT_X, Owner.CENTRED, jacoby=True)[0] == pytest.approx(
        0.08966, abs=1e-5
    )
    assert m.cubeful_equity(OPENING, CONTACT_X, Owner.ME)[0] == pytest.approx(0.26573, abs=1e-5)
    assert m.cubeful_equity(OPENING, CONTACT_X, Owner.OPPONENT)[0] == pytest.approx(-0.11427, abs=1e-5)
    analysis = analyse_cube(OPENING, CubeState.money(), CONTACT_X)
    assert analysis.dt[0] == pytest.approx(-0.22854, abs=1e-5)
    assert analysis.dp[0] == 1.0
    assert analysis.decision == ["No double, beaver"]
    assert analyse_cube(OPENING, CubeState.money(2, Owner.ME), CONTACT_X).decision == ["No redouble, beaver"]


def test_probabilities_may_be_torch_tensors():
    from_numpy = analyse_cube(np.array([OPENING]), CubeState.money(), CONTACT_X)
    from_torch = analyse_cube(torch.tensor([OPENING], dtype=torch.float32), CubeState.money(), CONTACT_X)
    np.testing.assert_allclose(from_torch.nd, from_numpy.nd, atol=1e-6)
    with pytest.raises(ValueError):
        m.as_probs(np.zeros((3, 4)))


# --- last-roll positions (cube.md 3.1): exact with a dead cube ----------------------------

LAST_ROLL = [  # (position ID, winning rolls out of 36, gnubg's and the exact decision)
    ("AQAAoAAAAAAAAA", 10, "No double, take"),
    ("AQAABAEAAAAAAA", 15, "No double, take"),
    ("AQAAUAAAAAAAAA", 17, "No double, take"),
    ("AQAAiAAAAAAAAA", 19, "Double, take"),
    ("AQAAKAAAAAAAAA", 25, "Double, take"),
    ("AQAAFAAAAAAAAA", 36, "Double, pass"),
]


@pytest.mark.parametrize(("pid", "wins", "decision"), LAST_ROLL)
def test_last_roll_positions_are_exact_with_a_dead_cube(pid, wins, decision):
    p = wins / 36
    state = CubeState.money(jacoby=False, beavers=False)
    analysis = analyse_cube([[p, 0, 0, 0, 0]], state, 0.0)
    assert analysis.nd[0] == pytest.approx(2 * p - 1)
    assert analysis.dt[0] == pytest.approx(2 * (2 * p - 1))
    assert analysis.decision == [decision]


def test_janowski_at_x_06_misses_the_first_last_roll_double():
    analysis = analyse_cube([[19 / 36, 0, 0, 0, 0]], CubeState.money(jacoby=False, beavers=False), 0.6)
    assert analysis.decision == ["No double, take"]


# --- labels, Jacoby and beavers -----------------------------------------------------------


def test_jacoby_turns_too_good_into_double_pass():
    blitz = [[0.88, 0.55, 0.05, 0.01, 0.0]]
    no_jacoby = analyse_cube(blitz, CubeState.money(jacoby=False), CONTACT_X)
    jacoby = analyse_cube(blitz, CubeState.money(jacoby=True), CONTACT_X)
    assert no_jacoby.decision == ["Too good to double, pass"]
    assert jacoby.decision == ["Double, pass"]
    owned = analyse_cube(blitz, CubeState.money(2, Owner.ME), CONTACT_X)
    assert owned.decision == ["Too good to redouble, pass"]


def test_too_good_needs_gammon_chances():
    sure_single = [[0.97, 0.0, 0.0, 0.0, 0.0]]
    assert analyse_cube(sure_single, CubeState.money(jacoby=False), CONTACT_X).decision == ["Double, pass"]


def _probs_strategy():
    def build(w, g, b, lg, lb):
        wg, lgv = w * g, (1 - w) * lg
        return [w, wg, wg * b, lgv, lgv * lb]

    unit = st.floats(0.0, 1.0)
    return st.builds(build, st.floats(0.01, 0.99), unit, unit, unit, unit)


@settings(max_examples=300, deadline=None)
@given(probs=_probs_strategy(), x=st.floats(0.0, 1.0))
def test_no_too_good_with_jacoby_and_a_centred_cube(probs, x):
    decision = analyse_cube([probs], CubeState.money(jacoby=True), x).decision[0]
    assert not decision.startswith("Too good")


@settings(max_examples=300, deadline=None)
@given(probs=_probs_strategy(), x=st.floats(0.0, 1.0), beavers=st.booleans())
def test_the_taker_beavers_exactly_when_double_take_lies_between_minus_2_and_0(probs, x, beavers):
    state = CubeState.money(beavers=beavers)
    analysis = analyse_cube([probs], state, x)
    answer = take_decision([probs], state, x)[0]
    dt = analysis.dt[0]
    if dt >= 1.0:
        assert answer == "pass"
    elif beavers and -2.0 <= dt <= 0.0:  # gnubg's beaver window
        assert answer == "beaver"
    else:
        assert answer == "take"
    assert analysis.optimal[0] == pytest.approx(max(analysis.nd[0], min(dt, 1.0)))


def test_owned_cube_cannot_be_doubled_by_the_opponent_side():
    with pytest.raises(ValueError):
        take_decision([OPENING], CubeState.money(2, Owner.OPPONENT), CONTACT_X)
    analysis = analyse_cube([OPENING], CubeState.money(2, Owner.OPPONENT), CONTACT_X)
    assert np.isnan(analysis.dt[0]) and analysis.optimal[0] == analysis.nd[0]


@pytest.mark.parametrize(
    ("position_class", "pips", "plies", "x"),
    [
        ("contact", 150, 0, 0.76),
        ("crashed", 150, 2, 0.68),
        ("race", 30, 0, 0.675),
        ("race", 10, 0, 0.625),
        ("race", 20, 2, 0.60),
        ("race", 100, 0, 0.80),
        ("race", 100, 2, 0.675),
        ("race", 200, 2, 0.70),
        ("bearoff_os", 20, 0, 0.60),
        ("over", 0, 0, 0.0),
    ],
)
def test_gnubg_default_cube_efficiencies(position_class, pips, plies, x):
    assert cube_efficiency(position_class, pips, plies=plies) == pytest.approx(x)


def test_unknown_position_class_is_an_error():
    with pytest.raises(ValueError):
        cube_efficiency("backgame")
