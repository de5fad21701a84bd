"""Grading: gnubg's rating scale, judges, error rates of the ladder's levels, bgai grade."""

from __future__ import annotations

import json
import math
from itertools import pairwise

import pytest
import torch

from bgai.bots import PubevalPlayer, SearchPlayer
from bgai.cli.main import main
from bgai.engine.sampling import sample_positions
from bgai.model.checkpoint import FORMAT as CHECKPOINT_FORMAT
from bgai.model.checkpoint import save_atomic
from bgai.model.net import ValueNet
from bgai.opponent import LEVELS, Opponent, export_opponent
from bgai.opponent.grade import (
    MIN_DECISIONS_TO_WRITE,
    RATING_SCALE,
    Decisions,
    PairedStep,
    SearchJudge,
    common_positions,
    grade,
    judge_decisions,
    paired_grade,
    rating_class,
    unforced,
    write_strength,
)
from bgai.search import PubevalEvaluator
from bgai.specs import load_judge

PUBEVAL_JUDGE = SearchJudge(PubevalEvaluator(), 0)
"""A fixed, fast judge: pubeval's ranking of the moves at 0-ply."""


@pytest.fixture(scope="module")
def tiny_opponent(tmp_path_factory):
    torch.manual_seed(1)
    net = ValueNet(hidden=(8,))
    root = tmp_path_factory.mktemp("grade")
    save_atomic(
        {"format": CHECKPOINT_FORMAT, "net_spec": net.spec(), "model": net.state_dict()}, root / "t.pt"
    )
    return export_opponent(root / "t.pt", "beginner", root / "beginner"), root / "t.pt"


@pytest.fixture(scope="module")
def decisions():
    """200 positions (182 different) from 16 greedy games, with their rolls; the moves are filled
    in by each test."""
    return sample_positions(200, "greedy", seed=2, games=16)


@pytest.mark.parametrize(
    "error_rate, name",
    [
        (0.0, "Supernatural"),
        (1.99, "Supernatural"),
        (2.0, "World class"),
        (4.99, "World class"),
        (5.0, "Expert"),
        (7.99, "Expert"),
        (8.0, "Advanced"),
        (12.0, "Intermediate"),
        (17.99, "Intermediate"),
        (18.0, "Casual"),
        (26.0, "Beginner"),
        (34.99, "Beginner"),
        (35.0, "Awful!"),
        (500.0, "Awful!"),
    ],
)
def test_rating_scale_is_gnubgs(error_rate, name):
    assert rating_class(error_rate) == name


def test_rating_scale_bounds_and_bad_input():
    assert [bound for _, bound in RATING_SCALE][:-1] == [2, 5, 8, 12, 18, 26, 35]
    with pytest.raises(ValueError):
        rating_class(-1.0)
    with pytest.raises(ValueError):
        rating_class(math.nan)


def test_noisier_levels_lose_more_equity_on_the_same_decisions(decisions):
    """Each 0-ply level of the ladder plays pubeval's evaluation with its own noise; the judge
    is pubeval's noiseless evaluation, so the noiseless level loses nothing and more noise
    loses more (the noise is deterministic: this ordering is a fixed fact, not luck)."""
    boards, dice = decisions
    rates = {}
    for name in ("strong", "expert", "advanced", "intermediate", "casual", "beginner"):
        player = SearchPlayer(PubevalEvaluator(), 0, noise=LEVELS[name].noise)
        made = Decisions(boards, dice, player.choose(boards, dice))
        rates[name], _ = judge_decisions(PUBEVAL_JUDGE, made.subset(unforced(made).nonzero().squeeze(1)))
    assert rates["strong"] == 0.0
    noisy = ("expert", "advanced", "intermediate", "casual", "beginner")
    assert 0 < rates["expert"] and all(rates[a] < rates[b] for a, b in pairwise(noisy))


def test_a_judge_never_credits_a_move_above_its_own_best(decisions):
    boards, dice = decisions[0][:40], decisions[1][:40]
    made = Decisions(boards, dice, PubevalPlayer().choose(boards, dice))
    lost = SearchJudge(PubevalEvaluator(), 1).equity_lost(made)
    assert lost.shape == (40,) and (lost >= 0).all()


def test_grading_a_tiny_opponent_runs_and_classifies(tiny_opponent):
    folder, _ = tiny_opponent
    opponent = Opponent.load(folder)
    result = grade(
        opponent.player, games=2, seed=3, judge=PUBEVAL_JUDGE, decisions=12, opponents=[PubevalPlayer()]
    )
    assert result.decisions == 12 and result.unforced >= 12
    assert result.rating in [name for name, _ in RATING_SCALE]
    assert result.pr == pytest.approx(result.error_rate / 2)
    assert [m.opponent for m in result.matches] == ["pubeval"] and math.isfinite(result.matches[0].ppg)
    again = grade(
        opponent.player, games=2, seed=3, judge=PUBEVAL_JUDGE, decisions=12, opponents=[PubevalPlayer()]
    )
    assert again.error_rate == result.error_rate  # seeded dice and sample
    assert len(result.judged) == 12 and torch.equal(result.judged.chosen, again.judged.chosen)
    assert result.error_rate == pytest.approx(judge_decisions(PUBEVAL_JUDGE, result.judged)[0])
    write_strength(folder, result)
    strength = Opponent.load(folder).strength
    assert strength["rating"] == result.rating and "judged" not in strength


def test_grade_command_writes_the_strength(tiny_opponent, capsys):
    folder, checkpoint = tiny_opponent
    argv = ["grade", str(folder), "--games", "12", "--decisions", "200", "--judge", f"{checkpoint}@0ply"]
    assert main([*argv, "--write", "--json"]) == 0
    printed = json.loads(capsys.readouterr().out)
    strength = json.loads((folder / "bgai.json").read_text())["strength"]
    assert strength["error_rate"] == printed["error_rate"] and strength["decisions"] == 200
    assert strength["judge"] == f"{checkpoint}@0ply"
    assert "pubeval" in [m["opponent"] for m in strength["matches"]]


def test_grade_command_refuses_to_write_a_grade_from_too_few_decisions(tiny_opponent, capsys):
    folder, checkpoint = tiny_opponent
    before = json.loads((folder / "bgai.json").read_text())["strength"]
    argv = ["grade", str(folder), "--games", "2", "--decisions", "20", "--judge", f"{checkpoint}@0ply"]
    assert main([*argv, "--write"]) == 2
    assert f"at least {MIN_DECISIONS_TO_WRITE} decisions" in capsys.readouterr().err
    assert json.loads((folder / "bgai.json").read_text())["strength"] == before


def test_without_gnubg_grade_says_who_judged_and_refuses_a_self_judged_grade(
    tiny_opponent, capsys, monkeypatch
):
    import bgai.opponent.grade as grading

    folder, _ = tiny_opponent
    monkeypatch.setattr(grading, "gnubg_available", lambda: False)
    monkeypatch.setattr(grading, "reference_opponents", lambda: [PubevalPlayer()])

    def no_best(name, **_):
        raise ValueError(f"no shipped network {name!r}")

    monkeypatch.setattr(grading, "network_evaluator", no_best)  # nothing stronger: the net judges itself
    argv = ["grade", str(folder), "--games", "2", "--decisions", "5"]
    assert main(argv) == 0
    captured = capsys.readouterr()
    assert "judged by its own network" in captured.err and "not gnubg" in captured.err
    assert "(its own net)" in captured.out
    assert main([*argv, "--decisions", str(MIN_DECISIONS_TO_WRITE), "--games", "12", "--write"]) == 2
    assert "its own network" in capsys.readouterr().err


def test_grade_command_needs_a_folder_to_write(capsys):
    assert main(["grade", "pubeval", "--write"]) == 2
    assert "needs an exported opponent" in capsys.readouterr().err


def test_judges_by_name(tiny_opponent):
    _, checkpoint = tiny_opponent
    assert load_judge(f"{checkpoint}@1ply").plies == 1
    with pytest.raises(ValueError, match="must evaluate positions"):
        load_judge("pubeval")
    with pytest.raises(ValueError, match="bad judge"):
        load_judge("gnubg@xply")


@pytest.mark.gnubg
def test_gnubg_judge_agrees_with_gnubg_on_its_own_moves(decisions):
    from bgai.bots import GnubgPlayer

    judge = load_judge("gnubg@0ply")
    assert judge.name == "gnubg@0ply"
    boards, dice = decisions[0][:30], decisions[1][:30]
    own = Decisions(boards, dice, GnubgPlayer(0).choose(boards, dice))
    assert (judge.equity_lost(own) < 1e-6).all()
    worse = Decisions(boards, dice, PubevalPlayer().choose(boards, dice))
    lost = judge.equity_lost(worse)
    assert (lost >= 0).all() and lost.sum() > 0


# --- the ladder on the same positions -----------------------------------------------------------


def _made(decisions, player=None):
    boards, dice = decisions
    return Decisions(boards, dice, (player or PubevalPlayer()).choose(boards, dice))


def test_common_positions_are_drawn_evenly_and_seeded(decisions):
    boards, dice = decisions
    a = _made((boards[:100], dice[:100]))
    b = _made((boards[100:130], dice[100:130]))
    picked = common_positions([a, b], 41, seed=4)
    assert len(picked) == 41
    from_a = [any(torch.equal(x, y) for y in a.boards) for x in picked.boards]
    assert sum(from_a) >= 21  # 21 from a, 20 from b (a board may turn up in both)
    assert torch.equal(common_positions([a, b], 41, seed=4).boards, picked.boards)
    assert not torch.equal(common_positions([a, b], 41, seed=5).boards, picked.boards)
    assert len(common_positions([a, b], 500)) == 130  # never more than the samples hold
    with pytest.raises(ValueError):
        common_positions([], 10)


def test_paired_grade_orders_noise_levels_on_the_same_positions(decisions):
    """Pubeval at 0-ply with the ladder's noise, judged by noiseless pubeval: the noiseless player
    loses nothing, and on these 200 positions each noise step is measurably worse."""
    made = _made(decisions)
    positions = made.subset(unforced(made).nonzero().squeeze(1))
    names = ("beginner", "intermediate", "strong")
    players = [SearchPlayer(PubevalEvaluator(), 0, noise=LEVELS[n].noise, name=n) for n in names]
    result = paired_grade(players, positions, PUBEVAL_JUDGE, seed=7, chunk=50)
    assert result.players == list(names) and result.positions == len(positions)
    assert result.error_rates[-1] == 0.0 and result.error_rate_ci95[-1] == 0.0
    assert result.error_rates[0] > result.error_rates[1] > 0
    steps = result.steps
    assert [(s.weaker, s.stronger) for s in steps] == [
        ("beginner", "intermediate"),
        ("intermediate", "strong"),
    ]
    assert steps[1].difference == pytest.approx(result.error_rates[1])  # the net alone loses nothing
    assert steps[0].difference == pytest.approx(result.error_rates[0] - result.error_rates[1])
    assert all(0 < s.differ < 1 for s in steps)
    assert result.monotone and all(s.separated for s in steps)
    assert result.to_dict()["monotone"] is True and result.to_dict()["steps"][0]["separated"] is True
    again = paired_grade(players, positions, PUBEVAL_JUDGE, seed=7, chunk=200)
    assert again.error_rates == result.error_rates  # deterministic noise, batching does not matter


def test_a_player_is_not_measurably_stronger_than_itself(decisions):
    made = _made(decisions)
    player = SearchPlayer(PubevalEvaluator(), 0, noise=0.05)
    result = paired_grade([player, player], made, PUBEVAL_JUDGE)
    step = result.steps[0]
    assert (step.difference, step.ci95, step.differ) == (0.0, 0.0, 0.0)
    assert not step.separated and not result.monotone
    with pytest.raises(ValueError, match="two players"):
        paired_grade([player], made, PUBEVAL_JUDGE)


def test_a_step_is_separated_only_when_its_interval_is_above_zero():
    assert PairedStep("a", "b", 1.0, 0.9, 0.1).separated
    assert not PairedStep("a", "b", 1.0, 1.0, 0.1).separated
    assert not PairedStep("a", "b", -2.0, 0.5, 0.1).separated  # b measurably weaker


@pytest.mark.gnubg
def test_gnubg_judge_remembers_positions_and_judges_the_same(decisions):
    judge = load_judge("gnubg@0ply")
    made = _made((decisions[0][:40], decisions[1][:40]))
    lost = judge.equity_lost(made)
    known = len(judge._best)
    assert 0 < known <= 40
    other = _made((decisions[0][:40], decisions[1][:40]), SearchPlayer(PubevalEvaluator(), 0, noise=0.1))
    judge.equity_lost(other)
    assert len(judge._best) == known  # the same positions: no new best-move search
    fresh = load_judge("gnubg@0ply")
    assert (fresh.equity_lost(made.subset(torch.arange(39, -1, -1))) == lost[::-1]).all()
