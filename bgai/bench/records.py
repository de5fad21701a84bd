"""Bench games as Jellyfish ``.mat`` records (:mod:`bgai.formats.mat`), for ``--save-games``.

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


def duel_session(result, event: str | None = None) -> MatchRecord:
    """The games of a cubeless :func:`~bgai.bench.duel` run with ``record=True`` as a session."""
    if result.records is None:
        raise ValueError("the duel kept no records: run it with record=True")
    turns = [turn for game in result.records for turn in game.turns]
    steps = move_steps(
        np.stack([t[2] for t in turns]) if turns else np.zeros((0, 2, 25), np.int8),
        np.array([t[1] for t in turns]).reshape(-1, 2),
        np.stack([t[3] for t in turns]) if turns else np.zeros((0, 2, 25), np.int8),
    )
    games, k = [], 0
    for game in result.records:
        actions = []
        for player, dice, _, _ in game.turns:
            actions.append(move_action(0 if player == "A" else 1, dice, steps[k]))
            k += 1
        winner = 0 if game.points > 0 else 1
        games.append(GameRecord(0, (0, 0), actions, winner=winner, points=abs(game.points)))
    return money_session(mat_names(result.a, result.b), games, result.variant, event, money_comment(False))
