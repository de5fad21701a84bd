"""Who misplays back games? Judged back games played out with one player per side.

    python scripts/study/backgame_play.py checkpoints/judges/backgames.npz --positions 100 \
        --trials 144 --source backgame --pairs best/best,gnubg/best,best/gnubg

A net that undervalues back games against gnubg's rollouts (scripts/study/judge_set.py)
may evaluate them wrongly, or play them differently from gnubg, so that its own rollouts agree
with it. This plays each of the judge set's first ``--positions`` positions after ``--skip`` (of
``--source``: ``selfplay``, ``backgame`` or ``all``) ``--trials`` times to the end, cubeless,
with player A moving for the side that holds the back game at the start and player B for the
other (``A/B``; bgai specs at their plies, ``best@1ply`` for 1-ply play, ``gnubg`` for gnubg's
0-ply net), and prints the back-game side's mean result per pair with its 95 % interval over
positions, and each pair's paired difference from the first pair (the same dice: trial t of a
position rolls the same in every pair while the games stay alike). ``gnubg/gnubg`` is the
judge's own game; the judge's values are printed beside.
"""

from __future__ import annotations

import argparse

import numpy as np
import torch

from bgai.bots import evaluator_of
from bgai.cli.main import run_script
from bgai.engine.board import game_value, swap_sides
from bgai.rollout.dice import trial_dice
from bgai.search.ply import choose_moves
from bgai.specs import load_player
from bgai.stats import format_ci95
from bgai.train.positions import SOURCES, backgame_sides


def play_out(players, roots: torch.Tensor, holder_on_roll: np.ndarray, trials: int, seed: int) -> np.ndarray:
    """``(positions,)`` mean points won by the side holding the back game: ``players[0]`` moves
    for it and ``players[1]`` for the other side (each an ``evaluator_of`` triple: evaluator,
    plies, move filter), ``trials`` games from each root."""
    n = len(roots)
    root = np.repeat(np.arange(n), trials)
    trial = np.tile(np.arange(trials), n)
    boards = roots[root].clone()
    points = np.zeros(len(root))  # for the root's player on roll
    live, ply = np.arange(len(root)), 0
    while len(live):
        dice = torch.as_tensor(trial_dice(seed + root[live], trial[live], ply))
        holder_moves = (ply % 2 == 0) == holder_on_roll[root[live]]
        after = torch.empty_like(boards[live])
        for mask, player in ((holder_moves, players[0]), (~holder_moves, players[1])):
            if mask.any():
                evaluator, plies, move_filter = player
                rows = torch.as_tensor(np.flatnonzero(mask))
                chosen = choose_moves(evaluator, boards[live][rows], dice[rows], plies, move_filter)
                after[rows] = chosen.to(after.dtype)
        won = np.asarray(game_value(after), dtype=np.int64)
        over = won > 0
        points[live[over]] = won[over] * (1 if ply % 2 == 0 else -1)
        keep = torch.as_tensor(np.flatnonzero(~over))
        live = live[~over]
        boards[torch.as_tensor(live)] = swap_sides(after[keep])
        ply += 1
    side = np.where(holder_on_roll, 1.0, -1.0)
    return points.reshape(n, trials).mean(1) * side


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("judge", help="a judge file of scripts/study/judge_set.py")
    parser.add_argument("--positions", type=int, default=100)
    parser.add_argument("--skip", type=int, default=0, help="start after this many positions (shards)")
    parser.add_argument("--trials", type=int, default=144)
    parser.add_argument("--source", default="all", choices=["all", *SOURCES])
    parser.add_argument("--pairs", default="best/best,gnubg/best,best/gnubg", help="A/B, comma separated")
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args(argv)
    if args.skip < 0 or args.positions < 1 or args.trials < 1:
        parser.error("--skip must not be negative, --positions and --trials at least 1")
    with np.load(args.judge) as judged:
        keep = np.ones(len(judged["equity"]), bool)
        if args.source != "all":
            keep = judged["source"] == SOURCES.index(args.source)
        rows = np.flatnonzero(keep)[args.skip : args.skip + args.positions]
        roots = torch.as_tensor(judged["boards"][rows])
        judge = judged["equity"][rows]
    holder_on_roll = backgame_sides(roots)[:, 1].numpy()
    players = {}  # spec -> (evaluator, plies, move filter)
    for spec in {s for pair in args.pairs.split(",") for s in pair.split("/")}:
        players[spec] = evaluator_of(load_player(spec), "playing back games")
    print(
        f"{len(rows)} back games of {args.judge} ({args.source}), {args.trials} trials each; "
        "mean points for the side holding the back game"
    )
    print(f"gnubg's rollouts (the judge): {format_ci95(np.where(holder_on_roll, judge, -judge))}")
    print("| back-game side / other side | mean result | paired with the first pair |")
    print("|---|---:|---:|")
    first = None
    for pair in args.pairs.split(","):
        a, b = pair.split("/")
        result = play_out((players[a], players[b]), roots, holder_on_roll, args.trials, args.seed)
        paired = "" if first is None else format_ci95(result - first)
        first = result if first is None else first
        print(f"| {a} / {b} | {format_ci95(result)} | {paired} |", flush=True)


if __name__ == "__main__":
    run_script(main)
