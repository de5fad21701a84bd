"""Training keeps a user's work: config mistakes are one-line errors before any work, run folders are
unique and locked while written, SIGTERM and Ctrl-C save (and say so), a lost latest.pt is not the
end of a run, overrides given with --resume are kept, and TensorBoard shows no point twice."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from bgai.cli.main import main
from bgai.model.checkpoint import load_checkpoint
from bgai.train.loop import train

TINY = {
    "games": 120,
    "parallel_games": 16,
    "hidden": "[8]",
    "eval_every": 0,
    "checkpoint_every": 60,
    "lr": 0.01,
    "lr_final": 0.01,
    "batch_positions": 32,
    "threads": 1,
}
ROOT = Path(__file__).resolve().parents[1]


def quiet(*args) -> None:
    pass


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["checkpoint_every=0"], "checkpoint_every must be a positive number of games"),
        (["threads=-1"], "threads must be 0"),
        (["parallel_games=1000000000"], "parallel_games must lie in 1..65536"),
        (["name=../../x"], "name must be a folder name"),
        (["name=/tmp/x"], "name must be a folder name"),
        (["hidden=[10000000]"], "hidden sizes must lie in"),
        (["eval_games=0"], "eval_games must be positive"),
        (["lr=" + "9" * 100_000 + "x"], "(100001 characters)"),
    ],
)
def test_bad_values_are_one_line_errors_before_any_work(tmp_path, args, message, capsys):
    assert main(["train", *args, f"runs_dir={tmp_path}"]) == 2
    err = capsys.readouterr().err.strip()
    assert err.count("\n") == 0 and message in err and len(err) < 400, err[:400]
    assert not any(tmp_path.iterdir())  # no run folder made


def test_a_toml_true_is_not_a_number(tmp_path, capsys):
    config = tmp_path / "c.toml"
    config.write_text("games = true\n")
    assert main(["train", str(config), f"runs_dir={tmp_path / 'runs'}"]) == 2
    assert "config key 'games' must be int, got True" in capsys.readouterr().err


def test_runs_started_in_the_same_second_get_their_own_folders(tmp_path, monkeypatch):
    monkeypatch.setattr(time, "time", lambda: 1_700_000_000.0)
    base = {**TINY, "games": 16, "runs_dir": str(tmp_path)}
    first = train(None, {**base, "lr": 0.01}, log=quiet)
    second = train(None, {**base, "lr": 0.02}, log=quiet)
    assert first != second and first.parent == second.parent == tmp_path
    assert "lr = 0.01" in (first / "config.toml").read_text()
    assert "lr = 0.02" in (second / "config.toml").read_text()
    assert load_checkpoint(first / "latest.pt")["config"]["lr"] == 0.01
    assert not (first / "lock").exists() and not (second / "lock").exists()  # released at the end


def test_a_live_run_is_not_resumed_twice_and_a_stale_lock_is_taken_over(tmp_path, capsys):
    run = train(None, {**TINY, "games": 16, "runs_dir": str(tmp_path)}, log=quiet)
    (run / "lock").write_text(f"{os.getppid()} {os.uname().nodename}\n")  # a live process holds it
    assert main(["train", "--resume", str(run), "games=32"]) == 2
    err = capsys.readouterr().err
    assert f"in use by process {os.getppid()}" in err and err.count("\n") == 1
    assert load_checkpoint(run / "latest.pt")["progress"]["games"] < 32  # nothing written
    gone = subprocess.Popen([sys.executable, "-c", "pass"])
    gone.wait()
    (run / "lock").write_text(f"{gone.pid} {os.uname().nodename}\n")  # its process died
    train(None, {"games": 32}, resume=str(run), log=quiet)
    assert load_checkpoint(run / "latest.pt")["progress"]["games"] >= 32


@pytest.mark.parametrize(("signum", "code"), [(signal.SIGTERM, 143), (signal.SIGINT, 130)])
def test_a_signal_saves_says_so_exits_nonzero_and_the_run_resumes(tmp_path, signum, code):
    overrides = {**TINY, "games": 10**7, "checkpoint_every": 16, "runs_dir": str(tmp_path)}
    cmd = [sys.executable, "-m", "bgai", "train", *[f"{k}={v}" for k, v in overrides.items()]]
    env = {**os.environ, "OMP_NUM_THREADS": "1", "PYTHONPATH": str(ROOT)}
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env, cwd=ROOT)
    try:
        assert proc.stdout.readline().startswith("run folder:")  # training has begun
        deadline = time.monotonic() + 60
        while not list(tmp_path.glob("*/ckpt_*.pt")) and time.monotonic() < deadline:
            time.sleep(0.05)  # until the first games are over
        proc.send_signal(signum)
        out, err = proc.communicate(timeout=60)
    finally:
        proc.kill()
    assert proc.returncode == code, err[-2000:]
    assert "stopped at" in out and "continue with: bgai train --resume" in out and "done" not in out
    assert "Traceback" not in err
    run = next(tmp_path.iterdir())
    saved = load_checkpoint(run / "latest.pt")["progress"]["games"]
    assert saved > 0 and (run / f"ckpt_{saved}.pt").is_file()
    assert not (run / "lock").exists() and not list(run.glob(".*.tmp"))
    train(None, {"games": saved + 32}, resume=str(run), log=quiet)
    assert load_checkpoint(run / "latest.pt")["progress"]["games"] >= saved + 32


def test_a_lost_latest_resumes_from_the_newest_numbered_checkpoint(tmp_path):
    run = train(None, {**TINY, "runs_dir": str(tmp_path)}, log=quiet)
    numbered = sorted(run.glob("ckpt_*.pt"), key=lambda p: int(p.stem[5:]))
    assert len(numbered) == 2
    (run / "latest.pt").unlink()
    lines: list[str] = []
    train(None, {"games": 180}, resume=str(run), log=lambda *a: lines.append(" ".join(map(str, a))))
    assert any(f"missing: resuming from {numbered[-1].name}" in line for line in lines)
    progress = load_checkpoint(run / "latest.pt")["progress"]
    assert progress["games"] >= 180
    assert progress["updates"] > load_checkpoint(numbered[-1])["progress"]["updates"]


def test_a_run_with_no_checkpoint_at_all_is_a_one_line_error(tmp_path, capsys):
    run = train(None, {**TINY, "games": 16, "runs_dir": str(tmp_path)}, log=quiet)
    for ckpt in run.glob("*.pt"):
        ckpt.unlink()
    assert main(["train", "--resume", str(run)]) == 2
    assert "no latest.pt and no ckpt_<games>.pt" in capsys.readouterr().err


def test_overrides_given_with_resume_are_saved_with_the_run(tmp_path):
    run = train(None, {**TINY, "games": 60, "runs_dir": str(tmp_path)}, log=quiet)
    lines: list[str] = []
    train(None, {"games": 90, "lr_final": 0.002}, resume=str(run), log=lambda *a: lines.append(str(a[0])))
    config = (run / "config.toml").read_text()
    assert "games = 90" in config and "lr_final = 0.002" in config
    assert any("with games=90 lr_final=0.002" in line for line in lines)
    assert load_checkpoint(run / "latest.pt")["config"]["lr_final"] == 0.002


def test_a_resume_removes_temporary_files_and_tensorboard_purges_later_points(tmp_path):
    from tensorboard.backend.event_processing.event_file_loader import EventFileLoader

    run = train(None, {**TINY, "games": 60, "runs_dir": str(tmp_path)}, log=quiet)
    (run / ".latest.pt.abc123.tmp").write_bytes(b"")  # left by a process killed while saving
    resumed_at = load_checkpoint(run / "latest.pt")["progress"]["games"]
    time.sleep(1.1)  # event files are named by the second
    train(None, {"games": 90}, resume=str(run), log=quiet)
    assert not list(run.glob(".*.tmp"))
    newest = max(run.glob("events.out.tfevents.*"), key=lambda p: (p.stat().st_mtime, p.name))
    starts = [
        e.step
        for e in EventFileLoader(str(newest)).Load()
        if e.HasField("session_log") and e.session_log.status == e.session_log.START
    ]
    assert starts == [resumed_at]  # TensorBoard drops the earlier file's points from that step on


def test_the_end_of_a_run_says_what_to_do_next(tmp_path, capsys):
    overrides = [f"{k}={v}" for k, v in {**TINY, "games": 16, "runs_dir": tmp_path}.items()]
    assert main(["train", *overrides]) == 0
    out = capsys.readouterr().out
    ckpt = next(tmp_path.iterdir()) / "latest.pt"
    for command in (
        f"bgai bench {ckpt} pubeval",
        f"bgai play --opponent {ckpt}",
        f"bgai export {ckpt} --level",
    ):
        assert command in out


def test_ctrl_c_on_several_processes_saves_them_all_at_one_turn_without_a_traceback(tmp_path):
    """``bgai train --processes 2`` (torchrun's launcher, gloo): a Ctrl-C reaches every process of
    the terminal's group; all stop at the same turn, save, and the launcher prints no traceback."""
    overrides = {**TINY, "games": 10**7, "checkpoint_every": 16, "runs_dir": str(tmp_path)}
    cmd = [
        sys.executable,
        "-m",
        "bgai",
        "train",
        "--processes",
        "2",
        *[f"{k}={v}" for k, v in overrides.items()],
    ]
    env = {**os.environ, "BGAI_BACKEND": "gloo", "OMP_NUM_THREADS": "1", "PYTHONPATH": str(ROOT)}
    proc = subprocess.Popen(
        cmd,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=env,
        cwd=ROOT,
        start_new_session=True,
    )
    try:
        deadline = time.monotonic() + 120
        while not list(tmp_path.glob("*/ckpt_*.pt")) and time.monotonic() < deadline:
            time.sleep(0.05)
        os.killpg(proc.pid, signal.SIGINT)  # what a terminal's Ctrl-C does
        out, err = proc.communicate(timeout=120)
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
    assert proc.returncode == 130, err[-2000:]
    assert "Traceback" not in err and "stopped at" in out, err[-2000:]
    run = next(tmp_path.iterdir())
    zero, one = load_checkpoint(run / "latest.pt"), load_checkpoint(run / "latest.rank1.pt")
    for key in zero["model"]:  # the same number of updates on both: they stopped at the same turn
        assert zero["model"][key].equal(one["model"][key]), key
