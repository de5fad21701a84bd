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
games, so ``--resume`` continues exactly.

Stopping: Ctrl-C (SIGINT) or SIGTERM (what a job scheduler or torchrun sends) finishes the turn,
saves, says how to resume and raises :class:`Stopped`; all processes stop at the same turn. A
run folder is ``<runs_dir>/<name>__<seed>__<unixtime>`` (``_2``, ``_3``... when that exists);
while a run writes to it, the folder holds a ``lock`` file with the writer's pid, and a second
``--resume`` of the same folder is refused. A run whose ``latest.pt`` was lost resumes from its
newest ``ckpt_<games>.pt`` (its weights and counters; the optimiser and the games start afresh).
"""

from __future__ import annotations

import atexit
import dataclasses
import os
import signal
import socket
import threading
import time
import tomllib
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
from bgai.model.net import SplitNet, ValueNet, build_net, device_of
from bgai.train.config import TrainConfig, load_config, to_toml
from bgai.train.positions import PositionDatabase
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


class Stopped(Exception):  # noqa: N818 - the run stopped, it is not an error
    """A run stopped by SIGINT (Ctrl-C) or SIGTERM after saving; ``signum`` says which."""

    def __init__(self, signum: int) -> None:
        super().__init__(f"stopped by {signal.Signals(signum).name}")
        self.signum = signum


class _StopRequest:
    """Turns SIGINT and SIGTERM into a request that the loop answers at the end of a turn (every
    process at the same turn, so that the saved states fit together). While ``interruptible``
    (a single process evaluating), the first signal stops at once. Later signals are ignored:
    a second Ctrl-C does not break the save (Ctrl-\\ or SIGKILL still end the process)."""

    def __init__(self) -> None:
        self.signum: int | None = None
        self.interruptible = False
        self._previous: dict[int, Any] = {}

    def __enter__(self) -> _StopRequest:
        if threading.current_thread() is threading.main_thread():
            for signum in (signal.SIGINT, signal.SIGTERM):
                self._previous[signum] = signal.signal(signum, self._handle)
        return self

    def __exit__(self, *exc) -> None:
        for signum, handler in self._previous.items():
            signal.signal(signum, handler)

    def _handle(self, signum: int, frame) -> None:
        if self.signum is not None:
            return
        self.signum = signum
        if self.interruptible:
            raise Stopped(signum)


def make_net(cfg: TrainConfig) -> ValueNet | SplitNet:
    spec = {"kind": "value_net", "encoding": cfg.encoding, "hidden": cfg.hidden, "activation": cfg.activation}
    if cfg.split_race:
        return build_net({"kind": "split_net", "contact": spec, "race": dict(spec)})
    return build_net(spec)


def train(config_path: str | None, overrides: dict[str, Any], resume: str | None = None, log=print) -> Path:
    """Run (or resume) a training run; returns the run folder. Raises :class:`Stopped` (after
    saving) when SIGINT or SIGTERM stopped it."""
    rank, world = _init_distributed()
    run_dir, cfg, start_boards = _setup_run(config_path, overrides, resume, rank)
    with _StopRequest() as stop:
        lock = _lock(run_dir) if rank == 0 else None
        try:
            return _train(run_dir, cfg, start_boards, resume, rank, world, stop, log)
        finally:
            if lock is not None:
                _unlock(lock)


def _train(
    run_dir: Path,
    cfg: TrainConfig,
    start_boards: torch.Tensor | None,
    resume: str | None,
    rank: int,
    world: int,
    stop: _StopRequest,
    log,
) -> Path:
    if cfg.threads:
        torch.set_num_threads(cfg.threads)
    device = device_of(cfg.device)

    torch.manual_seed(cfg.seed)
    net = make_net(cfg)
    if cfg.init and resume is None:
        grow(load_net(checkpoint_path(cfg.init)), net)
    net = net.to(device)
    optimizer = _make_optimizer(cfg, net)
    generator = torch.Generator().manual_seed(cfg.seed * 1000 + rank)
    selfplay = SelfPlay(
        cfg.parallel_games,
        cfg.variant,
        cfg.lam,
        cfg.exploration,
        generator,
        device,
        cfg.backgame_starts,
        cfg.race_starts,
        cfg.database_starts,
        None if start_boards is None else start_boards.to(device),
    )
    progress = Progress()
    buffer: list[tuple[torch.Tensor, torch.Tensor]] = []

    if resume is not None:
        if rank == 0:
            _remove_temporary_files(run_dir)
        _resume(run_dir, rank, cfg, net, optimizer, generator, selfplay, progress, buffer, device, log)
        if rank == 0:
            changed = _save_config(run_dir, cfg)
            log(f"resumed {run_dir} at {progress.games} games" + (f" with {changed}" if changed else ""))

    writer = _writer(run_dir, progress.games if resume is not None else None) if rank == 0 else None
    if rank == 0:
        log(f"run folder: {run_dir}")
        log(f"watch it with: tensorboard --logdir {run_dir.parent}")
    bar = _progress_bar(cfg, progress, rank)
    started = time.perf_counter() - progress.wall_seconds
    window = [time.perf_counter(), progress.games, 0, 0, 0.0, 0]  # t, games, turns, gammons, td, positions

    def save() -> None:
        progress.wall_seconds = time.perf_counter() - started
        _save(run_dir, rank, cfg, net, optimizer, generator, selfplay, progress, buffer)

    turn, pending = 0, torch.zeros(4)  # with average_every: games, turns, gammons, stop, since the average
    try:
        while progress.games < cfg.games:
            if world == 1 and stop.signum is not None:
                raise Stopped(stop.signum)
            finished = selfplay.play_turn(net)
            if finished.games:
                buffer.append((finished.boards, finished.returns))
            if cfg.average_every:  # own steps; weights averaged every average_every turns
                ready = sum(len(b) for b, _ in buffer)
                pending += torch.tensor([finished.games, finished.turns, finished.gammons, 0])
                sharing = 1
            else:
                ready, games, turns, gammons, stopping = _agree(buffer, finished, world, device, stop)
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
                pending[3] = stop.signum is not None
                games, turns, gammons, stopping = _average(net, pending, world)
                pending.zero_()
            progress.games += games
            progress.turns += turns
            window[2] += turns
            window[3] += gammons
            if bar is not None:
                bar.update(games)

            if writer is not None and progress.games - window[1] >= max(100, cfg.parallel_games // 2):
                window = _log_scalars(writer, bar, progress, window, optimizer)
            if stopping:  # some process was asked to stop: all stop here, at the same turn
                raise Stopped(stop.signum or signal.SIGTERM)
            if cfg.eval_every and progress.games - progress.last_eval_games >= cfg.eval_every:
                stop.interruptible = world == 1
                _evaluate(cfg, net, progress, writer, bar, rank, world, started)
                stop.interruptible = False
            if progress.games - progress.last_checkpoint_games >= cfg.checkpoint_every:
                progress.last_checkpoint_games = progress.games
                save()
        if cfg.eval_every and progress.last_eval_games != progress.games:
            stop.interruptible = world == 1
            _evaluate(cfg, net, progress, writer, bar, rank, world, started)
            stop.interruptible = False
        save()
    except Stopped:
        save()
        if bar is not None:
            bar.close()
        if rank == 0:
            log(
                f"\nstopped at {progress.games} of {cfg.games} games: saved {run_dir / 'latest.pt'}; "
                f"continue with: bgai train --resume {run_dir}"
            )
        raise
    finally:
        if bar is not None:
            bar.close()
        if writer is not None:
            writer.close()
    if rank == 0:
        log(
            f"done: {progress.games} games in {progress.wall_seconds:.0f} s; "
            f"checkpoint {run_dir / 'latest.pt'}"
        )
        log(next_steps(run_dir / "latest.pt"))
    return run_dir


def next_steps(checkpoint: Path) -> str:
    """What to do with a trained checkpoint: the commands that bench, play and export it."""
    steps = [
        ("its strength against pubeval", f"bgai bench {checkpoint} pubeval --games 2000"),
        ("against the shipped best", f"bgai bench {checkpoint} best --games 2000"),
        ("play it", f"bgai play --opponent {checkpoint}"),
        (
            "share it as an opponent",
            f"bgai export {checkpoint} --level expert -o exports/{checkpoint.parent.name}",
        ),
    ]
    width = max(len(why) for why, _ in steps) + 1
    return "\n".join(["next:", *(f"  {why + ':':<{width}}  {command}" for why, command in steps)])


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


def _agree(buffer, finished, world, device, stop) -> tuple[int, int, int, int, bool]:
    """(positions ready on every process, games, turns, gammons finished by all, whether any
    process was asked to stop) this turn.

    Updates use as many positions as the process with the fewest has ready, so that every
    step weighs the same work on every process (no process waits on a bigger share).
    """
    local = torch.tensor(
        [
            sum(len(b) for b, _ in buffer),
            finished.games,
            finished.turns,
            finished.gammons,
            stop.signum is not None,
        ],
        dtype=torch.float64,
        device=device,
    )  # nccl reduces device tensors only
    if world == 1:
        return (*(int(v) for v in local[:4]), bool(local[4]))
    every = [torch.zeros_like(local) for _ in range(world)]
    dist.all_gather(every, local)
    every = torch.stack(every)
    sums = every[:, 1:].sum(0)
    return int(every[:, 0].min()), int(sums[0]), int(sums[1]), int(sums[2]), bool(sums[3])


def _average(net, pending, world) -> tuple[int, int, int, bool]:
    """Average the weights of all processes; returns the summed (games, turns, gammons) of
    ``pending`` and whether any process was asked to stop (its last entry)."""
    params = [p.detach() for p in net.parameters()]
    flat = torch.cat([p.reshape(-1) for p in params] + [pending.to(params[0])])
    if world > 1:
        dist.all_reduce(flat)
        for p, mean in zip(params, flat[:-4].split([p.numel() for p in params]), strict=True):
            p.copy_(mean.view_as(p) / world)
    games, turns, gammons, stopping = (int(v) for v in flat[-4:].round())
    return games, turns, gammons, stopping > 0


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
    if rank == 0:
        from bgai.bench.duel import duel
        from bgai.bots.players import PubevalPlayer, SearchPlayer
        from bgai.search.evaluator import NetEvaluator

        me = SearchPlayer(NetEvaluator(net), plies=0)
        result = duel(
            me, PubevalPlayer(), games=cfg.eval_games, seed=cfg.seed + progress.games, variant=cfg.variant
        )
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
    progress.last_eval_games = progress.games  # not before: a run stopped while evaluating evaluates again


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
        print(
            f"games {progress.games}: {rate:.0f} games/s, td_error {td_sum / max(positions, 1):.4f}",
            flush=True,
        )
    return [now, progress.games, 0, 0, 0.0, 0]


def _writer(run_dir: Path, purge_step: int | None):
    """TensorBoard's writer; on a resume, ``purge_step`` (the games of the checkpoint) hides the points
    an earlier process logged after that checkpoint, so that no point is shown twice."""
    from torch.utils.tensorboard import SummaryWriter

    return SummaryWriter(str(run_dir), purge_step=purge_step)


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
        atexit.register(dist.destroy_process_group)  # as bgai.rollout.rollout.distributed: no abort at exit
    return (dist.get_rank(), dist.get_world_size()) if world > 1 else (0, 1)


def _setup_run(config_path, overrides, resume, rank) -> tuple[Path, TrainConfig, torch.Tensor | None]:
    """The run folder, its config and the boards of ``database_starts``: a new folder, or the
    resumed one (whose config.toml the ``overrides`` change; it is rewritten once the checkpoint
    has loaded). A bad start database is an error before the folder is made."""
    if resume is not None:
        run_dir = Path(resume)
        if not (run_dir / "config.toml").is_file():
            raise ValueError(f"cannot resume {run_dir}: no config.toml there")
        cfg = load_config(run_dir / "config.toml", overrides)
        return run_dir, cfg, _start_boards(cfg)
    cfg = load_config(config_path, overrides)
    start_boards = _start_boards(cfg)
    base = Path(cfg.runs_dir) / f"{cfg.name}__{cfg.seed}__{int(time.time())}"
    taken = 0
    if rank == 0:  # mkdir is atomic: two runs started in the same second get two folders
        while True:
            try:
                _numbered(base, taken).mkdir(parents=True)
                break
            except FileExistsError:
                taken += 1
    if dist.is_initialized():  # every process uses rank 0's folder
        device = torch.device("cuda", torch.cuda.current_device()) if dist.get_backend() == "nccl" else None
        name = torch.tensor([int(base.name.rpartition("__")[2]), taken], dtype=torch.long, device=device)
        dist.broadcast(name, 0)
        base = base.with_name(f"{cfg.name}__{cfg.seed}__{int(name[0])}")
        taken = int(name[1])
    run_dir = _numbered(base, taken)
    if rank == 0:
        _write_text_atomic(run_dir / "config.toml", to_toml(cfg))
    if dist.is_initialized():
        dist.barrier()
    return run_dir, cfg, start_boards


def _start_boards(cfg: TrainConfig) -> torch.Tensor | None:
    if cfg.database_starts == 0:
        return None
    boards = PositionDatabase.load(cfg.start_database).part_boards(cfg.start_classes)
    return torch.as_tensor(boards)


def _numbered(base: Path, taken: int) -> Path:
    return base if taken == 0 else base.with_name(f"{base.name}_{taken + 1}")


def _write_text_atomic(path: Path, text: str) -> None:
    tmp = path.with_name(f".{path.name}.tmp")
    try:
        tmp.write_text(text)
        os.replace(tmp, path)
    finally:
        tmp.unlink(missing_ok=True)


def _save_config(run_dir: Path, cfg: TrainConfig) -> str:
    """Write a resumed run's config (with the overrides given to ``--resume``) into its folder;
    returns the changed keys as ``key=value ...`` ('' when nothing changed)."""
    path = run_dir / "config.toml"
    before = tomllib.loads(path.read_text())
    changed = [f"{key}={value}" for key, value in dataclasses.asdict(cfg).items() if before.get(key) != value]
    if changed:
        _write_text_atomic(path, to_toml(cfg))
    return " ".join(changed)


def _lock(run_dir: Path) -> Path:
    """Claim ``run_dir`` for this process (a ``lock`` file holding its pid and host); refuse a
    folder that a live process holds. A lock left by a process that died is taken over."""
    lock = run_dir / "lock"
    for _ in range(3):
        try:
            fd = os.open(lock, os.O_CREAT | os.O_EXCL | os.O_WRONLY, 0o644)
        except FileExistsError:
            holder = _lock_holder(lock)
            if holder is not None:
                raise ValueError(
                    f"run {run_dir} is in use by process {holder}; if that process is gone, delete {lock}"
                ) from None
            lock.unlink(missing_ok=True)
            continue
        with os.fdopen(fd, "w") as f:
            f.write(f"{os.getpid()} {socket.gethostname()}\n")
        return lock
    raise ValueError(f"cannot lock {run_dir}: {lock} keeps coming back")


def _lock_holder(lock: Path) -> str | None:
    """``pid on host`` of the live process that holds ``lock``; None when it is stale."""
    try:
        pid_text, _, host = lock.read_text().strip().partition(" ")
        pid = int(pid_text)
    except (OSError, ValueError):
        return None  # unreadable or torn: its writer died while writing it
    if host and host != socket.gethostname():
        return f"{pid} on {host}"  # cannot tell from here whether it lives
    if pid == os.getpid():
        return None
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return None
    except PermissionError:
        pass
    return str(pid)


def _unlock(lock: Path) -> None:
    try:
        if lock.read_text().split(" ")[0] == str(os.getpid()):
            lock.unlink()
    except OSError:
        pass


def _remove_temporary_files(run_dir: Path) -> None:
    """Remove the temporary files of checkpoints that a killed process left half written."""
    for tmp in run_dir.glob(".*.tmp"):
        tmp.unlink(missing_ok=True)


def _resume(run_dir, rank, cfg, net, optimizer, generator, selfplay, progress, buffer, device, log) -> None:
    """Restore a run from ``latest.pt`` exactly; without one, from the newest ``ckpt_<games>.pt``
    (the weights and counters; the optimiser state and the running games start afresh)."""
    if (run_dir / "latest.pt").exists():
        ckpt = load_checkpoint(run_dir / "latest.pt")
        if rank:  # this process's own games, dice and buffer
            own = load_checkpoint(run_dir / _state_file(rank))
            ckpt = {**ckpt, **{k: own[k] for k in ("rng", "selfplay", "buffer", "optimizer") if k in own}}
        _restore(ckpt, net, optimizer, generator, selfplay, progress, buffer, cfg, device)
        return
    saved = sorted(run_dir.glob("ckpt_*.pt"), key=lambda p: int(p.stem[5:]) if p.stem[5:].isdigit() else -1)
    if not saved:
        raise ValueError(f"cannot resume {run_dir}: no latest.pt and no ckpt_<games>.pt there")
    ckpt = load_checkpoint(saved[-1])
    loaded = net_from_checkpoint(ckpt, str(saved[-1]))
    if loaded.spec() != net.spec():
        raise ValueError(f"{saved[-1]}: checkpoint architecture differs from the config")
    net.load_state_dict(loaded.state_dict())
    net.to(device)
    for key, value in ckpt.get("progress", {}).items():
        setattr(progress, key, value)
    generator.manual_seed(cfg.seed * 1000 + rank + 7919 * progress.games)  # not the dice of the start again
    if rank == 0:
        log(
            f"{run_dir / 'latest.pt'} is missing: resuming from {saved[-1].name} (its weights and counters; "
            "the optimiser state and the games in progress start afresh)"
        )


def _state_file(rank: int) -> str:
    return "latest.pt" if rank == 0 else f"latest.rank{rank}.pt"


def _save(run_dir, rank, cfg, net, optimizer, generator, selfplay, progress, buffer) -> None:
    state = {
        "format": FORMAT,
        "net_spec": net.spec(),
        "config": dataclasses.asdict(cfg),
        "rng": {"dice": generator.get_state(), "torch": torch.get_rng_state()},
        "selfplay": selfplay.state_dict(),
        "buffer": {
            "boards": torch.cat([b for b, _ in buffer])
            if buffer
            else torch.zeros((0, 2, 25), dtype=torch.int8),
            "returns": torch.cat([r for _, r in buffer]) if buffer else torch.zeros((0, 5)),
        },
    }
    if rank == 0:
        state.update(
            {
                "model": {k: v.cpu() for k, v in net.state_dict().items()},
                "optimizer": optimizer.state_dict(),
                "progress": dataclasses.asdict(progress),
            }
        )
        save_atomic(state, run_dir / "latest.pt")
        save_atomic(
            {k: state[k] for k in ("format", "net_spec", "model", "config", "progress")},
            run_dir / f"ckpt_{progress.games}.pt",
        )
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
