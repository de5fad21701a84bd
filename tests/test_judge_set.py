"""scripts/study/judge_set.py: back games rolled out by gnubg, in resumable shards, joined."""

from __future__ import annotations

import json
import re

import numpy as np
import pytest
import torch

from bgai.bots import evaluator_of
from bgai.model.probs import cubeless_equity
from bgai.specs import load_player
from bgai.train.positions import CLASSES, PositionDatabase, build_database
from tests.scripts import load_script


def _judge_set(tmp_path, positions: int, **build):
    """The study, its shard folder, judge file and ``roll`` arguments on a small database of
    ``best``'s (``build``: :func:`build_database`'s counts and seed)."""
    best = evaluator_of(load_player("best"), "tests")[0]
    build_database(best, games=16, **build).save(tmp_path / "db" / "positions.npz")
    shards = tmp_path / "shards"
    roll = [
        "roll",
        str(tmp_path / "db"),
        "--out",
        str(shards),
        "--positions",
        str(positions),
        "--trials",
        "36",
    ]
    return load_script("study/judge_set.py"), shards, tmp_path / "judge.npz", roll


@pytest.mark.gnubg
def test_shards_resume_join_and_report_every_player(tmp_path, capsys):
    study, shards, judge, roll = _judge_set(tmp_path, 4, selfplay=0, backgame=400, seed=5)
    for k in (0, 1):
        study.main([*roll, "--shard", f"{k}/2", "--save-every", "1"])
    before = (shards / "shard0of2.npz").read_bytes()
    study.main([*roll, "--shard", "0/2"])  # done already: nothing rolled again
    assert (shards / "shard0of2.npz").read_bytes() == before
    with pytest.raises(SystemExit, match="another selection"):
        study.main([*roll[:-4], "--positions", "6", "--trials", "36", "--shard", "0/2"])
    study.main(["join", str(shards), "--out", str(judge)])
    with np.load(judge) as f:
        rows, boards, probs, equity, se = (f[k] for k in ("rows", "boards", "probs", "equity", "equity_se"))
        meta = json.loads(str(f["meta"]))
    assert "shard" not in meta and meta["positions"] == 4  # the set's settings, not one shard's
    loaded = PositionDatabase.load(tmp_path / "db")
    assert len(rows) == 4 and np.all(np.diff(rows) > 0)
    assert (loaded.klass[rows] == CLASSES.index("backgame")).all() and loaded.held_out[rows].all()
    assert np.array_equal(boards, loaded.boards[rows])
    # gnubg's printed equity is the cubeless equity of its printed probabilities
    np.testing.assert_allclose(cubeless_equity(torch.as_tensor(probs)).numpy(), equity, atol=2e-4)
    assert (se > 0).all()
    capsys.readouterr()
    study.main(["report", str(judge), "--nets", "best,gnubg"])
    out = capsys.readouterr().out
    assert "4 positions (backgame 4)" in out
    row = re.search(r"^\| best \| \+?(\d+\.\d+) ±", out, re.M)
    assert row and float(row.group(1)) < 1.0
    assert "best: mean abs error − gnubg 0-ply's" in out


@pytest.mark.gnubg
def test_classes_sources_and_variance_reduction(tmp_path, capsys):
    study, shards, judge, roll = _judge_set(tmp_path, 2, selfplay=1500, backgame=300, seed=7)
    with pytest.raises(ValueError, match="unknown position class 'prime'"):
        study.main([*roll, "--classes", "contact,prime"])
    with pytest.raises(SystemExit, match="only .* held-out race positions"):
        study.main([*roll[:-4], "--positions", "10000", "--classes", "race"])
    study.main([*roll, "--classes", "contact,race", "--sources", "selfplay", "--variance-reduction"])
    study.main(["join", str(shards), "--out", str(judge)])
    with np.load(judge) as f:
        rows, se, meta = f["rows"], f["equity_se"], str(f["meta"])
    loaded = PositionDatabase.load(tmp_path / "db")
    assert sorted(loaded.klass[rows]) == [CLASSES.index("contact")] * 2 + [CLASSES.index("race")] * 2
    assert (loaded.source[rows] == 0).all() and loaded.held_out[rows].all()
    assert '"variance_reduction": true' in meta
    assert (se[loaded.klass[rows] == CLASSES.index("contact")] > 0).all() and (se >= 0).all()
    capsys.readouterr()
    study.main(["report", str(judge), "--nets", "best,gnubg"])
    out = capsys.readouterr().out
    assert "36 trials, variance reduction" in out and "4 positions (contact 2, race 2)" in out
    assert "class contact (2 positions)" in out and "class race (2 positions)" in out
