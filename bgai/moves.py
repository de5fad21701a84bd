"""Moves for people: legal moves, playing a move, pip counts, all from IDs and gnubg notation.

A thin layer over the batched engine (:mod:`bgai.engine.movegen`) and the formats
(:mod:`bgai.formats`). A position is anything :func:`bgai.formats.read_position` reads: a
14-character gnubg Position ID, a GNUbgID ``PositionID:MatchID`` or an XGID.

Whose view: the input is seen from the player **on roll**; every resulting position ID is
written with the **opponent on roll** (rows swapped), ready for the next turn, so
``apply_move(before, dice, move)`` is exactly gnubg's Position ID after the move is played.

A dance (no legal move) is "no moves": :func:`legal_moves` returns ``[]`` (as gnubg does),
and :func:`apply_move` accepts only the empty move ``""``, which passes the turn.

Dice may be written ``"31"``, ``"3-1"``, ``"3 1"``, ``(3, 1)`` or ``[3, 1]``, in either order.
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Iterator, Sequence
from dataclasses import dataclass

import numpy as np
import torch

from bgai.engine.board import pip_counts, require_game_on, swap_sides
from bgai.engine.movegen import afterstates
from bgai.engine.steps import BAR_POINT, OFF_POINT, Step, apply_steps, path_steps
from bgai.formats import encode_position_id, format_move, parse_move, read_position

__all__ = [
    "HintMove",
    "StepNode",
    "apply_move",
    "hint_moves",
    "legal_moves",
    "legal_moves_batch",
    "notation_of",
    "parse_dice",
    "pip_count",
    "position_and_roll",
    "step_tree",
]

Move = tuple[str, str]
"""(the move in gnubg notation, the Position ID after it with the opponent on roll)."""

_DICE_TEXT = re.compile(r"\s*([1-6])\s*[-, ]?\s*([1-6])\s*")


# --- reading what people type ---------------------------------------------------------------


def parse_dice(dice: str | Sequence[int]) -> tuple[int, int]:
    """The roll as (higher die, lower die), from ``"31"``, ``"3-1"``, ``(3, 1)`` or ``[1, 3]``."""
    if isinstance(dice, str):
        match = _DICE_TEXT.fullmatch(dice)
        values = [int(match[1]), int(match[2])] if match else None
    else:
        try:
            values = [int(d) for d in dice] if len(dice) == 2 else None
        except (TypeError, ValueError):
            values = None
    if values is None or not all(1 <= d <= 6 for d in values):
        raise ValueError(f"dice must be two numbers 1-6, as 31, 3-1 or (3, 1); got {dice!r}")
    return max(values), min(values)


def _roll_name(dice: tuple[int, int]) -> str:
    return f"{dice[0]}-{dice[1]}"


def _text(position_id: object) -> str:
    if not isinstance(position_id, str):
        raise ValueError(f"a position is a string (Position ID, GNUbgID or XGID), got {position_id!r}")
    return position_id


def position_and_roll(
    position_id: str, dice: str | Sequence[int] | None
) -> tuple[np.ndarray, tuple[int, int]]:
    """The board (row 1 on roll) and the roll (higher die first) a move is asked for.

    ``dice=None`` takes the roll from a GNUbgID or XGID that carries one. Raises
    ``ValueError`` for a malformed or finished position and for impossible dice.
    """
    board, match_state = read_position(_text(position_id))
    require_game_on(board, f" in {position_id.strip()!r}")
    if dice is None:
        if match_state is None or match_state.dice is None:
            raise ValueError(f"{position_id.strip()!r} carries no dice: give the roll, as 31")
        dice = match_state.dice
    return board, parse_dice(dice)


# --- from the engine's paths to notation ----------------------------------------------------


def notation_of(board: np.ndarray, sources: Sequence[int], dice: Sequence[int]) -> str:
    """gnubg's notation of the path ``sources``/``dice`` (as in :class:`Afterstates`) on ``board``."""
    return format_move(np.asarray(board), path_steps(sources, dice))


def _sort_key(move: Move) -> list[Step]:
    return parse_move(move[0])


def legal_moves_batch(boards, dice) -> list[list[Move]]:
    """:func:`legal_moves` for many boards in one engine call.

    ``boards``: (N, 2, 25) with the player on roll in row 1 (not validated: pass real
    positions); ``dice``: (N, 2), each die 1-6. Each list is in the order of :func:`legal_moves`.
    """
    boards = torch.as_tensor(np.asarray(boards), dtype=torch.int8)
    result = afterstates(boards, torch.as_tensor(np.asarray(dice)), with_paths=True)
    before = boards.numpy()
    children = swap_sides(result.boards).numpy()
    parents, sources, steps_dice = result.parent.tolist(), result.sources.tolist(), result.dice.tolist()
    moves: list[list[Move]] = [[] for _ in range(len(before))]
    for child, parent, path, path_dice in zip(children, parents, sources, steps_dice, strict=True):
        if path[0] < 0:  # the single "child" of a dance is the position itself
            continue
        moves[parent].append((notation_of(before[parent], path, path_dice), encode_position_id(child)))
    return [sorted(found, key=_sort_key, reverse=True) for found in moves]


# --- the API --------------------------------------------------------------------------------


def legal_moves(position_id: str, dice: str | Sequence[int] | None) -> list[Move]:
    """Every distinct legal move of the player on roll: ``[(move, position ID after), ...]``.

    One entry per distinct resulting position (gnubg counts moves the same way), written in
    gnubg notation by one way of playing it, e.g. ``("24/18 13/11", "4PPgASjgc/ABMA")``; the
    position IDs have the opponent on roll. Empty when no move is legal (a dance).

    Order: by the checkers moved, back checkers first, reading each move's steps as numbers
    from the highest source down (``24/23 24/21`` ... ``8/5 6/5`` ... ``6/5 6/4``).
    ``dice=None`` takes the roll from a GNUbgID or XGID that carries one.
    """
    board, roll = position_and_roll(position_id, dice)
    return legal_moves_batch(board[None], [roll])[0]


def pip_count(position_id: str) -> tuple[int, int]:
    """Pips (player on roll, opponent) still to travel."""
    board, _ = read_position(_text(position_id))
    opponent, on_roll = pip_counts(board).tolist()
    return on_roll, opponent


def apply_move(position_id: str, dice: str | Sequence[int] | None, move: str) -> str:
    """The Position ID (opponent on roll) after playing ``move``, written in gnubg notation.

    The move may be written any way that names a legal resulting position: gnubg's own
    ``24/16``, the chain ``24/18/16``, the plain steps ``24/18 18/16`` or ``24/22 22/16``,
    ``25/22 6/0``. ``*`` is ignored: a move that can pass a blot either hitting it or not
    means the way that does not hit, unless the hit point is written as a step
    (``24/18*/16`` or ``24/18 18/16``), as gnubg prints it; when a checker must hit on the way,
    ``24/16`` means that. Raises ``ValueError`` saying why an illegal move is illegal
    (wrong dice, a held point, the bar first, both dice, the higher die, bearing off).
    """
    board, roll = position_and_roll(position_id, dice)
    legal = {pid for _, pid in legal_moves_batch(board[None], [roll])[0]}
    steps = parse_move(move)
    if not legal and not steps:
        return encode_position_id(swap_sides(board))
    if steps:
        direct = _play_directly(board, steps)
        if direct is not None and direct in legal:
            return direct
        results = set(_plays(board, steps, roll)) & legal
        if len(results) == 1:
            return results.pop()
        if len(results) > 1:
            raise ValueError(
                f"ambiguous move {move.strip()} for {_roll_name(roll)}: it can hit on the way in more "
                "than one way; write the point it hits on, as 24/18*/16"
            )
    raise ValueError(
        f"illegal move {move.strip() or '(none)'} for {_roll_name(roll)}: "
        f"{_why_illegal(board, steps, roll, len(legal))}"
    )


@dataclass(frozen=True)
class HintMove:
    """One legal move as gnubg's hint lists it; equity and probabilities are the mover's, at ``ply``."""

    move: str
    position_id: str
    """The position after the move, opponent on roll."""
    ply: int
    equity: float
    probs: tuple[float, float, float, float, float]


def hint_moves(
    evaluator, board: np.ndarray, dice: Sequence[int], plies: int = 0, move_filter=None
) -> list[HintMove]:
    """Every legal move of ``board`` (player on roll in row 1) for ``dice``, best first, written
    in gnubg notation: :func:`bgai.search.ply.rank_moves` with names (``bgai hint``, hints in
    play). ``[]`` when no move is legal (a dance)."""
    from bgai.search.ply import DEFAULT_FILTER, rank_moves

    roll = parse_dice(dice)
    notation = {pid: move for move, pid in legal_moves_batch(np.asarray(board)[None], [roll])[0]}
    if not notation:
        return []
    ranked = rank_moves(evaluator, board, roll, plies, DEFAULT_FILTER if move_filter is None else move_filter)
    moves = []
    for m in ranked:
        pid = encode_position_id(swap_sides(m.board))
        moves.append(HintMove(notation.get(pid, ""), pid, m.ply, m.equity, m.probs))
    return moves


@dataclass(frozen=True)
class StepNode:
    """A position on the way through a move, one die at a time (mover in row 1 of ``board``).

    ``move``: the legal move whose result this is, in gnubg notation (``None`` when the move is
    not complete here). ``steps``: ``(from, to, die, hit, node)`` for each single-die step
    allowed from here: points of the mover (25 the bar, 0 off), the die played, whether it
    hits a blot, and the index of the node it leads to.
    """

    board: np.ndarray
    move: str | None
    steps: tuple[tuple[int, int, int, bool, int], ...]


def step_tree(board: np.ndarray, dice: Sequence[int]) -> list[StepNode]:
    """Every order in which a legal move can be played one checker step at a time.

    For a board game front end that lets a person move checker by checker and offers only
    legal steps: node 0 is ``board`` before the move; a step is offered only when it obeys the
    one-die rules (the bar first, bearing off only from home, a higher die only from the
    highest point) and leads to the result of a legal move (both dice when they can be played,
    the higher die when only one can). A dance is the root alone, with ``move == ""``.
    """
    board = np.asarray(board, dtype=np.int8)
    roll = parse_dice(dice)
    legal = {pid: move for move, pid in legal_moves_batch(board[None], [roll])[0]}
    if not legal:
        return [StepNode(board.copy(), "", ())]
    found: dict[tuple[bytes, tuple[int, ...]], tuple[np.ndarray, str | None, list] | None] = {}

    def visit(now: np.ndarray, pool: tuple[int, ...]) -> tuple[bytes, tuple[int, ...]] | None:
        key = (now.tobytes(), pool)
        if key not in found:
            steps = []
            for die in sorted(set(pool), reverse=True):
                rest = list(pool)
                rest.remove(die)
                for source in range(BAR_POINT, 0, -1):
                    if now[1, source - 1] == 0 or _step_problem(now, source, die) is not None:
                        continue
                    dest = max(source - die, OFF_POINT)
                    child = visit(apply_steps(now, [(source, dest)]), tuple(rest))
                    if child is not None:
                        steps.append((source, dest, die, bool(dest and now[0, 24 - dest] == 1), child))
            move = legal.get(_position_after(now))
            found[key] = None if move is None and not steps else (now, move, steps)
        return key if found[key] is not None else None

    root = visit(board, _pool(roll))
    order = {root: 0}
    queue = [root]
    for key in queue:  # breadth first from the root: the root is node 0
        for *_, child in found[key][2]:
            if child not in order:
                order[child] = len(queue)
                queue.append(child)
    return [
        StepNode(found[key][0], found[key][1], tuple((*step[:4], order[step[4]]) for step in found[key][2]))
        for key in queue
    ]


# --- playing steps by hand, to match a written move and to explain a refusal ----------------


def _position_after(board: np.ndarray) -> str | None:
    """Position ID with the sides swapped, or None if ``board`` is not a position."""
    try:
        return encode_position_id(swap_sides(board))
    except ValueError:
        return None


def _play_directly(board: np.ndarray, steps: list[Step]) -> str | None:
    """The written steps played as they stand (no hits on the way), or None if impossible."""
    try:
        return _position_after(apply_steps(board, steps))
    except ValueError:
        return None


def _step_problem(board: np.ndarray, source: int, die: int) -> str | None:
    """Why one checker may not move ``die`` pips from ``source`` now, or None if it may."""
    mover, opponent = board[1], board[0]
    on_bar = int(mover[24])
    if on_bar and source != BAR_POINT:
        return f"you must enter from the bar first ({on_bar} checker{'s' if on_bar > 1 else ''} there)"
    if mover[source - 1] == 0:
        return "you have no checker on the bar" if source == BAR_POINT else f"you have no checker on {source}"
    dest = source - die
    if dest >= 1:
        if opponent[24 - dest] >= 2:
            verb = "enter on" if source == BAR_POINT else "land on"
            return f"cannot {verb} {dest}: the opponent holds it"
        return None
    if mover[6:].sum():
        return "cannot bear off while checkers are outside the home board"
    if dest < 0 and mover[source:6].sum():
        return f"cannot bear off from {source} with a {die} while a checker stands on a higher point"
    return None


def _die_sequences(source: int, dest: int, pool: tuple[int, ...]) -> Iterator[tuple[tuple[int, ...], tuple]]:
    """Ways to cover ``source`` -> ``dest`` with dice from ``pool``: (dice in order, rest of pool)."""
    distance = source - dest
    seen = set()
    for size in range(1, len(pool) + 1):
        for picked in itertools.permutations(range(len(pool)), size):
            seq = tuple(pool[i] for i in picked)
            total = sum(seq)
            fits = total == distance or (dest == OFF_POINT and total > distance > total - seq[-1])
            if fits and seq not in seen:
                seen.add(seq)
                rest = list(pool)
                for i in sorted(picked, reverse=True):
                    del rest[i]
                yield seq, tuple(rest)


def _interpretations(steps: list[Step], pool: tuple[int, ...]) -> Iterator[list[tuple[int, int]]]:
    """Every way to play the written steps one die at a time: lists of (source, die)."""
    if not steps:
        yield []
        return
    (source, dest), later = steps[0], steps[1:]
    for seq, rest in _die_sequences(source, dest, pool):
        points = itertools.accumulate(seq[:-1], lambda at, die: at - die, initial=source)
        singles = list(zip(points, seq, strict=True))
        for tail in _interpretations(later, rest):
            yield singles + tail


def _play_singles(board: np.ndarray, singles: list[tuple[int, int]]) -> tuple[np.ndarray | None, str, int]:
    """Play (source, die) steps by the one-die rules: (board or None, problem, steps played)."""
    after = board
    for k, (source, die) in enumerate(singles):
        problem = _step_problem(after, source, die)
        if problem is not None:
            return None, problem, k
        after = apply_steps(after, [(source, max(source - die, OFF_POINT))])
    return after, "", len(singles)


def _pool(roll: tuple[int, int]) -> tuple[int, ...]:
    return (roll[0],) * 4 if roll[0] == roll[1] else roll


def _plays(board: np.ndarray, steps: list[Step], roll: tuple[int, int]) -> Iterator[str]:
    """The position after each way of playing the written steps one die at a time by the rules."""
    for singles in _interpretations(steps, _pool(roll)):
        after, _, _ = _play_singles(board, singles)
        if after is not None:
            pid = _position_after(after)
            if pid is not None:
                yield pid


def _most_dice(board: np.ndarray, roll: tuple[int, int]) -> int:
    """How many dice a legal move plays here (0 for a dance)."""
    result = afterstates(
        torch.as_tensor(board[None], dtype=torch.int8), torch.tensor([roll]), with_paths=True
    )
    return int((result.sources[0] >= 0).sum())


def _distance(source: int, dest: int) -> str:
    """``24/14 moves 10``, ``bar/20 moves 5``, ``6/off needs 6 or more``."""
    name = "bar" if source == BAR_POINT else str(source)
    if dest == OFF_POINT:
        return f"{name}/off needs {source} or more"
    return f"{name}/{dest} moves {source - dest}"


def _must_play(roll: tuple[int, int], most: int, count: str) -> str:
    if roll[0] != roll[1]:
        return f"both dice must be used when they can be ({count})"
    amount = "all four" if most == 4 else f"{most} of the four"
    return f"{amount} {roll[0]}s must be played when they can be ({count})"


def _why_illegal(board: np.ndarray, steps: list[Step], roll: tuple[int, int], n_legal: int) -> str:
    """The best explanation we can give of why ``steps`` is not a legal move."""
    count = f"{n_legal} legal move{'s' if n_legal != 1 else ''}"
    if n_legal == 0:
        return f"no move is legal with {_roll_name(roll)} (the player dances: play the empty move)"
    if not steps:
        return f"a move must be played when one is legal ({count})"
    interpretations = list(_interpretations(steps, _pool(roll)))
    if not interpretations:
        pips = " and ".join(_distance(source, dest) for source, dest in steps)
        return f"the steps do not fit the roll {_roll_name(roll)} ({pips}; not among the {count})"
    most = _most_dice(board, roll)
    best_problem, best_depth = "", -1
    for singles in interpretations:
        after, problem, depth = _play_singles(board, singles)
        if after is not None:  # each die is fine alone: the move leaves a die unplayed
            if roll[0] != roll[1] and most == 1 and singles[0][1] == roll[1]:
                return f"the higher die ({roll[0]}) must be played when only one die can be ({count})"
            if len(singles) < most:
                return _must_play(roll, most, count)
            return f"not among the {count}"  # pragma: no cover - the rules above are complete
        if depth > best_depth:
            best_problem, best_depth = problem, depth
    return f"{best_problem} (not among the {count})"
