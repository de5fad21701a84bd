"""``bgai train CONFIG [key=value ...] [--resume RUN]``: TD(lambda) self-play training."""

from __future__ import annotations

import argparse


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "train",
        help="train a network by TD(lambda) self-play",
        description="Train a network by TD(lambda) self-play from a TOML config, with key=value "
        "overrides (e.g. games=50000 lr=0.003 hidden=[128]). Prints the run folder; "
        "TensorBoard logs and checkpoints go there. Multi-process: "
        "torchrun --nproc_per_node N -m bgai train CONFIG threads=1",
    )
    parser.add_argument("config", nargs="?", help="TOML config file (e.g. configs/quick.toml); "
                        "without one the built-in defaults are used")
    parser.add_argument("overrides", nargs="*", metavar="key=value", help="config overrides")
    parser.add_argument("--resume", metavar="RUN", help="continue the run in this folder exactly")
    parser.add_argument("--device", help="cpu or cuda (overrides the config)")
    parser.add_argument("--help-config", action="store_true", help="list every config key and exit")
    parser.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    from bgai.train.config import field_help, parse_overrides

    if args.help_config:
        from bgai.train.config import FIELDS

        for key, text in field_help().items():
            field = FIELDS[key]
            default = field.default_factory() if callable(field.default_factory) else field.default
            print(f"{key} = {default!r}\n    {text}")
        return 0
    config, overrides = args.config, list(args.overrides)
    if config is not None and "=" in config:  # only overrides given
        overrides.insert(0, config)
        config = None
    values = parse_overrides(overrides)
    if args.device:
        values["device"] = args.device
    from bgai.train.loop import train

    train(config, values, resume=args.resume)
    return 0
