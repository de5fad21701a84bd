"""``bgai <command> ...``: the parser, the command list, and one-line errors.

Adding a command ``foo``:

1. create ``bgai/cli/foo_cmd.py`` with ``register(subparsers)``, which calls
   ``subparsers.add_parser("foo", help=..., description=...)``, adds the arguments and ends
   with ``parser.set_defaults(run=run)``; ``run(args) -> int`` does the work (import heavy
   modules inside it, so that ``bgai --help`` stays fast) and returns the exit code;
2. add ``"foo"`` to :data:`COMMANDS`.

A command reports a user's mistake (bad ID, missing file, unknown name) by raising
``ValueError``, ``OSError`` (``FileNotFoundError``...) or ``KeyError``: :func:`main` prints it as
one line ``bgai: error: <message>`` on stderr (at most :data:`MESSAGE_LIMIT` characters) and exits
with 2, never with a traceback; a missing optional package is one line naming the extra that
installs it. Set ``BGAI_DEBUG=1`` to get the traceback instead. A file written at the end of a
command is checked before the work with :func:`output_file`.
"""

from __future__ import annotations

import argparse
import importlib
import os
import re
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import NoReturn

import bgai

COMMANDS = [
    "train",
    "bench",
    "hint",
    "cube",
    "rollout",
    "data",
    "fit",
    "moves",
    "show",
    "play",
    "serve",
    "export",
    "grade",
    "analyse",
]
"""Command names, in the order ``bgai --help`` lists them; each is ``bgai/cli/<name>_cmd.py``."""

USER_ERRORS = (ValueError, OSError, KeyError)
"""What a command raises for a mistake of the user's; anything else is a bug and keeps its traceback."""

USAGE_ERROR = 2  # the code argparse exits with, too

MESSAGE_LIMIT = 300
"""Characters of an error message shown; a huge input quoted in full would flood the terminal."""


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="bgai",
        description="bgai: a backgammon AI trainer. Positions are gnubg Position IDs, GNUbgIDs "
        "(PositionID:MatchID) or XGIDs; moves are in gnubg notation.",
    )
    parser.add_argument("--version", action="version", version=f"%(prog)s {bgai.__version__}")
    subparsers = parser.add_subparsers(title="commands", metavar="<command>", dest="command", required=True)
    for name in COMMANDS:
        importlib.import_module(f"bgai.cli.{name}_cmd").register(subparsers)
    return parser


def _one_line(exc: BaseException) -> str:
    from bgai.formats.quote import shorten

    if isinstance(exc, KeyError) and len(exc.args) == 1:
        message = str(exc.args[0])  # str(KeyError) would add quotes
    elif isinstance(exc, OSError) and exc.filename is not None and exc.strerror:
        message = f"{exc.strerror}: {exc.filename}"
    else:
        message = str(exc) or type(exc).__name__
    return shorten(" ".join(message.split()), MESSAGE_LIMIT)


def _extra_for(module: str) -> str | None:
    """The optional extra of bgai's metadata (pyproject.toml) that installs ``module``
    (``gnubg_nn`` -> ``gnubg``); None when no extra does."""
    from importlib.metadata import PackageNotFoundError, requires

    try:
        requirements = requires("bgai") or []
    except PackageNotFoundError:
        return None
    extras = []
    for requirement in requirements:
        name, _, marker = requirement.partition(";")
        project = re.match(r"[A-Za-z0-9._-]+", name.strip())
        extra = re.search(r"extra\s*==\s*['\"]([^'\"]+)['\"]", marker)
        if project and extra and re.sub(r"[-.]", "_", project.group(0)).lower() == module.lower():
            extras.append(extra.group(1))
    return next((extra for extra in extras if extra != "test"), extras[0] if extras else None)


def output_file(path: str | Path) -> Path:
    """``path`` as a file that a command writes when its work is done, checked before the work:
    not a folder, in a folder that exists (it is made) and may be written."""
    path = Path(path)
    if path.is_dir():
        raise ValueError(f"{path} is a folder: give a file name, e.g. {path / 'games.mat'}")
    try:
        path.parent.mkdir(parents=True, exist_ok=True)  # another OSError says why it cannot be
    except (FileExistsError, NotADirectoryError):
        raise ValueError(f"cannot write {path}: part of {path.parent} is a file, not a folder") from None
    if not os.access(path.parent, os.W_OK | os.X_OK) or (path.exists() and not os.access(path, os.W_OK)):
        raise PermissionError(f"cannot write {path}: permission denied")
    return path


def main(argv: Sequence[str] | None = None) -> int:
    """Run ``bgai`` with ``argv`` (default: the process arguments) and return the exit code."""
    # Before torch loads: OpenMP's default spin-waiting makes torch's many small batched ops
    # up to 100x slower when the cores are shared (scripts/measure/bench_engine.py).
    os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")
    parser = build_parser()
    try:
        args = parser.parse_args(argv)
    except SystemExit as exc:  # --help, --version, or a usage error already printed by argparse
        return exc.code if isinstance(exc.code, int) else USAGE_ERROR
    return run_guarded(lambda: args.run(args), "bgai")


def run_guarded(work: Callable[[], int | None], prog: str) -> int:
    """``work()``'s exit code, with a user's mistake (:data:`USER_ERRORS`) or a missing optional
    package printed as one line ``PROG: error: ...`` (exit 2) instead of a traceback: the
    handling every ``bgai`` command gets, and the scripts of ``scripts/`` through
    :func:`run_script`."""
    try:
        return int(work() or 0)
    except BrokenPipeError:  # the reader went away (bgai moves ... | head): not an error
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        return 0
    except KeyboardInterrupt:
        return 130
    except ImportError as exc:  # an optional package is missing: say which extra installs it
        module = (exc.name or "").partition(".")[0]
        extra = _extra_for(module) if module else None
        if extra is not None:
            message = f"this needs the optional package {module}: pip install 'bgai[{extra}]'"
        elif "pip install" in str(exc):  # the code that needs it said so already
            message = _one_line(exc)
        else:
            raise
        if os.environ.get("BGAI_DEBUG"):
            raise
        print(f"{prog}: error: {message}", file=sys.stderr)
        return USAGE_ERROR
    except USER_ERRORS as exc:
        if os.environ.get("BGAI_DEBUG"):
            raise
        print(f"{prog}: error: {_one_line(exc)}", file=sys.stderr)
        return USAGE_ERROR


def run_script(main: Callable[[], int | None]) -> NoReturn:
    """Run a script's ``main()`` under :func:`run_guarded` and exit with its code; every script
    in ``scripts/`` ends with it, so that a bad path or player spec there is one line too."""
    raise SystemExit(run_guarded(main, Path(sys.argv[0]).name))


if __name__ == "__main__":
    raise SystemExit(main())
