"""A wheel (``pip install .``, not editable) carries the shipped networks: ``best``, its pruner and
the opponent ladder resolve from the installed package, outside the source tree.

.ci/run does the same with a second virtual environment and the ``bgai`` command.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

CHECK = """
import sys
from pathlib import Path
import bgai
from bgai.model.checkpoint import SHIPPED
from bgai.search.evaluator import PrunedEvaluator
site = Path(sys.argv[1]).resolve()
assert Path(bgai.__file__).resolve().is_relative_to(site), bgai.__file__
assert SHIPPED == site / "bgai" / "checkpoints", SHIPPED
best = bgai.load_player("best")
assert isinstance(best.evaluator, PrunedEvaluator), type(best.evaluator)
expert = bgai.Opponent.load(SHIPPED / "opponents" / "expert")
print(expert.choose_move("4HPwATDgc/ABMA", "31"))
"""


def test_a_wheel_ships_best_its_pruner_and_the_ladder(tmp_path):
    source = tmp_path / "src"
    source.mkdir()
    ignore = shutil.ignore_patterns("__pycache__", "*.pyc", "*.png")
    for name in ("bgai", "checkpoints"):
        shutil.copytree(ROOT / name, source / name, ignore=ignore)
    for name in ("pyproject.toml", "setup.py", "README.md", "LICENSE"):
        shutil.copy(ROOT / name, source / name)
    build = subprocess.run(
        [
            sys.executable,
            "-m",
            "pip",
            "wheel",
            "--no-deps",
            "--no-build-isolation",
            "--quiet",
            "-w",
            str(tmp_path / "dist"),
            str(source),
        ],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert build.returncode == 0, build.stderr[-2000:]
    wheel = next((tmp_path / "dist").glob("bgai-*.whl"))
    names = set(zipfile.ZipFile(wheel).namelist())
    for shipped in (
        "best.pt",
        "best_pruner.pt",
        "opponents/expert/bgai.json",
        "opponents/worldclass/model.safetensors",
    ):
        assert f"bgai/checkpoints/{shipped}" in names, shipped

    site = tmp_path / "site"
    install = subprocess.run(
        [
            sys.executable,
            "-m",
            "pip",
            "install",
            "--no-deps",
            "--no-index",
            "--quiet",
            "--target",
            str(site),
            str(wheel),
        ],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert install.returncode == 0, install.stderr[-2000:]
    elsewhere = tmp_path / "elsewhere"  # not the source tree, which would shadow the installed package
    elsewhere.mkdir()
    env = {**os.environ, "PYTHONPATH": str(site), "OMP_NUM_THREADS": "1"}
    run = subprocess.run(
        [sys.executable, "-c", CHECK, str(site)],
        cwd=elsewhere,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert run.returncode == 0, run.stderr[-2000:]
    assert "/" in run.stdout  # a move in gnubg notation
