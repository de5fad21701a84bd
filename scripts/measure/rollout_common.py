"""What the rollout scripts share: positions, CPU time, and gnubg's own rollouts from Python.

Positions: :func:`selfplay_boards` (before the roll, from ``best``'s 0-ply self-play with a
little noise, de-duplicated, without positions inside the exact two-sided bear-off table) and
:func:`small_bearoffs` (distinct positions inside that table).

gnubg's rollouts (needs the gnubg extra, imported only when used). Two ways exist; only one
works:

* ``gnubg_nn.rollout(pos, ngames, n, level, nt, std)`` (gnubg-nn 1.1.0a11) is Joseph Heled's old
  analyser, not gnubg's rollout: no variance reduction, and by default a contact position is
  only played until it becomes a race and then valued by the one-sided race estimate. In this
  build it is also broken: a position key returns ``(1.0, 0, 0, 0, 0)`` with zero spread, a
  position ID 0.975 wins from the opening position, a 26-element list fails with "Invalid
  number of games (-131072)" whatever ``ngames`` is, and several argument combinations kill the
  process (segmentation fault). Not used.
* The ``gnubg`` package's command interpreter runs gnubg's real rollout (``rollout`` on the
  current position, settings by ``set rollout ...``). It prints its results only through its
  progress display, which the library leaves off (``fShowProgress`` is set from ``isatty`` in
  gnubg's ``main``, never run by the Python module): :class:`GnubgRollouts` switches that flag on
  through ctypes, captures what gnubg's C code prints and parses the final block.

Settings used (:meth:`GnubgRollouts.configure`), as close to bgai's as gnubg allows: cubeless,
checker play at 0-ply with cubeless evaluations and without pruning nets (bgai's
``GnubgEvaluator`` evaluates every legal move), truncation when both sides are in the exact
two-sided bear-off database (bgai's ``bearoff=True``) and not at the one-sided database (gnubg's
default, which bgai does not do), quasi-random dice, the evaluation at a truncation point at
0-ply (gnubg's default is the cube setting, 2-ply), one thread unless asked. gnubg's progress
line says "Play: 0-ply cubeful" whatever the setting; the setting is in force (the same seed
gives other results with ``chequerplay cubeful on``). Results are for the player on roll; the
standard errors are gnubg's (the spread of the per-trial values over the square root of the
trials, as bgai's). Output with 5 decimals (``set output digits 5``).
"""

from __future__ import annotations

import ctypes
import glob
import os
import re
import resource
import time
from dataclasses import dataclass

import numpy as np
import torch

from bgai.gnubg import command_output, match_id, program

_NUMBER = re.compile(r"[-+]?\d+\.\d+")


def selfplay_boards(n: int, seed: int = 0, kind: str = "any", player: str = "best") -> torch.Tensor:
    """``n`` distinct positions before the roll (player on roll in row 1) from ``player``'s 0-ply
    self-play (noise 0.03, 256 games at once), skipping each game's first 4 plies' worth of
    positions and every position inside the two-sided bear-off table; ``kind`` ``contact`` keeps
    contact positions only, ``race`` races only, ``any`` both."""
    from bgai.bots import evaluator_of
    from bgai.engine.board import is_race
    from bgai.specs import load_player
    from bgai.train.distill import selfplay_positions

    evaluator, _, _ = evaluator_of(load_player(player))
    boards, _ = selfplay_positions(evaluator, 4 * 256 + 6 * n, seed=seed, games=256, noise=0.03)
    boards = boards[4 * 256 :]
    keep = ~_in_two_sided(boards)
    if kind == "contact":
        keep &= ~is_race(boards)
    elif kind == "race":
        keep &= is_race(boards)
    seen, chosen = set(), []
    for i in keep.nonzero().squeeze(1).tolist():
        key = boards[i].numpy().tobytes()
        if key not in seen:
            seen.add(key)
            chosen.append(i)
    if len(chosen) < n:
        raise RuntimeError(f"only {len(chosen)} distinct {kind} positions found, {n} wanted")
    rng = np.random.default_rng(seed)
    return boards[np.sort(rng.choice(chosen, n, replace=False))]


def small_bearoffs(n: int, seed: int = 0) -> torch.Tensor:
    """``n`` distinct positions inside the two-sided table: 1-6 checkers a side, all home."""
    rng = np.random.default_rng(seed)
    seen, out = set(), []
    while len(out) < n:
        b = np.zeros((2, 25), dtype=np.int8)
        for side in range(2):
            for _ in range(rng.integers(1, 7)):
                b[side, rng.integers(0, 6)] += 1
        if b.tobytes() not in seen:
            seen.add(b.tobytes())
            out.append(b)
    return torch.as_tensor(np.stack(out))


def _in_two_sided(boards: torch.Tensor) -> torch.Tensor:
    from bgai.bearoff.evaluator import is_bearoff
    from bgai.bearoff.two_sided import TWO_SIDED_CHECKERS

    return is_bearoff(boards) & (boards.sum(-1) <= TWO_SIDED_CHECKERS).all(-1)


def cpu_seconds() -> float:
    """CPU time of this process (all its threads) and of its finished child processes."""
    children = resource.getrusage(resource.RUSAGE_CHILDREN)
    return time.process_time() + children.ru_utime + children.ru_stime


class Clock:
    """Wall and CPU seconds of a ``with`` block."""

    def __enter__(self) -> Clock:
        self.wall, self.cpu = time.perf_counter(), cpu_seconds()
        return self

    def __exit__(self, *exc) -> None:
        self.wall = time.perf_counter() - self.wall
        self.cpu = cpu_seconds() - self.cpu


@dataclass(frozen=True)
class GnubgResult:
    """One position's rollout: five probabilities, cubeless equity, their SEs, trials."""

    probs: np.ndarray
    probs_se: np.ndarray
    equity: float
    equity_se: float
    trials: int
    seconds: float


class GnubgRollouts:
    """gnubg's rollout of positions before the roll (player on roll in row 1), one at a time."""

    def __init__(self, threads: int = 1) -> None:
        gnubg = program()
        library = glob.glob(os.path.join(os.path.dirname(gnubg.__file__), "_gnubg*.so"))[0]
        # the final results are progress output, off in the library: switch it on
        ctypes.c_int.in_dll(ctypes.CDLL(library), "fShowProgress").value = 1
        command_output(f"set threads {threads}")
        command_output("set output digits 5")
        self.match_id = match_id()  # money, cube centred: not whatever state an earlier caller left
        self.session = False

    def configure(
        self,
        trials: int,
        truncate: int | None = None,
        variance_reduction: bool = False,
        quasi_random: bool = True,
        threads: int | None = None,
    ) -> None:
        """gnubg's rollout settings (see the module docstring for the fixed ones)."""
        commands = [
            f"trials {trials}",
            "cubeful off",
            "chequerplay plies 0",
            "chequerplay cubeful off",
            "chequerplay prune off",
            "later enable off",
            "bearofftruncation exact on",
            "bearofftruncation onesided off",
            f"varredn {'on' if variance_reduction else 'off'}",
            f"quasirandom {'on' if quasi_random else 'off'}",
            f"truncation enable {'on' if truncate else 'off'}",
            "truncation chequerplay plies 0",
            "truncation cubedecision plies 0",
            "limit enable off",
        ]
        for player in (0, 1):
            commands += [
                f"player {player} chequerplay plies 0",
                f"player {player} chequerplay cubeful off",
                f"player {player} chequerplay prune off",
            ]
        if truncate:
            commands.append(f"truncation plies {truncate}")
        for command in commands:
            command_output(f"set rollout {command}")
        if threads is not None:
            command_output(f"set threads {threads}")

    def rollout(self, position_id: str, seed: int) -> GnubgResult:
        """Roll out one position (gnubg Position ID, player on roll) with dice seed ``seed``.

        ``seconds`` of the result: wall time of the ``rollout`` command alone."""
        if not self.session:
            command_output("new session")
            self.session = True
        command_output(f"set gnubgid {position_id}:{self.match_id}")
        command_output(f"set rollout seed {seed}")
        start = time.perf_counter()
        text = command_output("rollout").replace("\r", "\n")
        return parse_rollout(text, time.perf_counter() - start)


def parse_rollout(text: str, seconds: float = 0.0) -> GnubgResult:
    """The final block gnubg prints after "Rollout done. Printing final results."."""
    start = text.rfind("Rollout done")
    if start < 0:
        raise RuntimeError(f"gnubg printed no rollout result: {text[-300:]!r}")
    lines = [line for line in text[start:].splitlines() if line.strip()]
    mean = [float(x) for x in _NUMBER.findall(lines[2])]
    se = [float(x) for x in _NUMBER.findall(lines[3])]
    trials = int(re.search(r"(\d+) games", text[start:]).group(1))
    # "w wg wbg - l lg lbg CL eq": win, win gammon, win bg, (lose), lose gammon, lose bg, equity
    probs = np.array([mean[0], mean[1], mean[2], mean[4], mean[5]])
    probs_se = np.array([se[0], se[1], se[2], se[4], se[5]])
    return GnubgResult(probs, probs_se, mean[6], se[6], trials, seconds)
