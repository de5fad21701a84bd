"""bgai: a backgammon AI trainer.

``import bgai`` stays light (no torch): the names below are imported on first use.

* :func:`legal_moves`, :func:`apply_move`, :func:`pip_count` — moves from gnubg Position IDs,
  GNUbgIDs or XGIDs and gnubg notation (:mod:`bgai.moves`);
* :func:`load_player` — a trained or built-in player by name (:mod:`bgai.specs`);
* :class:`Opponent` — a strength-graded opponent (:mod:`bgai.opponent`).
"""

from __future__ import annotations

import importlib

_LAZY = {
    "legal_moves": "bgai.moves",
    "apply_move": "bgai.moves",
    "pip_count": "bgai.moves",
    "load_player": "bgai.specs",
    "Opponent": "bgai.opponent",
}

__all__ = ["__version__", *_LAZY]


def _version() -> str:
    """The installed distribution's version (pyproject.toml is the one place it is written)."""
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("bgai")
    except PackageNotFoundError:  # pragma: no cover - a source tree that is not installed
        return "0+unknown"


def __getattr__(name: str) -> object:
    """Import a public name from its module the first time it is asked for (PEP 562)."""
    if name == "__version__":  # importlib.metadata alone costs more than the rest of `import bgai`
        globals()[name] = _version()
        return globals()[name]
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module 'bgai' has no attribute {name!r}")
    value = getattr(importlib.import_module(module), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(_LAZY) | {"__version__"})
