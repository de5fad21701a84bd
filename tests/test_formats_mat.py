"""Jellyfish .mat files (docs/formats.md §5): gnubg's exact layout, a tolerant reader, and
gnubg itself importing what we write (marked ``gnubg``)."""

import copy
import dataclasses
import functools
import re
from pathlib import Path

import pytest
import torch

from bgai import gnubg as oracle
from bgai.engine import afterstates, apply_steps, checkers_per_side, game_value, starting_board, swap_sides
from bgai.engine.choice import random_child
from bgai.formats import encode_position_id
from bgai.formats.mat import (
    Action,
    GameRecord,
    MatchRecord,
    load_mat,
    read_mat,
    save_mat,
    write_mat,
)

DATA = Path(__file__).parent / "data"


# --- generated games ----------------------------------------------------------------------


def random_game(
    gen: torch.Generator,
    number: int,
    score: tuple[int, int],
    first: int,
    cube_at: dict[int, str] | None = None,
    resign_at: int | None = None,
    variant: str = "standard",
) -> GameRecord:
    """Both sides play random legal moves. ``cube_at[turn]`` = "take", "drop" or "beaver":
    the player about to roll on that turn doubles first, and the opponent answers so. On turn
    ``resign_at`` the player about to roll resigns a single game."""
    board = torch.as_tensor(starting_board(variant))
    game = GameRecord(number, score)
    player, cube = first, 1
    for turn in range(1000):
        if turn == resign_at:
            game.winner, game.points, game.resigned = 1 - player, cube, True
            return game
        if (answer := (cube_at or {}).get(turn)) is not None:
            cube *= 2
            game.actions.append(Action(player, "double", cube=cube))
            if answer == "beaver":
                cube *= 2
                game.actions.append(Action(1 - player, "beaver", cube=cube))
            else:
                game.actions.append(Action(1 - player, answer))
            if answer == "drop":
                game.winner, game.points = player, cube // 2
                return game
        dice = torch.randint(1, 7, (2,), generator=gen)
        while turn == 0 and dice[0] == dice[1]:  # the opening roll is never a double
            dice = torch.randint(1, 7, (2,), generator=gen)
        legal = afterstates(board[None], dice[None], with_paths=True)
        pick = int(random_child(legal.parent, 1, gen))
        steps = [
            (s + 1, max(s + 1 - d, 0))
            for s, d in zip(legal.sources[pick].tolist(), legal.dice[pick].tolist(), strict=True)
            if s >= 0
        ]
        high, low = sorted(dice.tolist(), reverse=True)
        game.actions.append(Action(player, "move", (high, low), steps))
        board = legal.boards[pick]
        if board[1].sum() == 0:
            game.winner = player
            game.points = cube * int(game_value(board.numpy(), checkers_per_side(variant)))
            return game
        board, player = swap_sides(board), 1 - player
    raise AssertionError("a random game did not end")


def random_match(seed: int = 1, canonical: bool = False) -> MatchRecord:
    """A fresh copy of :func:`generate_match` (generating takes about a second).

    ``canonical``: each move's steps sorted by source, then destination, descending, the order
    gnubg keeps a move in once it has read it."""
    match = copy.deepcopy(generate_match(seed))
    if canonical:
        for game in match.games:
            for action in game.actions:
                action.steps.sort(key=lambda s: (-s[0], -s[1]))
    return match


@functools.cache
def generate_match(seed: int) -> MatchRecord:
    """Six games of a 25-point match: each player first to roll, a double/take, a drop by
    either side, a resignation by either side."""
    gen = torch.Generator().manual_seed(seed)
    match = MatchRecord(
        25,
        ("Alice", "Bob"),
        event="Test cup",
        site="Oslo",
        round="Final",
        date="2026.01.02",
        transcriber="bgai",
    )
    score = [0, 0]
    plan = [
        (1, {6: "take"}, None),
        (0, {9: "drop"}, None),
        (1, None, None),
        (0, {4: "drop"}, None),
        (0, None, 7),
        (1, None, 7),
    ]
    for number, (first, cube_at, resign_at) in enumerate(plan, 1):
        game = random_game(gen, number, (score[0], score[1]), first, cube_at, resign_at)
        score[game.winner] += game.points
        match.games.append(game)
    return match


def replay(match: MatchRecord):
    """Each move with the board before it (mover in row 1)."""
    for game in match.games:
        board, owner = starting_board(match.variant), None
        for action in game.actions:
            if action.kind == "move":
                if owner is not None and owner != action.player:
                    board = swap_sides(board)
                owner = action.player
                yield action, board
                board = apply_steps(board, action.steps)


def positions(match: MatchRecord) -> list[str]:
    """Position ID after every move (the mover's view)."""
    return [encode_position_id(apply_steps(board, action.steps)) for action, board in replay(match)]


# --- round trips --------------------------------------------------------------------------


def test_generated_match_round_trips_exactly():
    match = random_match()
    text = write_mat(match)
    again = read_mat(text)
    assert again == match
    assert write_mat(again) == text
    assert [g.winner is not None for g in again.games] == [True] * 6
    assert [g.resigned for g in again.games] == [False] * 4 + [True] * 2
    assert again.games[1].actions[-2:] == [Action(1, "double", cube=2), Action(0, "drop")]


def test_save_and_load(tmp_path):
    match = random_match()
    path = tmp_path / "m.mat"
    save_mat(match, path)
    assert load_mat(path) == match


def test_gnubg_export_reads_and_writes_back_byte_for_byte():
    """A 3-point self-play match exported by gnubg 1.1.0a16: resignations, a double/drop, dances."""
    text = (DATA / "gnubg_selfplay.mat").read_text()
    match = read_mat(text)
    assert (match.match_length, match.players, match.date) == (3, ("gnubg", "root"), "2026.11.30")
    assert [(g.score, g.winner, g.points) for g in match.games] == [
        ((0, 0), 0, 2),
        ((2, 0), 1, 1),
        ((2, 1), 1, 1),
        ((2, 2), 0, 2),
    ]
    assert [a.kind for a in match.games[2].actions[-2:]] == ["double", "drop"]
    assert not match.games[2].resigned
    assert write_mat(match) == text


def test_header_tags_comment_and_variant_as_gnubg_writes_them():
    match = MatchRecord(
        5,
        ("Alice", "Bob"),
        variant="nackgammon",
        site="Some Site",
        event="Ev One",
        round="R3",
        date="2024.05.06",
        transcriber="Ann",
        comment="hello",
    )
    # Exactly what gnubg 1.1.0a16 exports after the same `set matchinfo ...` commands.
    assert write_mat(match) == (
        '; [Site "Some Site"]\n; [Event "Ev One"]\n; [Round "R3"]\n; [EventDate "2024.05.06"]\n'
        '; [Variation "NackGammon"]\n; [Transcriber "Ann"]\n\n; hello\n 5 point match\n\n'
    )
    assert read_mat(write_mat(match)) == dataclasses.replace(match, players=("", ""))  # no game, no names


def test_nackgammon_and_hypergammon_games_replay_from_their_own_start():
    text = (
        '; [Variation "HyperGammon (3)"]\n\n 0 point match\n\n Game 1\n a : 0      b : 0\n'
        "  1) 31: 24/21 22/21                 \n"
    )
    match = read_mat(text)
    assert match.variant == "hypergammon"
    assert match.games[0].actions[0].steps == [(24, 21), (22, 21)]
    with pytest.raises(ValueError, match="line 1: 2-checker"):
        read_mat('; [Variation "HyperGammon (2)"]\n 1 point match\n')


@functools.cache
def generate_session(variant: str) -> MatchRecord:
    """A money session of two games: a double and a beaver in the first."""
    gen = torch.Generator().manual_seed(7)
    games = [
        random_game(gen, 1, (0, 0), 0, {3: "beaver"}, variant=variant),
        random_game(gen, 2, (0, 0), 1, variant=variant),
    ]
    games[1].score = (games[0].points, 0) if games[0].winner == 0 else (0, games[0].points)
    for game in games:
        for action in game.actions:
            action.steps.sort(key=lambda s: (-s[0], -s[1]))
    return MatchRecord(0, ("Alice", "Bob"), games, variant=variant, date="2026.01.02")


@pytest.mark.parametrize("variant", ["nackgammon", "hypergammon"])
def test_money_session_with_a_beaver_round_trips(variant):
    session = copy.deepcopy(generate_session(variant))
    text = write_mat(session)
    assert session.games[0].actions[3:5] == [Action(1, "double", cube=2), Action(0, "beaver", cube=4)]
    assert re.search(r"^  3\)  Beavers => 4 +\d\d: ", text, re.M)  # the doubler rolls on, right column
    assert read_mat(text) == session


# --- gnubg's sample and other producers ---------------------------------------------------


def test_gnubg_sample_with_a_resignation_after_rolling():
    """formats.md §5: gnubg writes the roll of a player who resigned instead of moving."""
    text = (DATA / "gnubg_sample_resign.mat").read_text()
    match = read_mat(text)
    game = match.games[0]
    assert game.actions[0] == Action(1, "move", (6, 2), [(24, 18), (13, 11)])
    assert game.actions[6:8] == [Action(1, "double", cube=2), Action(0, "take")]
    assert game.actions[-1] == Action(0, "move", (5, 4), [])
    assert (game.winner, game.points, game.resigned) == (1, 2, True)
    assert write_mat(match) == text


def test_abridged_sample_fails_on_the_first_line_that_does_not_follow():
    """formats.md prints the sample with lines 6-8 left out, so line 9's move cannot be played."""
    lines = (DATA / "gnubg_sample_resign.mat").read_text().splitlines()
    abridged = lines[:11] + ["  9) 62: 13/11 11/5              33: 13/10 13/10 10/7 10/7"]
    with pytest.raises(ValueError, match=r"^line 12: "):
        read_mat("\n".join(abridged))


def xg_style(text: str) -> str:
    """Rewrite our text as other programs write it: BOM, XG tags, dice low first, ``bar``,
    ``off``, a wider left column, CRLF line ends."""
    out = [
        '\ufeff; [Site "XG Mobile"]',
        '; [Player 1 "Alice"]',
        "; [EventTime 11.33]",
        '; [Variation "Backgammon"]',
        '; [Crawford "On"]',
        '; [CubeLimit "1024"]',
    ]
    for line in text.splitlines():
        if line.startswith(";"):
            continue
        if ")" in line[:5]:
            number, cells = line.split(")", 1)
            cut = cells.index(" ", 28) if len(cells) > 28 and cells[28] != " " else 28  # a long left cell
            left, right = cells[1:cut].strip(), cells[cut + 1 :].strip()
            line = f"{number}) {swap_dice(left):<38} {swap_dice(right)}".rstrip()
        out.append(line.replace("25/", "bar/").replace("/0", "/off"))
    return "\r\n".join(out) + "\r\n"


def swap_dice(cell: str) -> str:
    if len(cell) >= 3 and cell[2] == ":" and cell[:2].isdigit():
        return cell[1] + cell[0] + cell[2:]
    return cell


def test_xg_style_file_reads_as_the_same_match():
    match = random_match()
    text = re.sub(r"(Wins \d+ points?)(\s*)$", r"\1 and the match\2", xg_style(write_mat(match)))
    assert text.endswith("and the match\r\n\r\n")
    again = read_mat(text)
    assert again.games == match.games
    assert again.players == match.players
    assert (again.cube_limit, again.crawford, again.variant) == (1024, True, "standard")


def test_consolidated_moves_are_split_into_legal_steps():
    """``61: 11/4``: one checker's two steps written as one, as some programs do."""
    match = random_match()
    merged = copy.deepcopy(match)
    count = 0
    for action, board in list(replay(merged)):
        steps = action.steps
        if len(steps) == 2 and steps[0][1] == steps[1][0] and board[0, 24 - steps[0][1]] == 0:
            action.steps = [(steps[0][0], steps[1][1])]  # the writer does not check dice
            count += 1
    assert count >= 3
    again = read_mat(write_mat(merged))
    assert positions(again) == positions(match)
    assert all(len(a.steps) <= 4 for g in again.games for a in g.actions)


def test_gnubg_notation_with_repeats_and_words():
    text = (
        " 1 point match\n Game 1\n a : 0   b : 0\n"
        "  1) 31: 8/5 6/5   33: 24/21(2) 13/10(2)\n  2) 21: bar/off\n"
    )
    with pytest.raises(ValueError, match="line 5: 21: bar/off is not a legal move"):
        read_mat(text)
    game = read_mat(text.rsplit("  2)", 1)[0]).games[0]
    assert game.actions[1].steps == [(24, 21), (24, 21), (13, 10), (13, 10)]


def test_dance_written_as_cannot_move_and_unknown_cells():
    text = write_mat(random_match())
    xg = re.sub(r"(\d\d):(?= {2,}\S| *$)", r"\1: Cannot Move", text, flags=re.M)
    assert xg.count("Cannot Move") >= 2
    xg = xg.replace("  1)                             ", "  1) ???                         ", 1)
    assert "???" in xg
    assert read_mat(xg).games == read_mat(text).games


# --- errors -------------------------------------------------------------------------------

BAD_FILES = [
    (
        " 3 point match\n\n Game 1\n a : 0   b : 0\n  1) 51: 13/9 24/23\n",
        r"line 5: 51: 13/9 24/23 is not a legal",
    ),
    (
        " 3 point match\n Game 1\n a : 0   b : 0\n  1) 51: 13/8 24/23   hello\n",
        r"line 4: cannot read 'hello'",
    ),
    (" 3 point match\n Game 1\n a 0 b\n", r"line 3: expected 'name : score"),
    (" Game 1\n", r"line 1: 'Game' comes before"),
    ("; nothing\n", r"line 1: no ' N point match' line"),
    (
        " 3 point match\n Game 1\n a : 0   b : 0\n  1) 51: 13/8 24/23\n  2) 62: 24/18 13/11\n",
        r"line 5: a move in",
    ),
    (" 3 point match\n Game 1\n a : 0   b : 0\n  1)  Takes\n", r"line 4: a take with no double"),
    (
        " 3 point match\n Game 1\n a : 0   b : 0\n  1) 51: 13/8 24/23\n"
        "      Wins 1 point\n  2) 42: 8/4 6/4\n",
        r"line 6: more play after 'Wins' on line 5",
    ),
    (
        " 3 point match\n Game 1\n a : 0   b : 0\n  1) 51: 13/8 24/23       42:\n",
        r"line 4: no move written for 42",
    ),
    (
        " 3 point match\n Game 1\n a : 0   b : 0\n  1) 51: 13/8 24/23 6/5\n",
        r"line 4: 51: 13/8 24/23 6/5 is not",
    ),
]


@pytest.mark.parametrize(("text", "message"), BAD_FILES)
def test_malformed_file_names_the_line(text, message):
    with pytest.raises(ValueError, match=message):
        read_mat(text)


def test_writer_refuses_a_record_it_cannot_lay_out():
    game = GameRecord(1, (0, 0), [Action(0, "move", (3, 1), [(8, 5), (6, 5)]), Action(0, "double", cube=2)])
    with pytest.raises(ValueError, match="acts twice in a row"):
        write_mat(MatchRecord(3, ("a", "b"), [game]))
    game = GameRecord(1, (0, 0), [Action(0, "move", (3, 1), [(7, 4), (6, 5)])])
    with pytest.raises(ValueError, match="no checker on point 7"):
        write_mat(MatchRecord(3, ("a", "b"), [game]))


# --- gnubg imports our files --------------------------------------------------------------


def gnubg_import(path: Path) -> dict:
    gnubg = oracle.program()
    gnubg.command("set threads 1")
    gnubg.command(f'import mat "{path}"')
    return gnubg.match()


@pytest.mark.gnubg
def test_gnubg_imports_our_match_with_the_same_moves_scores_and_results(tmp_path):
    match = random_match()
    path = tmp_path / "ours.mat"
    save_mat(match, path)
    imported = gnubg_import(path)
    info = imported["match-info"]
    assert info["match-length"] == 25
    assert (info["X"]["name"], info["O"]["name"]) == match.players  # gnubg's dict: X = player 0
    label = {0: "X", 1: "O"}
    assert len(imported["games"]) == len(match.games)
    for game, theirs in zip(match.games, imported["games"], strict=True):
        assert (theirs["info"]["score-X"], theirs["info"]["score-O"]) == game.score
        assert theirs["info"]["winner"] == label[game.winner]
        assert theirs["info"]["points-won"] == game.points
        assert theirs["info"].get("resigned", False) == game.resigned
        ours = game.actions
        their_actions = [a for a in theirs["game"] if a["action"] != "resign"]
        assert [(a["action"], a["player"]) for a in their_actions] == [
            (a.kind, label[a.player]) for a in ours
        ]
        board, owner = starting_board(), None
        for action, their in zip(ours, their_actions, strict=True):
            if action.kind != "move":
                continue
            if owner is not None and owner != action.player:
                board = swap_sides(board)
            owner = action.player
            assert their["board"] == encode_position_id(board)
            assert tuple(sorted(their["dice"], reverse=True)) == action.dice
            assert sorted(their["move"]) == sorted(action.steps)
            board = apply_steps(board, action.steps)


@pytest.mark.gnubg
def test_gnubg_exports_our_file_back_unchanged(tmp_path, gnubg):
    """Import into gnubg, export again: the same text, byte for byte."""
    match = random_match(canonical=True)
    path, back = tmp_path / "ours.mat", tmp_path / "back.mat"
    save_mat(match, path)
    gnubg_import(path)
    gnubg.command(f'export match mat "{back}"')
    assert back.read_text() == path.read_text()
    assert read_mat(back.read_text()).games == match.games


@pytest.mark.gnubg
def test_gnubg_reads_the_resignation_sample_as_we_do():
    ours = load_mat(DATA / "gnubg_sample_resign.mat").games[0]
    imported = gnubg_import(DATA / "gnubg_sample_resign.mat")["games"][0]
    info = imported["info"]
    assert (info["winner"], info["points-won"], info["resigned"]) == ("O", 2, True)
    assert imported["game"][-1] == {"action": "resign", "player": "X", "points": 1}  # times the 2-cube
    our_moves = [a for a in ours.actions if a.kind == "move"]
    their_moves = [a for a in imported["game"] if a["action"] == "move"]
    assert [sorted(a["move"]) for a in their_moves[:-1]] == [sorted(a.steps) for a in our_moves[:-1]]
    # "54:" with no move: we keep the roll and no steps; gnubg plays some legal 54 for it.
    assert (their_moves[-1]["player"], their_moves[-1]["dice"]) == ("X", (5, 4))
    assert our_moves[-1] == Action(0, "move", (5, 4), [])


@pytest.mark.gnubg
@pytest.mark.parametrize("variant", ["nackgammon", "hypergammon"])
def test_gnubg_exports_our_money_session_back_unchanged(tmp_path, variant, gnubg):
    session = copy.deepcopy(generate_session(variant))
    path, back = tmp_path / "ours.mat", tmp_path / "back.mat"
    save_mat(session, path)
    imported = gnubg_import(path)
    assert imported["match-info"]["match-length"] == 0
    assert [a["action"] for a in imported["games"][0]["game"][3:6]] == ["double", "double", "take"]
    gnubg.command(f'export match mat "{back}"')
    assert back.read_text() == path.read_text()
