"""The lookahead search: 0/1/2-ply values and choices, move filters, finished games."""

from __future__ import annotations

import pytest
import torch

from bgai.engine.board import swap_sides
from bgai.engine.movegen import expand
from bgai.engine.sampling import sample_positions
from bgai.model.net import ValueNet
from bgai.model.probs import cubeless_equity, invert, possible_outcomes
from bgai.search import (
    FILTERS,
    ROLL_WEIGHTS,
    ROLLS,
    FilterStage,
    GnubgEvaluator,
    NetEvaluator,
    PubevalEvaluator,
    afterstate_values,
    afterstate_values_at,
    choose_moves,
    evaluate_position,
    keep_by_filter,
    position_noise,
    rank_moves,
    score_candidates,
    terminal_probs,
)
from tests.positions import pos

KEEP_ALL = (FilterStage(1000, 0, 0.0), FilterStage(1000, 0, 0.0))


@pytest.fixture(scope="module")
def evaluator() -> NetEvaluator:
    torch.manual_seed(1234)
    return NetEvaluator(ValueNet("tesauro198", (16,)))


@pytest.fixture(scope="module")
def middle_games() -> tuple[torch.Tensor, torch.Tensor]:
    boards, dice = sample_positions(40 * 13, "greedy", seed=7, games=40)
    return boards[-40:], dice[-40:]  # twelve turns in: varied contact positions


def best_reply_value_by_hand(evaluator, afterstate: torch.Tensor) -> torch.Tensor:
    """1-ply value of one afterstate for its mover, one opponent roll at a time."""
    opponent_on_roll = swap_sides(afterstate)
    total = torch.zeros(5)
    for (d1, d2), weight in zip(ROLLS.tolist(), ROLL_WEIGHTS.tolist(), strict=True):
        replies, _ = expand(opponent_on_roll[None], torch.tensor([[d1, d2]]))
        for_opponent = invert(evaluator.evaluate(swap_sides(replies)))
        best = for_opponent[cubeless_equity(for_opponent).argmax()]
        total += weight * invert(best)
    return total


def test_roll_weights_cover_the_36_rolls():
    assert len(ROLLS) == 21
    assert ROLL_WEIGHTS.sum().item() == pytest.approx(1.0)
    doubles = ROLLS[:, 0] == ROLLS[:, 1]
    assert int(doubles.sum()) == 6
    assert torch.allclose(ROLL_WEIGHTS * 36, torch.where(doubles, 1.0, 2.0))


def test_one_ply_value_is_the_average_of_the_opponents_best_replies(evaluator, middle_games):
    boards, dice = middle_games
    children, _ = expand(boards[:3], dice[:3])
    afterstates = children[::7][:3]
    searched = afterstate_values_at(evaluator, afterstates, 1)
    for k, afterstate in enumerate(afterstates):
        torch.testing.assert_close(searched[k], best_reply_value_by_hand(evaluator, afterstate))


def test_position_before_the_roll_averages_the_best_move_of_each_roll(evaluator, middle_games):
    board = middle_games[0][5]
    by_hand = torch.zeros(5)
    for (d1, d2), weight in zip(ROLLS.tolist(), ROLL_WEIGHTS.tolist(), strict=True):
        children, _ = expand(board[None], torch.tensor([[d1, d2]]))
        values = afterstate_values(evaluator, children)
        by_hand += weight * values[cubeless_equity(values).argmax()]
    torch.testing.assert_close(evaluate_position(evaluator, board[None], 1)[0], by_hand)


def test_zero_ply_picks_the_child_with_the_highest_equity(evaluator, middle_games):
    boards, dice = middle_games
    chosen = choose_moves(evaluator, boards, dice, plies=0)
    for i in range(len(boards)):
        children, _ = expand(boards[i : i + 1], dice[i : i + 1])
        equity = cubeless_equity(afterstate_values(evaluator, children))
        assert torch.equal(chosen[i], children[equity.argmax()])


def test_one_ply_without_a_filter_picks_the_best_one_ply_child(evaluator, middle_games):
    boards, dice = middle_games[0][:3], middle_games[1][:3]
    chosen = choose_moves(evaluator, boards, dice, plies=1, move_filter=KEEP_ALL)
    for i in range(len(boards)):
        children, _ = expand(boards[i : i + 1], dice[i : i + 1])
        equity = cubeless_equity(afterstate_values_at(evaluator, children, 1))
        assert torch.equal(chosen[i], children[equity.argmax()])


def test_two_ply_recurses_once_more(evaluator, middle_games):
    afterstate = expand(middle_games[0][:1], middle_games[1][:1])[0][:1]
    by_hand = torch.zeros(5)
    for (d1, d2), weight in zip(ROLLS.tolist(), ROLL_WEIGHTS.tolist(), strict=True):
        replies, _ = expand(swap_sides(afterstate), torch.tensor([[d1, d2]]))
        best = replies[cubeless_equity(afterstate_values(evaluator, replies)).argmax()]
        by_hand += weight * invert(afterstate_values_at(evaluator, best[None], 1)[0])
    torch.testing.assert_close(afterstate_values_at(evaluator, afterstate, 2)[0], by_hand)


def test_filter_keeps_the_best_few_within_the_threshold():
    equity = torch.tensor([0.50, 0.45, 0.20, 0.36, -0.1, 0.0, -0.5])
    parent = torch.tensor([0, 0, 0, 0, 1, 1, 1])
    normal = keep_by_filter(equity, parent, 2, FilterStage(0, 8, 0.16))
    assert normal.tolist() == [True, True, False, True, True, True, False]
    two_at_most = keep_by_filter(equity, parent, 2, FilterStage(0, 2, 0.16))
    assert two_at_most.tolist() == [True, True, False, False, True, True, False]
    always_three = keep_by_filter(equity, parent, 2, FilterStage(3, 0, 0.0))
    assert always_three.tolist() == [True, True, False, True, True, True, True]


def test_filter_never_drops_the_best_candidate():
    gen = torch.Generator().manual_seed(3)
    parent = torch.randint(0, 50, (2000,), generator=gen).sort().values
    equity = torch.randn(2000, generator=gen)
    keep = keep_by_filter(equity, parent, 50, FILTERS["tiny"][0])
    for p in parent.unique():
        mine = parent == p
        assert keep[mine][equity[mine].argmax()]
        assert keep[mine].sum() <= 5


def test_deeper_search_values_only_the_filter_survivors(evaluator, middle_games):
    boards, dice = middle_games[0][:4], middle_games[1][:4]
    c = score_candidates(evaluator, boards, dice, plies=1)
    assert set(c.ply.unique().tolist()) <= {0, 1}
    for p in range(4):
        survivors = (c.parent == p) & (c.ply == 1)
        assert 1 <= survivors.sum() <= 8


def test_candidates_can_be_ranked_and_filtered_on_another_scale(evaluator, middle_games):
    """A rank (e.g. match winning chance at the score) replaces cubeless equity in the filter."""
    boards, dice = middle_games[0][:4], middle_games[1][:4]

    def gammons_only(probs, parent):  # a scale on which only the gammons count
        return probs[:, 1] - probs[:, 3]

    c = score_candidates(evaluator, boards, dice, plies=1, rank=gammons_only)
    torch.testing.assert_close(c.equity, gammons_only(c.probs, c.parent).to(c.equity))
    zero = score_candidates(evaluator, boards, dice, plies=0, rank=gammons_only)
    for p in range(4):  # the 1-ply survivors are the best by that scale at 0-ply
        mine = zero.parent == p
        assert c.ply[mine][zero.equity[mine].argmax()] == 1


def test_rank_moves_lists_every_candidate_best_first(evaluator, middle_games):
    board, dice = middle_games[0][3], middle_games[1][3]
    ranked = rank_moves(evaluator, board.numpy(), dice, plies=1)
    children, _ = expand(board[None], dice[None])
    assert len(ranked) == len(children)
    assert ranked[0].ply == 1
    top = [m.equity for m in ranked if m.ply == 1]
    assert top == sorted(top, reverse=True)
    chosen = choose_moves(evaluator, board[None], dice[None], plies=1)[0]
    assert (ranked[0].board == chosen.numpy()).all()


def test_finished_games_get_their_exact_outcome(evaluator):
    # x (on roll) has borne off everything; o has borne off nothing, none in x's home board.
    won_gammon = pos("o 20:5 12:5 13:5")
    won_backgammon = pos("o 3:1 12:14")  # an o checker in x's home board
    won_single = pos("o 12:10")  # o has borne off 5
    lost_gammon = pos("x 10:15")
    lost_backgammon = pos("x bar:1 10:14")
    boards = torch.stack([won_gammon, won_backgammon, won_single, lost_gammon, lost_backgammon])
    expected = torch.tensor(
        [
            [1.0, 1.0, 0.0, 0.0, 0.0],
            [1.0, 1.0, 1.0, 0.0, 0.0],
            [1.0, 0.0, 0.0, 0.0, 0.0],
            [0.0, 0.0, 0.0, 1.0, 0.0],
            [0.0, 0.0, 0.0, 1.0, 1.0],
        ]
    )
    probs, finished = terminal_probs(boards)
    assert finished.all()
    torch.testing.assert_close(probs, expected)
    for plies in (0, 1, 2):
        torch.testing.assert_close(evaluate_position(evaluator, boards, plies), expected)
    torch.testing.assert_close(PubevalEvaluator().evaluate(boards), expected)


def test_bearing_off_the_last_checker_is_an_exact_win_at_every_ply(evaluator):
    board = pos("x 2:1; o 1:2 13:13")  # o still has checkers in x's home board: backgammon
    for plies in (0, 1, 2):
        c = score_candidates(evaluator, board[None], torch.tensor([[6, 5]]), plies)
        assert len(c.boards) == 1
        torch.testing.assert_close(c.probs[0], torch.tensor([1.0, 1.0, 1.0, 0.0, 0.0]))


def test_gnubg_evaluator_returns_gnubg_probabilities(middle_games, gnubg_nn):
    boards = middle_games[0][:5]
    ours = GnubgEvaluator(0).evaluate(boards)
    theirs = torch.tensor([gnubg_nn.probabilities(b, 0) for b in boards.tolist()])
    torch.testing.assert_close(ours, theirs)


def test_pubeval_evaluator_ranks_afterstates_like_pubeval(middle_games):
    from bgai.engine.board import is_race
    from bgai.model.pubeval import pubeval_scores

    boards, dice = middle_games
    children, parent = expand(boards, dice)
    values = afterstate_values(PubevalEvaluator(), children)[:, 0]
    scores = pubeval_scores(children, is_race(children))
    for p in range(len(boards)):
        mine = parent == p
        assert values[mine].argmax() == scores[mine].argmax()


def test_position_noise_is_deterministic_and_standard_normal():
    boards, _ = sample_positions(3000, "random", seed=11)
    boards = torch.unique(boards, dim=0)
    z = position_noise(boards)
    torch.testing.assert_close(z, position_noise(boards.clone()))
    assert not torch.equal(z, position_noise(boards, seed=1))
    assert abs(z.mean().item()) < 0.1 and abs(z.std().item() - 1) < 0.1


def test_possible_outcomes_by_hand():
    cases = {
        # contact, nobody off: everything possible
        "x 24:2 13:5 8:3 6:5; o 24:2 13:5 8:3 6:5": [1, 1, 1, 1, 1],
        # race, I have borne off: no gammon for me to lose; o has none in my home: no backgammon to win
        "x 1:3 2:4; o 19:5 13:10": [1, 1, 0, 0, 0],
        # race, o still on my 5-point (in my home board): o can be backgammoned, I cannot
        "x 1:5 2:5 3:5; o 5:5 20:10": [1, 1, 1, 1, 0],
        # contact, o has borne off: no gammon to win, but I can still lose one (hit and closed out)
        "x 24:1 13:14; o 19:2 20:3 21:3 22:3": [1, 0, 0, 1, 1],
    }
    for text, allowed in cases.items():
        assert possible_outcomes(pos(text)[None])[0].tolist() == [bool(a) for a in allowed], text


def test_net_values_respect_the_outcomes_the_board_rules_out(gnubg_nn):
    """Where bgai says an outcome is impossible, its nets say 0 and so does gnubg (whose sanity
    check on its nets' outputs knows these rules and more)."""
    boards = torch.cat([sample_positions(n, kind, seed=3)[0] for n, kind in ((600, "greedy"), (400, "race"))])
    boards = boards[~terminal_probs(boards)[1]]
    allowed = possible_outcomes(boards)
    assert (~allowed[:, 1:]).any(0).all()  # every gammon and backgammon output is ruled out somewhere
    torch.manual_seed(0)
    ours = NetEvaluator(ValueNet("tesauro198", (8,))).evaluate(boards)
    assert (ours[~allowed] == 0).all() and (ours[allowed] > 0).all()
    theirs = torch.as_tensor(GnubgEvaluator(0).evaluate(boards))
    assert (theirs[~allowed] == 0).all()
