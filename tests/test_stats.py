"""The one confidence interval: a mean and 1.96 sample standard deviations over sqrt(n)."""

import math

import numpy as np
import pytest

from bgai.bench.games import ci95
from bgai.stats import format_ci95, mean_ci95


def test_mean_and_half_width_of_a_small_sample():
    mean, half = mean_ci95([1.0, 2.0, 3.0, 4.0])
    assert mean == 2.5
    assert half == pytest.approx(1.96 * math.sqrt(5 / 3) / 2)


def test_one_sample_has_no_interval_and_none_has_no_mean():
    assert math.isnan(mean_ci95([0.5])[1]) and mean_ci95([0.5])[0] == 0.5
    assert all(math.isnan(v) for v in mean_ci95([]))


def test_duplicate_games_are_judged_by_their_pairs():
    results = np.array([2.0, -2.0, 1.0, 1.0, -1.0, 3.0])  # pair means 0, 1, 1
    assert ci95(results, duplicate=True) == pytest.approx(mean_ci95([0.0, 1.0, 1.0])[1])
    assert ci95(results, duplicate=False) == pytest.approx(mean_ci95(results)[1])


def test_format_ci95_writes_the_mean_and_half_width_of_mean_ci95():
    samples = np.array([0.1, -0.3, 0.2, 0.05])
    mean, half = mean_ci95(samples)
    assert format_ci95(samples) == f"{mean:+.4f} ± {half:.4f}"
    assert format_ci95(samples, digits=2) == f"{mean:+.2f} ± {half:.2f}"
    assert format_ci95([]) == "—"
