"""Rollouts: exact answers where they are known, standard errors, dice, and bad settings."""

from __future__ import annotations

import numpy as np
import pytest
import torch

from bgai.bearoff import BearoffEvaluator
from bgai.cli.main import main
from bgai.cube import CubeState, Owner
from bgai.cube.analysis import analyse_positions
from bgai.cube.bearoff import OWNERS, exact_no_double
from bgai.engine.board import starting_board
from bgai.formats import decode_position_id, encode_position_id
from bgai.rollout import RolloutSettings, rollout_moves, rollout_positions
from bgai.rollout.dice import position_seeds, trial_dice
from tests.positions import pos


@pytest.fixture(scope="module")
def exact() -> BearoffEvaluator:
    """A perfect bear-off player: the databases themselves."""
    return BearoffEvaluator(None)


def small_bearoffs(n: int, seed: int) -> torch.Tensor:
    """Random bear-offs with at most 6 checkers a side, inside the two-sided table."""
    rng = np.random.default_rng(seed)
    boards = np.zeros((n, 2, 25), dtype=np.int8)
    for b in boards:
        for side in range(2):
            for _ in range(rng.integers(1, 7)):
                b[side, rng.integers(0, 6)] += 1
    return torch.as_tensor(boards)


def test_variance_reduction_with_a_perfect_evaluator_gives_the_exact_value_with_no_spread(exact):
    boards = small_bearoffs(12, seed=1)
    settings = RolloutSettings(trials=36, bearoff=False, variance_reduction=True)
    result = rollout_positions(exact, boards, settings)
    truth = exact.evaluate(boards).double().numpy()
    np.testing.assert_allclose(result.probs, truth, atol=1e-5)
    assert result.equity_se.max() < 1e-5


def test_plain_rollouts_of_bearoffs_agree_with_the_exact_table_within_their_errors(exact):
    boards = small_bearoffs(12, seed=2)
    result = rollout_positions(
        exact, boards, RolloutSettings(trials=144, bearoff=False, variance_reduction=False)
    )
    truth = exact.evaluate(boards).double().numpy()
    z = (result.probs[:, 0] - truth[:, 0]) / np.maximum(result.probs_se[:, 0], 1e-9)
    assert np.abs(z).max() < 4
    assert result.equity_se.max() > 0.01  # no luck subtracted: the trials really spread


def test_the_positions_of_one_call_roll_independent_dice(exact):
    """Each position's dice come from the seed and the position itself: rolled out together, the
    mean error over many bear-offs stays within its standard error (shared dice tied the errors
    of a batch together: +0.013 against an SE of 0.001 over 500 bear-offs)."""
    boards = small_bearoffs(300, seed=4)
    boards = boards[np.unique(boards.reshape(len(boards), -1).numpy(), axis=0, return_index=True)[1]]
    truth = exact.evaluate(boards).double().numpy()
    keep = (truth[:, 0] > 0.05) & (truth[:, 0] < 0.95)
    boards, truth = boards[keep], truth[keep]
    for seed in (1, 2, 3):  # plain dice: quasi-random ones hide most of the tie at 36 trials
        settings = RolloutSettings(
            trials=36, bearoff=False, variance_reduction=False, quasi_random=False, seed=seed
        )
        result = rollout_positions(exact, boards, settings)
        error = result.probs[:, 0] - truth[:, 0]  # shared dice: z of -9.1, +0.8, +4.4
        assert abs(error.mean()) < 3.5 * np.sqrt((result.probs_se[:, 0] ** 2).sum()) / len(error)
    firsts = [trial_dice(s, np.arange(36), 1) for s in position_seeds(1, boards[:2].numpy())]
    assert not np.array_equal(firsts[0], firsts[1])


def test_standard_error_shrinks_as_one_over_root_trials(exact):
    board = pos("x 6:3 5:2 4:1; o 19:2 20:2 22:2")[None]
    se = [
        rollout_positions(
            exact,
            board,
            RolloutSettings(trials=t, bearoff=False, variance_reduction=False, quasi_random=False, seed=3),
        ).equity_se[0]
        for t in (144, 1296)
    ]
    assert 2.2 < se[0] / se[1] < 4.0  # sqrt(9) = 3


def test_same_seed_same_result_and_another_seed_other_dice(exact):
    board = pos("x 6:3 5:2 4:1; o 19:2 20:2 22:2")[None]
    settings = RolloutSettings(trials=72, bearoff=False, variance_reduction=False, seed=5)
    a = rollout_positions(exact, board, settings)
    b = rollout_positions(exact, board, settings)
    c = rollout_positions(
        exact, board, RolloutSettings(trials=72, bearoff=False, variance_reduction=False, seed=6)
    )
    assert np.array_equal(a.probs, b.probs)
    assert not np.array_equal(a.probs, c.probs)


@pytest.mark.parametrize("variance_reduction", [False, True])
def test_trials_on_one_position_share_its_moves_and_keep_their_own_results(exact, variance_reduction):
    """Trials standing on the same position are moved once and mapped back: a batch holding a
    position twice gives both copies the estimates it gets alone (one call shares its dice)."""
    a, b = small_bearoffs(2, seed=9)
    settings = RolloutSettings(trials=72, bearoff=False, variance_reduction=variance_reduction, seed=3)
    both = rollout_positions(exact, torch.stack([a, b, a]), settings)
    alone = rollout_positions(exact, a[None], settings)
    assert np.allclose(both.probs[0], both.probs[2]) and np.allclose(both.probs[0], alone.probs[0])
    assert np.allclose(both.equity_se[0], alone.equity_se[0])
    assert not np.allclose(both.probs[0], both.probs[1])


def test_two_processes_give_the_same_estimates_as_one(exact):
    boards = small_bearoffs(3, seed=4)
    one = rollout_positions(
        exact, boards, RolloutSettings(trials=72, bearoff=False, variance_reduction=False)
    )
    two = rollout_positions(
        exact, boards, RolloutSettings(trials=72, bearoff=False, variance_reduction=False, processes=2)
    )
    np.testing.assert_allclose(one.probs, two.probs, atol=1e-12)


def test_quasi_random_first_rolls_are_balanced():
    trials = np.arange(1296)
    first = trial_dice(7, trials, 0)
    outcomes = (first[:, 0] - 1) * 6 + first[:, 1] - 1
    for block in range(36):  # every 36 consecutive trials hold each of the 36 rolls once
        assert sorted(outcomes[block * 36 : (block + 1) * 36]) == list(range(36))
    second = trial_dice(7, trials, 1)
    pairs = outcomes * 36 + (second[:, 0] - 1) * 6 + second[:, 1] - 1
    assert len(set(pairs.tolist())) == 1296  # every pair of first two rolls exactly once
    plain = trial_dice(7, trials[:36], 0, quasi_random=False)
    assert len({tuple(d) for d in plain.tolist()}) < 36
    third = trial_dice(7, trials, 2)
    later = {(tuple(a), tuple(b)) for a, b in zip(second.tolist(), third.tolist(), strict=True)}
    assert len(later) > 600  # the third roll is no function of the second (one permutation per roll gave 36)


def test_quasi_random_rollouts_of_bearoffs_are_within_their_reported_errors(exact):
    # scripts/measure/rollout_exactness.py on 500 positions; tied second and third rolls gave RMS z 1.5
    boards = small_bearoffs(200, seed=8)
    truth = exact.evaluate(boards).double()
    middling = ((truth[:, 0] > 0.05) & (truth[:, 0] < 0.95)).nonzero().squeeze(1)[:60]
    result = rollout_positions(
        exact, boards[middling], RolloutSettings(trials=1296, bearoff=False, variance_reduction=False, seed=1)
    )
    z = (result.probs[:, 0] - truth[middling, 0].numpy()) / result.probs_se[:, 0]
    assert np.sqrt(np.mean(z**2)) < 1.1


LAST_ROLL = "x 6:1 5:1; o 24:1"  # 65, 66, 55, 44, 33 bear both off: 6/36 to win, else the opponent wins


@pytest.mark.parametrize("variance_reduction", [False, True])
def test_cubeful_money_rollout_of_a_last_roll_position_is_exact(exact, variance_reduction):
    board = pos(LAST_ROLL)[None]
    settings = RolloutSettings(trials=36, bearoff=False, variance_reduction=variance_reduction)
    result = rollout_positions(exact, board, settings, cube=CubeState.money())
    p = 6 / 36
    assert result.probs[0, 0] == pytest.approx(p, abs=1e-6)
    assert result.nd[0] == pytest.approx(2 * p - 1, abs=1e-6)  # no double: a single game
    assert result.dt[0] == pytest.approx(2 * (2 * p - 1), abs=1e-6)  # double/take: twice that
    assert result.decision[0].startswith("No double")


def test_a_cube_owned_by_the_opponent_rolls_out_no_double_only(exact):
    result = rollout_positions(
        exact,
        pos(LAST_ROLL)[None],
        RolloutSettings(trials=36, bearoff=False),
        cube=CubeState.money(2, Owner.OPPONENT),
    )
    assert result.nd[0] == pytest.approx(2 * 6 / 36 - 1, abs=1e-6)
    assert np.isnan(result.dt[0]) and result.decision is None


# --- cubeful money trials in the exact two-sided table (bgai.cube.bearoff) -------------------------


@pytest.mark.parametrize("variance_reduction", [False, True])
def test_a_money_cubeful_rollout_of_a_two_sided_bearoff_stops_at_the_exact_table(exact, variance_reduction):
    """gnubg: ND 0.278, DT 0.556, "Double, take" (Janowski's model: no double); every trial
    ends before its first roll with the table's values."""
    board = torch.as_tensor(decode_position_id("AgAASAAAAAAAAA"))[None]  # x 2 4; o 23: a last roll
    settings = RolloutSettings(trials=36, variance_reduction=variance_reduction)
    result = rollout_positions(exact, board, settings, cube=CubeState.money())
    nd = exact_no_double(board)[0, OWNERS.index(Owner.CENTRED)]
    taken = exact_no_double(board)[0, OWNERS.index(Owner.OPPONENT)]
    assert result.nd[0] == nd and result.dt[0] == 2 * taken
    assert (result.nd[0], result.dt[0]) == pytest.approx((0.2778, 0.5556), abs=1e-4)
    assert result.nd_se[0] == result.dt_se[0] == 0.0
    assert result.decision == ["Double, take"]


@pytest.mark.parametrize("opponent", ["o 19:2 24", "o 19:3 24:3"])
@pytest.mark.parametrize("cube", [CubeState.money(), CubeState.money(2, Owner.ME)])
def test_one_roll_before_the_table_trials_end_with_the_opponents_exact_cube_action(exact, opponent, cube):
    """x's seven checkers on the ace leave two-sided bear-offs after any roll, the opponent on
    roll and free to double as the table says (as the 1-ply cube analysis reads its leaves):
    with variance reduction the luck of that roll cancels the trials' spread exactly."""
    board = pos(f"x 1:7; {opponent}")[None]
    result = rollout_positions(exact, board, RolloutSettings(trials=36), cube=cube)
    analysis = analyse_positions(exact, board, cube, plies=1)
    np.testing.assert_allclose([result.nd, result.dt], [analysis.nd, analysis.dt], atol=1e-6)
    assert max(result.nd_se[0], result.dt_se[0]) < 1e-6
    assert result.decision == analysis.decision


def test_two_rolls_before_the_table_a_rollout_agrees_with_the_2ply_cube_analysis(exact):
    """Every roll bears off two checkers or more on either side, so the 2-ply analysis reads all
    its leaves from the table. Random dice, the trials ending there, agree within their errors
    (measured: 0.1 SE); quasi-random dice hold every pair of first two rolls once in 1,296
    trials, and the trials are then the 2-ply tree itself (the opponent's 0-ply cube actions
    between are the tree's here). Janowski's trials, playing on, were 3e-4 off."""
    board, cube = pos("x 1:4 2:4; o 24:4 23:4")[None], CubeState.money()
    analysis = analyse_positions(exact, board, cube, plies=2)
    random = rollout_positions(exact, board, RolloutSettings(trials=144, quasi_random=False), cube=cube)
    assert abs(random.nd[0] - analysis.nd[0]) < 3 * random.nd_se[0]
    assert abs(random.dt[0] - analysis.dt[0]) < 3 * random.dt_se[0]
    assert random.decision == analysis.decision == ["Double, take"]
    every = rollout_positions(exact, board, RolloutSettings(trials=1296), cube=cube)
    np.testing.assert_allclose([every.nd, every.dt], [analysis.nd, analysis.dt], atol=1e-5)


def test_played_on_past_the_table_the_trials_double_take_and_pass_as_it_says(exact):
    """Without the bear-off stop the trials play on, doubling and answering from the exact
    table: their ND and DT stay within 0.004 of the table's (measured; the trials' checker play,
    cubeless, is all that differs). Janowski's decisions were up to 0.05 (ND) and 0.14 (DT) off."""
    boards = small_bearoffs(20, seed=3)
    table = exact_no_double(boards)
    result = rollout_positions(
        exact, boards, RolloutSettings(trials=36, bearoff=False), cube=CubeState.money()
    )
    np.testing.assert_allclose(result.nd, table[:, OWNERS.index(Owner.CENTRED)], atol=0.01)
    np.testing.assert_allclose(result.dt, 2 * table[:, OWNERS.index(Owner.OPPONENT)], atol=0.01)


def test_match_rollouts_play_two_sided_bearoffs_out(exact):
    """The exact table is money play's: in a match the trials neither stop there nor read it."""
    boards = small_bearoffs(6, seed=4)
    state = CubeState.match(7, 0, 0)
    stopped, played = (
        rollout_positions(exact, boards, RolloutSettings(trials=36, bearoff=bearoff), cube=state)
        for bearoff in (True, False)
    )
    np.testing.assert_array_equal(stopped.mwc["nd"], played.mwc["nd"])
    np.testing.assert_array_equal(stopped.mwc["dt"], played.mwc["dt"])


def test_move_rollout_ranks_the_winning_move_first_with_paired_errors(exact):
    # 6-5 with checkers on 6 and 5: bearing both off wins at once; 6/1 5/off leaves one behind.
    board = pos("x 6:1 5:1; o 19:2 20:1")
    result = rollout_moves(exact, board, (6, 5), RolloutSettings(trials=72, bearoff=False))
    assert result.diff[0] == 0 and (result.diff[1:] <= 0).all()
    assert result.afterstates[0][1].sum() == 0 and result.diff[1] == pytest.approx(
        -2 / 36, abs=1e-6
    )  # o then wins with 66 only
    assert (result.diff_se[1:] <= result.equity_se[1:] * 2 + 1e-9).all()


@pytest.mark.parametrize(
    "kwargs, message",
    [
        (dict(trials=0), "trials must be at least 1"),
        (dict(truncate=-1), "truncation must be at least 1"),
        (dict(plies=5), "checker play must be at 0, 1 or 2 plies"),
        (dict(target_se=0.0), "target SE must be positive"),
    ],
)
def test_bad_settings_are_one_line_errors(kwargs, message):
    with pytest.raises(ValueError, match=message):
        RolloutSettings(**kwargs)


def test_a_finished_game_is_refused(exact):
    with pytest.raises(ValueError, match="finished game"):
        rollout_positions(exact, pos("x ; o 6:1")[None], RolloutSettings(trials=1))


def test_cli_rolls_out_a_position_and_its_moves(capsys):
    bearoff = encode_position_id(pos("x 6:2 5:1; o 19:1 21:1").numpy())
    assert main(["rollout", bearoff, "--trials", "36", "--player", "best", "--processes", "1", "--json"]) == 0
    import json

    record = json.loads(capsys.readouterr().out)["positions"][0]
    assert record["trials"] == 36 and 0 <= record["probs"]["win"] <= 1
    assert main(["rollout", bearoff, "21", "--trials", "36", "--processes", "1"]) == 0
    out = capsys.readouterr().out
    assert "1. Rollout" in out and "Eq.:" in out


@pytest.mark.parametrize(
    "argv, message",
    [
        (["--trials", "0"], "trials must be at least 1"),
        (["--truncate", "-2"], "truncation must be at least 1"),
        (["--moves", "0"], "--moves must be at least 1"),
    ],
)
def test_cli_bad_settings_are_one_line_errors(capsys, argv, message):
    start = encode_position_id(starting_board())
    assert main(["rollout", start, *argv]) == 2
    err = capsys.readouterr().err
    assert message in err and err.count("\n") == 1


def test_cli_refuses_a_finished_game(capsys):
    finished = encode_position_id(pos("x ; o 6:1").numpy())
    assert main(["rollout", finished, "--trials", "1"]) == 2
    assert "is over: the player on roll has borne off every checker" in capsys.readouterr().err


def test_cubeful_match_rollout_of_a_last_roll_position_is_exact(exact):
    from bgai.cube.met import kazaross_xg2

    state = CubeState.match(5, 0, 0)  # 5-away, 5-away
    result = rollout_positions(
        exact, pos(LAST_ROLL)[None], RolloutSettings(trials=36, bearoff=False), cube=state
    )
    met, p = kazaross_xg2(), 6 / 36
    nd = p * met.mwc(4, 5) + (1 - p) * met.mwc(5, 4)  # a single game either way
    dt = p * met.mwc(3, 5) + (1 - p) * met.mwc(5, 3)  # two points either way
    assert result.mwc["nd"][0] == pytest.approx(nd, abs=1e-6)
    assert result.mwc["dt"][0] == pytest.approx(dt, abs=1e-6)
    assert result.mwc["dp"] == pytest.approx(met.mwc(4, 5))
    assert result.decision[0].startswith("No double")
    assert result.dt[0] < result.nd[0] < 0  # normalised as gnubg prints match equities


def test_crawford_game_rolls_out_without_a_cube(exact):
    state = CubeState.match(5, 4, 0, crawford=True)
    result = rollout_positions(
        exact, pos(LAST_ROLL)[None], RolloutSettings(trials=36, bearoff=False), cube=state
    )
    assert np.isnan(result.dt[0]) and result.decision is None


def test_torchrun_splits_the_trials_and_gives_the_one_process_answer(tmp_path):
    import json
    import os
    import subprocess
    import sys

    bearoff = encode_position_id(pos("x 6:3 5:2 4:1; o 19:2 20:2 22:2").numpy())
    argv = [
        "rollout",
        bearoff,
        "--trials",
        "72",
        "--player",
        "best:nodb",
        "--processes",
        "1",
        "--no-bearoff",
        "--no-vr",
        "--json",
    ]
    env = {**os.environ, "OMP_NUM_THREADS": "1"}
    one = subprocess.run(
        [sys.executable, "-m", "bgai", *argv], capture_output=True, text=True, env=env, timeout=120
    )
    two = subprocess.run(
        [
            sys.executable,
            "-m",
            "torch.distributed.run",
            "--standalone",
            "--nproc_per_node",
            "2",
            "-m",
            "bgai",
            *argv,
        ],
        capture_output=True,
        text=True,
        env=env,
        timeout=180,
    )
    assert one.returncode == 0 and two.returncode == 0, two.stderr[-2000:]
    a, b = json.loads(one.stdout)["positions"][0], json.loads(two.stdout)["positions"][0]
    assert a["trials"] == b["trials"] == 72
    assert a["probs"]["win"] == pytest.approx(b["probs"]["win"], abs=1e-12)
    assert a["equity_se"] == pytest.approx(b["equity_se"], abs=1e-12)


def test_ctrl_c_keeps_the_finished_blocks(exact):
    calls = []

    def progress(done, se):
        calls.append(done)
        if len(calls) == 2:
            raise KeyboardInterrupt

    board = pos("x 6:3 5:2 4:1; o 19:2 20:2 22:2")[None]
    settings = RolloutSettings(trials=360, block=36, bearoff=False, variance_reduction=False)
    result = rollout_positions(exact, board, settings, progress=progress)
    assert result.interrupted and result.trials[0] == 72 and 0 < result.probs[0, 0] < 1
