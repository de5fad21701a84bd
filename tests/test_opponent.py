"""Exported opponents: bgai export, Opponent.load in a fresh process, cube and resign answers,
one-line errors for damaged exports, and the ladder's deterministic noise."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys

import pytest
import torch
from safetensors import safe_open
from safetensors.torch import save_file

import bgai
from bgai.bots import SearchPlayer
from bgai.cli.main import main
from bgai.engine.board import swap_sides
from bgai.engine.sampling import sample_positions
from bgai.formats import MatchState, encode_gnubg_id, encode_position_id
from bgai.model.checkpoint import FORMAT as CHECKPOINT_FORMAT
from bgai.model.checkpoint import load_net, save_atomic
from bgai.model.net import ValueNet
from bgai.moves import legal_moves_batch
from bgai.opponent import LEVELS, Opponent, export_opponent, get_level
from bgai.search import FILTERS, NetEvaluator
from bgai.specs import load_player
from tests.positions import pos

START = "4HPwATDgc/ABMA"


@pytest.fixture(scope="module")
def checkpoint(tmp_path_factory):
    """A tiny untrained net (seeded): enough to tell moves apart, fast to search."""
    torch.manual_seed(0)
    net = ValueNet(hidden=(8,))
    path = tmp_path_factory.mktemp("ckpt") / "tiny.pt"
    save_atomic({"format": CHECKPOINT_FORMAT, "net_spec": net.spec(), "model": net.state_dict()}, path)
    return path


@pytest.fixture(scope="module")
def exports(checkpoint, tmp_path_factory):
    """Every ladder level exported from the tiny checkpoint: level name -> folder."""
    root = tmp_path_factory.mktemp("ladder")
    return {name: export_opponent(checkpoint, name, root / name) for name in LEVELS}


@pytest.fixture
def expert_copy(exports, tmp_path):
    """A private copy of the expert export, free to damage."""
    return shutil.copytree(exports["expert"], tmp_path / "expert")


# --- export -----------------------------------------------------------------------------------


def test_export_writes_weights_without_pickle_and_describes_the_level(exports, checkpoint):
    folder = exports["worldclass"]
    info = json.loads((folder / "bgai.json").read_text())
    assert info["format"] == "bgai-opponent-v1"
    assert info["name"] == "bgai-worldclass-v1"
    assert info["architecture"] == load_net(checkpoint).spec()
    assert info["input_encoding"]["name"] == "tesauro198" and info["input_encoding"]["size"] == 198
    assert info["outputs"]["names"] == [
        "win",
        "win_gammon",
        "win_backgammon",
        "lose_gammon",
        "lose_backgammon",
    ]
    assert info["play"]["plies"] == 2 and info["play"]["move_filter"]["name"] == "normal"
    assert info["play"]["noise"] == {**info["play"]["noise"], "stddev": 0.0, "deterministic": True, "seed": 0}
    assert info["cube"]["jacoby"] is True and info["cube"]["beavers"] is True
    assert info["strength"] is None
    with safe_open(str(folder / "model.safetensors"), framework="pt") as f:
        assert f.metadata()["format"] == "bgai-opponent-v1"
        assert set(f.keys()) == set(load_net(checkpoint).state_dict())


def test_export_command_and_the_lazy_top_level_name(checkpoint, tmp_path, capsys):
    out = tmp_path / "casual"
    assert main(["export", str(checkpoint), "--level", "Casual", "-o", str(out)]) == 0
    assert "bgai-casual-v1" in capsys.readouterr().out
    opponent = bgai.Opponent.load(out)
    assert (opponent.level, opponent.plies, opponent.noise) == ("casual", 0, LEVELS["casual"].noise)


def test_onnx_without_the_package_is_a_one_line_error(checkpoint, tmp_path, capsys, monkeypatch):
    monkeypatch.setitem(sys.modules, "onnx", None)  # as if it were not installed
    code = main(["export", str(checkpoint), "--level", "expert", "-o", str(tmp_path / "x"), "--onnx"])
    err = capsys.readouterr().err
    assert code == 2
    assert err.count("\n") == 1 and "onnx" in err


def test_levels_run_from_beginner_to_world_class():
    assert list(LEVELS)[0] == "beginner" and list(LEVELS)[-1] == "worldclass" and len(LEVELS) >= 6
    assert (LEVELS["strong"].plies, LEVELS["strong"].noise) == (0, 0)  # the net alone
    assert 0 < LEVELS["expert"].noise < LEVELS["advanced"].noise  # then ever noisier
    plies_then_noise = [(level.plies, -level.noise) for level in LEVELS.values()]
    assert plies_then_noise == sorted(plies_then_noise) and len(set(plies_then_noise)) == len(LEVELS)
    assert get_level("World class") is get_level("world-class") is LEVELS["worldclass"]
    assert get_level("hard") is LEVELS["expert"]
    with pytest.raises(ValueError, match="unknown level"):
        get_level("grandmaster")


def test_a_levels_description_reads_its_settings_from_the_level():
    advanced, worldclass = LEVELS["advanced"], LEVELS["worldclass"]
    assert advanced.description == f"gnubg's Advanced: 0-ply, noise {advanced.noise:.3f}"
    assert worldclass.description == "gnubg's World class: 2-ply, normal move filter"
    assert "noise" not in LEVELS["strong"].description  # the net alone adds none


# --- playing ----------------------------------------------------------------------------------


def test_export_plays_like_the_checkpoint_in_a_fresh_process(exports, checkpoint, tmp_path):
    """No training code, no checkpoint: only the folder, in a new interpreter. The level has
    noise, so its seed and size travel with the export too."""
    folder = shutil.copytree(exports["advanced"], tmp_path / "advanced")
    boards, dice = sample_positions(50, "random", seed=5)
    cases = [
        (encode_position_id(b.numpy()), f"{d[0]}{d[1]}") for b, d in zip(boards, dice.tolist(), strict=True)
    ]
    script = (
        "import json, sys, bgai\n"
        "opponent = bgai.Opponent.load(sys.argv[2])\n"
        "moves = [opponent.choose_move(p, d) for p, d in json.loads(sys.argv[1])]\n"
        "train = [m for m in sys.modules if m.startswith('bgai.train')]\n"
        "print(json.dumps({'moves': moves, 'train': train}))\n"
    )
    run = subprocess.run(
        [sys.executable, "-c", script, json.dumps(cases), str(folder)],
        capture_output=True,
        text=True,
        timeout=120,
        cwd=tmp_path,
        env={**os.environ, "OMP_NUM_THREADS": "1"},
    )
    assert run.returncode == 0, run.stderr
    played = json.loads(run.stdout)
    assert played["train"] == []
    same_settings = SearchPlayer(
        NetEvaluator(load_net(checkpoint)), 0, FILTERS["normal"], LEVELS["advanced"].noise, noise_seed=0
    )
    after = swap_sides(same_settings.choose(boards, dice).numpy())
    notation = [
        dict((pid, move) for move, pid in moves) for moves in legal_moves_batch(boards.numpy(), dice.tolist())
    ]
    expected = [notation[i].get(encode_position_id(after[i]), "") for i in range(len(cases))]
    assert played["moves"] == expected
    assert sum(move != "" for move in expected) > 40


def test_no_legal_move_is_the_empty_move(exports):
    dance = encode_position_id(pos("x bar:1 6:14; o 24:2 23:2 22:2 21:2 20:2 19:2 1:3").numpy())
    assert Opponent.load(exports["expert"]).choose_move(dance, "66") == ""


def test_ladder_noise_is_deterministic_per_position(exports):
    """The same position gets the same move, whatever else is in the batch and however loaded."""
    boards, dice = sample_positions(60, "random", seed=9)
    for name in ("beginner", "intermediate"):
        first, second = Opponent.load(exports[name]).player, Opponent.load(exports[name]).player
        chosen = first.choose(boards, dice)
        assert torch.equal(second.choose(boards.flip(0), dice.flip(0)).flip(0), chosen)
        assert all(
            torch.equal(first.choose(boards[i : i + 1], dice[i : i + 1])[0], chosen[i]) for i in range(5)
        )
    expert = Opponent.load(exports["expert"]).player.choose(boards, dice)
    beginner = Opponent.load(exports["beginner"]).player.choose(boards, dice)
    assert not torch.equal(expert, beginner)
    pid, roll = encode_position_id(boards[0].numpy()), f"{dice[0, 0]}{dice[0, 1]}"
    opponent = Opponent.load(exports["beginner"])
    assert opponent.choose_move(pid, roll) == opponent.choose_move(pid, roll)


def test_exported_folder_is_a_player_spec_for_bench(exports):
    player = load_player(str(exports["worldclass"]))
    assert isinstance(player, SearchPlayer) and player.plies == 2
    assert load_player(f"{exports['worldclass']}@0ply").plies == 0


# --- cube and resignations --------------------------------------------------------------------

# X (on roll) has one checker left on the 1-point, O all fifteen at home: X wins a gammon for sure.
GAMMON_FOR_X = pos("x 1:1; o 19:5 20:5 21:5").numpy()


def test_too_good_to_double_and_the_double_is_passed(exports):
    strong = Opponent.load(exports["worldclass"])  # at 2-ply every X roll bears off: exact outcomes
    money = MatchState(jacoby=False)
    assert strong.cube_action(encode_gnubg_id(GAMMON_FOR_X, money)) == "no double"  # too good
    offered = MatchState(jacoby=False, double_offered=True)
    assert strong.cube_action(encode_gnubg_id(GAMMON_FOR_X, offered)) == "pass"


def test_its_player_brings_the_same_cube_sense_to_cubeful_bench(exports):
    from bgai.bots.cube import cube_sense
    from bgai.cube import CubeState

    strong = Opponent.load(exports["worldclass"])
    assert cube_sense(strong.player) is strong.player
    boards, money = torch.as_tensor(GAMMON_FOR_X)[None], [CubeState.money(jacoby=False)]
    assert strong.player.cube_decisions(boards, money).tolist() == [False]
    assert strong.player.take_decisions(boards, money) == ["pass"]


def test_cube_answers_where_the_cube_is_not_available(exports):
    expert = Opponent.load(exports["expert"])
    board = GAMMON_FOR_X
    owned_by_o = MatchState(cube_value=2, cube_owner=0, on_roll=1)
    assert expert.cube_action(encode_gnubg_id(board, owned_by_o)) == "no double"
    rolled = MatchState(dice=(3, 1))
    assert expert.cube_action(encode_gnubg_id(board, rolled)) == "no double"
    crawford = MatchState(match_length=5, score=(4, 2), crawford=True, double_offered=True)
    with pytest.raises(ValueError, match="Crawford"):
        expert.cube_action(encode_gnubg_id(board, crawford))


def test_cube_action_at_the_start_and_with_noise(exports):
    for name in ("beginner", "expert"):
        opponent = Opponent.load(exports[name])
        assert opponent.cube_action(START) in ("double", "no double")
        offered = encode_gnubg_id(
            pos("x 24:2 13:5 8:3 6:5; o 19:5 17:3 12:5 1:2").numpy(), MatchState(double_offered=True)
        )
        answer = opponent.cube_action(offered)
        assert answer in ("take", "pass", "beaver")
        assert opponent.cube_action(offered) == answer


def test_resignations_are_accepted_when_they_give_what_playing_on_would(exports):
    # X on roll has 15 checkers outside O's home board, O one checker left: at 2-ply O bears
    # off after any X roll, so X loses a gammon (not a backgammon) for sure.
    losing = pos("x 12:3 11:3 10:3 9:3 8:3; o 24:1").numpy()
    world = Opponent.load(exports["worldclass"])
    cubeless = encode_position_id(losing)
    assert [world.resign_decision(cubeless, k) for k in (1, 2, 3)] == [False, True, True]
    jacoby = encode_gnubg_id(losing, MatchState(jacoby=True))  # centred cube: gammons do not count
    assert world.resign_decision(jacoby, 1) is True
    with pytest.raises(ValueError):
        world.resign_decision(cubeless, 4)


# --- damaged exports --------------------------------------------------------------------------


def _edit_json(folder, edit) -> None:
    info = json.loads((folder / "bgai.json").read_text())
    edit(info)
    (folder / "bgai.json").write_text(json.dumps(info))


def _other_weights(folder) -> None:
    save_file(
        {k: v.contiguous() for k, v in ValueNet(hidden=(9,)).state_dict().items()},
        str(folder / "model.safetensors"),
    )
    _edit_json(folder, lambda info: info["weights"].pop("sha256"))


def _truncate(folder) -> None:
    data = (folder / "model.safetensors").read_bytes()
    (folder / "model.safetensors").write_bytes(data[: len(data) // 2])
    _edit_json(folder, lambda info: info["weights"].pop("sha256"))


def _nan_weights(folder) -> None:
    from safetensors.torch import load_file

    tensors = load_file(str(folder / "model.safetensors"))
    first = sorted(tensors)[0]
    tensors[first] = tensors[first].clone()
    tensors[first].view(-1)[0] = float("nan")
    info = json.loads((folder / "bgai.json").read_text())
    metadata = {k: info[k] for k in ("format", "name")} | {"architecture": json.dumps(info["architecture"])}
    save_file(tensors, str(folder / "model.safetensors"), metadata=metadata)
    _edit_json(folder, lambda info: info["weights"].pop("sha256"))


def _set_play(**changes):
    return lambda f: _edit_json(f, lambda i: i["play"].update(changes))


DAMAGE = {
    "nan weights": (_nan_weights, "not a finite number"),
    "plies 99": (_set_play(plies=99), "plies must lie in 0..4"),
    "plies -1": (_set_play(plies=-1), "plies must lie in 0..4"),
    "plies 1.5": (_set_play(plies=1.5), "plies must lie in 0..4"),
    "negative noise": (_set_play(noise={"stddev": -0.1, "seed": 0}), "noise must be a finite number >= 0"),
    "nan noise": (_set_play(noise={"stddev": float("nan"), "seed": 0}), "noise must be a finite number >= 0"),
    "unknown filter name": (
        lambda f: _edit_json(f, lambda i: i["play"]["move_filter"].update(name="enormous")),
        "unknown move filter 'enormous'",
    ),
    "jacoby not a flag": (lambda f: _edit_json(f, lambda i: i["cube"].update(jacoby="no")), "true or false"),
    "missing weights": (lambda f: (f / "model.safetensors").unlink(), "missing"),
    "missing bgai.json": (lambda f: (f / "bgai.json").unlink(), "not an exported opponent"),
    "bad json": (lambda f: (f / "bgai.json").write_text("{not json"), "not valid JSON"),
    "unknown format": (
        lambda f: _edit_json(f, lambda i: i.update(format="bgai-opponent-v9")),
        "unknown format",
    ),
    "missing setting": (lambda f: _edit_json(f, lambda i: i["play"].pop("noise")), "missing setting"),
    "architecture changed": (
        lambda f: _edit_json(f, lambda i: i["architecture"].update(hidden=[9])),
        "another architecture",
    ),
    "other weights": (_other_weights, "do not fit the architecture"),
    "weights replaced": (
        lambda f: (f / "model.safetensors").write_bytes(b"\0" * 64),
        "sha256",
    ),
    "truncated weights": (_truncate, "not a readable safetensors file"),
}


@pytest.mark.parametrize("damage", list(DAMAGE))
def test_damaged_export_is_a_one_line_error(damage, expert_copy, capsys):
    spoil, message = DAMAGE[damage]
    spoil(expert_copy)
    with pytest.raises(ValueError, match=message) as caught:
        Opponent.load(expert_copy)
    assert "\n" not in str(caught.value)
    assert main(["grade", str(expert_copy), "--games", "2"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("bgai: error: ") and err.count("\n") == 1 and message in err


def test_not_a_folder_is_a_one_line_error(tmp_path):
    with pytest.raises(ValueError, match="not a folder"):
        Opponent.load(tmp_path / "nothing")
