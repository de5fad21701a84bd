"""Bots for people and exported, strength-graded opponents: ``bgai export``, :class:`Bot`,
:class:`Opponent`, ``bgai grade``.

* :mod:`bgai.opponent.bot`: :class:`Bot`, the one bot people play and ask (moves, cube,
  resignations, the judgement behind hints);
* :mod:`bgai.opponent.levels`: the ladder (beginner ... world class) of plies, filter and noise;
* :mod:`bgai.opponent.export`: a checkpoint and a level written as ``model.safetensors`` + ``bgai.json``;
* :mod:`bgai.opponent.opponent`: :class:`Opponent`, a Bot loaded from an export without the
  training code;
* :mod:`bgai.opponent.grade`: error rate / PR judged by a stronger engine, and results against
  reference bots, on gnubg's rating scale (imported on its own: it needs the bench).
"""

from bgai.opponent.bot import Bot
from bgai.opponent.export import FORMAT, default_name, export_opponent
from bgai.opponent.levels import LEVELS, Level, get_level
from bgai.opponent.opponent import Opponent, OpponentPlayer, opponent_player

__all__ = [
    "FORMAT",
    "LEVELS",
    "Bot",
    "Level",
    "Opponent",
    "OpponentPlayer",
    "default_name",
    "export_opponent",
    "get_level",
    "opponent_player",
]
