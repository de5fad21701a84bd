"""Cube decisions from probabilities: no double / double-take / double-pass, in gnubg's words.

Input: cubeless probabilities for the player on roll (``(N, 5)``), a :class:`CubeState` and a
cube efficiency ``x`` (scalar or ``(N,)``; :mod:`bgai.cube.efficiency` gives gnubg's defaults).
Output: a :class:`CubeAnalysis` with the three equities normalised to the current cube
(double/pass = +1) and gnubg's decision label, chosen exactly as gnubg's
``FindBestCubeDecision`` chooses it. This is gnubg's 0-ply cube analysis; deeper (cubeful
n-ply) analysis needs an evaluator (:mod:`bgai.cube.search`) and ends in the same wording.

The taker's answer to a double has one rule here (:func:`answer_to_double`), which the
labels, :func:`take_decision` and :attr:`PositionCubeAnalysis.take` all use; whether a label
turns the cube is :func:`doubles`.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property

import numpy as np

from bgai.cube import match, money
from bgai.cube.met import MatchEquityTable, kazaross_xg2
from bgai.cube.state import CubeState, Owner
from bgai.model.probs import OUTPUTS

OPTIONAL_EPS = 1e-5  # gnubg: equities this close are an "optional" double
NOT_AVAILABLE = "Cube not available"  # gnubg's hint just says "You cannot double."


@dataclass(frozen=True)
class CubeAnalysis:
    """Equities of the player on roll, per unit of the current cube.

    ``nd`` no double, ``dt`` double/take, ``dp`` double/pass (``nan`` where the cube is not
    available), ``decision`` gnubg's recommendation for each position.
    """

    nd: np.ndarray
    dt: np.ndarray
    dp: np.ndarray
    decision: list[str]

    @property
    def optimal(self) -> np.ndarray:
        """Equity after the right cube action by both sides: ``max(ND, min(DT, DP))``."""
        best = np.maximum(self.nd, np.minimum(self.dt, self.dp))
        return np.where(np.isnan(self.dt), self.nd, best)

    @property
    def should_double(self) -> np.ndarray:
        """True where the proper action is to double (including optional and beavered doubles)."""
        with np.errstate(invalid="ignore"):
            return (self.dt >= self.nd) & (self.dp >= self.nd)


def analyse_cube(probs, state: CubeState, x, met: MatchEquityTable | None = None) -> CubeAnalysis:
    """gnubg's 0-ply cube analysis of each position for the player on roll, from probabilities
    alone (Janowski's model everywhere; :func:`bgai.cube.search.cube_analysis`, which sees the
    boards, reads money two-sided bear-offs from their exact table instead)."""
    p = money.as_probs(probs)
    n = p.shape[0]
    if state.is_money:
        nd = money.cubeful_equity(p, x, state.owner, jacoby=state.jacoby)
    else:
        met = met or kazaross_xg2()
        nd = match.mwc_to_equity(match.cubeful_mwc(p, state, x, met), state, met)
    if not state.can_double:
        if state.is_money or state.owner is Owner.OPPONENT:
            label = NOT_AVAILABLE
        elif state.owner is Owner.CENTRED:
            label = "Never double, take (dead cube)"
        else:
            label = "Never redouble, take (dead cube)"
        nan = np.full(n, np.nan)
        return CubeAnalysis(nd=nd, dt=nan, dp=nan.copy(), decision=[label] * n)
    if state.is_money:
        dt = 2.0 * money.cubeful_equity(p, x, Owner.OPPONENT)
    else:
        dt = match.mwc_to_equity(match.cubeful_mwc(p, state.doubled(), x, met), state, met)
    dp = np.ones(n)
    return CubeAnalysis(nd=nd, dt=dt, dp=dp, decision=decision_labels(nd, dt, dp, p, state))


def take_decision(probs, state: CubeState, x, met: MatchEquityTable | None = None) -> list[str]:
    """The opponent's answer ("take", "pass" or "beaver") to a double by the player on roll.

    Probabilities are still the doubler's (the player on roll); :func:`answer_to_double` answers.
    """
    if not state.can_double:
        raise ValueError("the player on roll cannot double in this cube state")
    analysis = analyse_cube(probs, state, x, met)
    return [answer_to_double(dt, dp, state) for dt, dp in zip(analysis.dt, analysis.dp, strict=True)]


def answer_to_double(dt: float, dp: float, state: CubeState) -> str:
    """The taker's answer to a double, from the doubler's equities (normalised, DP = +1).

    Pass when double/take is worth at least double/pass to the doubler; beaver (money play,
    beavers allowed) when the taker's equity after taking is not negative, ``-2 <= DT <= 0``;
    else take.
    """
    if dt >= dp:
        return "pass"
    if state.is_money and state.beavers and -2.0 <= dt <= 0.0:
        return "beaver"
    return "take"


def doubles(decision: str) -> bool:
    """Does gnubg's proper cube action (its wording) turn the cube? Optional doubles do; "Too good"
    and "No double, beaver" do not."""
    return decision.startswith(("Double", "Redouble", "Optional"))


def decision_labels(nd, dt, dp, probs, state: CubeState) -> list[str]:
    """gnubg's wording of each cube decision ("Double, take", "Too good to redouble, pass" ...).

    ``nd``, ``dt``, ``dp``: ``(N,)`` equities of the doubler (the player on roll) normalised to
    the current cube (double/pass = +1), however deep the analysis that found them; ``probs``:
    the doubler's cubeless probabilities ``(N, 5)``, which say whether a gammon is possible and
    whether the game is hopeless. ``state`` must let the doubler double.
    """
    p = money.as_probs(probs)
    can_gammon = p[:, money.WIN_G] > 0.0
    hopeless = p[:, money.WIN] <= 0.0
    return [
        _label(float(nd[i]), float(dt[i]), float(dp[i]), bool(can_gammon[i]), bool(hopeless[i]), state)
        for i in range(len(p))
    ]


def _label(nd: float, dt: float, dp: float, can_gammon: bool, hopeless: bool, state: CubeState) -> str:
    """gnubg's FindBestCubeDecision for one position (doubler's equities).

    ``hopeless`` (no winning chances) makes ND and DT tie exactly; gnubg's float32 rounding
    then always lands on "no double", so we say so explicitly.
    """
    double = "double" if state.owner is Owner.CENTRED else "redouble"
    Double = double.capitalize()
    beaver_zone = answer_to_double(dt, dp, state) == "beaver"
    too_good_pass = f"Too good to {double}, pass" if can_gammon else f"{Double}, pass"
    if hopeless:
        return f"No {double}, beaver" if beaver_zone else f"No {double}, take"
    if dt >= nd and dp >= nd:
        if dp > dt:
            optional = abs(dt - nd) <= OPTIONAL_EPS
            if beaver_zone:
                if 2.0 * dt < nd:
                    return "No double, beaver"
                return "Optional double, beaver" if optional else "Double, beaver"
            return f"Optional {double}, take" if optional else f"{Double}, take"
        # Playing on for a gammon is a real alternative unless Jacoby blanks gammons.
        gammons_count = not state.is_money or state.owner is not Owner.CENTRED or not state.jacoby
        if abs(nd - dp) <= OPTIONAL_EPS and can_gammon and gammons_count:
            return f"Optional {double}, pass"
        return f"{Double}, pass"
    if nd > dt:
        if dt > dp:
            return too_good_pass
        if nd > dp:
            return f"Too good to {double}, take" if can_gammon else f"No {double}, take"
        return f"No {double}, beaver" if beaver_zone else f"No {double}, take"
    return too_good_pass


@dataclass(frozen=True)
class PositionCubeAnalysis(CubeAnalysis):
    """A :class:`CubeAnalysis` of positions, with what it was computed from.

    ``probs`` are the cubeless probabilities of the player on roll at ``plies`` (gnubg prints
    them above its cube analysis), ``states`` each position's :class:`CubeState`.
    """

    probs: np.ndarray
    states: tuple[CubeState, ...]
    plies: int

    @cached_property
    def take(self) -> list[str | None]:
        """The taker's answer to a double ("take", "pass" or "beaver"); None where none is possible."""
        return [
            answer_to_double(dt, dp, state) if state.can_double else None
            for dt, dp, state in zip(self.dt, self.dp, self.states, strict=True)
        ]

    def record(self, i: int) -> dict:
        """Position ``i`` as plain numbers (JSON-ready; ``None`` where the cube is not available).

        ``cubeless_equity`` is gnubg's: money equity, or in match play the cubeless match
        winning chance as normalised equity; ``cubeless_money_equity`` is always the money one.
        """

        def number(value) -> float | None:
            return None if np.isnan(value) else float(value)

        state = self.states[i]
        money_equity = float(money.cubeless_equity(self.probs[i])[0])
        if state.is_money:
            equity = money_equity
        else:  # gnubg prints the cubeless MWC as normalised equity in match play
            equity = float(match.mwc_to_equity(match.cubeless_mwc(self.probs[i], state), state)[0])
        return {
            "plies": self.plies,
            "probs": dict(zip(OUTPUTS, (float(p) for p in self.probs[i]), strict=True)),
            "cubeless_equity": equity,
            "cubeless_money_equity": money_equity,
            "nd": number(self.nd[i]),
            "dt": number(self.dt[i]),
            "dp": number(self.dp[i]),
            "decision": self.decision[i],
            "take": self.take[i],
        }
