"""Playing against a bot: the session state machine, its rules, and ``bgai play`` through a pipe.

The scripted person plays the first legal move of every roll, doubles at the first chance,
takes every double and resigns once. Its script for the command line is written by playing
the same seed through :class:`MatchSession`, so the pipe test follows the session exactly.
"""

import dataclasses
import io
import subprocess
import sys
from dataclasses import dataclass, field

import numpy as np
import pytest
import torch

from bgai.bots import NoCube, RandomPlayer
from bgai.cli.main import main
from bgai.cube.analysis import CubeDecider
from bgai.engine.board import starting_board
from bgai.formats import MatchState, decode_gnubg_id, encode_gnubg_id
from bgai.formats.mat import load_mat, read_mat, write_mat
from bgai.play import ANSWER, BOT, MOVE, NEXT, OVER, PERSON, ROLL, Bot, MatchSession, load_bot

ILLEGAL = "24/1"  # 23 pips: no roll moves one checker exactly that far
BOT_SPEC = "best:nodb"  # a bot with judgement (hints, cube), quick at 0-ply


@dataclass
class Script:
    """The lines a person typed, and everything that happened, in order."""

    lines: list[str] = field(default_factory=list)
    events: list = field(default_factory=list)
    refusals: list[str] = field(default_factory=list)


def play_scripted(session: MatchSession, *, resign_after: int = 3, limit: int = 2000) -> Script:
    """Play ``session`` to its end as the scripted person, through the session API."""
    script = Script()
    script.events += session.advance()
    moves_played, doubled, resigned, explored = 0, False, False, False
    for _ in range(limit):
        awaiting = session.awaiting
        if awaiting == OVER:
            return script
        if awaiting == MOVE and not explored:  # lines that change nothing: asked, refused, shown
            explored = True
            script.lines += ["hint", ILLEGAL, "board", "help"]
            with pytest.raises(ValueError) as refusal:
                session.play_move(ILLEGAL)
            script.refusals.append(str(refusal.value))
        if awaiting == ROLL and not doubled:
            line, action = "double", session.offer_double
            doubled = True
        elif awaiting == ROLL:
            line, action = "", session.roll
        elif awaiting == MOVE and doubled and not resigned and moves_played >= resign_after:
            line, action = "resign", lambda: session.resign(1)
            resigned = True
        elif awaiting == MOVE:
            move = session.legal_moves()[0][0]
            line, action = move, lambda move=move: session.play_move(move)
            moves_played += 1
        elif awaiting == ANSWER:
            line, action = "take", lambda: session.respond("take")
        else:
            assert awaiting == NEXT
            line, action = "", session.next_game
        script.lines.append(line)
        script.events += action() + session.advance()
    raise AssertionError(f"the session did not end within {limit} decisions")


def kinds(events, player=None) -> list[str]:
    return [e.kind for e in events if player is None or e.player == player]


def judged_session(**options) -> MatchSession:
    return MatchSession(load_bot(BOT_SPEC), **options)


# --- the session API ------------------------------------------------------------------------


@pytest.fixture(scope="module")
def scripted_match() -> tuple[MatchSession, Script]:
    """A 3-point match against the bot, seed 11, played to its end by the scripted person."""
    session = judged_session(match_length=3, seed=11)
    return session, play_scripted(session)


def test_a_three_point_match_plays_to_its_end_through_the_session_api(scripted_match):
    session, script = scripted_match
    events = script.events

    game, opening = events[0], events[1]
    assert (game.kind, game.game, opening.kind) == ("game", 1, "opening")
    bot_die, person_die = opening.dice
    assert bot_die != person_die and opening.player == (BOT if bot_die > person_die else PERSON)

    assert script.refusals[0].startswith(f"illegal move {ILLEGAL} for ")
    assert "the steps do not fit the roll" in script.refusals[0]

    assert kinds(events)[kinds(events).index("double") + 1] in ("take", "pass")  # the bot answers at once
    assert "resign_declined" in kinds(events) or any(e.how == "resignation" for e in events)

    assert session.match_over and session.awaiting == OVER
    winner = events[-1].player
    assert events[-1].kind == "match" and session.score[winner] >= 3 > session.score[1 - winner]
    record = read_mat(write_mat(session.record))
    assert [(g.winner, g.points, g.score) for g in record.games] == [
        (g.winner, g.points, g.score) for g in session.record.games
    ]
    assert [g.actions for g in record.games] == [g.actions for g in session.record.games]


def test_the_same_seed_and_the_same_actions_replay_the_same_session(scripted_match):
    _, first = scripted_match
    second = play_scripted(judged_session(match_length=3, seed=11))
    assert first.lines == second.lines
    assert [e.gnubg_id for e in first.events] == [e.gnubg_id for e in second.events]


def test_forced_moves_and_dances_are_played_for_the_person_and_shown(scripted_match):
    _, script = scripted_match
    person = [e for e in script.events if e.player == PERSON]
    assert any(e.kind == "dance" for e in person)
    assert any(e.kind == "move" and e.forced for e in person)
    for e in person:
        if e.kind == "dance":
            assert e.move == "" and e.dice is not None


def test_hint_ranks_the_persons_moves_best_first():
    session = judged_session(seed=2)
    session.advance()
    while session.awaiting != MOVE:
        session.roll()
        session.advance()
    hint = session.hint()
    legal = [move for move, _ in session.legal_moves()]
    assert 1 <= len(hint.moves) <= 5 and all(move in legal for move, _, _ in hint.moves)
    equities = [equity for _, equity, _ in hint.moves]
    assert equities == sorted(equities, reverse=True)


def test_a_move_out_of_turn_or_a_bad_answer_is_refused_with_the_reason():
    session = judged_session(seed=3)
    session.advance()
    with pytest.raises(ValueError, match="cannot answer a double now"):
        session.respond("take")
    with pytest.raises(ValueError, match="cannot start a new game now"):
        session.next_game()


# --- the rules of the cube and the match -----------------------------------------------------


def test_no_doubling_in_the_crawford_game():
    session = judged_session(match_length=3, seed=4, score=(2, 0))
    events = session.advance()
    assert events[0].crawford and session.match_state.crawford
    assert session.double_refusal(PERSON) == "there is no doubling in the Crawford game"
    script = play_scripted(session)
    assert "double" not in kinds(script.events) and "double" not in script.lines
    assert session.record.games[0].score == (2, 0)


def test_after_the_crawford_game_only_the_trailer_may_double():
    session = judged_session(match_length=3, seed=4, score=(2, 0), post_crawford=True)
    session.advance()
    assert not session.match_state.crawford
    while session.awaiting not in (ROLL, OVER, NEXT):  # the person trails: the cube is theirs to turn
        session.play_move(session.legal_moves()[0][0])
        session.advance()
    assert session.awaiting == ROLL and session.double_refusal(PERSON) is None
    assert not any(e.kind == "double" and e.player == BOT for e in play_scripted(session).events)


def test_a_money_session_goes_on_until_the_person_stops():
    session = judged_session(seed=1)
    session.advance()
    while session.awaiting != NEXT:
        if session.awaiting == ROLL:
            session.roll()
        elif session.awaiting == MOVE:
            session.play_move(session.legal_moves()[0][0])
        else:
            session.respond("pass")
        session.advance()
    assert not session.match_over and session.game_over
    session.next_game()
    session.advance()
    assert len(session.record.games) == 2 and session.record.match_length == 0


class Certain:
    """An evaluator sure of one outcome for the player on roll."""

    def __init__(self, probs):
        self.probs = torch.tensor([probs], dtype=torch.float32)

    def evaluate(self, boards):
        return self.probs.expand(len(boards), 5)


def bot_that_believes(probs) -> Bot:
    """Random moves; cube and resignation decisions from a fixed belief about the player on roll."""
    belief = Certain(probs)
    return Bot(RandomPlayer(0), evaluator=belief, cube=CubeDecider(belief), name="believer")


class Answers(Bot):
    """A bot that answers every double the same way and never doubles itself."""

    def __init__(self, answer: str) -> None:
        super().__init__(RandomPlayer(0), cube=NoCube(), name="answers")
        self.answer = answer

    def cube_action(self, gnubg_id):
        return self.answer if decode_gnubg_id(gnubg_id)[1].double_offered else "no double"


def doubled_by_the_person(bot: Bot, **options) -> tuple[MatchSession, list]:
    """A session in which the person doubles at the first chance; the events of the bot's answer."""
    session = MatchSession(bot, seed=6, **options)
    session.advance()
    while session.awaiting != ROLL:
        session.play_move(session.legal_moves()[0][0])
        session.advance()
    session.offer_double()
    return session, session.advance()


def test_the_bot_declines_a_single_game_when_it_expects_a_gammon_and_accepts_the_gammon():
    session = MatchSession(bot_that_believes([0.0, 0.0, 0.0, 1.0, 0.0]), seed=6, cube=False)
    session.advance()
    assert session.awaiting == MOVE  # without a cube the person rolls at once
    declined = session.resign("single")
    assert kinds(declined) == ["resign_declined"] and not session.game_over
    accepted = session.resign("gammon")
    assert kinds(accepted) == ["win"] and accepted[0].player == BOT and accepted[0].points == 2
    assert accepted[0].how == "resignation" and session.record.games[0].resigned


def test_the_bot_passes_a_double_when_the_doubler_is_sure_to_win_and_takes_a_coin_flip():
    doubled = MatchState(match_length=5, on_roll=PERSON, double_offered=True)
    position = encode_gnubg_id(starting_board(), doubled)
    assert bot_that_believes([1.0, 0.0, 0.0, 0.0, 0.0]).cube_action(position) == "pass"
    assert bot_that_believes([0.5, 0.0, 0.0, 0.0, 0.0]).cube_action(position) == "take"
    on_roll = encode_gnubg_id(starting_board(), MatchState(match_length=5, on_roll=BOT))
    assert bot_that_believes([0.5, 0.0, 0.0, 0.0, 0.0]).cube_action(on_roll) == "no double"
    assert bot_that_believes([0.95, 0.0, 0.0, 0.0, 0.0]).cube_action(on_roll) == "double"


def test_a_pass_ends_the_game_for_the_cube_before_the_double():
    session, events = doubled_by_the_person(Answers("pass"), match_length=5)
    assert kinds(events) == ["pass", "win"] and events[1].player == PERSON and events[1].points == 1
    assert session.score == (0, 1) and session.awaiting == NEXT
    assert decode_gnubg_id(events[-1].gnubg_id)[1].game_state == 4  # gnubg's "dropped cube"
    record = read_mat(write_mat(session.record))
    assert record.games[0].actions[-1].kind == "drop" and record.games[0].winner == PERSON


def test_a_beaver_in_money_play_quadruples_the_cube_and_a_match_makes_it_a_take():
    money, events = doubled_by_the_person(Answers("beaver"))
    assert kinds(events)[0] == "beaver" and money.match_state.cube_value == 4
    assert money.match_state.cube_owner == BOT and money.match_state.on_roll == PERSON
    match, events = doubled_by_the_person(Answers("beaver"), match_length=5)
    assert kinds(events)[0] == "take" and match.match_state.cube_value == 2
    no_beavers, events = doubled_by_the_person(Answers("beaver"), beavers=False)
    assert kinds(events)[0] == "take"


def tiny_export(tmp_path, level: str):
    """A tiny random network exported at ``level`` into ``tmp_path/opponents``; its folder."""
    from bgai.model.checkpoint import FORMAT, save_atomic
    from bgai.model.net import build_net
    from bgai.opponent import export_opponent

    net = build_net({"kind": "value_net", "encoding": "tesauro198", "hidden": [8], "activation": "sigmoid"})
    checkpoint = tmp_path / "net.pt"
    save_atomic({"format": FORMAT, "net_spec": net.spec(), "model": net.state_dict()}, checkpoint)
    return export_opponent(checkpoint, level, tmp_path / "opponents" / f"bgai-{level}-v1")


def test_an_exported_opponent_plays_by_its_level(tmp_path):
    tiny_export(tmp_path, "beginner")
    bot = load_bot(level="Beginner", root=tmp_path / "opponents")
    assert bot.name == "bgai-beginner-v1" and bot.evaluator is not None
    session = MatchSession(bot, match_length=1, seed=3)
    play_scripted(session)
    assert session.match_over


def test_a_bot_that_evaluates_nothing_gives_no_hints_and_plays_without_the_cube():
    bot = load_bot("pubeval")
    assert bot.evaluator is None and bot.cube is None
    session = MatchSession(bot, seed=2)
    assert not session.cube_in_play
    session.advance()
    while session.awaiting != MOVE:  # the person's dice are rolled at once: no cube to turn
        session.play_move(session.legal_moves()[0][0])
        session.advance()
    with pytest.raises(ValueError, match="pubeval gives no hints"):
        session.hint()
    person_resigns = dataclasses.replace(session.match_state, resign=1, turn=BOT)
    position = encode_gnubg_id(session.board, person_resigns)
    assert not bot.resign_decision(position, 2)  # a backgammon is still possible on this board
    assert bot.resign_decision(position, 3)


def test_an_exported_opponent_takes_a_resignation_that_wins_it_the_match(tmp_path):
    from bgai.opponent import Opponent

    opponent = Opponent.load(tiny_export(tmp_path, "expert"))
    opponent.evaluator = Certain([0.0, 0.0, 0.0, 1.0, 0.0])  # the person on roll is sure to lose a gammon
    one_away = MatchState(match_length=5, score=(4, 2), on_roll=PERSON, resign=1, turn=BOT)
    position = encode_gnubg_id(starting_board(), one_away)
    assert opponent.resign_decision(position, 1)  # a single game wins the match as surely as a gammon
    money = MatchState(on_roll=PERSON, resign=1, turn=BOT)
    assert not opponent.resign_decision(encode_gnubg_id(starting_board(), money), 1)


def test_an_unknown_level_is_a_one_line_error():
    with pytest.raises(ValueError, match="unknown level 'grandmaster'"):
        load_bot(level="grandmaster")


# --- bgai play --------------------------------------------------------------------------------


def test_bgai_play_through_a_pipe_plays_the_match_and_saves_it(scripted_match, tmp_path, monkeypatch, capsys):
    expected, script = scripted_match
    saved = tmp_path / "match.mat"
    monkeypatch.setattr(sys, "stdin", io.StringIO("\n".join(script.lines) + "\n"))

    code = main(["play", "--opponent", BOT_SPEC, "--match", "3", "--seed", "11", "--save", str(saved)])

    out = capsys.readouterr().out
    assert code == 0
    assert f"you (X) against {BOT_SPEC} (O), a 3-point match with the cube; dice seed 11" in out
    assert "Your move, " in out and f"> {ILLEGAL}\nIllegal move {ILLEGAL} for " in out
    assert "   1. " in out and "Eq.: " in out  # the hint
    assert f"Your turn: roll or double? (Enter rolls) > double\nYou double to 2.\n{BOT_SPEC} " in out
    assert "> resign\n" in out
    assert out.count(" Position ID: ") > 10 and " Match ID   : " in out
    assert "the 3-point match" in out and f"Saved to {saved}" in out
    played = load_mat(saved)
    assert played.match_length == 3 and played.players == (BOT_SPEC, "you")
    assert [g.actions for g in played.games] == [g.actions for g in expected.record.games]
    results = [(g.winner, g.points) for g in expected.record.games]
    assert [(g.winner, g.points) for g in played.games] == results


def test_the_end_of_input_quits_and_saves_what_was_played(tmp_path):
    saved = tmp_path / "money.mat"
    command = [
        sys.executable,
        "-m",
        "bgai",
        "play",
        "--opponent",
        "random",
        "--seed",
        "3",
        "--save",
        str(saved),
    ]
    done = subprocess.run(
        command, input="hint\nboard\n", capture_output=True, text=True, timeout=120, cwd=tmp_path
    )
    assert done.returncode == 0, done.stderr
    assert "(end of input: stopping)" in done.stdout and f"Saved to {saved}" in done.stdout
    played = load_mat(saved)
    assert played.match_length == 0 and len(played.games) == 1 and played.games[0].winner is None


def test_the_board_after_each_move_is_gnubgs_with_the_ids(tmp_path, monkeypatch, capsys):
    monkeypatch.setattr(sys, "stdin", io.StringIO("board\nquit\n"))
    assert main(["play", "--opponent", "pubeval", "--seed", "2", "--save", str(tmp_path / "x.mat")]) == 0
    out = capsys.readouterr().out
    position_id = out.split(" Position ID: ")[-1].split()[0]
    match_id = out.split(" Match ID   : ")[-1].split()[0]
    board, state = decode_gnubg_id(f"{position_id}:{match_id}")
    assert state.on_roll == PERSON and state.match_length == 0
    assert np.asarray(board).shape == (2, 25)
    assert "+13-14-15-16-17-18------19-20-21-22-23-24-+" in out
