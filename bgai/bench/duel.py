"""Duels: cubeless money games between two players, many games at once, with duplicate dice.

Each turn, every running game where A is on roll goes to A in one ``choose`` call and the
rest to B in another, so batched players (search, networks) see big batches.

**Dice.** Game ``i`` reads its dice from stream ``i // 2`` (duplicate) or ``i``: a
counter-based hash of (seed, stream, turn), so a stream is the same sequence of rolls
however many games run alongside. The opening roll gives each seat one die, ties re-rolled;
the seat with the higher die moves first and plays both. Turn ``t`` then uses roll ``t`` of
the stream, whoever is on roll.

**Duplicate dice** (the default): games ``2k`` and ``2k + 1`` share stream ``k`` with the
players in swapped seats (A in seat 0, then B in seat 0), so each player meets exactly the
rolls the other met in the same seat, and luck largely cancels in the pair's sum. The
confidence interval is computed over the pairs' average results.
"""

from __future__ import annotations

import json
import math
import time
from dataclasses import asdict, dataclass, field
from typing import Any

import numpy as np
import torch
from tqdm import tqdm

from bgai.bots.players import Player
from bgai.engine.board import checkers_per_side, game_value, starting_board, swap_sides

MAX_TURNS = 10_000
_OPENING = 1 << 40  # turn numbers from here on are re-rolls of the opening


@dataclass
class GameRecord:
    """One game as played, for writers such as .mat: ``turns`` are (player 'A'/'B', dice,
    board before the move, board after it), both boards with the mover in row 1."""

    a_seat: int
    first_seat: int
    points: int
    """Points won by A (negative when B won)."""
    turns: list[tuple[str, tuple[int, int], np.ndarray, np.ndarray]] = field(default_factory=list)


@dataclass
class DuelResult:
    """The outcome of :func:`duel`, from A's side: ``ppg`` is A's points per game."""

    a: str
    b: str
    games: int
    duplicate: bool
    seed: int
    variant: str
    ppg: float
    ci95: float
    """Half-width of the 95 % confidence interval of ``ppg``: 1.96 sd / sqrt(samples), the
    samples being the duplicate pairs' average results (or single games)."""
    a_win: float
    a_gammon: float
    a_backgammon: float
    b_win: float
    b_gammon: float
    b_backgammon: float
    """Fractions of all games; gammons include backgammons."""
    avg_turns: float
    seconds: float
    games_per_sec: float
    records: list[GameRecord] | None = None

    def to_dict(self) -> dict[str, Any]:
        """Everything but the game records, NaN written as None (JSON-safe)."""
        out = asdict(self)
        out.pop("records")
        return {k: (None if isinstance(v, float) and not math.isfinite(v) else v) for k, v in out.items()}

    def to_json(self) -> str:
        return json.dumps(self.to_dict())

    def table(self) -> str:
        """A small results table for people."""
        pairs = f" ({self.games // 2} duplicate pairs)" if self.duplicate else ""
        ci = f"{self.ci95:.3f}" if math.isfinite(self.ci95) else "n/a"
        width = max(len(self.a), len(self.b), 6)
        lines = [
            f"{self.a} vs {self.b}: {self.games} cubeless money games{pairs}, seed {self.seed}"
            + ("" if self.variant == "standard" else f", {self.variant}"),
            f"{'player':<{width}}  {'ppg':>16}  {'win %':>6}  {'gammon %':>8}  {'bg %':>5}",
            f"{self.a:<{width}}  {self.ppg:+8.3f} ± {ci:<5}  {100 * self.a_win:6.1f}  "
            f"{100 * self.a_gammon:8.1f}  {100 * self.a_backgammon:5.1f}",
            f"{self.b:<{width}}  {-self.ppg:+8.3f} ± {ci:<5}  {100 * self.b_win:6.1f}  "
            f"{100 * self.b_gammon:8.1f}  {100 * self.b_backgammon:5.1f}",
            f"{self.games_per_sec:.1f} games/s, {self.avg_turns:.1f} turns per game, {self.seconds:.1f} s",
        ]
        return "\n".join(lines)


def dice_of(seed: int, streams: np.ndarray, turns: np.ndarray) -> np.ndarray:
    """Roll ``turns[j]`` of stream ``streams[j]``: ``(n, 2)`` dice from a seeded counter hash."""
    with np.errstate(over="ignore"):
        key = _mix(np.full(len(streams), seed & (2**64 - 1), dtype=np.uint64))
        key = _mix(key + np.asarray(streams, dtype=np.uint64))
        value = _mix(key + np.asarray(turns, dtype=np.uint64)) % np.uint64(36)
    value = value.astype(np.int64)
    return np.stack([value // 6 + 1, value % 6 + 1], 1)


def opening_dice(seed: int, streams: np.ndarray) -> np.ndarray:
    """The opening roll of each stream, ``(n, 2)``: die 0 is seat 0's, die 1 seat 1's; no ties."""
    dice = dice_of(seed, streams, np.full(len(streams), _OPENING))
    attempt = 0
    while (tie := dice[:, 0] == dice[:, 1]).any():
        attempt += 1
        dice[tie] = dice_of(seed, streams[tie], np.full(int(tie.sum()), _OPENING + attempt))
    return dice


def _mix(x: np.ndarray) -> np.ndarray:
    """splitmix64's finaliser (uint64 arithmetic wraps)."""
    x = x + np.uint64(0x9E3779B97F4A7C15)
    x = (x ^ (x >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
    x = (x ^ (x >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
    return x ^ (x >> np.uint64(31))


def duel(
    a: Player,
    b: Player,
    games: int,
    seed: int = 0,
    duplicate: bool = True,
    variant: str = "standard",
    progress: bool = False,
    record: bool = False,
    parallel: int = 1024,
) -> DuelResult:
    """Play ``games`` cubeless money games of A against B, up to ``parallel`` at a time.

    With ``duplicate`` an odd ``games`` is rounded up to whole pairs. ``progress`` shows a
    tqdm bar when writing to a terminal. ``record`` keeps every game's moves
    (:class:`GameRecord`) in ``result.records``.
    """
    if games < 1:
        raise ValueError(f"games must be at least 1, got {games}")
    if duplicate:
        games += games % 2
    start = torch.as_tensor(starting_board(variant))
    checkers = checkers_per_side(variant)
    points = np.zeros(games, dtype=np.int64)
    turns_played = np.zeros(games, dtype=np.int64)
    records = [None] * games if record else None

    def stream_of(i: np.ndarray) -> np.ndarray:
        return i // 2 if duplicate else i

    # Slots hold the running games: game index, seats, turn, the board with the mover in row 1.
    next_game = 0
    game = np.zeros(0, dtype=np.int64)
    a_seat = np.zeros(0, dtype=np.int64)
    on_roll = np.zeros(0, dtype=np.int64)
    turn = np.zeros(0, dtype=np.int64)
    boards = torch.zeros((0, 2, 25), dtype=torch.int8)
    opening = np.zeros((0, 2), dtype=np.int64)

    bar = tqdm(total=games, unit="game", disable=None if progress else True, leave=False)
    began = time.perf_counter()
    while next_game < games or len(game):
        # Fill free slots with new games.
        free = min(parallel - len(game), games - next_game)
        if free > 0:
            new = np.arange(next_game, next_game + free)
            next_game += free
            new_opening = opening_dice(seed, stream_of(new))
            new_a_seat = new % 2
            first = (new_opening[:, 1] > new_opening[:, 0]).astype(np.int64)
            game = np.concatenate([game, new])
            a_seat = np.concatenate([a_seat, new_a_seat])
            on_roll = np.concatenate([on_roll, first])
            turn = np.concatenate([turn, np.zeros(free, dtype=np.int64)])
            opening = np.concatenate([opening, new_opening])
            boards = torch.cat([boards, start.expand(free, 2, 25)])
            if record:
                for i, s, f in zip(new, new_a_seat, first, strict=True):
                    records[i] = GameRecord(int(s), int(f), 0)

        dice = dice_of(seed, stream_of(game), turn)
        dice[turn == 0] = opening[turn == 0]
        a_moves = on_roll == a_seat
        after = torch.empty_like(boards)
        dice_t = torch.as_tensor(dice)
        turns_of = ((a, np.ones_like(a_moves)),) if a is b else ((a, a_moves), (b, ~a_moves))
        for player, mask in turns_of:  # one call per player (one in all for a self-duel)
            idx = torch.as_tensor(np.flatnonzero(mask))
            if len(idx):
                after[idx] = player.choose(boards[idx], dice_t[idx]).to(after)
        if record:
            before_np, after_np = boards.numpy(), after.numpy()
            for j, i in enumerate(game):
                records[i].turns.append(
                    (
                        "A" if a_moves[j] else "B",
                        (int(dice[j, 0]), int(dice[j, 1])),
                        before_np[j].copy(),
                        after_np[j].copy(),
                    )
                )

        value = game_value(after, checkers).numpy()
        over = value > 0
        if over.any():
            finished = game[over]
            points[finished] = np.where(a_moves[over], value[over], -value[over])
            turns_played[finished] = turn[over] + 1
            if record:
                for i in finished:
                    records[i].points = int(points[i])
            bar.update(int(over.sum()))
        if (turn >= MAX_TURNS).any():
            raise RuntimeError(f"a game lasted over {MAX_TURNS} turns: are the players moving?")
        keep = ~over
        keep_t = torch.as_tensor(keep)
        game, a_seat, turn, opening = game[keep], a_seat[keep], turn[keep] + 1, opening[keep]
        on_roll = 1 - on_roll[keep]
        boards = swap_sides(after[keep_t])
    bar.close()
    seconds = time.perf_counter() - began
    return _summarise(a, b, points, turns_played, duplicate, seed, variant, seconds, records)


def _summarise(a, b, points, turns_played, duplicate, seed, variant, seconds, records) -> DuelResult:
    games = len(points)
    samples = points.reshape(-1, 2).mean(1) if duplicate else points.astype(np.float64)
    sd = samples.std(ddof=1) if len(samples) > 1 else math.nan
    ci95 = 1.96 * sd / math.sqrt(len(samples)) if len(samples) > 1 else math.nan
    a_pts, b_pts = np.maximum(points, 0), np.maximum(-points, 0)
    return DuelResult(
        a=a.name,
        b=b.name,
        games=games,
        duplicate=duplicate,
        seed=seed,
        variant=variant,
        ppg=float(points.mean()),
        ci95=float(ci95),
        a_win=float((a_pts >= 1).mean()),
        a_gammon=float((a_pts >= 2).mean()),
        a_backgammon=float((a_pts >= 3).mean()),
        b_win=float((b_pts >= 1).mean()),
        b_gammon=float((b_pts >= 2).mean()),
        b_backgammon=float((b_pts >= 3).mean()),
        avg_turns=float(turns_played.mean()),
        seconds=seconds,
        games_per_sec=games / seconds if seconds > 0 else math.inf,
        records=records,
    )


@dataclass
class LeagueResult:
    """A round robin: ``ppg[i][j]`` is player i's points per game against player j."""

    names: list[str]
    duels: list[DuelResult]

    @property
    def ppg(self) -> list[list[float | None]]:
        n = len(self.names)
        grid: list[list[float | None]] = [[None] * n for _ in range(n)]
        index = {name: k for k, name in enumerate(self.names)}
        for d in self.duels:
            i, j = index[d.a], index[d.b]
            grid[i][j], grid[j][i] = d.ppg, -d.ppg
        return grid

    def average(self) -> list[float]:
        """Each player's mean ppg over its opponents."""
        return [float(np.mean([x for x in row if x is not None])) for row in self.ppg]

    def to_dict(self) -> dict[str, Any]:
        return {
            "players": self.names,
            "ppg": self.ppg,
            "average": self.average(),
            "duels": [d.to_dict() for d in self.duels],
        }

    def to_json(self) -> str:
        return json.dumps(self.to_dict())

    def table(self) -> str:
        """Row player's ppg against each column player, and its average; best first."""
        width = max(8, *(len(n) for n in self.names))
        order = sorted(range(len(self.names)), key=lambda k: -self.average()[k])
        head = f"{'':<{width}}" + "".join(f"  {self.names[k]:>{width}}" for k in order) + f"  {'average':>8}"
        lines = [head]
        grid, avg = self.ppg, self.average()
        for i in order:
            cells = "".join(
                f"  {'-' if grid[i][j] is None else f'{grid[i][j]:+.3f}':>{width}}" for j in order
            )
            lines.append(f"{self.names[i]:<{width}}{cells}  {avg[i]:+8.3f}")
        return "\n".join(lines)


def league(
    players: list[Player],
    games: int,
    seed: int = 0,
    duplicate: bool = True,
    progress: bool = False,
    **duel_options: Any,
) -> LeagueResult:
    """Every pair of ``players`` plays a :func:`duel` of ``games`` games (each with ``seed``)."""
    names = [p.name for p in players]
    if len(set(names)) != len(names):
        raise ValueError(f"league players need distinct names, got {names}")
    if len(players) < 2:
        raise ValueError("a league needs at least two players")
    duels = [
        duel(players[i], players[j], games, seed, duplicate, progress=progress, **duel_options)
        for i in range(len(players))
        for j in range(i + 1, len(players))
    ]
    return LeagueResult(names, duels)
