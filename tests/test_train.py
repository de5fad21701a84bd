"""Training: TD(lambda) returns and updates, resume, the CLI run, two-process data parallelism."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
import torch

from bgai.cli.main import main
from bgai.model.checkpoint import load_checkpoint, load_net
from bgai.model.probs import invert
from bgai.train.config import load_config
from bgai.train.loop import train
from bgai.train.td import lambda_returns
from tests.positions import random_boards

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


def hand_returns(values: torch.Tensor, length: int, lam: float) -> list[torch.Tensor]:
    """The backward recursion written out, one turn at a time."""
    out, later = [], None
    for t in range(length - 1, -1, -1):
        g = values[t] if t == length - 1 else (1 - lam) * values[t] + lam * invert(later)
        out.insert(0, g)
        later = g
    return out


@pytest.mark.parametrize("lam", [0.0, 0.7, 1.0])
def test_lambda_returns_match_the_backward_recursion(lam):
    torch.manual_seed(1)
    values = torch.rand(3, 9, 5)
    lengths = torch.tensor([9, 4, 1])
    returns = lambda_returns(values, lengths, lam)
    for game, length in enumerate(lengths.tolist()):
        for t, expected in enumerate(hand_returns(values[game], length, lam)):
            assert torch.allclose(returns[game, t], expected, atol=1e-6)
        assert returns[game, length:].abs().sum() == 0  # padding stays empty


def test_lambda_one_gives_the_game_result_from_each_movers_view():
    values = torch.rand(1, 4, 5)
    values[0, 3] = torch.tensor([1.0, 1.0, 0.0, 0.0, 0.0])  # last mover won a gammon
    returns = lambda_returns(values, torch.tensor([4]), 1.0)[0]
    assert torch.allclose(returns[3], values[0, 3])
    assert torch.allclose(returns[2], invert(values[0, 3]))  # the loser's view
    assert torch.allclose(returns[1], values[0, 3])


def test_td_update_equals_a_hand_computed_gradient_step(tmp_path):
    """One minibatch SGD step on squared error toward lambda-returns, recomputed by hand."""
    from bgai.train.loop import Progress, make_net, td_update

    cfg = load_config(
        None, {"optimizer": "sgd", "lr": 0.5, "lr_final": 0.5, "hidden": "[4]", "batch_positions": 3}
    )
    torch.manual_seed(0)
    net = make_net(cfg)
    before = {k: v.clone() for k, v in net.state_dict().items()}
    boards = torch.zeros((3, 2, 25), dtype=torch.int8)
    boards[:, 1, 5] = 15
    boards[:, 0, 5] = torch.tensor([15, 10, 5], dtype=torch.int8)
    targets = torch.rand(3, 5)
    optimizer = torch.optim.SGD(net.parameters(), lr=0.5)
    td_update(cfg, net, optimizer, boards, targets, Progress(), 1)

    manual = make_net(cfg)
    manual.load_state_dict(before)
    loss = ((manual(boards) - targets) ** 2).sum() / 3
    grads = torch.autograd.grad(loss, list(manual.parameters()))
    for (name, p), g in zip(manual.named_parameters(), grads, strict=True):
        assert torch.allclose(net.state_dict()[name], p.detach() - 0.5 * g, atol=1e-6), name


@pytest.mark.parametrize("average_every", [0, 3])
def test_resume_continues_exactly(tmp_path, average_every):
    """A run stopped at a checkpoint and resumed ends with the same weights as one never stopped."""
    base = {**TINY, "runs_dir": str(tmp_path), "average_every": average_every}
    straight = train(None, {**base, "name": "straight"}, log=lambda *a: None)
    first = train(None, {**base, "name": "stopped", "games": 60}, log=lambda *a: None)
    resumed = train(None, {"games": 120}, resume=str(first), log=lambda *a: None)
    a = load_checkpoint(straight / "latest.pt")
    b = load_checkpoint(resumed / "latest.pt")
    assert a["progress"]["games"] == b["progress"]["games"]
    for key in a["model"]:
        assert torch.equal(a["model"][key], b["model"][key]), key


def test_same_seed_same_run_other_seed_other_run(tmp_path):
    base = {**TINY, "runs_dir": str(tmp_path), "games": 40}
    a = load_checkpoint(train(None, {**base, "name": "a"}, log=lambda *a: None) / "latest.pt")
    b = load_checkpoint(train(None, {**base, "name": "b"}, log=lambda *a: None) / "latest.pt")
    c = load_checkpoint(train(None, {**base, "name": "c", "seed": 1}, log=lambda *a: None) / "latest.pt")
    assert all(torch.equal(a["model"][k], b["model"][k]) for k in a["model"])
    assert not all(torch.equal(a["model"][k], c["model"][k]) for k in a["model"])


def test_a_run_can_start_from_a_smaller_trained_net(tmp_path):
    """``init``: the bigger net starts out playing exactly as the checkpoint did, then trains."""
    small = train(
        None,
        {**TINY, "games": 40, "runs_dir": str(tmp_path), "name": "small", "encoding": "rich"},
        log=lambda *a: None,
    )
    start = {
        **TINY,
        "runs_dir": str(tmp_path),
        "name": "big",
        "encoding": "rich_plus",
        "hidden": "[12]",
        "init": str(small / "latest.pt"),
    }
    at_zero = train(None, {**start, "games": 1, "batch_positions": 10**6}, log=lambda *a: None)  # no step
    boards = random_boards(2, 100, opponent_bar=True).to(torch.int8)
    with torch.no_grad():
        before, grown = load_net(small / "latest.pt")(boards), load_net(at_zero / "latest.pt")
        torch.testing.assert_close(grown(boards), before)
    trained = load_net(train(None, {**start, "name": "big2"}, log=lambda *a: None) / "latest.pt")
    with torch.no_grad():
        assert not torch.allclose(trained(boards), before)
    assert trained.spec()["encoding"] == "rich_plus" and trained.spec()["hidden"] == [12]


def test_bgai_train_end_to_end(tmp_path, capsys):
    overrides = [
        f"{k}={v}" for k, v in {**TINY, "runs_dir": tmp_path, "eval_every": 60, "eval_games": 20}.items()
    ]
    assert main(["train", "configs/quick.toml", *overrides]) == 0
    out = capsys.readouterr().out
    run = next(tmp_path.iterdir())
    assert str(run) in out and "tensorboard --logdir" in out
    assert (run / "config.toml").read_text().count("games = 120") == 1
    ckpt = load_checkpoint(run / "latest.pt")
    assert ckpt["progress"]["games"] >= 120
    assert len(ckpt["progress"]["curve"]) == 2  # ppg vs pubeval at 60 and 120 games
    assert any(p.name.startswith("events.out.tfevents") for p in run.iterdir())
    assert sorted(p.name for p in run.glob("ckpt_*.pt"))


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["games=-1"], "games must be positive"),
        (["colour=blue"], "unknown config key 'colour'"),
        (["lr=fast"], "config key 'lr' must be float"),
        (["encoding=pixels"], "encoding must be one of"),
        (["--resume", "/nonexistent/run"], "no config.toml"),
        (["configs/quick.toml", "init=/nonexistent.pt"], "checkpoint not found"),
        (["configs/quick.toml", "init=best"], "units missing"),
    ],
)
def test_bad_config_gives_one_line_error(args, message, capsys):
    assert main(["train", *args]) == 2
    err = capsys.readouterr().err.strip()
    assert err.count("\n") == 0 and message in err


def test_corrupt_or_mismatched_checkpoint_gives_one_line_error(tmp_path, capsys):
    run = train(None, {**TINY, "games": 20, "runs_dir": str(tmp_path)}, log=lambda *a: None)
    (run / "latest.pt").write_bytes(b"not a checkpoint")
    assert main(["train", "--resume", str(run)]) == 2
    assert "corrupt" in capsys.readouterr().err
    other = train(None, {**TINY, "games": 20, "runs_dir": str(tmp_path / "o")}, log=lambda *a: None)
    (other / "config.toml").write_text((other / "config.toml").read_text().replace("[8]", "[9]"))
    assert main(["train", "--resume", str(other)]) == 2
    assert "architecture" in capsys.readouterr().err or "mismatch" in capsys.readouterr().err


@pytest.mark.parametrize("average_every", [0, 3])
def test_two_processes_train_in_step(tmp_path, average_every):
    """torchrun-style launch, gloo on the CPU: both processes end with identical weights, whether
    gradients are all-reduced every step or each process steps alone and the weights are averaged."""
    overrides = {**TINY, "games": 60, "average_every": average_every}
    cmd = [
        sys.executable,
        "-m",
        "torch.distributed.run",
        "--standalone",
        "--nproc_per_node",
        "2",
        "-m",
        "bgai",
        "train",
        *[f"{k}={v}" for k, v in overrides.items()],
        f"runs_dir={tmp_path}",
    ]
    env = {**os.environ, "BGAI_BACKEND": "gloo", "OMP_NUM_THREADS": "1"}
    done = subprocess.run(cmd, capture_output=True, text=True, env=env, timeout=300)
    assert done.returncode == 0, done.stderr[-2000:]
    run = next(Path(tmp_path).iterdir())
    zero = load_checkpoint(run / "latest.pt")
    one = load_checkpoint(run / "latest.rank1.pt")
    assert zero["progress"]["games"] >= 60
    assert zero["progress"]["updates"] > 0
    for key in zero["model"]:
        assert torch.equal(zero["model"][key], one["model"][key]), key
    assert not torch.equal(zero["selfplay"]["boards"], one["selfplay"]["boards"])  # own games each


@pytest.mark.parametrize("path", sorted((Path(__file__).parent.parent / "configs").glob("*.toml")), ids=str)
def test_every_shipped_config_loads_and_validates(path):
    """A config a README or doc line tells users to run must at least parse and validate."""
    cfg = load_config(path)  # validates: a bad key or value is a ValueError
    assert cfg.games > 0 and cfg.name
