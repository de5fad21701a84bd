"""Bear-off databases, computed by bgai itself with its own move generator.

* :mod:`~bgai.bearoff.one_sided` — for every home position of up to 15 checkers, the exact
  distribution of rolls needed to bear off (and to bear off the first checker), and the
  one-sided race approximation built on it;
* :mod:`~bgai.bearoff.two_sided` — exact cubeless winning chances with perfect play when both
  sides have at most 6 checkers left;
* :mod:`~bgai.bearoff.evaluator` — :class:`BearoffEvaluator`, which answers bear-off positions
  from these tables and hands every other position to a fallback evaluator.

The one-sided database ships as package data (``bgai/data/bearoff/``); the two-sided table is
built on first use (seconds) and cached under ``~/.cache/bgai/bearoff`` (see
:func:`~bgai.bearoff.one_sided.cache_dir`), as is the cubeful money table that
:mod:`bgai.cube.bearoff` solves on the same edges. ``scripts/build/build_bearoff.py`` rebuilds
all three.
"""

from bgai.bearoff.evaluator import BearoffEvaluator, is_bearoff
from bgai.bearoff.one_sided import (
    OneSidedDB,
    RaceTables,
    all_positions,
    build_one_sided,
    load_one_sided,
    one_sided_probs,
    position_count,
    position_index,
)
from bgai.bearoff.two_sided import TwoSidedDB, build_two_sided, load_two_sided

__all__ = [
    "BearoffEvaluator",
    "OneSidedDB",
    "RaceTables",
    "TwoSidedDB",
    "all_positions",
    "build_one_sided",
    "build_two_sided",
    "is_bearoff",
    "load_one_sided",
    "load_two_sided",
    "one_sided_probs",
    "position_count",
    "position_index",
]
