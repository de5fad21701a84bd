"""The strength ladder: one network, played at gnubg's named levels (docs/formats.md §8).

A level is a lookahead (plies, gnubg's numbering), a move filter for plies >= 1, and
deterministic evaluation noise: a normal error of standard deviation ``noise`` (in cubeless
equity) added to every candidate move's equity, drawn from a seeded hash of the position the
move leaves (:func:`bgai.search.ply.position_noise`), so the same position always gets the same
error and an opponent never contradicts itself. The same noise blurs its cube decisions.

==============  =====  ======  ===========================================================
level           plies  noise   what it plays like
==============  =====  ======  ===========================================================
beginner        0      0.085   gnubg's Beginner: the net with large errors
casual          0      0.070   gnubg's Casual
intermediate    0      0.050   gnubg's Intermediate
advanced        0      0.036   gnubg's Advanced
expert          0      0.022   gnubg's Expert class: the net with a little noise
strong          0      0       the net alone (World class on gnubg's scale; not a gnubg level)
worldclass      2      0       gnubg's World class: 2-ply, "normal" move filter
==============  =====  ======  ===========================================================

Until iteration 5 ``expert`` was the net alone and ``strong`` 1-ply. The net taught its own
2-ply move choices plays as well at 0-ply as at 1-ply (3,000 common positions: 4.65 against
4.57 per 1000), so 1-ply was no step up; the net alone now grades World class (4.2-4.7 per
1000), so it is ``strong``, and ``expert`` adds a little noise, enough to grade in gnubg's
Expert class. On 2,000 positions of its own games (``calibrate_ladder.py --noise 0.006 0.010 0.014
0.018 --paired 2000 --games 100 --seed 1``) ``best`` (now ``best_5``) lost 4.6 with 0.006, 5.4 with 0.010, 6.0
with 0.014 and 6.9 with 0.018, each step measurably more than the one before.

The noise values are not gnubg's (0.060 / 0.050 / 0.030 / 0.015): they were measured so that
each noisy level grades in the class of gnubg's rating scale it is named after (error rate
judged by gnubg 2-ply, :mod:`bgai.opponent.grade`; beginner 26-35, casual 18-26, intermediate
12-18, advanced 8-12 per 1000 decisions), with ``scripts/study/calibrate_ladder.py``. With the
TD net ``best_td``, on 2,000 common positions, the 0-ply net lost 7.5 per 1000 with no noise,
8.5 with 0.010, 9.4 with 0.015, 14.0 with 0.035, 20.8 with 0.055, 29.7 with 0.080 and 33.7 with
0.090. ``best_5`` made fewer errors, so ``advanced`` and ``casual`` were raised for it: on
2,000 positions of its own games (``--paired 2000 --games 100 --seed 1``) it lost 6.7 with
0.012, 7.0 with 0.016, 7.8 with 0.020, 8.9 with 0.024, 17.0 with 0.055 and 19.5 with 0.062; in a
level's own games the rates run about 1-2 higher. All levels share one noise seed, so a noisier
level's errors are a scaled-up version of a quieter one's. ``checkpoints/opponents/ladder.md``
has the grades, and the paired comparison that tests each level for being measurably stronger
than the one below.

The polished ``best`` of session 15 makes fewer errors again: built with ``best_5``'s noise
(0.085 / 0.062 / 0.035 / 0.024 / 0.012) its levels graded 30.2 / 19.5 / 11.0 / 8.3 / 4.9, so
``intermediate`` and ``expert`` a class above their names. On 2,000 positions of its own games
(``calibrate_ladder.py --noise 0.016 0.020 0.024 0.028 0.040 0.045 0.050 0.068 --paired 2000
--games 100 --seed 1``) it lost 5.7 / 6.8 / 7.5 / 8.5 / 12.2 / 14.0 / 15.2 / 21.7 per 1000, and
the values above are chosen from these for the middle of each class; the ladder rebuilt with
them (``checkpoints/opponents/``, session 16) grades every level in its class (docs/ladder.md).
The ``best`` of session 21 (``best_6`` fitted to 2-ply values) errs as ``best_6`` did at every
noise: on 2,000 positions of its own games (``calibrate_ladder.py --noise 0 0.018 0.022 0.026
0.032 0.036 0.046 0.050 0.070 0.075 0.085 0.090 --paired 2000 --games 100 --seed 1``) it lost
3.9 / 5.7 / 6.5 / 7.5 / 9.0 / 10.2 / 13.2 / 14.8 / 21.7 / 23.3 / 27.2 / 28.8 per 1000, so the
noise values stay and the ladder was rebuilt with them (version 2 of the opponents). The
two-layer ``best`` of session 23 grades every level in its class with the same noise (version 3:
28.6 / 23.7 / 13.9 / 9.1 / 5.7 / 2.9 / 1.3 per 1000 from beginner to worldclass), and so does
the ``best`` of session 29 (version 4: 28.2 / 23.3 / 13.4 / 9.1 / 5.3 / 3.2 / 0.9). The
``best`` of session 33 errs less with the same noise (``advanced`` graded 8.0, Expert); on 2,000
positions of its own games (``calibrate_ladder.py --noise 0 0.018 0.022 0.026 0.032 0.036 0.040
0.046 0.050 0.070 0.075 0.085 0.090 --paired 2000 --games 100 --seed 1``) it lost 5.3 / 5.8 /
6.7 / 8.1 / 9.1 / 10.6 / 12.4 / 13.9 / 21.4 / 22.8 / 26.6 / 28.9 per 1000 from 0.018 to 0.090,
so ``intermediate``, ``advanced`` and ``expert`` were raised to 0.050 / 0.036 / 0.022, nearer
the middle of their classes (version 5: 28.2 / 20.6 / 14.8 / 10.9 / 5.6 / 2.7 / 0.8).

Names are case-insensitive; ``world class``, ``world-class`` and ``world_class`` mean
``worldclass``. Game sites call their computer levels Easy, Medium and Hard: those names map
to ``beginner``, ``intermediate`` and ``expert``.
"""

from __future__ import annotations

from dataclasses import dataclass

from bgai.search.ply import FILTERS


@dataclass(frozen=True)
class Level:
    """How an exported opponent plays: lookahead, move filter and deterministic noise."""

    name: str
    plies: int
    noise: float
    move_filter: str = "normal"
    about: str = ""

    def __post_init__(self) -> None:
        if self.move_filter not in FILTERS:
            raise ValueError(f"unknown move filter {self.move_filter!r}: choose one of {', '.join(FILTERS)}")
        if self.plies < 0 or self.noise < 0:
            raise ValueError(f"level {self.name!r}: plies and noise must not be negative")

    @property
    def description(self) -> str:
        """What the level is, then how it plays, the settings read from the level itself."""
        how = [f"{self.plies}-ply"]
        if self.noise:
            how.append(f"noise {self.noise:.3f}")
        if self.plies:
            how.append(f"{self.move_filter} move filter")
        return f"{self.about}: {', '.join(how)}"


LEVELS: dict[str, Level] = {
    level.name: level
    for level in (
        Level("beginner", 0, 0.085, about="gnubg's Beginner"),
        Level("casual", 0, 0.070, about="gnubg's Casual"),
        Level("intermediate", 0, 0.050, about="gnubg's Intermediate"),
        Level("advanced", 0, 0.036, about="gnubg's Advanced"),
        Level("expert", 0, 0.022, about="gnubg's Expert class"),
        Level("strong", 0, 0.0, about="the net alone (World class on gnubg's scale)"),
        Level("worldclass", 2, 0.0, about="gnubg's World class"),
    )
}
"""The ladder, weakest first."""

ALIASES = {"easy": "beginner", "medium": "intermediate", "hard": "expert"}
"""Game sites' computer levels (Easy / Medium / Hard) on the ladder."""


def get_level(name: str) -> Level:
    """The level called ``name`` (case and spaces, dashes, underscores in it do not matter)."""
    key = "".join(str(name).lower().replace("-", " ").replace("_", " ").split())
    key = ALIASES.get(key, key)
    if key not in LEVELS:
        raise ValueError(f"unknown level {name!r}: choose one of {', '.join(LEVELS)}")
    return LEVELS[key]
