"""Positions written the way backgammon players write them, so rule tests read like the rules.

    pos("x 24:2 13:5 8:3 6:5; o 19:5 17:3 12:5 1:2")

``x`` is the player on roll and every point number is counted from x's side (x bears off from
points 1-6, o moves towards x's 24-point). ``bar:n`` puts n checkers on that side's bar; checkers
not written are borne off. The result is a (2, 25) int8 board in bgai's layout: row 1 is x,
row 0 is o, and o's checker on x's point p sits at ``board[0][24 - p]``.
"""

from __future__ import annotations

import torch

from bgai.engine.movegen import expand

Key = tuple[tuple[int, ...], tuple[int, ...]]


def pos(text: str) -> torch.Tensor:
    """The board written as ``"x point:count ...; o point:count ..."`` (points from x's side)."""
    board = torch.zeros((2, 25), dtype=torch.int8)
    for part in filter(None, (p.strip() for p in text.split(";"))):
        side, *spots = part.split()
        if side not in ("x", "o"):
            raise ValueError(f"a side is 'x' or 'o', got {side!r} in {text!r}")
        row = 1 if side == "x" else 0
        for spot in spots:
            where, _, count = spot.partition(":")
            n = int(count) if count else 1
            if where == "bar":
                index = 24
            elif 1 <= int(where) <= 24:
                point = int(where)
                index = point - 1 if side == "x" else 24 - point
            else:
                raise ValueError(f"points run 1-24 (or bar), got {spot!r} in {text!r}")
            board[row, index] += n
    return board


def play(board: torch.Tensor, move: str) -> torch.Tensor:
    """``board`` after x plays ``move`` in gnubg notation (``"bar/22 13/7*/5 6/off(2)"``).

    Each hop moves one x checker and hits an o blot where it lands; no legality is checked,
    so tests can write the expected result of a move without trusting the engine.
    """
    board = torch.as_tensor(board).clone()
    for word in move.split():
        word, _, times = word.partition("(")
        for _ in range(int(times.rstrip(")")) if times else 1):
            points = [_point(p.rstrip("*")) for p in word.split("/")]
            for start, end in zip(points, points[1:], strict=False):
                board[1, start - 1] -= 1
                if end == 0:
                    continue
                if board[0, 24 - end] == 1:
                    board[0, 24 - end] = 0
                    board[0, 24] += 1
                board[1, end - 1] += 1
    return board


def _point(word: str) -> int:
    named = {"bar": 25, "off": 0}
    return named[word] if word in named else int(word)


def show(board: torch.Tensor) -> str:
    """The inverse of :func:`pos`, for readable assertion messages."""
    b = torch.as_tensor(board).tolist()
    x = [f"{i + 1}:{n}" for i, n in reversed(list(enumerate(b[1][:24]))) if n]
    o = [f"{24 - i}:{n}" for i, n in enumerate(b[0][:24]) if n]
    x = ([f"bar:{b[1][24]}"] if b[1][24] else []) + x
    o = ([f"bar:{b[0][24]}"] if b[0][24] else []) + o
    return f"x {' '.join(x)}; o {' '.join(o)}"


def key(board: torch.Tensor) -> Key:
    """A hashable form of a (2, 25) board."""
    rows = torch.as_tensor(board).tolist()
    return tuple(rows[0]), tuple(rows[1])


def boards(*texts: str) -> set[Key]:
    """The set of boards written as :func:`pos` texts, to compare with :func:`moves_of`."""
    return {key(pos(text)) for text in texts}


def moves_of(board: torch.Tensor, dice: tuple[int, int]) -> set[Key]:
    """Every distinct resulting position (x still on roll) of playing ``dice`` on ``board``."""
    children, _ = expand(torch.as_tensor(board)[None], torch.tensor([dice]))
    found = [key(child) for child in children]
    assert len(found) == len(set(found)), "the engine returned the same position twice"
    return set(found)


def shown(keys: set[Key]) -> list[str]:
    """Boards of a :func:`moves_of` set in :func:`pos` notation, sorted (for failure messages)."""
    return sorted(show(torch.tensor(k)) for k in keys)
