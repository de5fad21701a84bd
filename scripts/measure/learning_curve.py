"""A run's learning curve: ppg against pubeval by games and by wall-clock time.

    python scripts/measure/learning_curve.py RUN_DIR [--png FILE]

Reads ``progress.curve`` from the run's ``latest.pt`` (one row per evaluation: games, wall
seconds, ppg, 95 % half-width), prints it as a markdown table and optionally plots it.
"""

from __future__ import annotations

import argparse
from pathlib import Path

from bgai.cli.main import run_script
from bgai.model.checkpoint import load_checkpoint


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("run", type=Path)
    parser.add_argument("--png", type=Path)
    args = parser.parse_args()
    curve = load_checkpoint(args.run / "latest.pt")["progress"]["curve"]
    print("| games | wall-clock | ppg vs pubeval | 95% CI |")
    print("|---:|---:|---:|---:|")
    for games, wall, ppg, ci in curve:
        print(f"| {int(games):,} | {wall / 60:.0f} min | {ppg:+.3f} | ±{ci:.3f} |")
    if args.png:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt

        games, wall, ppg, ci = zip(*curve, strict=True)
        fig, axes = plt.subplots(1, 2, figsize=(10, 3.5), sharey=True)
        axes[0].errorbar([g / 1000 for g in games], ppg, yerr=ci, marker="o", capsize=3)
        axes[0].set_xlabel("self-play games (thousands)")
        axes[1].errorbar([w / 60 for w in wall], ppg, yerr=ci, marker="o", capsize=3)
        axes[1].set_xlabel("wall-clock minutes (2 shared cores)")
        axes[0].set_ylabel("points per game vs pubeval")
        for ax in axes:
            ax.axhline(0, color="grey", lw=0.5)
            ax.grid(alpha=0.3)
        fig.tight_layout()
        fig.savefig(args.png, dpi=110)


if __name__ == "__main__":
    run_script(main)
