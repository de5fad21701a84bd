"""Playing against a bot: a money session or a match, in the terminal or from code.

* :mod:`bgai.play.session`: :class:`MatchSession`, the game and match state machine (no I/O);
* :mod:`bgai.play.terminal`: :func:`play_in_terminal`, the text front end of ``bgai play``.

The bot is a :class:`bgai.opponent.Bot` (its moves, cube and resignation decisions), made by
:func:`bgai.specs.load_bot`; both stay importable from here. Only front ends (the CLI, a web
server) build on this package.
"""

from bgai.opponent.bot import Bot
from bgai.play.session import (
    ANSWER,
    BOT,
    MOVE,
    NEXT,
    OVER,
    PERSON,
    ROLL,
    Event,
    Hint,
    MatchSession,
)
from bgai.play.terminal import play_in_terminal
from bgai.specs import exported_opponents, load_bot

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
