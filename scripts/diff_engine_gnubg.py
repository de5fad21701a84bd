"""Differential run of bgai's move generator against GNU Backgammon's (``gnubg_nn.moves``).

For many (position, roll) pairs from every sampling kind and variant, the set of distinct
resulting positions must be identical. Positions are compared as gnubg position keys: gnubg
returns each as 20 letters A-P, the 10-byte key (the Position ID's bits, see
docs/formats.md §1) written in hex with A = 0 ... P = 15, high nibble first; bgai's children
are encoded to the same 10 bytes with a vectorised encoder, so no board is decoded one by one.
A dance is an empty tuple in gnubg and the position itself in bgai.

    python scripts/diff_engine_gnubg.py --pairs 200000 --seed 1

Prints per-kind counts and mismatches, and exits with status 1 if any pair differs. The CI
sample of the same comparison is tests/test_engine_gnubg.py, which imports the helpers here.
"""

from __future__ import annotations

import argparse
import sys
import time
from dataclasses import dataclass

import gnubg_nn
import numpy as np
import torch

from bgai.engine.movegen import expand
from bgai.engine.sampling import KINDS, sample_positions
from bgai.formats import encode_position_id

# (label, sampling kind, variant) of every stream of pairs; pairs are split evenly among them.
STREAMS = [(kind, kind, "standard") for kind in KINDS] + [
    ("nackgammon", "random", "nackgammon"),
    ("hypergammon", "random", "hypergammon"),
]


def position_keys(boards: torch.Tensor | np.ndarray) -> np.ndarray:
    """gnubg's 10-byte position keys of (M, 2, 25) boards, as an (M, 10) uint8 array.

    The key's bits: for row 0 then row 1, for each of the 25 slots, one 1 per checker and a
    closing 0; padded with 0s to 80 bits and packed least significant bit first.
    """
    counts = np.asarray(boards, dtype=np.int64).reshape(len(boards), 50)
    zeros_at = np.cumsum(counts + 1, axis=1) - 1  # position of each slot's closing 0
    bits = np.arange(80)[None, :] < zeros_at[:, -1:]
    np.put_along_axis(bits, zeros_at, False, axis=1)
    return np.packbits(bits, axis=1, bitorder="little")


def decode_gnubg_keys(keys: list[str]) -> np.ndarray:
    """gnubg's 20-letter keys (``'A'`` + nibble, high nibble first) as an (K, 10) uint8 array."""
    if not keys:
        return np.zeros((0, 10), dtype=np.uint8)
    nibbles = np.frombuffer("".join(keys).encode("ascii"), dtype=np.uint8).reshape(-1, 20) - ord("A")
    if nibbles.max() > 15:
        raise ValueError("a gnubg key has a letter beyond P")
    return (nibbles[:, 0::2] << 4 | nibbles[:, 1::2]).astype(np.uint8)


def gnubg_children(boards: torch.Tensor, dice: torch.Tensor) -> tuple[np.ndarray, np.ndarray, int]:
    """Keys (K, 10) and parent index (K,) of gnubg's resulting positions, and how many pairs
    dance; a dance gives the position itself (bgai's convention)."""
    keys: list[str] = []
    counts = []
    dances = 0
    for board, (d1, d2) in zip(boards.tolist(), dice.tolist(), strict=True):
        found = gnubg_nn.moves(board, d1, d2)
        if not found:
            dances += 1
            found = (gnubg_nn.key_of_board(board),)
        keys.extend(found)
        counts.append(len(found))
    return decode_gnubg_keys(keys), np.repeat(np.arange(len(counts)), counts), dances


def _rows(keys: np.ndarray, parent: np.ndarray) -> np.ndarray:
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


def compare(boards: torch.Tensor, dice: torch.Tensor) -> Comparison:
    """Compare bgai's and gnubg's resulting positions for (N, 2, 25) boards and (N, 2) dice."""
    children, parent = expand(boards, dice)
    ours = _rows(position_keys(children), parent.numpy())
    keys, gnubg_parent, dances = gnubg_children(boards, dice)
    theirs = _rows(keys, gnubg_parent)
    if ours.shape == theirs.shape and np.array_equal(ours, theirs):
        return Comparison(len(children), dances, [])
    return Comparison(len(children), dances, _mismatches(boards, dice, ours, theirs))


def _mismatches(boards, dice, ours: np.ndarray, theirs: np.ndarray) -> list[Mismatch]:
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
            board = gnubg_nn.board_from_position_key(_letters(key))
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


def sample_streams(pairs: int, seed: int) -> list[tuple[str, torch.Tensor, torch.Tensor]]:
    """(label, boards, dice) for each stream of :data:`STREAMS`, ``pairs`` in all."""
    per = -(-pairs // len(STREAMS))
    out = []
    for i, (label, kind, variant) in enumerate(STREAMS):
        boards, dice = sample_positions(per, kind, seed=seed * 1000 + i, variant=variant, games=1000)
        out.append((label, boards, dice))
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--pairs", type=int, default=200_000, help="(position, roll) pairs in all")
    parser.add_argument("--seed", type=int, default=1, help="seed of the sampled games")
    parser.add_argument("--chunk", type=int, default=20_000, help="pairs per engine call")
    parser.add_argument("--show", type=int, default=5, help="mismatches to print")
    args = parser.parse_args(argv)

    start = time.perf_counter()
    total_pairs = total_children = 0
    found: list[Mismatch] = []
    print(f"{'kind':<12} {'pairs':>9} {'children':>10} {'dances':>7} {'mismatches':>10}")
    for label, boards, dice in sample_streams(args.pairs, args.seed):
        children = mismatched = dances = 0
        for at in range(0, len(boards), args.chunk):
            result = compare(boards[at : at + args.chunk], dice[at : at + args.chunk])
            children += result.children
            dances += result.dances
            mismatched += len(result.mismatches)
            found.extend(result.mismatches)
        print(f"{label:<12} {len(boards):>9,} {children:>10,} {dances:>7,} {mismatched:>10,}")
        total_pairs += len(boards)
        total_children += children
    print(f"{'all':<12} {total_pairs:>9,} {total_children:>10,} {'':>7} {len(found):>10,}")
    print(f"seed {args.seed}, {time.perf_counter() - start:.1f} s")
    for m in found[: args.show]:
        print("MISMATCH", m)
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main())
