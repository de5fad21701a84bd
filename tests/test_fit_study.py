"""scripts/study/fit_study.py, tiny: it fits, reports per epoch and saves loadable nets (needs gnubg)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
import torch

from bgai.model.checkpoint import load_net

ROOT = Path(__file__).resolve().parents[1]
SCRIPT = ROOT / "scripts" / "study" / "fit_study.py"


@pytest.mark.gnubg  # the study fits to gnubg's evaluations
def test_a_tiny_fit_study_runs_and_its_nets_load(tmp_path):
    result = subprocess.run(
        [sys.executable, str(SCRIPT), "--positions", "400", "--held-out", "100",
         "--nets", "rich:4,init:checkpoints/best_2c.pt@rich_plan", "--epochs", "2", "--cube-positions", "30",
         "--save-dir", str(tmp_path)],
        check=True, capture_output=True, text=True, cwd=ROOT,
    )  # fmt: skip
    lines = [line for line in result.stdout.splitlines() if " epoch " in line]
    assert len(lines) == 6 and lines[-1].startswith("init:checkpoints/best_2c.pt@rich_plan epoch 2")
    fitted = load_net(tmp_path / "fitted-rich-4.pt")
    assert fitted.spec()["hidden"] == [4]
    grown = load_net(tmp_path / "fitted-init-checkpoints_best_2c.pt-rich_plan.pt")
    assert grown.spec()["encoding"] == "rich_plan"
    shipped = load_net(ROOT / "checkpoints/best_2c.pt")
    assert not torch.equal(grown.state_dict()["head.bias"], shipped.state_dict()["head.bias"])  # it trained


@pytest.mark.gnubg
def test_a_fit_study_on_a_databases_positions_reports_each_class(tmp_path):
    from bgai.bots import evaluator_of
    from bgai.specs import load_player
    from bgai.train.positions import build_database

    db = build_database(
        evaluator_of(load_player("best"), "tests")[0], selfplay=200, backgame=200, seed=4, games=8
    )
    db.save(tmp_path / "positions.npz")
    result = subprocess.run(
        [sys.executable, str(SCRIPT), "--positions", "300", "--held-out", "100", "--nets", "rich_plan:4",
         "--epochs", "1", "--cube-positions", "30", "--database", str(tmp_path)],
        check=True, capture_output=True, text=True, cwd=ROOT,
    )  # fmt: skip
    lines = [line for line in result.stdout.splitlines() if " epoch " in line]
    assert len(lines) == 2 and "backgame 0." in lines[-1] and "race" not in lines[-1].split("equity error")[1]
