"""``bgai train CONFIG [key=value ...] [--resume RUN] [--processes N]``: TD(lambda) self-play training.

``--processes N`` starts N data-parallel processes on this machine, as ``torchrun --standalone
--nproc_per_node N -m bgai train ...`` does (it uses torchrun's own launcher), but a Ctrl-C or a
SIGTERM ends it as it ends one process: every process saves, one line says how to resume, and
the exit code is the signal's (torchrun itself prints a traceback for the signal).
"""

from __future__ import annotations

import argparse


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "train",
        help="train a network by TD(lambda) self-play",
        description="Train a network by TD(lambda) self-play from a TOML config, with key=value "
        "overrides (e.g. games=50000 lr=0.003 hidden=[128]). Prints the run folder; "
        "TensorBoard logs and checkpoints go there; at the end it prints the commands that bench, play "
        "and export the network. Ctrl-C or SIGTERM saves, and --resume continues.",
    )
    parser.add_argument(
        "config",
        nargs="?",
        help="TOML config file (e.g. configs/quick.toml); without one the built-in defaults are used",
    )
    parser.add_argument("overrides", nargs="*", metavar="key=value", help="config overrides")
    parser.add_argument("--resume", metavar="RUN", help="continue the run in this folder exactly")
    parser.add_argument("--device", help="cpu or cuda (overrides the config)")
    parser.add_argument(
        "--processes",
        type=int,
        default=1,
        metavar="N",
        help="data-parallel processes on "
        "this machine (default 1; as torchrun --standalone --nproc_per_node N)",
    )
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
    if args.processes < 1:
        raise ValueError(f"--processes must be at least 1, got {args.processes}")
    if args.processes > 1:
        return _launch(args.processes, config, overrides, args.resume, args.device)
    from bgai.train.loop import Stopped, train

    try:
        train(config, values, resume=args.resume)
    except Stopped as stopped:  # saved, and said how to resume: the shell's code for the signal
        return 128 + stopped.signum
    return 0


def _launch(
    processes: int, config: str | None, overrides: list[str], resume: str | None, device: str | None
) -> int:
    """Run ``bgai train`` in ``processes`` processes with torchrun's launcher; each process prints
    its own errors and its stop message, so a failure or a signal here is one exit code."""
    import logging
    from pathlib import Path

    from torch.distributed.elastic.multiprocessing.api import SignalException
    from torch.distributed.elastic.multiprocessing.errors import ChildFailedError
    from torch.distributed.run import parse_args
    from torch.distributed.run import run as torchrun

    from bgai.train.config import load_config, parse_overrides

    # the mistakes one process would report, before starting any
    if resume is None:
        load_config(config, parse_overrides(overrides))
    elif not (Path(resume) / "config.toml").is_file():
        raise ValueError(f"cannot resume {resume}: no config.toml there")
    worker = [
        *([config] if config else []),
        *overrides,
        *(["--resume", resume] if resume else []),
        *(["--device", device] if device else []),
    ]
    for name in list(logging.Logger.manager.loggerDict):  # its warnings say what the processes say
        if name.startswith("torch.distributed.elastic"):
            logging.getLogger(name).setLevel(logging.ERROR)
    try:
        torchrun(
            parse_args(["--standalone", f"--nproc-per-node={processes}", "-m", "bgai", "train", *worker])
        )
    except SignalException as stopped:  # the processes saved and said how to resume
        return 128 + int(stopped.sigval)
    except ChildFailedError as failed:  # the process printed why (a one-line error or a traceback)
        codes = [f.exitcode for f in failed.failures.values()]
        return next((code for code in codes if 0 < code < 256), 1)
    return 0
