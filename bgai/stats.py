"""The one home of a mean with its 95 % confidence interval (bench, grading, studies).

Strength is reported as a mean over independent samples (games, duplicate pairs, judged
decisions) with the half-width of its 95 % interval by the normal approximation,
``1.96 * sd / sqrt(n)`` with the sample standard deviation.
"""

from __future__ import annotations

import math

import numpy as np

Z95 = 1.96
"""The standard normal quantile of a two-sided 95 % interval."""


def mean_ci95(samples) -> tuple[float, float]:
    """(mean, half-width of its 95 % interval) of independent ``samples``; the half-width is
    ``nan`` below two samples, the mean ``nan`` with none."""
    x = np.asarray(samples, dtype=np.float64).ravel()
    mean = float(x.mean()) if len(x) else math.nan
    if len(x) < 2:
        return mean, math.nan
    return mean, Z95 * float(x.std(ddof=1)) / math.sqrt(len(x))


def format_ci95(samples, digits: int = 4) -> str:
    """``"+mean ± half-width"`` of :func:`mean_ci95` for tables of figures, ``"—"`` with no samples."""
    if not len(np.asarray(samples).ravel()):
        return "—"
    mean, half = mean_ci95(samples)
    return f"{mean:+.{digits}f} ± {half:.{digits}f}"
