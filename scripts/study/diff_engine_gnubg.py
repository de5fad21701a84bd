"""Differential run of bgai's move generator against GNU Backgammon's (``gnubg_nn.moves``).

For many (position, roll) pairs from every sampling kind and variant, the set of distinct
resulting positions must be identical. Positions are compared as gnubg position keys: gnubg
returns each as 20 letters A-P, the 10-byte key (the Position ID's bits, see
docs/formats.md §1) written in hex with A = 0 ... P = 15, high nibble first; bgai's children
are encoded to the same 10 bytes with a vectorised encoder, so no board is decoded one by one.
A dance is an empty tuple in gnubg and the position itself in bgai.

    python scripts/study/diff_engine_gnubg.py --pairs 200000 --seed 1

Prints per-kind counts and mismatches, and exits with status 1 if any pair differs. The CI
sample of the same comparison is tests/test_engine_gnubg.py; both read gnubg through
:mod:`bgai.gnubg` (position keys, gnubg's children).
"""

from __future__ import annotations

import argparse
import time

import torch

from bgai import gnubg as oracle
from bgai.cli.main import run_script
from bgai.engine.sampling import sample_positions


def sample_streams(pairs: int, seed: int) -> list[tuple[str, torch.Tensor, torch.Tensor]]:
    """(label, boards, dice) for each stream of :data:`bgai.gnubg.ENGINE_STREAMS`, ``pairs`` in all."""
    per = -(-pairs // len(oracle.ENGINE_STREAMS))
    out = []
    for i, (label, kind, variant) in enumerate(oracle.ENGINE_STREAMS):
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
    found: list[oracle.Mismatch] = []
    print(f"{'kind':<12} {'pairs':>9} {'children':>10} {'dances':>7} {'mismatches':>10}")
    for label, boards, dice in sample_streams(args.pairs, args.seed):
        children = mismatched = dances = 0
        for at in range(0, len(boards), args.chunk):
            result = oracle.compare_children(boards[at : at + args.chunk], dice[at : at + args.chunk])
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
    run_script(main)
