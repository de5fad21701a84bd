"""What ``bgai serve`` keeps between requests: the opponents, the games and their clocks.

No web framework here: the app (:mod:`bgai.serve.app`) calls these from worker threads, so a
bot's thinking never runs on the event loop. Each game is a :class:`bgai.play.MatchSession`
(the state machine ``bgai play`` uses) with a lock, a chess-style clock and the JSON views the
page draws. Boards in the JSON are always seen from the person's side: ``you[i]`` and
``bot[i]`` are the checkers of each side on the person's point ``i + 1`` (index 24: the bar).
"""

from __future__ import annotations

import dataclasses
import secrets
import threading
import time
from collections import OrderedDict
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from bgai.engine.board import checkers_per_side, pip_counts, swap_sides
from bgai.engine.steps import apply_steps, move_steps
from bgai.formats import decode_gnubg_id, format_xgid
from bgai.formats.mat import write_mat
from bgai.moves import step_tree
from bgai.play import ANSWER, BOT, MOVE, PERSON, ROLL, Event, MatchSession, exported_opponents, load_bot

SIDE = {BOT: "bot", PERSON: "you"}
PROBS = ("win", "win_gammon", "win_backgammon", "lose_gammon", "lose_backgammon")
DECIDING = (ROLL, MOVE, ANSWER)
"""What the person may be asked while the clock runs for them."""
TURN_ENDERS = {"roll", "move", "dance", "double", "game"}
"""Events of the bot that mean the person's turn was over (a take or a pass leaves it running)."""


class GameNotFound(KeyError):
    """No game with that id (never made, deleted, or dropped to make room)."""


class Busy(RuntimeError):
    """The game is still working on an earlier request."""


class Full(RuntimeError):
    """The server holds as many games as it may and none has been idle long enough to drop."""


# --- opponents ---------------------------------------------------------------------------------


@dataclass
class OpponentEntry:
    """A bot the server offers: a level of the ladder, an exported folder or a player spec."""

    key: str
    level: str | None = None
    spec: str | None = None
    name: str = ""
    about: str = ""
    grade: str | None = None
    plies: int | None = None


class Opponents:
    """The bots one server offers, loaded on first use and shared by every game (they keep no
    state between calls).

    ``levels``: ladder levels (default: all), each the exported opponent of that level in
    ``root`` (default ``checkpoints/opponents``) or the shipped network played at the level;
    ``specs``: more opponents, each an exported folder or a :func:`bgai.load_player` spec,
    named by the operator who starts the server (never by a request).
    """

    def __init__(
        self, levels: Sequence[str] | None = None, specs: Sequence[str] = (), root: Path | None = None
    ):
        from bgai.opponent import LEVELS, get_level

        exported = {meta.get("level"): meta for _, meta in exported_opponents(root)}
        self.root = root
        self.entries: dict[str, OpponentEntry] = {}
        for name in LEVELS if levels is None else levels:
            level = get_level(name)
            meta = exported.get(level.name, {})
            grade = (meta.get("strength") or {}).get("class")
            self.entries[level.name] = OpponentEntry(
                level.name,
                level=level.name,
                name=str(meta.get("name") or level.name),
                about=level.description,
                grade=grade,
                plies=level.plies,
            )
        for spec in specs:
            key = Path(spec).name if (Path(spec) / "bgai.json").is_file() else spec
            if key in self.entries:
                raise ValueError(f"opponent {key!r} is offered twice")
            self.entries[key] = OpponentEntry(key, spec=spec, name=key, about=f"opponent {spec}")
        if not self.entries:
            raise ValueError("no opponent to offer")
        self._bots: dict[str, object] = {}
        self._lock = threading.Lock()

    @property
    def default(self) -> str:
        """The opponent the analysis API uses when none is named: expert, else the first offered."""
        return "expert" if "expert" in self.entries else next(iter(self.entries))

    def listing(self) -> list[dict]:
        return [dataclasses.asdict(entry) for entry in self.entries.values()]

    def loaded(self, key: str | None):
        """The bot offered as ``key`` if it is loaded already (no waiting, for the event loop), else None."""
        return self._bots.get(self.default if key is None else key)

    def bot(self, key: str | None):
        """The :class:`bgai.play.Bot` offered as ``key`` (``ValueError`` for a name not offered)."""
        key = self.default if key is None else key
        entry = self.entries.get(key)
        if entry is None:
            raise ValueError(f"unknown opponent {key!r}: choose one of {', '.join(self.entries)}")
        with self._lock:  # one load per opponent, even when many games start at once
            if key not in self._bots:
                bot = load_bot(entry.spec, level=entry.level, root=self.root)
                entry.name, entry.plies = bot.name, bot.plies
                self._bots[key] = bot
            return self._bots[key]


# --- the clock ---------------------------------------------------------------------------------


@dataclass
class Clock:
    """A match clock with a delay, as game sites run it ("1/12": one minute and 12 seconds).

    Each turn a player first uses up the ``delay``, then their own ``base`` time; a player whose
    base time runs out loses the match. Times are seconds of :func:`time.monotonic`.
    """

    base: float
    delay: float
    left: list[float] = field(default_factory=list)
    running: int | None = None
    since: float = 0.0
    delay_left: float = 0.0

    def __post_init__(self) -> None:
        if not self.left:
            self.left = [float(self.base), float(self.base)]

    def start(self, player: int, now: float) -> None:
        """``player``'s turn starts: a fresh delay."""
        self.running, self.since, self.delay_left = player, now, float(self.delay)

    def charge(self, now: float) -> None:
        """Count the time since the last charge against the running player."""
        if self.running is None:
            return
        spent = max(0.0, now - self.since)
        from_delay = min(spent, self.delay_left)
        self.delay_left -= from_delay
        self.left[self.running] -= spent - from_delay
        self.since = now

    def stop(self, now: float) -> None:
        self.charge(now)
        self.running = None

    def out_of_time(self, now: float) -> int | None:
        """The player whose base time has run out by ``now``, or None."""
        for player in (BOT, PERSON):
            left = self.left[player]
            if player == self.running:
                left -= max(0.0, now - self.since - self.delay_left)
            if left <= 0:
                return player
        return None

    def view(self, now: float) -> dict:
        snapshot = dataclasses.replace(self, left=list(self.left))
        snapshot.charge(now)
        return {
            "base": self.base,
            "delay": self.delay,
            "left": {SIDE[p]: max(0.0, round(snapshot.left[p], 3)) for p in (BOT, PERSON)},
            "delay_left": round(snapshot.delay_left, 3),
            "running": None if self.running is None else SIDE[self.running],
        }


# --- boards as the page draws them --------------------------------------------------------------


def person_view(board: np.ndarray, mover: int, checkers: int) -> dict:
    """A board whose row 1 is ``mover``'s, seen from the person's side (see the module docstring)."""
    board = np.asarray(board)
    you, bot = (board[1], board[0]) if mover == PERSON else (board[0], board[1])
    bot_points = [int(bot[23 - i]) for i in range(24)] + [int(bot[24])]
    return {
        "you": [int(n) for n in you],
        "bot": bot_points,
        "off": {"you": checkers - int(you.sum()), "bot": checkers - int(bot.sum())},
    }


def _mover_board(gnubg_id: str, mover: int) -> np.ndarray:
    """The board of a GNUbgID with ``mover`` in row 1."""
    board, ms = decode_gnubg_id(gnubg_id)
    return board if ms.on_roll == mover else swap_sides(board)


# --- a game ------------------------------------------------------------------------------------


class Game:
    """One person's match or money session against one bot, with its lock and clock.

    Every method that reads or changes the session runs under :meth:`locked` (in a worker
    thread): one request at a time per game, many games at once.
    """

    def __init__(self, game_id: str, opponent: str, session: MatchSession, clock: Clock | None) -> None:
        self.id = game_id
        self.opponent = opponent
        self.session = session
        self.clock = clock
        self.lock = threading.Lock()
        self.touched = time.monotonic()
        self.time_loser: int | None = None
        self.checkers = checkers_per_side(session.variant)
        self._tree: tuple[str, list[dict]] | None = None

    def locked(self, work: Callable[[], dict | str], wait: float = 30.0) -> dict | str:
        """Run ``work`` holding the game's lock; :class:`Busy` if an earlier request holds it too long."""
        if not self.lock.acquire(timeout=wait):
            raise Busy(f"game {self.id} is still busy with an earlier request")
        try:
            self.touched = time.monotonic()
            return work()
        finally:
            self.lock.release()

    # --- the person's actions -----------------------------------------------------------------

    def start(self) -> dict:
        """The opening roll and whatever the bot does before the person must decide."""
        return self._run(lambda: [])

    def act(self, action: str, argument: str | int | None = None) -> dict:
        """Do one of the person's actions, then everything until the person must decide again."""
        s = self.session
        actions: dict[str, Callable[[], list[Event]]] = {
            "roll": s.roll,
            "move": lambda: s.play_move(str(argument)),
            "double": s.offer_double,
            "take": lambda: s.respond("take"),
            "pass": lambda: s.respond("pass"),
            "beaver": lambda: s.respond("beaver"),
            "resign": lambda: s.resign(argument if argument is not None else 1),
            "next": s.next_game,
        }
        if action not in actions:
            raise ValueError(f"unknown action {action!r}: one of {', '.join(actions)}")
        return self._run(actions[action])

    def _run(self, action: Callable[[], list[Event]]) -> dict:
        now = time.monotonic()
        self._check_time(now)
        if self.time_loser is not None:
            raise ValueError(
                f"the match is over: {'you' if self.time_loser == PERSON else 'the bot'} ran out of time"
            )
        before = self.session.gnubg_id
        events = action()  # a ValueError says why it is not allowed, and nothing has changed
        thinking = time.monotonic()
        events += self.session.advance()
        done = time.monotonic()
        self._clock_after(events, now, thinking, done)
        return self.view(events, before)

    def _clock_after(self, events: list[Event], acted: float, thinking: float, done: float) -> None:
        """The person's time runs until their action arrives; the bot is charged its thinking."""
        c = self.clock
        if c is None:
            return
        bot_moved = any(e.player == BOT and e.kind in TURN_ENDERS for e in events)
        deciding = self.session.awaiting in DECIDING
        if c.running == PERSON and deciding and not bot_moved:
            c.charge(acted)  # the same turn goes on (a roll before the move, a declined resignation)
            return
        c.stop(acted)
        if bot_moved:
            c.start(BOT, thinking)
            c.stop(done)
            if c.left[BOT] <= 0:
                self.time_loser = BOT
                return
        if deciding:
            c.start(PERSON, done)

    def _check_time(self, now: float) -> None:
        if self.clock is None or self.time_loser is not None or self.session.match_over:
            return
        loser = self.clock.out_of_time(now)
        if loser is not None:
            self.clock.stop(now)
            self.time_loser = loser

    # --- what the page reads ---------------------------------------------------------------

    def hint(self) -> dict:
        """The bot's advice for the person's decision now (:meth:`MatchSession.hint`)."""
        hint = self.session.hint(10)
        return {
            "moves": [
                {"move": move, "equity": equity, "probs": dict(zip(PROBS, probs, strict=True))}
                for move, equity, probs in hint.moves
            ],
            "cube": hint.cube,
            "answer": hint.answer,
            "probs": None if hint.probs is None else dict(zip(PROBS, hint.probs, strict=True)),
            "plies": hint.plies,
        }

    def mat(self) -> str:
        """The match so far as a Jellyfish ``.mat`` file."""
        return write_mat(self.session.record)

    def view(self, events: Sequence[Event] = (), before: str | None = None) -> dict:
        """The whole state the page draws, and the events since ``before`` (a GNUbgID)."""
        now = time.monotonic()
        self._check_time(now)
        s = self.session
        ms = s.match_state
        awaiting = "over" if self.time_loser is not None else s.awaiting
        board = s.board
        pips = pip_counts(board).tolist()  # (row 0, row 1)
        on_roll = s.on_roll
        winner = None
        if self.time_loser is not None:
            winner = SIDE[1 - self.time_loser]
        elif s.match_over:
            winner = SIDE[0 if s.score[0] >= s.match_length else 1]
        started = bool(s.record.games)
        return {
            "game_id": self.id,
            "opponent": {"key": self.opponent, "name": s.names[BOT], "hints": s.bot.evaluator is not None},
            "variant": s.variant,
            "match_length": s.match_length,
            "score": {"bot": s.score[0], "you": s.score[1]},
            "game": len(s.record.games),
            "crawford": ms.crawford,
            "awaiting": awaiting,
            "on_roll": SIDE[on_roll],
            "dice": list(s.dice) if s.dice else None,
            "board": person_view(board, on_roll, self.checkers),
            "pips": {SIDE[on_roll]: pips[1], SIDE[1 - on_roll]: pips[0]},
            "cube": {
                "in_play": s.cube_in_play,
                "value": ms.cube_value,
                "owner": None if ms.cube_owner is None else SIDE[ms.cube_owner],
                "offered_by": SIDE[on_roll] if ms.double_offered else None,
                "can_double": awaiting == ROLL and s.double_refusal(PERSON) is None,
                "why_not": s.double_refusal(PERSON) if awaiting == ROLL else None,
                "beavers": s.beavers,
                "jacoby": s.jacoby,
            },
            "can_resign": awaiting in (ROLL, MOVE),
            "gnubg_id": s.gnubg_id if started else None,
            "xgid": format_xgid(board, ms) if started and not s.game_over else None,
            "moves": self._move_tree() if awaiting == MOVE else None,
            "clock": None if self.clock is None else self.clock.view(now),
            "match_winner": winner,
            "time_loss": None if self.time_loser is None else SIDE[self.time_loser],
            "events": self._events(events, before),
        }

    def _move_tree(self) -> list[dict]:
        """Every order of single-die steps of the person's legal moves (:func:`bgai.moves.step_tree`)."""
        key = self.session.gnubg_id
        if self._tree is None or self._tree[0] != key:
            nodes = step_tree(self.session.board, self.session.dice)
            self._tree = (
                key,
                [
                    {
                        "board": person_view(node.board, PERSON, self.checkers),
                        "move": node.move,
                        "steps": [
                            {"from": src, "to": dst, "die": die, "hit": hit, "node": child}
                            for src, dst, die, hit, child in node.steps
                        ],
                    }
                    for node in nodes
                ],
            )
        return self._tree[1]

    def _events(self, events: Sequence[Event], before: str | None) -> list[dict]:
        """The events as JSON; a move carries its checker steps and the board after each."""
        out = []
        previous = before
        for e in events:
            item = {
                "kind": e.kind,
                "player": SIDE[e.player],
                "dice": list(e.dice) if e.dice else None,
                "move": e.move,
                "forced": e.forced,
                "cube": e.cube,
                "points": e.points,
                "how": e.how,
                "game": e.game,
                "crawford": e.crawford,
            }
            after_board, after = decode_gnubg_id(e.gnubg_id)
            item["board"] = person_view(after_board, after.on_roll, self.checkers)
            item["score"] = {"bot": after.score[0], "you": after.score[1]}
            item["cube_value"] = after.cube_value
            item["cube_owner"] = None if after.cube_owner is None else SIDE[after.cube_owner]
            if e.kind == "move" and previous is not None:
                start = _mover_board(previous, e.player)
                [steps] = move_steps(start[None], [e.dice], _mover_board(e.gnubg_id, e.player)[None])
                frames, now = [], start
                for step in steps:
                    now = apply_steps(now, [step])
                    frames.append(
                        {"from": step[0], "to": step[1], "board": person_view(now, e.player, self.checkers)}
                    )
                item["steps"] = frames
            out.append(item)
            previous = e.gnubg_id
        return out


class Games:
    """Every game the server holds, by id: at most ``limit``; when full, the game idle longest
    is dropped if it has been idle ``idle_seconds``, else a new game is refused (:class:`Full`)."""

    def __init__(self, limit: int = 200, idle_seconds: float = 1800.0) -> None:
        self.limit = int(limit)
        self.idle_seconds = float(idle_seconds)
        self._games: OrderedDict[str, Game] = OrderedDict()
        self._lock = threading.Lock()

    def __len__(self) -> int:
        return len(self._games)

    def new_id(self) -> str:
        return secrets.token_urlsafe(12)

    def add(self, game: Game) -> None:
        with self._lock:
            if len(self._games) >= self.limit:
                oldest = min(self._games.values(), key=lambda g: g.touched)
                if time.monotonic() - oldest.touched < self.idle_seconds:
                    raise Full(f"the server is at its limit of {self.limit} games: try again later")
                del self._games[oldest.id]
            self._games[game.id] = game

    def get(self, game_id: str) -> Game:
        game = self._games.get(game_id)
        if game is None:
            raise GameNotFound(f"no game {game_id!r} (unknown, finished and deleted, or dropped when idle)")
        return game

    def remove(self, game_id: str) -> None:
        with self._lock:
            if self._games.pop(game_id, None) is None:
                raise GameNotFound(f"no game {game_id!r}")


def new_game(
    games: Games,
    opponents: Opponents,
    opponent: str | None,
    *,
    match_length: int = 0,
    cube: bool = True,
    variant: str = "standard",
    seed: int | None = None,
    name: str = "you",
    jacoby: bool = False,
    beavers: bool = True,
    clock: tuple[float, float] | None = None,
) -> Game:
    """A new game, added to ``games``: the session of :class:`bgai.play.MatchSession` and a clock
    of (base minutes, delay seconds) in a match."""
    if clock is not None and not match_length:
        raise ValueError("a clock is for matches: a money session has no match to lose on time")
    key = opponent or opponents.default
    bot = opponents.bot(key)
    session = MatchSession(
        bot,
        match_length=match_length,
        cube=cube,
        variant=variant,
        seed=seed,
        name=name,
        jacoby=jacoby,
        beavers=beavers,
    )
    session.record.date = time.strftime("%Y.%m.%d")
    session.record.transcriber = "bgai serve"
    game = Game(games.new_id(), key, session, None if clock is None else Clock(clock[0] * 60.0, clock[1]))
    games.add(game)
    return game
