"""``bgai export CHECKPOINT --level LEVEL [-o DIR] [--name NAME] [--onnx]``: a shareable opponent.

Writes ``model.safetensors`` (weights, no pickle) and ``bgai.json`` (architecture, encoding,
outputs, level settings, cube settings; strength null until ``bgai grade --write``) into DIR,
by default ``exports/<name>``; ``bgai bench DIR pubeval`` or ``bgai.Opponent.load(DIR)`` play it.
"""

from __future__ import annotations

import argparse


def register(subparsers: argparse._SubParsersAction) -> None:
    from bgai.opponent.levels import LEVELS

    parser = subparsers.add_parser(
        "export",
        help="write a checkpoint at a strength level as a shareable opponent (safetensors + bgai.json)",
        description="Export a trained network played at a named level as a folder holding "
        "model.safetensors and bgai.json, loadable with bgai.Opponent.load without the training "
        f"code. Levels, weakest first: {', '.join(LEVELS)}.",
    )
    parser.add_argument("checkpoint", help="a bgai checkpoint file, or best (checkpoints/best.pt)")
    parser.add_argument("--level", required=True, help=f"strength level: {'|'.join(LEVELS)}")
    parser.add_argument("-o", "--out", metavar="DIR", help="output folder (default exports/<name>)")
    parser.add_argument("--name", help="the opponent's name (default bgai-<level>-v1)")
    parser.add_argument(
        "--noise-seed", type=int, default=0, help="seed of the deterministic noise (default 0)"
    )
    parser.add_argument("--onnx", action="store_true", help="also write model.onnx (needs onnx, onnxscript)")
    parser.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    from pathlib import Path

    from bgai.opponent.export import default_name, export_opponent

    name = args.name or default_name(args.level)
    out = Path(args.out) if args.out else Path("exports") / name
    folder = export_opponent(args.checkpoint, args.level, out, name, args.noise_seed, args.onnx)
    files = ", ".join(sorted(f.name for f in folder.iterdir() if not f.name.startswith(".")))
    print(f"exported {name} to {folder} ({files})")
    print(f"grade it: bgai grade {folder} --write")
    return 0
