"""The bench's table: many games of A against B at once, with or without the cube.

Every bench plays here: money games with or without the cube (:func:`~bgai.bench.duel`; a
cube capped at 1 and no Jacoby rule is cubeless) and matches (:func:`~bgai.bench.match_duel`).
Each game leaves one :class:`GameLog`; results, ``.mat`` files (:mod:`bgai.bench.records`) and
grading decisions are all read from those logs. Each turn every
running game where A is on roll goes to A in one call and the rest to B, first for the cube,
then for the move, so batched players (search, networks) see big batches. Cube answers come
from :func:`bgai.bots.cube.cube_sense` (pubeval and random never double and always take).

**A turn.** Before rolling (never before the opening roll, which is played at once), the
player on roll may double if the cube state allows it (:class:`~bgai.cube.CubeState`: cube
centred or own, and in a match not in the Crawford game, not as the post-Crawford leader,
not when the cube already covers what he needs) and the doubled cube stays within
``max_cube`` (by default gnubg's limit, :data:`bgai.cube.state.MAX_CUBE`). The opponent takes
(and owns the cube at twice the value), passes (the game ends: the doubler wins the cube's
value *before* the double) or, in money play with beavers on, beavers (takes and redoubles at
once, keeping ownership: the cube is worth four times as much); a beaver that would pass
``max_cube`` counts as a take.
Raccoons are not played. Then the dice are rolled and the move played.

**Scoring.** A game ends by bearing off (cube x 1, 2 or 3) or by a pass. In money play with
the Jacoby rule (gnubg's default, as are beavers) gammons and backgammons count as single
games while the cube has not been turned.

**Matches** to ``length`` points are played game after game until one side has ``length``
points. The game after a side first reaches ``length - 1`` is the Crawford game (no
doubling); later games are post-Crawford (the leader cannot double; free drops and
automatic redoubles are the players' business, the cube module's match code knows them).

**Duplicate dice** (:mod:`bgai.bench.dice`). Units (money games, or matches) ``2k`` and
``2k + 1`` share dice with the players in swapped seats (A in seat 0, then B in seat 0), so
each player meets exactly the rolls the other met in the same seat and luck largely cancels
in the pair's sum. A money game reads stream ``k``; game ``g`` of a match reads stream
``k * 2 * length + g``, so game ``g`` of both matches of a pair gets the same rolls. A
deterministic player against itself therefore scores exactly 0 ppg, and wins exactly half the
matches. Without duplicate dice unit ``i`` reads stream ``i`` (or ``i * 2 * length + g``).
"""

from __future__ import annotations

import json
import math
import time
from dataclasses import asdict, dataclass, field, fields
from functools import lru_cache
from typing import Any

import numpy as np
import torch
from tqdm import tqdm

from bgai.bench.dice import dice_of, opening_dice
from bgai.bots.cube import ANSWERS, cube_sense
from bgai.bots.players import Player, evaluator_of
from bgai.cube import CubeState, Owner
from bgai.cube.equity import CubefulEquity
from bgai.cube.state import CubeRules
from bgai.engine.board import checkers_per_side, game_value, starting_board, swap_sides
from bgai.search.evaluator import Evaluator
from bgai.search.luck import cubeless_luck
from bgai.stats import mean_ci95

MAX_TURNS = 10_000
LUCK_CHUNK = 256  # boards whose 21 rolls are moved in one go when measuring luck


@dataclass
class CubeStats:
    """One side's cube actions over a bench run."""

    doubles: int = 0
    takes: int = 0
    passes: int = 0
    beavers: int = 0


@dataclass
class GameLog:
    """One game as the table played it: the one record of the bench, from which the ``.mat``
    files (:mod:`bgai.bench.records`), the grading decisions and every statistic are read.

    Columns are the players: 0 is A, 1 is B, whichever seat each had. ``cube_actions`` are
    ``(turn, column, kind, cube)`` with kind ``double`` (cube: the value offered), ``take``,
    ``drop`` or ``beaver`` (cube: the new value); ``moves`` (only when the games are recorded)
    are ``(turn, column, dice, board before, board after)``, both boards with the mover in row 1.
    A cube action comes before the move of its turn.
    """

    unit: int
    """The money game or match it belongs to."""
    number: int
    """1 for the first game of its unit."""
    a_seat: int
    first: int
    """The column that moved first."""
    score: tuple[int, int] = (0, 0)
    """A's and B's match points before the game (money: 0, 0)."""
    winner: int | None = None
    points: int = 0
    """Won by the winner."""
    value: int = 0
    """The board's result 1-3 (single, gammon, backgammon), 0 for a pass."""
    cube: int = 1
    """The cube at the end (before the double, for a pass)."""
    turns: int = 0
    cube_actions: list[tuple[int, int, str, int]] = field(default_factory=list)
    moves: list[tuple[int, int, tuple[int, int], np.ndarray, np.ndarray]] | None = None

    @property
    def a_points(self) -> int:
        """Points A won (negative when B won)."""
        return self.points if self.winner == 0 else -self.points


def cube_stats(logs: list[GameLog]) -> tuple[CubeStats, CubeStats]:
    """A's and B's cube actions in ``logs``: doubles by the doubler, takes, passes and beavers by
    the side doubled."""
    stats = (CubeStats(), CubeStats())
    field_of = {"double": "doubles", "take": "takes", "drop": "passes", "beaver": "beavers"}
    for log in logs:
        for _, column, kind, _ in log.cube_actions:
            name = field_of[kind]
            setattr(stats[column], name, getattr(stats[column], name) + 1)
    return stats


@dataclass
class Played:
    """What :func:`play_games` saw: every game's :class:`GameLog`, in the order the games ended."""

    unit_result: np.ndarray
    """Per unit: A's points in a money game; 1.0 where A won a match, else 0.0."""
    logs: list[GameLog] = field(default_factory=list)
    seconds: float = 0.0
    unit_luck: np.ndarray | None = None
    """Per unit, with a luck judge: A's luck minus B's over all the rolls, in the unit's own
    terms (points of a money game, match winning chance of a match)."""

    def luck_adjusted(self, duplicate: bool) -> tuple[float, float] | None:
        """With a luck judge, the unit results with the dice's luck taken out: (their mean, the
        same as the plain one's with less noise, and its 95 % half-width); else None."""
        if self.unit_luck is None:
            return None
        fair = self.unit_result - self.unit_luck
        return float(fair.mean()), ci95(fair, duplicate)

    def per_second(self, count: int) -> float:
        """``count`` (games, matches) per second of play."""
        return count / self.seconds if self.seconds > 0 else math.inf

    def in_order(self) -> list[GameLog]:
        """The logs by unit (money game or match) and game number: the order of a session."""
        return sorted(self.logs, key=lambda g: (g.unit, g.number))

    def summary(
        self, a: Player, b: Player, duplicate: bool, seed: int, variant: str, rules: CubeRules
    ) -> dict:
        """The fields every bench result has (:class:`BenchResult`), read from the logs."""
        a_cube, b_cube = cube_stats(self.logs)
        return dict(
            a=a.name,
            b=b.name,
            duplicate=duplicate,
            seed=seed,
            variant=variant,
            max_cube=rules.max_cube,
            a_cube=a_cube,
            b_cube=b_cube,
            avg_cube=float(np.mean([g.cube for g in self.logs])),
            avg_turns=float(np.mean([g.turns for g in self.logs])),
            seconds=self.seconds,
            games_per_sec=self.per_second(len(self.logs)),
        )

    def money_summary(
        self, a: Player, b: Player, duplicate: bool, seed: int, variant: str, rules: CubeRules
    ) -> dict:
        """:meth:`summary` and what a money result adds, from A's side: ppg and its 95 % interval,
        and the win, gammon and backgammon rates of each side as fractions of all games (a pass
        counting as a win, gammons including backgammons, as the board shows them)."""
        a_won = np.array([g.winner == 0 for g in self.logs], dtype=bool)
        value = np.array([g.value for g in self.logs])
        rates = {}
        for side, won in (("a", a_won), ("b", ~a_won)):
            rates[f"{side}_win"] = float(won.mean())
            rates[f"{side}_gammon"] = float((won & (value >= 2)).mean())
            rates[f"{side}_backgammon"] = float((won & (value >= 3)).mean())
        adjusted = self.luck_adjusted(duplicate)
        luck = {} if adjusted is None else dict(luck_ppg=adjusted[0], luck_ci95=adjusted[1])
        return dict(
            **self.summary(a, b, duplicate, seed, variant, rules),
            **luck,
            games=len(self.unit_result),
            jacoby=rules.jacoby,
            beavers=rules.beavers,
            ppg=float(self.unit_result.mean()),
            ci95=ci95(self.unit_result, duplicate),
            **rates,
        )


def units_to_play(units: int, duplicate: bool, what: str = "games") -> int:
    """``units`` checked (at least 1), rounded up to whole duplicate pairs."""
    if units < 1:
        raise ValueError(f"{what} must be at least 1, got {units}")
    return units + units % 2 if duplicate else units


def ci95(results: np.ndarray, duplicate: bool) -> float:
    """Half-width of the 95 % interval of the mean of ``results`` (one per unit): 1.96 sd /
    sqrt(n), the samples being the duplicate pairs' averages (or the single units)."""
    samples = results.reshape(-1, 2).mean(1) if duplicate else results
    return mean_ci95(samples)[1]


@dataclass(kw_only=True)
class BenchResult:
    """What every bench result says, from A's side; ``to_dict`` / ``to_json`` give every field but
    ``logs``, NaN written as None (JSON-safe)."""

    a: str
    b: str
    duplicate: bool
    seed: int
    variant: str
    max_cube: int
    """1: cubeless."""
    ci95: float
    """Half-width of the 95 % interval of the result over the duplicate pairs (or single units)."""
    a_cube: CubeStats
    b_cube: CubeStats
    avg_cube: float
    """Mean cube value at the end of a game (before the double for a pass)."""
    avg_turns: float
    seconds: float
    games_per_sec: float
    logs: list[GameLog] | None = None
    """Every game with every move (``record=True``): ``.mat`` files and grading read them."""

    def to_dict(self) -> dict[str, Any]:
        out = asdict(self)
        out.pop("logs")
        return {k: (None if isinstance(v, float) and not math.isfinite(v) else v) for k, v in out.items()}

    def to_json(self) -> str:
        return json.dumps(self.to_dict())

    def _logs(self) -> list[GameLog]:
        if self.logs is None:
            raise ValueError("the games were not recorded: play them with record=True")
        return self.logs


def luck_judge(player: Player | None) -> Evaluator | None:
    """The evaluator of a luck judge (``None``: no luck adjustment); a one-line error for a
    player that evaluates nothing."""
    return None if player is None else evaluator_of(player, "judging the luck")[0]


def luck_line(a: str, judge: str | None, adjusted: str) -> str:
    """The table row of a luck-adjusted result."""
    return f"luck-adjusted ({judge} at 0-ply judges the dice): {a} {adjusted}"


def cube_lines(result: BenchResult, width: int) -> list[str]:
    """A's and B's cube actions as table rows."""
    head = f"{'cube':<{width}}  {'doubles':>7}  {'takes':>6}  {'passes':>6}  {'beavers':>7}"
    rows = [
        f"{name:<{width}}  {s.doubles:7d}  {s.takes:6d}  {s.passes:6d}  {s.beavers:7d}"
        for name, s in ((result.a, result.a_cube), (result.b, result.b_cube))
    ]
    return [head, *rows]


def ppg_lines(result, width: int) -> list[str]:
    """The head and A's and B's rows of a money result's table: ppg ± interval, win, gammon
    and backgammon rates."""
    ci = f"{result.ci95:.3f}" if math.isfinite(result.ci95) else "n/a"
    return [
        f"{'player':<{width}}  {'ppg':>16}  {'win %':>6}  {'gammon %':>8}  {'bg %':>5}",
        f"{result.a:<{width}}  {result.ppg:+8.3f} ± {ci:<5}  {100 * result.a_win:6.1f}  "
        f"{100 * result.a_gammon:8.1f}  {100 * result.a_backgammon:5.1f}",
        f"{result.b:<{width}}  {-result.ppg:+8.3f} ± {ci:<5}  {100 * result.b_win:6.1f}  "
        f"{100 * result.b_gammon:8.1f}  {100 * result.b_backgammon:5.1f}",
    ]


def play_games(
    a: Player,
    b: Player,
    units: int,
    *,
    seed: int,
    duplicate: bool,
    variant: str,
    rules: CubeRules,
    length: int = 0,
    record: bool = False,
    parallel: int = 1024,
    progress: bool = False,
    luck: Evaluator | None = None,
) -> Played:
    """Play ``units`` money games (``length == 0``) or matches to ``length`` points of A against
    B, ``parallel`` at a time; A sits in seat ``unit % 2``.

    Every game leaves a :class:`GameLog`; ``record`` keeps its moves too (every board, for
    ``.mat`` files and grading). ``progress`` shows a tqdm bar on a terminal. ``luck``: an
    evaluator that measures every roll's luck at 0-ply, summed per unit in
    :attr:`Played.unit_luck`: cubeless equity in cubeless games (:mod:`bgai.search.luck`), else
    the cubeful equity at the game's cube and score (:mod:`bgai.cube.equity`) as points or match
    winning chance.
    """
    table = _Table(a, b, units, seed, duplicate, variant, rules, length, record, luck)
    return table.run(parallel, progress)


# --- the table ----------------------------------------------------------------------------------


@dataclass
class _Slots:
    """The running games, one row each; seats are 0/1, ``owner`` -1 while the cube is centred."""

    unit: np.ndarray  # money game or match index
    a_seat: np.ndarray
    on_roll: np.ndarray
    turn: np.ndarray
    game_no: np.ndarray  # game within the match, from 0
    cube: np.ndarray
    owner: np.ndarray
    score: np.ndarray  # (n, 2) match points per seat before this game
    crawford: np.ndarray  # this game is the Crawford game
    crawford_done: np.ndarray  # the Crawford game has been played or is being played
    opening: np.ndarray  # (n, 2) opening roll: seat 0's die, seat 1's die
    boards: torch.Tensor  # mover in row 1

    def select(self, rows: np.ndarray) -> _Slots:
        index = torch.as_tensor(rows, dtype=torch.long)
        return _Slots(
            **{
                f.name: getattr(self, f.name).index_select(0, index)
                if f.name == "boards"
                else getattr(self, f.name)[rows]
                for f in fields(self)
            }
        )

    @staticmethod
    def concat(parts: list[_Slots]) -> _Slots:
        return _Slots(
            **{
                f.name: torch.cat([getattr(p, f.name) for p in parts])
                if f.name == "boards"
                else np.concatenate([getattr(p, f.name) for p in parts])
                for f in fields(_Slots)
            }
        )


@lru_cache(maxsize=8192)
def _cube_state(
    length: int,
    my_score: int,
    opp_score: int,
    cube: int,
    owner: Owner,
    crawford: bool,
    jacoby: bool,
    beavers: bool,
) -> CubeState:
    if length == 0:
        return CubeState.money(cube, owner, jacoby=jacoby, beavers=beavers)
    return CubeState.match(length, my_score, opp_score, cube, owner, crawford=crawford)


class _Table:
    """Plays ``units`` money games (``length == 0``) or matches, ``parallel`` at a time."""

    def __init__(self, a, b, units, seed, duplicate, variant, rules, length, record, luck=None) -> None:
        self.a, self.b = a, b
        self.sense_a = cube_sense(a)
        self.sense_b = self.sense_a if b is a else cube_sense(b)
        self.units, self.seed, self.duplicate = units, seed, duplicate
        self.rules, self.length = rules, length
        self.start = torch.as_tensor(starting_board(variant))
        self.checkers = checkers_per_side(variant)
        self.out = Played(np.zeros(units), unit_luck=None if luck is None else np.zeros(units))
        self.record = record
        self.luck = luck
        cube_in_play = length > 0 or rules.in_use
        self.cubeful = CubefulEquity(True, self.checkers) if luck is not None and cube_in_play else None
        self.running: dict[int, GameLog] = {}
        """The game each unit is playing now."""

    # -- dice and new games --

    def _streams(self, unit: np.ndarray, game_no: np.ndarray) -> np.ndarray:
        stream = unit // 2 if self.duplicate else unit
        return stream if self.length == 0 else stream * 2 * self.length + game_no

    def _new_games(self, unit, a_seat, game_no, score, crawford_done) -> _Slots:
        n = len(unit)
        opening = opening_dice(self.seed, self._streams(unit, game_no))
        if self.length > 1:
            top, bottom = score.max(1), score.min(1)
            crawford = ~crawford_done & (top == self.length - 1) & (bottom < self.length - 1)
        else:
            crawford = np.zeros(n, dtype=bool)
        slots = _Slots(
            unit=unit,
            a_seat=a_seat,
            on_roll=(opening[:, 1] > opening[:, 0]).astype(np.int64),
            turn=np.zeros(n, dtype=np.int64),
            game_no=game_no,
            cube=np.ones(n, dtype=np.int64),
            owner=np.full(n, -1, dtype=np.int64),
            score=score,
            crawford=crawford,
            crawford_done=crawford_done | crawford,
            opening=opening,
            boards=self.start.expand(n, 2, 25).clone(),
        )
        for u, g, seat, sc, first in zip(unit, game_no, a_seat, score, slots.on_roll, strict=True):
            self.running[int(u)] = GameLog(
                int(u),
                int(g) + 1,
                int(seat),
                0 if first == seat else 1,
                (int(sc[seat]), int(sc[1 - seat])),
                moves=[] if self.record else None,
            )
        return slots

    # -- one turn --

    def _cube_phase(self, s: _Slots, a_moves: np.ndarray, ended: np.ndarray, points: np.ndarray) -> None:
        """Doubles and their answers; a pass ends the game (``ended``, ``points``)."""
        n, rules = len(s.unit), self.rules
        states: list[CubeState | None] = [None] * n
        may = np.zeros(n, dtype=bool)
        for i in np.flatnonzero((s.turn > 0) & (2 * s.cube <= rules.max_cube)):
            state = self._mover_state(s, i)
            states[i], may[i] = state, state.can_double
        if not may.any():
            return
        offered = np.zeros(n, dtype=bool)
        for sense, mask in self._split(self.sense_a, self.sense_b, a_moves):
            rows = np.flatnonzero(may & mask)
            if len(rows):
                chosen = sense.cube_decisions(s.boards[rows], [states[i] for i in rows])
                offered[rows] = np.asarray(chosen, dtype=bool)
        answers: dict[int, str] = {}
        for sense, mask in self._split(self.sense_b, self.sense_a, a_moves):  # the other side answers
            rows = np.flatnonzero(offered & mask)
            if len(rows):
                replies = sense.take_decisions(s.boards[rows], [states[i] for i in rows])
                answers.update(zip(rows.tolist(), replies, strict=True))
        for i, answer in sorted(answers.items()):
            self._answer(s, i, answer, ended, points)

    def _mover_state(self, s: _Slots, i: int) -> CubeState:
        """The cube state of row ``i``'s player on roll."""
        me = s.on_roll[i]
        owner = Owner.CENTRED if s.owner[i] < 0 else Owner.ME if s.owner[i] == me else Owner.OPPONENT
        return _cube_state(
            self.length,
            int(s.score[i, me]),
            int(s.score[i, 1 - me]),
            int(s.cube[i]),
            owner,
            bool(s.crawford[i]),
            self.rules.jacoby,
            self.rules.beavers,
        )

    def _answer(self, s: _Slots, i: int, answer: str, ended: np.ndarray, points: np.ndarray) -> None:
        if answer not in ANSWERS:
            raise ValueError(f"a take decision must be one of {ANSWERS}, got {answer!r}")
        cube, doubler = int(s.cube[i]), int(s.on_roll[i])
        doubler_col = 0 if doubler == s.a_seat[i] else 1
        taker_col = 1 - doubler_col
        beaver_ok = self.length == 0 and self.rules.beavers and 4 * cube <= self.rules.max_cube
        if answer == "beaver" and not beaver_ok:
            answer = "take"
        actions, turn = self.running[int(s.unit[i])].cube_actions, int(s.turn[i])
        actions.append((turn, doubler_col, "double", 2 * cube))
        if answer == "pass":
            actions.append((turn, taker_col, "drop", cube))
            ended[i], points[i] = True, cube
        elif answer == "take":
            actions.append((turn, taker_col, "take", 2 * cube))
            s.cube[i], s.owner[i] = 2 * cube, 1 - doubler
        else:
            actions.append((turn, taker_col, "beaver", 4 * cube))
            s.cube[i], s.owner[i] = 4 * cube, 1 - doubler

    @staticmethod
    def _split(first, second, first_mask: np.ndarray):
        """(who, rows) pairs: ``first`` where ``first_mask``, else ``second``; one call if the same."""
        if first is second:
            return ((first, np.ones_like(first_mask)),)
        return ((first, first_mask), (second, ~first_mask))

    def _move_phase(
        self, s: _Slots, dice: np.ndarray, a_moves, ended, points
    ) -> tuple[torch.Tensor, np.ndarray]:
        """Moves of the games still on; returns the afterstates and each board's result (1-3,
        0 while the game goes on or where it ended by a pass); sets ``points`` of finished games."""
        live = ~ended
        after = s.boards.clone()
        dice_t = torch.as_tensor(dice)
        for player, mask in self._split(self.a, self.b, a_moves):
            rows = torch.as_tensor(np.flatnonzero(live & mask))
            if len(rows):
                after[rows] = player.choose(s.boards[rows], dice_t[rows]).to(after)
        if self.record:
            before_np, after_np = s.boards.numpy(), after.numpy()
            for i in np.flatnonzero(live):
                self.running[int(s.unit[i])].moves.append(
                    (
                        int(s.turn[i]),
                        0 if a_moves[i] else 1,
                        (int(dice[i, 0]), int(dice[i, 1])),
                        before_np[i].copy(),
                        after_np[i].copy(),
                    )
                )
        value = game_value(after, self.checkers).numpy()
        value[ended] = 0
        bore = value > 0
        counted = value.copy()
        if self.length == 0 and self.rules.jacoby:
            counted = np.where(s.cube == 1, np.minimum(value, 1), value)  # gammons need a turned cube
        points[bore] = s.cube[bore] * counted[bore]
        return after, value

    def _add_luck(self, s: _Slots, dice: np.ndarray, a_moves: np.ndarray, live: np.ndarray) -> None:
        """Add each live game's roll luck, as A's (B's counts against), to its unit's sum."""
        live = np.flatnonzero(live)
        for start in range(0, len(live), LUCK_CHUNK):
            rows = live[start : start + LUCK_CHUNK]
            boards = s.boards.index_select(0, torch.as_tensor(rows))
            opening = s.turn[rows] == 0
            if self.cubeful is None:
                luck = cubeless_luck(self.luck, boards, dice[rows], opening)
            else:  # normalised cubeful luck, then points (money) or match winning chance
                states = [self._mover_state(s, i) for i in rows]
                luck, _ = self.cubeful.luck(self.luck, boards, dice[rows], opening, states)
                luck = self.cubeful.costs(luck, states)
            np.add.at(self.out.unit_luck, s.unit[rows], np.where(a_moves[rows], luck, -luck))

    def _finish_games(self, s: _Slots, ended, points, passed, value) -> np.ndarray:
        """Score the games that ended; True where the whole unit (money game, match) is over."""
        done = np.zeros(len(s.unit), dtype=bool)
        for i in np.flatnonzero(ended):
            u, winner = s.unit[i], int(s.on_roll[i])
            a_won = bool(winner == s.a_seat[i])
            log = self.running.pop(int(u))
            log.winner, log.points, log.value = (0 if a_won else 1), int(points[i]), int(value[i])
            log.cube, log.turns = int(s.cube[i]), int(s.turn[i]) + (0 if passed[i] else 1)
            self.out.logs.append(log)
            if self.length == 0:
                self.out.unit_result[u] = points[i] if a_won else -points[i]
                done[i] = True
                continue
            s.score[i, winner] += points[i]
            if s.score[i, winner] >= self.length:
                self.out.unit_result[u] = float(a_won)
                done[i] = True
        return done

    # -- the loop --

    def run(self, parallel: int, progress: bool) -> Played:
        s = self._new_games(*self._empty())
        next_unit = 0
        bar = tqdm(
            total=self.units,
            unit="match" if self.length else "game",
            disable=None if progress else True,
            leave=False,
        )
        began = time.perf_counter()
        while next_unit < self.units or len(s.unit):
            free = min(parallel - len(s.unit), self.units - next_unit)
            if free > 0:
                unit = np.arange(next_unit, next_unit + free)
                next_unit += free
                fresh = self._new_games(
                    unit,
                    unit % 2,
                    np.zeros(free, np.int64),
                    np.zeros((free, 2), np.int64),
                    np.zeros(free, bool),
                )
                s = _Slots.concat([s, fresh])
            n = len(s.unit)
            dice = dice_of(self.seed, self._streams(s.unit, s.game_no), s.turn)
            dice[s.turn == 0] = s.opening[s.turn == 0]
            a_moves = s.on_roll == s.a_seat
            ended = np.zeros(n, dtype=bool)
            points = np.zeros(n, dtype=np.int64)
            self._cube_phase(s, a_moves, ended, points)
            passed = ended.copy()
            if self.luck is not None:
                self._add_luck(s, dice, a_moves, ~ended)
            after, value = self._move_phase(s, dice, a_moves, ended, points)
            ended |= value > 0
            if (s.turn >= MAX_TURNS).any():
                raise RuntimeError(f"a game lasted over {MAX_TURNS} turns: are the players moving?")
            done = self._finish_games(s, ended, points, passed, value)
            bar.update(int(done.sum()))
            going = np.flatnonzero(~ended)
            nxt = s.select(going)
            nxt.turn, nxt.on_roll = nxt.turn + 1, 1 - nxt.on_roll
            nxt.boards = swap_sides(after.index_select(0, torch.as_tensor(going)))
            restart = np.flatnonzero(ended & ~done)
            if len(restart):
                r = s.select(restart)
                nxt = _Slots.concat(
                    [nxt, self._new_games(r.unit, r.a_seat, r.game_no + 1, r.score, r.crawford_done)]
                )
            s = nxt
        bar.close()
        self.out.seconds = time.perf_counter() - began
        return self.out

    @staticmethod
    def _empty():
        z = np.zeros(0, dtype=np.int64)
        return z, z, z, np.zeros((0, 2), np.int64), np.zeros(0, bool)
