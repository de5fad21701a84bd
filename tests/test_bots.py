"""Players: specs, the batched choice, the people-facing choose_move, and gnubg as the oracle."""

from __future__ import annotations

import json

import numpy as np
import pytest
import torch

from bgai import gnubg as oracle
from bgai.bots import (
    GnubgPlayer,
    Player,
    PubevalPlayer,
    RandomPlayer,
    SearchPlayer,
)
from bgai.cli.main import main
from bgai.engine import apply_steps
from bgai.engine.board import is_race, starting_board
from bgai.engine.movegen import expand
from bgai.engine.sampling import sample_positions
from bgai.formats import encode_position_id
from bgai.moves import legal_moves
from bgai.search import GnubgEvaluator
from bgai.specs import load_player
from tests.positions import key, pos

OPENING = encode_position_id(starting_board())


def play_pub_best_move(board: np.ndarray, d1: int, d2: int) -> np.ndarray:
    """The afterstate of gnubg_nn.pub_best_move (0-based steps, bar 24, off -1), mover in row 1."""
    gnubg_nn = oracle.nn()
    steps = gnubg_nn.pub_best_move([list(map(int, row)) for row in board], d1, d2)
    pairs = zip(steps[::2], steps[1::2], strict=True)
    return apply_steps(board, [(source + 1, dest + 1) for source, dest in pairs])  # to 25 bar, 0 off


@pytest.mark.parametrize(
    "spec, kind, name",
    [
        ("random", RandomPlayer, "random"),
        ("random:7", RandomPlayer, "random:7"),
        ("pubeval", PubevalPlayer, "pubeval"),
        *(
            pytest.param(spec, kind, spec, marks=pytest.mark.gnubg)
            for spec, kind in (
                ("gnubg", GnubgPlayer),
                ("gnubg@1ply", GnubgPlayer),
                ("gnubg:expert", GnubgPlayer),
                ("gnubg:worldclass", GnubgPlayer),
                ("gnubg:grandmaster", GnubgPlayer),
                ("gnubg:beginner", SearchPlayer),
                ("gnubg:advanced@1ply", SearchPlayer),
            )
        ),
    ],
)
def test_specs_name_their_players(spec, kind, name):
    player = load_player(spec)
    assert isinstance(player, kind) and isinstance(player, Player)
    assert player.name == name


@pytest.mark.gnubg
def test_named_levels_follow_gnubgs_plies_and_noise():
    assert load_player("gnubg:worldclass").plies == 2
    assert load_player("gnubg:grandmaster").plies == 3
    assert load_player("gnubg:supremo").move_filter == "large"
    beginner, advanced = load_player("gnubg:beginner"), load_player("gnubg:advanced")
    assert (beginner.noise, advanced.noise) == (0.06, 0.015)
    assert isinstance(beginner.evaluator, GnubgEvaluator) and beginner.plies == 0
    assert load_player("gnubg:casual@2ply").plies == 2


@pytest.mark.parametrize(
    "spec",
    [
        "",
        "nobody",
        "pubeval@1ply",
        "random@2ply",
        "gnubg:godlike",
        "gnubg@9ply",
        "random:x",
        "missing.pt",
        "best@1ply",
    ],
)
def test_bad_specs_raise_one_line_value_errors(spec, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    import bgai.model.checkpoint as checkpoint

    monkeypatch.setattr(checkpoint, "SHIPPED", tmp_path)  # no shipped network here
    with pytest.raises(ValueError) as error:
        load_player(spec)
    assert "\n" not in str(error.value)


GNUBG_SPECS = [pytest.param(spec, marks=pytest.mark.gnubg) for spec in ("gnubg", "gnubg:casual")]
WITH_GNUBG = ["random", "pubeval", *GNUBG_SPECS]
"""Player specs of every kind; gnubg's need the optional packages."""


@pytest.mark.parametrize("spec", WITH_GNUBG)
def test_choose_move_returns_a_legal_move_in_gnubg_notation(spec):
    player = load_player(spec)
    for dice in ("31", "66", "52"):
        move = player.choose_move(OPENING, dice)
        assert move in [m for m, _ in legal_moves(OPENING, dice)]


@pytest.mark.gnubg
def test_best_opening_moves_are_the_book_moves():
    player = load_player("gnubg")
    assert player.choose_move(OPENING, "31") == "8/5 6/5"
    assert player.choose_move(OPENING, (4, 2)) == "8/4 6/4"


@pytest.mark.parametrize("spec", WITH_GNUBG)
def test_choose_move_is_empty_when_the_player_dances(spec):
    closed_out = encode_position_id(pos("x bar:1 6:14; o 19:2 20:2 21:2 22:2 23:2 24:2 13:3").numpy())
    assert load_player(spec).choose_move(closed_out, "64") == ""


@pytest.mark.parametrize("spec", WITH_GNUBG)
def test_a_board_without_a_legal_move_comes_back_unchanged(spec):
    board = pos("x bar:1 6:14; o 19:2 20:2 21:2 22:2 23:2 24:2 13:3")
    after = load_player(spec).choose(board[None], torch.tensor([[6, 4]]))
    assert torch.equal(after[0], board)


@pytest.mark.parametrize("spec", WITH_GNUBG)
def test_every_player_returns_a_legal_afterstate(spec):
    boards, dice = sample_positions(60, "random", seed=4, games=20)
    children, parent = expand(boards, dice)
    legal = [set() for _ in range(len(boards))]
    for child, p in zip(children, parent.tolist(), strict=True):
        legal[p].add(key(child))
    player = load_player(spec)
    after = player.choose(boards, dice)
    assert after.shape == boards.shape
    assert all(key(a) in legal[i] for i, a in enumerate(after)), player.name


def test_gnubg_player_plays_gnubgs_best_move(gnubg_nn):
    boards, dice = sample_positions(30, "greedy", seed=9, games=10)
    after = GnubgPlayer(0).choose(boards, dice)
    for b, (d1, d2), a in zip(boards.tolist(), dice.tolist(), after, strict=True):
        _, flipped = gnubg_nn.best_move(b, d1, d2, b=1)
        theirs = np.array(gnubg_nn.board_from_position_key(flipped))[::-1]
        assert (a.numpy() == theirs).all()


@pytest.mark.gnubg
def test_pubeval_player_agrees_with_gnubg_pub_best_move():
    """gnubg's pub_best_move picks the weights by the position before the move, as we do;
    where that flag and every afterstate's agree the choice is unambiguous and must match."""
    parts = [
        sample_positions(n, kind, seed=2, games=50)
        for n, kind in ((300, "greedy"), (200, "race"), (200, "bearoff"))
    ]
    boards = torch.cat([b[100:] for b, _ in parts])
    dice = torch.cat([d[100:] for _, d in parts])
    children, parent = expand(boards, dice)
    flips = torch.zeros(len(boards), dtype=torch.long)
    flips.index_add_(0, parent, (is_race(children) != is_race(boards)[parent]).long())
    unambiguous = flips == 0
    assert is_race(boards).sum() > 100 and (~is_race(boards)).sum() > 100
    ours = PubevalPlayer().choose(boards, dice).numpy()
    agree = np.array(
        [
            (play_pub_best_move(b, d1, d2) == o).all()
            for b, (d1, d2), o in zip(boards.numpy(), dice.tolist(), ours, strict=True)
        ]
    )
    assert agree[unambiguous.numpy()].all()
    assert agree.mean() > 0.99


@pytest.mark.gnubg
def test_noise_is_deterministic_per_position_and_changes_some_choices():
    boards, dice = sample_positions(200, "greedy", seed=6, games=50)
    boards, dice = boards[100:], dice[100:]
    calm = load_player("gnubg:expert").choose(boards, dice)
    noisy = SearchPlayer(GnubgEvaluator(0), noise=0.06)
    first, again = noisy.choose(boards, dice), noisy.choose(boards, dice)
    assert torch.equal(first, again)
    changed = (first != calm).flatten(1).any(1).float().mean().item()
    assert 0.02 < changed < 0.6


@pytest.mark.gnubg
def test_hint_ranks_moves_like_gnubgs_hint(capsys):
    assert main(["hint", OPENING, "31", "--player", "gnubg", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["moves"][0]["move"] == "8/5 6/5"
    assert len(out["moves"]) == len(legal_moves(OPENING, "31"))
    equities = [m["equity"] for m in out["moves"]]
    assert equities == sorted(equities, reverse=True)
    assert main(["hint", OPENING, "--player", "gnubg"]) == 0
    assert "Cubeless equity" in capsys.readouterr().out
    assert main(["hint", OPENING, "31", "--player", "pubeval"]) == 2
    assert "hint needs a player" in capsys.readouterr().err


def test_shipped_networks_are_players_by_name_with_their_pruners():
    from bgai.model.checkpoint import load_net, shipped_checkpoint
    from bgai.search.evaluator import pruner_of

    old = load_player("best_td@1ply")  # the TD net that best was distilled from
    assert old.plies == 1 and old.name == "best_td@1ply" and pruner_of(old.evaluator) is not None
    plain, new = load_player("best_td:nodb:noprune").evaluator, load_player("best:nodb:noprune").evaluator
    assert plain.net.hidden == load_net(shipped_checkpoint("best_td")).hidden != new.net.hidden
    with pytest.raises(ValueError, match="unknown player"):
        load_player("best_nonesuch")


def test_a_checkpoint_path_plays_with_lookahead(tmp_path):
    from bgai.model.checkpoint import FORMAT, save_atomic
    from bgai.model.net import ValueNet

    torch.manual_seed(0)
    net = ValueNet("tesauro198", (8,))
    path = tmp_path / "tiny.pt"
    save_atomic({"format": FORMAT, "net_spec": net.spec(), "model": net.state_dict()}, path)
    player = load_player(f"{path}@1ply")
    assert isinstance(player, SearchPlayer) and player.plies == 1 and player.name == f"{path}@1ply"
    assert player.choose_move(OPENING, "21") in [m for m, _ in legal_moves(OPENING, "21")]


def test_a_network_player_reads_the_bear_off_databases_unless_told_not_to(tmp_path):
    """An untrained net bears off badly; with the databases the same player bears off well."""
    from bgai.bearoff import BearoffEvaluator
    from bgai.model.checkpoint import FORMAT, save_atomic
    from bgai.model.net import ValueNet
    from bgai.search import NetEvaluator

    torch.manual_seed(0)
    net = ValueNet("tesauro198", (8,))
    path = tmp_path / "tiny.pt"
    save_atomic({"format": FORMAT, "net_spec": net.spec(), "model": net.state_dict()}, path)
    with_db, alone = load_player(str(path)), load_player(f"{path}:nodb")
    assert isinstance(with_db.evaluator, BearoffEvaluator) and isinstance(alone.evaluator, NetEvaluator)
    race = encode_position_id(pos("x 6:2 5:1 1:1; o 19:3 24:2").numpy())
    assert with_db.choose_move(race, "61") == "6/off 1/off"  # two checkers off, not one
