"""Where a player loses equity against another: error rates per position class, judged on the same positions.

    python scripts/study/where_errors.py --players best,best@2ply,gnubg --games 400 --positions 4000 --seed 1

Plays ``--games`` cubeless money games of the first player against ``--opponent`` (default:
the last player; duplicate dice), pools the unforced checker-play decisions of both sides
(the positions such games reach), draws ``--positions`` of them (seeded), lets every player
choose its move in each, and has the judge (gnubg 2-ply when installed,
:func:`bgai.specs.load_judge`) say the equity each choice gives away. Prints, per class of
:func:`bgai.train.positions.classify`: the share of the positions, each player's error rate
(equity lost per decision x 1000, 95 % interval) and each player's paired difference from the
last player, with its share of the whole difference: the classes where the net's training
should go.

With ``--database DB`` the decisions are instead ``--positions`` held-out positions of a
position database (``--classes``, e.g. ``backgame``: the positions games rarely reach), each
with a seeded random roll.
"""

from __future__ import annotations

import argparse

import numpy as np
import torch

from bgai.bench import duel
from bgai.cli.main import run_script
from bgai.engine.dice import roll
from bgai.opponent.grade import Decisions, choices_of, decisions_of, sample, unforced
from bgai.specs import load_judge, load_player
from bgai.stats import mean_ci95
from bgai.train.positions import CLASSES, PositionDatabase, classify


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--players", default="best,gnubg", help="player specs; the last is the reference")
    parser.add_argument("--games", type=int, default=400, help="games of the first player and --opponent")
    parser.add_argument(
        "--opponent", help="the first player's opponent in those games (default: the last player)"
    )
    parser.add_argument("--positions", type=int, default=4000, help="decisions judged per player")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--judge", help="judge spec (default gnubg@2ply if installed)")
    parser.add_argument("--database", help="judge held-out positions of this database instead of games")
    parser.add_argument("--classes", default="", help="--database: only these classes, comma separated")
    parser.add_argument("--threads", type=int, default=1)
    args = parser.parse_args(argv)
    torch.set_num_threads(args.threads)

    players = [load_player(spec) for spec in args.players.split(",")]
    if len(players) < 2:
        parser.error("--players needs at least two players")
    judge = load_judge(args.judge)
    if args.database:
        pool = _held_out_decisions(args.database, args.classes, args.seed)
        source = f"held-out positions of {args.database} ({args.classes or 'all classes'}) with random rolls"
    else:
        opponent = load_player(args.opponent) if args.opponent else players[-1]
        logs = duel(players[0], opponent, args.games, seed=args.seed, record=True).logs
        pool = Decisions.concat([decisions_of(logs, side) for side in "AB"])
        source = f"{args.games} games of {players[0].name} vs {opponent.name}"
    pool = pool.subset(torch.nonzero(unforced(pool)).flatten())
    positions = sample(pool, args.positions, args.seed)
    klass = classify(positions.boards)
    lost = [judge.equity_lost(choices_of(p, positions)) for p in players]

    reference = players[-1].name
    print(
        f"judged by {judge.name}; {len(positions)} unforced decisions from {source}, seed {args.seed}; "
        "error rates x 1000"
    )
    head = " | ".join(p.name for p in players)
    diffs = " | ".join(f"{p.name} − {reference} (share of total)" for p in players[:-1])
    print(f"| class | positions | {head} | {diffs} |")
    print("|---|---:|" + "---:|" * (2 * len(players) - 1))
    total = [lost[k] - lost[-1] for k in range(len(players) - 1)]
    for code, name in [*enumerate(CLASSES), (None, "all")]:
        mask = np.ones(len(klass), bool) if code is None else klass == code
        if not mask.any():
            continue
        rates = " | ".join(_rate(x[mask]) for x in lost)
        parts = []
        for d in total:
            share = d[mask].sum() / d.sum() if d.sum() else float("nan")
            parts.append(f"{_rate(d[mask], signed=True)} ({100 * share:.0f} %)")
        print(f"| {name} | {mask.sum()} ({100 * mask.mean():.0f} %) | {rates} | {' | '.join(parts)} |")
    return 0


def _held_out_decisions(folder: str, classes: str, seed: int) -> Decisions:
    """The held-out positions of a database (of ``classes``), each with a seeded roll."""
    boards = torch.as_tensor(PositionDatabase.load(folder).part_boards(classes, held_out=True))
    dice = roll(len(boards), torch.Generator().manual_seed(seed))
    return Decisions(boards, dice, boards.clone())  # ``chosen`` is filled in by each player


def _rate(lost: np.ndarray, signed: bool = False) -> str:
    mean, ci = mean_ci95(lost)
    return f"{1000 * mean:{'+' if signed else ''}.2f} ± {1000 * ci:.2f}"


if __name__ == "__main__":
    run_script(main)
