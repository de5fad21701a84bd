"""scripts/study/backgame_play.py: judged back games played out with one player per side."""

from __future__ import annotations

import re

import numpy as np
import torch

from bgai.bots import evaluator_of
from bgai.specs import load_player
from bgai.train.positions import backgame_sides
from tests.scripts import load_script

JUDGE = "checkpoints/judges/backgames.npz"


def _roots(rows: slice) -> tuple[torch.Tensor, np.ndarray]:
    with np.load(JUDGE) as judged:
        roots = torch.as_tensor(judged["boards"][rows])
    return roots, backgame_sides(roots)[:, 1].numpy()


def test_play_out_is_whole_games_on_fixed_dice_at_each_players_plies(monkeypatch):
    study = load_script("study/backgame_play.py")
    roots, holder_on_roll = _roots(slice(0, 3))
    best = evaluator_of(load_player("best"), "tests")
    first = study.play_out((best, best), roots, holder_on_roll, trials=4, seed=1)
    assert first.shape == (3,) and np.all(np.abs(first) <= 3)
    assert np.allclose(first * 4, np.round(first * 4))  # means of 4 whole-game results
    assert np.array_equal(first, study.play_out((best, best), roots, holder_on_roll, trials=4, seed=1))

    plies_seen = []
    choose = study.choose_moves

    def record(evaluator, boards, dice, plies=0, move_filter=None):
        plies_seen.append(plies)
        return choose(evaluator, boards, dice, 0, move_filter)

    monkeypatch.setattr(study, "choose_moves", record)
    deep = evaluator_of(load_player("best@1ply"), "tests")
    again = study.play_out((deep, best), roots, holder_on_roll, trials=4, seed=1)
    assert set(plies_seen) == {0, 1}  # the holder's moves at 1 ply, the other side's at 0
    assert np.array_equal(again, first)  # the same moves (recorded, played at 0) on the same dice


def test_skip_selects_the_next_positions(capsys):
    study = load_script("study/backgame_play.py")
    study.main([JUDGE, "--positions", "2", "--skip", "3", "--trials", "2", "--pairs", "best/best"])
    out = capsys.readouterr().out
    assert out.startswith("2 back games")
    with np.load(JUDGE) as judged:
        equity = judged["equity"][3:5]
    _, holder_on_roll = _roots(slice(3, 5))
    printed = float(re.search(r"the judge\): ([+-]?[0-9.]+)", out.replace("−", "-"))[1])
    assert abs(printed - np.where(holder_on_roll, equity, -equity).mean()) < 1e-3
