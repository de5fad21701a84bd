"""scripts/measure/rollout_accuracy.py on a judged set: the positions it takes from the file."""

from __future__ import annotations

import json
import sys

import numpy as np
import pytest

from bgai.train.positions import CLASSES, classify
from tests.positions import pos
from tests.scripts import load_script

CONTACT = "x 24:2 13:5 8:3 6:5; o 1:2 12:5 17:3 19:5"
RACES = ("x 10:5 8:5 6:5; o 15:5 17:5 19:5", "x 12:3 6:4 5:4 4:4; o 19:4 20:4 21:4 13:3")


def test_a_judged_set_restricted_to_one_class(tmp_path, monkeypatch, capsys):
    boards = np.stack([pos(t).numpy() for t in (CONTACT, *RACES)])
    assert list(classify(boards)) == [CLASSES.index("contact")] + [CLASSES.index("race")] * 2
    judge = tmp_path / "judge.npz"
    n = len(boards)
    np.savez(
        judge,
        boards=boards,
        equity=np.zeros(n),
        equity_se=np.full(n, 0.01),
        seconds=np.ones(n),
        meta=np.array(json.dumps({"trials": 144})),
    )
    study = load_script("measure/rollout_accuracy.py")
    argv = [
        "rollout_accuracy.py",
        "--judge-set",
        str(judge),
        "--only",
        "0ply",
        "--cache",
        str(tmp_path / "c.json"),
    ]
    for extra, told in (
        ([], "3 positions from"),
        (["--classes", "race"], "2 positions from"),
        (["--classes", "race", "--positions", "1"], "1 positions from"),
    ):
        monkeypatch.setattr(sys, "argv", [*argv, *extra])
        study.main()
        assert told in capsys.readouterr().out
    monkeypatch.setattr(sys, "argv", [*argv, "--classes", "prime"])
    with pytest.raises(ValueError, match="unknown position class 'prime'"):
        study.main()
