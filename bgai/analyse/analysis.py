"""Judging every decision of a match, batched: checker play, cube, luck, and each player's figures.

:func:`analyse_match` replays a :class:`~bgai.formats.MatchRecord` (:mod:`bgai.analyse.replay`)
and judges all its decisions together, each kind in one batched pass:

* **checker play**: every unforced move's candidates ranked and filtered by
  :func:`bgai.search.score_candidates` under gnubg's analysis filter up to the last ply but
  one; the survivors of the last stage and the move played are then valued by gnubg's cubeful
  n-ply lookahead (:func:`bgai.cube.search.roll_tree` and
  :func:`~bgai.cube.search.cubeful_value`: a cube decision at every node, Janowski at the
  leaves, in money play the exact table in two-sided bear-offs); equity lost = the best
  survivor's equity minus the played one's;
* **cube**: every position where the player on roll could double, and every double and its
  answer, by :func:`bgai.cube.analysis.analyse_positions` (cubeful 0-2 ply): a missed double
  loses ``optimal - ND``, a double ``optimal - min(DT, DP)``, a take ``DT - DP`` where the
  doubler's DT beats DP (it should have been a pass), a pass ``DP - DT`` where DT is the lower;
* **luck**: the value of each roll's best move against the average over the 21 rolls
  (:func:`bgai.search.roll_moves`, 0-ply, as gnubg); the opening roll, which cannot be a
  double and might have gone to either player, against the 30 non-double openings.

Equities are gnubg's: **cubeful** and **normalised** (per unit of the current cube; in a match,
match winning chances mapped so that winning the cube is +1 and losing it -1). A candidate
move's afterstate is valued from the opponent's side, who may double first, as gnubg values
moves; the candidates the filter stopped early are shown with Janowski's value of their
shallower probabilities (gnubg's 0-ply, exactly). Each error also has a *cost*: points (cube x
equity) in money play, match winning chance in a match (gnubg's second column).

Per player, as gnubg's statistics: error rate = equity lost per unforced move or close cube
decision x 1000 (checker and cube rates apart too), PR = x 500, luck rate = luck per move
x 1000, and the rating class of :func:`bgai.opponent.grade.rating_class`.
"""

from __future__ import annotations

import math
import time
from dataclasses import asdict, dataclass, field

import numpy as np
import torch

from bgai.analyse.judge import Judge, luck_mark, skill_mark
from bgai.analyse.replay import GameInfo, Turn, cube_rules_of, replay
from bgai.cube import CubeState
from bgai.cube import match as match_cube
from bgai.cube.analysis import analyse_positions
from bgai.cube.equity import CubefulEquity
from bgai.cube.search import roll_tree
from bgai.cube.state import CubeRules
from bgai.engine.board import checkers_per_side, swap_sides
from bgai.engine.movegen import expand
from bgai.engine.steps import move_steps
from bgai.formats import MatchRecord, MatchState, encode_gnubg_id, format_move
from bgai.model.probs import invert
from bgai.opponent.grade import rating_class
from bgai.search import keep_by_filter, score_candidates

ALTERNATIVES = 5
"""Ranked alternatives kept for each marked checker decision (plus the move played)."""
CLOSE_CUBE = 0.16
"""gnubg counts a no-double as a real ("close") cube decision when the best of doubling is
within this of the proper action (normalised equity, double/take capped at +1)."""


@dataclass
class Alternative:
    """A candidate move: its notation, the ply it was valued at and its cubeful equity (mover's)."""

    move: str
    ply: int
    equity: float
    probs: tuple[float, ...]


@dataclass
class Decision:
    """One judged decision: a checker play (``move``), a cube decision (``cube``) or an answer (``take``)."""

    game: int
    move: int
    player: int
    kind: str
    played: str
    """The move played in gnubg notation, or ``double``/``no double``, ``take``/``pass``/``beaver``."""
    best: str
    """The judge's best move, or its proper action in gnubg's words."""
    error: float
    """Normalised equity lost (>= 0)."""
    cost: float
    """What it cost: points in money play, match winning chance in a match."""
    mark: str
    counts: bool
    """Enters the error rate: an unforced move, or a close or actual cube decision."""
    position: str
    """GNUbgID of the position (the player on roll's view, dice set for a checker play)."""
    dice: tuple[int, int] | None = None
    equity: float = math.nan
    """Cubeful normalised equity of the move played (moves) or of the proper action (cube)."""
    what: str = ""
    """gnubg's statistics line of a cube error: missed double below/above CP, wrong double
    below DP/above TG, wrong take, wrong pass."""
    alternatives: list[Alternative] = field(default_factory=list)
    cube: dict | None = None
    """``nd``, ``dt``, ``dp`` (normalised, the doubler's) for cube decisions and answers."""
    board: np.ndarray | None = field(default=None, repr=False)


@dataclass
class Roll:
    """The luck of one roll: its value minus the average roll's (normalised, and its cost)."""

    game: int
    move: int
    player: int
    dice: tuple[int, int]
    luck: float
    cost: float
    mark: str


@dataclass
class PlayerStats:
    """One player's figures, as gnubg's match statistics has them (errors as positive numbers)."""

    name: str
    moves: int = 0
    unforced: int = 0
    marked: dict[str, int] = field(default_factory=lambda: {"doubtful": 0, "bad": 0, "very bad": 0})
    checker_error: float = 0.0
    checker_cost: float = 0.0
    cube_decisions: int = 0
    close_cube: int = 0
    doubles: int = 0
    takes: int = 0
    passes: int = 0
    cube_errors: dict[str, list[float]] = field(default_factory=dict)
    """gnubg's cube error lines -> [count, error, cost]."""
    cube_error: float = 0.0
    cube_cost: float = 0.0
    luck: float = 0.0
    luck_cost: float = 0.0
    luck_marks: dict[str, int] = field(
        default_factory=lambda: {"very lucky": 0, "lucky": 0, "unlucky": 0, "very unlucky": 0}
    )
    result: float = 0.0
    """Actual result: points (money) or match winning chance gained (match)."""
    luck_adjusted: float = 0.0

    @property
    def checker_rate(self) -> float:
        return _per(self.checker_error, self.unforced)

    @property
    def cube_rate(self) -> float:
        return _per(self.cube_error, self.close_cube)

    @property
    def error_rate(self) -> float:
        """Equity lost per unforced move or close cube decision x 1000 (gnubg's overall rate)."""
        return _per(self.checker_error + self.cube_error, self.unforced + self.close_cube)

    @property
    def pr(self) -> float:
        """eXtreme Gammon's Performance Rating style: the same per decision x 500."""
        return self.error_rate / 2

    @property
    def luck_rate(self) -> float:
        return _per(self.luck, self.moves)

    @property
    def rating(self) -> str:
        return rating_class(self.error_rate) if math.isfinite(self.error_rate) else "n/a"

    def to_dict(self) -> dict:
        out = asdict(self)
        for name in ("checker_rate", "cube_rate", "error_rate", "pr", "luck_rate", "rating"):
            value = getattr(self, name)
            out[name] = None if isinstance(value, float) and not math.isfinite(value) else value
        return out


def _per(total: float, count: int) -> float:
    return 1000.0 * total / count if count else math.nan


@dataclass
class MatchAnalysis:
    """Everything :func:`analyse_match` found in one file."""

    source: str
    match_length: int
    players: tuple[str, str]
    judge: str
    plies: int
    games: list[GameInfo]
    decisions: list[Decision]
    rolls: list[Roll]
    stats: tuple[PlayerStats, PlayerStats]
    curves: list[list[tuple[float, str]]]
    """Per game: player 0's equity (money: points; match: match winning chance) after each
    move, with what the move was."""
    cube_in_use: bool = True
    checkers: int = 15
    seconds: float = 0.0

    def to_dict(self) -> dict:
        def clean(value):
            if isinstance(value, float):
                return None if not math.isfinite(value) else round(value, 6)
            if isinstance(value, dict):
                return {k: clean(v) for k, v in value.items()}
            if isinstance(value, (list, tuple)):
                return [clean(v) for v in value]
            return value

        decisions = []
        for d in self.decisions:
            item = {k: v for k, v in asdict(d).items() if k != "board"}
            decisions.append(item)
        games = [
            {
                "number": g.number,
                "score": list(g.score),
                "crawford": g.crawford,
                "winner": g.winner,
                "points": g.points,
                "resigned": g.resigned,
                "result": g.result,
            }
            for g in self.games
        ]
        return clean(
            {
                "file": self.source,
                "match_length": self.match_length,
                "players": list(self.players),
                "judge": self.judge,
                "plies": self.plies,
                "cube_in_use": self.cube_in_use,
                "games": games,
                "stats": [s.to_dict() for s in self.stats],
                "decisions": decisions,
                "rolls": [asdict(r) for r in self.rolls],
                "curves": self.curves,
                "seconds": self.seconds,
            }
        )


# --- the analysis -------------------------------------------------------------------------------


def analyse_match(
    record: MatchRecord, judge: Judge, *, rules: CubeRules | None = None, source: str = ""
) -> MatchAnalysis:
    """Judge every decision of ``record`` (see the module docstring)."""
    began = time.perf_counter()
    rules = rules or cube_rules_of(record)
    games = replay(record, rules)
    turns = [t for g in games for t in g.turns]
    cubeful = CubefulEquity(rules.in_use, checkers_per_side(record.variant))
    rolled = [t for t in turns if t.dice is not None and t.steps is not None]
    luck, roll_equity = cubeful.luck(
        judge.evaluator,
        _boards(rolled),
        np.array([t.dice for t in rolled]).reshape(-1, 2),
        np.array([t.opening and t.dice[0] != t.dice[1] for t in rolled], dtype=bool),
        [t.state for t in rolled],
    )
    moves, played_equity = _checker_play(judge, rolled, cubeful)
    cube = _cube(judge, [t for t in turns if t.cube_decision or t.doubled], cubeful, rules)

    decisions: list[Decision] = []
    rolls: list[Roll] = []
    after_turn: dict[int, tuple[float, str]] = {}
    for k, turn in enumerate(rolled):
        mark = luck_mark(luck[k])
        cost = float(cubeful.cost(luck[k], turn.state))
        rolls.append(Roll(turn.game, turn.move, turn.player, turn.dice, float(luck[k]), cost, mark))
        equity = played_equity.get(k, roll_equity[k])
        move = moves[id(turn)]
        label = f"{turn.move}) {record.players[turn.player]} {turn.dice[0]}{turn.dice[1]}: {move.played}"
        if move.mark:
            label += f" ({move.mark}, -{move.error:.3f})"
        after_turn[id(turn)] = (cubeful.player0(equity, turn.state, turn.player), label)
    for turn in turns:  # in file order: the doubler's cube decision, the answer, then the move
        decisions.extend(cube.get(id(turn), []))
        if id(turn) in moves:
            decisions.append(moves[id(turn)])
    stats = _stats(record, games, decisions, rolls)
    curves = [_curve(g, after_turn, cubeful, record) for g in games]
    return MatchAnalysis(
        source=source,
        match_length=record.match_length,
        players=tuple(record.players),
        judge=judge.name,
        plies=judge.plies,
        games=games,
        decisions=decisions,
        rolls=rolls,
        stats=stats,
        curves=curves,
        cube_in_use=rules.in_use,
        checkers=cubeful.checkers,
        seconds=time.perf_counter() - began,
    )


def _boards(turns: list[Turn], what: str = "board") -> torch.Tensor:
    if not turns:
        return torch.zeros((0, 2, 25), dtype=torch.int8)
    return torch.as_tensor(np.stack([getattr(t, what) for t in turns])).to(torch.int8)


def _checker_play(
    judge: Judge, rolled: list[Turn], cubeful: CubefulEquity
) -> tuple[dict[int, Decision], dict[int, float]]:
    """Every move played, judged: (decision per turn id, played equity per index into ``rolled``)."""
    n = len(rolled)
    if not n:
        return {}, {}
    boards, dice = _boards(rolled), torch.tensor([t.dice for t in rolled])
    _, parent = expand(boards, dice)
    unforced = (torch.bincount(parent, minlength=n) >= 2).numpy()
    index = np.flatnonzero(unforced)
    out: dict[int, Decision] = {}
    played_equity: dict[int, float] = {}
    for k, turn in enumerate(rolled):
        if not unforced[k]:
            out[id(turn)] = Decision(
                turn.game,
                turn.move,
                turn.player,
                "move",
                format_move(turn.board, turn.steps),
                format_move(turn.board, turn.steps),
                0.0,
                0.0,
                "",
                False,
                _position(turn, dice=True),
                turn.dice,
                board=turn.board,
            )
    if not len(index):
        return out, played_equity
    sub = [rolled[i] for i in index]
    m, plies = len(sub), judge.plies
    # candidates ranked and filtered by cubeless equity up to the last ply but one (gnubg's filter) ...
    mover_states = [t.state for t in sub]
    c = score_candidates(
        judge.evaluator,
        boards[index],
        dice[index],
        max(plies - 1, 0),
        judge.move_filter,
        rank=lambda probs, parent: match_cube.normalised_cubeless(
            probs.cpu(), mover_states, parent.cpu(), cubeful.met
        ),
    )
    cand_boards, parents = c.boards.to(torch.int8), c.parent.numpy()
    after = _boards(sub, "after")
    same = (cand_boards == after.index_select(0, c.parent)).flatten(1).all(1)
    played_row = torch.full((m,), -1, dtype=torch.long)
    played_row[c.parent[same]] = same.nonzero().squeeze(1)
    if (played_row < 0).any():
        bad = sub[int((played_row < 0).nonzero()[0])]
        raise ValueError(f"game {bad.game}, move {bad.move}: the move played is not among the legal moves")
    ply = c.ply.clone()
    probs = c.probs.double().numpy().copy()
    equity = cubeful.after_move(probs, cand_boards.numpy(), [sub[p].state for p in parents], ply.numpy())
    if plies:
        # ... the survivors of the last stage, and the move played, valued by gnubg's cubeful n-ply tree
        stage = judge.move_filter[plies - 1]
        deep = (c.ply == plies - 1).nonzero().squeeze(1)
        if stage is not None:
            deep = deep[keep_by_filter(c.equity[deep], c.parent[deep], m, stage)]
        deep = torch.unique(torch.cat([deep, played_row]))
        rows = deep.numpy()
        states = [sub[p].state for p in parents[rows]]
        theirs = [s.swapped() for s in states]  # the opponent is on roll at each afterstate
        tree = roll_tree(judge.evaluator, swap_sides(cand_boards.index_select(0, deep)), plies, states=theirs)
        equity[rows] = cubeful.tree_values(tree, states)
        probs[rows] = invert(tree.cubeless())
        ply[deep] = plies
    full = ply.numpy() == plies
    best = np.full(m, -np.inf)
    np.maximum.at(best, parents[full], equity[full])
    played = equity[played_row.numpy()]
    error = np.maximum(best - played, 0.0)
    # the best candidate of each decision (full ply first), and the ranked lists to show
    order = np.lexsort((-equity, -ply.numpy(), parents))
    first = np.searchsorted(parents[order], np.arange(m))
    best_row = order[first]
    marked = [skill_mark(e) for e in error]
    wanted = sorted({int(r) for r in best_row})
    top: dict[int, list[int]] = {}
    for j in range(m):
        if marked[j]:
            end = first[j + 1] if j + 1 < m else len(order)
            rows = [int(r) for r in order[first[j] : end][:ALTERNATIVES]]
            top[j] = rows
            wanted.extend(rows)
    wanted = sorted(set(wanted))
    names = _notation(cand_boards, c.parent, boards[index], dice[index], wanted)
    for j, turn in enumerate(sub):
        played_text = format_move(turn.board, turn.steps)
        alternatives = [
            Alternative(names[r], int(ply[r]), float(equity[r]), tuple(float(p) for p in probs[r]))
            for r in top.get(j, [])
        ]
        best_text = names[int(best_row[j])]
        if error[j] == 0.0:
            best_text = played_text
        out[id(turn)] = Decision(
            turn.game,
            turn.move,
            turn.player,
            "move",
            played_text,
            best_text,
            float(error[j]),
            float(cubeful.cost(error[j], turn.state)),
            marked[j],
            True,
            _position(turn, dice=True),
            turn.dice,
            float(played[j]),
            alternatives=alternatives,
            board=turn.board,
        )
        played_equity[int(index[j])] = float(played[j])
    return out, played_equity


def _notation(
    children: torch.Tensor, parent: torch.Tensor, boards: torch.Tensor, dice: torch.Tensor, rows: list[int]
) -> dict[int, str]:
    """gnubg notation of the candidates ``rows`` (afterstates of ``boards[parent]``)."""
    if not rows:
        return {}
    index = torch.tensor(rows)
    owners = parent.index_select(0, index)
    before = boards.index_select(0, owners).numpy()
    steps = move_steps(before, dice.index_select(0, owners).numpy(), children.index_select(0, index).numpy())
    return {r: format_move(b, s) for r, b, s in zip(rows, before, steps, strict=True)}


def _position(turn: Turn, *, dice: bool = False, cube: bool = False, offered: bool = False) -> str:
    """GNUbgID of the turn's position, gnubg's player numbers (0 = the file's left column):
    when rolling (``dice``: with the roll), or at the cube decision (``cube``)."""
    state = turn.cube_state if cube else turn.state
    try:
        ms = MatchState(
            cube_value=state.cube,
            cube_owner=turn.cube_owner if cube else turn.owner,
            on_roll=turn.player,
            crawford=state.crawford,
            double_offered=offered,
            dice=turn.dice if dice else None,
            match_length=state.match_length,
            score=_score(turn.player, state),
            jacoby=state.is_money and state.jacoby,
        )
        return encode_gnubg_id(turn.board, ms)
    except ValueError:
        return ""


def _score(player: int, state: CubeState) -> tuple[int, int]:
    if state.is_money:
        return (0, 0)
    mine, theirs = state.match_length - state.my_away, state.match_length - state.opp_away
    return (mine, theirs) if player == 0 else (theirs, mine)


def _cube(
    judge: Judge, turns: list[Turn], cubeful: CubefulEquity, rules: CubeRules
) -> dict[int, list[Decision]]:
    """The doubler's decision (double or not) and the answer, per turn id."""
    if not turns or not rules.in_use:
        return {}
    a = analyse_positions(
        judge.evaluator, _boards(turns), [t.cube_state for t in turns], judge.cube_plies, cubeful.met
    )
    out: dict[int, list[Decision]] = {}
    for i, turn in enumerate(turns):
        nd, dt, dp = float(a.nd[i]), float(a.dt[i]), float(a.dp[i])
        if not math.isfinite(dt):  # the cube was not the doubler's to turn (a file's own double)
            continue
        optimal = max(nd, min(dt, dp))
        values = {"nd": nd, "dt": dt, "dp": dp, "decision": a.decision[i]}
        position = _position(turn, cube=True)
        state = turn.cube_state
        if turn.doubled:
            error = optimal - min(dt, dp)
            what = ("wrong double above TG" if nd > 1.0 else "wrong double below DP") if error > 0 else ""
            played, close = "double", True
        else:
            error = optimal - nd
            what = ("missed double above CP" if dt > 1.0 else "missed double below CP") if error > 0 else ""
            played, close = "no double", optimal - min(dt, 1.0) < CLOSE_CUBE
        error = max(error, 0.0)
        decisions = [
            Decision(
                turn.game,
                turn.move,
                turn.player,
                "cube",
                played,
                a.decision[i],
                error,
                float(cubeful.cost(error, state)),
                skill_mark(error),
                close,
                position,
                equity=optimal,
                what=what,
                cube=values,
                board=turn.board,
            )
        ]
        if turn.doubled and turn.response is not None:
            answer = "pass" if turn.response == "drop" else turn.response
            proper = "pass" if dt > dp else "take"
            if answer == "pass":
                error = max(dp - dt, 0.0)
                what = "wrong pass" if error > 0 else ""
            else:
                error = max(dt - dp, 0.0)
                what = "wrong take" if error > 0 else ""
            decisions.append(
                Decision(
                    turn.game,
                    turn.move,
                    1 - turn.player,
                    "take",
                    answer,
                    proper,
                    error,
                    float(cubeful.cost(error, state)),
                    skill_mark(error),
                    True,
                    _position(turn, cube=True, offered=True),
                    equity=-min(dt, dp),
                    what=what,
                    cube=values,
                    board=turn.board,
                )
            )
        out[id(turn)] = decisions
    return out


def _stats(
    record: MatchRecord, games: list[GameInfo], decisions: list[Decision], rolls: list[Roll]
) -> tuple[PlayerStats, PlayerStats]:
    stats = (PlayerStats(record.players[0]), PlayerStats(record.players[1]))
    for d in decisions:
        s = stats[d.player]
        if d.kind == "move":
            s.moves += 1
            if d.mark:
                s.marked[d.mark] += 1
            if d.counts:
                s.unforced += 1
                s.checker_error += d.error
                s.checker_cost += d.cost
            continue
        s.cube_decisions += 1
        s.close_cube += int(d.counts)
        if d.played == "double":
            s.doubles += 1
        elif d.played in ("take", "beaver"):
            s.takes += 1
        elif d.played == "pass":
            s.passes += 1
        s.cube_error += d.error
        s.cube_cost += d.cost
        if d.what:
            line = s.cube_errors.setdefault(d.what, [0, 0.0, 0.0])
            line[0] += 1
            line[1] += d.error
            line[2] += d.cost
    for r in rolls:
        s = stats[r.player]
        s.luck += r.luck
        s.luck_cost += r.cost
        if r.mark:
            s.luck_marks[r.mark] += 1
    result = sum(g.result for g in games)
    stats[0].result, stats[1].result = result, -result
    for me, them in ((stats[0], stats[1]), (stats[1], stats[0])):
        me.luck_adjusted = me.result - me.luck_cost + them.luck_cost
    return stats


def _curve(
    game: GameInfo, after_turn: dict[int, tuple[float, str]], cubeful: CubefulEquity, record: MatchRecord
) -> list[tuple[float, str]]:
    """Player 0's equity (points, or match winning chance) before the game and after each move,
    each with a label saying which move it was."""
    if not game.turns:
        return []
    first = game.turns[0]
    state0 = first.cube_state if first.player == 0 else first.cube_state.swapped()
    start = (
        0.0
        if state0.is_money
        else float(cubeful.met.mwc(state0.my_away, state0.opp_away, post_crawford=state0.is_post_crawford))
    )
    points = [(start, f"game {game.number} starts")]
    points.extend(after_turn[id(t)] for t in game.turns if id(t) in after_turn)
    if game.winner is not None:
        points.append((start + game.result, f"{record.players[game.winner]} wins {game.points}"))
    return points
