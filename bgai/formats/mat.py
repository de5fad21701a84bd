"""Jellyfish ``.mat`` match files, as gnubg writes and reads them (docs/formats.md §5).

:func:`write_mat` reproduces the layout of gnubg 1.1's ``export match mat``: header comments,
`` N point match``, then per game `` Game n``, the ``name : score`` line and numbered lines
with the left player's cell in a 27-character column and the right player's cell after it.
Moves are written in gnubg's plain style (``25/24*``, ``6/0``, every die a step).

:func:`read_mat` is tolerant of what other programs write: a UTF-8 BOM, ``;``/``#`` comment
lines with ``[Event "..."]``-style tags, ``bar``/``25`` and ``off``/``0``, dice in any
order, ``Cannot Move``, ``???``, gnubg's own notation, and consolidated moves (``61: 11/4``),
which are split into single-die steps by searching the legal moves of the replayed
position. Every move is checked against the rules; a file that cannot be read raises
``ValueError`` naming the line and what is wrong.

Conventions of the records below:

* players are numbered as in gnubg: 0 = the left column (gnubg's player 0, "O"),
  1 = the right column;
* a move is a list of steps ``(from, to)``, 1-based points of the **mover**, 25 = the bar,
  0 = borne off, one step per die, in play order; an empty list is a dance;
* players alternate strictly: double (A), take (B), move (A); a beaver (B) is accepted by
  the doubler at once (gnubg writes no ``Takes`` after ``Beavers``), so A moves next;
* a game that ends while neither side has borne off everything, and not by a drop, was
  resigned; the ``Wins N point(s)`` line says who won and how much, as the file has it;
* gnubg writes the roll of a player who resigned instead of moving (``54:`` and nothing
  else): such a move, last in a resigned game, keeps its dice and has no steps.

Not supported: raccoons, XG's ``; Set Pos=`` start positions (read as a comment, so the game
then fails to replay), 1- and 2-checker hypergammon.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import torch

from bgai.engine.board import game_value, starting_board, swap_sides
from bgai.engine.movegen import afterstates, expand
from bgai.engine.steps import Step, apply_steps, path_steps
from bgai.formats.notation import format_move_plain, parse_move
from bgai.formats.quote import quote, shorten

ACTION_KINDS = ("move", "double", "take", "drop", "beaver")

_VARIATION_NAMES = {"nackgammon": "NackGammon", "hypergammon": "HyperGammon (3)"}
_LEFT_WIDTH = 27  # gnubg: "%3d) %-27s %s"
_WINS_RIGHT = " " * 34  # "Wins" in the right column, on a line of its own
_WINS_LEFT = " " * 6
_RIGHT_COLUMN = 20  # a lone cell starting at or after this column is the right player's
MAX_MATCH_LENGTH = 64  # gnubg's longest match (its match equity table ends there)


@dataclass
class Action:
    """One thing a player did: a move (with its roll), or a cube action."""

    player: int
    """0 = left column, 1 = right column."""
    kind: str = "move"
    """One of ``ACTION_KINDS``."""
    dice: tuple[int, int] | None = None
    """The roll of a move (a ``.mat`` file writes the larger die first)."""
    steps: list[Step] = field(default_factory=list)
    """Steps of a move in play order, from the mover's side; empty = a dance."""
    cube: int | None = None
    """The cube value offered by a double or a beaver (``Doubles => 2``)."""


@dataclass
class GameRecord:
    """One game of a match, from the opening roll to its end (or as far as it was played)."""

    number: int
    """1-based, as in `` Game 1``."""
    score: tuple[int, int]
    """Scores of player 0 and player 1 before the game."""
    actions: list[Action] = field(default_factory=list)
    winner: int | None = None
    """None = unfinished."""
    points: int = 0
    """Points won, as ``Wins N points`` says (cube value times 1, 2 or 3)."""
    resigned: bool = False
    """True if the game ended by a resignation rather than a bear-off or a drop."""


@dataclass
class MatchRecord:
    """A match (or a money session) as a ``.mat`` file holds it."""

    match_length: int
    """0 = a money session."""
    players: tuple[str, str]
    """Names of player 0 (left column) and player 1 (right column)."""
    games: list[GameRecord] = field(default_factory=list)
    variant: str = "standard"
    """``standard``, ``nackgammon`` or ``hypergammon`` (3 checkers), as in :mod:`bgai.engine.board`."""
    event: str | None = None
    site: str | None = None
    round: str | None = None
    date: str | None = None
    """As the file writes it, gnubg's style is ``YYYY.MM.DD``."""
    transcriber: str | None = None
    comment: str | None = None
    """Comment lines before the `` N point match`` line, without their ``; ``."""
    crawford: bool = True
    """The Crawford rule (gnubg assumes it in every match; XG may say ``[Crawford "Off"]``)."""
    cube_limit: int | None = None
    """``[CubeLimit "N"]`` when the file has it; 1 means the cube is not used."""


# --- writing ------------------------------------------------------------------------------


def _points_text(points: int) -> str:
    return f"Wins {points} point{'' if points == 1 else 's'}"


def _header(record: MatchRecord) -> str:
    variation = _VARIATION_NAMES.get(record.variant)
    if record.variant != "standard" and variation is None:
        raise ValueError(f"unknown variant {record.variant!r}: choose standard, nackgammon or hypergammon")
    tags = [
        ("Site", record.site),
        ("Event", record.event),
        ("Round", record.round),
        ("EventDate", record.date),
        ("Variation", variation),
        ("CubeLimit", record.cube_limit),
        ("Crawford", "Off" if not record.crawford and record.match_length else None),
        ("Transcriber", record.transcriber),
    ]
    text = "".join(f'; [{key} "{value}"]\n' for key, value in tags if value is not None) + "\n"
    if record.comment:
        text += "".join(f"; {line}\n" for line in record.comment.split("\n"))
    return text + f" {record.match_length} point match\n\n"


def _move_cell(board: np.ndarray, action: Action) -> str:
    if action.dice is None or len(action.dice) != 2 or not all(1 <= d <= 6 for d in action.dice):
        raise ValueError(f"a move needs its roll, two dice 1-6, got {action.dice!r}")
    high, low = max(action.dice), min(action.dice)
    moves = format_move_plain(board, action.steps)
    # gnubg follows every step but a fourth by a space, so "21: " for a dance.
    return f"{high}{low}:" + (f" {moves}" if moves else "") + (" " if len(action.steps) < 4 else "")


def _write_game(game: GameRecord, record: MatchRecord) -> str:
    name0, name1 = record.players
    out = [f" Game {game.number}\n", f" {f'{name0} : {game.score[0]}':<31}{name1} : {game.score[1]}\n"]
    board = starting_board(record.variant)
    board_owner: int | None = None  # the player in row 1; None while the board is symmetric
    cube = 1
    number, pending = 1, False  # pending: the left cell of line ``number`` is written
    for k, action in enumerate(game.actions):
        where = f"game {game.number}, action {k + 1}"
        if action.player not in (0, 1):
            raise ValueError(f"{where}: player must be 0 or 1, got {action.player!r}")
        if k and action.player == game.actions[k - 1].player:
            raise ValueError(f"{where}: player {action.player} acts twice in a row; players alternate")
        if action.kind == "move":
            if board_owner is not None and board_owner != action.player:
                board = swap_sides(board)
            board_owner = action.player
            try:
                cell = _move_cell(board, action)
                board = apply_steps(board, action.steps)
            except ValueError as exc:
                raise ValueError(f"{where}: {exc}") from None
        elif action.kind in ("double", "beaver"):
            cube = action.cube if action.cube is not None else 2 * cube
            cell = f" {'Doubles' if action.kind == 'double' else 'Beavers'} => {cube}"
        elif action.kind == "take":
            cell = " Takes"
        elif action.kind == "drop":
            cell = " Drops"
        else:
            choices = ", ".join(ACTION_KINDS)
            raise ValueError(f"{where}: unknown action {action.kind!r}; choose one of {choices}")
        if pending:
            out.append(f"{cell}\n")
            number, pending = number + 1, False
        elif action.player == 1:
            out.append(f"{number:3d}) {'':<{_LEFT_WIDTH}} {cell}\n")
            number += 1
        else:
            out.append(f"{number:3d}) {cell:<{_LEFT_WIDTH}} ")
            pending = True
    wins = _points_text(game.points)
    if game.winner == 0:
        out.append(("\n" if pending else "") + f"{_WINS_LEFT}{wins}\n")
    elif game.winner == 1:  # after a left cell (a drop, a resignation) on the same line
        out.append(f" {wins} \n" if pending else f"{_WINS_RIGHT}{wins}\n")
    elif game.winner is not None:
        raise ValueError(f"game {game.number}: winner must be 0, 1 or None, got {game.winner!r}")
    elif pending:
        out.append("\n")
    out.append("\n")
    return "".join(out)


def write_mat(record: MatchRecord) -> str:
    """The ``.mat`` text of ``record``, laid out exactly as gnubg's ``export match mat``."""
    if len(record.players) != 2:
        raise ValueError(f"a match has two players, got {record.players!r}")
    return _header(record) + "".join(_write_game(game, record) for game in record.games)


def save_mat(record: MatchRecord, path: str | Path) -> None:
    """Write ``record`` to ``path`` as a ``.mat`` file (UTF-8)."""
    Path(path).write_text(write_mat(record), encoding="utf-8")


# --- reading: lines and cells -------------------------------------------------------------

_TAG = re.compile(r'\[\s*(?P<key>[A-Za-z][A-Za-z0-9 ]*?)\s+"(?P<value>[^"]*)"\s*\]')
_MATCH_LINE = re.compile(r"(?P<length>\d+)\s+point\s+match\b", re.I)
_GAME_LINE = re.compile(r"Game\s+(?P<number>\d+)", re.I)
_SCORE_LINE = re.compile(r"(?P<n0>.*?)\s*:\s*(?P<s0>\d+)\s*(?P<n1>.*?)\s*:\s*(?P<s1>\d+)")
_MOVE_LINE = re.compile(r"\s*(?P<number>\d+)\)(?P<cells>.*)")
_RATING = re.compile(r",\s*-?[\d.]+$")  # GridGammon appends ",rating" to names
_KEYWORD = r"(?:doubles|beavers|takes|drops|passes|wins)\b"
_CELL = re.compile(
    rf"""
    (?P<dice>[1-6])(?P<die>[1-6]):(?P<move>.*?)(?=\s+(?:[1-6][1-6]:|{_KEYWORD})|\s*$)
    | (?P<cube>doubles|beavers)\s*=>\s*(?P<value>\d+)
    | (?P<answer>takes|drops|passes)\b
    | wins\s+(?P<points>\d+)\s+points?\b(?:\s+and\s+the\s+match\b)?
    | (?P<unknown>\?\?\?)
    """,
    re.I | re.X,
)
_NO_MOVE = {"", "cannot move", "can't move", "???"}


@dataclass
class _Cell:
    line: int
    player: int
    kind: str  # an action kind, "wins" or "skip"
    dice: tuple[int, int] | None = None
    move: str = ""
    value: int = 0


@dataclass
class _GameText:
    line: int
    number: int
    names: tuple[str, str] = ("", "")
    score: tuple[int, int] = (0, 0)
    cells: list[_Cell] = field(default_factory=list)


def _number(digits: str, line: int) -> int:
    """A count written in the file; more than 9 digits is no count a match has."""
    if len(digits) > 9:
        raise ValueError(f"line {line}: {shorten(digits, 12)} is no number a match file holds")
    return int(digits)


def _read_cells(text: str, offset: int, line: int) -> list[_Cell]:
    """The cells of one line (``text`` starts at column ``offset``): left, then right."""
    found: list[tuple[int, re.Match[str]]] = []
    pos = 0
    while True:
        while pos < len(text) and text[pos].isspace():
            pos += 1
        if pos == len(text):
            break
        match = _CELL.match(text, pos)
        if match is None:
            raise ValueError(f"line {line}: cannot read {quote(text[pos:].strip())}")
        found.append((offset + pos, match))
        pos = match.end()
    if len(found) > 2:
        raise ValueError(f"line {line}: {len(found)} entries; a line holds at most the two players' cells")
    cells = []
    for k, (column, match) in enumerate(found):
        player = k if len(found) == 2 else int(column >= _RIGHT_COLUMN)
        if match["dice"]:
            dice = (int(match["dice"]), int(match["die"]))
            move = match["move"].strip()
            cells.append(_Cell(line, player, "move", (max(dice), min(dice)), move))
        elif match["cube"]:
            kind = "double" if match["cube"].lower() == "doubles" else "beaver"
            cells.append(_Cell(line, player, kind, value=_number(match["value"], line)))
        elif match["answer"]:
            cells.append(_Cell(line, player, "take" if match["answer"].lower() == "takes" else "drop"))
        elif match["points"]:
            cells.append(_Cell(line, player, "wins", value=_number(match["points"], line)))
        else:
            cells.append(_Cell(line, player, "skip"))
    return cells


def _read_variation(value: str, line: int) -> str:
    name = value.strip().lower()
    if name in ("", "backgammon", "standard"):
        return "standard"
    if name.startswith("nack"):
        return "nackgammon"
    if name.startswith("hyper"):
        count = re.sub(r"\D", "", name) or "3"
        if count == "3":
            return "hypergammon"
        raise ValueError(f"line {line}: {count}-checker hypergammon is not supported (only 3 checkers)")
    raise ValueError(f"line {line}: unknown variation {quote(value)}")


def _read_comment(body: str, line: int, meta: dict, comments: list[str] | None) -> None:
    text = body[1:]
    tags = list(_TAG.finditer(text))
    for tag in tags:
        key, value = tag["key"].lower(), tag["value"]
        if key in ("event", "site", "round", "transcriber"):
            meta[key] = value
        elif key == "eventdate":
            meta["date"] = value
        elif key == "variation":
            meta["variant"] = _read_variation(value, line)
        elif key == "cubelimit" and value.strip().isdigit():
            meta["cube_limit"] = _number(value.strip(), line)
        elif key == "crawford":
            meta["crawford"] = value.strip().lower() not in ("off", "no", "false", "0")
    if not tags and comments is not None and not text.strip().startswith("["):
        comments.append(text[1:] if text.startswith(" ") else text)


def _read_lines(text: str) -> tuple[dict, list[str], int | None, list[_GameText]]:
    meta: dict = {}
    comments: list[str] = []
    match_length: int | None = None
    games: list[_GameText] = []
    awaiting_score = False
    lines = text.removeprefix("\ufeff").splitlines()
    for number, raw in enumerate(lines, 1):
        line = raw.expandtabs(8).rstrip()
        body = line.strip()
        if not body:
            continue
        if body[0] in ";#":
            _read_comment(body, number, meta, comments if match_length is None else None)
            continue
        if awaiting_score:
            score = _SCORE_LINE.fullmatch(body)
            if score is None:
                raise ValueError(f"line {number}: expected 'name : score   name : score', got {quote(body)}")
            game = games[-1]
            game.names = (_RATING.sub("", score["n0"]), _RATING.sub("", score["n1"]))
            game.score = (_number(score["s0"], number), _number(score["s1"], number))
            if match_length and max(game.score) >= match_length:
                raise ValueError(
                    f"line {number}: a score of {max(game.score)} before a game of a "
                    f"{match_length}-point match, which it would have ended"
                )
            awaiting_score = False
            continue
        if (header := _MATCH_LINE.match(body)) is not None:
            if match_length is not None:
                raise ValueError(f"line {number}: a second 'point match' line; one file holds one match")
            match_length = _number(header["length"], number)
            if match_length > MAX_MATCH_LENGTH:
                raise ValueError(
                    f"line {number}: a {match_length}-point match; matches go up to "
                    f"{MAX_MATCH_LENGTH} points (0 is a money session)"
                )
            continue
        if (start := _GAME_LINE.fullmatch(body)) is not None:
            if match_length is None:
                raise ValueError(f"line {number}: 'Game' comes before the ' N point match' line")
            games.append(_GameText(number, _number(start["number"], number)))
            awaiting_score = True
            continue
        if match_length is None:
            continue  # text before the match header that no program needs
        if not games:
            raise ValueError(f"line {number}: expected ' Game 1', got {quote(body)}")
        if (moves := _MOVE_LINE.fullmatch(line)) is not None:
            games[-1].cells.extend(_read_cells(moves["cells"], moves.start("cells"), number))
        elif body.lower().startswith("wins"):
            games[-1].cells.extend(_read_cells(line, 0, number))
        else:
            raise ValueError(f"line {number}: cannot read {quote(body)}")
    if awaiting_score:
        raise ValueError(f"line {games[-1].line}: 'Game {games[-1].number}' has no 'name : score' line")
    if match_length is None:
        raise ValueError(f"line {len(lines)}: no ' N point match' line in the file")
    return meta, comments, match_length, games


# --- reading: replaying the games ---------------------------------------------------------


@dataclass
class _MoveCheck:
    """A move to check against the legal moves, all at once after reading."""

    line: int
    before: np.ndarray
    dice: tuple[int, int]
    after: np.ndarray
    text: str


def _fits_dice(steps: list[Step], dice: tuple[int, int]) -> bool:
    """True if each step uses one die (a larger die may bear a checker off)."""
    per_step = [dice[0]] * 4 if dice[0] == dice[1] else list(dice)
    if len(steps) > len(per_step):
        return False

    def fits(step: Step, die: int) -> bool:
        return step[0] - step[1] == die or (step[1] == 0 and step[0] - step[1] < die)

    orders = [per_step, per_step[::-1]]  # a non-double's dice may be played either way round
    return any(all(fits(step, die) for step, die in zip(steps, order, strict=False)) for order in orders)


def _parse_written(text: str, line: int) -> list[Step]:
    """Steps as written, in the written order (each word's chain in its own order)."""
    steps: list[Step] = []
    try:
        for word in text.replace(",", " ").split():
            steps.extend(parse_move(word))
        parse_move(text)  # the whole move: at most four steps
    except ValueError as exc:
        raise ValueError(f"line {line}: {exc}") from None
    return steps


def _search_move(board: np.ndarray, dice: tuple[int, int], steps: list[Step], text: str, line: int):
    """A legal move that takes the mover's checkers where ``steps`` says (``61: 11/4``)."""
    target = board[1].astype(np.int64).copy()
    for source, dest in steps:
        target[source - 1] -= 1
        if dest:
            target[dest - 1] += 1
    legal = afterstates(torch.as_tensor(board)[None], torch.tensor([dice]), with_paths=True)
    children = legal.boards.numpy()
    fits = [j for j in range(len(children)) if np.array_equal(children[j, 1], target)]
    if not fits:
        raise ValueError(f"line {line}: {dice[0]}{dice[1]}: {text} is not a legal move")
    hits = text.count("*")
    fits.sort(key=lambda j: int(children[j, 0, 24]) - int(board[0, 24]) != hits)
    best = fits[0]
    return path_steps(legal.sources[best], legal.dice[best]), children[best]


def _read_move(board: np.ndarray, cell: _Cell, checks: list[_MoveCheck]) -> tuple[list[Step], np.ndarray]:
    text = "" if cell.move.lower() in _NO_MOVE else cell.move
    steps = _parse_written(text, cell.line)
    after = None
    if _fits_dice(steps, cell.dice):
        try:
            after = apply_steps(board, steps)
        except ValueError:
            after = None
    if after is None:
        steps, after = _search_move(board, cell.dice, steps, text, cell.line)
    checks.append(_MoveCheck(cell.line, board, cell.dice, after, text))
    return steps, after


def _replay(game: _GameText, variant: str, checks: list[_MoveCheck], resignations: set[int]) -> GameRecord:
    """The actions of one game, its moves applied to a board to split them and find the end; a
    move with no steps that a resignation ends (gnubg writes the roll, ``54:``) joins ``resignations``."""
    record = GameRecord(game.number, game.score)
    board = starting_board(variant)
    checkers = int(board[0].sum())
    board_owner: int | None = None  # the player in row 1; None while the board is symmetric
    cube = 1
    offer: Action | None = None  # a double or beaver still to be answered
    expected: int | None = None
    over_by: str | None = None  # "bear-off" or "drop" once the game is decided
    wins: _Cell | None = None
    for cell in game.cells:
        if cell.kind == "skip":
            continue
        if wins is not None:
            raise ValueError(f"line {cell.line}: more play after 'Wins' on line {wins.line}")
        if cell.kind == "wins":
            wins = cell
            continue
        if over_by is not None:
            raise ValueError(f"line {cell.line}: more play after the game ended by a {over_by}")
        last = record.actions[-1] if record.actions else None
        if cell.kind == "take" and last is not None and last.kind == "beaver" and cell.player != last.player:
            continue  # the doubler accepting the beaver: gnubg leaves it out, others may not
        if expected is not None and cell.player != expected:
            side = "left" if cell.player == 0 else "right"
            raise ValueError(
                f"line {cell.line}: a {cell.kind} in the {side} column, but it is player {expected}'s turn"
            )
        expected = 1 - cell.player
        answers = cell.kind in ("take", "drop", "beaver")
        if answers != (offer is not None):
            problem = "with no double to answer" if answers else "before the double is answered"
            raise ValueError(f"line {cell.line}: a {cell.kind} {problem}")
        if cell.kind == "move":
            if board_owner is not None and board_owner != cell.player:
                board = swap_sides(board)
            board_owner = cell.player
            steps, board = _read_move(board, cell, checks)
            record.actions.append(Action(cell.player, "move", cell.dice, steps))
            if board[1].sum() == 0:
                over_by = "bear-off"
                record.winner = cell.player
                record.points = cube * int(game_value(board, checkers))
            continue
        if cell.kind in ("double", "beaver"):  # each doubles the cube: gnubg writes the value it offers
            before = cube if cell.kind == "double" else offer.cube
            if cell.value != 2 * before:
                word = "Doubles" if cell.kind == "double" else "Beavers"
                raise ValueError(
                    f"line {cell.line}: '{word} => {cell.value}' with the cube at {before}; "
                    f"it offers {2 * before}"
                )
        action = Action(cell.player, cell.kind, cube=cell.value or None)
        record.actions.append(action)
        if cell.kind == "drop":
            over_by = "drop"
            record.winner, record.points = offer.player, offer.cube // 2
        elif cell.kind == "take":
            cube, offer = offer.cube, None
        elif cell.kind == "beaver":  # accepted at once: the doubler rolls next
            cube, offer = action.cube, None
        else:
            offer = action
    if wins is not None:
        if over_by is not None and wins.player != record.winner:
            raise ValueError(
                f"line {wins.line}: 'Wins' is in player {wins.player}'s column, "
                f"but player {record.winner} won by a {over_by}"
            )
        record.resigned = over_by is None
        last = record.actions[-1] if record.actions else None
        if record.resigned and last is not None and last.kind == "move" and not last.steps:
            resignations.add(len(checks) - 1)  # gnubg writes the roll of one who resigned ("54: ")
        # a bear-off or a drop is worth what it scored (less with the Jacoby rule); a resignation
        # at most a backgammon at the cube's value
        worth = record.points if over_by is not None else 3 * max(cube, offer.cube if offer else 0)
        if not 1 <= wins.value <= worth:
            raise ValueError(
                f"line {wins.line}: 'Wins {wins.value} points', but the game was worth "
                f"{'at most ' if over_by is None else ''}{worth}"
            )
        record.winner, record.points = wins.player, wins.value
    return record


def _check_moves(checks: list[_MoveCheck], resignations: set[int]) -> None:
    """Raise for the first move (by line) that is not among the legal moves of its roll."""
    if not checks:
        return
    before = torch.as_tensor(np.stack([c.before for c in checks]))
    dice = torch.tensor([c.dice for c in checks])
    after = torch.as_tensor(np.stack([c.after for c in checks]))
    children, parent = expand(before, dice)
    same = (children == after.index_select(0, parent)).flatten(1).all(1)
    legal = torch.zeros(len(checks), dtype=torch.bool)
    legal[parent[same]] = True
    for k in (~legal).nonzero().squeeze(1).tolist():
        check = checks[k]
        if k in resignations:
            continue
        roll = f"{check.dice[0]}{check.dice[1]}"
        if check.text == "":
            raise ValueError(f"line {check.line}: no move written for {roll}, but legal moves exist")
        raise ValueError(f"line {check.line}: {roll}: {check.text} is not a legal move")


def read_mat(text: str) -> MatchRecord:
    """The match in a ``.mat`` text, every move checked against the rules and split into steps."""
    meta, comments, match_length, games = _read_lines(text)
    variant = meta.pop("variant", "standard")
    checks: list[_MoveCheck] = []
    resignations: set[int] = set()
    records = []
    for game in games:
        try:
            record = _replay(game, variant, checks, resignations)
        except ValueError:
            _check_moves(checks, resignations)  # an earlier illegal move explains it better
            raise
        records.append(record)
    _check_moves(checks, resignations)
    return MatchRecord(
        match_length=match_length,
        players=games[0].names if games else ("", ""),
        games=records,
        variant=variant,
        comment="\n".join(comments) or None,
        **meta,
    )


def load_mat(path: str | Path) -> MatchRecord:
    """Read a ``.mat`` file (UTF-8 with or without BOM; Latin-1 if it is not UTF-8)."""
    data = Path(path).read_bytes()
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError:
        text = data.decode("latin-1")
    return read_mat(text)
