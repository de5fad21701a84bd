"""scripts/study/where_errors.py: per-class error rates of players judged on the same positions."""

from __future__ import annotations

import re

from tests.scripts import load_script


def _study():
    return load_script("study/where_errors.py")


def test_a_random_player_loses_more_than_the_net_in_every_judged_class(capsys):
    args = ["--players", "random,best", "--games", "4", "--positions", "60", "--judge", "best@1ply"]
    assert _study().main(args) == 0
    rows = [line for line in capsys.readouterr().out.splitlines() if line.startswith("| ") and "±" in line]
    table = {
        row.split("|")[1].strip(): [float(x) for x in re.findall(r"[+-]?\d+\.\d+(?= ±)", row)] for row in rows
    }
    assert "all" in table and len(table) >= 2
    counts = sum(int(row.split("|")[2].split()[0]) for row in rows if not row.startswith("| all"))
    assert counts == 60  # every judged position falls in one class
    random_rate, best_rate, difference = table["all"]
    assert random_rate > best_rate >= 0
    assert abs(difference - (random_rate - best_rate)) < 0.02
