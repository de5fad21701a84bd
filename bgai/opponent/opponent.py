"""An exported opponent, loaded without the training code: moves, cube actions, resignations.

``Opponent.load(folder)`` reads what :func:`bgai.opponent.export.export_opponent` wrote
(``bgai.json`` and ``model.safetensors``) and plays at the level it describes. It needs the
engine, formats, model, search, cube and the search player only, never :mod:`bgai.train`.

Whose view: every position a method takes is read by :func:`bgai.formats.read_position`, so
the board is seen from the player on roll. With a GNUbgID or XGID the match state (cube,
score, Jacoby, a double or resignation on offer) comes from the ID. A bare Position ID says
none of that: for the cube it is a money game with a centred cube under the export's Jacoby
and beaver defaults, for a resignation a cubeless game (gammons count).
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np
import torch

from bgai.bots.players import SearchPlayer
from bgai.cube.money import cubeless_equity
from bgai.cube.state import CubeState
from bgai.formats import MatchState, read_position
from bgai.model.net import SplitNet, ValueNet, build_net
from bgai.opponent.export import CONFIG_FILE, FORMAT
from bgai.search.evaluator import NetEvaluator, terminal_probs
from bgai.search.ply import FILTERS, FilterStage, MoveFilter, evaluate_position, position_noise

_CUBE_NOISE_SALT = 0x0C0BE  # the cube's noise is drawn apart from the move noise of the same board


class _NoisyEvaluator:
    """An evaluator whose win chance is off by ``noise * z / 2`` (about ``noise * z`` of equity),
    ``z`` a standard normal number drawn from a seeded hash of the board: gnubg-style
    deterministic evaluation noise, for the cube decisions of noisy levels."""

    def __init__(self, inner: NetEvaluator, noise: float, seed: int) -> None:
        self.inner, self.noise, self.seed = inner, noise, seed ^ _CUBE_NOISE_SALT
        self.checkers = inner.checkers
        self.name = f"{inner.name}+noise"

    def evaluate(self, boards: torch.Tensor) -> torch.Tensor:
        boards = torch.as_tensor(boards)
        probs = self.inner.evaluate(boards).clone()
        _, finished = terminal_probs(boards, self.checkers)
        shift = self.noise / 2 * position_noise(boards, self.seed).to(probs) * (~finished).to(probs)
        win = (probs[:, 0] + shift).clamp(0.0, 1.0)
        probs[:, 0] = win
        probs[:, 1] = torch.minimum(probs[:, 1], win)
        probs[:, 2] = torch.minimum(probs[:, 2], probs[:, 1])
        probs[:, 3] = torch.minimum(probs[:, 3], 1 - win)
        probs[:, 4] = torch.minimum(probs[:, 4], probs[:, 3])
        return probs


class OpponentPlayer(SearchPlayer):
    """An opponent's batched player: its moves (a :class:`SearchPlayer`) and its own cube sense.

    ``cube_decisions`` / ``take_decisions`` follow :mod:`bgai.bots.cube`'s protocol, so cubeful
    bench games use the same cube analysis as :meth:`Opponent.cube_action` (at the opponent's
    plies, with its noise) instead of a plain 0-ply one.
    """

    def __init__(
        self, evaluator: NetEvaluator, plies: int, move_filter: MoveFilter, noise: float, seed: int, name: str
    ) -> None:
        super().__init__(evaluator, plies, move_filter, noise, seed, name=name)
        self.cube_evaluator = evaluator if noise <= 0 else _NoisyEvaluator(evaluator, noise, seed)

    def cube_decisions(self, boards: torch.Tensor, cube_states: Sequence[CubeState]) -> np.ndarray:
        """``(N,)`` True where the player on roll doubles now (asked only where it may)."""
        from bgai.cube.analysis import analyse_positions, doubles

        if not len(cube_states):
            return np.zeros(0, dtype=bool)
        analysis = analyse_positions(self.cube_evaluator, boards, cube_states, self.plies)
        return np.array(
            [s.can_double and doubles(d) for d, s in zip(analysis.decision, cube_states, strict=True)]
        )

    def take_decisions(self, boards: torch.Tensor, cube_states: Sequence[CubeState]) -> list[str]:
        """The answer ("take", "pass" or "beaver") to a double by the player on roll of each board."""
        from bgai.cube.analysis import analyse_positions

        if not len(cube_states):
            return []
        analysis = analyse_positions(self.cube_evaluator, boards, cube_states, self.plies)
        return [answer or "take" for answer in analysis.take]


class Opponent:
    """A network at a fixed level: ``choose_move``, ``cube_action``, ``resign_decision``, ``player``.

    ``level`` and ``name`` come from ``bgai.json``; ``strength`` is its measured strength (a dict,
    or ``None`` before grading); ``info`` is the whole ``bgai.json``.
    """

    def __init__(self, net: ValueNet | SplitNet, info: dict[str, Any], folder: Path | None = None) -> None:
        settings = _settings(info)
        self.net = net.eval()
        self.info = info
        self.folder = folder
        self.name: str = settings["name"]
        self.level: str = settings["level"]
        self.plies: int = settings["plies"]
        self.noise: float = settings["noise"]
        self.noise_seed: int = settings["noise_seed"]
        self.move_filter: MoveFilter = settings["move_filter"]
        self.jacoby: bool = settings["jacoby"]
        self.beavers: bool = settings["beavers"]
        self.evaluator = NetEvaluator(self.net, name=self.name)
        self.player = OpponentPlayer(
            self.evaluator, self.plies, self.move_filter, self.noise, self.noise_seed, self.name
        )

    @property
    def strength(self) -> dict[str, Any] | None:
        """The grade ``bgai grade --write`` stored (error rate, PR, class, ppg...), or ``None``."""
        return self.info.get("strength")

    @classmethod
    def load(cls, folder: str | Path) -> Opponent:
        """Read an exported opponent; anything corrupt or mismatched raises a one-line ``ValueError``."""
        folder = Path(folder)
        info = read_config(folder)
        return cls(_load_net(folder, info), info, folder)

    def __repr__(self) -> str:
        return f"<Opponent {self.name} ({self.level}, {self.plies}-ply, noise {self.noise:g})>"

    # --- checker play ---------------------------------------------------------------------

    def choose_move(self, position_id: str, dice: str | Sequence[int]) -> str:
        """The move it plays, written exactly as :func:`bgai.legal_moves` writes it ("" if none)."""
        return self.player.choose_move(position_id, dice)

    def probabilities(self, position_id: str) -> list[float]:
        """Its five probabilities for the player on roll before the roll, at its plies (no noise)."""
        board, _ = _live_board(position_id)
        return self._probs(board).tolist()

    def _probs(self, board: np.ndarray) -> np.ndarray:
        boards = torch.as_tensor(board, dtype=torch.int8)[None]
        return evaluate_position(self.evaluator, boards, self.plies)[0].double().numpy()

    # --- the cube -------------------------------------------------------------------------

    def cube_action(self, position_id: str) -> str:
        """Its cube action in this position (best given as a GNUbgID or XGID, which carry the cube).

        * A double on offer (the ID says so): it is the one doubled and answers ``"take"``,
          ``"pass"`` or ``"beaver"`` (money play with beavers allowed).
        * Otherwise it is the player on roll, before rolling: ``"double"`` or ``"no double"``;
          ``"no double"`` also whenever it may not double (cube owned by the other side, the
          Crawford game, a dead cube, dice already rolled).

        gnubg's cube analysis at its plies (:func:`bgai.cube.analysis.cube_action`: Janowski
        with gnubg's cube efficiencies at 0-ply, a cubeful search deeper). A noisy level's
        evaluations there are off by its noise (deterministically per position).
        """
        from bgai.cube.analysis import cube_action, cube_state, why_no_double

        board, match_state = _live_board(position_id)
        if match_state is None:  # a bare Position ID: a money game under the export's defaults
            match_state = MatchState(jacoby=self.jacoby, beavers=self.beavers)
        beavers = None if _is_xgid(position_id) else self.beavers  # a Match ID has no beaver bit
        reason = why_no_double(cube_state(match_state, beavers=beavers))
        if match_state.double_offered:
            if reason:
                raise ValueError(f"{position_id.strip()!r}: a double is on offer, but {reason}")
        elif reason or match_state.dice:
            return "no double"
        return cube_action(self.player.cube_evaluator, board, match_state, self.plies, beavers=beavers)

    # --- resignations ---------------------------------------------------------------------

    def resign_decision(self, position_id: str, points: int) -> bool:
        """Accept a resignation of ``points`` (1 single, 2 gammon, 3 backgammon, times the cube)?

        The resigning side is the player on roll, unless the ID (a GNUbgID or XGID) has a
        resignation on offer, in which case the side to decide (its ``turn``) is this opponent.
        It accepts when the points offered are at least what it expects to win by playing on
        (cubeless, by its own evaluation at its plies); with Jacoby and a centred cube in money
        play gammons do not count, so a gammon offered is worth a single game.
        """
        if points not in (1, 2, 3):
            raise ValueError(f"a resignation offers 1, 2 or 3 points, got {points!r}")
        board, ms = _live_board(position_id)
        on_roll_resigns = ms is None or not ms.resign or ms.turn != ms.on_roll
        gammons = not (ms is not None and ms.is_money and ms.jacoby and ms.cube_owner is None)
        equity_on_roll = float(cubeless_equity(self._probs(board), gammons=gammons)[0])
        expected = -equity_on_roll if on_roll_resigns else equity_on_roll
        return (points if gammons else 1) >= expected - 1e-6  # float32 sums: a tie accepts


# --- reading an export --------------------------------------------------------------------


def read_config(folder: Path) -> dict[str, Any]:
    """The parsed ``bgai.json`` of an export folder, checked for its format version."""
    if not folder.is_dir():
        raise ValueError(f"{folder}: no exported opponent there (not a folder)")
    config = folder / CONFIG_FILE
    if not config.is_file():
        raise ValueError(f"{folder}: not an exported opponent (no {CONFIG_FILE}; make one with bgai export)")
    try:
        info = json.loads(config.read_text())
    except (UnicodeDecodeError, json.JSONDecodeError) as e:
        raise ValueError(f"{config}: not valid JSON ({_first_line(e)})") from None
    if not isinstance(info, dict):
        raise ValueError(f"{config}: expected a JSON object")
    if info.get("format") != FORMAT:
        raise ValueError(f"{config}: unknown format {info.get('format')!r} (this bgai reads {FORMAT!r})")
    try:  # read every setting now, so that a damaged file fails here, in one line
        _settings(info)
        weights = info["weights"]["file"]
        if (
            not isinstance(info["architecture"], dict)
            or not isinstance(weights, str)
            or Path(weights).name != weights
        ):
            raise TypeError("architecture must be an object and weights.file a file name in the folder")
    except KeyError as e:
        raise ValueError(f"{config}: missing setting {e}") from None
    except (TypeError, ValueError, IndexError) as e:
        raise ValueError(f"{config}: bad setting ({_first_line(e)})") from None
    return info


def _load_net(folder: Path, info: dict[str, Any]) -> ValueNet | SplitNet:
    """The network of an export: its weights checked against the file hash and the architecture."""
    from safetensors import safe_open

    weights = folder / info["weights"]["file"]
    if not weights.is_file():
        raise ValueError(f"{folder}: weights file {weights.name} is missing")
    expected_hash = info["weights"].get("sha256")
    if expected_hash and hashlib.sha256(weights.read_bytes()).hexdigest() != expected_hash:
        raise ValueError(f"{weights}: does not match {CONFIG_FILE} (sha256 differs): corrupt or replaced")
    try:
        with safe_open(str(weights), framework="pt") as f:
            metadata = f.metadata() or {}
            tensors = {k: f.get_tensor(k) for k in f.keys()}  # noqa: SIM118 - safe_open has no __iter__
    except Exception as e:  # safetensors raises its own error types for a damaged file
        raise ValueError(f"{weights}: not a readable safetensors file ({_first_line(e)})") from None
    spec = info["architecture"]
    if "architecture" in metadata and json.loads(metadata["architecture"]) != spec:
        raise ValueError(f"{folder}: {weights.name} holds another architecture than {CONFIG_FILE} says")
    try:
        net = build_net(spec)
    except (TypeError, ValueError) as e:
        raise ValueError(f"{folder}: bad architecture in {CONFIG_FILE} ({_first_line(e)})") from None
    try:
        net.load_state_dict(tensors, strict=True)
    except RuntimeError as e:
        raise ValueError(f"{folder}: weights do not fit the architecture ({_first_line(e)[:150]})") from None
    return net.eval()


def _settings(info: dict[str, Any]) -> dict[str, Any]:
    """The typed settings an opponent plays by (``KeyError``/``TypeError``/``ValueError`` if damaged)."""
    play, cube = info["play"], info["cube"]
    return {
        "name": str(info["name"]),
        "level": str(info["level"]),
        "plies": int(play["plies"]),
        "noise": float(play["noise"]["stddev"]),
        "noise_seed": int(play["noise"]["seed"]),
        "move_filter": _move_filter(play["move_filter"]),
        "jacoby": bool(cube["jacoby"]),
        "beavers": bool(cube["beavers"]),
    }


def _move_filter(entry: dict[str, Any]) -> MoveFilter:
    """The move filter ``bgai.json`` describes: its stages if written, else the named filter."""
    stages = entry.get("stages")
    if stages is None:
        if entry["name"] not in FILTERS:
            raise ValueError(f"unknown move filter {entry['name']!r}")
        return FILTERS[entry["name"]]
    return tuple(None if s is None else FilterStage(int(s[0]), int(s[1]), float(s[2])) for s in stages)


def opponent_player(folder: str | Path, plies: int | None = None, name: str | None = None) -> OpponentPlayer:
    """The batched player of an exported opponent (``@<n>ply`` replaces its plies), for specs."""
    o = Opponent.load(folder)
    plies = o.plies if plies is None else plies
    return OpponentPlayer(o.evaluator, plies, o.move_filter, o.noise, o.noise_seed, name or o.name)


def _live_board(position_id: str) -> tuple[np.ndarray, MatchState | None]:
    if not isinstance(position_id, str):
        raise ValueError(f"a position is a string (Position ID, GNUbgID or XGID), got {position_id!r}")
    board, ms = read_position(position_id)
    if board[0].sum() == 0 or board[1].sum() == 0:
        raise ValueError(f"the game in {position_id.strip()!r} is over")
    return board, ms


def _is_xgid(text: str) -> bool:
    body = text.strip()
    return body.upper().startswith("XGID=") or body.count(":") == 9


def _first_line(e: BaseException) -> str:
    text = str(e).strip()
    return text.splitlines()[0] if text else type(e).__name__
