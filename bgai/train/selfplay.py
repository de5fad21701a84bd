"""K self-play games at once over the batched engine.

Each turn, every afterstate of every running game is valued in one network call, each game
plays its greedy move (or, with probability ``exploration``, a random one), and games that
end are recorded and replaced at once. Finished games come out as (positions, lambda-returns)
ready for a regression update.
"""

from __future__ import annotations

from dataclasses import dataclass

import torch

from bgai.engine import expand, game_value, starting_board, swap_sides
from bgai.engine.choice import random_child, segment_argmax
from bgai.engine.dice import opening_roll, roll
from bgai.engine.sampling import backgame_starts, race_starts
from bgai.model.probs import cubeless_equity
from bgai.search.evaluator import NetEvaluator, afterstate_values
from bgai.train.td import lambda_returns

MAX_TURNS = 1000  # a history slot per game; a game reaching it is scored as it stands


@dataclass
class FinishedGames:
    boards: torch.Tensor  # (P, 2, 25) positions before each move, mover in row 1
    returns: torch.Tensor  # (P, 5) lambda-returns for those positions
    games: int
    turns: int  # total turns of the finished games
    gammons: int
    backgammons: int


class SelfPlay:
    """The running games of one process; ``state_dict`` makes a run resumable exactly."""

    def __init__(
        self,
        k: int,
        variant: str,
        lam: float,
        exploration: float,
        generator: torch.Generator,
        device: torch.device,
        backgame_starts: float = 0.0,
        race_starts: float = 0.0,
        database_starts: float = 0.0,
        start_boards: torch.Tensor | None = None,
    ) -> None:
        self.k, self.lam, self.exploration = k, lam, exploration
        self.generator, self.device = generator, device
        self.backgame_share, self.race_share = backgame_starts, race_starts
        self.database_share, self.start_boards = database_starts, start_boards
        if database_starts > 0 and (start_boards is None or not len(start_boards)):
            raise ValueError("database_starts needs start boards")
        self.start = torch.as_tensor(starting_board(variant), device=device)
        self.boards = self._new_games(k)
        self.turn = torch.zeros(k, dtype=torch.long, device=device)
        self.history = torch.zeros((k, MAX_TURNS, 2, 25), dtype=torch.int8, device=device)
        self.values = torch.zeros((k, MAX_TURNS, 5), dtype=torch.float32, device=device)

    @torch.no_grad()
    def play_turn(self, net: torch.nn.Module) -> FinishedGames:
        k, dev = self.k, self.device
        dice = roll(k, self.generator, dev)
        # only a game from the opening position starts with the opening roll (no doubles)
        first = (self.turn == 0) & (self.boards == self.start).flatten(1).all(1)
        if first.any():
            dice[first] = opening_roll(int(first.sum()), self.generator).to(dev)
        children, parent = expand(self.boards, dice)
        probs = afterstate_values(NetEvaluator(net), children)
        pick = segment_argmax(cubeless_equity(probs), parent, k)
        if self.exploration > 0:
            explore = torch.rand(k, generator=self.generator).to(dev) < self.exploration
            pick = torch.where(explore, random_child(parent, k, self.generator), pick)

        rows = torch.arange(k, device=dev)
        self.history[rows, self.turn] = self.boards.to(torch.int8)
        self.values[rows, self.turn] = probs[pick]
        moved = children[pick]
        won = game_value(moved)
        self.turn += 1
        over = (won > 0) | (self.turn >= MAX_TURNS)
        self.boards = swap_sides(moved)
        return self._harvest(over, won)

    def _harvest(self, over: torch.Tensor, won: torch.Tensor) -> FinishedGames:
        done = over.nonzero().squeeze(1)
        lengths = self.turn[done]
        t_max = int(lengths.max()) if len(done) else 0
        values = self.values[done, :t_max]
        returns = lambda_returns(values, lengths, self.lam)
        valid = torch.arange(t_max, device=self.device)[None, :] < lengths[:, None]
        boards = self.history[done, :t_max][valid]
        result = FinishedGames(
            boards,
            returns[valid],
            len(done),
            int(lengths.sum()),
            int((won[done] >= 2).sum()),
            int((won[done] >= 3).sum()),
        )
        self.boards[done] = self._new_games(len(done))
        self.turn[done] = 0
        return result

    def _new_games(self, n: int) -> torch.Tensor:
        """``n`` starting boards: the opening position, or with probability ``backgame_starts``
        a random back-game set-up (:func:`bgai.engine.sampling.backgame_starts`), so that TD
        learns positions self-play from the opening hardly reaches, or with probability
        ``race_starts`` a random race (:func:`bgai.engine.sampling.race_starts`), or with
        probability ``database_starts`` one of ``start_boards`` (positions of a database)."""
        boards = self.start.expand(n, 2, 25).clone()
        if (self.backgame_share > 0 or self.race_share > 0 or self.database_share > 0) and n:
            u = torch.rand(n, generator=self.generator).to(self.device)
            database_end = self.backgame_share + self.database_share
            for pick, make in (
                (u < self.backgame_share, backgame_starts),
                ((u >= self.backgame_share) & (u < database_end), self._database_starts),
                ((u >= 1 - self.race_share), race_starts),
            ):
                if pick.any():
                    boards[pick] = make(int(pick.sum()), self.generator).to(boards)
        return boards

    def _database_starts(self, n: int, generator: torch.Generator) -> torch.Tensor:
        return self.start_boards[torch.randint(len(self.start_boards), (n,), generator=generator)]

    def state_dict(self) -> dict[str, torch.Tensor]:
        t_max = int(self.turn.max())
        return {
            "boards": self.boards.clone(),
            "turn": self.turn.clone(),
            "history": self.history[:, :t_max].clone(),
            "values": self.values[:, :t_max].clone(),
        }

    def load_state_dict(self, state: dict[str, torch.Tensor]) -> None:
        if state["boards"].shape[0] != self.k:
            raise ValueError(
                f"checkpoint has {state['boards'].shape[0]} parallel games, config says {self.k}"
            )
        t_max = state["history"].shape[1]
        self.boards = state["boards"].to(self.device)
        self.turn = state["turn"].to(self.device)
        self.history[:, :t_max] = state["history"].to(self.device)
        self.values[:, :t_max] = state["values"].to(self.device)
