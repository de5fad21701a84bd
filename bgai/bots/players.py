"""Players: batched move choosers that bench, play and export all speak to.

A :class:`Player` has a ``name`` and ``choose(boards (N, 2, 25), dice (N, 2)) -> afterstates
(N, 2, 25)``: the position each player on roll (row 1) leaves after its move, mover still in
row 1; a board with no legal move comes back unchanged. Every player also offers
``choose_move(position_id, dice) -> str``, the same choice written in gnubg notation for
people (:mod:`bgai.moves` does the writing).

:func:`network_evaluator` builds the evaluator of a trained network (with its pruning net and
the bear-off databases), :func:`evaluator_of` finds the evaluator behind a player. Players by
the names people type are :mod:`bgai.specs`'s business.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol, runtime_checkable

import torch

from bgai import gnubg
from bgai.engine.board import is_race, swap_sides
from bgai.engine.choice import random_child, segment_argmax
from bgai.engine.movegen import expand
from bgai.model.pubeval import pubeval_scores
from bgai.search.evaluator import Evaluator, GnubgEvaluator
from bgai.search.ply import DEFAULT_FILTER, MoveFilter, pick_best, position_noise, score_candidates


@runtime_checkable
class Player(Protocol):
    """Chooses one move for each of many positions at once."""

    name: str

    def choose(self, boards: torch.Tensor, dice: torch.Tensor) -> torch.Tensor:
        """The afterstate ``(N, 2, 25)`` chosen for each (board, dice) pair, mover in row 1."""
        ...


class PlayerBase:
    """What every player shares: the people-facing :meth:`choose_move`."""

    name = "player"

    def choose(self, boards: torch.Tensor, dice: torch.Tensor) -> torch.Tensor:
        raise NotImplementedError

    def choose_move(self, position_id: str, dice: str | Sequence[int]) -> str:
        """The move this player picks, written exactly as :func:`bgai.moves.legal_moves` writes it.

        ``position_id`` is anything :func:`bgai.formats.read_position` reads (player on roll in
        row 1); ``""`` means no move is legal.
        """
        from bgai.formats import encode_position_id, read_position
        from bgai.moves import legal_moves, parse_dice

        board, _ = read_position(position_id)
        roll = parse_dice(dice)
        moves = legal_moves(encode_position_id(board), roll)
        if not moves:
            return ""
        chosen = self.choose(torch.as_tensor(board, dtype=torch.int8)[None], torch.tensor([roll]))[0]
        target = encode_position_id(swap_sides(chosen.cpu().numpy()))
        for notation, after in moves:
            if after == target:
                return notation
        raise RuntimeError(f"{self.name} chose a position that is not a legal move ({target})")

    def __repr__(self) -> str:
        return f"<{type(self).__name__} {self.name}>"


class RandomPlayer(PlayerBase):
    """Plays a uniformly random legal move (distinct resulting positions are equally likely)."""

    def __init__(self, seed: int = 0) -> None:
        self.generator = torch.Generator().manual_seed(seed)
        self.name = "random"

    def choose(self, boards: torch.Tensor, dice: torch.Tensor) -> torch.Tensor:
        children, parent = expand(torch.as_tensor(boards), torch.as_tensor(dice))
        return children.index_select(0, random_child(parent, len(boards), self.generator))


class PubevalPlayer(PlayerBase):
    """Tesauro's pubeval: the move with the highest score, race weights if the position
    *before* the move is a race (as pubeval was published)."""

    name = "pubeval"

    def choose(self, boards: torch.Tensor, dice: torch.Tensor) -> torch.Tensor:
        boards = torch.as_tensor(boards)
        children, parent = expand(boards, torch.as_tensor(dice))
        scores = pubeval_scores(children, is_race(boards).index_select(0, parent))
        return children.index_select(0, segment_argmax(scores, parent, len(boards)))


class SearchPlayer(PlayerBase):
    """The best move by an :class:`~bgai.search.Evaluator` at ``plies`` (gnubg's numbering).

    ``noise`` > 0 adds gnubg-style evaluation noise: a normal number with that standard
    deviation (in equity) to each candidate's equity, deterministic per afterstate (a seeded
    hash of the board), so the same position always gets the same error.
    """

    def __init__(
        self,
        evaluator: Evaluator,
        plies: int = 0,
        move_filter: MoveFilter = DEFAULT_FILTER,
        noise: float = 0.0,
        noise_seed: int = 0,
        name: str | None = None,
    ) -> None:
        self.evaluator = evaluator
        self.plies = int(plies)
        self.move_filter = move_filter
        self.noise = float(noise)
        self.noise_seed = int(noise_seed)
        self.name = name or f"{getattr(evaluator, 'name', 'search')}@{self.plies}ply"

    def choose(self, boards: torch.Tensor, dice: torch.Tensor) -> torch.Tensor:
        boards = torch.as_tensor(boards)
        c = score_candidates(self.evaluator, boards, dice, self.plies, self.move_filter)
        noise = self.noise * position_noise(c.boards, self.noise_seed) if self.noise > 0 else None
        return c.boards.index_select(0, pick_best(c, len(boards), self.plies, noise))


class GnubgPlayer(PlayerBase):
    """gnubg's own choice (:func:`bgai.gnubg.best_moves`) at ``plies``, one board at a time.

    For ``plies`` >= 1 the move filter (:data:`bgai.gnubg.FILTERS`) is set before each batch
    (it is process-wide state in gnubg_nn), so players with different filters can share a
    process. gnubg_nn's search is its own; this filter only approximates gnubg's.
    """

    def __init__(self, plies: int = 0, move_filter: str = "normal", name: str | None = None) -> None:
        gnubg.nn()  # a missing package is one line now, not at the first move
        if move_filter not in gnubg.FILTERS:
            choices = ", ".join(gnubg.FILTERS)
            raise ValueError(f"unknown gnubg move filter {move_filter!r}: choose one of {choices}")
        self.plies = int(plies)
        self.move_filter = move_filter
        self.name = name or f"gnubg@{self.plies}ply"

    def choose(self, boards: torch.Tensor, dice: torch.Tensor) -> torch.Tensor:
        boards = torch.as_tensor(boards)
        dice = torch.as_tensor(dice).cpu().numpy()
        after = gnubg.best_moves(boards.cpu().numpy(), dice, self.plies, self.move_filter)
        return torch.as_tensor(after, device=boards.device)


def network_evaluator(
    name: str, *, bearoff: bool = True, prune: bool = True, device: str = "cpu"
) -> Evaluator:
    """The evaluator of a shipped network (``best``) or a checkpoint file: the net, behind the
    exact bear-off databases when ``bearoff``; with the ``<stem>_pruner.pt`` beside its file
    (``best_pruner.pt`` for ``best``) attached as its pruning net when ``prune`` and that file
    exists; the nets on ``device``. A bad name raises ``ValueError``."""
    from bgai.model.checkpoint import checkpoint_path, load_net
    from bgai.search.evaluator import NetEvaluator, PrunedEvaluator

    path = checkpoint_path(name)
    evaluator: Evaluator = NetEvaluator(load_net(path).to(device), name=name)
    pruner: Evaluator | None = None
    pruner_path = path.with_name(f"{path.stem}_pruner.pt")
    if prune and pruner_path.is_file():
        pruner = NetEvaluator(load_net(pruner_path).to(device), name=f"{name}_pruner")
    if bearoff:  # exact bear-off databases wherever both sides are bearing off
        from bgai.bearoff import BearoffEvaluator

        db = BearoffEvaluator(evaluator)
        db.name = name
        evaluator = db
        if pruner is not None:
            pruner = BearoffEvaluator(pruner, db.one_sided, db.two_sided)
            pruner.name = f"{name}_pruner"
    if pruner is not None:
        evaluator = PrunedEvaluator(evaluator, pruner, name=name)
    return evaluator


def evaluator_of(player: PlayerBase, task: str = "this") -> tuple[Evaluator, int, MoveFilter]:
    """(evaluator, plies, move filter) behind ``player``, for tools that rank moves or analyse
    the cube with its judgement (``bgai hint``, ``bgai cube``, a bot's cube sense and hints).

    A search player gives its own; a gnubg player gives gnubg's 0-ply net under bgai's search
    at its plies. Players that evaluate no positions (random, pubeval) raise ``ValueError``
    saying that ``task`` needs one.
    """
    if isinstance(player, SearchPlayer):
        return player.evaluator, player.plies, player.move_filter
    if isinstance(player, GnubgPlayer):
        return GnubgEvaluator(0), player.plies, DEFAULT_FILTER
    raise ValueError(
        f"{task} needs a player that evaluates positions (best, a checkpoint, gnubg), not {player.name}"
    )
