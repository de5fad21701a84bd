"""Who judges an analysis, and gnubg's thresholds for marking what it finds.

A :class:`Judge` is an evaluator and a ply: checker play is ranked with
:func:`bgai.search.score_candidates` under gnubg's analysis move filter
(:data:`ANALYSIS_FILTER`), cube decisions by :func:`bgai.cube.analysis.analyse_positions` at the
same ply (at most 2), and luck at 0-ply, as gnubg does. :func:`analysis_judge` makes one from a
player spec: ``best`` (with its pruning net), a checkpoint, an exported opponent, or ``gnubg``
(gnubg's 0-ply net under bgai's search, as ``bgai hint`` uses it).

Marks and ratings are gnubg's (current gnubg, 1.07 and later, as ``show analysis`` of the
gnubg 1.1 package prints them; older manuals give 0.04 / 0.08 / 0.16): a decision that loses
more than 0.03 normalised equity is *doubtful*, more than 0.06 *bad* (an error), more than
0.12 *very bad* (a blunder); a roll worth more than +0.3 is *lucky*, +0.6 *very lucky*, below
-0.3 *unlucky*, -0.6 *very unlucky*.
"""

from __future__ import annotations

from dataclasses import dataclass

from bgai.search import Evaluator, FilterStage, MoveFilter

ANALYSIS_FILTER: tuple[FilterStage, ...] = (FilterStage(0, 16, 0.32), FilterStage(0, 8, 0.16))
"""gnubg's default move filter for analysis at 2-ply (its "large" preset's 2-ply row, as
``show analysis`` prints it): up to 16 moves within 0.32 of the best go from 0-ply to 1-ply,
then up to 8 within 0.16 to 2-ply."""

MAX_PLIES = 2
"""Cube analysis looks 2 plies ahead at most (:mod:`bgai.cube.search`)."""

SKILL_MARKS: tuple[tuple[str, float], ...] = (("very bad", 0.12), ("bad", 0.06), ("doubtful", 0.03))
"""gnubg's analysis thresholds: a decision losing more than this (normalised equity) gets the mark."""

LUCK_MARKS: tuple[tuple[str, float], ...] = (
    ("very lucky", 0.6),
    ("lucky", 0.3),
    ("very unlucky", -0.6),
    ("unlucky", -0.3),
)
"""gnubg's luck thresholds on the luck of a roll (normalised equity)."""


def skill_mark(error: float) -> str:
    """gnubg's mark of a decision that lost ``error`` (>= 0): "", doubtful, bad or very bad."""
    return next((name for name, bound in SKILL_MARKS if error > bound), "")


def luck_mark(luck: float) -> str:
    """gnubg's mark of a roll worth ``luck``: "", lucky, very lucky, unlucky or very unlucky."""
    for name, bound in LUCK_MARKS:
        if (bound > 0 and luck > bound) or (bound < 0 and luck < bound):
            return name
    return ""


@dataclass(frozen=True)
class Judge:
    """An evaluator at ``plies`` (gnubg's numbering) for checker play and cube, 0-ply for luck."""

    evaluator: Evaluator
    plies: int
    name: str
    move_filter: MoveFilter = ANALYSIS_FILTER

    def __post_init__(self) -> None:
        if not 0 <= self.plies <= MAX_PLIES:
            raise ValueError(f"analysis looks 0 to {MAX_PLIES} plies ahead, got {self.plies}")

    @property
    def cube_plies(self) -> int:
        return min(self.plies, MAX_PLIES)


def analysis_judge(spec: str = "best", plies: int | None = None) -> Judge:
    """The judge a player spec names, at ``plies`` (default: the spec's ``@<n>ply``, else 2).

    ``best`` carries its pruning net (inner nodes of the search), ``gnubg`` is gnubg's 0-ply
    net under bgai's search. Players that evaluate nothing (random, pubeval) raise ``ValueError``.
    """
    import bgai
    from bgai.bots import evaluator_of

    player = bgai.load_player(spec)
    evaluator, spec_plies, _ = evaluator_of(player, "analysis")
    if plies is None:
        plies = spec_plies if "@" in spec else 2
    base = spec.split("@")[0].strip()
    return Judge(evaluator, int(plies), f"{base}@{plies}ply")
