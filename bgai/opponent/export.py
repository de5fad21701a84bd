"""``bgai export``: a trained network plus a level, written as a shareable opponent folder.

The folder holds

* ``model.safetensors`` — the network's weights (``safetensors.torch.save_file``: no pickle, safe
  to share); its metadata repeats the format, name and architecture;
* ``bgai.json`` — everything else an engine needs to play like the opponent, described below;
* ``model.onnx`` (with ``--onnx``) — the network's forward pass on encoded inputs, for engines
  outside Python (needs the optional ``onnx`` and ``onnxscript`` packages).

``bgai.json`` (format ``bgai-opponent-v1``):

``name``, ``level``
    e.g. ``bgai-expert-v1``, ``expert`` (:mod:`bgai.opponent.levels`).
``architecture``
    the network's ``spec()`` (:func:`bgai.model.net.build_net` rebuilds it).
``input_encoding``
    the encoding's name, size and checker count; boards are gnubg's ``TanBoard`` layout, seen
    from the player on roll (README, "Board convention").
``outputs``
    five probabilities for the player on roll before the roll: win, win gammon, win backgammon,
    lose gammon, lose backgammon (gammons include backgammons).
``play``
    ``plies`` (gnubg's numbering), ``move_filter`` (name and stages), ``noise`` (standard
    deviation in equity, deterministic, with its seed).
``cube``
    the cube model (Janowski's, gnubg's default cube efficiencies) and money-play defaults
    (Jacoby, beavers).
``strength``
    ``null`` until ``bgai grade --write`` measures it (:mod:`bgai.opponent.grade`).
"""

from __future__ import annotations

import hashlib
import json
import os
from pathlib import Path
from typing import Any

import torch

from bgai.model.checkpoint import load_checkpoint, net_from_checkpoint, shipped_checkpoint
from bgai.model.net import SplitNet, ValueNet
from bgai.model.probs import OUTPUTS
from bgai.opponent.levels import Level, get_level
from bgai.search.ply import FILTERS

FORMAT = "bgai-opponent-v1"
CONFIG_FILE = "bgai.json"
WEIGHTS_FILE = "model.safetensors"
ONNX_FILE = "model.onnx"
OUTPUT_NAMES = list(OUTPUTS)
CUBE_DEFAULTS = {
    "model": "janowski",
    "efficiency": "gnubg-default",
    "about": "0-ply cube decisions use Janowski's cubeful equity with gnubg's default cube "
    "efficiencies by position class (bgai.cube.cube_efficiency), on probabilities at the "
    "opponent's plies; the level's noise applies to them too",
    "jacoby": True,
    "beavers": True,
}


def default_name(level: str, version: int = 1) -> str:
    """``bgai-<level>-v<version>``: a versioned ID, as pgx names its baselines."""
    return f"bgai-{get_level(level).name}-v{version}"


def describe(
    net: ValueNet | SplitNet, level: Level, name: str, noise_seed: int = 0, source: dict | None = None
) -> dict[str, Any]:
    """The ``bgai.json`` content for ``net`` played at ``level`` (``strength`` still null)."""
    from bgai import __version__

    stages = [None if s is None else [s.accept, s.extra, s.threshold] for s in FILTERS[level.move_filter]]
    return {
        "format": FORMAT,
        "name": name,
        "level": level.name,
        "bgai_version": __version__,
        "source": source,
        "architecture": net.spec(),
        "input_encoding": _encoding(net),
        "outputs": {
            "names": OUTPUT_NAMES,
            "perspective": "the player on roll, before the roll; gammons include backgammons",
        },
        "play": {
            "plies": level.plies,
            "move_filter": {"name": level.move_filter, "stages": stages},
            "noise": {
                "stddev": level.noise,
                "deterministic": True,
                "seed": int(noise_seed),
                "about": "a normal error of this standard deviation (equity) added to each candidate "
                "move's equity, drawn from a seeded hash of the position it leaves",
            },
        },
        "cube": dict(CUBE_DEFAULTS),
        "weights": {"file": WEIGHTS_FILE},
        "onnx": None,
        "strength": None,
    }


def _encoding(net: ValueNet | SplitNet) -> dict[str, Any]:
    """What the network reads; a SplitNet describes its contact and race nets apart."""
    if isinstance(net, SplitNet):
        return {
            "contact": _encoding(net.contact),
            "race": _encoding(net.race),
            "routing": "bgai.engine.is_race",
        }
    return {
        "name": net.encoding.name,
        "size": net.encoding.size,
        "checkers": net.checkers,
        "board": "int (2, 25): row 1 the player on roll, row 0 the opponent; index i < 24 is that "
        "side's own point i + 1, index 24 its bar; borne-off checkers are implicit",
    }


def export_opponent(
    checkpoint: str | Path,
    level: str,
    out_dir: str | Path,
    name: str | None = None,
    noise_seed: int = 0,
    onnx: bool = False,
) -> Path:
    """Write the opponent ``checkpoint`` (a path, or ``best``) plays at ``level`` into ``out_dir``.

    Returns the folder. Existing ``bgai.json``/weights there are replaced. A bad checkpoint, level
    or (with ``onnx``) a missing ``onnx`` package raises a one-line ``ValueError``.
    """
    from safetensors.torch import save

    lvl = get_level(level)
    name = name or default_name(lvl.name)
    if onnx:
        _require_onnx()
    path = shipped_checkpoint("best") if str(checkpoint) == "best" else Path(checkpoint)
    ckpt = load_checkpoint(path)
    net = net_from_checkpoint(ckpt, str(path)).cpu()
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    info = describe(net, lvl, name, noise_seed, _source(path, ckpt))

    tensors = {k: v.detach().cpu().contiguous().clone() for k, v in net.state_dict().items()}
    metadata = {"format": FORMAT, "name": name, "architecture": json.dumps(net.spec(), sort_keys=True)}
    weights = out / WEIGHTS_FILE
    _write_atomic(weights, save(tensors, metadata=metadata))
    info["weights"]["sha256"] = _sha256(weights)
    if onnx:
        info["onnx"] = export_onnx(net, out / ONNX_FILE)
    else:  # an earlier export's ONNX files would no longer match the weights
        for stale in out.glob("model*.onnx"):
            stale.unlink()
    write_config(out, info)
    return out


def write_config(folder: str | Path, info: dict[str, Any]) -> None:
    """Write ``bgai.json`` atomically."""
    _write_atomic(Path(folder) / CONFIG_FILE, (json.dumps(info, indent=2) + "\n").encode())


def _write_atomic(path: Path, data: bytes) -> None:
    """Write a temporary file next to ``path``, then rename it: never a torn file."""
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    try:
        tmp.write_bytes(data)
        os.replace(tmp, path)
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise


def _source(path: Path, ckpt: dict[str, Any]) -> dict[str, Any]:
    """Where the weights came from: the checkpoint file's name and, if recorded, its training games."""
    progress = ckpt.get("progress") if isinstance(ckpt.get("progress"), dict) else {}
    config = ckpt.get("config") if isinstance(ckpt.get("config"), dict) else {}
    return {"checkpoint": path.name, "games": progress.get("games"), "run": config.get("name")}


def _sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def _require_onnx() -> None:
    import importlib.util

    for package in ("onnx", "onnxscript"):
        if importlib.util.find_spec(package) is None:
            raise ValueError(f"--onnx needs the optional {package} package: pip install onnx onnxscript")


class _EncodedForward(torch.nn.Module):
    """A ValueNet's probabilities from its encoded inputs, the function the ONNX file holds."""

    def __init__(self, net: ValueNet) -> None:
        super().__init__()
        self.net = net

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.net.forward_encoded(x)


def export_onnx(net: ValueNet | SplitNet, path: Path) -> dict[str, Any]:
    """Write the forward pass on encoded inputs ``(N, size)`` -> ``(N, 5)`` as ONNX.

    A SplitNet gives two files, ``<stem>.contact.onnx`` and ``<stem>.race.onnx``: the engine
    routes each position by :func:`bgai.engine.board.is_race`, as :class:`SplitNet` does.
    """
    _require_onnx()
    parts = {"": net} if isinstance(net, ValueNet) else {"contact": net.contact, "race": net.race}
    files = {}
    for part, sub in parts.items():
        target = path if not part else path.with_name(f"{path.stem}.{part}{path.suffix}")
        example = torch.zeros(2, sub.encoding.size)
        torch.onnx.export(
            _EncodedForward(sub).eval(),
            (example,),
            str(target),
            input_names=["inputs"],
            output_names=["probs"],
            dynamic_shapes={"x": {0: torch.export.Dim("batch")}},
            dynamo=True,
            external_data=False,  # one self-contained file: these nets are small
            verbose=False,
        )
        files[part or "net"] = target.name
    return {
        "files": files,
        "input": "float32 (N, input_encoding.size): the encoded boards",
        "output": "float32 (N, 5): outputs.names, for the player on roll",
    }
