"""How accurate are bgai's rollouts with ``best``, next to ``best``'s own 0-, 1- and 2-ply values?
Judged by long gnubg rollouts (gnubg judges here; its values never become training labels).

    nice python scripts/measure/rollout_accuracy.py                       # 64 positions, ~35 CPU-min
    python scripts/measure/rollout_accuracy.py --positions 8 --judge-trials 72 --only 0ply,2ply,t7-vr36

Positions: ``--positions`` positions before the roll from ``best``'s 0-ply self-play (contact and
races, none inside the exact two-sided table; scripts/measure/rollout_common.py).

Judge: gnubg's own cubeless rollout of each position, 0-ply checker play by its net, variance
reduction, quasi-random dice, played to the end or the exact bear-off table, ``--judge-trials``
trials on ``--judge-threads`` threads (settings in scripts/measure/rollout_common.py). Its values are
kept in ``--cache`` (JSON under runs/, keyed by position and settings), with bgai's, so a rerun
or a larger ``--positions`` only computes what is missing.

With ``--judge-set FILE`` the positions and their judge come from a judged set instead (its
first ``--positions``, of ``--classes`` when given; e.g. the back games of
scripts/study/judge_set.py, judged by 1,296-trial gnubg rollouts); ``--player`` picks whose
values and rollouts are judged.

Estimators (``--only`` picks some): ``best`` at 0, 1 and 2 plies (:func:`bgai.search.evaluate_position`)
and bgai rollouts with ``best`` (cubeless, quasi-random dice, exact bear-off stop): truncated at 7
plies or played to the end, 0- or 1-ply checker play, with variance reduction, 36 or 144 trials.
Static values run on all positions in one batch; rollouts one position per call, each with its
own dice seed (the positions of one call share their dice, which would tie their errors
together). One process; CPU time counted.

Printed per estimator, in cubeless equity: the mean absolute difference from the judge, the
root mean squared error once the judge's own noise is taken out (``sqrt(mean d² - mean SE_judge²)``:
an unbiased MSE against the judge's expected value), and the MSE minus that of ``best`` at 0-ply
and at 2-ply (the judge's noise cancels in those differences), each with a 95 % bootstrap
interval over positions; then the CPU seconds per position.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

import numpy as np
import torch

sys.path.insert(0, str(Path(__file__).resolve().parent))
from rollout_common import Clock, GnubgRollouts, selfplay_boards  # noqa: E402

from bgai.bots import evaluator_of  # noqa: E402
from bgai.cli.main import run_script  # noqa: E402
from bgai.engine.board import is_race  # noqa: E402
from bgai.formats import encode_position_id  # noqa: E402
from bgai.model.probs import cubeless_equity  # noqa: E402
from bgai.rollout import RolloutSettings, rollout_positions  # noqa: E402
from bgai.search.ply import evaluate_position  # noqa: E402
from bgai.specs import load_player  # noqa: E402
from bgai.train.positions import class_codes, classify  # noqa: E402

ESTIMATORS = {  # name -> plies of a static value, or RolloutSettings keyword arguments
    "0ply": 0,
    "1ply": 1,
    "2ply": 2,
    "t7-vr36": dict(truncate=7, variance_reduction=True, trials=36),
    "t7-vr144": dict(truncate=7, variance_reduction=True, trials=144),
    "t7-1ply-vr36": dict(truncate=7, plies=1, variance_reduction=True, trials=36),
    "full-vr36": dict(variance_reduction=True, trials=36),
    "full-vr144": dict(variance_reduction=True, trials=144),
    "full-144": dict(variance_reduction=False, trials=144),
}
LABELS = {
    "0ply": "0-ply",
    "1ply": "1-ply",
    "2ply": "2-ply",
    "t7-vr36": "rollout, truncated at 7, 0-ply, VR, 36 trials",
    "t7-vr144": "rollout, truncated at 7, 0-ply, VR, 144 trials",
    "t7-1ply-vr36": "rollout, truncated at 7, 1-ply, VR, 36 trials",
    "full-vr36": "rollout to the end, 0-ply, VR, 36 trials",
    "full-vr144": "rollout to the end, 0-ply, VR, 144 trials",
    "full-144": "rollout to the end, 0-ply, 144 trials",
}


def save(path: Path, cache: dict) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_suffix(".tmp")
    tmp.write_text(json.dumps(cache))
    tmp.replace(path)


def judge(ids, trials, threads, seed, cache, path) -> list[dict]:
    key = f"gnubg rollout: cubeless 0-ply, VR, quasi-random, {trials} trials, seed {seed}"
    done = cache.setdefault("judge", {}).setdefault(key, {})
    todo = [pid for pid in ids if pid not in done]
    if todo:
        gnubg = GnubgRollouts(threads=threads)
        gnubg.configure(trials=trials, variance_reduction=True)
        for k, pid in enumerate(todo):
            with Clock() as clock:
                r = gnubg.rollout(pid, seed=seed)
            done[pid] = dict(equity=r.equity, equity_se=r.equity_se, cpu=clock.cpu)
            if k % 4 == 3 or k == len(todo) - 1:
                save(path, cache)
                print(f"  judge {k + 1}/{len(todo)}", file=sys.stderr, flush=True)
    return [done[pid] for pid in ids]


def estimate(name, evaluator, boards, ids, seed, cache, path, chunk: int = 50, key: str = "") -> list[dict]:
    """``name``'s equity of every position, computed ``chunk`` positions at a time and cached
    under ``key`` (default ``name``: the player's name goes in it when it is not ``best``)."""
    done = cache.setdefault("bgai", {}).setdefault(f"{key or name}, seed {seed}", {})
    todo = [i for i, pid in enumerate(ids) if pid not in done]
    spec = ESTIMATORS[name]
    for start in range(0, len(todo), chunk):
        part = todo[start : start + chunk]
        with Clock() as clock:
            if isinstance(spec, int):
                equity = cubeless_equity(evaluate_position(evaluator, boards[part], spec).double()).numpy()
            else:  # one call per position: its own dice (one batch shares them)
                equity = np.array(
                    [
                        rollout_positions(
                            evaluator, boards[i : i + 1], RolloutSettings(seed=seed + i, **spec)
                        ).equity[0]
                        for i in part
                    ]
                )
        for k, i in enumerate(part):
            done[ids[i]] = dict(equity=float(equity[k]), cpu=clock.cpu / len(part))
        save(path, cache)
        print(
            f"  {name}: {start + len(part)}/{len(todo)} positions, {clock.cpu:.0f} CPU s",
            file=sys.stderr,
            flush=True,
        )
    return [done[pid] for pid in ids]


def bootstrap(values: np.ndarray, stat, rng, n: int = 2000) -> tuple[float, float, float]:
    idx = rng.integers(0, len(values), (n, len(values)))
    samples = np.array([stat(values[i]) for i in idx])
    return stat(values), float(np.percentile(samples, 2.5)), float(np.percentile(samples, 97.5))


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--positions", type=int, default=64)
    parser.add_argument("--judge-trials", type=int, default=324)
    parser.add_argument("--judge-threads", type=int, default=2)
    parser.add_argument("--only", default=",".join(ESTIMATORS), help="estimators, comma-separated")
    parser.add_argument("--seed", type=int, default=31, help="positions and dice")
    parser.add_argument("--cache", type=Path, default=Path("runs/rollout/accuracy.json"))
    parser.add_argument(
        "--judge-set",
        type=Path,
        default=None,
        help="positions and judge from a judged set (scripts/study/judge_set.py) instead",
    )
    parser.add_argument(
        "--classes", help="with --judge-set: only positions of these classes (e.g. race; bgai's classify)"
    )
    parser.add_argument("--player", default="best", help="whose values and rollouts (default best)")
    args = parser.parse_args()
    names = [n.strip() for n in args.only.split(",") if n.strip()]
    for n in names:
        if n not in ESTIMATORS:
            raise SystemExit(f"unknown estimator {n!r}: choose from {', '.join(ESTIMATORS)}")
    codes = class_codes(args.classes.split(",")) if args.classes else None

    torch.set_num_threads(1)
    cache = json.loads(args.cache.read_text()) if args.cache.is_file() else {}
    if args.judge_set:
        with np.load(args.judge_set) as f:
            judged = {k: f[k] for k in ("boards", "equity", "equity_se", "seconds")}
        chosen = np.arange(len(judged["boards"]))
        if codes is not None:
            chosen = chosen[np.isin(classify(judged["boards"]), codes)]
        chosen = chosen[: args.positions]
        boards = torch.as_tensor(judged["boards"][chosen])
        j, j_se, seconds = (judged[f][chosen] for f in ("equity", "equity_se", "seconds"))
        ids = [encode_position_id(b) for b in boards.numpy()]
        source, judge_name = f"{args.judge_set}", f"{args.judge_set}'s gnubg rollouts"
    else:
        boards = selfplay_boards(args.positions, seed=args.seed, kind="any")
        ids = [encode_position_id(b) for b in boards.numpy()]
        truth = judge(ids, args.judge_trials, args.judge_threads, args.seed, cache, args.cache)
        j = np.array([t["equity"] for t in truth])
        j_se = np.array([t["equity_se"] for t in truth])
        seconds = np.array([t["cpu"] for t in truth])
        source = f"best's self-play (seed {args.seed})"
        judge_name = f"gnubg rollouts, {args.judge_trials} trials with VR"
    evaluator, _, _ = evaluator_of(load_player(args.player))
    cache_key = "" if args.player == "best" else f"{args.player}: "
    results = {
        n: estimate(n, evaluator, boards, ids, args.seed, cache, args.cache, key=cache_key + n) for n in names
    }

    rng = np.random.default_rng(0)
    races = int(is_race(boards).sum())
    judge_se = np.sqrt((j_se**2).mean())
    print(
        f"\n{len(ids)} positions from {source} ({len(ids) - races} contact, {races} races), player "
        f"{args.player}; judge: {judge_name}, RMS SE {judge_se:.4f}, {seconds.mean():.1f} CPU s a position\n"
    )
    print(
        "| estimator | mean abs error | RMSE (judge noise out) | MSE - MSE(0-ply) | MSE - MSE(2-ply) ", end=""
    )
    print("| CPU s per position |")
    print("|---|---:|---:|---:|---:|---:|")
    sq = {}
    for n in names:
        d = np.array([r["equity"] for r in results[n]]) - j
        sq[n] = d**2 - j_se**2
    for n in names:
        d = np.array([r["equity"] for r in results[n]]) - j
        mae = bootstrap(np.abs(d), np.mean, rng)
        rmse = bootstrap(sq[n], lambda v: float(np.sqrt(max(v.mean(), 0.0))), rng)
        cells = [
            f"{mae[0]:.4f} [{mae[1]:.4f}, {mae[2]:.4f}]",
            f"{rmse[0]:.4f} [{rmse[1]:.4f}, {rmse[2]:.4f}]",
        ]
        for ref in ("0ply", "2ply"):
            if ref in sq and ref != n:
                m = bootstrap(sq[n] - sq[ref], np.mean, rng)
                cells.append(f"{m[0]:+.5f} [{m[1]:+.5f}, {m[2]:+.5f}]")
            else:
                cells.append("")
        cpu = np.mean([r["cpu"] for r in results[n]])
        print(f"| {LABELS[n]} | " + " | ".join(cells) + f" | {cpu:.3f} |")


if __name__ == "__main__":
    run_script(main)
