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
         "--nets", "rich:4,init:checkpoints/best.pt@rich_plus", "--epochs", "2", "--cube-positions", "30",
         "--save-dir", str(tmp_path)],
        check=True, capture_output=True, text=True, cwd=ROOT,
    )  # fmt: skip
    lines = [line for line in result.stdout.splitlines() if " epoch " in line]
    assert len(lines) == 6 and lines[-1].startswith("init:checkpoints/best.pt@rich_plus epoch 2")
    fitted = load_net(tmp_path / "fitted-rich-4.pt")
    assert fitted.spec()["hidden"] == [4]
    grown = load_net(tmp_path / "fitted-init-checkpoints_best.pt-rich_plus.pt")
    assert grown.spec()["encoding"] == "rich_plus"
    shipped = load_net(ROOT / "checkpoints/best.pt")
    assert not torch.equal(grown.state_dict()["head.bias"], shipped.state_dict()["head.bias"])  # it trained
