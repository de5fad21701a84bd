"""Players and bots by name: the one place that knows every kind of player.

It sits above bots, bench and opponents (it builds all of them) and below play and the CLI.

* :func:`load_player`: the batched player a spec names (``bgai bench``, ``--player``,
  ``bgai grade``);
* :func:`load_bot`: the :class:`~bgai.opponent.Bot` people play against (``bgai play``): a
  spec, or an exported opponent by level;
* :func:`load_judge`: the judge of ``bgai grade --judge``.

A spec is ``NAME[@<n>ply]``:

==========================  ===========================================================
``random`` / ``random:S``    uniformly random legal moves (seed ``S``, default 0)
``pubeval``                  Tesauro's pubeval (takes no ply)
``best``                     the network shipped in ``checkpoints/best.pt``, 0-ply
``NAME``                     another shipped network, ``checkpoints/NAME.pt`` (``best_td``)
``PATH``                     a bgai checkpoint file (e.g. ``runs/x/latest.pt``), 0-ply
``DIR``                      an exported opponent's folder (``bgai export``), at its level
``best:nodb`` / ``PATH:nodb``  the network alone, without the exact bear-off databases
``best:noprune``             ``best`` (or ``PATH``) without its pruning net (below)
``gnubg``                    gnubg's own move choice (``gnubg_nn.best_move``), 0-ply
``gnubg:LEVEL``              gnubg's named levels, below
==========================  ===========================================================

``@<n>ply`` (0-4) sets the lookahead in gnubg's numbering: ``best@1ply``, ``gnubg@2ply``.
Suffixes combine: ``best:nodb:noprune@2ply``.

**Pruning**: when ``checkpoints/best_pruner.pt`` exists, ``best`` carries it as a pruner (as
gnubg's pruning nets; a checkpoint ``X.pt`` likewise carries an ``X_pruner.pt`` beside it): at
1 ply and deeper, that small net short-lists each inner node's replies (gnubg's 5 +
log2(legal moves)) and ``best`` picks among them (:mod:`bgai.search.ply`); the root's
candidates are still ranked by ``best``. It changes nothing at 0-ply. The pruner gets the
bear-off databases too unless ``:nodb``.

gnubg's named levels (docs/formats.md §8) as far as ``gnubg_nn`` allows:

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

import json
import re
from pathlib import Path

from bgai.bots.players import (
    GnubgPlayer,
    PlayerBase,
    PubevalPlayer,
    RandomPlayer,
    SearchPlayer,
    network_evaluator,
)
from bgai.opponent import Bot, Opponent, default_name, get_level, opponent_player
from bgai.opponent.grade import GnubgJudge, Judge, SearchJudge, gnubg_available
from bgai.search.evaluator import Evaluator, GnubgEvaluator
from bgai.search.ply import MAX_PLIES

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
    "random, pubeval, best (or another shipped network: best_td), a checkpoint path (':nodb' after "
    "either: without the bear-off databases; ':noprune': without its pruning net), gnubg or gnubg:<level> "
    f"({'|'.join(GNUBG_LEVELS)}), optionally with @<n>ply"
)


def load_player(spec: str, device: str = "cpu") -> PlayerBase:
    """The player a spec names; a bad spec raises a one-line ``ValueError``.

    ``device``: where a bgai network's nets live (``cuda``: labelling on a GPU); the other
    players keep to the CPU (boards sent to them come back on their own device).
    """
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
    if Path(base).is_dir():  # an exported opponent's folder (bgai export); Opponent.load says what is wrong
        return opponent_player(base, plies)
    base, options = _net_options(base)
    if base == "best" or _looks_like_path(base) or _is_shipped(base):
        evaluator = network_evaluator(
            base, bearoff="nodb" not in options, prune="noprune" not in options, device=device
        )
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


def _no_plies(spec: str, plies: int | None, what: str) -> None:
    if plies is not None:
        raise ValueError(f"bad player spec {spec!r}: {what} takes no @<n>ply")


def _is_shipped(base: str) -> bool:
    from bgai.model.checkpoint import shipped_checkpoint

    try:
        return base.isidentifier() and shipped_checkpoint(base).is_file()
    except ValueError:
        return False


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


# --- bots for people --------------------------------------------------------------------------


def exported_opponents(root: Path | None = None) -> list[tuple[Path, dict]]:
    """(folder, its ``bgai.json``) of every exported opponent in ``root`` (default
    ``checkpoints/opponents``), sorted by folder; unreadable files are skipped."""
    from bgai.model.checkpoint import SHIPPED

    root = SHIPPED / "opponents" if root is None else Path(root)
    found = []
    for meta in sorted(root.glob("*/bgai.json")):
        try:
            found.append((meta.parent, json.loads(meta.read_text(encoding="utf-8"))))
        except (OSError, ValueError):
            continue
    return found


def load_bot(spec: str | None = None, *, level: str | None = None, root: Path | None = None) -> Bot:
    """The bot of ``bgai play``: an exported opponent by ``level``, or a ``spec``.

    ``level`` (:mod:`bgai.opponent.levels`): the exported opponent in ``root`` (default
    ``checkpoints/opponents``) whose ``bgai.json`` names that level; without one, the shipped
    ``best`` network played at the level. ``spec``: an exported opponent's folder, or any
    :func:`load_player` spec (default ``best``).
    """
    if level is not None:
        wanted = get_level(level)
        for folder, meta in exported_opponents(root):
            if meta.get("level") == wanted.name:
                return Opponent.load(folder)
        from bgai.model.checkpoint import load_net, shipped_checkpoint
        from bgai.search.evaluator import NetEvaluator
        from bgai.search.ply import FILTERS

        try:
            best = shipped_checkpoint("best")
        except ValueError:
            where = root or "checkpoints/opponents"
            raise ValueError(
                f"no exported opponent at level {wanted.name!r} in {where} (bgai export makes "
                "one), and no shipped network 'best' to play the level with"
            ) from None
        evaluator = NetEvaluator(load_net(best), "best")
        name = default_name(wanted.name)
        move_filter = FILTERS[wanted.move_filter]
        player = SearchPlayer(evaluator, wanted.plies, move_filter, noise=wanted.noise, name=name)
        return Bot.of_player(player)
    spec = spec or "best"
    if Path(spec).is_dir():
        return Opponent.load(spec)
    return Bot.of_player(load_player(spec))


# --- judges -----------------------------------------------------------------------------------


def load_judge(spec: str | None = None, fallback: Evaluator | None = None) -> Judge:
    """The judge ``spec`` names: ``gnubg[@<n>ply]`` (2-ply by default), or any player spec that
    searches (``best@2ply``, a checkpoint or exported opponent with ``@<n>ply``).

    ``None`` picks the strongest available: gnubg at 2-ply, else the shipped ``best`` at 2-ply,
    else ``fallback`` (the graded player's own evaluator) at 2-ply. The judge's ``name`` says
    which it is.
    """
    if spec is None:
        if gnubg_available():
            return GnubgJudge(2)
        try:
            return _search_judge(load_player("best@2ply"))
        except ValueError:
            if fallback is None:
                msg = "no judge: install gnubg-nn, ship checkpoints/best.pt or give --judge"
                raise ValueError(msg) from None
            return SearchJudge(fallback, 2, name=f"{getattr(fallback, 'name', 'own net')}@2ply (its own net)")
    text = spec.strip()
    if text == "gnubg" or text.startswith("gnubg@"):
        plies = text.partition("@")[2].removesuffix("ply") or "2"
        if not plies.isdigit():
            raise ValueError(f"bad judge {spec!r}: expected gnubg or gnubg@<n>ply")
        return GnubgJudge(int(plies))
    return _search_judge(load_player(text))


def _search_judge(player: PlayerBase) -> SearchJudge:
    if isinstance(player, SearchPlayer):
        return SearchJudge(player.evaluator, player.plies, player.move_filter, name=player.name)
    raise ValueError(f"a judge must evaluate positions (gnubg, best@2ply, a checkpoint), not {player.name}")
