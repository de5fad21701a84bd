"""The training configuration: one dataclass, read from TOML, overridable from the command line.

Every field has a docstring-like comment; ``bgai train --help-config`` prints them.
Unknown keys and wrongly typed values are errors that name the key.
"""

from __future__ import annotations

import dataclasses
import re
import tomllib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from bgai.formats.quote import quote


@dataclass
class TrainConfig:
    name: str = "quick"
    "Run name; the run folder is runs/<name>__<seed>__<unixtime>."
    seed: int = 0
    "Seeds the network initialisation, the dice and exploration."
    games: int = 2000
    "Total self-play games to play (over all processes)."
    parallel_games: int = 256
    "Games played at once by each process; finished games are replaced at once."
    variant: str = "standard"
    "Starting position: standard, nackgammon or hypergammon."

    encoding: str = "tesauro198"
    """Input encoding: tesauro198 (classic), rich (gnubg-style features), rich_plus (rich + contact
    features), rich_plan (rich_plus + game-plan features)."""
    hidden: list[int] = field(default_factory=lambda: [80])
    "Hidden layer sizes."
    activation: str = "sigmoid"
    "Hidden activation: sigmoid, tanh, relu or gelu."
    split_race: bool = False
    "Separate networks for contact and race positions."
    init: str = ""
    "Start from a checkpoint's net (a path or a shipped name) instead of random weights; it may be smaller."

    lam: float = 0.7
    "TD(lambda) trace decay: 0 is TD(0), 1 is Monte Carlo on the game result."
    optimizer: str = "adam"
    "adam or sgd."
    lr: float = 1e-3
    "Learning rate at the start."
    lr_final: float = 1e-4
    "Learning rate at the end (linear decay over the run's games)."
    batch_positions: int = 128
    "Positions per gradient step; steps run as soon as that many returns are ready (per process)."
    average_every: int = 0
    "0: gradients all-reduced every step (identical updates); N: own steps, weights averaged every N turns."
    exploration: float = 0.0
    "Probability of a uniformly random move instead of the greedy one."
    backgame_starts: float = 0.0
    "Share of self-play games started from a random back-game set-up instead of the opening."
    race_starts: float = 0.0
    "Share of self-play games started from a random race (with split_race: trains the race net alone)."
    database_starts: float = 0.0
    "Share of self-play games started from a training position of start_database (never a held-out one)."
    start_database: str = ""
    "A position database folder (bgai data build) for database_starts."
    start_classes: str = ""
    "Only start_database's positions of these classes, comma separated (e.g. backgame); empty: all."

    eval_every: int = 1000
    "Games between evaluations against pubeval (0: never)."
    eval_games: int = 400
    "Games per evaluation (duplicate dice, so an even number)."
    checkpoint_every: int = 1000
    "Games between checkpoints."
    device: str = "cpu"
    "cpu or cuda."
    threads: int = 1
    "torch threads per process (0: torch's default); more processes (torchrun) scale better."
    runs_dir: str = "runs"
    "Where run folders are created."


FIELDS = {f.name: f for f in dataclasses.fields(TrainConfig)}

MAX_PARALLEL_GAMES = 1 << 16
"""Each running game keeps a history of up to 1000 turns (about 70 kB): 65536 games take 4.6 GB."""
MAX_HIDDEN = 1 << 16
_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]{0,99}")


def field_help() -> dict[str, str]:
    """The comment under each field, for --help-config."""
    import ast
    import inspect

    tree = ast.parse(inspect.getsource(TrainConfig))
    body = tree.body[0].body
    docs = {}
    for stmt, nxt in zip(body, body[1:], strict=False):
        if isinstance(stmt, ast.AnnAssign) and isinstance(nxt, ast.Expr):
            docs[stmt.target.id] = nxt.value.value
    return docs


def _coerce(key: str, value: Any) -> Any:
    """Check and convert ``value`` to the type of field ``key``; one-line errors."""
    if key not in FIELDS:
        raise ValueError(f"unknown config key {quote(key)} (known: {', '.join(FIELDS)})")
    default = FIELDS[key].default if FIELDS[key].default is not dataclasses.MISSING else [0]
    if isinstance(default, bool):
        if isinstance(value, str) and value.lower() in ("true", "false", "1", "0"):
            return value.lower() in ("true", "1")
        if not isinstance(value, bool):
            raise ValueError(f"config key {key!r} must be true or false, got {quote(value)}")
        return value
    if isinstance(default, list):
        if isinstance(value, str):
            value = [v for v in value.replace("[", "").replace("]", "").split(",") if v.strip()]
        try:
            if any(isinstance(v, bool | float) for v in value):  # true is not a layer size
                raise ValueError
            return [int(v) for v in value]
        except (TypeError, ValueError):
            raise ValueError(f"config key {key!r} must be a list of integers, got {quote(value)}") from None
    kind = type(default)
    try:
        if kind is not str and isinstance(value, bool):  # int(True) == 1: games = true is a mistake
            raise ValueError
        if kind is int and isinstance(value, float) and not value.is_integer():
            raise ValueError
        return kind(value)
    except (TypeError, ValueError):
        raise ValueError(f"config key {key!r} must be {kind.__name__}, got {quote(value)}") from None


def validate(cfg: TrainConfig) -> TrainConfig:
    """Range checks that a type alone cannot express."""
    from bgai.engine.board import VARIANTS
    from bgai.model.encoding import ENCODINGS

    checks = [
        (
            _NAME.fullmatch(cfg.name) is not None,
            "name must be a folder name: up to 100 letters, digits, '.', "
            f"'_' and '-', starting with a letter or digit, got {quote(cfg.name)}",
        ),
        (cfg.games > 0, "games must be positive"),
        (
            0 < cfg.parallel_games <= MAX_PARALLEL_GAMES,
            f"parallel_games must lie in 1..{MAX_PARALLEL_GAMES} "
            f"(each running game keeps its history), got {cfg.parallel_games}",
        ),
        (0.0 <= cfg.lam <= 1.0, "lam must lie in [0, 1]"),
        (0.0 <= cfg.exploration <= 1.0, "exploration must lie in [0, 1]"),
        (0.0 <= cfg.backgame_starts <= 1.0, "backgame_starts must lie in [0, 1]"),
        (0.0 <= cfg.race_starts <= 1.0, "race_starts must lie in [0, 1]"),
        (0.0 <= cfg.database_starts <= 1.0, "database_starts must lie in [0, 1]"),
        (
            cfg.backgame_starts + cfg.race_starts + cfg.database_starts <= 1.0,
            "backgame_starts + race_starts + database_starts must be at most 1",
        ),
        (cfg.database_starts == 0 or bool(cfg.start_database), "database_starts needs a start_database"),
        (cfg.lr > 0 and cfg.lr_final > 0, "lr and lr_final must be positive"),
        (cfg.optimizer in ("adam", "sgd"), f"optimizer must be adam or sgd, got {quote(cfg.optimizer)}"),
        (
            cfg.encoding in ENCODINGS,
            f"encoding must be one of {', '.join(ENCODINGS)}, got {quote(cfg.encoding)}",
        ),
        (cfg.variant in VARIANTS, f"variant must be one of {', '.join(VARIANTS)}, got {quote(cfg.variant)}"),
        (
            cfg.device in ("cpu", "cuda") or cfg.device.startswith("cuda:"),
            f"unknown device {quote(cfg.device)}",
        ),
        (all(0 < h <= MAX_HIDDEN for h in cfg.hidden), f"hidden sizes must lie in 1..{MAX_HIDDEN}"),
        (cfg.batch_positions > 0, "batch_positions must be positive"),
        (cfg.average_every >= 0, "average_every must be 0 or more"),
        (cfg.eval_every >= 0, "eval_every must be 0 (never) or a number of games"),
        (
            cfg.eval_games > 0 and cfg.eval_games % 2 == 0,
            "eval_games must be positive and even (duplicate dice play games in pairs)",
        ),
        (
            cfg.checkpoint_every > 0,
            f"checkpoint_every must be a positive number of games, got {cfg.checkpoint_every}",
        ),
        (cfg.threads >= 0, f"threads must be 0 (torch's default) or a number of threads, got {cfg.threads}"),
        (bool(cfg.runs_dir), "runs_dir must name a folder"),
    ]
    for ok, message in checks:
        if not ok:
            raise ValueError(f"bad config: {message}")
    return cfg


def load_config(path: str | Path | None, overrides: dict[str, Any] | None = None) -> TrainConfig:
    """Read a TOML config (flat keys), apply overrides, validate."""
    values: dict[str, Any] = {}
    if path is not None:
        path = Path(path)
        if not path.is_file():
            raise ValueError(f"config file not found: {path}")
        try:
            values = tomllib.loads(path.read_text())
        except tomllib.TOMLDecodeError as e:
            raise ValueError(f"config {path} is not valid TOML: {e}") from None
    values.update(overrides or {})
    return validate(TrainConfig(**{k: _coerce(k, v) for k, v in values.items()}))


def to_toml(cfg: TrainConfig | dict[str, Any]) -> str:
    """The resolved config as TOML (flat keys of str, int, float, bool and int lists)."""
    items = dataclasses.asdict(cfg) if isinstance(cfg, TrainConfig) else cfg
    lines = []
    for key, value in items.items():
        if isinstance(value, bool):
            text = "true" if value else "false"
        elif isinstance(value, str):
            text = '"' + value.replace("\\", "\\\\").replace('"', '\\"') + '"'
        elif isinstance(value, list):
            text = "[" + ", ".join(str(v) for v in value) + "]"
        else:
            text = repr(value)
        lines.append(f"{key} = {text}")
    return "\n".join(lines) + "\n"


def parse_overrides(pairs: list[str]) -> dict[str, Any]:
    """``["lr=0.01", "hidden=[40,40]"]`` -> dict, values still strings (coerced later)."""
    out = {}
    for pair in pairs:
        if "=" not in pair:
            raise ValueError(f"override {quote(pair)} must look like key=value")
        key, value = pair.split("=", 1)
        out[key.strip().replace("-", "_")] = value.strip()
    return out
