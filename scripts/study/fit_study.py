"""How close can a network of a given shape get to gnubg's evaluations? (a diagnostic; needs gnubg)

    python scripts/study/fit_study.py --nets rich:128,rich_plus:128,tesauro198:128 --positions 300000

Self-play training can only be as accurate as the network's inputs and size allow. This
separates that limit from the training: each net is fitted by plain supervised regression to
gnubg's 0-ply probabilities on the same contact positions (from games of ``--player`` against
itself), and its mean absolute error per output is measured on held-out positions (against
gnubg 0-ply) and on the cube-quality positions (against gnubg 2-ply, as the cube judge sees
them). A net spec is ``ENCODING:HIDDEN[xHIDDEN...]``, or ``init:CHECKPOINT`` to fine-tune a
trained net (``init:CHECKPOINT@ENCODING`` grows it into that encoding first). With
``--database`` the positions are a sample of a ``bgai data`` database's non-race ones instead
(its back-game set-ups included), and each epoch's line adds the held-out cubeless equity
error per position class: can such a net even represent gnubg's back-game values? Nothing here
ships: ``--save-dir`` keeps the fitted nets as checkpoints only so that
``scripts/measure/cube_quality.py`` can measure what such a net's cube decisions would be worth.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np
import torch

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "measure"))  # cube_quality's positions
from cube_quality import candidate_boards, selfplay_boards  # noqa: E402

from bgai.cli.main import run_script  # noqa: E402
from bgai.engine.board import is_race  # noqa: E402
from bgai.model.checkpoint import FORMAT, load_net, save_atomic  # noqa: E402
from bgai.model.grow import grow  # noqa: E402
from bgai.model.net import ValueNet  # noqa: E402
from bgai.model.probs import cubeless_equity  # noqa: E402
from bgai.search.evaluator import GnubgEvaluator  # noqa: E402
from bgai.train.positions import CLASSES, PositionDatabase  # noqa: E402

OUTPUTS = ("win", "win g", "win bg", "lose g", "lose bg")


def contact_positions(player: str, n: int, seed: int) -> torch.Tensor:
    games = min(1024, max(16, n // 256))  # every game starts alike: enough turns for variety
    boards = selfplay_boards(player, int(1.6 * n), seed, games=games)
    boards = boards[~is_race(boards)]
    _, first = np.unique(boards.reshape(len(boards), -1).numpy(), axis=0, return_index=True)
    return boards[np.sort(first)][:n]


def database_positions(path: str, n: int, seed: int) -> tuple[torch.Tensor, np.ndarray]:
    """A seeded sample of ``n`` of the database's non-race, non-bear-off positions, and their classes."""
    db = PositionDatabase.load(path)
    rows = np.flatnonzero(np.isin(db.klass, [CLASSES.index(k) for k in ("contact", "crashed", "backgame")]))
    rows = np.sort(np.random.default_rng(seed).permutation(rows)[:n])
    return torch.as_tensor(db.boards[rows]), db.klass[rows]


def make(spec: str) -> ValueNet:
    kind, _, rest = spec.partition(":")
    if kind == "init":
        path, _, encoding = rest.partition("@")
        net = load_net(path).train()
        if encoding:
            grown = ValueNet(encoding, net.hidden, net.activation, net.checkers)
            grow(net, grown)
            net = grown
        return net
    return ValueNet(kind, [int(h) for h in rest.split("x")])


def fit(net: ValueNet, boards, targets, train_rows, epochs: int, lr: float, report) -> None:
    x = net.encoding(boards.long(), net.checkers)
    optimizer = torch.optim.Adam(net.parameters(), lr=lr)
    batch = min(256, len(train_rows))
    steps = epochs * (len(train_rows) // batch)
    schedule = torch.optim.lr_scheduler.LambdaLR(optimizer, lambda s: 1 - s / steps)
    for epoch in range(epochs):
        order = train_rows[torch.randperm(len(train_rows))]
        for i in range(0, len(order) - batch + 1, batch):
            rows = order[i : i + batch]
            loss = (net.forward_encoded(x[rows]) - targets[rows]).square().sum(1).mean()
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            schedule.step()
        report(epoch + 1)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--nets", default="rich:128,rich_plus:128,tesauro198:128")
    parser.add_argument("--positions", type=int, default=300_000)
    parser.add_argument("--held-out", type=int, default=20_000)
    parser.add_argument("--epochs", type=int, default=6)
    parser.add_argument("--lr", type=float, default=3e-3, help="Adam, decaying linearly to 0 (init: / 10)")
    parser.add_argument("--player", default="best", help="who plays the games the positions come from")
    parser.add_argument("--cube-positions", type=int, default=1000, help="cube_quality's positions (seed 1)")
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--save-dir", type=Path, help="keep each fitted net there as a checkpoint")
    parser.add_argument("--database", help="take the positions from this bgai data database instead")
    args = parser.parse_args()
    torch.set_num_threads(1)
    torch.manual_seed(args.seed)
    t0 = time.perf_counter()
    if args.database:
        boards, klass = database_positions(args.database, args.positions, args.seed)
    else:
        boards, klass = contact_positions(args.player, args.positions, args.seed), None
    targets = GnubgEvaluator(0).evaluate(boards)
    cube = candidate_boards(
        argparse.Namespace(
            positions=args.cube_positions, source="selfplay", selfplay="gnubg:advanced", seed=1
        )
    )
    cube = cube[~is_race(cube)]
    cube_targets = GnubgEvaluator(2).evaluate(cube)
    order = torch.randperm(len(boards))
    held, train_rows = order[: args.held_out], order[args.held_out :]
    print(f"{len(boards)} non-race positions, {len(cube)} cube positions ({time.perf_counter() - t0:.0f} s)")
    print(f"mean absolute error per output ({', '.join(OUTPUTS)})")

    def errors(net, b, y) -> str:
        with torch.no_grad():
            return np.array2string((net(b).float() - y).abs().mean(0).numpy(), precision=4)

    def class_errors(net) -> str:
        if klass is None:
            return ""
        with torch.no_grad():
            gap = (cubeless_equity(net(boards[held]).float()) - cubeless_equity(targets[held])).abs().numpy()
        k = klass[held.numpy()]
        return "  equity error " + ", ".join(
            f"{name} {gap[k == i].mean():.4f}" for i, name in enumerate(CLASSES) if (k == i).any()
        )

    for spec in args.nets.split(","):
        net = make(spec)
        lr = args.lr / 10 if spec.startswith("init:") else args.lr

        def report(epoch: int, net=net, spec=spec) -> None:
            held_out = errors(net, boards[held], targets[held])
            print(
                f"{spec:<24} epoch {epoch}: held out vs gnubg 0-ply {held_out}"
                f"  cube positions vs 2-ply {errors(net, cube, cube_targets)}{class_errors(net)}",
                flush=True,
            )

        report(0)
        fit(net, boards, targets, train_rows, args.epochs, lr, report)
        if args.save_dir:
            name = spec.replace("/", "_").replace(":", "-").replace("@", "-")
            save_atomic(
                {"format": FORMAT, "net_spec": net.spec(), "model": net.state_dict()},
                args.save_dir / f"fitted-{name}.pt",
            )


if __name__ == "__main__":
    run_script(main)
