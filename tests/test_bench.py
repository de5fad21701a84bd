"""Duels and leagues: duplicate dice, the opening roll, reproducibility, confidence intervals."""

from __future__ import annotations

import json

import numpy as np
import pytest

from bgai.bench import dice_of, duel, league, opening_dice
from bgai.bots import PubevalPlayer, RandomPlayer
from bgai.cli.main import main
from bgai.engine.board import starting_board
from bgai.specs import load_player


def test_duplicate_dice_give_exactly_zero_for_a_player_against_itself():
    result = duel(PubevalPlayer(), PubevalPlayer(), 100, seed=3)
    assert result.ppg == 0.0 and result.ci95 == 0.0
    assert result.a_win == result.b_win == 0.5
    same_object = PubevalPlayer()
    assert duel(same_object, same_object, 40, seed=4).ppg == 0.0


def test_the_same_seed_gives_the_same_result():
    first = duel(RandomPlayer(1), PubevalPlayer(), 40, seed=5).to_dict()
    again = duel(RandomPlayer(1), PubevalPlayer(), 40, seed=5).to_dict()
    other = duel(RandomPlayer(1), PubevalPlayer(), 40, seed=6).to_dict()
    timing = ("seconds", "games_per_sec")
    assert {k: v for k, v in first.items() if k not in timing} == {
        k: v for k, v in again.items() if k not in timing
    }
    assert first["avg_turns"] != other["avg_turns"]


def test_random_loses_clearly_to_pubeval():
    result = duel(RandomPlayer(0), PubevalPlayer(), 100, seed=1)
    assert result.ppg < -1.5
    assert result.ppg + result.ci95 < 0
    assert result.b_win > 0.9 and result.b_gammon > 0.5


def test_the_confidence_interval_shrinks_with_games():
    few = duel(RandomPlayer(0), PubevalPlayer(), 30, seed=2, duplicate=False)
    many = duel(RandomPlayer(0), PubevalPlayer(), 300, seed=2, duplicate=False, record=True)
    assert many.ci95 < few.ci95
    points = np.array([game.a_points for game in many.logs])
    assert many.ppg == pytest.approx(points.mean())
    assert many.ci95 == pytest.approx(1.96 * points.std(ddof=1) / np.sqrt(300))


def test_duplicate_confidence_interval_is_over_the_pairs():
    result = duel(RandomPlayer(0), PubevalPlayer(), 60, seed=2, record=True)
    pairs = np.array([game.a_points for game in result.logs]).reshape(30, 2).mean(1)
    assert result.ci95 == pytest.approx(1.96 * pairs.std(ddof=1) / np.sqrt(30))


def test_opening_rolls_are_never_doubles_and_streams_are_reproducible():
    streams = np.arange(5000)
    opening = opening_dice(9, streams)
    assert (opening[:, 0] != opening[:, 1]).all()
    counts = np.bincount((opening[:, 0] - 1) * 6 + opening[:, 1] - 1, minlength=36)
    grid = counts.reshape(6, 6)
    assert grid.diagonal().sum() == 0
    assert grid[~np.eye(6, dtype=bool)].min() > 100  # 30 equally likely rolls, ~167 each
    turns = np.full(5000, 3)
    np.testing.assert_array_equal(dice_of(9, streams, turns), dice_of(9, streams, turns))
    assert ((dice_of(9, streams, turns) >= 1) & (dice_of(9, streams, turns) <= 6)).all()


def test_duplicate_games_replay_the_same_rolls_with_the_seats_swapped():
    result = duel(PubevalPlayer(), RandomPlayer(0), 8, seed=11, record=True)
    start = starting_board()
    for k in range(0, 8, 2):
        g1, g2 = result.logs[k], result.logs[k + 1]
        assert (g1.a_seat, g2.a_seat) == (0, 1) and g1.first != g2.first
        m1, m2 = g1.moves, g2.moves  # (turn, column, dice, before, after)
        d1, d2 = m1[0][2], m2[0][2]
        assert d1 == d2 and d1[0] != d1[1]
        # The seat with the higher opening die moves first, whoever sits there.
        first_seat = g1.a_seat if g1.first == 0 else 1 - g1.a_seat
        assert first_seat == (1 if d1[1] > d1[0] else 0)
        assert m1[0][1] != m2[0][1]  # A moved first in one game, B in the other
        for t in range(min(len(m1), len(m2))):
            assert m1[t][2] == m2[t][2]
            assert m1[t][1] != m2[t][1]
        assert (m1[0][3] == start).all()
        assert g1.points in (1, 2, 3) and g1.value == g1.points and len(m1) == g1.turns


@pytest.mark.gnubg
def test_league_is_a_round_robin_with_antisymmetric_results():
    result = league([RandomPlayer(0), PubevalPlayer(), load_player("gnubg")], 20, seed=1)
    grid = result.ppg
    assert len(result.duels) == 3
    for i in range(3):
        assert grid[i][i] is None
        for j in range(3):
            if i != j:
                assert grid[i][j] == -grid[j][i]
    assert result.average()[0] < 0  # random is last
    assert "pubeval" in result.table() and json.loads(result.to_json())["players"][0] == "random"


def test_bench_command_prints_a_table_and_json(capsys):
    assert main(["bench", "pubeval", "random", "--games", "20", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["games"] == 20 and out["ppg"] > 1 and out["duplicate"] is True
    assert main(["bench", "random", "pubeval", "--games", "10", "--no-duplicate", "--seed", "3"]) == 0
    table = capsys.readouterr().out
    assert "ppg" in table and "games/s" in table and "pubeval" in table
    assert main(["bench", "pubeval"]) == 2
    assert "two players" in capsys.readouterr().err
    assert main(["bench", "--league", "random", "pubeval", "--games", "10"]) == 0
    assert "average" in capsys.readouterr().out
