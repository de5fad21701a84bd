"""``bgai train``: TD(lambda) self-play, read top to bottom.

Single process::

    bgai train configs/quick.toml games=5000

Several processes (data-parallel self-play, synchronised updates; gloo on CPU, nccl on GPU)::

    torchrun --nproc_per_node 2 -m bgai train configs/quick.toml threads=1

Each process plays its own ``parallel_games`` games and buffers the finished games'
(position, lambda-return) rows. Every turn the processes agree (one all-gather) on how many
rows the one with the fewest has ready; each then takes that many of its oldest rows, in
minibatches of ``batch_positions``, and per minibatch the gradients are all-reduced, so every
process applies the same update to the same weights with equal work (nobody waits on a bigger
share). Leftover rows wait for the next update. A checkpoint (``latest.pt`` plus ``ckpt_<games>.pt``,
written atomically) holds the weights, optimiser, counters, every RNG state and the running
games, so ``--resume`` continues exactly; Ctrl-C saves before exiting.
"""

from __future__ import annotations

import dataclasses
import os
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import torch
import torch.distributed as dist

from bgai.model.checkpoint import (
    FORMAT,
    checkpoint_path,
    load_checkpoint,
    load_net,
    net_from_checkpoint,
    save_atomic,
)
from bgai.model.grow import grow
from bgai.model.net import SplitNet, ValueNet, build_net
from bgai.train.config import TrainConfig, load_config, to_toml
from bgai.train.selfplay import SelfPlay


@dataclass
class Progress:
    games: int = 0
    turns: int = 0
    updates: int = 0
    wall_seconds: float = 0.0
    last_eval_games: int = 0
    last_checkpoint_games: int = 0
    curve: list[list[float]] = field(default_factory=list)  # [games, wall_s, ppg, ci95]


def make_net(cfg: TrainConfig) -> ValueNet | SplitNet:
    spec = {"kind": "value_net", "encoding": cfg.encoding, "hidden": cfg.hidden, "activation": cfg.activation}
    if cfg.split_race:
        return build_net({"kind": "split_net", "contact": spec, "race": dict(spec)})
    return build_net(spec)


def train(config_path: str | None, overrides: dict[str, Any], resume: str | None = None,
          log=print) -> Path:
    """Run (or resume) a training run; returns the run folder."""
    rank, world = _init_distributed()
    run_dir, cfg = _setup_run(config_path, overrides, resume, rank)
    if cfg.threads:
        torch.set_num_threads(cfg.threads)
    device = torch.device(cfg.device)
    if device.type == "cuda" and not torch.cuda.is_available():
        raise ValueError("device cuda requested but torch sees no CUDA device")

    torch.manual_seed(cfg.seed)
    net = make_net(cfg)
    if cfg.init and resume is None:
        grow(load_net(checkpoint_path(cfg.init)), net)
    net = net.to(device)
    optimizer = _make_optimizer(cfg, net)
    generator = torch.Generator().manual_seed(cfg.seed * 1000 + rank)
    selfplay = SelfPlay(cfg.parallel_games, cfg.variant, cfg.lam, cfg.exploration, generator, device)
    progress = Progress()
    buffer: list[tuple[torch.Tensor, torch.Tensor]] = []

    latest = run_dir / _state_file(rank)
    if resume is not None:
        ckpt = load_checkpoint(run_dir / "latest.pt")
        if rank:  # this process's own games, dice and buffer
            own = load_checkpoint(latest)
            ckpt = {**ckpt, **{k: own[k] for k in ("rng", "selfplay", "buffer", "optimizer") if k in own}}
        _restore(ckpt, net, optimizer, generator, selfplay, progress, buffer, cfg, device)
        if rank == 0:
            log(f"resumed {run_dir} at {progress.games} games")

    writer = _writer(run_dir) if rank == 0 else None
    if rank == 0:
        log(f"run folder: {run_dir}")
        log(f"watch it with: tensorboard --logdir {run_dir.parent}")
    bar = _progress_bar(cfg, progress, rank)
    started = time.perf_counter() - progress.wall_seconds
    window = [time.perf_counter(), progress.games, 0, 0, 0.0, 0]  # t, games, turns, gammons, td, positions

    def save() -> None:
        progress.wall_seconds = time.perf_counter() - started
        _save(run_dir, rank, cfg, net, optimizer, generator, selfplay, progress, buffer)

    turn, pending = 0, torch.zeros(3)  # with average_every: games, turns, gammons since the last average
    try:
        while progress.games < cfg.games:
            finished = selfplay.play_turn(net)
            if finished.games:
                buffer.append((finished.boards, finished.returns))
            if cfg.average_every:  # own steps; weights averaged every average_every turns
                ready = sum(len(b) for b, _ in buffer)
                pending += torch.tensor([finished.games, finished.turns, finished.gammons])
                sharing = 1
            else:
                ready, games, turns, gammons = _agree(buffer, finished, world, device)
                sharing = world
            steps = ready // cfg.batch_positions
            if steps:
                boards, targets = _take(buffer, steps * cfg.batch_positions, generator)
                td = td_update(cfg, net, optimizer, boards, targets, progress, sharing)
                window[4] += td * len(boards) * sharing
                window[5] += len(boards) * sharing
                progress.updates += 1
            if cfg.average_every:
                turn += 1
                if turn % cfg.average_every:
                    continue
                games, turns, gammons = _average(net, pending, world)
                pending.zero_()
            progress.games += games
            progress.turns += turns
            window[2] += turns
            window[3] += gammons
            if bar is not None:
                bar.update(games)

            if writer is not None and progress.games - window[1] >= max(100, cfg.parallel_games // 2):
                window = _log_scalars(writer, bar, progress, window, optimizer)
            if cfg.eval_every and progress.games - progress.last_eval_games >= cfg.eval_every:
                _evaluate(cfg, net, progress, writer, bar, rank, world, started)
            if progress.games - progress.last_checkpoint_games >= cfg.checkpoint_every:
                progress.last_checkpoint_games = progress.games
                save()
        if cfg.eval_every and progress.last_eval_games != progress.games:
            _evaluate(cfg, net, progress, writer, bar, rank, world, started)
        save()
    except KeyboardInterrupt:
        save()
        if rank == 0:
            log(f"\ninterrupted: saved {run_dir / 'latest.pt'} at {progress.games} games; "
                f"continue with: bgai train --resume {run_dir}")
    finally:
        if bar is not None:
            bar.close()
        if writer is not None:
            writer.close()
    if rank == 0:
        log(f"done: {progress.games} games in {progress.wall_seconds:.0f} s; "
            f"checkpoint {run_dir / 'latest.pt'}")
    return run_dir


# --- one update -------------------------------------------------------------------------------------

def td_update(cfg, net, optimizer, boards, targets, progress, world) -> float:
    """One gradient step per ``batch_positions`` rows of (``boards``, ``targets``), in order.

    Every process passes the same number of rows, so every step weighs the same number of
    positions everywhere: the loss is the squared error over the step's positions of all
    processes divided by their number, the gradients are summed by an all-reduce, and all
    processes apply identical updates. Returns the mean squared TD error (per output).
    """
    device = next(net.parameters()).device
    boards, targets = boards.to(device), targets.to(device)
    lr = cfg.lr + (cfg.lr_final - cfg.lr) * min(progress.games / cfg.games, 1.0)
    for group in optimizer.param_groups:
        group["lr"] = lr
    params = list(net.parameters())
    if isinstance(net, ValueNet):  # encode every row once, not per step (small steps: overhead counts)
        inputs, forward = net.encoding(boards, net.checkers), net.forward_encoded
    else:
        inputs, forward = boards, net
    net.train()
    total = torch.zeros((), dtype=torch.float64, device=device)
    for chunk in range(0, len(boards), cfg.batch_positions):
        rows = slice(chunk, chunk + cfg.batch_positions)
        optimizer.zero_grad(set_to_none=True)
        squared = ((forward(inputs[rows]) - targets[rows]) ** 2).sum()
        (squared / (cfg.batch_positions * world)).backward()
        total += squared.detach()
        if world > 1:
            flat = torch.cat([p.grad.reshape(-1) for p in params])
            dist.all_reduce(flat)
            for p, g in zip(params, flat.split([p.numel() for p in params]), strict=True):
                p.grad = g.view_as(p)
        optimizer.step()
    net.eval()
    if world > 1:
        dist.all_reduce(total)
    return float(total) / max(len(boards) * world, 1) / 5


def _agree(buffer, finished, world, device) -> tuple[int, int, int, int]:
    """(positions ready on every process, games, turns, gammons finished by all) this turn.

    Updates use as many positions as the process with the fewest has ready, so that every
    step weighs the same work on every process (no process waits on a bigger share).
    """
    local = torch.tensor([sum(len(b) for b, _ in buffer), finished.games, finished.turns, finished.gammons],
                         dtype=torch.float64, device=device)  # nccl reduces device tensors only
    if world == 1:
        return tuple(int(v) for v in local)
    every = [torch.zeros_like(local) for _ in range(world)]
    dist.all_gather(every, local)
    every = torch.stack(every)
    sums = every[:, 1:].sum(0)
    return int(every[:, 0].min()), int(sums[0]), int(sums[1]), int(sums[2])


def _average(net, pending, world) -> tuple[int, int, int]:
    """Average the weights of all processes; returns the summed (games, turns, gammons) ``pending``."""
    params = [p.detach() for p in net.parameters()]
    flat = torch.cat([p.reshape(-1) for p in params] + [pending.to(params[0])])
    if world > 1:
        dist.all_reduce(flat)
        for p, mean in zip(params, flat[:-3].split([p.numel() for p in params]), strict=True):
            p.copy_(mean.view_as(p) / world)
    return tuple(int(v) for v in flat[-3:].round())


def _take(buffer, count, generator) -> tuple[torch.Tensor, torch.Tensor]:
    """The ``count`` oldest buffered (position, return) rows, shuffled; the rest stay buffered."""
    boards = torch.cat([b for b, _ in buffer])
    targets = torch.cat([r for _, r in buffer])
    buffer.clear()
    if count < len(boards):
        buffer.append((boards[count:], targets[count:]))
    order = torch.randperm(count, generator=generator).to(boards.device)
    return boards[:count][order], targets[:count][order]


def _make_optimizer(cfg: TrainConfig, net: torch.nn.Module) -> torch.optim.Optimizer:
    if cfg.optimizer == "sgd":
        return torch.optim.SGD(net.parameters(), lr=cfg.lr)
    # The fused kernel does the whole update in one call: a third of a small minibatch step's time.
    return torch.optim.Adam(net.parameters(), lr=cfg.lr, fused=True)


# --- evaluation and logging -------------------------------------------------------------------------

def _evaluate(cfg, net, progress, writer, bar, rank, world, started) -> None:
    """ppg against pubeval at 0-ply, duplicate dice, on rank 0 (the others wait)."""
    progress.last_eval_games = progress.games
    if rank == 0:
        from bgai.bench.duel import duel
        from bgai.bots.players import PubevalPlayer, SearchPlayer
        from bgai.search.evaluator import NetEvaluator

        me = SearchPlayer(NetEvaluator(net), plies=0)
        result = duel(me, PubevalPlayer(), games=cfg.eval_games, seed=cfg.seed + progress.games,
                      variant=cfg.variant)
        wall = time.perf_counter() - started
        progress.curve.append([progress.games, round(wall, 1), result.ppg, result.ci95])
        if writer is not None:
            writer.add_scalar("eval/vs_pubeval_ppg", result.ppg, progress.games)
            writer.add_scalar("eval/vs_pubeval_ppg_ci95", result.ci95, progress.games)
            writer.add_scalar("eval/vs_pubeval_ppg_by_seconds", result.ppg, int(wall))
        if bar is not None and not bar.disable:
            bar.set_postfix_str(f"vs_pubeval={result.ppg:+.3f}±{result.ci95:.3f}")
        else:
            print(f"games {progress.games}: vs pubeval {result.ppg:+.3f} ± {result.ci95:.3f} ppg", flush=True)
    if world > 1:
        dist.barrier()


def _log_scalars(writer, bar, progress, window, optimizer) -> list:
    now = time.perf_counter()
    t0, g0, turns, gammons, td_sum, positions = window
    games = progress.games - g0
    rate = games / max(now - t0, 1e-9)
    writer.add_scalar("charts/games_per_sec", rate, progress.games)
    writer.add_scalar("charts/moves_per_sec", turns / max(now - t0, 1e-9), progress.games)
    writer.add_scalar("charts/avg_game_len", turns / max(games, 1), progress.games)
    writer.add_scalar("charts/gammon_rate", gammons / max(games, 1), progress.games)
    writer.add_scalar("charts/lr", optimizer.param_groups[0]["lr"], progress.games)
    if positions:
        writer.add_scalar("losses/td_error", td_sum / positions, progress.games)
    if bar is not None and not bar.disable:
        bar.set_description(f"{rate:.0f} games/s")
    elif int(now) // 60 != int(t0) // 60:  # no terminal (a log file): one line a minute
        print(f"games {progress.games}: {rate:.0f} games/s, td_error {td_sum / max(positions, 1):.4f}",
              flush=True)
    return [now, progress.games, 0, 0, 0.0, 0]


def _writer(run_dir: Path):
    from torch.utils.tensorboard import SummaryWriter

    return SummaryWriter(str(run_dir))


def _progress_bar(cfg: TrainConfig, progress: Progress, rank: int):
    if rank != 0:
        return None
    from tqdm import tqdm

    return tqdm(total=cfg.games, initial=progress.games, unit="game", disable=None, dynamic_ncols=True)


# --- run folders, checkpoints, distributed ----------------------------------------------------------

def _init_distributed() -> tuple[int, int]:
    world = int(os.environ.get("WORLD_SIZE", "1"))
    if world > 1 and not dist.is_initialized():
        backend = "nccl" if torch.cuda.is_available() and os.environ.get("BGAI_BACKEND") != "gloo" else "gloo"
        dist.init_process_group(backend)
    return (dist.get_rank(), dist.get_world_size()) if world > 1 else (0, 1)


def _setup_run(config_path, overrides, resume, rank) -> tuple[Path, TrainConfig]:
    if resume is not None:
        run_dir = Path(resume)
        if not (run_dir / "config.toml").is_file():
            raise ValueError(f"cannot resume {run_dir}: no config.toml there")
        cfg = load_config(run_dir / "config.toml", overrides)
        return run_dir, cfg
    cfg = load_config(config_path, overrides)
    stamp = torch.tensor([int(time.time())], dtype=torch.long)
    if dist.is_initialized():
        dist.broadcast(stamp, 0)
    run_dir = Path(cfg.runs_dir) / f"{cfg.name}__{cfg.seed}__{int(stamp)}"
    if rank == 0:
        run_dir.mkdir(parents=True, exist_ok=True)
        (run_dir / "config.toml").write_text(to_toml(cfg))
    if dist.is_initialized():
        dist.barrier()
    return run_dir, cfg


def _state_file(rank: int) -> str:
    return "latest.pt" if rank == 0 else f"latest.rank{rank}.pt"


def _save(run_dir, rank, cfg, net, optimizer, generator, selfplay, progress, buffer) -> None:
    state = {
        "format": FORMAT,
        "net_spec": net.spec(),
        "config": dataclasses.asdict(cfg),
        "rng": {"dice": generator.get_state(), "torch": torch.get_rng_state()},
        "selfplay": selfplay.state_dict(),
        "buffer": {"boards": torch.cat([b for b, _ in buffer]) if buffer else torch.zeros((0, 2, 25),
                                                                                          dtype=torch.int8),
                   "returns": torch.cat([r for _, r in buffer]) if buffer else torch.zeros((0, 5))},
    }
    if rank == 0:
        state.update({
            "model": {k: v.cpu() for k, v in net.state_dict().items()},
            "optimizer": optimizer.state_dict(),
            "progress": dataclasses.asdict(progress),
        })
        save_atomic(state, run_dir / "latest.pt")
        save_atomic({k: state[k] for k in ("format", "net_spec", "model", "config", "progress")},
                    run_dir / f"ckpt_{progress.games}.pt")
    else:  # its own games, dice and optimiser; the weights too, so that their equality can be checked
        state["model"] = {k: v.cpu() for k, v in net.state_dict().items()}
        state["optimizer"] = optimizer.state_dict()
        save_atomic(state, run_dir / _state_file(rank))


def _restore(ckpt, net, optimizer, generator, selfplay, progress, buffer, cfg, device) -> None:
    loaded = net_from_checkpoint(ckpt, "latest.pt")
    if loaded.spec() != net.spec():
        raise ValueError("checkpoint architecture differs from the config")
    net.load_state_dict(loaded.state_dict())
    net.to(device)
    if "optimizer" not in ckpt or "selfplay" not in ckpt:
        raise ValueError("latest.pt is not a resumable training checkpoint (no optimiser or game state)")
    optimizer.load_state_dict(ckpt["optimizer"])
    generator.set_state(ckpt["rng"]["dice"])
    torch.set_rng_state(ckpt["rng"]["torch"])
    selfplay.load_state_dict(ckpt["selfplay"])
    for key, value in ckpt["progress"].items():
        setattr(progress, key, value)
    if len(ckpt["buffer"]["boards"]):
        buffer.append((ckpt["buffer"]["boards"].to(device), ckpt["buffer"]["returns"].to(device)))
