"""Join a contact net and a race net into one split network checkpoint.

    python scripts/build/join_split_net.py --contact best --race runs/fitR/a/best.pt -o runs/split.pt

A :class:`bgai.model.net.SplitNet` sends each board to the net of its phase: contact positions to
``--contact``, races to ``--race`` (a race search never leaves races, so a net fitted on race
labels alone, as ``bgai fit`` makes one, is a race net as it stands). Both are plain ``ValueNet``
checkpoints or shipped names; the output is written atomically, with where each half came from.
"""

from __future__ import annotations

import argparse
from pathlib import Path

from bgai.cli.main import run_script
from bgai.model.checkpoint import FORMAT, checkpoint_path, load_net, save_atomic
from bgai.model.net import SplitNet, ValueNet


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--contact", required=True, help="checkpoint or shipped name of the contact net")
    parser.add_argument("--race", required=True, help="checkpoint or shipped name of the race net")
    parser.add_argument("-o", "--out", type=Path, required=True)
    args = parser.parse_args(argv)
    halves = {}
    for role in ("contact", "race"):
        path = checkpoint_path(getattr(args, role))
        try:
            net = load_net(path)
        except (OSError, ValueError) as e:
            parser.error(str(e))
        if not isinstance(net, ValueNet):
            parser.error(f"--{role} {path} is already a split net: give its plain {role} net")
        halves[role] = (net, str(path))
    split = SplitNet(halves["contact"][0], halves["race"][0])
    sources = {role: source for role, (_, source) in halves.items()}
    save_atomic(
        {"format": FORMAT, "net_spec": split.spec(), "model": split.state_dict(), "joined": sources}, args.out
    )
    print(f"wrote {args.out}: contact {sources['contact']}, race {sources['race']}")
    return 0


if __name__ == "__main__":
    run_script(main)
