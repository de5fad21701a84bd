"""scripts/measure/cube_quality.py: a tiny run, and its cache of gnubg's analyses (needs the gnubg extra)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
SCRIPT = ROOT / "scripts" / "measure" / "cube_quality.py"
pytestmark = pytest.mark.gnubg  # gnubg judges


def run(tmp_path: Path, name: str, *extra: str) -> dict:
    out = tmp_path / f"{name}.json"
    subprocess.run(
        [sys.executable, str(SCRIPT), "--player", "best", "--plies", "0",
         "--positions", "12", "--states", "money,5pt-3-1", "--judge-plies", "0", "--out", str(out),
         "--judge-cache", str(tmp_path / "cache.json"), *extra],
        check=True, capture_output=True, text=True, cwd=ROOT,
    )  # fmt: skip
    return json.loads(out.read_text())


def test_a_second_run_takes_gnubgs_analyses_from_the_cache(tmp_path):
    first = run(tmp_path, "first")
    cache = json.loads((tmp_path / "cache.json").read_text())
    assert len(cache) == 24 and all(key.endswith("|0") for key in cache)  # 12 positions x 2 states
    assert {r["state"] for r in first["rows"]} == {"money", "5pt-3-1"}
    # A tampered cache entry is what the second run judges with: proof that it read the cache.
    row = first["rows"][0]
    key = f"{row['position_id']}|{row['state']}|0"
    cache[key] = [row["gnubg"]["nd"] + 5.0, row["gnubg"]["dt"], row["gnubg"]["dp"], row["gnubg"]["decision"]]
    (tmp_path / "cache.json").write_text(json.dumps(cache))
    second = run(tmp_path, "second")
    assert second["rows"][0]["gnubg"]["nd"] == row["gnubg"]["nd"] + 5.0
    assert [r["gnubg"] for r in second["rows"][1:]] == [r["gnubg"] for r in first["rows"][1:]]
    assert first["gnubg_analyses"] == {"asked": 24, "cached": 0}
    assert second["gnubg_analyses"] == {"asked": 0, "cached": 24}


def test_an_unreadable_cache_is_replaced_not_a_crash(tmp_path):
    (tmp_path / "cache.json").write_text("{not json")
    run(tmp_path, "fresh")
    assert len(json.loads((tmp_path / "cache.json").read_text())) == 24
