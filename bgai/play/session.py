"""A money session or a match between a person and a bot: the state machine, with no I/O.

Players are numbered as in gnubg: the bot is player 0 (O, the top of the board, the left
column of a ``.mat`` file), the person player 1 (X, the bottom, the right column). The board
is kept in bgai's layout, row 1 = the player on roll, together with a :class:`MatchState`
(cube, score, dice, Crawford game), so :attr:`MatchSession.gnubg_id` is always gnubg's ID of
the moment.

A caller (the terminal, a test) alternates two kinds of call:

* :meth:`MatchSession.advance` does everything nobody has to choose: the opening roll, the
  bot's cube decisions, rolls and moves, its answer to a double, the person's roll when the
  cube cannot be turned, a forced move or a dance. It stops when the person must decide
  (:attr:`MatchSession.awaiting`) and returns what happened as :class:`Event` s;
* one of the person's actions: :meth:`~MatchSession.roll`, :meth:`~MatchSession.play_move`,
  :meth:`~MatchSession.offer_double`, :meth:`~MatchSession.respond`,
  :meth:`~MatchSession.resign`, :meth:`~MatchSession.next_game`. Each raises ``ValueError``
  saying why when it is not allowed now (an illegal move: why it is illegal), and returns
  its events.

Rules: the opening roll is one die each, ties rolled again,
the higher die moves first with both dice; the cube is turned before rolling, a take gives
the taker the cube, a pass loses the current stake; a resignation offers 1, 2 or 3 times the
cube. Money play: Jacoby (optional, gammons count only once the cube is turned) and beavers
(optional: the taker redoubles at once and keeps the cube; the doubler accepts, as gnubg's
``.mat`` files assume). Match play: the Crawford rule (no doubling in the game after a player
first reaches one point from the match) and the match ends when a player reaches its length.
Dice come from a seeded generator, so the same seed and the same actions replay a session.
"""

from __future__ import annotations

import dataclasses
import secrets
from dataclasses import dataclass

import numpy as np
import torch

from bgai.cube.analysis import cube_state, why_no_double
from bgai.cube.state import MAX_CUBE
from bgai.engine.board import checkers_per_side, game_value, starting_board, swap_sides
from bgai.engine.dice import opening_roll
from bgai.engine.dice import roll as roll_dice
from bgai.engine.steps import move_steps
from bgai.formats import MatchState, decode_position_id, encode_gnubg_id, encode_position_id
from bgai.formats.mat import Action, GameRecord, MatchRecord
from bgai.model.probs import invert
from bgai.moves import apply_move, legal_moves
from bgai.opponent.bot import Bot

BOT, PERSON = 0, 1
"""gnubg's player numbers: O (top, .mat left column) and X (bottom, right column)."""

ROLL, MOVE, ANSWER, NEXT, OVER = "roll", "move", "answer", "next", "over"
"""What :attr:`MatchSession.awaiting` can say the person must do: roll or double, move,
take or pass the bot's double, start the next game, nothing (the match is over)."""

RESULT_NAMES = {1: "single game", 2: "gammon", 3: "backgammon"}
RESIGN_LEVELS = {"single": 1, "gammon": 2, "backgammon": 3, "1": 1, "2": 2, "3": 3}


@dataclass(frozen=True)
class Event:
    """Something that happened, for the caller to tell.

    ``kind``: ``game`` (game number ``game`` starts; ``crawford`` says if it is the Crawford
    game), ``opening`` (``dice`` = (bot's die, person's die), ``player`` moves first),
    ``roll``, ``move``, ``dance``, ``double`` (``cube`` = the value offered), ``take``,
    ``beaver`` (``cube`` = the new value), ``pass``, ``resign_declined``, ``win`` (``points``
    won, ``how`` = single game / gammon / backgammon / pass / resignation), ``match`` (the
    ``player`` won it). ``gnubg_id`` is the position and match state just after the event.
    """

    kind: str
    player: int
    gnubg_id: str
    dice: tuple[int, int] | None = None
    move: str = ""
    forced: bool = False
    cube: int = 0
    points: int = 0
    how: str = ""
    game: int = 0
    crawford: bool = False


@dataclass(frozen=True)
class Hint:
    """Advice for the person from the bot's evaluator (equities are the person's).

    ``moves``: ``(move, cubeless equity, probabilities)`` best first; ``cube``: gnubg's words
    for the cube action of the player on roll (the bot's double when ``awaiting`` is ANSWER);
    ``answer``: take, pass or beaver, when answering a double.
    """

    moves: list[tuple[str, float, tuple[float, ...]]]
    cube: str | None = None
    answer: str | None = None
    probs: tuple[float, ...] | None = None
    plies: int = 0


class MatchSession:
    """A person (player 1) against ``bot`` (player 0): a money session or a match to ``match_length``."""

    def __init__(
        self,
        bot: Bot,
        *,
        match_length: int = 0,
        cube: bool = True,
        variant: str = "standard",
        seed: int | None = None,
        name: str = "you",
        jacoby: bool = False,
        beavers: bool = True,
        score: tuple[int, int] = (0, 0),
        post_crawford: bool = False,
    ) -> None:
        """``score`` (bot, person) and ``post_crawford`` start a match at a score (to practise one)."""
        if match_length < 0:
            raise ValueError(f"a match is 1 point or longer (0 = money session), got {match_length}")
        if match_length and not all(0 <= s < match_length for s in score):
            raise ValueError(f"a score in a {match_length}-point match is 0-{match_length - 1}, got {score}")
        if (not match_length and any(score)) or (post_crawford and max(score) != match_length - 1):
            raise ValueError("post-Crawford needs a player one point from the match; money play has no score")
        self.bot = bot
        self.names = (bot.name, name)
        self.match_length = int(match_length)
        self.cube_in_play = bool(cube) and bot.cube is not None  # a bot without cube sense plays without it
        self.variant = variant
        self.checkers = checkers_per_side(variant)
        self.jacoby = bool(jacoby) and self.match_length == 0
        self.beavers = bool(beavers) and self.match_length == 0 and self.cube_in_play
        self.seed = secrets.randbits(31) if seed is None else int(seed)
        self._dice_source = torch.Generator().manual_seed(self.seed)
        self.record = MatchRecord(
            self.match_length, self.names, variant=variant, cube_limit=None if self.cube_in_play else 1
        )
        self._score = [int(score[0]), int(score[1])]
        self._crawford_reached = bool(post_crawford)
        self._game: GameRecord | None = None
        self._match_winner: int | None = None
        self._board = starting_board(variant)
        self._on_roll = PERSON
        self._dice: tuple[int, int] | None = None
        self._cube, self._owner = 1, None
        self._doubler: int | None = None
        self._crawford = False
        self._game_state = 0  # gnubg's: 0 none, 1 playing, 2 over, 3 resigned, 4 dropped
        self._legal: list[tuple[str, str]] | None = None

    # --- what the caller reads -------------------------------------------------------------

    @property
    def board(self) -> np.ndarray:
        """The board, row 1 = the player on roll (:attr:`on_roll`)."""
        return self._board.copy()

    @property
    def on_roll(self) -> int:
        return self._on_roll

    @property
    def dice(self) -> tuple[int, int] | None:
        return self._dice

    @property
    def score(self) -> tuple[int, int]:
        """(bot's points, person's points)."""
        return (self._score[0], self._score[1])

    @property
    def game_over(self) -> bool:
        return self._game_state >= 2

    @property
    def match_over(self) -> bool:
        return self._match_winner is not None

    @property
    def match_state(self) -> MatchState:
        return MatchState(
            cube_value=self._cube,
            cube_owner=self._owner,
            on_roll=self._on_roll,
            crawford=self._crawford,
            game_state=self._game_state,
            double_offered=self._doubler is not None,
            dice=self._dice,
            match_length=self.match_length,
            score=self.score,
            jacoby=self.jacoby,
        )

    @property
    def gnubg_id(self) -> str:
        return encode_gnubg_id(self._board, self.match_state)

    @property
    def awaiting(self) -> str | None:
        """What the person must do now (ROLL, MOVE, ANSWER, NEXT, OVER), or None: call :meth:`advance`."""
        if self._game is None:
            return None
        if self.match_over:
            return OVER
        if self.game_over:
            return NEXT
        if self._doubler is not None:
            return ANSWER if self._doubler == BOT else None
        if self._on_roll != PERSON:
            return None
        if self._dice is None:
            return ROLL if self.double_refusal(PERSON) is None else None
        return MOVE if len(self.legal_moves()) > 1 else None

    def legal_moves(self) -> list[tuple[str, str]]:
        """The legal moves of the player on roll for the dice rolled: (notation, position ID after)."""
        if self._dice is None or self.game_over:
            return []
        if self._legal is None:
            self._legal = legal_moves(encode_position_id(self._board), self._dice)
        return self._legal

    def double_refusal(self, player: int) -> str | None:
        """Why ``player`` may not double now, or None if they may (before rolling, on roll)."""
        if not self.cube_in_play:
            return "the cube is not in play in this session"
        if self._game is None or self.game_over:
            return "no game is in progress"
        if self._crawford:
            return "there is no doubling in the Crawford game"
        if self._on_roll != player or self._doubler is not None:
            return "you may double only on your own turn"
        if self._dice is not None:
            return "you may double only before you roll"
        if self._owner is not None and self._owner != player:
            return f"{self.names[self._owner]} owns the cube"
        if 2 * self._cube > MAX_CUBE:
            return f"the cube is at its limit ({MAX_CUBE})"
        return why_no_double(cube_state(self.match_state, beavers=self.beavers))

    # --- the automatic part ----------------------------------------------------------------

    def advance(self) -> list[Event]:
        """Play everything nobody has to choose, until the person must decide; the events."""
        events: list[Event] = []
        while self.awaiting is None:
            events += self._step()
        return events

    def _step(self) -> list[Event]:
        if self._game is None:
            return self._start_game()
        if self._doubler == PERSON:
            answer = self.bot.cube_action(self.gnubg_id)
            if answer == "beaver" and not self._beaver_allowed():
                answer = "take"
            return self._answer(BOT, "pass" if answer in ("pass", "drop") else answer)
        if self._on_roll == BOT and self._dice is None:
            if self.double_refusal(BOT) is None and self.bot.cube_action(self.gnubg_id) == "double":
                return self._double(BOT)
            return self._roll()
        if self._dice is None:  # the person, who cannot double
            return self._roll()
        moves = self.legal_moves()
        if self._on_roll == BOT and len(moves) > 1:
            return self._play(self.bot.choose_move(self.gnubg_id, self._dice))
        return self._play(moves[0][0] if moves else "", forced=len(moves) == 1)

    # --- the person's actions ----------------------------------------------------------------

    def roll(self) -> list[Event]:
        """Roll the dice instead of doubling."""
        self._expect(ROLL, "roll")
        return self._roll()

    def play_move(self, text: str) -> list[Event]:
        """Play ``text`` (gnubg notation); ``ValueError`` says why an illegal move is illegal."""
        self._expect(MOVE, "move")
        return self._play(text)

    def offer_double(self) -> list[Event]:
        """Double before rolling; the bot answers in :meth:`advance`."""
        reason = self.double_refusal(PERSON)
        if reason is not None:
            raise ValueError(f"cannot double: {reason}")
        return self._double(PERSON)

    def respond(self, answer: str) -> list[Event]:
        """Answer the bot's double: ``take``, ``pass`` (``drop``) or ``beaver`` (money, if allowed)."""
        self._expect(ANSWER, "answer a double")
        answer = {"drop": "pass"}.get(answer.strip().lower(), answer.strip().lower())
        if answer not in ("take", "pass", "beaver"):
            raise ValueError(f"answer a double with take, pass or beaver, not {answer!r}")
        if answer == "beaver" and not self._beaver_allowed():
            limit = f" and up to a cube of {MAX_CUBE}" if self.beavers else ""
            raise ValueError(f"beavers are allowed only in money play with beavers on{limit}")
        return self._answer(PERSON, answer)

    def resign(self, level: int | str = 1) -> list[Event]:
        """Offer to resign a single game (1), a gammon (2) or a backgammon (3); the bot decides."""
        if self.awaiting not in (ROLL, MOVE):
            raise ValueError("you may resign only on your turn, before or after rolling")
        level = RESIGN_LEVELS.get(str(level).strip().lower())
        if level is None:
            raise ValueError("resign 1, 2 or 3 (single, gammon or backgammon)")
        points = self._cube * (1 if self._gammons_blanked() else level)
        offer = dataclasses.replace(self.match_state, resign=level, turn=BOT)
        if not self.bot.resign_decision(encode_gnubg_id(self._board, offer), level):
            return [Event("resign_declined", PERSON, self.gnubg_id, points=points, how=RESULT_NAMES[level])]
        return self._end_game(BOT, points, "resignation", resigned=True)

    def next_game(self) -> list[Event]:
        """Start the next game of the session or match."""
        self._expect(NEXT, "start a new game")
        return self._start_game()

    def hint(self, n: int = 5) -> Hint:
        """The bot's advice for the person's decision now: the ``n`` best moves, or the cube."""
        evaluator = self.bot.evaluator
        if evaluator is None:
            raise ValueError(f"{self.bot.name} gives no hints (it evaluates no positions)")
        from bgai.cube.analysis import analyse_position
        from bgai.search.ply import rank_moves

        awaiting = self.awaiting
        if awaiting == MOVE:
            notation = {pid: move for move, pid in self.legal_moves()}
            ranked = rank_moves(evaluator, self._board, self._dice, self.bot.plies, self.bot.move_filter)
            moves = [
                (notation[encode_position_id(swap_sides(m.board))], m.equity, m.probs) for m in ranked[:n]
            ]
            return Hint(moves, plies=ranked[0].ply)
        if awaiting not in (ROLL, ANSWER):
            raise ValueError("a hint is for your move, your cube decision or your answer to a double")
        state = cube_state(self.match_state, beavers=self.beavers)
        analysis = analyse_position(evaluator, self._board, state, 0)
        answer = analysis.take[0] if awaiting == ANSWER else None
        shown = analysis.probs[0] if awaiting == ROLL else invert(analysis.probs[0])
        cube = analysis.decision[0]
        return Hint([], cube=cube, answer=answer, probs=tuple(float(p) for p in shown))

    # --- the rules -----------------------------------------------------------------------------

    def _expect(self, state: str, action: str) -> None:
        if self.awaiting != state:
            now = {
                ROLL: "roll or double",
                MOVE: "move",
                ANSWER: "take or pass",
                NEXT: "start the next game",
                OVER: "nothing: the match is over",
                None: "wait for the bot",
            }[self.awaiting]
            raise ValueError(f"cannot {action} now: it is time to {now}")

    def _event(self, kind: str, player: int, **fields) -> Event:
        return Event(kind, player, self.gnubg_id, **fields)

    def _start_game(self) -> list[Event]:
        number = len(self.record.games) + 1
        self._crawford = False
        if self.match_length and not self._crawford_reached and max(self._score) == self.match_length - 1:
            self._crawford = self._crawford_reached = True
        self._game = GameRecord(number, self.score)
        self.record.games.append(self._game)
        self._board = starting_board(self.variant)
        self._cube, self._owner, self._doubler = 1, None, None
        self._game_state = 1
        bot_die, person_die = opening_roll(1, self._dice_source)[0].tolist()
        self._on_roll = BOT if bot_die > person_die else PERSON
        self._dice = (max(bot_die, person_die), min(bot_die, person_die))
        self._legal = None
        return [
            self._event("game", self._on_roll, game=number, crawford=self._crawford),
            self._event("opening", self._on_roll, dice=(bot_die, person_die)),
        ]

    def _roll(self) -> list[Event]:
        high, low = sorted(roll_dice(1, self._dice_source)[0].tolist(), reverse=True)
        self._dice, self._legal = (high, low), None
        return [self._event("roll", self._on_roll, dice=self._dice)]

    def _play(self, text: str, forced: bool = False) -> list[Event]:
        player, dice, before = self._on_roll, self._dice, self._board
        moves = self.legal_moves()
        listed = dict(moves)  # a move written as legal_moves writes it needs no parsing
        if text.strip() in listed:
            notation, after_id = text.strip(), listed[text.strip()]
        else:
            after_id = apply_move(encode_position_id(before), dice, text)  # raises with the reason
            notation = next((move for move, pid in moves if pid == after_id), text.strip())
        after = decode_position_id(after_id)  # the opponent on roll
        [steps] = move_steps(before[None], [dice], swap_sides(after)[None])
        self._game.actions.append(Action(player, "move", dice, steps))
        self._board, self._on_roll, self._dice, self._legal = after, 1 - player, None, None
        kind = "move" if moves else "dance"
        if after[0].sum():
            return [self._event(kind, player, dice=dice, move=notation, forced=forced)]
        result = int(game_value(swap_sides(after), self.checkers))
        points = self._cube * (1 if self._gammons_blanked() else result)
        ended = self._end_game(player, points, RESULT_NAMES[result])
        return [Event(kind, player, ended[0].gnubg_id, dice=dice, move=notation, forced=forced), *ended]

    def _double(self, player: int) -> list[Event]:
        self._doubler = player
        self._game.actions.append(Action(player, "double", cube=2 * self._cube))
        return [self._event("double", player, cube=2 * self._cube)]

    def _answer(self, player: int, answer: str) -> list[Event]:
        """``player`` answers the double of the player on roll."""
        doubler, stake = self._doubler, self._cube
        self._doubler = None
        if answer == "pass":
            self._game.actions.append(Action(player, "drop"))
            return [self._event("pass", player, points=stake), *self._end_game(doubler, stake, "pass")]
        self._cube, self._owner = (2 if answer == "take" else 4) * stake, player
        if answer == "take":
            self._game.actions.append(Action(player, "take"))
        else:
            self._game.actions.append(Action(player, "beaver", cube=self._cube))
        return [self._event(answer, player, cube=self._cube)]

    def _beaver_allowed(self) -> bool:
        return self.beavers and 4 * self._cube <= MAX_CUBE

    def _gammons_blanked(self) -> bool:
        """The Jacoby rule is in force: a cube never turned makes every win a single game."""
        return self.jacoby and self._owner is None

    def _end_game(self, winner: int, points: int, how: str, resigned: bool = False) -> list[Event]:
        self._score[winner] += points
        self._game.winner, self._game.points, self._game.resigned = winner, points, resigned
        self._game_state = {"pass": 4, "resignation": 3}.get(how, 2)
        self._dice, self._legal = None, None
        events = [self._event("win", winner, points=points, how=how)]
        if self.match_length and self._score[winner] >= self.match_length:
            self._match_winner = winner
            events.append(self._event("match", winner))
        return events
