"""Tesauro's pubeval, the public linear benchmark evaluator, batched in torch.

Pubeval scores a position *after* a move, from the view of the side that just moved (the
mover, still in row 1 as our move generator leaves it). Higher is better for the mover; the
score is not a probability. The weights (race or contact) are chosen by whether the position
*before* the move was a race, so the caller passes that flag. Inputs are described in
``shared/data/README.md``; weights ship as package data (``bgai/data/pubeval_weights.json``).
"""

from __future__ import annotations

import json
from functools import lru_cache
from pathlib import Path

import torch

from bgai.engine.board import BAR, CHECKERS

WEIGHTS_PATH = Path(__file__).resolve().parents[1] / "data" / "pubeval_weights.json"


@lru_cache(maxsize=1)
def _weights_json() -> dict[str, list[float]]:
    return json.loads(WEIGHTS_PATH.read_text())


@lru_cache(maxsize=8)
def pubeval_weights(device: torch.device | str = "cpu") -> torch.Tensor:
    """The weights as a ``(122, 2)`` float32 matrix: column 0 contact, column 1 race."""
    w = _weights_json()
    return torch.tensor([w["contact"], w["race"]], dtype=torch.float32, device=device).T.contiguous()


def pubeval_inputs(afterstates: torch.Tensor) -> torch.Tensor:
    """Pubeval's 122 inputs ``(N, 122)`` for boards after a move, mover in row 1.

    Five units per mover point, from the 24-point down to the 1-point, for n = signed checkers
    (negative = opponent's): n == -1, n == 1, n >= 2, n == 3, (n - 3) / 2 if n >= 4; then
    opponent's bar / 2 and mover's borne off / 15.
    """
    b = torch.as_tensor(afterstates).long()
    signed = b[:, 1, :24] - b[:, 0, :24].flip(-1)  # column k: mover's point k + 1
    n = signed.flip(-1).float()  # column j: mover's point 24 - j
    units = torch.stack(
        [(n == -1).float(), (n == 1).float(), (n >= 2).float(), (n == 3).float(), ((n - 3) / 2).clamp(min=0)],
        -1,
    )
    opp_bar = b[:, 0, BAR:].float() / 2
    off = (CHECKERS - b[:, 1].sum(-1, keepdim=True)).float() / CHECKERS
    return torch.cat([units.flatten(1), opp_bar, off], 1)


def pubeval_scores(afterstates: torch.Tensor, race: torch.Tensor) -> torch.Tensor:
    """Pubeval score ``(N,)`` of each afterstate for the mover (row 1); higher is better.

    ``race`` ``(N,)`` bool: the position before the move was a race (picks the race weights).
    A mover who has borne off all 15 checkers scores +inf.
    """
    b = torch.as_tensor(afterstates)
    x = pubeval_inputs(b)
    both = x @ pubeval_weights(x.device)  # (N, 2): contact, race
    race = torch.as_tensor(race, device=x.device).bool()
    score = torch.where(race, both[:, 1], both[:, 0])
    won = b[:, 1].sum(-1) == 0
    return torch.where(won, torch.full_like(score, float("inf")), score)
