"""A ``.mat`` match replayed into turns: who was on roll, where, in which cube state, what they did.

:func:`read_match` reads a file with :func:`bgai.formats.load_mat` (which checks every move
against the rules) and turns its ``line N`` errors into the game and move number people look
for. :func:`replay` walks the games and yields one :class:`Turn` per player's turn: the board
before the roll (the player on roll in row 1), the :class:`~bgai.cube.CubeState` as that
player sees it, whether gnubg would analyse a cube decision there, the double and its answer,
the roll and the move.

Cube rules the file does not hold: a money session uses gnubg's defaults (Jacoby rule on,
beavers allowed) unless told otherwise or unless bgai's own header comment says so
(``bgai bench``'s sessions say "Jacoby rule off", "cubeless"); ``[CubeLimit "1"]`` or a
cubeless comment means the cube was not in play, so no cube decision is analysed and every
value is the cubeless one. In a match the Crawford game is the first game that starts with a
player one point from the match (the file's ``[Crawford "Off"]`` turns that off).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from bgai.cube import CubeState, Owner
from bgai.cube.state import MAX_CUBE, CubeRules
from bgai.engine.board import starting_board, swap_sides
from bgai.engine.steps import Step, apply_steps
from bgai.formats import GameRecord, MatchRecord, load_mat


@dataclass
class Turn:
    """One player's turn as the file has it: maybe a cube decision, then maybe a roll and a move."""

    game: int
    """The game's number in the file (1-based)."""
    move: int
    """The number of the file's line the turn starts on (``12)``), as people find it."""
    player: int
    """0 = the file's left column (gnubg's player 0), 1 = the right one."""
    board: np.ndarray
    """``(2, 25)`` int8 before the roll, this player in row 1."""
    state: CubeState
    """The cube as this player sees it when rolling (after a double and its take, if any)."""
    owner: int | None = None
    """Who owns the cube then (0 or 1, the file's columns); None = centred."""
    cube_state: CubeState | None = None
    """The cube before the cube decision (the same as ``state`` unless the player doubled)."""
    cube_owner: int | None = None
    cube_decision: bool = False
    """gnubg analyses this player's cube decision here (the cube in play, theirs to turn, not the
    opening position)."""
    doubled: bool = False
    response: str | None = None
    """The opponent's answer to the double: ``take``, ``drop``, ``beaver``; None if unanswered."""
    dice: tuple[int, int] | None = None
    steps: list[Step] | None = None
    """The move played (empty: a dance); None when the turn has no move (a drop, a resignation)."""
    after: np.ndarray | None = None
    """The board after the move, this player still in row 1."""
    opening: bool = False
    """The first move of a game from the starting position (gnubg's luck of the opening roll)."""


@dataclass
class GameInfo:
    """One game: its score before, how it ended, and what the result was worth to player 0."""

    number: int
    score: tuple[int, int]
    winner: int | None
    points: int
    resigned: bool
    crawford: bool
    result: float = 0.0
    """Player 0's gain: points in money play, match winning chance in a match."""
    turns: list[Turn] = field(default_factory=list)


def read_match(path: str | Path) -> MatchRecord:
    """The match in a ``.mat`` file; an unreadable file or an illegal move is a one-line
    ``ValueError`` naming the file, the game and the move number (and the file's line)."""
    path = Path(path)
    data = path.read_bytes()
    try:
        return load_mat(path)
    except ValueError as exc:
        message = " ".join(str(exc).split())
        raise ValueError(f"{path}: {_locate(data, message)}") from None


_LINE = re.compile(r"^line (\d+): (.*)$", re.S)


def _locate(data: bytes, message: str) -> str:
    """``line N: what`` as ``game G, move M (line N): what`` when line N lies inside a game."""
    found = _LINE.match(message)
    if found is None:
        return message
    number = int(found[1])
    text = data.decode("utf-8", errors="replace").removeprefix("\ufeff").splitlines()
    game = None
    for line in text[:number]:
        start = re.match(r"\s*Game\s+(\d+)\s*$", line, re.I)
        if start:
            game = int(start[1])
    move = re.match(r"\s*(\d+)\)", text[number - 1]) if 0 < number <= len(text) else None
    if game is None:
        return message
    where = f"game {game}" + (f", move {move[1]}" if move else "")
    return f"{where} (line {number}): {found[2]}"


def cube_rules_of(record: MatchRecord) -> CubeRules:
    """The cube rules a file says (a money session's comment, ``[CubeLimit "1"]``), else gnubg's."""
    comment = (record.comment or "").lower()
    in_use = record.cube_limit != 1 and "cubeless" not in comment
    jacoby = "jacoby rule off" not in comment and "set jacoby off" not in comment
    beavers = "beavers off" not in comment
    return CubeRules(jacoby=jacoby, beavers=beavers, max_cube=MAX_CUBE if in_use else 1)


def replay(record: MatchRecord, rules: CubeRules | None = None) -> list[GameInfo]:
    """Every game of ``record`` as :class:`GameInfo` with its turns, in file order."""
    rules = rules or cube_rules_of(record)
    games, crawford_seen = [], False
    for game in record.games:
        crawford = False
        length = record.match_length
        if length and record.crawford and length - 1 in game.score and max(game.score) < length:
            crawford = not crawford_seen and min(game.score) < length - 1
            crawford_seen = True
        info = GameInfo(game.number, game.score, game.winner, game.points, game.resigned, crawford)
        info.turns = _turns(game, record, rules, crawford)
        info.result = _result(info, record.match_length)
        games.append(info)
    return games


def _state(
    record: MatchRecord,
    game: GameRecord,
    player: int,
    cube: int,
    owner: int | None,
    rules: CubeRules,
    crawford: bool,
) -> CubeState:
    """The cube state of ``player`` (``owner``: the player who owns the cube, None = centred)."""
    relative = Owner.CENTRED if owner is None else (Owner.ME if owner == player else Owner.OPPONENT)
    if not record.match_length:
        return CubeState.money(cube, relative, jacoby=rules.jacoby and rules.in_use, beavers=rules.beavers)
    score = game.score
    return CubeState.match(
        record.match_length, score[player], score[1 - player], cube, relative, crawford=crawford
    )


def _line_numbers(actions) -> list[int]:
    """The ``N)`` line of each action, laid out as gnubg writes a ``.mat`` (left, then right cell)."""
    numbers, number, pending = [], 1, False
    for action in actions:
        numbers.append(number)
        if pending or action.player == 1:
            number, pending = number + 1, False
        else:
            pending = True
    return numbers


def _turns(game: GameRecord, record: MatchRecord, rules: CubeRules, crawford: bool) -> list[Turn]:
    start = starting_board(record.variant)
    board = start.copy()
    board_owner: int | None = None  # the player in row 1; None while the board is symmetric
    cube, owner = 1, None
    turns: list[Turn] = []
    current: Turn | None = None
    lines = _line_numbers(game.actions)

    def on_roll(player: int, line: int) -> Turn:
        nonlocal board, board_owner
        if board_owner is not None and board_owner != player:
            board = swap_sides(board)
        board_owner = player
        state = _state(record, game, player, cube, owner, rules, crawford)
        opening = bool(np.array_equal(board, start))
        turn = Turn(game.number, line, player, board.copy(), state, owner, state, owner, opening=opening)
        turn.cube_decision = rules.in_use and state.can_double and not opening
        turns.append(turn)
        return turn

    for k, action in enumerate(game.actions):
        if action.kind == "double":
            current = on_roll(action.player, lines[k])
            current.doubled = True
            offered = action.cube or 2 * cube
        elif action.kind in ("take", "beaver", "drop"):
            if current is None or not current.doubled:
                raise ValueError(f"game {game.number}: a {action.kind} with no double to answer")
            current.response = action.kind
            if action.kind == "take":
                cube, owner = offered, action.player
            elif action.kind == "beaver":  # taken and redoubled at once: the doubler owns it
                cube, owner = action.cube or 2 * offered, 1 - action.player
            else:
                current = None
                continue
            current.state = _state(record, game, current.player, cube, owner, rules, crawford)
            current.owner = owner
        else:  # a move
            if current is None or current.player != action.player or current.dice is not None:
                current = on_roll(action.player, lines[k])
            current.dice = (int(action.dice[0]), int(action.dice[1]))
            last = k == len(game.actions) - 1
            if not action.steps and last and game.resigned and _has_a_move(board, current.dice):
                current.dice = None  # gnubg writes the roll of one who resigned instead of moving
            else:
                current.steps = list(action.steps)
                current.after = apply_steps(board, action.steps)
                board = current.after
            current = None
    return turns


def _has_a_move(board: np.ndarray, dice: tuple[int, int]) -> bool:
    import torch

    from bgai.engine.movegen import expand

    children, _ = expand(torch.as_tensor(board)[None], torch.tensor([dice]))
    return len(children) > 1 or not np.array_equal(children[0].numpy(), board)


def _result(info: GameInfo, match_length: int) -> float:
    """What the game was worth to player 0: points (money) or the change in match winning chance."""
    if info.winner is None:
        return 0.0
    sign = 1.0 if info.winner == 0 else -1.0
    if not match_length:
        return sign * info.points
    from bgai.cube import kazaross_xg2

    met = kazaross_xg2()
    state = CubeState.match(match_length, info.score[0], info.score[1], crawford=info.crawford)
    before = met.mwc(state.my_away, state.opp_away, post_crawford=state.is_post_crawford)
    return met.outcome_mwc(state, int(sign * info.points)) - before
