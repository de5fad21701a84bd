"""Playing against a bot: a money session or a match, in the terminal or from code.

* :mod:`bgai.play.session`: :class:`MatchSession`, the game and match state machine (no I/O),
  and :class:`Bot`, the opponent's moves, cube and resignation decisions;
* :mod:`bgai.play.terminal`: :func:`play_in_terminal`, the text front end of ``bgai play``.

Knows the engine, formats, moves, search, cube and bots; only the CLI builds on it.
"""

from bgai.play.session import (
    ANSWER,
    BOT,
    MOVE,
    NEXT,
    OVER,
    PERSON,
    ROLL,
    Bot,
    Event,
    Hint,
    MatchSession,
    exported_opponents,
    load_bot,
)
from bgai.play.terminal import play_in_terminal

__all__ = [
    "ANSWER",
    "BOT",
    "MOVE",
    "NEXT",
    "OVER",
    "PERSON",
    "ROLL",
    "Bot",
    "Event",
    "Hint",
    "MatchSession",
    "exported_opponents",
    "load_bot",
    "play_in_terminal",
]
