"""``bgai train``: TD(lambda) self-play, read top to bottom.

Single process::

    bgai train configs/quick.toml games=5000

Several processes (data-parallel self-play, synchronised updates; gloo on CPU, nccl on GPU)::

    torchrun --nproc_per_node 2 -m bgai train configs/quick.toml threads=1

Each process plays its own ``parallel_games`` games; every turn the processes agree (one
all-reduce) on whether enough returns are ready, and if so each computes the summed squared
error gradient over its own positions and the sums are all-reduced, so every process applies
the same update to the same weights. A checkpoint (``latest.pt`` plus ``ckpt_<games>.pt``,
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

from bgai.model.checkpoint import FORMAT, load_checkpoint, net_from_checkpoint, save_atomic
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
    net = make_net(cfg).to(device)
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
            ckpt = {**ckpt, **{k: own[k] for k in ("rng", "selfplay", "buffer")}}
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

    try:
        while progress.games < cfg.games:
            finished = selfplay.play_turn(net)
            if finished.games:
                buffer.append((finished.boards, finished.returns))
            local = torch.tensor([sum(len(b) for b, _ in buffer), finished.games, finished.turns,
                                  finished.gammons], dtype=torch.float64)
            if world > 1:
                dist.all_reduce(local)
            ready, games, turns, gammons = (int(v) for v in local)
            progress.games += games
            progress.turns += turns
            window[2] += turns
            window[3] += gammons
            if bar is not None:
                bar.update(games)
            if ready >= cfg.batch_positions * world:
                td = td_update(cfg, net, optimizer, buffer, ready, progress, world, generator)
                buffer.clear()
                window[4] += td * ready
                window[5] += ready
                progress.updates += 1

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

def td_update(cfg, net, optimizer, buffer, global_count, progress, world, generator) -> float:
    """Minibatch gradient steps over every buffered (position, return), each position used once.

    Every process takes the same number of steps (``global_count // (batch * world)``) over its
    own shuffled positions; each step's loss is divided by that step's position count over all
    processes (all-reduced once up front) and the gradients are summed by an all-reduce, so all
    processes apply identical updates. Returns the mean squared TD error.
    """
    device = next(net.parameters()).device
    boards = torch.cat([b for b, _ in buffer] or [torch.zeros((0, 2, 25), dtype=torch.int8)]).to(device)
    targets = torch.cat([r for _, r in buffer] or [torch.zeros((0, 5))]).to(device)
    order = torch.randperm(len(boards), generator=generator).to(device)
    steps = max(global_count // (cfg.batch_positions * world), 1)
    frac = min(progress.games / cfg.games, 1.0)
    for group in optimizer.param_groups:
        group["lr"] = cfg.lr + (cfg.lr_final - cfg.lr) * frac
    chunks = torch.tensor_split(order, steps)
    # Each step's gradient is the mean over the positions of all processes in that step.
    sizes = torch.tensor([float(len(c)) for c in chunks], dtype=torch.float64)
    if world > 1:
        dist.all_reduce(sizes)
    net.train()
    total = torch.zeros((), dtype=torch.float64)
    for chunk, size in zip(chunks, sizes.tolist(), strict=True):
        optimizer.zero_grad(set_to_none=True)
        if len(chunk):  # a process may have no positions ready: it still joins the all-reduce
            squared = ((net(boards[chunk]) - targets[chunk]) ** 2).sum()
            (squared / max(size, 1.0)).backward()
            total += squared.detach()
        if world > 1:
            params = list(net.parameters())
            grads = [torch.zeros_like(p) if p.grad is None else p.grad for p in params]
            flat = torch.cat([g.reshape(-1) for g in grads])
            dist.all_reduce(flat)
            for p, g in zip(params, flat.split([p.numel() for p in params]), strict=True):
                p.grad = g.view_as(p)
        optimizer.step()
    net.eval()
    if world > 1:
        dist.all_reduce(total)
    return float(total) / max(global_count, 1) / 5


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
    else:  # its own games and dice; the weights too, so that their equality can be checked
        state["model"] = {k: v.cpu() for k, v in net.state_dict().items()}
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
