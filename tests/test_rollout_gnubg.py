"""bgai's rollout machinery on gnubg's own net against gnubg's own rollout (marked ``gnubg``).

With quasi-random dice, 1,296 trials hold every pair of first two rolls exactly once, so a
rollout truncated after 2 plies is the exact two-roll average of the 0-ply values: bgai's trial
loop driven by :class:`~bgai.search.GnubgEvaluator` and gnubg's ``rollout`` command (cubeless,
0-ply cubeless checker play without pruning, 0-ply value at truncation) must agree to the five
decimals gnubg prints, standard errors included. Wider comparisons: scripts/measure/rollout_vs_gnubg.py.
"""

from __future__ import annotations

import ctypes
import glob
import os
import re

import numpy as np
import pytest

from bgai.engine.board import starting_board
from bgai.formats import encode_position_id
from bgai.rollout import RolloutSettings, rollout_positions
from bgai.search.evaluator import GnubgEvaluator
from tests.positions import pos

SETTINGS = [
    "threads 1",
    "output digits 5",
    "rollout trials 1296",
    "rollout cubeful off",
    "rollout varredn off",
    "rollout quasirandom on",
    "rollout later enable off",
    "rollout bearofftruncation exact on",
    "rollout bearofftruncation onesided off",
    "rollout truncation enable on",
    "rollout truncation plies 2",
    "rollout truncation chequerplay plies 0",
    "rollout truncation cubedecision plies 0",
    "rollout limit enable off",
    "rollout seed 5",
] + [f"rollout player {p} chequerplay {s}" for p in (0, 1) for s in ("plies 0", "cubeful off", "prune off")]


def gnubg_rollouts(gnubg, capfd, position_ids: list[str]) -> list[list[float]]:
    """gnubg's ``rollout`` of each position: [win, equity, equity SE] from its final report.

    The library prints that report only through its progress display, which it leaves off
    (gnubg's ``main`` sets it from ``isatty``): switched on here for the test, then off again.
    How to make gnubg roll out from Python, and which settings it really uses:
    scripts/measure/rollout_common.py.
    """
    library = glob.glob(os.path.join(os.path.dirname(gnubg.__file__), "_gnubg*.so"))[0]
    progress = ctypes.c_int.in_dll(ctypes.CDLL(library), "fShowProgress")
    libc = ctypes.CDLL(None)
    gnubg.command("new session")  # a money session, whatever match an earlier test left behind
    match_id = gnubg.matchid(gnubg.cubeinfo(), gnubg.posinfo(0, 0, 0, 1, (0, 0)))
    saved, progress.value = progress.value, 1
    out = []
    try:
        for setting in SETTINGS:
            gnubg.command(f"set {setting}")
        gnubg.command("new session")
        for pid in position_ids:
            gnubg.command(f"set gnubgid {pid}:{match_id}")
            capfd.readouterr()
            gnubg.command("rollout")
            libc.fflush(None)
            text = capfd.readouterr().out.replace("\r", "\n")
            lines = [line for line in text[text.rfind("Rollout done") :].splitlines() if line.strip()]
            mean = [float(x) for x in re.findall(r"[-+]?\d+\.\d+", lines[2])]
            se = [float(x) for x in re.findall(r"[-+]?\d+\.\d+", lines[3])]
            out.append([mean[0], mean[6], se[6]])
    finally:
        progress.value = saved
        gnubg.command("set output digits 3")  # gnubg's default, which other tests read
    return out


def test_a_two_ply_rollout_on_gnubgs_net_equals_gnubgs_own_rollout(gnubg, capfd):
    boards = np.stack([starting_board(), pos("x 24:2 13:4 8:2 6:4 5:2 4:1; o 1:2 12:4 17:3 19:4 20:1 bar:1")])
    ours = rollout_positions(
        GnubgEvaluator(0), boards, RolloutSettings(trials=1296, truncate=2, variance_reduction=False)
    )
    theirs = np.array(gnubg_rollouts(gnubg, capfd, [encode_position_id(b) for b in boards]))
    np.testing.assert_allclose(ours.probs[:, 0], theirs[:, 0], atol=2e-5)
    np.testing.assert_allclose(ours.equity, theirs[:, 1], atol=2e-5)
    np.testing.assert_allclose(ours.equity_se, theirs[:, 2], atol=2e-5)
    assert ours.equity_se.min() > 0.001  # the two rolls really spread the values


def test_gnubg_rollout_report_is_read_for_the_player_on_roll(gnubg, capfd):
    # x bears off with any roll but o could not: x wins, and o still has all 15 on the board
    board = pos("x 1:1; o 19:15")
    ((win, equity, se),) = gnubg_rollouts(gnubg, capfd, [encode_position_id(board.numpy())])
    assert win == 1.0 and equity == pytest.approx(2.0) and se == 0.0
