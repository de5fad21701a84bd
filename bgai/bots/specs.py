"""Players by name: the strings people type after ``bgai bench`` or ``--player``.

A spec is ``NAME[@<n>ply]``:

==========================  ===========================================================
``random`` / ``random:S``    uniformly random legal moves (seed ``S``, default 0)
``pubeval``                  Tesauro's pubeval (takes no ply)
``best``                     the network shipped in ``checkpoints/best.pt``, 0-ply
``PATH``                     a bgai checkpoint file (e.g. ``runs/x/latest.pt``), 0-ply
``best:nodb`` / ``PATH:nodb``  the network alone, without the exact bear-off databases
``best:noprune``             ``best`` without its pruning net (below)
``gnubg``                    gnubg's own move choice (``gnubg_nn.best_move``), 0-ply
``gnubg:LEVEL``              gnubg's named levels, below
==========================  ===========================================================

``@<n>ply`` (0-4) sets the lookahead in gnubg's numbering: ``best@1ply``, ``gnubg@2ply``.
Suffixes combine: ``best:nodb:noprune@2ply``.

**Pruning**: when ``checkpoints/best_pruner.pt`` exists, ``best`` carries it as a pruner (as
gnubg's pruning nets): at 1 ply and deeper, the search picks each inner node's reply with that
small net and values only the chosen reply with ``best`` (:mod:`bgai.search.ply`); the root's
candidates are still ranked by ``best``. It changes nothing at 0-ply. The pruner gets the
bear-off databases too unless ``:nodb``.

gnubg's named levels (reference/formats.md §8) as far as ``gnubg_nn`` allows:

* ``beginner``, ``casual``, ``intermediate``, ``advanced``: gnubg's 0-ply net with
  deterministic evaluation noise of 0.060, 0.050, 0.030, 0.015 (equity standard deviation).
  gnubg_nn has no noise setting, so bgai's search chooses the move over gnubg_nn's 0-ply
  evaluations and adds the noise itself (a hash of the board, the same every time).
* ``expert``: gnubg 0-ply, no noise (``gnubg_nn.best_move``).
* ``worldclass``: gnubg 2-ply with the "normal" move filter (up to 8 moves within 0.16).
* ``supremo``: gnubg 2-ply with the "large" filter (up to 16 moves within 0.32).
* ``grandmaster``: gnubg 3-ply with the "large" filter.

gnubg_nn runs its own lookahead; the filter is set with ``gnubg_nn.set.ps`` for the final
ply, which approximates but need not equal gnubg's multi-stage filters. ``@<n>ply`` on a level
replaces its ply and keeps its noise and filter.
"""

from __future__ import annotations

import re
from pathlib import Path

from bgai.bots.players import GnubgPlayer, PlayerBase, PubevalPlayer, RandomPlayer, SearchPlayer
from bgai.search.evaluator import Evaluator, GnubgEvaluator
from bgai.search.ply import DEFAULT_FILTER, MoveFilter

MAX_PLIES = 4
_SPEC = re.compile(r"^(?P<base>.+?)(?:@(?P<plies>\d+)ply)?$")

GNUBG_LEVELS: dict[str, tuple[int, float, str]] = {
    "beginner": (0, 0.060, "normal"),
    "casual": (0, 0.050, "normal"),
    "intermediate": (0, 0.030, "normal"),
    "advanced": (0, 0.015, "normal"),
    "expert": (0, 0.0, "normal"),
    "worldclass": (2, 0.0, "normal"),
    "supremo": (2, 0.0, "large"),
    "grandmaster": (3, 0.0, "large"),
}
"""Level -> (plies, noise, move filter)."""

SPEC_HELP = (
    "random, pubeval, best, a checkpoint path (':nodb' after either: without the bear-off "
    "databases; ':noprune' after best: without its pruning net), gnubg or gnubg:<level> "
    f"({'|'.join(GNUBG_LEVELS)}), optionally with @<n>ply"
)


def load_player(spec: str) -> PlayerBase:
    """The player a spec names; a bad spec raises a one-line ``ValueError``."""
    match = _SPEC.match(spec.strip()) if isinstance(spec, str) else None
    if not match:
        raise ValueError(f"bad player spec {spec!r}: expected {SPEC_HELP}")
    base, plies_text = match["base"], match["plies"]
    plies = None if plies_text is None else int(plies_text)
    if plies is not None and plies > MAX_PLIES:
        raise ValueError(f"bad player spec {spec!r}: at most {MAX_PLIES} plies")
    name = spec.strip()

    if base == "random" or base.startswith("random:"):
        _no_plies(spec, plies, "random")
        seed_text = base.partition(":")[2] or "0"
        if not seed_text.isdigit():
            raise ValueError(f"bad player spec {spec!r}: the random seed must be a whole number")
        player = RandomPlayer(int(seed_text))
        player.name = name
        return player
    if base == "pubeval":
        _no_plies(spec, plies, "pubeval")
        return PubevalPlayer()
    if base == "gnubg" or base.startswith("gnubg:"):
        return _gnubg_player(spec, base, plies, name)
    if (Path(base) / "bgai.json").is_file():  # an exported opponent's folder (bgai export)
        from bgai.opponent import opponent_player

        return opponent_player(base, plies, name)
    base, options = _net_options(base)
    if base == "best" or _looks_like_path(base):
        if "noprune" in options and base != "best":
            raise ValueError(f"bad player spec {spec!r}: ':noprune' applies to best only")
        prune = base == "best" and "noprune" not in options
        evaluator = _net_evaluator(base, with_db="nodb" not in options, prune=prune)
        return SearchPlayer(evaluator, plies or 0, name=name or f"{spec.split('@')[0]}@{plies or 0}ply")
    raise ValueError(f"unknown player {spec!r}: expected {SPEC_HELP}")


_NET_OPTIONS = ("nodb", "noprune")


def _net_options(base: str) -> tuple[str, set[str]]:
    """``best:nodb:noprune`` -> (``best``, {nodb, noprune}): the suffixes a network takes, any order."""
    options: set[str] = set()
    while True:
        head, _, tail = base.rpartition(":")
        if not head or tail not in _NET_OPTIONS:
            return base, options
        options.add(tail)
        base = head


def _net_evaluator(base: str, with_db: bool, prune: bool) -> Evaluator:
    """The evaluator of ``best`` or a checkpoint file: the net, behind the exact bear-off
    databases when ``with_db``; with ``best``'s pruning net attached when ``prune`` and it exists."""
    from bgai.model.checkpoint import SHIPPED, checkpoint_path, load_net
    from bgai.search.evaluator import NetEvaluator, PrunedEvaluator

    evaluator: Evaluator = NetEvaluator(load_net(checkpoint_path(base)), name=base)
    pruner: Evaluator | None = None
    pruner_path = SHIPPED / f"{base}_pruner.pt"
    if prune and pruner_path.is_file():
        pruner = NetEvaluator(load_net(pruner_path), name=f"{base}_pruner")
    if with_db:  # exact bear-off databases wherever both sides are bearing off
        from bgai.bearoff import BearoffEvaluator

        db = BearoffEvaluator(evaluator)
        db.name = base
        evaluator = db
        if pruner is not None:
            pruner = BearoffEvaluator(pruner, db.one_sided, db.two_sided)
            pruner.name = f"{base}_pruner"
    if pruner is not None:
        evaluator = PrunedEvaluator(evaluator, pruner, name=base)
    return evaluator


def evaluator_of(player: PlayerBase, task: str = "this") -> tuple[Evaluator, int, MoveFilter]:
    """(evaluator, plies, move filter) behind ``player``, for tools that rank moves or analyse
    the cube with its judgement (``bgai hint``, ``bgai cube``).

    A search player gives its own; a gnubg player gives gnubg's 0-ply net under bgai's search
    at its plies. Players that evaluate no positions (random, pubeval) raise ``ValueError``
    saying that ``task`` needs one.
    """
    if isinstance(player, SearchPlayer):
        return player.evaluator, player.plies, player.move_filter
    if isinstance(player, GnubgPlayer):
        return GnubgEvaluator(0), player.plies, DEFAULT_FILTER
    raise ValueError(
        f"{task} needs a player that evaluates positions (best, a checkpoint, gnubg), not {player.name}"
    )


def _no_plies(spec: str, plies: int | None, what: str) -> None:
    if plies is not None:
        raise ValueError(f"bad player spec {spec!r}: {what} takes no @<n>ply")


def _looks_like_path(base: str) -> bool:
    return base.endswith((".pt", ".pth")) or "/" in base or Path(base).is_file()


def _gnubg_player(spec: str, base: str, plies: int | None, name: str) -> PlayerBase:
    level = base.partition(":")[2] if ":" in base else "expert"
    if level not in GNUBG_LEVELS:
        choices = ", ".join(GNUBG_LEVELS)
        raise ValueError(f"unknown gnubg level {level!r} in {spec!r}: choose one of {choices}")
    level_plies, noise, move_filter = GNUBG_LEVELS[level]
    plies = level_plies if plies is None else plies
    if noise > 0:
        return SearchPlayer(GnubgEvaluator(0), plies, noise=noise, name=name)
    return GnubgPlayer(plies, move_filter, name=name)
