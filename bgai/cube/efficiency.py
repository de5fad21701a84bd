"""Cube efficiency: how live the cube is, by gnubg's position class (the one home of both).

Janowski's model values the cube as ``(1 - x) * dead + x * live``; gnubg picks ``x`` by the
position's class and, in a race, by the pip count of the player on roll. It keeps two sets:
one for leaves of a 0-1 ply analysis and one for 2+ ply.

* :func:`cube_efficiency`: ``x`` of one class (and pip count);
* :func:`position_classes`: gnubg's class of each board ``(N, 2, 25)`` (player on roll in row 1);
* :func:`cube_efficiencies`: ``x`` of each board, batched;
* :func:`class_codes`: the classes as codes, batched.
"""

from __future__ import annotations

from functools import cache

import numpy as np
import torch

from bgai.bearoff.two_sided import TWO_SIDED_CHECKERS  # gnubg's two-sided database holds as many
from bgai.engine.board import CHECKERS, is_race, pip_counts

HOME_POINTS = 6
HYPERGAMMON_CHECKERS = 3

CLASSES = ("over", "contact", "race", "bearoff_os", "bearoff_ts", "hypergammon")
"""The classes :func:`position_classes` gives, in the order of their codes."""


def cube_efficiency(position_class: str, pips_on_roll: int = 0, *, plies: int = 0) -> float:
    """gnubg's default cube efficiency ``x`` for a position class.

    ``plies <= 1`` gives the 0-1 ply set, more the 2+ ply set. Classes: ``contact``,
    ``crashed``, ``race`` (depends on the pip count of the player on roll), ``bearoff_os``
    (one-sided database), ``bearoff_ts`` (two-sided database: money play uses exact cubeful
    equities there, :mod:`bgai.cube.bearoff`, as gnubg does; 0.6 is the match-play fallback),
    ``hypergammon`` and ``over`` (game finished: dead cube).
    """
    shallow = plies <= 1
    if position_class in ("contact", "crashed"):
        return 0.76 if shallow else 0.68
    if position_class == "race":
        if shallow:
            return float(np.clip(0.60 + 0.0025 * pips_on_roll, 0.60, 0.80))
        return float(np.clip(0.55 + 0.00125 * pips_on_roll, 0.60, 0.70))
    if position_class in ("bearoff_os", "bearoff_ts", "hypergammon"):
        return 0.60
    if position_class == "over":
        return 0.0
    raise ValueError(f"unknown position class {position_class!r}")


def position_classes(boards, checkers: int = CHECKERS) -> list[str]:
    """gnubg's position class of each board ``(N, 2, 25)``, as :func:`cube_efficiency` names it.

    ``over`` (a side has no checkers left), ``hypergammon`` (a game of 3 checkers a side),
    ``contact`` (gnubg's crashed positions have the same efficiency and are not told apart),
    ``bearoff_ts`` (both sides home with at most 6 checkers: gnubg's two-sided database),
    ``bearoff_os`` (both sides home: its one-sided database) and ``race``.
    """
    codes = class_codes(torch.as_tensor(boards), checkers)
    return [CLASSES[c] for c in codes.tolist()]


def cube_efficiencies(boards, plies: int = 0, checkers: int = CHECKERS) -> np.ndarray:
    """``(N,)`` gnubg's cube efficiency ``x`` of each board, from the 0-1 or the 2+ ply set."""
    b = torch.as_tensor(boards)
    codes = class_codes(b, checkers).numpy()
    pips = pip_counts(b.reshape(-1, 2, 25))[..., 1].cpu().numpy()
    by_class = np.array([cube_efficiency(name, 0, plies=plies) for name in CLASSES])
    x = by_class[codes]
    race = codes == CLASSES.index("race")
    x[race] = _race_efficiency(plies >= 2)[np.minimum(pips[race], _MAX_PIPS)]
    return x


_MAX_PIPS = 25 * CHECKERS


@cache
def _race_efficiency(deep: bool) -> np.ndarray:
    """Race efficiency by pip count of the player on roll, tabulated from :func:`cube_efficiency`."""
    return np.array([cube_efficiency("race", p, plies=2 if deep else 0) for p in range(_MAX_PIPS + 1)])


def class_codes(boards: torch.Tensor, checkers: int = CHECKERS) -> torch.Tensor:
    """``(N,)`` index into :data:`CLASSES` of each board (on the CPU), as :func:`position_classes`."""
    b = boards.cpu().reshape(-1, 2, 25).long()
    counts = b.sum(-1)
    if checkers == HYPERGAMMON_CHECKERS:
        codes = torch.full((len(b),), CLASSES.index("hypergammon"))
    else:
        home = (b[..., HOME_POINTS:] == 0).all(-1).all(-1)
        small = (counts <= TWO_SIDED_CHECKERS).all(-1)
        codes = torch.full((len(b),), CLASSES.index("race"))
        codes[home] = CLASSES.index("bearoff_os")
        codes[home & small] = CLASSES.index("bearoff_ts")
        codes[~is_race(b)] = CLASSES.index("contact")
    codes[(counts == 0).any(-1)] = CLASSES.index("over")
    return codes
