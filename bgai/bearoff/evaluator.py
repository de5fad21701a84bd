"""An evaluator that answers bear-offs from the databases and passes everything else on.

A *bear-off* here is a position where both sides have every checker left on the board in
their own home board (so contact is over and neither side has a checker back). Such positions
are answered

* exactly from the two-sided table when both sides fit in it (at most 6 checkers each);
* else from the one-sided database (:func:`bgai.bearoff.one_sided.one_sided_probs`), whose
  gammon chances come from the first-checker-off distributions.

Probabilities are ``(N, 5)`` for the player on roll, as in :mod:`bgai.model.probs`. For the
standard 15-checker game only (gammons are counted against 15 checkers).
"""

from __future__ import annotations

from typing import Protocol

import numpy as np
import torch

from bgai.bearoff.one_sided import (
    POINTS,
    OneSidedDB,
    RaceTables,
    load_one_sided,
    one_sided_probs,
    position_index,
)
from bgai.bearoff.two_sided import TwoSidedDB, load_two_sided
from bgai.engine.board import CHECKERS


class Evaluates(Protocol):
    """What a fallback must offer: probabilities ``(N, 5)`` for boards ``(N, 2, 25)``.

    The same shape as :class:`bgai.search.evaluator.Evaluator`, which bgai.bearoff does not
    import (search sits above it); a :class:`BearoffEvaluator` is itself such an evaluator.
    """

    def evaluate(self, boards: torch.Tensor) -> torch.Tensor: ...


def is_bearoff(boards) -> torch.Tensor | np.ndarray:
    """``(N,)`` bool: both sides have all their remaining checkers on their six home points."""
    t = torch.as_tensor(boards)
    # Counts are never negative, so "the largest count off the home points is 0" is "none
    # there": one reduction, four times faster than comparing every point (a hot path).
    home_only = t[..., POINTS:].flatten(-2).amax(-1) == 0
    return home_only.numpy() if isinstance(boards, np.ndarray) else home_only


class BearoffEvaluator:
    """Database probabilities for bear-offs; ``fallback.evaluate`` for every other position.

    ``one_sided``/``two_sided`` default to the shipped or cached databases (built on first use
    if missing). ``fallback`` may be ``None`` when only bear-offs will be asked.
    """

    def __init__(
        self,
        fallback: Evaluates | None = None,
        one_sided: OneSidedDB | None = None,
        two_sided: TwoSidedDB | None = None,
    ) -> None:
        self.fallback = fallback
        self.one_sided = one_sided if one_sided is not None else load_one_sided()
        self.two_sided = two_sided if two_sided is not None else load_two_sided()
        if self.one_sided.max_checkers != CHECKERS:
            raise ValueError(f"the one-sided database must cover {CHECKERS} checkers")
        if self.two_sided.max_checkers >= CHECKERS:
            raise ValueError("the two-sided table holds no gammons: it must stop below 15 checkers")
        self._on_device: dict[torch.device, tuple[RaceTables, torch.Tensor]] = {}

    def evaluate(self, boards) -> torch.Tensor:
        """Probabilities ``(N, 5)`` float32 for the player on roll of boards ``(N, 2, 25)``."""
        boards = torch.as_tensor(boards)
        bearoff = is_bearoff(boards)
        if self.fallback is not None and not bearoff.any():  # most batches: no copies
            return torch.as_tensor(self.fallback.evaluate(boards)).to(boards.device, torch.float32)
        out = torch.empty((len(boards), 5), dtype=torch.float32, device=boards.device)
        others = (~bearoff).nonzero().squeeze(1)
        if len(others):
            if self.fallback is None:
                raise ValueError(
                    f"{len(others)} positions are not bear-offs and no fallback evaluator was given"
                )
            out[others] = torch.as_tensor(self.fallback.evaluate(boards[others])).to(out)
        inside = bearoff.nonzero().squeeze(1)
        if len(inside):
            out[inside] = self.bearoff_probs(boards[inside])
        return out

    def bearoff_probs(self, boards: torch.Tensor) -> torch.Tensor:
        """Probabilities ``(N, 5)`` of bear-off positions (see :func:`is_bearoff`)."""
        race, win_table = self._tables(boards.device)
        mover = position_index(boards[:, 1, :POINTS])
        opponent = position_index(boards[:, 0, :POINTS])
        probs = one_sided_probs(race, mover, opponent)
        size = len(win_table)
        exact = ((mover < size) & (opponent < size)).nonzero().squeeze(1)
        # The table stops below 15 checkers, so both sides have borne off some: no gammons.
        probs[exact] = 0.0
        probs[exact, 0] = win_table[mover[exact], opponent[exact]]
        return probs

    def _tables(self, device: torch.device) -> tuple[RaceTables, torch.Tensor]:
        if device not in self._on_device:
            self._on_device[device] = (
                RaceTables.from_db(self.one_sided, device),
                self.two_sided.win.to(device),
            )
        return self._on_device[device]
