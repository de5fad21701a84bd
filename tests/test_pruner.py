"""Pruning nets: a cheap pruner short-lists the search's inner replies, the evaluator picks among them."""

from __future__ import annotations

import math
import shutil

import pytest
import torch

from bgai.bots.players import SearchPlayer
from bgai.engine.board import swap_sides
from bgai.engine.movegen import expand
from bgai.engine.sampling import sample_positions
from bgai.model.checkpoint import FORMAT, save_atomic
from bgai.model.net import ValueNet
from bgai.model.probs import cubeless_equity, invert
from bgai.search import (
    ROLL_WEIGHTS,
    ROLLS,
    NetEvaluator,
    PrunedEvaluator,
    afterstate_values,
    afterstate_values_at,
    evaluate_position,
    pruner_of,
    score_candidates,
    shortlist_sizes,
)
from bgai.specs import load_player
from bgai.train.distill import afterstates_of, distill, distill_loss, ranking_agreement, selfplay_positions
from tests.positions import pos


@pytest.fixture(scope="module")
def full() -> NetEvaluator:
    torch.manual_seed(1234)
    return NetEvaluator(ValueNet("tesauro198", (16,)), name="full")


@pytest.fixture(scope="module")
def cheap() -> NetEvaluator:
    torch.manual_seed(99)
    return NetEvaluator(ValueNet("tesauro198", (4,)), name="cheap")


@pytest.fixture(scope="module")
def afterstates() -> torch.Tensor:
    boards, dice = sample_positions(40 * 13, "greedy", seed=7, games=40)
    children, _ = expand(boards[-3:], dice[-3:])  # twelve turns in: contact positions
    return children[::5][:3]


def pruned_reply_value_by_hand(full, pruner, afterstate: torch.Tensor, deeper: int = 0) -> torch.Tensor:
    """Value of one afterstate for its mover at ``deeper + 1`` ply, one opponent roll at a time:
    the pruner's best 5 + floor(log2(legal replies)) (gnubg's shortlist), the best of those by
    ``full`` at 0-ply, valued by ``full`` at ``deeper`` ply."""
    total = torch.zeros(5)
    for (d1, d2), weight in zip(ROLLS.tolist(), ROLL_WEIGHTS.tolist(), strict=True):
        replies, _ = expand(swap_sides(afterstate)[None], torch.tensor([[d1, d2]]))
        by_pruner = cubeless_equity(afterstate_values(pruner, replies))
        size = min(5 + int(math.log2(len(replies))), 16)
        shortlist = replies[torch.sort(by_pruner, descending=True, stable=True).indices[:size]]
        chosen = shortlist[cubeless_equity(afterstate_values(full, shortlist)).argmax()][None]
        if deeper == 0:
            value = afterstate_values(full, chosen)[0]
        else:
            value = afterstate_values_at(PrunedEvaluator(full, pruner), chosen, deeper)[0]
        total += weight * invert(value)
    return total


def test_pruned_one_ply_value_short_lists_replies_by_the_pruner_and_picks_by_the_evaluator(
    full, cheap, afterstates
):
    pruned = PrunedEvaluator(full, cheap)
    searched = afterstate_values_at(pruned, afterstates, 1)
    for k, afterstate in enumerate(afterstates):
        torch.testing.assert_close(searched[k], pruned_reply_value_by_hand(full, cheap, afterstate))
    # The pruner really changes the answer here (else this test could not tell them apart).
    assert not torch.allclose(searched, afterstate_values_at(full, afterstates, 1))


def test_the_shortlist_follows_gnubgs_rule():
    legal = torch.tensor([1, 2, 3, 4, 7, 8, 20, 1000, 1 << 20])
    assert shortlist_sizes(legal).tolist() == [5, 6, 6, 7, 7, 8, 9, 14, 16]


def test_a_shortlist_as_long_as_the_moves_changes_nothing(full, cheap):
    """A bear-off with at most 5 moves a roll: the pruner's shortlist holds them all."""
    board = pos("x 1:8 2:7; o 24:8 23:7")[None]
    counts = torch.bincount(expand(board.repeat_interleave(21, 0), ROLLS)[1], minlength=21)
    assert int(counts.max()) <= 5 and int((counts > 1).sum()) >= 5
    pruned = evaluate_position(PrunedEvaluator(full, cheap), board, 1)
    torch.testing.assert_close(pruned, evaluate_position(full, board, 1))


def test_pruned_two_ply_recurses_with_the_pruner_at_every_inner_node(full, cheap, afterstates):
    pruned = PrunedEvaluator(full, cheap)
    afterstate = afterstates[0]
    by_hand = pruned_reply_value_by_hand(full, cheap, afterstate, deeper=1)
    torch.testing.assert_close(afterstate_values_at(pruned, afterstate[None], 2)[0], by_hand)


def test_a_pruner_equal_to_the_evaluator_changes_nothing(full, afterstates):
    boards, dice = sample_positions(40 * 13, "greedy", seed=3, games=40)
    boards, dice = boards[-4:], dice[-4:]
    pruned = PrunedEvaluator(full, full)
    for plies in (1, 2):
        plain = score_candidates(full, boards, dice, plies)
        same = score_candidates(pruned, boards, dice, plies)
        assert torch.equal(plain.probs, same.probs) and torch.equal(plain.ply, same.ply)
    assert torch.equal(evaluate_position(pruned, boards, 1), evaluate_position(full, boards, 1))


def test_pruned_search_keeps_exact_outcomes(full, cheap):
    board = pos("x 1:1; o 24:2 13:13")  # one checker left: every roll bears it off
    pruned = PrunedEvaluator(full, cheap)
    for plies in (1, 2):
        c = score_candidates(pruned, board[None], torch.tensor([[6, 5]]), plies)
        assert torch.equal(c.probs[0], torch.tensor([1.0, 1.0, 0.0, 0.0, 0.0]))
        torch.testing.assert_close(
            evaluate_position(pruned, board[None], plies)[0], torch.tensor([1.0, 1.0, 0.0, 0.0, 0.0])
        )


def test_the_root_candidates_are_still_ranked_by_the_evaluator(full, cheap):
    boards, dice = sample_positions(40 * 13, "greedy", seed=5, games=40)
    boards, dice = boards[-3:], dice[-3:]
    plain = score_candidates(full, boards, dice, 0)
    pruned = score_candidates(PrunedEvaluator(full, cheap), boards, dice, 0)
    assert torch.equal(plain.probs, pruned.probs)


def test_distill_reduces_the_loss_on_a_tiny_set(full):
    boards, dice = selfplay_positions(full, 24, seed=1, games=8)
    data = afterstates_of(full, boards, dice)
    assert len(data) > 100 and int(data.group.max()) < 24
    torch.manual_seed(0)
    student = ValueNet("tesauro198", (8,))

    def loss() -> float:
        with torch.no_grad():
            return float(distill_loss(student, data.boards, data.probs, data.group))

    before = loss()
    result = distill(student, data, epochs=30, batch=128, lr=1e-2)
    assert loss() < 0.5 * before
    assert result.losses[-1] < result.losses[0] and result.samples == 30 * len(data)


def test_ranking_agreement_of_the_teacher_with_itself_is_perfect(full, cheap):
    boards, dice = sample_positions(200, "greedy", seed=2)
    itself = ranking_agreement(full, full, boards[100:], dice[100:])
    assert itself.pairs > 50 and itself.same == 1.0 and itself.equity_lost == 0.0
    other = ranking_agreement(cheap, full, boards[100:], dice[100:])
    assert other.same < 1.0 and other.equity_lost > 0.0 and other.in_top[5] >= other.same


@pytest.fixture
def shipped_with_pruner(tmp_path, monkeypatch):
    """A checkpoints folder holding best.pt and a tiny best_pruner.pt."""
    import bgai.model.checkpoint as checkpoint

    shutil.copy(checkpoint.SHIPPED / "best.pt", tmp_path / "best.pt")
    torch.manual_seed(0)
    net = ValueNet("tesauro198", (8,))
    checkpoint_dict = {"format": FORMAT, "net_spec": net.spec(), "model": net.state_dict()}
    save_atomic(checkpoint_dict, tmp_path / "best_pruner.pt")
    monkeypatch.setattr(checkpoint, "SHIPPED", tmp_path)
    return tmp_path


def test_best_carries_its_pruner_unless_noprune(shipped_with_pruner):
    from bgai.bearoff import BearoffEvaluator

    pruned = load_player("best@1ply")
    assert isinstance(pruned, SearchPlayer) and pruned.plies == 1
    assert isinstance(pruner_of(pruned.evaluator), BearoffEvaluator)
    assert pruner_of(load_player("best:noprune@2ply").evaluator) is None
    nodb = load_player("best:nodb@2ply").evaluator
    assert isinstance(pruner_of(nodb), NetEvaluator) and isinstance(nodb.evaluator, NetEvaluator)
    both = load_player("best:noprune:nodb@1ply")
    assert isinstance(both.evaluator, NetEvaluator) and both.name == "best:noprune:nodb@1ply"
    assert load_player("best:nodb:noprune").plies == 0


def test_best_without_a_pruner_file_has_none(shipped_with_pruner):
    (shipped_with_pruner / "best_pruner.pt").unlink()
    assert pruner_of(load_player("best@2ply").evaluator) is None


def test_a_checkpoint_carries_the_pruner_beside_it_unless_noprune(tmp_path):
    torch.manual_seed(0)
    net = ValueNet("tesauro198", (8,))
    path = tmp_path / "tiny.pt"
    save_atomic({"format": FORMAT, "net_spec": net.spec(), "model": net.state_dict()}, path)
    assert pruner_of(load_player(f"{path}@1ply").evaluator) is None
    shutil.copy(path, tmp_path / "tiny_pruner.pt")
    assert pruner_of(load_player(f"{path}@1ply").evaluator) is not None
    assert pruner_of(load_player(f"{path}:noprune@1ply").evaluator) is None
