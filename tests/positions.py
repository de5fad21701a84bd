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


def moves_of(board: torch.Tensor, dice: tuple[int, int]) -> set[Key]:
    """Every distinct resulting position (x still on roll) of playing ``dice`` on ``board``."""
    children, _ = expand(torch.as_tensor(board)[None], torch.tensor([dice]))
    found = [key(child) for child in children]
    assert len(found) == len(set(found)), "the engine returned the same position twice"
    return set(found)


def shown(keys: set[Key]) -> list[str]:
    """Boards of a :func:`moves_of` set in :func:`pos` notation, sorted (for failure messages)."""
    return sorted(show(torch.tensor(k)) for k in keys)


# --- boards at random, boards from dictionaries, and a game gnubg played -------------------


def random_board(rng, empty_sides: bool = False):
    """A (2, 25) int8 numpy board drawn with ``rng`` (a numpy Generator): up to 15 checkers a
    side on random points and bars, never both sides on one point.

    A side left without checkers gets one on its bar (gnubg treats a side with no checkers as a
    finished game), unless ``empty_sides``.
    """
    board = torch.zeros((2, 25), dtype=torch.int8).numpy()
    for row in (1, 0):
        for _ in range(rng.integers(0, 16)):
            i = int(rng.integers(0, 25))
            if i == 24 or board[1 - row, 23 - i] == 0:
                board[row, i] += 1
        if board[row].sum() == 0 and not empty_sides:
            board[row, 24] = 1
    return board


def random_boards(
    seed: int, n: int, opponent_bar: bool = False, checkers: int = 15, home_lean: float = 0.0
) -> torch.Tensor:
    """``n`` legal-looking boards ``(n, 2, 25)``: 1-``checkers`` draws of a point per side
    (repeats stack), the player on roll's bar included, the opponent's bar only with
    ``opponent_bar``; never both sides on one point. ``home_lean`` > 0 makes each side's home
    board points that many times likelier again, so bear-offs come up often."""
    import numpy as np

    def lean(points: list[int], home: range) -> np.ndarray | None:
        if not home_lean:
            return None
        weight = np.array([1 + home_lean * (p in home) for p in points])
        return weight / weight.sum()

    rng = np.random.default_rng(seed)
    boards = np.zeros((n, 2, 25), dtype=np.int8)
    mover_points = list(range(25))
    for i in range(n):
        draws = int(rng.integers(1, checkers + 1))
        for p in rng.choice(25, size=draws, p=lean(mover_points, range(6))):
            boards[i, 1, p] += 1
        free = [p for p in range(24) if boards[i, 1, 23 - p] == 0] + ([24] if opponent_bar else [])
        draws = int(rng.integers(1, checkers + 1))
        for p in rng.choice(free, size=draws, p=lean(free, range(18, 24))):
            boards[i, 0, p] += 1
    return torch.as_tensor(boards)


def points_board(mover: dict[int, int], opponent: dict[int, int] | None = None):
    """A (2, 25) int8 numpy board from {point: checkers}, **both numbered from the mover's side**
    (25 = that side's bar); the mover is on roll (row 1)."""
    board = torch.zeros((2, 25), dtype=torch.int8).numpy()
    for point, n in mover.items():
        board[1, point - 1] = n
    for point, n in (opponent or {}).items():
        board[0, 24 if point == 25 else 24 - point] = n
    return board


GNUBG_GAME = [
    ("4HPwATDgc/ABMA", "51", "24/23 13/8", "4PPgASjgc/ABMA"),
    ("4PPgASjgc/ABMA", "33", "24/21(2) 13/10(2)", "4HPGAQbg8+ABKA"),
    ("4HPGAQbg8+ABKA", "62", "24/16", "4PPgERDgc8YBBg"),
    ("4PPgERDgc8YBBg", "66", "21/9*(2)", "4HMbBwDg8+ABSA"),
    ("4HMbBwDg8+ABSA", "63", "bar/22 13/7", "4OvBARTgcxsHAA"),
    ("4OvBARTgcxsHAA", "51", "10/5 6/5", "sOcWBwDg68EBFA"),
    ("sOcWBwDg68EBFA", "64", "13/7 8/4", "yLeDARSw5xYHAA"),
    ("yLeDARSw5xYHAA", "33", "13/10 8/5 6/3*(2)", "zM02BgDIt4MBSA"),
    ("zM02BgDIt4MBSA", "21", "bar/24 6/4", "mLeDASjMzTYGAA"),
    ("mLeDASjMzTYGAA", "44", "13/9(2) 8/4(2)", "bDfeAACYt4MBKA"),
    ("bDfeAACYt4MBKA", "21", "13/11 6/5", "WLcjAShsN94AAA"),
    ("WLcjAShsN94AAA", "61", "9/3 5/4", "3G3cAABYtyMBKA"),
    ("3G3cAABYtyMBKA", "53", "8/5 8/3", "tN0iASjcbdwAAA"),
]
"""One game as gnubg played and printed it (docs/formats.md §1): (Position ID before,
dice, the move in gnubg's notation, Position ID after with the opponent on roll). [verified]"""
