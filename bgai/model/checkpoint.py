"""Checkpoints: plain dicts of tensors and primitives, written atomically.

A checkpoint loads with ``torch.load(weights_only=True)`` (no pickled classes) and holds at
least ``format``, ``net_spec`` (see :func:`bgai.model.net.build_net`) and ``model`` (the state
dict). Training adds its optimiser, counters, RNG states and config (:mod:`bgai.train`).
"""

from __future__ import annotations

import os
import tempfile
from pathlib import Path
from typing import Any

import torch

from bgai.model.net import SplitNet, ValueNet, build_net

FORMAT = "bgai-checkpoint-v1"


def _shipped_folder() -> Path:
    """Where the networks the project ships are: ``bgai/checkpoints`` in an installed wheel (the
    build maps the project's top-level ``checkpoints/`` there, see setup.py), else that top-level
    folder of the source tree (an editable install or a checkout)."""
    package = Path(__file__).resolve().parents[1]
    installed = package / "checkpoints"
    return installed if installed.is_dir() else package.parent / "checkpoints"


SHIPPED = _shipped_folder()


def save_atomic(obj: dict[str, Any], path: str | Path) -> None:
    """Write ``obj`` with torch.save to a temporary file, then rename: never a torn file."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:  # from here on, a failure or a signal removes the temporary file
        umask = os.umask(0)
        os.umask(umask)
        os.chmod(tmp, 0o666 & ~umask)  # mkstemp makes it owner-only; a checkpoint is an ordinary file
        with os.fdopen(fd, "wb") as f:
            torch.save(obj, f)
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def load_checkpoint(path: str | Path) -> dict[str, Any]:
    """Read a checkpoint; a missing, corrupt or foreign file raises a one-line ``ValueError``."""
    path = Path(path)
    if not path.is_file():
        raise ValueError(f"checkpoint not found: {path}")
    try:
        ckpt = torch.load(path, map_location="cpu", weights_only=True)
    except Exception as e:  # torch raises many kinds for a damaged file
        first = str(e).strip().splitlines()[0] if str(e).strip() else type(e).__name__
        raise ValueError(f"checkpoint {path} is corrupt or not a torch file ({first[:120]})") from None
    if not isinstance(ckpt, dict) or ckpt.get("format") != FORMAT:
        raise ValueError(f"{path} is not a bgai checkpoint (expected format {FORMAT!r})")
    for key in ("net_spec", "model"):
        if key not in ckpt:
            raise ValueError(f"checkpoint {path} lacks {key!r}")
    return ckpt


def net_from_checkpoint(ckpt: dict[str, Any], source: str = "checkpoint") -> ValueNet | SplitNet:
    """Rebuild the network a checkpoint describes and load its weights."""
    net = build_net(ckpt["net_spec"])
    try:
        net.load_state_dict(ckpt["model"])
    except RuntimeError as e:
        first = str(e).strip().splitlines()[0]
        raise ValueError(f"{source}: weights do not fit the architecture ({first[:150]})") from None
    return net.eval()


def load_net(path: str | Path) -> ValueNet | SplitNet:
    """The trained network of a checkpoint file, in eval mode."""
    return net_from_checkpoint(load_checkpoint(path), str(path))


def shipped_checkpoint(name: str = "best") -> Path:
    """Path of a network the project ships in ``checkpoints/`` (``best`` is the strongest)."""
    path = SHIPPED / f"{name}.pt"
    if not path.is_file():
        raise ValueError(f"no shipped network {name!r} (looked for {path})")
    return path


def checkpoint_path(name: str | Path) -> Path:
    """``name`` as a checkpoint file: a path (it has a folder or a suffix, or exists) or the name
    of a network the project ships (``best``)."""
    path = Path(name)
    if path.suffix or len(path.parts) > 1 or path.exists():
        return path
    return shipped_checkpoint(str(name))
