"""Bench games as Jellyfish ``.mat`` records (:mod:`bgai.formats.mat`), for ``--save-games``: a
view of the games' logs (:class:`~bgai.bench.games.GameLog`).

Player A is always the left column (gnubg's player 0) and B the right one, whichever seat
each had; the opening roll decides who moves first, as in the game. A money session (the
cubeless duel and ``--cube``) is one file of match length 0 whose score lines are the
running totals of the session; a match is one file per match.

Moves are stored as single-die steps in play order, found by replaying the engine's path to
the chosen afterstate (:func:`bgai.engine.move_steps`).
"""

from __future__ import annotations

import re
from collections.abc import Sequence

import numpy as np

from bgai.bench.games import GameLog
from bgai.cube.state import MAX_CUBE
from bgai.engine.steps import Step, move_steps
from bgai.formats.mat import Action, GameRecord, MatchRecord


def move_action(column: int, dice: Sequence[int], steps: list[Step]) -> Action:
    """A move by the player in ``column`` (0 = A, 1 = B), larger die first as .mat writes it."""
    return Action(int(column), "move", (int(max(dice)), int(min(dice))), steps)


def mat_names(a: str, b: str) -> tuple[str, str]:
    """Player names a .mat score line can hold: no ``:`` or spaces, and never the same twice."""
    clean = [re.sub(r"[^A-Za-z0-9_.@+\-]", "_", name) or "player" for name in (a, b)]
    if clean[0] == clean[1]:
        clean = [f"{clean[0]}-A", f"{clean[1]}-B"]
    return clean[0], clean[1]


def money_comment(cube: bool, jacoby: bool = True, beavers: bool = True, max_cube: int = MAX_CUBE) -> str:
    """The header comment of a money session: its rules, which a .mat file has no place for.

    gnubg scores an imported money game with its own Jacoby setting (on by default), so a
    session played without the Jacoby rule says to ``set jacoby off`` before importing.
    """
    if not cube:
        return "bgai bench: cubeless money games (gammons always count); in gnubg: set jacoby off"
    on_off = {True: "on", False: "off"}
    rules = f"Jacoby rule {on_off[jacoby]}, beavers {on_off[beavers]}, cube limit {max_cube}"
    return f"bgai bench: cubeful money games, {rules}" + ("" if jacoby else "; in gnubg: set jacoby off")


def money_session(
    names: tuple[str, str],
    games: list[GameRecord],
    variant: str = "standard",
    event: str | None = None,
    comment: str | None = None,
) -> MatchRecord:
    """A money session (match length 0) of ``games`` in order, numbered 1.. with running scores."""
    totals = [0, 0]
    for number, game in enumerate(games, 1):
        game.number, game.score = number, (totals[0], totals[1])
        if game.winner is not None:
            totals[game.winner] += game.points
    return MatchRecord(0, names, games, variant=variant, event=event, comment=comment)


def mat_games(logs: list[GameLog]) -> list[GameRecord]:
    """The recorded games (:class:`~bgai.bench.games.GameLog` with moves) as ``.mat`` games, in
    order: each move's steps found by one batched replay of every move (:func:`move_steps`),
    cube actions before the move of their turn. Numbers and scores are the logs' (a match's)."""
    moves = [(k, m) for k, log in enumerate(logs) for m in (log.moves or [])]
    if any(log.moves is None for log in logs):
        raise ValueError("the games were not recorded: play them with record=True")
    steps = move_steps(
        np.stack([m[3] for _, m in moves]) if moves else np.zeros((0, 2, 25), np.int8),
        np.array([m[2] for _, m in moves]).reshape(-1, 2),
        np.stack([m[4] for _, m in moves]) if moves else np.zeros((0, 2, 25), np.int8),
    )
    events: list[list[tuple[int, int, Action]]] = [[] for _ in logs]
    for (k, (turn, column, dice, _, _)), path in zip(moves, steps, strict=True):
        events[k].append((turn, 1, move_action(column, dice, path)))
    for k, log in enumerate(logs):
        for turn, column, kind, cube in log.cube_actions:
            offered = cube if kind in ("double", "beaver") else None  # .mat writes the cube of these
            events[k].append((turn, 0, Action(column, kind, cube=offered)))
    games = []
    for log, happened in zip(logs, events, strict=True):
        actions = [action for _, _, action in sorted(happened, key=lambda e: (e[0], e[1]))]
        games.append(GameRecord(log.number, log.score, actions, winner=log.winner, points=log.points))
    return games


def match_records(
    logs: list[GameLog], matches: int, length: int, a: str, b: str, variant: str, seed: int
) -> list[MatchRecord]:
    """One ``.mat`` match record per match of a bench run, its games in order."""
    games_of: list[list[GameLog]] = [[] for _ in range(matches)]
    for log in sorted(logs, key=lambda g: (g.unit, g.number)):
        games_of[log.unit].append(log)
    names = mat_names(a, b)
    event = f"bgai bench, seed {seed}, match"
    return [
        MatchRecord(length, names, mat_games(games), variant=variant, event=f"{event} {k}")
        for k, games in enumerate(games_of, 1)
    ]
