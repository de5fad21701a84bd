"""Match-play cube: Janowski's model in match winning chances, as gnubg evaluates its 0-ply leaves.

All MWCs are for the player on roll. The cubeful MWC is ``(1 - x) * dead + x * live`` where
``dead`` is the cubeless MWC and ``live`` is piecewise linear in p(win) between the
gammon-weighted MWC of losing, the opponent's cash, my cash and the gammon-weighted MWC of
winning. The cash points come from the live-cube recursion (gnubg's ``GetPoints``)::

    CP_me(c) = 1 - CP_opp(2c) * (MWC(I win c) - MWC(take, I win 2c)) / (MWC(I lose 2c) - MWC(take, I win 2c))

starting from a dead-cube cash point at the first cube level after which one win settles the
match for somebody. At that level a taker who cannot be hurt by a recube redoubles at once
(the doubler is ``<= 2c`` away, the taker more), so the stakes of a take are ``4c``.
Normalised equity maps the MWCs of winning / losing the current cube to +1 / -1.
"""

from __future__ import annotations

import numpy as np

from bgai.cube.met import MatchEquityTable, kazaross_xg2
from bgai.cube.money import LOSE_BG, LOSE_G, WIN, WIN_BG, WIN_G, as_probs, cubeless_equity, line_through
from bgai.cube.state import CubeState, Owner


def gammon_ratios(probs) -> tuple[np.ndarray, ...]:
    """(my gammon-only, my backgammon, opp gammon-only, opp backgammon) shares of each side's wins."""
    p = as_probs(probs)
    w = p[:, WIN]
    safe_w = np.where(w > 0, w, 1.0)
    safe_l = np.where(w < 1, 1.0 - w, 1.0)
    my_g = np.where(w > 0, (p[:, WIN_G] - p[:, WIN_BG]) / safe_w, 0.0)
    my_bg = np.where(w > 0, p[:, WIN_BG] / safe_w, 0.0)
    opp_g = np.where(w < 1, (p[:, LOSE_G] - p[:, LOSE_BG]) / safe_l, 0.0)
    opp_bg = np.where(w < 1, p[:, LOSE_BG] / safe_l, 0.0)
    return my_g, my_bg, opp_g, opp_bg


def _weighted(met: MatchEquityTable, state: CubeState, stake: int, gammon, backgammon) -> np.ndarray:
    """My MWC when the game ends for ``stake`` points (negative: I lose), gammon-weighted."""
    single, double, triple = (met.outcome_mwc(state, k * stake) for k in (1, 2, 3))
    return (1.0 - gammon - backgammon) * single + gammon * double + backgammon * triple


def cubeless_mwc(probs, state: CubeState, met: MatchEquityTable | None = None) -> np.ndarray:
    """MWC of the player on roll if the cube were never turned again (gnubg's dead MWC)."""
    met = met or kazaross_xg2()
    p = as_probs(probs)
    c = state.cube
    outcomes = np.array([met.outcome_mwc(state, k * c) for k in (1, 2, 3, -1, -2, -3)])
    shares = np.stack(
        [
            p[:, WIN] - p[:, WIN_G],
            p[:, WIN_G] - p[:, WIN_BG],
            p[:, WIN_BG],
            1.0 - p[:, WIN] - p[:, LOSE_G],
            p[:, LOSE_G] - p[:, LOSE_BG],
            p[:, LOSE_BG],
        ],
        axis=1,
    )
    return shares @ outcomes


def normalised_cubeless(probs, states, which, met: MatchEquityTable | None = None) -> np.ndarray:
    """Each row's cubeless value for its player, as normalised equity: the money equity, or in a
    match the cubeless MWC at the score (gammons priced by the MET), which is how gnubg's move
    filters and searches rank moves, up to the cube. ``states[which[i]]`` is row ``i``'s state."""
    p = as_probs(np.asarray(probs, dtype=np.float64))
    which = np.asarray(which)
    out = cubeless_equity(p)
    rows_of: dict[CubeState, list[int]] = {}
    for k in np.unique(which):
        if not states[k].is_money:
            rows_of.setdefault(states[k], []).append(int(k))
    if rows_of:
        met = met or kazaross_xg2()
    for state, members in rows_of.items():
        rows = np.isin(which, members)
        out[rows] = mwc_to_equity(cubeless_mwc(p[rows], state, met), state, met)
    return out


def _auto_redouble_stake(doubler_away: int, taker_away: int, cube: int) -> int:
    """Cube value the taker effectively holds after taking a double from ``cube``.

    A taker who cannot be hurt by a recube (the doubler wins the match with ``2 * cube``,
    the taker does not) redoubles at once, so the game is played for ``4 * cube``.
    """
    if doubler_away <= 2 * cube < taker_away:
        return 4 * cube
    return 2 * cube


def live_cash_points(
    probs, state: CubeState, met: MatchEquityTable | None = None
) -> tuple[np.ndarray, np.ndarray]:
    """(my, opponent's) live-cube cash points at the current cube, each in its own p(win).

    The cash point is where a double from this cube becomes a pass; gnubg's ``GetPoints``.
    MET lookups only need the aways, so the two views differ only in whose aways come first.
    """
    met = met or kazaross_xg2()
    my_g, my_bg, opp_g, opp_bg = gammon_ratios(probs)
    sides = {
        "me": (state, my_g, my_bg, opp_g, opp_bg),
        "opp": (state.swapped(), opp_g, opp_bg, my_g, my_bg),
    }
    levels = [state.cube]
    while state.my_away > 2 * levels[-1] and state.opp_away > 2 * levels[-1]:
        levels.append(2 * levels[-1])

    cash: dict[str, np.ndarray] = {}
    for level_index in range(len(levels) - 1, -1, -1):
        c = levels[level_index]
        next_cash = cash
        cash = {}
        for side, (view, g, bg, g_taker, bg_taker) in sides.items():
            double_pass = met.outcome_mwc(view, c)
            if level_index == len(levels) - 1:
                stake = _auto_redouble_stake(view.my_away, view.opp_away, c)
                take_win = _weighted(met, view, stake, g, bg)
                take_lose = _weighted(met, view, -stake, g_taker, bg_taker)
                cash[side] = (take_lose - double_pass) / (take_lose - take_win)
            else:
                redouble_pass = met.outcome_mwc(view, -2 * c)
                take_win = _weighted(met, view, 2 * c, g, bg)
                taker = "opp" if side == "me" else "me"
                cash[side] = 1.0 - next_cash[taker] * (double_pass - take_win) / (redouble_pass - take_win)
    return cash["me"], cash["opp"]


def cubeful_mwc(probs, state: CubeState, x, met: MatchEquityTable | None = None) -> np.ndarray:
    """gnubg's 0-ply cubeful MWC of the player on roll at ``state`` with cube efficiency ``x``."""
    met = met or kazaross_xg2()
    p = as_probs(probs)
    dead = cubeless_mwc(p, state, met)
    if state.cube_is_dead:
        return dead
    x = np.broadcast_to(np.asarray(x, dtype=np.float64), p.shape[:1])
    w = p[:, WIN]
    my_g, my_bg, opp_g, opp_bg = gammon_ratios(p)
    c = state.cube
    win_all = _weighted(met, state, c, my_g, my_bg)
    lose_all = _weighted(met, state, -c, opp_g, opp_bg)
    my_cash, opp_cash = met.outcome_mwc(state, c), met.outcome_mwc(state, -c)
    my_cp, opp_cp = live_cash_points(p, state, met)
    my_tg, opp_tg = my_cp, 1.0 - opp_cp

    def below_opp(q):  # opponent too good / cashes: lose everything ... opponent's cash
        return np.where(opp_tg > 0, line_through(q, 0.0, lose_all, opp_tg, opp_cash), lose_all)

    def above_mine(q):  # I am too good / I cash: my cash ... win everything
        return np.where(my_tg < 1, line_through(q, my_tg, my_cash, 1.0, win_all), win_all)

    if state.owner is Owner.CENTRED:
        window = line_through(w, opp_tg, opp_cash, my_tg, my_cash)
        live = np.where(w <= opp_tg, below_opp(w), np.where(w < my_tg, window, above_mine(w)))
    elif state.owner is Owner.ME:
        low = np.where(my_tg > 0, line_through(w, 0.0, lose_all, my_tg, my_cash), lose_all)
        live = np.where(w <= my_tg, low, above_mine(w))
    else:
        live = np.where(w <= opp_tg, below_opp(w), line_through(w, opp_tg, opp_cash, 1.0, win_all))
    return (1.0 - x) * dead + x * live


def mwc_to_equity(mwc, state: CubeState, met: MatchEquityTable | None = None) -> np.ndarray:
    """Normalised equity: MWC of winning the current cube -> +1, of losing it -> -1."""
    met = met or kazaross_xg2()
    win, lose = met.outcome_mwc(state, state.cube), met.outcome_mwc(state, -state.cube)
    return 2.0 * (np.asarray(mwc) - lose) / (win - lose) - 1.0


def equity_to_mwc(equity, state: CubeState, met: MatchEquityTable | None = None) -> np.ndarray:
    """Inverse of :func:`mwc_to_equity`."""
    met = met or kazaross_xg2()
    win, lose = met.outcome_mwc(state, state.cube), met.outcome_mwc(state, -state.cube)
    return lose + (np.asarray(equity) + 1.0) * (win - lose) / 2.0


def dead_take_point(state: CubeState, met: MatchEquityTable | None = None) -> float:
    """Gammonless take point (the taker's p(win)) when the player on roll doubles at ``state``.

    risk / (risk + gain) in the taker's MWC, stakes as after a take (with an automatic
    redouble where it costs the taker nothing), later cube turns ignored.
    """
    met = met or kazaross_xg2()
    stake = _auto_redouble_stake(state.my_away, state.opp_away, state.cube)
    pass_mwc = 1.0 - met.outcome_mwc(state, state.cube)
    take_win = 1.0 - met.outcome_mwc(state, -stake)
    take_lose = 1.0 - met.outcome_mwc(state, stake)
    return (pass_mwc - take_lose) / (take_win - take_lose)
