"""GNU Backgammon, the oracle: the one module that calls the optional ``gnubg`` packages.

gnubg is GPL and optional (``pip install 'bgai[gnubg]'``): nothing imports it at import time,
and every call goes through here. bgai's board layout is gnubg's ``TanBoard`` (row 0 the
opponent, row 1 the player on roll), so boards pass unchanged.

* ``gnubg_nn`` (its neural nets): :func:`probabilities` (behind
  :class:`~bgai.search.GnubgEvaluator`), :func:`best_moves` with gnubg's move filters
  (:data:`FILTERS`; behind :class:`~bgai.bots.GnubgPlayer` and the grading judge),
  :func:`children_of`, the 10-byte position keys and :func:`compare_children` (the move
  generator's differential test);
* ``gnubg`` (the program as a Python module): :func:`command_output` runs a command and
  returns what it printed; :func:`cube_hint` / :func:`cube_analysis` are its cube hint (the
  cube module's oracle, ``tests/data/cube_golden.json``), :func:`match_id` its Match ID.

:func:`nn` and :func:`program` return the modules themselves for what the oracle tests ask
beyond these; a missing package is an ``ImportError`` naming the extra that installs it.
"""

from __future__ import annotations

import importlib
import os
import re
import sys
import tempfile
from dataclasses import dataclass

import numpy as np
import torch

from bgai.engine.board import swap_sides
from bgai.engine.movegen import expand
from bgai.formats import encode_position_id

EXTRA = "pip install 'bgai[gnubg]'"


def nn():
    """The ``gnubg_nn`` module (gnubg's nets), or an ``ImportError`` saying how to install it."""
    return _import("gnubg_nn", "gnubg-nn")


def program():
    """The ``gnubg`` module (the program's commands and IDs), or an ``ImportError`` saying how.

    On first use it is set to one thread: with its default (one per CPU) a command such as
    ``new session`` or ``hint`` now and then never returns."""
    global _PROGRAM
    if _PROGRAM is None:
        module = _import("gnubg", "gnubg")
        module.command("set threads 1")
        _PROGRAM = module
    return _PROGRAM


_PROGRAM = None


def available() -> bool:
    """Are the optional gnubg packages installed?"""
    try:
        nn()
    except ImportError:
        return False
    return True


def _import(module: str, package: str):
    try:
        return importlib.import_module(module)
    except ImportError:
        raise ImportError(f"this needs the optional {package} package: {EXTRA}", name=module) from None


# --- gnubg_nn: evaluations and moves ----------------------------------------------------------

FILTERS = {"normal": (1, 7, 0.16), "large": (1, 15, 0.32)}
"""gnubg_nn's ``set.ps(plies, always, extra, threshold)`` filter: keep the best ``always``
moves plus up to ``extra`` more within ``threshold``. (1, 7, 0.16) is gnubg's "normal"
filter (up to 8 moves within 0.16), (1, 15, 0.32) its "large" (up to 16 within 0.32)."""


def set_move_filter(plies: int, name: str = "normal") -> None:
    """Set gnubg_nn's search filter for ``plies`` (process-wide state in gnubg_nn)."""
    if name not in FILTERS:
        raise ValueError(f"unknown gnubg move filter {name!r}: choose one of {', '.join(FILTERS)}")
    if plies > 0:
        nn().set.ps(plies, *FILTERS[name])


def probabilities(boards, plies: int = 0) -> np.ndarray:
    """``(N, 5)`` float32 gnubg probabilities of unfinished boards ``(N, 2, 25)`` for the player
    on roll at ``plies``, one board at a time (gnubg_nn has no batched call)."""
    evaluate = nn().probabilities
    # numpy's tolist is ~10x faster than torch's, which cost half the time of a search
    rows = [evaluate(board, plies) for board in np.asarray(boards).tolist()]
    return np.asarray(rows, dtype=np.float32).reshape(-1, 5)


def best_moves(boards, dice, plies: int = 0, move_filter: str = "normal") -> np.ndarray:
    """gnubg's move (``gnubg_nn.best_move``) for each board ``(N, 2, 25)`` and roll ``(N, 2)``:
    the afterstates ``(N, 2, 25)`` int8, mover still in row 1 (a dance: the board itself)."""
    g = nn()
    set_move_filter(plies, move_filter)
    chosen = []
    for board, (d1, d2) in zip(np.asarray(boards).tolist(), np.asarray(dice).tolist(), strict=True):
        _, key = g.best_move(board, d1, d2, n=plies, b=1)
        chosen.append(g.board_from_position_key(key))  # the opponent on roll
    return swap_sides(np.asarray(chosen, dtype=np.int8).reshape(-1, 2, 25))


# --- gnubg_nn: the move generator's oracle ----------------------------------------------------


def position_keys(boards) -> np.ndarray:
    """gnubg's 10-byte position keys of ``(M, 2, 25)`` boards, as an ``(M, 10)`` uint8 array.

    The key's bits: for row 0 then row 1, for each of the 25 slots, one 1 per checker and a
    closing 0; padded with 0s to 80 bits and packed least significant bit first (the Position
    ID's bits, docs/formats.md §1).
    """
    counts = np.asarray(boards, dtype=np.int64).reshape(len(boards), 50)
    zeros_at = np.cumsum(counts + 1, axis=1) - 1  # position of each slot's closing 0
    bits = np.arange(80)[None, :] < zeros_at[:, -1:]
    np.put_along_axis(bits, zeros_at, False, axis=1)
    return np.packbits(bits, axis=1, bitorder="little")


def decode_keys(keys: list[str]) -> np.ndarray:
    """gnubg's 20-letter keys (``'A'`` + nibble, high nibble first) as an ``(K, 10)`` uint8 array."""
    if not keys:
        return np.zeros((0, 10), dtype=np.uint8)
    nibbles = np.frombuffer("".join(keys).encode("ascii"), dtype=np.uint8).reshape(-1, 20) - ord("A")
    if nibbles.max() > 15:
        raise ValueError("a gnubg key has a letter beyond P")
    return (nibbles[:, 0::2] << 4 | nibbles[:, 1::2]).astype(np.uint8)


def children_of(boards, dice) -> tuple[np.ndarray, np.ndarray, int]:
    """gnubg's resulting positions (``gnubg_nn.moves``) of each (board, roll): their keys
    ``(K, 10)``, parent index ``(K,)``, and how many pairs dance; a dance gives the position
    itself (bgai's convention)."""
    g = nn()
    keys: list[str] = []
    counts = []
    dances = 0
    for board, (d1, d2) in zip(np.asarray(boards).tolist(), np.asarray(dice).tolist(), strict=True):
        found = g.moves(board, d1, d2)
        if not found:
            dances += 1
            found = (g.key_of_board(board),)
        keys.extend(found)
        counts.append(len(found))
    return decode_keys(keys), np.repeat(np.arange(len(counts)), counts), dances


ENGINE_STREAMS = [(kind, kind, "standard") for kind in ("random", "greedy", "race", "bearoff")] + [
    ("nackgammon", "random", "nackgammon"),
    ("hypergammon", "random", "hypergammon"),
]
"""(label, :func:`bgai.engine.sampling.sample_positions` kind, variant) of every stream of
(position, roll) pairs the move generator is compared on; pairs are split evenly among them."""


def key_rows(keys: np.ndarray, parent: np.ndarray) -> np.ndarray:
    """(parent, key) as (K, 3) uint64 rows [parent, bytes 0-7, bytes 8-9], sorted."""
    rows = np.stack(
        [
            parent.astype(np.uint64),
            np.ascontiguousarray(keys[:, :8]).view(">u8").ravel().astype(np.uint64),
            np.ascontiguousarray(keys[:, 8:]).view(">u2").ravel().astype(np.uint64),
        ],
        axis=1,
    )
    return rows[np.lexsort(rows.T[::-1])]


@dataclass
class Mismatch:
    """One (position, roll) pair whose resulting positions differ."""

    position_id: str
    dice: tuple[int, int]
    only_bgai: list[str]  # Position IDs (mover still on roll) only bgai produced
    only_gnubg: list[str]
    repeated: int = 0  # children bgai returned more than once

    def __str__(self) -> str:
        return (f"{self.position_id} {self.dice[0]}{self.dice[1]}: bgai-only {self.only_bgai}, "
                f"gnubg-only {self.only_gnubg}, bgai repeats {self.repeated}")  # fmt: skip


@dataclass
class Comparison:
    """The outcome of one batch: how many children and dances, and every differing pair."""

    children: int
    dances: int
    mismatches: list[Mismatch]


def compare_children(boards: torch.Tensor, dice: torch.Tensor) -> Comparison:
    """Compare bgai's (:func:`bgai.engine.movegen.expand`) and gnubg's resulting positions for
    ``(N, 2, 25)`` boards and ``(N, 2)`` dice: the differential test of the move generator."""
    children, parent = expand(boards, dice)
    ours = key_rows(position_keys(children), parent.numpy())
    keys, gnubg_parent, dances = children_of(boards, dice)
    theirs = key_rows(keys, gnubg_parent)
    if ours.shape == theirs.shape and np.array_equal(ours, theirs):
        return Comparison(len(children), dances, [])
    return Comparison(len(children), dances, mismatches(boards, dice, ours, theirs))


def mismatches(boards, dice, ours: np.ndarray, theirs: np.ndarray) -> list[Mismatch]:
    """The slow path, taken only when something differs: per-pair set differences, and
    children bgai returned twice."""

    def by_parent(rows):
        sets: dict[int, set[tuple[int, int]]] = {}
        for parent, hi, lo in rows.tolist():
            sets.setdefault(parent, set()).add((hi, lo))
        return sets

    def ids(keys: set[tuple[int, int]]) -> list[str]:
        found = []
        for hi, lo in sorted(keys):
            key = hi.to_bytes(8, "big") + lo.to_bytes(2, "big")
            board = nn().board_from_position_key(_letters(key))
            found.append(encode_position_id(np.array(board, dtype=np.int8)))
        return found

    a, b = by_parent(ours), by_parent(theirs)
    rows_of = np.bincount(ours[:, 0].astype(np.int64), minlength=len(boards))
    out = []
    for p in sorted(set(a) | set(b)):
        repeated = int(rows_of[p]) - len(a.get(p, ()))
        if a.get(p, set()) != b.get(p, set()) or repeated:
            out.append(
                Mismatch(
                    encode_position_id(boards[p].numpy()),
                    tuple(dice[p].tolist()),
                    ids(a.get(p, set()) - b.get(p, set())),
                    ids(b.get(p, set()) - a.get(p, set())),
                    repeated,
                )
            )
    return out


def _letters(key: bytes) -> str:
    return "".join(chr(ord("A") + (byte >> 4)) + chr(ord("A") + (byte & 15)) for byte in key)


# --- gnubg: commands and the cube oracle ------------------------------------------------------

CLASSES = {
    0: "over",
    1: "hypergammon",
    2: "hypergammon",
    3: "hypergammon",
    4: "bearoff_ts",
    5: "bearoff_ts",
    6: "bearoff_os",
    7: "bearoff_os",
    8: "race",
    9: "crashed",
    10: "contact",
}
"""gnubg's ``positionclass`` (``gnubg.classify``) as :func:`bgai.cube.efficiency.cube_efficiency` names it."""
OWNERS = {"centred": -1, "me": 0, "opponent": 1}
"""gnubg's cube owner for a cube owner seen from the player on roll (player 0)."""


def command_output(command: str) -> str:
    """Run a gnubg command and return what its C code printed (stdout and stderr)."""
    import ctypes

    g = program()
    libc = ctypes.CDLL(None)
    sys.stdout.flush()
    sys.stderr.flush()
    libc.fflush(None)
    with tempfile.TemporaryFile() as capture:
        saved = [os.dup(1), os.dup(2)]
        os.dup2(capture.fileno(), 1)
        os.dup2(capture.fileno(), 2)
        try:
            g.command(command)
            libc.fflush(None)
        finally:
            os.dup2(saved[0], 1)
            os.dup2(saved[1], 2)
            for fd in saved:
                os.close(fd)
        capture.seek(0)
        return capture.read().decode(errors="replace")


_ROW = re.compile(r"^\s*\d\.\s+(.+?)\s{2,}([+-]\d+\.\d+)")
_ACTION = re.compile(r"Proper cube action:\s*(.+?)(?:\s+\(\d+(?:\.\d+)?%\))?\s*$", re.M)
_STATIC = re.compile(r"^static:\s+(.*)$", re.M)


def match_id(
    match_length: int = 0,
    score: tuple[int, int] = (0, 0),
    cube: int = 1,
    owner: int = -1,
    on_roll: int = 0,
    crawford: bool = False,
    jacoby: bool = True,
) -> str:
    """gnubg's own Match ID for a cube state in its numbering (``owner`` -1 centred, else a player;
    ``score`` by player number), before the roll."""
    g = program()
    info = g.cubeinfo(cube, owner, on_roll, match_length, score, int(crawford))
    info["jacoby"] = int(jacoby)
    return g.matchid(info, g.posinfo(on_roll, 0, 0, 1, (0, 0)))


def cube_hint(gnubg_id: str, beavers: bool = True) -> list:
    """gnubg's cube ``hint`` of a GNUbgID (``PositionID:MatchID``) at the evaluation plies set
    before: ``[ND, DT, DP, decision]``, normalised equities of the player on roll.

    Where gnubg refuses ("You cannot double.") only ND is known: ``[ND, None, None, None]``.
    """
    command_output(f"set beavers {3 if beavers else 0}")
    command_output(f"set gnubgid {gnubg_id}")
    text = command_output("hint")
    if "You cannot double" in text:
        fields = _STATIC.search(command_output("eval")).group(1).split()
        return [float(fields[-1]), None, None, None]
    equities = {}
    for line in text.splitlines():
        row = _ROW.match(line)
        if row:
            name, value = row.group(1), float(row.group(2))
            key = "nd" if name.startswith("No ") else "dp" if name.endswith("pass") else "dt"
            equities[key] = value
    return [equities["nd"], equities["dt"], equities["dp"], _ACTION.search(text).group(1)]


def cube_analysis(
    position_id: str,
    match_length: int = 0,
    my_score: int = 0,
    opp_score: int = 0,
    cube: int = 1,
    owner: str = "centred",
    crawford: bool = False,
    jacoby: bool = True,
    beavers: bool = True,
) -> list:
    """:func:`cube_hint` of a position with the player on roll first (``owner`` as in
    :data:`OWNERS`, scores of the player on roll and the opponent)."""
    mid = match_id(match_length, (my_score, opp_score), cube, OWNERS[owner], 0, crawford, jacoby)
    return cube_hint(f"{position_id}:{mid}", beavers)
