"""The supervised-training pipeline: position database, labels, fitting."""

from __future__ import annotations

import dataclasses
import shutil
from pathlib import Path

import numpy as np
import pytest
import torch

from bgai.bots import evaluator_of
from bgai.cli.main import main
from bgai.engine.board import is_race, pip_counts, validate_board
from bgai.engine.dice import dice_of
from bgai.engine.movegen import expand
from bgai.engine.sampling import backgame_starts, race_starts
from bgai.model.checkpoint import FORMAT, load_net, save_atomic, shipped_checkpoint
from bgai.model.net import ValueNet
from bgai.model.probs import cubeless_equity
from bgai.search.evaluator import NetEvaluator
from bgai.search.ply import evaluate_position
from bgai.specs import load_player
from bgai.train.distill import LabelledAfterstates
from bgai.train.fit import (
    FitConfig,
    _MoveChoices,
    anchored,
    fit,
    initial_net,
    listwise_loss,
    training_data,
)
from bgai.train.labels import LabelJob, label, load_labels, load_move_labels, without_positions
from bgai.train.positions import (
    CLASSES,
    PositionDatabase,
    backgame_sides,
    build_database,
    classify,
    crashed_side,
    save_npz,
)
from tests.positions import pos

ONE_LAYER = "best_7"  # a shipped net of one hidden layer, what widening grows (best has two)


@pytest.fixture(scope="module")
def best():
    return evaluator_of(load_player("best"), "tests")[0]


@pytest.fixture(scope="module")
def database(tmp_path_factory, best) -> str:
    folder = tmp_path_factory.mktemp("db")
    db = build_database(best, selfplay=300, backgame=200, seed=3, games=16)
    db.save(folder / "positions.npz")
    return str(folder)


@pytest.mark.parametrize(
    "text, name",
    [
        ("x 24:2 13:5 8:3 6:5; o 1:2 12:5 17:3 19:5", "contact"),
        ("x 20:2 21:2 13:3 6:4 5:4; o 1:3 2:3 3:3 4:3 5:3", "backgame"),  # o holds x's 1-5 points, trails
        ("x 8:2 3:5 2:5 1:3; o 4:2 12:3 19:5 20:5", "crashed"),
        ("x 12:5 6:5 5:5; o 19:5 20:5 13:5", "race"),
        ("x 6:5 5:5 4:5; o 19:5 20:5 21:5", "bearoff"),
    ],
)
def test_positions_are_classified_in_the_games_terms(text, name):
    assert CLASSES[classify(pos(text)[None])[0]] == name


def test_the_back_game_side_is_the_one_holding_the_points_and_trailing():
    # o holds five points of x's home board and trails by 165 pips; x's two points in o's board
    # are not a back game, x leads
    board = pos("x 20:2 21:2 13:3 6:4 5:4; o 1:3 2:3 3:3 4:3 5:3")[None]
    assert backgame_sides(board).tolist() == [[True, False]]
    assert backgame_sides(board.flip(1)).tolist() == [[False, True]]  # o on roll
    assert not backgame_sides(pos("x 24:2 13:5 8:3 6:5; o 1:2 12:5 17:3 19:5")[None]).any()


def test_the_crashed_side_is_the_one_with_six_on_its_low_points_or_off():
    # x has 13 on its 1-3 points; o, 15 checkers spread, has not crashed
    board = pos("x 8:2 3:5 2:5 1:3; o 4:2 12:3 19:5 20:5")[None]
    assert crashed_side(board).tolist() == [1]
    assert crashed_side(board.flip(1)).tolist() == [-1]  # o on roll
    both = pos("x 3:5 2:5 1:2 20:3; o 24:3 23:3 22:3 15:6")[None]  # x 12 low, o 9 low
    neither = pos("x 24:2 13:5 8:3 6:5; o 1:2 12:5 17:3 19:5")[None]
    assert crashed_side(torch.cat([both, neither])).tolist() == [0, 0]


def test_backgame_starts_are_legal_back_games_with_the_other_side_ahead():
    boards = backgame_starts(200, torch.Generator().manual_seed(0))
    for b in boards.numpy():
        validate_board(b)
    assert (classify(boards) == CLASSES.index("backgame")).mean() > 0.95
    pips = pip_counts(boards.long())
    anchors = (boards[:, :, 18:24] >= 2).sum(-1)
    back_side = anchors.argmax(-1)
    assert (pips[torch.arange(len(boards)), back_side] > pips[torch.arange(len(boards)), 1 - back_side]).all()


def test_race_starts_are_legal_races_of_either_side_from_contact_to_bear_off():
    boards = race_starts(400, torch.Generator().manual_seed(0))
    for b in boards.numpy():
        validate_board(b)
    assert is_race(boards).all()
    pips = pip_counts(boards.long()).float()
    assert pips.min() < 30 and pips.max() > 110  # from bear-offs to races just past contact
    assert abs(pips[:, 0].mean() - pips[:, 1].mean()) < 8  # neither side favoured
    assert ((boards.sum(-1) < 15).any(-1)).float().mean() > 0.2  # some checkers already off


def test_database_is_distinct_unfinished_classified_and_split_by_board(database):
    db = PositionDatabase.load(database)
    flat = db.boards.reshape(len(db), -1)
    assert len(np.unique(flat, axis=0)) == len(db)
    assert (db.boards.sum(-1) > 0).all()
    assert np.array_equal(db.klass, classify(db.boards))
    assert set(np.unique(db.source)) == {0, 1}
    assert 0.03 < db.held_out.mean() < 0.2
    again = build_database(
        evaluator_of(load_player("best"), "t")[0], selfplay=300, backgame=200, seed=3, games=16
    )
    assert np.array_equal(again.boards, db.boards)  # same seed, same database
    assert sum(db.counts()["class"].values()) == len(db)


def test_a_corrupt_or_missing_database_is_a_one_line_error(tmp_path):
    with pytest.raises(ValueError, match="no position database"):
        PositionDatabase.load(tmp_path)
    (tmp_path / "positions.npz").write_bytes(b"not a database")
    with pytest.raises(ValueError, match="not a bgai position database"):
        PositionDatabase.load(tmp_path)


def test_labels_resume_after_each_chunk_and_shards_cover_the_database(database, best):
    job = LabelJob(kind="ply0", chunk=100, shard=(0, 2))
    first = label(best, database, job, stop_after=0.0)  # one chunk, then stop
    assert len(first.index) == 100
    done = label(best, database, job)
    other = label(best, database, LabelJob(kind="ply0", chunk=100, shard=(1, 2)))
    merged = load_labels(database, "ply0-best")
    db = PositionDatabase.load(database)
    assert np.array_equal(merged.index, np.arange(len(db)))
    expected = best.evaluate(torch.as_tensor(db.boards)).numpy()
    np.testing.assert_allclose(merged.probs, expected, atol=1e-5)
    assert len(done.index) + len(other.index) == len(db)
    with pytest.raises(ValueError, match="other settings"):
        label(best, database, LabelJob(kind="ply0", chunk=100, shard=(0, 2), seed=5))


def test_a_job_stopped_early_has_labelled_a_fair_sample(database):
    """The database holds games in the order they were played; a job takes a shuffled order."""
    db = PositionDatabase.load(database)
    rows = LabelJob(kind="ply0").selection(db)
    assert sorted(rows) == list(range(len(db)))
    first = rows[: len(db) // 4]
    assert abs(np.median(first) - len(db) / 2) < len(db) / 8  # not the first games
    share = np.bincount(db.klass[first], minlength=5) / len(first)
    whole = np.bincount(db.klass, minlength=5) / len(db)
    n, total = len(first), len(db)  # a sample without replacement: 4 hypergeometric sigmas
    sigma = np.sqrt(whole * (1 - whole) / n * (total - n) / (total - 1))
    assert np.all(np.abs(share - whole) <= 4 * sigma + 1e-12), (share, whole)
    assert not np.array_equal(rows, LabelJob(kind="ply0", seed=1).selection(db))


def test_an_extended_database_keeps_its_positions_and_labels_and_jobs_resume_into_the_new_ones(
    database, best, tmp_path, capsys
):
    folder = tmp_path / "db"
    shutil.copytree(database, folder)
    db = PositionDatabase.load(folder)
    job = LabelJob(kind="ply0", chunk=64, shard=(1, 2))
    before = label(best, folder, job, stop_after=0.0)  # one chunk before the extension
    order = job.selection(db)
    assert (
        main(
            ["data", "build", str(folder), "--extend", "--selfplay", "300", "--backgame", "0", "--seed", "4"]
        )
        == 0
    )
    assert "new positions added" in capsys.readouterr().out
    grown = PositionDatabase.load(folder)
    n = len(db)
    assert grown.segments == [n, len(grown) - n] and len(grown) - n > 150
    assert np.array_equal(grown.boards[:n], db.boards) and np.array_equal(grown.klass[:n], db.klass)
    assert len(np.unique(grown.boards.reshape(len(grown), -1), axis=0)) == len(grown)  # nothing twice
    assert np.array_equal(grown.klass, classify(grown.boards)) and (grown.source[n:] == 0).all()
    assert [e["seed"] for e in grown.meta["extensions"]] == [4]
    grown_order = job.selection(grown)
    assert np.array_equal(grown_order[: len(order)], order)  # the old order first, as it was
    assert (grown_order[len(order) :] >= n).all()
    other = dataclasses.replace(job, shard=(0, 2)).selection(grown)
    assert sorted(np.concatenate([grown_order, other])) == list(range(len(grown)))  # shards cover it
    done = label(best, folder, job)  # resumes the chunk made before, then labels the new positions
    assert np.array_equal(done.index[: len(before.index)], before.index)
    assert np.array_equal(done.index, grown_order)
    expected = best.evaluate(torch.as_tensor(grown.boards[done.index])).numpy()
    np.testing.assert_allclose(done.probs, expected, atol=1e-5)
    with pytest.raises(ValueError, match="seed 4 already built"):
        grown.extend(build_database(best, selfplay=50, backgame=0, seed=4, games=8))
    assert main(["data", "build", str(folder), "--extend", "--seed", "3"]) == 2
    assert "seed 3 already built" in capsys.readouterr().err
    assert main(["data", "build", str(folder), "--extend", "--force"]) == 2
    assert "choose one" in capsys.readouterr().err
    assert main(["data", "build", str(tmp_path / "none"), "--extend"]) == 2
    assert "no position database" in capsys.readouterr().err


def test_mining_labels_another_sets_positions_where_it_disagrees_most_with_the_net_first(
    database, best, tmp_path, capsys
):
    folder = tmp_path / "db"
    folder.mkdir()
    shutil.copy(Path(database) / "positions.npz", folder)
    db = PositionDatabase.load(folder)
    deep = label(best, folder, LabelJob(kind="ply1", classes=("contact", "crashed"), chunk=512))
    jobs = [LabelJob(kind="ply0", worst_first="ply1-best-contact-crashed", shard=(k, 2)) for k in (0, 1)]
    assert jobs[0].name == "ply0-best-byply1"
    mined = [label(best, folder, job) for job in jobs]
    shallow = cubeless_equity(evaluate_position(best, torch.as_tensor(db.boards[deep.index]), 0))
    gap = np.full(len(db), np.nan)
    gap[deep.index] = np.abs(cubeless_equity(torch.as_tensor(deep.probs)).numpy() - shallow.numpy())
    both = np.concatenate([m.index for m in mined])
    assert sorted(both) == sorted(deep.index)  # only the positions the other set labels
    for m in mined:  # each shard from the largest disagreement down
        assert np.all(np.diff(gap[m.index]) <= 1e-6)
    assert gap[mined[0].index[0]] == pytest.approx(np.nanmax(gap), abs=1e-6)
    assert np.nanmax(gap) > 5 * np.nanmedian(gap)  # the order matters: the worst are far off
    args = ["data", "label", str(folder), "--kind", "ply0", "--worst-first", "ply1-nobody"]
    assert main(args) == 2
    assert "no labels called 'ply1-nobody'" in capsys.readouterr().err


def test_labels_made_for_a_longer_database_are_a_one_line_error_wherever_they_are_read(
    database, best, tmp_path
):
    folder = tmp_path / "db"
    folder.mkdir()
    shutil.copy(Path(database) / "positions.npz", folder)  # not the labels other tests made there
    n = len(PositionDatabase.load(folder))
    label(best, folder, LabelJob(kind="ply0", chunk=1000))
    path = folder / "labels" / "ply0-best.0of1.npz"
    with np.load(path) as data:
        arrays = dict(data)
    arrays["index"] = arrays["index"] + 1  # the last one now points past the end
    save_npz(path, **arrays)
    for read in (
        lambda: load_labels(folder, "ply0-best", n),
        lambda: training_data(FitConfig(database=str(folder), labels=("ply0-best",))),
        lambda: label(best, folder, LabelJob(kind="ply1", worst_first="ply0-best")),
    ):
        with pytest.raises(ValueError, match="point past the end of the database"):
            read()
    assert len(load_labels(folder, "ply0-best").index) == n  # without a size: read as it is


def test_rollout_labels_carry_their_standard_errors(database, best):
    job = LabelJob(kind="rollout", trials=6, truncate=2, classes=("backgame",), chunk=4)
    labels = label(best, database, job, stop_after=0.0)
    db = PositionDatabase.load(database)
    assert (db.klass[labels.index] == CLASSES.index("backgame")).all()
    assert (labels.se > 0).all() and np.isfinite(labels.probs).all()
    plain = LabelJob(
        kind="rollout", trials=6, truncate=2, classes=("backgame",), chunk=4, variance_reduction=False
    )
    assert plain.name == "rollout6t2nv-best-backgame"
    plain_labels = label(best, database, plain, stop_after=0.0)
    assert np.array_equal(plain_labels.index, labels.index)
    assert plain_labels.se.mean() > 2 * labels.se.mean()  # without variance reduction: the luck stays in


def test_move_labels_are_every_legal_move_of_seeded_rolls_resumable_and_sharded(database, best):
    job = LabelJob(kind="moves0", rolls=2, sources=("selfplay",), chunk=40, shard=(0, 2))
    first = label(best, database, job, stop_after=0.0)
    assert len(first.index) == 40 and first.afterstates.pairs == 80
    label(best, database, job)
    label(best, database, LabelJob(kind="moves0", rolls=2, sources=("selfplay",), chunk=40, shard=(1, 2)))
    moves = load_move_labels(database, "moves0x2-best-selfplay")
    db = PositionDatabase.load(database)
    assert sorted(moves.index) == list(np.flatnonzero(db.source == 0))
    some = np.arange(0, len(moves.index), 7)
    pairs = (some[:, None] * 2 + np.arange(2)).ravel()
    dice = dice_of(0, moves.index[some].repeat(2), np.tile([0, 1], len(some)))
    np.testing.assert_array_equal(moves.dice[some].reshape(-1, 2), dice)  # the same rolls in every shard
    children, _ = expand(
        torch.as_tensor(db.boards[moves.index[some]]).repeat_interleave(2, 0), torch.as_tensor(dice)
    )
    a = moves.afterstates
    mine = torch.isin(a.group, torch.as_tensor(pairs))
    assert int(mine.sum()) <= len(children)  # every legal move, less finished games and bear-offs
    np.testing.assert_allclose(a.probs[mine], best.evaluate(a.boards[mine].long()), atol=1e-5)
    deeper = label(best, database, LabelJob(kind="moves1", classes=("contact",), chunk=3), stop_after=0.0)
    b = deeper.afterstates
    np.testing.assert_allclose(b.probs, evaluate_position(best, b.boards.long(), 1), atol=1e-5)
    with pytest.raises(ValueError, match="other settings"):
        label(
            best,
            database,
            LabelJob(kind="moves0", rolls=2, sources=("selfplay",), chunk=40, shard=(0, 2), seed=1),
        )
    with pytest.raises(ValueError, match="never come from gnubg"):
        LabelJob(kind="moves1", player="gnubg@2ply")


def test_deep_move_labels_can_be_deep_for_each_rolls_top_moves_only(database, best):
    job = LabelJob(kind="moves2", top=2, classes=("contact",), chunk=8)  # enough rolls with 3+ moves
    assert job.name == "moves2top2-best-contact"
    a = label(best, database, job, stop_after=0.0).afterstates
    shallow = evaluate_position(best, a.boards.long(), 1)
    mover = -cubeless_equity(shallow)
    differ = 0
    for g in range(a.pairs):
        rows = torch.nonzero(a.group == g).squeeze(1)
        top = rows[torch.argsort(mover[rows], descending=True)[:2]]
        rest = rows[~torch.isin(rows, top)]
        deep = evaluate_position(best, a.boards[top].long(), 2)
        np.testing.assert_allclose(a.probs[top], deep, atol=1e-5)
        change = (deep - shallow[top]).mean(0)
        np.testing.assert_allclose(a.probs[rest], (shallow[rest] + change).clamp(0, 1), atol=1e-5)
        differ += bool(len(rest)) and bool((change.abs() > 1e-4).any())
    assert differ  # a real test: some roll has moves beyond its top 2, and the depths differ
    with pytest.raises(ValueError, match="top"):
        LabelJob(kind="moves1", top=2)


def _listwise_fit_of_a_teacher(database, tmp_path, nets: dict[str, ValueNet]) -> FitConfig:
    """Save ``nets`` as ``tmp_path/<name>.pt``, label every move of two rolls a position with
    ``nets["teacher"]``'s 0-ply values, and return a quick listwise fit of ``student.pt`` to them."""
    for name, net in nets.items():
        save_atomic(
            {"format": FORMAT, "net_spec": net.spec(), "model": net.state_dict()}, tmp_path / f"{name}.pt"
        )
    job = LabelJob(kind="moves0", player=str(tmp_path / "teacher.pt"), rolls=2, chunk=1000)
    label(NetEvaluator(nets["teacher"]), database, job)
    return FitConfig(
        database=database,
        labels=(job.name,),
        init=str(tmp_path / "student.pt"),
        loss="listwise",
        lr=1e-2,
        epochs=2,
        batch=64,
    )


def test_listwise_fitting_learns_the_teachers_move_choices(database, tmp_path):
    torch.manual_seed(0)
    teacher, student = ValueNet("tesauro198", [8]), ValueNet("tesauro198", [8])  # any fixed teacher
    cfg = _listwise_fit_of_a_teacher(database, tmp_path, {"teacher": teacher, "student": student})
    lines = []
    fit(cfg, tmp_path / "run", log=lines.append)
    history = torch.load(tmp_path / "run" / "latest.pt", weights_only=False)["fit_state"]["history"]
    before, after = history[0], history[-1]
    assert after["same_move"] >= 0.8 > before["same_move"] + 0.3, lines
    assert 0 <= after["equity_lost"] < before["equity_lost"] / 4, lines
    lines.clear()
    fit(dataclasses.replace(cfg, epochs=3), tmp_path / "run", log=lines.append)  # a listwise fit resumes
    assert lines[0] == "resuming at epoch 2" and lines[-1].startswith("epoch 3"), lines
    with pytest.raises(ValueError, match="no move labels called"):
        fit(FitConfig(database=database, labels=("moves0-other",), loss="listwise"), tmp_path / "other")


def test_anchoring_keeps_the_teachers_differences_within_a_roll_and_takes_the_anchors_level():
    teacher = torch.tensor([[0.5, 0.1, 0.0, 0.1, 0.0], [0.6, 0.2, 0.0, 0.1, 0.0], [0.3, 0.1, 0.0, 0.2, 0.0]])
    anchor = torch.tensor([[0.6, 0.2, 0.0, 0.1, 0.0], [0.6, 0.3, 0.0, 0.1, 0.0], [0.4, 0.1, 0.0, 0.1, 0.0]])
    data = LabelledAfterstates(torch.zeros(3, 2, 25, dtype=torch.int8), teacher, torch.tensor([0, 0, 1]), 2)
    moved = anchored(data, anchor)
    torch.testing.assert_close(moved[1] - moved[0], teacher[1] - teacher[0])  # the choice: the teacher's
    torch.testing.assert_close(moved[:2].mean(0), anchor[:2].mean(0))  # the level: the anchor's
    torch.testing.assert_close(moved[2], anchor[2])


def test_an_anchored_listwise_fit_learns_the_teachers_choices_at_the_anchors_level(database, tmp_path):
    torch.manual_seed(0)
    teacher, student = ValueNet("tesauro198", [8]), ValueNet("tesauro198", [8])
    anchor = ValueNet("tesauro198", [8])
    anchor.load_state_dict(teacher.state_dict())
    with torch.no_grad():
        anchor.head.bias[0] += 0.5  # the same net, more confident of winning: another level
    plain = _listwise_fit_of_a_teacher(
        database, tmp_path, {"teacher": teacher, "student": student, "anchor": anchor}
    )
    boards = torch.as_tensor(load_move_labels(database, plain.labels[0]).afterstates.boards[:2000])
    win = {}
    for name, anchor_net in (("plain", ""), ("anchored", str(tmp_path / "anchor.pt"))):
        cfg = dataclasses.replace(plain, anchor=anchor_net)
        report = fit(cfg, tmp_path / name, log=lambda _: None)
        assert report["same_move"] >= 0.8  # the choices are learnt either way
        with torch.no_grad():
            win[name] = float(load_net(tmp_path / name / "latest.pt")(boards)[:, 0].mean())
    nets = {"teacher": teacher, "anchor": anchor}
    with torch.no_grad():  # mean chance of winning
        levels = {name: float(net(boards)[:, 0].mean()) for name, net in nets.items()}
    assert levels["anchor"] > levels["teacher"] + 0.1
    assert abs(win["plain"] - levels["teacher"]) < 0.03 and abs(win["anchored"] - levels["anchor"]) < 0.03
    with pytest.raises(ValueError, match="anchor"):
        FitConfig(database=database, labels=("ply0-best",), anchor="best")


def test_a_listwise_fit_learns_position_labels_beside_the_moves_by_their_weight(database, best, tmp_path):
    """Values of back-game positions (by another net) beside move labels: the values are learnt as
    much as their weight asks, the moves when the values ask little."""
    torch.manual_seed(1)
    nets = {name: ValueNet("tesauro198", [8]) for name in ("teacher", "student")}
    for name, net in nets.items():
        save_atomic(
            {"format": FORMAT, "net_spec": net.spec(), "model": net.state_dict()}, tmp_path / f"{name}.pt"
        )
    moves = LabelJob(kind="moves0", player=str(tmp_path / "teacher.pt"), rolls=2, chunk=1000)
    label(NetEvaluator(nets["teacher"]), database, moves)
    values = LabelJob(kind="ply0", classes=("backgame",), chunk=1000)
    label(best, database, values)
    histories = {}
    for weight in ("1", "0.001"):
        cfg = FitConfig(
            database=database,
            labels=(moves.name, f"{values.name}:{weight}"),
            init=str(tmp_path / "student.pt"),
            loss="listwise",
            lr=1e-2,
            epochs=3,
            batch=64,
        )
        fit(cfg, tmp_path / weight, log=lambda _: None)
        histories[weight] = torch.load(tmp_path / weight / "latest.pt", weights_only=False)["fit_state"][
            "history"
        ]
    before, strong, faint = histories["1"][0], histories["1"][-1], histories["0.001"][-1]
    assert set(before) >= {"same_move", "positions_equity_mae", "equity_mae_backgame"}
    assert (
        strong["positions_equity_mae"]
        < min(before["positions_equity_mae"], faint["positions_equity_mae"]) / 1.5  # ÷ 1.9 measured
    )
    assert faint["same_move"] >= 0.7 > before["same_move"] + 0.2
    # the move labels' level from an anchor, position labels beside (once refused by mistake)
    anchored_fit = dataclasses.replace(
        cfg, labels=(moves.name, f"{values.name}:1"), anchor=str(tmp_path / "teacher.pt"), epochs=1
    )
    fit(anchored_fit, tmp_path / "anchored", log=lambda _: None)
    assert (
        "positions_equity_mae"
        in torch.load(tmp_path / "anchored" / "latest.pt", weights_only=False)["fit_state"]["history"][-1]
    )
    with pytest.raises(ValueError, match="needs move labels"):
        FitConfig(database=database, labels=("ply0-best",), loss="listwise")
    with pytest.raises(ValueError, match="with --loss listwise"):
        FitConfig(database=database, labels=(moves.name, "ply0-best"))


def test_a_share_of_the_database_fits_a_seeded_part_of_both_label_kinds(database, best):
    """``share`` keeps a seeded part of the training positions, of the move labels and of the
    position labels, and measures on the whole held-out part."""
    moves = LabelJob(kind="moves0", rolls=2, chunk=1000)
    label(best, database, moves)
    label(best, database, LabelJob(kind="ply0", classes=("backgame",), chunk=1000))
    net = load_net(shipped_checkpoint("best"))
    tasks = {
        share: _MoveChoices(
            FitConfig(
                database=database, labels=(moves.name, "ply0-best-backgame"), loss="listwise", share=share
            ),
            net,
        )
        for share in (1.0, 0.5)
    }
    whole, half = tasks[1.0], tasks[0.5]

    def positions(task, pairs):
        return set(task.position[pairs.numpy()].tolist())

    kept = positions(half, half.train_pairs)
    assert kept < positions(whole, whole.train_pairs) and len(kept) > 10
    assert 0.35 < len(half.train_pairs) / len(whole.train_pairs) < 0.65
    assert positions(half, half.test_pairs) == positions(whole, whole.test_pairs)
    assert len(half.x) < 0.8 * len(whole.x)  # the rest is never loaded
    values = set(half.positions.rows[half.positions.train_rows].tolist())
    assert values < set(whole.positions.rows[whole.positions.train_rows].tolist()) and len(values) > 10
    with pytest.raises(ValueError, match="share"):
        FitConfig(database=database, labels=(moves.name,), loss="listwise", share=0.0)


def test_the_listwise_loss_cares_about_the_movers_best_moves_not_the_worst():
    """Afterstate probabilities are the opponent's: the mover's best move has the lowest equity.
    Swapping the mover's two best moves must cost far more than swapping the two worst."""

    def afterstates(opponent_equities):  # win probabilities only: equity = 2 p - 1
        p = (torch.tensor(opponent_equities) + 1) / 2
        return torch.stack([p, *([torch.zeros_like(p)] * 4)], 1)

    teacher = afterstates([-0.50, -0.45, 0.45, 0.50])
    group = torch.zeros(4, dtype=torch.long)

    def cost(student):
        return float(
            listwise_loss(afterstates(student), teacher, group, 1, 0.02)
            - listwise_loss(teacher, teacher, group, 1, 0.02)
        )

    assert cost([-0.45, -0.50, 0.45, 0.50]) > 0.5
    assert cost([-0.50, -0.45, 0.50, 0.45]) < 1e-3


def test_fit_starts_from_the_trained_net_keeps_the_best_and_resumes(database, tmp_path):
    one_layer = evaluator_of(load_player(ONE_LAYER), "tests")[0]
    job = LabelJob(kind="ply0", player=ONE_LAYER, chunk=1000)
    label(one_layer, database, job)
    wider = (load_net(shipped_checkpoint(ONE_LAYER)).hidden[0] + 32,)
    shape = dict(database=database, labels=(job.name,), init=ONE_LAYER, hidden=wider, lr=1e-4)
    first = fit(FitConfig(**shape, epochs=1), tmp_path / "run", log=lambda _: None)
    assert (tmp_path / "run" / "best.pt").exists() and (tmp_path / "run" / "latest.pt").exists()
    lines = []
    fit(FitConfig(**shape, epochs=2), tmp_path / "run", log=lines.append)
    assert lines[0] == "resuming at epoch 1" and lines[-1].startswith("epoch 2")
    assert first["equity_mae"] < 0.05  # the grown net starts where its init is: its own 0-ply labels
    with pytest.raises(ValueError, match="other settings"):
        fit(FitConfig(**{**shape, "lr": 1e-2}), tmp_path / "run")


def test_a_fit_widened_by_splitting_starts_where_the_init_net_is_with_every_unit_live(database):
    init = load_net(shipped_checkpoint(ONE_LAYER))
    wider = (init.hidden[0] + 16,)
    cfg = FitConfig(database=database, labels=("ply0-best",), init=ONE_LAYER, hidden=wider, widen="split")
    net = initial_net(cfg)
    boards = torch.as_tensor(PositionDatabase.load(database).boards[:300])
    with torch.no_grad():
        torch.testing.assert_close(net(boards), init(boards), atol=1e-5, rtol=0)
    assert net.hidden == wider and torch.all(net.head.weight[:, init.hidden[0] :].abs().sum(0) > 0)
    with pytest.raises(ValueError, match="widen"):
        FitConfig(database=database, labels=("ply0-best",), widen="copy")


def test_a_fit_deepened_by_residual_blocks_starts_where_the_init_net_is_and_saves_them(
    database, best, tmp_path
):
    label(best, database, LabelJob(kind="ply0", chunk=1000))
    init = load_net(shipped_checkpoint("best"))
    cfg = FitConfig(database=database, labels=("ply0-best",), residual=(16,), epochs=1, lr=1e-3)
    boards = torch.as_tensor(PositionDatabase.load(database).boards[:300])
    with torch.no_grad():
        torch.testing.assert_close(initial_net(cfg)(boards), init(boards), atol=0, rtol=0)
    fit(cfg, tmp_path / "run", log=lambda _: None)
    fitted = load_net(tmp_path / "run" / "latest.pt")
    assert fitted.residual == (16,) and fitted.blocks[0].outer.weight.abs().sum() > 0  # it joined in
    with pytest.raises(ValueError, match="residual sizes must be positive"):
        FitConfig(database=database, labels=("ply0-best",), residual=(0,))


def test_a_fit_from_scratch_makes_a_seeded_net_of_any_depth_and_learns(database, best, tmp_path):
    """``--init scratch``: a shape no trained net can grow into (two hidden layers), its random
    weights fixed by the fit's seed, fitted until it is close to its teacher."""
    label(best, database, LabelJob(kind="ply0", chunk=1000))
    shape = dict(database=database, labels=("ply0-best",), init="scratch", encoding="rich_shots")
    cfg = FitConfig(**shape, hidden=(24, 16), epochs=10, lr=3e-3, batch=32)
    first, again, other = initial_net(cfg), initial_net(cfg), initial_net(dataclasses.replace(cfg, seed=1))
    assert first.hidden == (24, 16) and first.encoding.name == "rich_shots"
    assert torch.equal(first.layers[1].weight, again.layers[1].weight)
    assert not torch.equal(first.layers[1].weight, other.layers[1].weight)
    lines = []
    last = fit(cfg, tmp_path / "run", log=lines.append)
    start = torch.load(tmp_path / "run" / "latest.pt", weights_only=False)["fit_state"]["history"][0]
    assert last["epoch"] == 10 and last["loss"] < 0.5 * start["loss"], lines
    with pytest.raises(ValueError, match="from scratch needs its hidden sizes and encoding"):
        FitConfig(**{**shape, "encoding": ""}, hidden=(24,))


def test_a_cosine_schedule_lowers_the_step_each_epoch_and_resumes_on_it(database, best, tmp_path):
    label(best, database, LabelJob(kind="ply0", chunk=1000))
    settings = dict(database=database, labels=("ply0-best",), lr=1e-4, schedule="cosine")
    fit(FitConfig(**settings, epochs=2), tmp_path / "run", log=lambda _: None)
    # resumed with each epoch's net kept from now on (a setting that may change on resuming)
    history = fit(FitConfig(**settings, epochs=3, keep_epochs=True), tmp_path / "run", log=lambda _: None)
    assert history["epoch"] == 3 and history["lr"] == pytest.approx(1e-4 * 0.25)  # cos(2π/3) = -1/2
    latest = torch.load(tmp_path / "run" / "latest.pt", weights_only=False)
    state = latest["fit_state"]
    assert [h["lr"] for h in state["history"][1:]] == pytest.approx([1e-4, 0.5e-4, 0.25e-4])
    assert sorted(p.name for p in (tmp_path / "run").glob("epoch_*.pt")) == ["epoch_003.pt"]
    kept = torch.load(tmp_path / "run" / "epoch_003.pt", weights_only=False)
    assert "optimizer" not in kept
    assert all(torch.equal(kept["model"][k], v) for k, v in latest["model"].items())


def test_a_fit_on_cuda_is_the_cpus_or_cuda_is_a_one_line_error(database, best, tmp_path, capsys):
    """``bgai fit --device cuda`` fits where torch sees a GPU, epoch for epoch as on the CPU (a
    listwise fit with position labels beside: every tensor of the loss on the device); elsewhere
    it is refused before any work."""
    label(best, database, LabelJob(kind="moves0", classes=("contact",), chunk=1000))
    label(best, database, LabelJob(kind="ply0", chunk=1000))
    args = [database, "--labels", "moves0-best-contact,ply0-best:0.5", "--loss", "listwise", "--epochs", "2"]
    reports = {}
    for device in ("cpu", "cuda"):
        run = tmp_path / device
        code = main(["fit", *args[:1], str(run), *args[1:], "--device", device])
        if device == "cuda" and not torch.cuda.is_available():
            assert code == 2 and "torch sees no CUDA device" in capsys.readouterr().err
            assert not run.exists()
            return
        assert code == 0
        reports[device] = torch.load(run / "latest.pt", weights_only=True)["fit_state"]["history"]
        assert all(np.isfinite(r["loss"]) and r["same_move"] > 0 for r in reports[device])
    for cpu, gpu in zip(reports["cpu"], reports["cuda"], strict=True):
        for key in ("loss", "same_move", "equity_lost", "positions_equity_mae"):
            assert abs(cpu[key] - gpu[key]) < 1e-3, (key, cpu[key], gpu[key])


def test_label_sets_carry_their_weights_and_later_ones_win(database, best):
    label(best, database, LabelJob(kind="ply0", chunk=1000))
    label(best, database, LabelJob(kind="ply1", classes=("backgame",), chunk=1000))
    cfg = FitConfig(database=database, labels=("ply0-best:0.25", "ply1-best-backgame"))
    db, rows, targets, weights = training_data(cfg)
    back = db.klass[rows] == CLASSES.index("backgame")
    assert back.any() and (~back).any() and len(rows) == len(db)
    assert np.all(weights[back] == 1.0) and np.all(weights[~back] == 0.25)
    np.testing.assert_array_equal(targets[back], load_labels(database, "ply1-best-backgame").probs)
    assert not np.allclose(targets[back], load_labels(database, "ply0-best").probs[rows[back]])


def test_a_later_move_label_set_wins_on_the_positions_both_label(database, best, tmp_path):
    folder = tmp_path / "db"
    folder.mkdir()
    shutil.copy(Path(database) / "positions.npz", folder)
    other = evaluator_of(load_player("best_2c"), "tests")[0]
    label(best, folder, LabelJob(kind="moves0", chunk=1000))
    label(other, folder, LabelJob(kind="moves0", player="best_2c", shard=(0, 2), chunk=1000))
    first, later = load_move_labels(folder, "moves0-best"), load_move_labels(folder, "moves0-best_2c")
    db = PositionDatabase.load(folder)
    drop = np.zeros(len(db), dtype=bool)
    drop[later.index] = True
    rest = without_positions(first, drop)
    assert set(rest.index) == set(first.index) - set(later.index) and len(rest.index) > 100
    assert rest.afterstates.pairs == len(rest.index) == int(rest.afterstates.group.max()) + 1
    kept = np.flatnonzero(~drop[first.index])  # the same afterstates, renumbered
    rows = np.isin(first.afterstates.group.numpy(), kept)
    assert torch.equal(rest.afterstates.probs, first.afterstates.probs[torch.as_tensor(rows)])
    net = load_net(shipped_checkpoint("best"))
    both = _MoveChoices(
        FitConfig(database=str(folder), labels=("moves0-best", "moves0-best_2c"), loss="listwise"), net
    )
    assert len(both.y) == len(rest.afterstates) + len(later.afterstates)  # each position once
    assert torch.equal(both.y[len(rest.afterstates) :], later.afterstates.probs)  # the later teacher's


def test_the_fitting_loss_weighs_each_position():
    from bgai.train.fit import position_loss

    probs = torch.tensor([[0.5, 0.1, 0.0, 0.1, 0.0], [0.9, 0.3, 0.0, 0.0, 0.0]])
    target = torch.tensor([[0.5, 0.1, 0.0, 0.1, 0.0], [0.1, 0.0, 0.0, 0.3, 0.0]])
    for kind in ("mse", "ce"):
        alone = position_loss(probs[:1], target[:1], torch.ones(1), kind)
        assert float(position_loss(probs, target, torch.tensor([1.0, 0.0]), kind)) == pytest.approx(
            float(alone)
        )
        assert float(position_loss(probs, target, torch.tensor([1.0, 1.0]), kind)) > float(alone)


@pytest.mark.parametrize(
    "kwargs, message",
    [
        (dict(labels=("ply2-best:0",)), "positive weight"),
        (dict(labels=("ply2-best:x",)), "positive weight"),
        (dict(loss="l1"), "loss must be"),
        (dict(epochs=0), "epochs must be"),
        (dict(lr=0), "lr must be"),
        (dict(schedule="step"), "schedule must be"),
        (dict(labels=()), "at least one label"),
        (dict(loss="listwise", temperature=0), "temperature must be"),
    ],
)
def test_bad_fit_settings_are_one_line_errors(kwargs, message):
    with pytest.raises(ValueError, match=message):
        FitConfig(**{"database": "x", "labels": ("ply2-best",), **kwargs})


def test_cli_refuses_bad_data_commands(database, capsys):
    assert main(["data", "build", database]) == 2
    assert "exists" in capsys.readouterr().err
    assert main(["data", "label", database, "--kind", "ply2", "--shard", "2/2"]) == 2
    assert "shard must be" in capsys.readouterr().err
    assert main(["data", "label", database, "--kind", "ply9"]) == 2
    assert "unknown label kind" in capsys.readouterr().err
    assert main(["data", "label", database, "--kind", "moves1", "--rolls", "0"]) == 2
    assert "rolls must be" in capsys.readouterr().err
    assert main(["data", "label", database, "--kind", "moves1", "--sources", "opening"]) == 2
    assert "unknown position source" in capsys.readouterr().err
    assert main(["data", "label", database, "--kind", "ply2", "--player", "gnubg@2ply"]) == 2
    assert "never come from gnubg" in capsys.readouterr().err
    assert main(["data", "label", database, "--kind", "ply0", "--device", "tpu"]) == 2
    assert "unknown device 'tpu'" in capsys.readouterr().err
    assert main(["data", "info", database, "--json"]) == 0
    assert '"positions"' in capsys.readouterr().out


def test_labels_know_their_teachers_weights_and_a_promoted_name_cannot_resume(database, tmp_path, capsys):
    """``best`` (or any path) may name another net tomorrow: the labels record the weights'
    digest, and resuming them with other weights is refused before any work."""
    from bgai.search import weights_digest

    folder, teacher = tmp_path / "db", tmp_path / "teacher.pt"
    folder.mkdir()
    shutil.copy(Path(database) / "positions.npz", folder)
    shutil.copy(shipped_checkpoint("best_2c"), teacher)
    command = ["data", "label", str(folder), "--kind", "ply0", "--player", str(teacher), "--chunk", "50"]
    assert main([*command, "--hours", "0"]) == 0  # one chunk
    labels = load_labels(folder, f"ply0-{str(teacher).replace('/', '_')}")
    assert labels.job["teacher"] == weights_digest(evaluator_of(load_player(str(teacher)))[0])
    shutil.copy(shipped_checkpoint("best"), teacher)  # the name now stands for a promoted net
    capsys.readouterr()
    assert main(command) == 2
    assert "labelled by another net" in capsys.readouterr().err
    assert len(load_labels(folder, f"ply0-{str(teacher).replace('/', '_')}").index) == 50  # nothing added


def test_the_weights_digest_tells_nets_apart_and_covers_the_pruner():
    from bgai.search import weights_digest

    best, again, old = (evaluator_of(load_player(s))[0] for s in ("best@1ply", "best@1ply", "best_2c"))
    assert weights_digest(best) == weights_digest(again) != weights_digest(old)
    assert weights_digest(best) != weights_digest(best.evaluator)  # the pruner counts


@pytest.mark.parametrize(
    "job",
    [
        LabelJob(kind="moves2", top=2, classes=("contact",), chunk=4),
        LabelJob(kind="rollout", truncate=7, classes=("contact",), chunk=6),
    ],
    ids=["moves2", "rollout"],
)
def test_labels_made_on_cuda_are_the_cpus_or_cuda_is_a_one_line_error(database, tmp_path, capsys, job):
    """Where torch sees a GPU the same job labels there (move generation, search, rollouts and
    nets on the device) and gives the CPU's labels (a rollout's dice are drawn on the host from
    each position and trial, so its trials are the CPU's); elsewhere asking for it is refused
    before any work."""
    args = ["data", "label", "--kind", job.kind, "--classes", "contact", "--chunk", str(job.chunk)]
    args += ["--top", str(job.top)] if job.top else ["--truncate", str(job.truncate)]
    made = {}
    for device in ("cpu", "cuda"):
        folder = tmp_path / device
        folder.mkdir()
        shutil.copy(Path(database) / "positions.npz", folder)
        code = main([*args[:2], str(folder), *args[2:], "--hours", "0", "--device", device])
        if device == "cuda" and not torch.cuda.is_available():
            assert code == 2 and "torch sees no CUDA device" in capsys.readouterr().err
            assert not job.path(folder).exists()
            return
        assert code == 0
        made[device] = (load_move_labels if job.moves else load_labels)(folder, job.name)
    cpu, gpu = made["cpu"], made["cuda"]
    assert np.array_equal(cpu.index, gpu.index) and len(cpu.index) == job.chunk
    if job.moves:
        cpu, gpu = cpu.afterstates, gpu.afterstates
        assert torch.equal(cpu.boards, gpu.boards) and torch.equal(cpu.group, gpu.group)
        torch.testing.assert_close(gpu.probs, cpu.probs, atol=1e-4, rtol=0)
    else:
        np.testing.assert_allclose(gpu.probs, cpu.probs, atol=1e-4)
        np.testing.assert_allclose(gpu.se, cpu.se, atol=1e-4)


def test_td_self_play_can_start_a_share_of_its_games_from_back_game_set_ups():
    from bgai.train.config import load_config
    from bgai.train.selfplay import SelfPlay

    games = SelfPlay(
        400, "standard", 0.7, 0.0, torch.Generator().manual_seed(1), torch.device("cpu"), backgame_starts=0.3
    )
    share = (classify(games.boards) == CLASSES.index("backgame")).mean()
    assert 0.2 < share < 0.4
    plain = SelfPlay(50, "standard", 0.7, 0.0, torch.Generator().manual_seed(1), torch.device("cpu"))
    assert (plain.boards == plain.start).all()
    with pytest.raises(ValueError, match="backgame_starts must lie in"):
        load_config(None, {"backgame_starts": "1.5"})
    races = SelfPlay(
        400, "standard", 0.7, 0.0, torch.Generator().manual_seed(1), torch.device("cpu"), race_starts=1.0
    )
    assert is_race(races.boards).all()
    with pytest.raises(ValueError, match="at most 1"):
        load_config(None, {"backgame_starts": "0.5", "race_starts": "0.6"})


def test_td_self_play_can_start_from_a_databases_training_positions_of_a_class(
    database, tmp_path, monkeypatch
):
    import bgai.train.selfplay as selfplay
    from bgai.train.config import load_config
    from bgai.train.loop import train

    db = PositionDatabase.load(database)
    pool = db.part_boards("backgame")
    assert (classify(pool) == CLASSES.index("backgame")).all()
    held_out = {b.tobytes() for b in db.boards[db.held_out]}
    assert len(pool) and not any(b.tobytes() in held_out for b in pool)

    opening_rolls = []
    monkeypatch.setattr(
        selfplay, "opening_roll", lambda n, g: opening_rolls.append(n) or torch.ones(n, 2).long()
    )
    cpu = torch.device("cpu")
    games = selfplay.SelfPlay(
        64,
        "standard",
        1.0,
        0.0,
        torch.Generator().manual_seed(1),
        cpu,
        database_starts=1.0,
        start_boards=torch.as_tensor(pool),
    )
    known = {b.tobytes() for b in pool}
    assert all(b.tobytes() in known for b in games.boards.numpy())
    games.play_turn(ValueNet("tesauro198", [8]))
    assert opening_rolls == []  # a game from a database position starts with an ordinary roll
    selfplay.SelfPlay(8, "standard", 1.0, 0.0, torch.Generator(), cpu).play_turn(ValueNet("tesauro198", [8]))
    assert opening_rolls == [8]

    with pytest.raises(ValueError, match="unknown position class 'backgames'"):
        db.part_boards("backgames")
    with pytest.raises(ValueError, match="needs a start_database"):
        load_config(None, {"database_starts": "0.5"})
    runs = tmp_path / "runs"
    settings = {"database_starts": "0.5", "start_database": str(tmp_path / "nowhere"), "runs_dir": str(runs)}
    with pytest.raises(ValueError, match="no position database at"):
        train(None, settings, log=lambda *_: None)
    assert not runs.exists()  # refused before any folder was made


def test_a_split_net_trained_on_races_alone_leaves_its_contact_net_untouched(tmp_path):
    from bgai.train.loop import train

    torch.manual_seed(0)
    start = ValueNet("tesauro198", [8])
    save_atomic(
        {"format": FORMAT, "net_spec": start.spec(), "model": start.state_dict()}, tmp_path / "start.pt"
    )
    settings = {"encoding": "tesauro198", "hidden": "[8]", "split_race": "true", "race_starts": "1.0"}
    settings |= {"init": str(tmp_path / "start.pt"), "games": "40", "parallel_games": "16", "lr": "0.01"}
    settings |= {"eval_every": "0", "checkpoint_every": "40", "runs_dir": str(tmp_path / "runs")}
    net = load_net(train(None, settings, log=lambda *_: None) / "latest.pt")
    for name, weight in start.state_dict().items():
        assert torch.equal(net.contact.state_dict()[name], weight), name
    assert any(not torch.equal(net.race.state_dict()[n], w) for n, w in start.state_dict().items())
