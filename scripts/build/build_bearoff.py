"""Build bgai's bear-off databases and save them; prints timings and sizes.

* one-sided, 15 checkers (54,264 positions): ``bgai/data/bearoff/one_sided_15.npz`` (package
  data, committed, about 2.3 MB); about 25 s of one CPU;
* two-sided, 6 checkers a side (924 x 924): the user cache (``~/.cache/bgai/bearoff``, or
  ``$BGAI_CACHE_DIR``), where the evaluator also builds it on first use; about 5 s of one CPU;
* two-sided cubeful money equities (:mod:`bgai.cube.bearoff`, 924 x 924 x 3 cube owners): the
  same cache, where the cube analysis also builds it on first use; about 10 s, 7.8 MB.

Usage: ``python scripts/build/build_bearoff.py [--threads 1] [--skip-one-sided] [--skip-two-sided]
[--skip-cubeful]``
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

import torch

from bgai.bearoff.one_sided import DATA_DIR, ONE_SIDED_FILE, build_one_sided, cache_dir
from bgai.bearoff.two_sided import TWO_SIDED_FILE, build_two_sided
from bgai.cli.main import run_script
from bgai.cube.bearoff import CUBEFUL_FILE, build_cubeful_two_sided


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--threads", type=int, default=1, help="torch CPU threads")
    parser.add_argument("--skip-one-sided", action="store_true", help="do not rebuild the one-sided database")
    parser.add_argument("--skip-two-sided", action="store_true", help="do not rebuild the two-sided table")
    parser.add_argument(
        "--skip-cubeful", action="store_true", help="do not rebuild the cubeful two-sided table"
    )
    args = parser.parse_args()
    torch.set_num_threads(args.threads)

    if not args.skip_one_sided:
        db = _build("one-sided", build_one_sided, DATA_DIR / ONE_SIDED_FILE)
        print(f"  {len(db.rolls):,} positions x {db.rolls.shape[1]} roll counts")
    if not args.skip_two_sided:
        n = len(_build("two-sided", build_two_sided, cache_dir() / TWO_SIDED_FILE).win)
        print(f"  {n:,} x {n:,} positions")
    if not args.skip_cubeful:
        n = len(
            _build("two-sided cubeful (money)", build_cubeful_two_sided, cache_dir() / CUBEFUL_FILE).no_double
        )
        print(f"  {n:,} x {n:,} positions x 3 cube owners")


def _build(name: str, build, path: Path):
    """Build a table, save it to ``path`` and say how long it took and how big it is."""
    t = time.perf_counter()
    table = build()
    built = time.perf_counter() - t
    table.save(path)
    print(f"{name}: {built:.1f} s, saved {path} ({path.stat().st_size / 1e6:.2f} MB)")
    return table


if __name__ == "__main__":
    run_script(main)
