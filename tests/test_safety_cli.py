"""The CLI loses no results and never hangs on bad input: output paths are checked before the
games, a closed pipe still saves, --parallel 0 is refused at once, a missing optional package
names its extra, and a huge input is quoted by a short prefix."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from bgai.cli.main import MESSAGE_LIMIT, main
from bgai.formats import load_mat, read_position
from bgai.formats.quote import LIMIT, quote

ROOT = Path(__file__).resolve().parents[1]
ENV = {**os.environ, "OMP_NUM_THREADS": "1", "PYTHONPATH": str(ROOT)}


def bgai(*args: str, timeout: float = 120, **kwargs) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "bgai", *args],
        capture_output=True,
        text=True,
        env=ENV,
        cwd=ROOT,
        timeout=timeout,
        **kwargs,
    )


@pytest.mark.parametrize("parallel", ["0", "-1"])
def test_bench_refuses_a_parallel_of_zero_at_once(parallel):
    done = bgai("bench", "random", "random", "--games", "2", "--parallel", parallel, timeout=60)
    assert done.returncode == 2 and "--parallel must lie in 1..65536" in done.stderr


@pytest.mark.parametrize("args", [["--threads", "-3"], ["--parallel", "1000000000"]])
def test_bench_refuses_impossible_counts_in_one_line(args, capsys):
    assert main(["bench", "random", "random", "--games", "2", *args]) == 2
    out, err = capsys.readouterr()
    assert out == "" and err.count("\n") == 1 and err.startswith("bgai: error: --")


def test_bench_checks_where_it_saves_before_playing(tmp_path, capsys):
    assert main(["bench", "random", "random", "--games", "2", "--save-games", str(tmp_path)]) == 2
    out, err = capsys.readouterr()
    assert out == "" and f"{tmp_path} is a folder" in err  # no games were played
    blocker = tmp_path / "file"
    blocker.write_text("")
    assert main(["bench", "random", "random", "--games", "2", "--save-games", str(blocker / "x.mat")]) == 2
    out, err = capsys.readouterr()
    assert out == "" and "is a file, not a folder" in err


def test_bench_saves_its_games_though_the_reader_went_away(tmp_path):
    target = tmp_path / "games.mat"
    proc = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "bgai",
            "bench",
            "random",
            "random",
            "--games",
            "4",
            "--save-games",
            str(target),
        ],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env=ENV,
        cwd=ROOT,
    )
    proc.stdout.close()  # bgai bench ... | head -0
    proc.wait(timeout=120)
    assert len(load_mat(target).games) == 4


def test_play_checks_where_it_saves_before_playing(tmp_path, capsys, monkeypatch):
    monkeypatch.setattr(sys, "stdin", open(os.devnull))  # noqa: SIM115 - would play on if the check failed
    assert main(["play", "--opponent", "random", "--save", str(tmp_path)]) == 2
    out, err = capsys.readouterr()
    assert "against" not in out and f"{tmp_path} is a folder" in err
    (tmp_path / "file").write_text("")
    assert main(["play", "--opponent", "random", "--save", str(tmp_path / "file" / "x.mat")]) == 2
    assert "is a file, not a folder" in capsys.readouterr().err


def test_play_saves_the_session_though_the_reader_went_away(tmp_path):
    """``bgai play ... | head -2``: the terminal's reader closes early; the session is saved."""
    target = tmp_path / "session.mat"
    proc = subprocess.Popen(
        [sys.executable, "-m", "bgai", "play", "--opponent", "random", "--seed", "1", "--save", str(target)],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env=ENV,
        cwd=ROOT,
        text=True,
    )
    proc.stdout.readline(), proc.stdout.readline()
    proc.stdout.close()  # head -2 has what it wants
    _, err = proc.communicate("board\n" * 200 + "quit\n", timeout=120)
    assert proc.returncode == 0, err[-2000:]
    assert f"Saved to {target}" in err and "Traceback" not in err
    assert load_mat(target).players[0] == "random"


def test_a_missing_optional_package_names_its_extra():
    """Without the gnubg packages, a gnubg player is one line saying what to install."""
    block = "import sys; sys.modules['gnubg'] = sys.modules['gnubg_nn'] = None; "
    run = (
        "from bgai.cli.main import main; raise SystemExit(main(['bench', 'random', 'gnubg', '--games', '2']))"
    )
    done = subprocess.run(
        [sys.executable, "-c", block + run], capture_output=True, text=True, env=ENV, cwd=ROOT, timeout=120
    )
    assert done.returncode == 2, done.stderr[-2000:]
    assert done.stderr.count("\n") == 1 and "pip install 'bgai[gnubg]'" in done.stderr


def test_the_missing_package_rule_reads_the_extras_of_the_metadata():
    from bgai.cli.main import _extra_for

    assert _extra_for("gnubg_nn") == "gnubg" and _extra_for("onnxruntime") == "onnx"
    assert _extra_for("numpy") is None


def test_a_huge_input_is_quoted_by_a_short_prefix(capsys):
    huge = "4HPwATDgc/ABMA" * 5000
    assert quote("short") == "'short'" and quote(huge).endswith(f"... ({len(huge)} characters)")
    with pytest.raises(ValueError) as raised:
        read_position(huge)
    assert len(str(raised.value)) < 2 * LIMIT + 150
    for args in (
        ["show", huge],
        ["show", "XGID=" + "a" * 100_000],
        ["moves", "4HPwATDgc/ABMA", "3" * 100_000],
    ):
        assert main(args) == 2
        err = capsys.readouterr().err
        assert err.count("\n") == 1 and len(err) <= len("bgai: error: \n") + MESSAGE_LIMIT + 30, err[:500]


@pytest.mark.parametrize(
    "script, args, told",
    [
        ("measure/cube_quality.py", ["--player", "no_such_net.pt", "--plies", "0"], "checkpoint not found"),
        ("study/judge_set.py", ["report", "no_such_judge.npz", "--nets", "best"], "no_such_judge.npz"),
        ("measure/rollout_accuracy.py", ["--classes", "prime"], "unknown position class 'prime'"),
    ],
)
def test_a_script_given_bad_input_says_so_in_one_line(script, args, told):
    """The scripts of scripts/ end in run_script: a bad path, player or name is one line, exit 2."""
    done = subprocess.run(
        [sys.executable, str(ROOT / "scripts" / script), *args],
        capture_output=True,
        text=True,
        env=ENV,
        cwd=ROOT,
        timeout=120,
    )
    lines = done.stderr.strip().splitlines()
    assert done.returncode == 2 and lines[-1].startswith(f"{Path(script).name}: error: "), done.stderr[-2000:]
    assert told in lines[-1] and "Traceback" not in done.stderr
