"""``bgai <command> ...``: the parser, the command list, and one-line errors.

Adding a command ``foo``:

1. create ``bgai/cli/foo_cmd.py`` with ``register(subparsers)``, which calls
   ``subparsers.add_parser("foo", help=..., description=...)``, adds the arguments and ends
   with ``parser.set_defaults(run=run)``; ``run(args) -> int`` does the work (import heavy
   modules inside it, so that ``bgai --help`` stays fast) and returns the exit code;
2. add ``"foo"`` to :data:`COMMANDS`.

A command reports a user's mistake (bad ID, missing file, unknown name) by raising
``ValueError``, ``OSError`` (``FileNotFoundError``...) or ``KeyError``: :func:`main` prints it as
one line ``bgai: error: <message>`` on stderr and exits with 2, never with a traceback.
Set ``BGAI_DEBUG=1`` to get the traceback instead.
"""

from __future__ import annotations

import argparse
import importlib
import os
import sys
from collections.abc import Sequence

import bgai

COMMANDS = [
    "train",
    "bench",
    "hint",
    "cube",
    "moves",
    "show",
    "play",
    "export",
    "grade",
]
"""Command names, in the order ``bgai --help`` lists them; each is ``bgai/cli/<name>_cmd.py``."""

USER_ERRORS = (ValueError, OSError, KeyError)
"""What a command raises for a mistake of the user's; anything else is a bug and keeps its traceback."""

USAGE_ERROR = 2  # the code argparse exits with, too


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
    if isinstance(exc, KeyError) and len(exc.args) == 1:
        message = str(exc.args[0])  # str(KeyError) would add quotes
    elif isinstance(exc, OSError) and exc.filename is not None and exc.strerror:
        message = f"{exc.strerror}: {exc.filename}"
    else:
        message = str(exc) or type(exc).__name__
    return " ".join(message.split())


def main(argv: Sequence[str] | None = None) -> int:
    """Run ``bgai`` with ``argv`` (default: the process arguments) and return the exit code."""
    # Before torch loads: OpenMP's default spin-waiting makes torch's many small batched ops
    # up to 100x slower when the cores are shared (scripts/bench_engine.py).
    os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")
    parser = build_parser()
    try:
        args = parser.parse_args(argv)
    except SystemExit as exc:  # --help, --version, or a usage error already printed by argparse
        return exc.code if isinstance(exc.code, int) else USAGE_ERROR
    try:
        return int(args.run(args) or 0)
    except BrokenPipeError:  # the reader went away (bgai moves ... | head): not an error
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        return 0
    except KeyboardInterrupt:
        return 130
    except USER_ERRORS as exc:
        if os.environ.get("BGAI_DEBUG"):
            raise
        print(f"bgai: error: {_one_line(exc)}", file=sys.stderr)
        return USAGE_ERROR


if __name__ == "__main__":
    raise SystemExit(main())
