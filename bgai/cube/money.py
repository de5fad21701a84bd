"""Money-play cube theory: Janowski's closed forms and gnubg's 0-ply cubeful equity.

Probabilities are 5-vectors for the player on roll, ``(win, win gammon, win backgammon,
lose gammon, lose backgammon)``, gammons including backgammons, as arrays of shape ``(N, 5)``.
Equities are per unit of the current cube (double/pass = +1).

``W`` and ``L`` are Janowski's average value of a won / lost game, from the deciding player's
view; ``x`` is the cube efficiency (0 = dead cube, 1 = fully live). The closed-form points
follow Janowski, *Take-Points in Money Games* (1993). The cubeful equity follows gnubg's
implementation of the same model, ``(1 - x) * dead + x * live`` with a piecewise-linear live
equity, which gnubg uses at its 0-ply leaves (and which differs slightly from Janowski's eq. 7
for a centred cube).
"""

from __future__ import annotations

import numpy as np

from bgai.cube.state import Owner

WIN, WIN_G, WIN_BG, LOSE_G, LOSE_BG = range(5)
_EPS = 1e-7  # gnubg treats p(win) within this of 0 or 1 as a dead cube


def as_probs(probs) -> np.ndarray:
    """Probabilities as a float64 ``(N, 5)`` array (accepts numpy, torch, lists, a single row)."""
    if hasattr(probs, "detach"):
        probs = probs.detach().cpu().numpy()
    arr = np.asarray(probs, dtype=np.float64)
    if arr.ndim == 1:
        arr = arr[None, :]
    if arr.ndim != 2 or arr.shape[1] != 5:
        raise ValueError(f"probabilities must have shape (N, 5), got {arr.shape}")
    return arr


def cubeless_equity(probs, *, gammons: bool = True) -> np.ndarray:
    """Cubeless money equity of the player on roll (single 1, gammon 2, backgammon 3).

    ``gammons=False`` is the Jacoby rule with a centred cube: only the plain win counts.
    """
    p = as_probs(probs)
    eq = 2.0 * p[:, WIN] - 1.0
    if gammons:
        eq = eq + p[:, WIN_G] - p[:, LOSE_G] + p[:, WIN_BG] - p[:, LOSE_BG]
    return eq


def average_win_loss(probs) -> tuple[np.ndarray, np.ndarray]:
    """Janowski's W and L for the player on roll: mean points of a won and of a lost game."""
    p = as_probs(probs)
    w = p[:, WIN]
    with np.errstate(divide="ignore", invalid="ignore"):
        big_w = np.where(w > 0, 1.0 + (p[:, WIN_G] + p[:, WIN_BG]) / w, 1.0)
        big_l = np.where(w < 1, 1.0 + (p[:, LOSE_G] + p[:, LOSE_BG]) / (1.0 - w), 1.0)
    return big_w, big_l


# --- Janowski's points (winning chances of the player they belong to) ---------------------


def take_point(W, L, x):
    """Taker's minimum winning chance to take; W, L from the taker's view."""
    return (L - 0.5) / (W + L + 0.5 * x)


def beaver_point(W, L, x):
    """Taker's winning chance above which he should beaver; W, L from the taker's view."""
    return L / (W + L + 0.5 * x)


def raccoon_point(W, L, x):
    """Doubler's winning chance above which he should raccoon a beaver; doubler's W, L."""
    return (L + 0.5 * x) / (W + L + 0.5 * x)


def redouble_point(W, L, x):
    """Cube owner's minimum winning chance to redouble; owner's W, L."""
    return (L + x) / (W + L + 0.5 * x)


def cash_point(W, L, x):
    """Doubler's winning chance at which the opponent's take becomes a pass; doubler's W, L."""
    return (L + 0.5 + 0.5 * x) / (W + L + 0.5 * x)


def too_good_point(W, L, x):
    """Doubler's winning chance above which playing on beats cashing (Janowski's owned-cube line)."""
    return (L + 1.0) / (W + L + 0.5 * x)


def initial_double_point(W, L, x):
    """Minimum winning chance for the initial double of a centred cube, no Jacoby (eqs 6-7)."""
    return (L + x * (3.0 - x) / (2.0 * (2.0 - x))) / (W + L + 0.5 * x)


def janowski_equity(p, W, L, x, owner: Owner):
    """Janowski's linear cubeful equities (eqs 5-7) per unit cube; owner relative to the mover."""
    base = p * (W + L + 0.5 * x) - L
    if owner is Owner.ME:
        return base
    if owner is Owner.OPPONENT:
        return base - 0.5 * x
    return 4.0 / (4.0 - x) * (base - 0.25 * x)


# --- gnubg's 0-ply cubeful money equity ------------------------------------------------------


def line_through(p, p0, e0, p1, e1):
    """Line through (p0, e0) and (p1, e1) evaluated at p (safe where p1 == p0)."""
    span = np.where(p1 != p0, p1 - p0, 1.0)
    return e0 + (e1 - e0) * (p - p0) / span


def live_equity(p, W, L, owner: Owner, *, jacoby: bool = False) -> np.ndarray:
    """Fully live cube equity (x = 1), piecewise linear in p through the live take/cash points.

    Centred: (0, -L), (TP, -1), (CP, +1), (1, W); with Jacoby the outer pieces are flat at -1/+1.
    Owned: (0, -L), (CP, +1), (1, W). Opponent-owned: (0, -L), (TP, -1), (1, W).
    """
    tp = (L - 0.5) / (W + L + 0.5)
    cp = (L + 1.0) / (W + L + 0.5)
    if owner is Owner.ME:
        return np.where(p < cp, line_through(p, 0.0, -L, cp, 1.0), line_through(p, cp, 1.0, 1.0, W))
    if owner is Owner.OPPONENT:
        return np.where(p < tp, line_through(p, 0.0, -L, tp, -1.0), line_through(p, tp, -1.0, 1.0, W))
    low = -np.ones_like(p) if jacoby else line_through(p, 0.0, -L, tp, -1.0)
    high = np.ones_like(p) if jacoby else line_through(p, cp, 1.0, 1.0, W)
    return np.where(p < tp, low, np.where(p < cp, line_through(p, tp, -1.0, cp, 1.0), high))


def cubeful_equity(probs, x, owner: Owner, *, jacoby: bool = False) -> np.ndarray:
    """gnubg's 0-ply cubeful money equity per unit cube: ``(1 - x) * dead + x * live``.

    ``jacoby`` only acts on a centred cube (gammons do not count in the dead part, the live
    part is clamped to +-1). Positions with p(win) within 1e-7 of 0 or 1 are dead (cubeless).
    """
    p = as_probs(probs)
    x = np.broadcast_to(np.asarray(x, dtype=np.float64), p.shape[:1])
    jacoby_now = jacoby and owner is Owner.CENTRED
    dead = cubeless_equity(p, gammons=not jacoby_now)
    W, L = average_win_loss(p)
    w = p[:, WIN]
    live = live_equity(w, W, L, owner, jacoby=jacoby_now)
    cubeful = (1.0 - x) * dead + x * live
    return np.where((w > _EPS) & (w < 1.0 - _EPS), cubeful, dead)
