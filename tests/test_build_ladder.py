"""scripts/build/build_ladder.py on a tiny net: exports, grades, the paired comparison, ladder.md."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import torch

from bgai.model.checkpoint import FORMAT as CHECKPOINT_FORMAT
from bgai.model.checkpoint import save_atomic
from bgai.model.net import ValueNet
from bgai.opponent import Opponent

ROOT = Path(__file__).resolve().parents[1]


def test_build_ladder_writes_grades_and_the_paired_comparison(tmp_path):
    torch.manual_seed(3)
    net = ValueNet(hidden=(8,))
    checkpoint = tmp_path / "t.pt"
    save_atomic({"format": CHECKPOINT_FORMAT, "net_spec": net.spec(), "model": net.state_dict()}, checkpoint)
    out = tmp_path / "ladder"
    argv = [
        "--checkpoint", str(checkpoint), "--out", str(out), "--levels", "strong", "beginner", "intermediate",
        "--games", "2", "--decisions", "10", "--paired", "12", "--seed", "2", "--judge", f"{checkpoint}@0ply",
    ]  # fmt: skip
    done = subprocess.run(
        [sys.executable, str(ROOT / "scripts" / "build" / "build_ladder.py"), *argv],
        capture_output=True, text=True, cwd=ROOT,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    text = (out / "ladder.md").read_text()
    assert text == done.stdout
    rows = [line.split(" | ")[0].lstrip("| ") for line in text.splitlines() if line.startswith("| ")]
    assert rows == ["level", "beginner", "intermediate", "strong"] * 2  # weakest first, both tables
    assert "python scripts/build/build_ladder.py --checkpoint" in text and "--paired 12" in text
    assert "Paired comparison" in text and "same 12 positions" in text

    strengths = [Opponent.load(out / name).strength for name in ("beginner", "intermediate", "strong")]
    assert all(s["decisions"] == 10 and s["judge"] == f"{checkpoint}@0ply" for s in strengths)
    paired = [s["paired"] for s in strengths]
    assert [p["positions"] for p in paired] == [12, 12, 12]
    assert paired[0]["below"] is None and paired[2]["above"] is None
    assert paired[1]["below"]["level"] == "beginner" and paired[1]["above"]["level"] == "strong"
    assert paired[0]["above"] == {**paired[1]["below"], "level": "intermediate"}
    # the judge is the net itself at 0-ply: `strong` (the net alone) loses nothing on the common positions
    assert paired[2]["error_rate"] == 0.0
    assert paired[1]["above"]["difference"] == round(paired[1]["error_rate"], 3)
    monotone = all(p["above"]["separated"] for p in paired[:2])
    assert all(p["ladder_monotone"] is monotone for p in paired)
    assert ("**monotone**" in text) is monotone
    json.loads((out / "strong" / "bgai.json").read_text())  # still valid JSON
