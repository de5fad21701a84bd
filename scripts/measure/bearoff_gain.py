"""What the exact bear-off databases add: bear-off move errors of a net with and without them.

    python scripts/measure/bearoff_gain.py [--player best] [--positions 3000] [--seed 1]

Positions: both sides bearing off, each with 1-15 checkers spread at random over its home
points (seeded). Each player chooses a move at 0-ply; the judge is gnubg's
0-ply evaluation, which in these positions reads gnubg's own bear-off databases. Prints the
mean cubeless equity lost per decision (x 1000) for the net alone and for the net with the
databases, over all decisions and over those where the two choices differ.
"""

from __future__ import annotations

import argparse

import gnubg_nn
import numpy as np
import torch

from bgai.cli.main import run_script
from bgai.engine import expand, game_value
from bgai.specs import load_player


def gnubg_equity_after(afterstate: np.ndarray) -> float:
    """Cubeless equity for the player who just moved, by gnubg 0-ply (exact once the game is over)."""
    if afterstate[1].sum() == 0:
        return float(game_value(afterstate))
    opp = gnubg_nn.probabilities([list(map(int, r)) for r in afterstate[::-1]], 0)
    win, wg, wbg, lg, lbg = opp
    return -(2 * win - 1 + wg - lg + wbg - lbg)


def random_bearoffs(n: int, seed: int) -> tuple[torch.Tensor, torch.Tensor]:
    gen = torch.Generator().manual_seed(seed)
    boards = torch.zeros((n, 2, 25), dtype=torch.int8)
    for side in (0, 1):
        count = torch.randint(1, 16, (n,), generator=gen)
        points = torch.randint(0, 6, (n, 15), generator=gen)
        used = torch.arange(15)[None, :] < count[:, None]
        boards[:, side, :6] = (torch.nn.functional.one_hot(points, 6) * used[..., None]).sum(1).to(torch.int8)
    return boards, torch.randint(1, 7, (n, 2), generator=gen)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--player", default="best")
    parser.add_argument("--positions", type=int, default=3000)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    torch.set_num_threads(1)

    boards, dice = random_bearoffs(args.positions, args.seed)
    net = load_player(f"{args.player}:nodb")
    with_db = load_player(args.player)
    chosen = {"net alone": net.choose(boards, dice), "net + databases": with_db.choose(boards, dice)}

    children, parent = expand(boards, dice)
    best = np.full(len(boards), -np.inf)
    for child, p in zip(children.numpy(), parent.tolist(), strict=True):
        best[p] = max(best[p], gnubg_equity_after(child))
    differ = (chosen["net alone"] != chosen["net + databases"]).flatten(1).any(1).numpy()
    print(
        f"{len(boards)} bear-off decisions (both sides home), judge gnubg 0-ply (bear-off databases); "
        f"the two choices differ in {differ.sum()}"
    )
    for name, after in chosen.items():
        loss = best - np.array([gnubg_equity_after(a) for a in after.numpy()])
        print(
            f"{name:16s} equity lost per decision x1000: {1000 * loss.mean():.2f} "
            f"(where the choices differ: {1000 * loss[differ].mean() if differ.any() else 0:.1f})"
        )


if __name__ == "__main__":
    run_script(main)
