"""Cubeful bench: money games with the cube (Jacoby, beavers, the cap) and matches (Crawford)."""

from __future__ import annotations

import json

import numpy as np
import pytest
import torch

from bgai.bench import CubeRules, duel, match_duel
from bgai.bots import PubevalPlayer, RandomPlayer, SearchPlayer
from bgai.bots.cube import NoCube, cube_sense
from bgai.cli.main import main
from bgai.cube import CubeState, Owner, analyse_cube
from bgai.cube.analysis import CubeDecider
from bgai.cube.efficiency import cube_efficiencies
from bgai.engine.board import starting_board
from bgai.search import PubevalEvaluator


def pubeval_with_cube() -> SearchPlayer:
    """Pubeval's moves, and cube answers from pubeval squashed into a win probability."""
    return SearchPlayer(PubevalEvaluator(), name="pubeval-cube")


class Scripted(PubevalPlayer):
    """Pubeval's moves and fixed cube answers; checks it is only asked when it may double."""

    def __init__(self, name: str, double=lambda state: True, answer=lambda state: "take") -> None:
        self.name, self.double, self.answer = name, double, answer

    def cube_decisions(self, boards, cube_states):
        assert len(boards) == len(cube_states) and all(s.can_double for s in cube_states)
        return np.array([self.double(s) for s in cube_states], dtype=bool)

    def take_decisions(self, boards, cube_states):
        return [self.answer(s) for s in cube_states]


def cube_actions(game) -> list[tuple[str, int, int | None]]:
    return [(a.kind, a.player, a.cube) for a in game.actions if a.kind != "move"]


# --- money ------------------------------------------------------------------------------------


def test_a_player_against_itself_scores_exactly_zero_with_the_cube():
    bot = pubeval_with_cube()
    result = duel(bot, bot, 20, seed=1, rules=CubeRules())
    assert result.ppg == 0.0 and result.ci95 == 0.0
    assert result.a_cube == result.b_cube and result.a_cube.doubles > 0
    assert result.a_win == result.b_win == 0.5


def test_without_a_cube_and_jacoby_the_games_are_the_cubeless_duels():
    cubeless = duel(PubevalPlayer(), RandomPlayer(0), 10, seed=3)
    rules = CubeRules(jacoby=False, max_cube=1)
    same = duel(PubevalPlayer(), RandomPlayer(0), 10, seed=3, rules=rules)
    assert (same.ppg, same.avg_turns, same.a_gammon) == (cubeless.ppg, cubeless.avg_turns, cubeless.a_gammon)
    assert same.avg_cube == 1.0


def test_jacoby_gammons_count_once_while_the_cube_is_centred():
    """Pubeval never doubles (no cube sense), so every game is played for the centred cube."""
    result = duel(PubevalPlayer(), RandomPlayer(0), 10, seed=3, record=True, rules=CubeRules())
    assert result.a_gammon > 0.5
    assert {g.points for g in result.session().games} == {1}
    assert result.ppg == 1.0
    turned = Scripted("doubler", double=lambda s: True, answer=lambda s: "take")
    cubed = duel(turned, RandomPlayer(0), 4, seed=3, record=True, rules=CubeRules())
    games = cubed.session().games
    top_cube = max(cube for g in games for kind, _, cube in cube_actions(g) if kind == "double")
    assert max(g.points for g in games) > top_cube  # a gammon once the cube is turned


def test_the_cube_never_passes_the_cap():
    always = Scripted("always", double=lambda s: True, answer=lambda s: "take")
    for cap in (64, 8):
        result = duel(always, always, 2, seed=2, rules=CubeRules(max_cube=cap), record=True)
        offered = [
            cube for g in result.session().games for kind, _, cube in cube_actions(g) if kind == "double"
        ]
        assert max(offered) == cap
        assert all(g.points <= 3 * cap for g in result.session().games)
        assert result.avg_cube == cap


def test_a_pass_ends_the_game_for_the_cube_before_the_double():
    """Take the initial double, pass the redouble: the redoubler wins 2 points."""
    takes_once = Scripted("once", answer=lambda s: "take" if s.cube == 1 else "pass")
    result = duel(takes_once, takes_once, 6, seed=4, record=True, rules=CubeRules())
    for game in result.session().games:
        actions = cube_actions(game)
        assert [kind for kind, _, _ in actions] == ["double", "take", "double", "drop"]
        assert actions[2][2] == 4 and actions[2][1] == game.winner and game.points == 2
    assert result.a_cube.passes + result.b_cube.passes == 6


def test_a_beaver_quadruples_the_cube_and_the_beaver_owns_it():
    beaver = Scripted("beaver", answer=lambda s: "beaver")
    result = duel(beaver, beaver, 2, seed=5, rules=CubeRules(max_cube=64), record=True)
    for game in result.session().games:
        actions = cube_actions(game)
        assert [(kind, cube) for kind, _, cube in actions] == [
            ("double", 2),
            ("beaver", 4),
            ("double", 8),
            ("beaver", 16),
            ("double", 32),
            ("beaver", 64),
        ]
        for k in (0, 2, 4):  # each beaver keeps the cube: the beaverer makes the next double
            assert actions[k + 1][1] != actions[k][1]
            assert k == 4 or actions[k + 2][1] == actions[k + 1][1]
        assert game.points in (64, 128, 192)
    # A beaver past the cap is a take; without beavers, a take.
    capped = duel(beaver, beaver, 2, seed=5, rules=CubeRules(max_cube=32), record=True)
    assert [k for k, _, _ in cube_actions(capped.session().games[0])] == [
        "double",
        "beaver",
        "double",
        "beaver",
        "double",
        "take",
    ]
    no_beavers = duel(beaver, beaver, 2, seed=5, rules=CubeRules(beavers=False), record=True)
    kinds = {k for g in no_beavers.session().games for k, _, _ in cube_actions(g)}
    assert kinds == {"double", "take"}


# --- matches ----------------------------------------------------------------------------------


def test_a_player_against_itself_wins_exactly_half_the_matches():
    bot = pubeval_with_cube()
    result = match_duel(bot, bot, 4, 3, seed=2)
    assert result.mwc == 0.5 and result.ci95 == 0.0
    assert result.games >= 4 and result.a_cube == result.b_cube


def test_no_double_in_the_crawford_game_and_none_by_the_leader_after_it():
    """Double at every chance, always pass: one point a game until the Crawford game."""
    passer = Scripted("passer", answer=lambda s: "pass")
    result = match_duel(passer, passer, 6, 3, seed=6, record=True)
    crawford_games = post_crawford = 0
    for match in result.sessions():
        crawford_seen = False
        for game in match.games:
            leader = [s == 2 for s in game.score]
            doubles = [player for kind, player, _ in cube_actions(game) if kind == "double"]
            if any(leader) and not crawford_seen:
                crawford_seen, crawford_games = True, crawford_games + 1
                assert doubles == []
            elif any(leader):
                post_crawford += 1
                assert all(not leader[player] for player in doubles)
        final = match.games[-1]
        assert final.score[final.winner] + final.points >= 3
    assert crawford_games == 6 and post_crawford >= 1


def test_the_cube_stays_below_what_the_doubler_needs():
    always = Scripted("always")
    result = match_duel(always, always, 4, 3, seed=7, record=True)
    for match in result.sessions():
        for game in match.games:
            for kind, player, cube in cube_actions(game):
                if kind == "double":
                    assert cube // 2 < 3 - game.score[player]
    assert result.mwc == 0.5


def test_match_options_are_checked():
    with pytest.raises(ValueError, match="match length"):
        match_duel(PubevalPlayer(), PubevalPlayer(), 2, 65)
    with pytest.raises(ValueError, match="power of two"):
        CubeRules(max_cube=48)


# --- cube sense -------------------------------------------------------------------------------


class FixedProbs:
    """An evaluator that says the same thing about every position."""

    def __init__(self, probs):
        self.probs = torch.tensor(probs, dtype=torch.float32)

    def evaluate(self, boards):
        return self.probs.expand(len(boards), 5)


def test_pubeval_and_random_have_no_cube_sense():
    assert isinstance(cube_sense(PubevalPlayer()), NoCube)
    assert isinstance(cube_sense(RandomPlayer()), NoCube)
    assert isinstance(cube_sense(pubeval_with_cube()), CubeDecider)
    scripted = Scripted("s")
    assert cube_sense(scripted) is scripted


@pytest.mark.parametrize(
    ("probs", "double", "answer"),
    [
        ((0.50, 0.10, 0.0, 0.10, 0.0), False, "beaver"),
        ((0.72, 0.0, 0.0, 0.0, 0.0), True, "take"),
        ((0.90, 0.0, 0.0, 0.0, 0.0), True, "pass"),
    ],
)
def test_the_cube_decider_follows_gnubgs_zero_ply_analysis(probs, double, answer):
    boards = torch.as_tensor(starting_board())[None].expand(3, 2, 25)
    states = [CubeState.money(), CubeState.money(jacoby=False), CubeState.money(2, Owner.ME)]
    sense = CubeDecider(FixedProbs(probs), 0)
    wanted = [analyse_cube(np.array([probs]), s, 0.76).decision[0] for s in states]
    decided = sense.cube_decisions(boards, states)
    assert list(decided) == [w.startswith(("Double", "Redouble", "Optional")) for w in wanted]
    assert decided[0] == double
    assert sense.take_decisions(boards, states)[0] == answer
    assert sense.take_decisions(boards[:1], [CubeState.money(beavers=False)]) == [
        "take" if answer == "beaver" else answer
    ]


def test_cube_efficiency_by_position_class():
    contact = starting_board()
    race = np.zeros((2, 25), np.int8)
    race[1, 6:11], race[0, 0:5] = 3, 3  # 15 checkers each; on roll: points 7-11, 135 pips
    bearoff = np.zeros((2, 25), np.int8)
    bearoff[1, 0:5], bearoff[0, 0:5] = 3, 3
    x = cube_efficiencies(np.stack([contact, race, bearoff]))
    np.testing.assert_allclose(x, [0.76, 0.80, 0.60])
    race[1] = 0
    race[1, 0], race[1, 6] = 5, 1  # five on the 1 point, one on the 7 point: 12 pips
    assert cube_efficiencies(race[None])[0] == pytest.approx(0.6 + 0.0025 * 12)
    hypergammon = np.zeros((2, 25), np.int8)
    hypergammon[1, 20], hypergammon[0, 3] = 3, 3
    assert cube_efficiencies(hypergammon[None], checkers=3)[0] == pytest.approx(0.60)


@pytest.mark.gnubg
def test_gnubg_players_answer_the_cube_from_gnubgs_probabilities():
    from bgai.specs import load_player

    sense = cube_sense(load_player("gnubg"))
    assert isinstance(sense, CubeDecider) and sense.plies == 0
    start = torch.as_tensor(starting_board())[None]
    assert list(sense.cube_decisions(start, [CubeState.money()])) == [False]
    assert sense.take_decisions(start, [CubeState.money()]) == ["beaver"]  # gnubg: No double, beaver


# --- the command ------------------------------------------------------------------------------


def test_bench_cube_and_match_commands(capsys, tmp_path):
    assert main(["bench", "pubeval", "random", "--cube", "--games", "4", "--threads", "1", "--json"]) == 0
    money = json.loads(capsys.readouterr().out)
    assert (money["ppg"], money["jacoby"], money["beavers"], money["max_cube"]) == (1.0, True, True, 4096)
    assert set(money["a_cube"]) == {"doubles", "takes", "passes", "beavers"}
    args = ["bench", "pubeval", "pubeval", "--match", "1", "--games", "2", "--threads", "1"]
    assert main([*args, "--save-games", str(tmp_path / "m.mat")]) == 0
    out = capsys.readouterr().out
    assert "matches to 1 points" in out and "50.0" in out
    assert sorted(p.name for p in tmp_path.iterdir()) == ["m-001.mat", "m-002.mat"]
    assert main(["bench", "pubeval", "random", "--match", "3", "--no-jacoby"]) == 2
    assert "--jacoby and --beavers" in capsys.readouterr().err
