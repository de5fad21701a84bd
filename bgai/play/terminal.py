"""The text front end of ``bgai play``: reads lines, prints what happened and the board.

No curses: the same code serves a terminal and a pipe. Every prompt is flushed, input is read
one line at a time, and the end of input means quit. With ``echo`` (``bgai play`` turns it on
when its input is not a terminal) each line read is printed after its prompt, so the output
of a piped session reads like a transcript. The board is drawn as gnubg draws it, with the
Position ID and Match ID, after every move (after the person's roll when that comes next).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import TextIO

from bgai.formats import decode_gnubg_id, draw_board
from bgai.play.session import ANSWER, MOVE, NEXT, OVER, PERSON, ROLL, Event, Hint, MatchSession

HELP = """\
  <move>            a move in gnubg notation: 13/8 13/10, 24/18*/16, bar/22, 6/off(2)
  roll   (Enter)    roll the dice, when you could double instead
  double            offer the cube, before rolling
  take, pass        answer a double (drop = pass; beaver in money play, when allowed)
  resign [1|2|3]    offer a single game, a gammon or a backgammon (or: resign gammon)
  hint              the bot's 5 best moves, or its view of the cube
  board             draw the board again
  help              this list
  quit              stop here; what was played is saved"""


def play_in_terminal(session: MatchSession, lines: Iterable[str], out: TextIO, *, echo: bool = False) -> str:
    """Play ``session`` with the person's ``lines``; returns ``over``, ``quit`` or ``eof``."""
    return _Terminal(session, out, echo).run(iter(lines))


def _points(n: int) -> str:
    return f"{n} point" if n == 1 else f"{n} points"


class _Terminal:
    def __init__(self, session: MatchSession, out: TextIO, echo: bool) -> None:
        self.session = session
        self.out = out
        self.echo = echo
        self.bot = session.names[0]

    def say(self, text: str = "") -> None:
        self.out.write(text + "\n")
        self.out.flush()

    def run(self, lines) -> str:
        self.show(self.session.advance())
        while self.session.awaiting != OVER:
            self.out.write(self.prompt())
            self.out.flush()
            line = next(lines, None)
            if line is None:
                self.say("\n(end of input: stopping)")
                return "eof"
            line = line.rstrip("\r\n")
            if self.echo:
                self.say(line)
            if not self.handle(line.strip()):
                return "quit"
        return "over"

    # --- input -----------------------------------------------------------------------------

    def handle(self, line: str) -> bool:
        """Act on one line; False to stop."""
        s = self.session
        word, _, rest = line.partition(" ")
        word = word.lower()
        actions: dict[str, Callable[[], list[Event]]] = {
            "double": s.offer_double,
            "take": lambda: s.respond("take"),
            "pass": lambda: s.respond("pass"),
            "drop": lambda: s.respond("pass"),
            "beaver": lambda: s.respond("beaver"),
            "resign": lambda: s.resign(rest.strip() or 1),
            "roll": s.roll,
            "next": s.next_game,
        }
        if word in ("quit", "exit", "q"):
            return False
        if word in ("help", "?"):
            self.say(HELP)
        elif word == "board":
            self.draw(s.gnubg_id)
        elif word == "hint":
            self.hint()
        elif word in actions:
            self.act(actions[word])
        elif not line and s.awaiting in (ROLL, NEXT):
            self.act(s.roll if s.awaiting == ROLL else s.next_game)
        elif line and s.awaiting == MOVE:
            self.act(lambda: s.play_move(line))
        elif s.awaiting == MOVE:
            self.say("Type your move, as 13/8 13/10 (help lists the commands).")
        elif s.awaiting == ANSWER:
            self.say("Answer the double: take or pass.")
        else:
            self.say(f"Unknown command {line!r}: type help for the list.")
        return True

    def act(self, action: Callable[[], list[Event]]) -> None:
        """Do the person's action, then everything that follows until the person's next turn."""
        try:
            events = action()
        except ValueError as exc:  # not allowed now, or an illegal move: say why, ask again
            self.refuse(exc)
            return
        self.show(events + self.session.advance())

    def hint(self) -> None:
        try:
            self.show_hint(self.session.hint())
        except ValueError as exc:
            self.refuse(exc)

    def refuse(self, exc: ValueError) -> None:
        message = str(exc)
        self.say(message[:1].upper() + message[1:])

    def prompt(self) -> str:
        s = self.session
        awaiting = s.awaiting
        if awaiting == ROLL:
            return "Your turn: roll or double? (Enter rolls) > "
        if awaiting == MOVE:
            return f"Your move, {s.dice[0]}-{s.dice[1]} > "
        if awaiting == ANSWER:
            beaver = ", or beaver" if s.beavers else ""
            return f"{self.bot} doubles to {2 * s.match_state.cube_value}: take or pass{beaver}? > "
        return "Enter starts the next game (quit stops) > "

    # --- output ----------------------------------------------------------------------------

    def draw(self, gnubg_id: str) -> None:
        board, match_state = decode_gnubg_id(gnubg_id)
        self.say(draw_board(board, match_state, self.session.names).rstrip("\n"))

    def show(self, events: list[Event]) -> None:
        for k, event in enumerate(events):
            text = self.describe(event)
            if text:
                self.say(text)
            later = events[k + 1] if k + 1 < len(events) else None
            person_rolls_next = later is not None and later.kind == "roll" and later.player == PERSON
            if event.kind in ("move", "dance") and not person_rolls_next:
                self.draw(event.gnubg_id)
            elif event.kind in ("roll", "opening") and event.player == PERSON:
                self.draw(event.gnubg_id)

    def who(self, player: int) -> str:
        return "You" if player == PERSON else self.bot

    def score_line(self, gnubg_id: str) -> str:
        ms = decode_gnubg_id(gnubg_id)[1]
        text = f"Score: {self.bot} {ms.score[0]}, you {ms.score[1]}"
        return text + (f" ({ms.match_length}-point match)." if ms.match_length else " (money session).")

    def describe(self, e: Event) -> str | None:
        who, you = self.who(e.player), e.player == PERSON
        dice = f"{e.dice[0]}-{e.dice[1]}" if e.dice else ""
        if e.kind == "game":
            crawford = " This is the Crawford game: no doubling." if e.crawford else ""
            return f"\nGame {e.game}. {self.score_line(e.gnubg_id)}{crawford}"
        if e.kind == "opening":
            first = "You move" if you else f"{self.bot} moves"
            high, low = max(e.dice), min(e.dice)
            return f"Opening roll: {self.bot} {e.dice[0]}, you {e.dice[1]}. {first} first with {high}-{low}."
        if e.kind == "roll":
            return f"You roll {dice}." if you else None
        if e.kind == "move":
            forced = " (forced: the only legal move)" if e.forced and you else ""
            return f"{who} play{'' if you else 's'} {dice}: {e.move}{forced}"
        if e.kind == "dance":
            return f"{who} roll{'' if you else 's'} {dice} and cannot move."
        if e.kind == "double":
            return f"{who} double{'' if you else 's'} to {e.cube}."
        if e.kind in ("take", "beaver"):
            verb = e.kind if you else e.kind + "s"
            owner = "you own" if you else f"{self.bot} owns"
            return f"{who} {verb}: the cube is at {e.cube} and {owner} it."
        if e.kind == "pass":
            return f"{who} pass{'' if you else 'es'}."
        if e.kind == "resign_declined":
            return f"{self.bot} declines your resignation ({e.how}, {_points(e.points)}): play on."
        if e.kind == "win":
            if e.how == "resignation":
                won = f"{self.bot} accepts your resignation and wins {_points(e.points)}."
            elif e.how == "pass":
                won = f"{who} win{'' if you else 's'} {_points(e.points)}."
            else:
                won = f"{who} win{'' if you else 's'} a {e.how}: {_points(e.points)}."
            return f"{won} {self.score_line(e.gnubg_id)}"
        if e.kind == "match":
            ms = decode_gnubg_id(e.gnubg_id)[1]
            mine, theirs = ms.score[e.player], ms.score[1 - e.player]
            return f"{who} win{'' if you else 's'} the {ms.match_length}-point match, {mine}-{theirs}."
        return None

    def show_hint(self, hint: Hint) -> None:
        if hint.moves:
            width = max(len(move) for move, _, _ in hint.moves)
            best = hint.moves[0][1]
            for k, (move, equity, probs) in enumerate(hint.moves, 1):
                diff = "" if k == 1 else f" ({equity - best:+.3f})"
                win, wg, wbg, lg, lbg = probs
                self.say(
                    f"{k:>4}. {move:<{width}}  Eq.: {equity:+.3f}{diff:<9}  "
                    f"{win:.3f} {wg:.3f} {wbg:.3f} - {1 - win:.3f} {lg:.3f} {lbg:.3f}"
                )
            return
        if hint.probs is not None:
            win, wg, wbg, lg, lbg = hint.probs
            self.say(
                f"Your chances: win {win:.3f} (gammon {wg:.3f}, backgammon {wbg:.3f}), "
                f"lose {1 - win:.3f} (gammon {lg:.3f}, backgammon {lbg:.3f})."
            )
        if hint.answer is not None:
            self.say(f"{self.bot}'s double: {hint.cube}. Your proper answer: {hint.answer}.")
        elif hint.cube is not None:
            self.say(f"Cube action: {hint.cube}.")
