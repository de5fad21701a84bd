"""``bgai serve``: a web page to play bgai's opponents, and a JSON API for programs.

One process serves the page (``/``), the game API it plays through (``/api/games``), the
analysis API (``/api/move``, ``/api/hint``, ``/api/eval``, ``/api/cube``, ``/api/resign``) and
its OpenAPI page (``/docs``). It binds to 127.0.0.1 unless told otherwise. Needs the optional
``web`` extra (``pip install 'bgai[web]'``).
"""

from __future__ import annotations

import argparse
import sys


def register(subparsers) -> None:
    parser = subparsers.add_parser(
        "serve",
        help="play the opponents in a browser; a JSON API for bots (needs the 'web' extra)",
        description="Serve a web page to play bgai's opponents (board, cube, resignations, clock, hints, "
        ".mat download) and a JSON API for programs: the best move, the evaluation, the cube decision "
        "and the answer to a resignation of positions given as gnubg IDs or XGIDs. OpenAPI page at /docs.",
    )
    parser.add_argument(
        "--host", default="127.0.0.1", help="address to bind (default 127.0.0.1: this machine only)"
    )
    parser.add_argument("--port", type=int, default=8080, help="port (default 8080; 0 picks a free one)")
    parser.add_argument(
        "--level",
        nargs="+",
        metavar="NAME",
        help="ladder levels to offer (default all: beginner casual intermediate advanced expert strong "
        "worldclass)",
    )
    parser.add_argument(
        "--opponent",
        nargs="+",
        default=[],
        metavar="DIR|SPEC",
        help="more opponents to offer: an exported opponent's folder (bgai export) or a player spec",
    )
    parser.add_argument(
        "--threads",
        type=int,
        default=None,
        help="bots thinking at once, one CPU thread each (default: the CPUs)",
    )
    parser.add_argument("--max-games", type=int, default=200, help="games held at once (default 200)")
    parser.add_argument(
        "--log-level", default="warning", choices=("critical", "error", "warning", "info", "debug")
    )
    parser.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    try:
        import uvicorn

        from bgai.serve.app import create_app
    except ModuleNotFoundError as exc:
        raise ValueError(
            f"bgai serve needs the optional 'web' extra: pip install 'bgai[web]' (missing {exc.name})"
        ) from None
    import time

    import torch

    from bgai.serve.state import Games, Opponents

    if not 0 <= args.port <= 65535:
        raise ValueError(f"--port must be 0-65535, got {args.port}")
    if args.threads is not None and args.threads < 1:
        raise ValueError(f"--threads must be 1 or more, got {args.threads}")
    if args.max_games < 1:
        raise ValueError(f"--max-games must be 1 or more, got {args.max_games}")
    torch.set_num_threads(1)  # many requests at once, one core each, rather than one request on all
    opponents = Opponents(args.level, args.opponent)
    start = time.perf_counter()
    for key in opponents.entries:  # load every bot now: a bad export fails here, not in a game
        opponents.bot(key)
    print(
        f"bgai serve: {len(opponents.entries)} opponents loaded in {time.perf_counter() - start:.1f} s "
        f"({', '.join(opponents.entries)})",
        flush=True,
    )
    if args.host not in ("127.0.0.1", "localhost", "::1"):
        print(
            f"bgai serve: listening on {args.host}: anyone who can reach this machine can play and ask",
            file=sys.stderr,
        )
    app = create_app(opponents, games=Games(args.max_games), threads=args.threads)
    port = args.port or _free_port(args.host)
    config = uvicorn.Config(
        app,
        host=args.host,
        port=port,
        log_level=args.log_level,
        limit_concurrency=512,
        timeout_keep_alive=5,
    )
    server = uvicorn.Server(config)
    where = f"http://{f'[{args.host}]' if ':' in args.host else args.host}:{port}"
    print(f"bgai serve: open {where}/ to play, {where}/docs for the API (Ctrl-C stops)", flush=True)
    server.run()
    return 0


def _free_port(host: str) -> int:
    """A port nobody listens on now (for --port 0: the address is printed before serving)."""
    import socket

    with socket.socket(socket.AF_INET6 if ":" in host else socket.AF_INET) as probe:
        probe.bind((host, 0))
        return probe.getsockname()[1]
