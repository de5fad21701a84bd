"""Bench games saved as .mat: steps from boards, round trips through read_mat, gnubg's import."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from bgai import gnubg as oracle
from bgai.bench import CubeRules, duel, match_duel
from bgai.bench.records import mat_names
from bgai.bots import PubevalPlayer, RandomPlayer, SearchPlayer
from bgai.cli.main import main
from bgai.engine import apply_steps, move_steps, starting_board, swap_sides
from bgai.formats.mat import load_mat, read_mat, save_mat, write_mat
from bgai.search import PubevalEvaluator


class Beaverer(PubevalPlayer):
    """Doubles whenever it may; beavers the first double of a game, then takes, then passes."""

    name = "beaverer"

    def cube_decisions(self, boards, cube_states):
        return np.ones(len(cube_states), dtype=bool)

    def take_decisions(self, boards, cube_states):
        answers = {1: "beaver", 4: "take"}
        return [answers.get(s.cube, "pass") for s in cube_states]


def cubeful_session():
    """Money games with every cube action: double, beaver, take, drop (and a gammon or two)."""
    bot = SearchPlayer(PubevalEvaluator(), name="pubeval-cube")
    return duel(Beaverer(), bot, 4, seed=3, rules=CubeRules(), record=True)


def test_steps_are_found_from_the_boards_before_and_after():
    start = starting_board()
    after_31 = apply_steps(start, [(8, 5), (6, 5)])
    dance = np.zeros((2, 25), np.int8)
    dance[1, 24], dance[0, 0:6] = 1, 2  # on the bar against a closed board
    dance[1, 0], dance[0, 6] = 14, 3
    steps = move_steps(np.stack([start, dance]), np.array([[3, 1], [6, 6]]), np.stack([after_31, dance]))
    assert sorted(steps[0]) == [(6, 5), (8, 5)]
    assert steps[1] == []
    with pytest.raises(ValueError, match="not a legal result"):
        move_steps(start[None], np.array([[3, 1]]), swap_sides(start)[None])


def test_names_are_fit_for_a_score_line():
    assert mat_names("gnubg:expert", "best@1ply") == ("gnubg_expert", "best@1ply")
    assert mat_names("pubeval", "pubeval") == ("pubeval-A", "pubeval-B")


def test_a_cubeless_duel_round_trips_with_its_results():
    result = duel(PubevalPlayer(), RandomPlayer(0), 4, seed=1, record=True)
    session = result.session()
    assert session.match_length == 0 and "set jacoby off" in session.comment
    back = read_mat(write_mat(session))
    assert back == session
    points = [g.points if g.winner == 0 else -g.points for g in back.games]
    assert points == [g.a_points for g in result.logs]
    assert all(a.kind == "move" for g in back.games for a in g.actions)
    assert back.games[-1].score == (sum(max(p, 0) for p in points[:-1]), sum(max(-p, 0) for p in points[:-1]))


def test_cube_actions_are_recorded_and_round_trip():
    result = cubeful_session()
    session = result.session()
    assert read_mat(write_mat(session)) == session
    kinds = {a.kind for g in session.games for a in g.actions}
    assert kinds == {"move", "double", "beaver", "take", "drop"}
    assert sum(g.points if g.winner == 0 else -g.points for g in session.games) == result.ppg * 4
    cube = [a.cube for g in session.games for a in g.actions if a.kind in ("double", "beaver")]
    assert max(cube) <= 4096


def test_matches_round_trip_with_running_scores():
    bot = SearchPlayer(PubevalEvaluator(), name="pubeval-cube")
    result = match_duel(bot, PubevalPlayer(), 2, 3, seed=1, record=True)
    assert len(result.sessions()) == 2
    for match in result.sessions():
        assert match.match_length == 3
        assert read_mat(write_mat(match)) == match
        score = [0, 0]
        for game in match.games:
            assert game.score == tuple(score)
            score[game.winner] += game.points
        assert max(score) >= 3 and min(match.games[-1].score) < 3


def test_save_games_for_every_bench_mode(tmp_path, capsys):
    base = ["bench", "pubeval", "random", "--games", "2", "--threads", "1"]
    for mode in ([], ["--cube"]):
        path = tmp_path / f"run{len(mode)}.mat"
        assert main([*base, *mode, "--save-games", str(path)]) == 0
        session = load_mat(path)
        assert (session.match_length, len(session.games)) == (0, 2)
        assert session.players == ("pubeval", "random")
    capsys.readouterr()


# --- gnubg imports what we write ----------------------------------------------------------------


def gnubg_results(path: Path, jacoby: bool = True) -> list[tuple]:
    """(winner 0/1, points, score 0, score 1, Crawford game) of each game as gnubg imports it."""
    gnubg = oracle.program()
    gnubg.command("set threads 1")
    gnubg.command(f"set jacoby {'on' if jacoby else 'off'}")
    try:
        gnubg.command(f'import mat "{path}"')
        games = gnubg.match()["games"]
    finally:
        gnubg.command("set jacoby on")  # gnubg's default, which other tests expect
    return [
        (
            {"X": 0, "O": 1}[g["info"]["winner"]],
            g["info"]["points-won"],
            g["info"]["score-X"],
            g["info"]["score-O"],
            g["info"].get("crawford", False),
        )
        for g in games
    ]


def our_results(match) -> list[tuple]:
    crawford_seen, out = False, []
    for game in match.games:
        crawford = bool(match.match_length) and not crawford_seen and match.match_length - 1 in game.score
        crawford_seen |= crawford
        out.append((game.winner, game.points, *game.score, crawford))
    return out


@pytest.mark.gnubg
def test_gnubg_imports_cubeful_and_cubeless_sessions_with_our_results(tmp_path):
    cubeful = tmp_path / "cubeful.mat"
    save_mat(cubeful_session().session(), cubeful)
    assert gnubg_results(cubeful) == our_results(load_mat(cubeful))
    cubeless = tmp_path / "cubeless.mat"
    save_mat(duel(PubevalPlayer(), RandomPlayer(0), 2, seed=2, record=True).session(), cubeless)
    ours = our_results(load_mat(cubeless))
    assert any(points >= 2 for _, points, *_ in ours)  # gammons count: gnubg needs Jacoby off
    assert gnubg_results(cubeless, jacoby=False) == ours


@pytest.mark.gnubg
def test_gnubg_imports_our_matches_with_the_same_scores_and_crawford_games(tmp_path):
    passer = Beaverer()
    passer.take_decisions = lambda boards, states: ["pass"] * len(states)
    result = match_duel(passer, passer, 2, 3, seed=6, record=True)
    for k, match in enumerate(result.sessions()):
        path = tmp_path / f"m{k}.mat"
        save_mat(match, path)
        theirs = gnubg_results(path)
        assert theirs == our_results(match)
        assert any(crawford for *_, crawford in theirs)
