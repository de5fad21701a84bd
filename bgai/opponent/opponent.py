"""An exported opponent, loaded without the training code: a :class:`~bgai.opponent.bot.Bot`.

``Opponent.load(folder)`` reads what :func:`bgai.opponent.export.export_opponent` wrote
(``bgai.json`` and ``model.safetensors``) and plays at the level it describes. It needs the
engine, formats, model, search, cube and the search player only, never :mod:`bgai.train`.
Its moves, cube actions (at its plies, blurred by its noise) and resignation answers are the
Bot's (:mod:`bgai.opponent.bot`, which says from whose view positions are read).
"""

from __future__ import annotations

import hashlib
import json
import math
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np
import torch

from bgai.bots.players import SearchPlayer
from bgai.cube.analysis import CubeDecider
from bgai.cube.state import CubeState
from bgai.model.net import SplitNet, ValueNet, build_net
from bgai.opponent.bot import Bot
from bgai.opponent.export import CONFIG_FILE, FORMAT
from bgai.search.evaluator import NetEvaluator, terminal_probs
from bgai.search.ply import FILTERS, MAX_PLIES, FilterStage, MoveFilter, position_noise

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

    ``cube`` is a :class:`~bgai.cube.analysis.CubeDecider` at the opponent's plies, on its
    evaluations blurred by its noise; ``cube_decisions`` / ``take_decisions`` follow
    :mod:`bgai.bots.cube`'s protocol, so cubeful bench games decide as :meth:`Opponent.cube_action`.
    """

    def __init__(
        self, evaluator: NetEvaluator, plies: int, move_filter: MoveFilter, noise: float, seed: int, name: str
    ) -> None:
        super().__init__(evaluator, plies, move_filter, noise, seed, name=name)
        self.cube_evaluator = evaluator if noise <= 0 else _NoisyEvaluator(evaluator, noise, seed)
        self.cube = CubeDecider(self.cube_evaluator, plies)

    def cube_decisions(self, boards: torch.Tensor, cube_states: Sequence[CubeState]) -> np.ndarray:
        """``(N,)`` True where the player on roll doubles now (asked only where it may)."""
        return self.cube.cube_decisions(boards, cube_states)

    def take_decisions(self, boards: torch.Tensor, cube_states: Sequence[CubeState]) -> list[str]:
        """The answer ("take", "pass" or "beaver") to a double by the player on roll of each board."""
        return self.cube.take_decisions(boards, cube_states)


class Opponent(Bot):
    """A network at a fixed level: a :class:`~bgai.opponent.bot.Bot` with its export's settings.

    ``level`` and ``name`` come from ``bgai.json``; ``strength`` is its measured strength (a dict,
    or ``None`` before grading); ``info`` is the whole ``bgai.json``.
    """

    player: OpponentPlayer

    def __init__(self, net: ValueNet | SplitNet, info: dict[str, Any], folder: Path | None = None) -> None:
        settings = _settings(info)
        self.net = net.eval()
        self.info = info
        self.folder = folder
        self.level: str = settings["level"]
        self.noise: float = settings["noise"]
        self.noise_seed: int = settings["noise_seed"]
        name = settings["name"]
        evaluator = NetEvaluator(self.net, name=name)
        player = OpponentPlayer(
            evaluator, settings["plies"], settings["move_filter"], self.noise, self.noise_seed, name
        )
        super().__init__(
            player,
            evaluator=evaluator,
            plies=settings["plies"],
            move_filter=settings["move_filter"],
            cube=player.cube,
            name=name,
            jacoby=settings["jacoby"],
            beavers=settings["beavers"],
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
    for key, tensor in tensors.items():
        if tensor.is_floating_point() and not torch.isfinite(tensor).all():
            raise ValueError(f"{weights}: weight {key} holds a value that is not a finite number (NaN, inf)")
    try:
        net.load_state_dict(tensors, strict=True)
    except RuntimeError as e:
        raise ValueError(f"{folder}: weights do not fit the architecture ({_first_line(e)[:150]})") from None
    return net.eval()


def _settings(info: dict[str, Any]) -> dict[str, Any]:
    """The typed settings an opponent plays by, each checked against what it may be, so that a
    damaged or hand-edited file fails at load (``KeyError``/``TypeError``/``ValueError``)."""
    play, cube = info["play"], info["cube"]
    plies = play["plies"]
    if isinstance(plies, bool) or not isinstance(plies, int) or not 0 <= plies <= MAX_PLIES:
        raise ValueError(f"plies must lie in 0..{MAX_PLIES}, got {plies!r}")
    noise = play["noise"]["stddev"]
    if isinstance(noise, bool) or not isinstance(noise, int | float) or not math.isfinite(noise) or noise < 0:
        raise ValueError(f"noise must be a finite number >= 0, got {noise!r}")
    seed = play["noise"]["seed"]
    if isinstance(seed, bool) or not isinstance(seed, int):
        raise ValueError(f"the noise seed must be a whole number, got {seed!r}")
    flags = {rule: cube[rule] for rule in ("jacoby", "beavers")}
    for rule, flag in flags.items():
        if not isinstance(flag, bool):
            raise ValueError(f"cube.{rule} must be true or false, got {flag!r}")
    return {
        "name": str(info["name"]),
        "level": str(info["level"]),
        "plies": plies,
        "noise": float(noise),
        "noise_seed": seed,
        "move_filter": _move_filter(play["move_filter"]),
        **flags,
    }


def _move_filter(entry: dict[str, Any]) -> MoveFilter:
    """The move filter ``bgai.json`` describes: its stages if written, else the named filter; the
    name must be one bgai knows either way."""
    if entry["name"] not in FILTERS:
        raise ValueError(f"unknown move filter {entry['name']!r}: choose one of {', '.join(FILTERS)}")
    stages = entry.get("stages")
    if stages is None:
        return FILTERS[entry["name"]]
    return tuple(None if s is None else FilterStage(int(s[0]), int(s[1]), float(s[2])) for s in stages)


def opponent_player(folder: str | Path, plies: int | None = None, name: str | None = None) -> OpponentPlayer:
    """The batched player of an exported opponent (``@<n>ply`` replaces its plies), for specs;
    named after the export (with ``@<n>ply`` when the plies are replaced) unless ``name``."""
    o = Opponent.load(folder)
    if plies is None:
        return (
            o.player
            if name is None
            else OpponentPlayer(o.evaluator, o.plies, o.move_filter, o.noise, o.noise_seed, name)
        )
    name = name or f"{o.name}@{plies}ply"
    return OpponentPlayer(o.evaluator, plies, o.move_filter, o.noise, o.noise_seed, name)


def _first_line(e: BaseException) -> str:
    text = str(e).strip()
    return text.splitlines()[0] if text else type(e).__name__
