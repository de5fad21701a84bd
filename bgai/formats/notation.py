"""Move notation as gnubg prints and reads it (docs/formats.md §4).

A move is a list of checker steps ``(from, to)``: 1-based points of the **mover** (the player
on roll, row 1 of the board), 25 = the bar, 0 = borne off. One step is one die.

Printing follows gnubg's ``FormatMove``: steps are sorted by decreasing source; a step that
starts where an earlier (higher) sub-move ends is taken to be the same checker moving on, and
merged into it (``24/18 18/16`` -> ``24/16``), keeping the point when it hit there
(``8/3*/1``). Checkers are interchangeable, so this "same checker" reading always describes
the position the steps reach, whatever order they were played in. ``*`` marks a hit, only
on the first checker that lands on the point; identical sub-moves collapse to ``(n)``.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

import numpy as np

from bgai.engine.steps import BAR_POINT, OFF_POINT, Step
from bgai.formats.quote import quote

MAX_STEPS = 4


def _has_blot(board: np.ndarray, point: int) -> bool:
    """True if the opponent has a checker on the mover's ``point`` (before the move)."""
    return 1 <= point <= 24 and board[0][24 - point] > 0


def _point_name(point: int) -> str:
    return {BAR_POINT: "bar", OFF_POINT: "off"}.get(point, str(point))


def _check_steps(steps: Sequence[Step]) -> list[Step]:
    checked = []
    for step in steps:
        source, dest = (int(p) for p in step)
        if not (0 < source <= BAR_POINT and 0 <= dest < source):
            raise ValueError(f"a step goes from a point 1-25 to a lower point 0-24, got {source}/{dest}")
        checked.append((source, dest))
    return checked


def _checker_paths(board: np.ndarray, steps: Sequence[Step]) -> list[list[int]]:
    """Sorted steps merged into one path per checker: ``[source, kept points..., dest]``."""
    ordered = sorted(_check_steps(steps), key=lambda s: (-s[0], -s[1]))
    paths: list[list[int] | None] = [list(s) for s in ordered]
    for i, path in enumerate(paths):
        if path is None:
            continue
        for j in range(i + 1, len(paths)):
            later = paths[j]
            if later is None or later[0] != path[-1]:
                continue
            if not _has_blot(board, path[-1]):
                path.pop()  # passing through: the point is not worth writing
            path.append(later[1])
            paths[j] = None
    return [p for p in paths if p is not None]


def format_move(board_before: np.ndarray, steps: Sequence[Step]) -> str:
    """gnubg's notation for ``steps`` played on ``board_before`` (mover in row 1), e.g. ``13/10 6/3*(2)``."""
    board = np.asarray(board_before)
    groups: list[tuple[list[int], int]] = []
    for path in _checker_paths(board, steps):
        for k, (seen, count) in enumerate(groups):
            if seen == path:
                groups[k] = (seen, count + 1)
                break
        else:
            groups.append((path, 1))
    hit: set[int] = set()
    words = []
    for path, count in groups:
        text = _point_name(path[0])
        for point in path[1:]:
            text += "/" + _point_name(point)
            if _has_blot(board, point) and point not in hit:
                hit.add(point)
                text += "*"
        words.append(text + (f"({count})" if count > 1 else ""))
    return " ".join(words)


def format_move_plain(board_before: np.ndarray, steps: Sequence[Step]) -> str:
    """The ``.mat`` style: every step in play order, numbers only (``25/24*``, ``6/0``)."""
    board = np.asarray(board_before)
    hit: set[int] = set()
    words = []
    for source, dest in _check_steps(steps):
        mark = ""
        if _has_blot(board, dest) and dest not in hit:
            hit.add(dest)
            mark = "*"
        words.append(f"{source}/{dest}{mark}")
    return " ".join(words)


_POINT = r"(?:bar|off|b|o|\d+)"
_SUBMOVE = re.compile(rf"(?P<chain>{_POINT}(?:/{_POINT})+)(?:\((?P<repeat>\d+)\))?")
_NAMED = {"bar": BAR_POINT, "b": BAR_POINT, "off": OFF_POINT, "o": OFF_POINT}


def _parse_point(word: str, text: str) -> int:
    point = _NAMED[word] if word in _NAMED else int(word)
    if point > BAR_POINT:
        raise ValueError(f"no point {point} in move {quote(text)}: points run 0 (off) to 25 (bar)")
    return point


def parse_move(text: str) -> list[Step]:
    """Steps of a move written in gnubg's syntax, sorted by source (then destination) descending.

    Accepts ``13/8 6/5*``, ``bar/22``, ``6/off(2)``, chains ``24/18/16`` (split into steps),
    ``b``/``o`` short forms, any case; ``*`` is ignored and ``,`` separates like a space.
    An empty string is the empty move (a dance).
    """
    steps: list[Step] = []
    for word in text.lower().replace("*", "").replace(",", " ").split():
        match = _SUBMOVE.fullmatch(word)
        if match is None:
            raise ValueError(
                f"cannot read {quote(word)} in move {quote(text)}: write from/to, as 13/8, bar/22, 6/off"
            )
        points = [_parse_point(p, text) for p in match["chain"].split("/")]
        repeat = int(match["repeat"] or 1)
        if not 1 <= repeat <= MAX_STEPS:
            raise ValueError(f"repeat count ({repeat}) in move {quote(text)} must be 1-{MAX_STEPS}")
        chain = list(zip(points, points[1:], strict=False))
        for source, dest in chain:
            if source == OFF_POINT or dest == BAR_POINT or dest >= source:
                raise ValueError(
                    f"step {_point_name(source)}/{_point_name(dest)} in move {quote(text)} does not move "
                    "towards home"
                )
        steps.extend(chain * repeat)
    if len(steps) > MAX_STEPS:
        raise ValueError(f"move {quote(text)} has {len(steps)} steps; a roll gives at most {MAX_STEPS}")
    return sorted(steps, key=lambda s: (-s[0], -s[1]))
