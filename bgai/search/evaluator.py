"""Evaluators: batches of boards in, five outcome probabilities out, for the player on roll.

Everything in search, bots and bench is written against the :class:`Evaluator` protocol:
``evaluate(boards (N, 2, 25)) -> (N, 5)`` as ``[win, win gammon, win backgammon, lose gammon,
lose backgammon]`` for the player **on roll** (row 1), without gradients. A board where one
side has no checkers left is a finished game; every evaluator returns its exact outcome
(:func:`terminal_probs`) instead of asking a model.

Implementations: :class:`NetEvaluator` (a bgai network), :class:`PubevalEvaluator` (pubeval
squashed into a win probability, for testing search plumbing only) and
:class:`GnubgEvaluator` (gnubg's own net, through :mod:`bgai.gnubg`).

**Pruning** (gnubg's pruning nets): an evaluator may carry a ``pruner`` attribute, itself an
evaluator, cheap and roughly as good at *ranking* moves. The n-ply search then short-lists the
moves of its inner nodes (each (position, roll)'s replies) by the pruner, as gnubg does, and
the evaluator picks among those; see :func:`bgai.search.ply.evaluate_position`.
:class:`PrunedEvaluator` attaches one to any evaluator; :func:`pruner_of` reads it.
"""

from __future__ import annotations

import hashlib
from typing import Protocol, runtime_checkable

import torch

from bgai import gnubg
from bgai.engine.board import CHECKERS, is_race, swap_sides
from bgai.model.probs import invert, possible_outcomes
from bgai.model.pubeval import pubeval_scores


@runtime_checkable
class Evaluator(Protocol):
    """Turns positions into outcome probabilities for the player on roll."""

    def evaluate(self, boards: torch.Tensor) -> torch.Tensor:
        """``(N, 5)`` probabilities for row 1 of each board ``(N, 2, 25)``; no gradients."""
        ...


def terminal_probs(boards: torch.Tensor, checkers: int = CHECKERS) -> tuple[torch.Tensor, torch.Tensor]:
    """Exact outcomes of finished games: ``(probs (N, 5), finished (N,) bool)``.

    A game is over when either row has no checkers left. If the player on roll has borne
    everything off they have won; if the opponent has, the player on roll has lost. A gammon
    is a loser with all ``checkers`` still on the board, a backgammon one who also has a
    checker on the bar or in the winner's home board. Rows of unfinished games are zero.
    """
    b = torch.as_tensor(boards)
    counts = b.sum(-1, dtype=torch.int16)  # (N, 2): [opponent, on roll]
    finished = (counts == 0).any(-1)
    probs = torch.zeros(len(b), 5)
    done = finished.nonzero().squeeze(1)
    if len(done):
        probs[done] = _outcomes(b.index_select(0, done).cpu().long(), checkers)
    return probs.to(b.device), finished


def _outcomes(boards: torch.Tensor, checkers: int) -> torch.Tensor:
    """:func:`terminal_probs` of boards that are all finished games."""
    counts = boards.sum(-1)
    won = (counts[:, 1] == 0).float()[:, None]
    # The loser's checkers in the winner's home board are the loser's points 19-24 and bar.
    gammon = (counts == checkers).float()  # per row: that side has borne off nothing
    backgammon = gammon * (boards[:, :, 18:25].sum(-1) > 0).float()
    one = torch.ones_like(won[:, 0])
    zero = torch.zeros_like(one)
    win_row = torch.stack([one, gammon[:, 0], backgammon[:, 0], zero, zero], -1)
    loss_row = torch.stack([zero, zero, zero, gammon[:, 1], backgammon[:, 1]], -1)
    return won * win_row + (1 - won) * loss_row


class _Base:
    """Terminal handling shared by every evaluator; subclasses score the live boards."""

    checkers: int = CHECKERS

    def evaluate(self, boards: torch.Tensor) -> torch.Tensor:
        boards = torch.as_tensor(boards)
        probs, finished = terminal_probs(boards, self.checkers)
        if not finished.any():
            return self._evaluate_live(boards).float()
        live = (~finished).nonzero().squeeze(1)
        if len(live):
            probs[live] = self._evaluate_live(boards.index_select(0, live)).to(probs)
        return probs

    def _evaluate_live(self, boards: torch.Tensor) -> torch.Tensor:
        raise NotImplementedError


class NetEvaluator(_Base):
    """A bgai network (:class:`~bgai.model.net.ValueNet` or ``SplitNet``) in inference mode,
    its outputs held to what the board allows (:func:`~bgai.model.probs.possible_outcomes`).

    Boards go to the network's device; results come back on the boards' device.
    """

    def __init__(self, net: torch.nn.Module, name: str = "net") -> None:
        self.net = net.eval()
        self.name = name
        inner = getattr(net, "contact", net)  # a SplitNet's two nets share the checker count
        self.checkers = int(getattr(inner, "checkers", CHECKERS))
        self.device = next(net.parameters()).device

    def _evaluate_live(self, boards: torch.Tensor) -> torch.Tensor:
        with torch.inference_mode():
            boards_here = boards.to(self.device)
            probs = self.net(boards_here).float() * possible_outcomes(boards_here, self.checkers)
            return probs.to(boards.device)


class PubevalEvaluator(_Base):
    """Pubeval dressed as an evaluator, **for testing search plumbing only**.

    Pubeval scores a position after a move for the side that just moved, so a board with X
    on roll is scored as O's afterstate (race weights when contact is over) and inverted.
    The score becomes a win probability through ``logistic((score - 7) / 3)`` (a rough
    centring measured on greedy-play positions, not a calibration); gammons are zero.
    Choosing moves at 0-ply with it ranks them exactly as pubeval's score does.
    """

    CENTRE, SCALE = 7.0, 3.0
    name = "pubeval-evaluator"

    def _evaluate_live(self, boards: torch.Tensor) -> torch.Tensor:
        previous_mover = swap_sides(boards)
        score = pubeval_scores(previous_mover, is_race(previous_mover))
        mover_wins = torch.sigmoid((score.float() - self.CENTRE) / self.SCALE)
        probs = torch.zeros(len(boards), 5, device=boards.device)
        probs[:, 0] = mover_wins
        return invert(probs)


class PrunedEvaluator:
    """``evaluator`` with a cheap ``pruner`` for the search's inner move choices.

    ``evaluate`` is ``evaluator``'s: every value the search keeps comes from it; the pruner only
    short-lists the replies at an inner node that the evaluator chooses among. ``name`` and
    ``checkers`` are ``evaluator``'s.
    """

    def __init__(self, evaluator: Evaluator, pruner: Evaluator, name: str | None = None) -> None:
        self.evaluator = evaluator
        self.pruner = pruner
        self.name = name or getattr(evaluator, "name", "pruned")
        self.checkers = int(getattr(evaluator, "checkers", CHECKERS))

    def evaluate(self, boards: torch.Tensor) -> torch.Tensor:
        return self.evaluator.evaluate(boards)


def pruner_of(evaluator: Evaluator) -> Evaluator | None:
    """The pruner ``evaluator`` carries (its ``pruner`` attribute), or ``None``."""
    return getattr(evaluator, "pruner", None)


class GnubgEvaluator(_Base):
    """gnubg's evaluation (:func:`bgai.gnubg.probabilities`) at ``plies``, one board at a time.

    gnubg's board layout is bgai's (row 0 opponent, row 1 on roll), so boards pass unchanged.
    A Python loop over boards is unavoidable: gnubg_nn has no batched call.
    """

    fork_safe = False
    """gnubg's C library keeps threads and locks: a process forked from one that uses it can hang."""

    def __init__(self, plies: int = 0) -> None:
        gnubg.nn()  # a missing package is one line now, not at the first evaluation
        self.plies = int(plies)
        self.name = f"gnubg-{self.plies}ply"

    def _evaluate_live(self, boards: torch.Tensor) -> torch.Tensor:
        return torch.as_tensor(gnubg.probabilities(boards.cpu().numpy(), self.plies), device=boards.device)


def weights_digest(evaluator: Evaluator) -> str:
    """A short sha256 of every network weight ``evaluator`` uses (its pruner's and fallback's too).

    A name such as ``best`` stands for another net after a promotion; the digest does not, so
    work recorded under a name (labels) can tell which net made it. Computed from the weights
    on the CPU: the same on every device.
    """
    digest, seen = hashlib.sha256(), set()

    def walk(part: object) -> None:
        if id(part) in seen:
            return
        seen.add(id(part))
        if isinstance(part, torch.nn.Module):
            for key, value in sorted(part.state_dict().items()):
                digest.update(key.encode())
                digest.update(value.detach().cpu().contiguous().numpy().tobytes())
            return
        for value in vars(part).values() if hasattr(part, "__dict__") else ():
            if isinstance(value, torch.nn.Module) or type(value).__module__.startswith("bgai."):
                walk(value)

    walk(evaluator)
    return digest.hexdigest()[:16]


def afterstate_values(evaluator: Evaluator, children: torch.Tensor) -> torch.Tensor:
    """``(M, 5)`` value of each afterstate for the player who just moved (row 1 of ``children``).

    The opponent is on roll next: swap sides, evaluate, invert. A move that bears off the
    last checker gets its exact result.
    """
    return invert(evaluator.evaluate(swap_sides(torch.as_tensor(children))))
