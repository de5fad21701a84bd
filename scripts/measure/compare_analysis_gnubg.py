"""bgai analyse against gnubg's own analysis of the same .mat files; prints the figures.

gnubg (the ``gnubg`` package) imports each file, runs ``analyse match`` at the chosen ply
(its defaults otherwise: cubeful, pruning nets, the "large" analysis filter, luck at 0-ply) and
exports the match as text; the export is parsed for each player's statistics and each
decision's error and mark. gnubg's results are cached in a JSON file (by file content and
ply), so later runs only redo bgai's side. bgai then analyses the same files with each
``--player`` at the same ply, and the script prints:

* per player and file: overall and checker error rates (mEMG) by gnubg and by each bgai judge,
  the share within 10 % of gnubg's, the mean absolute difference, and the correlation;
* blunders: the decisions gnubg marks very bad against those bgai marks very bad (checker
  play and cube, matched by game and order), agreement = both / either;
* luck rates, and the seconds each analysis took.

    python scripts/measure/compare_analysis_gnubg.py tests/data/analyse/*-0*.mat --plies 2 \\
        --players gnubg,best --cache tests/data/analyse/gnubg_2ply.json
"""

from __future__ import annotations

import argparse
import hashlib
import json
import math
import re
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

from bgai.cli.main import run_script

# --- gnubg's analysis ---------------------------------------------------------------------------


def _quiet(command: str) -> None:
    """Run a gnubg command, dropping what it prints (it draws a board on every import)."""
    from bgai.gnubg import command_output

    command_output(command)


def gnubg_analysis(path: Path, plies: int) -> dict:
    """gnubg's analysis of one file: players' statistics and every decision's error and mark."""
    _quiet("set threads 1")
    _quiet(f"set analysis chequerplay evaluation plies {plies}")
    _quiet(f"set analysis cubedecision evaluation plies {plies}")
    _quiet("set export moves number 20")
    comment = path.read_text(encoding="utf-8", errors="replace")
    _quiet(f"set jacoby {'off' if 'Jacoby rule off' in comment or 'set jacoby off' in comment else 'on'}")
    began = time.perf_counter()
    _quiet(f'import mat "{path}"')
    _quiet("analyse match")
    seconds = time.perf_counter() - began
    with tempfile.TemporaryDirectory() as folder:
        out = Path(folder) / "m.txt"
        _quiet(f'export match text "{out}"')
        files = sorted(Path(folder).glob("m*.txt"), key=lambda p: (len(p.name), p.name))
        texts = [f.read_text(encoding="utf-8", errors="replace") for f in files]
    result = parse_export(texts)
    result["seconds"] = seconds
    return result


_BLOCK = re.compile(r"^Move number \d+:\s+(.*)$", re.M)
_ALERT = re.compile(r"Alert: (.+?)\s*\(\s*([-+][\d.]+)\)")
_SKILL = (("very bad", 0.12), ("bad", 0.06), ("doubtful", 0.03))


def _mark(error: float) -> str:
    return next((name for name, bound in _SKILL if error > bound + 1e-9), "")


def parse_export(texts: list[str]) -> dict:
    """Decisions (game, kind, player, error) from each game's text, and the match statistics."""
    decisions = []
    for game, text in enumerate(texts, 1):
        parts = _BLOCK.split(text)
        for head, body in zip(parts[1::2], parts[2::2], strict=True):
            alerts = [(kind, -float(value)) for kind, value in _ALERT.findall(body)]
            cube = [(k, e) for k, e in alerts if "double" in k or "take" in k or "pass" in k]
            if " to play " in head:
                name = head.split(" to play ")[0].strip()
                star = re.search(r"^\*\s+\d+\. .*?Eq\.: [+-][\d.]+(?: \(([+-][\d.]+)\))?", body, re.M)
                if star is not None:
                    error = -float(star[1]) if star[1] else 0.0
                else:  # the move played is below the list shown: its alert says how bad
                    error = next((e for k, e in alerts if k.endswith("move")), math.nan)
                decisions.append({"game": game, "kind": "move", "player": name, "error": error})
                missed = next((e for k, e in cube if "missed double" in k), 0.0)
                if "Cube analysis" in body:
                    decisions.append({"game": game, "kind": "cube", "player": name, "error": missed})
            elif "cube decision?" in head:
                name = head.split(" on roll")[0].strip()
                decisions.append(
                    {"game": game, "kind": "cube", "player": name, "error": next((e for _, e in cube), 0.0)}
                )
            elif " doubles" in head:
                answer = re.search(r"^\* (.+?) (accepts|rejects|beavers)", body, re.M)
                if answer:
                    decisions.append(
                        {
                            "game": game,
                            "kind": "take",
                            "player": answer[1],
                            "error": next((e for _, e in cube), 0.0),
                        }
                    )
    for d in decisions:
        d["mark"] = _mark(d["error"]) if math.isfinite(d["error"]) else "?"
    return {"decisions": decisions, "stats": parse_statistics(texts[-1])}


def parse_statistics(text: str) -> dict:
    """The match statistics table at the end of the last game's export (errors as positive numbers)."""
    section = (
        text.split("Match statistics")[-1]
        if "Match statistics" in text
        else text.split("Game statistics")[-1]
    )
    players = re.search(r"^Player\s+(\S+)\s+(\S+)", section, re.M)
    out: dict = {"players": [players[1], players[2]] if players else []}
    part = ""
    for line in section.splitlines():
        if line.endswith("statistics"):
            part = line.split()[0].lower()
            continue
        numbers = re.findall(r"[-+]?\d+\.\d+|[-+]?\d+", line[40:])
        label = line[:40].strip()
        if label == "Unforced moves":
            out["unforced"] = [int(numbers[0]), int(numbers[1])]
        elif label == "Total moves":
            out["moves"] = [int(numbers[0]), int(numbers[1])]
        elif label == "Close or actual cube decisions":
            out["close_cube"] = [int(numbers[0]), int(numbers[1])]
        elif label == "Error total EMG (MWC)" and len(numbers) >= 4:
            out[f"{part}_error"] = [-float(numbers[0]), -float(numbers[2])]
        elif label == "Error rate mEMG (MWC)" and len(numbers) >= 4:
            out[f"{part}_rate"] = [-float(numbers[0]), -float(numbers[2])]
        elif label == "Luck rate mEMG (MWC)" and len(numbers) >= 4:
            out["luck_rate"] = [float(numbers[0]), float(numbers[2])]
        elif label == "Luck total EMG (MWC)" and len(numbers) >= 4:
            out["luck"] = [float(numbers[0]), float(numbers[2])]
    return out


def compact(analysis: dict) -> dict:
    """What the cache keeps of an analysis: the statistics, and only the decisions that lost
    something, each as ``[game, kind, player, order, error]`` (``order`` counts that player's
    decisions of that kind in that game, from 1), so that the cache stays small."""
    players = analysis["stats"]["players"]
    seen: dict[tuple, int] = {}
    lost = []
    for d in analysis["decisions"]:
        key = (d["game"], d["kind"], d["player"])
        seen[key] = seen.get(key, 0) + 1
        if not math.isfinite(d["error"]) or d["error"] > 0:
            error = round(d["error"], 4) if math.isfinite(d["error"]) else None
            lost.append([d["game"], d["kind"], players.index(d["player"]), seen[key], error])
    return {"stats": analysis["stats"], "lost": lost, "seconds": round(analysis["seconds"], 2)}


def expand_cached(entry: dict) -> dict:
    """A cached analysis with its decisions back (only those that lost something; the rest count as 0)."""
    if "lost" not in entry:
        return entry
    players = entry["stats"]["players"]
    decisions = [
        {
            "game": g,
            "kind": kind,
            "player": players[p],
            "order": order,
            "error": math.nan if error is None else error,
            "mark": "?" if error is None else _mark(error),
        }
        for g, kind, p, order, error in entry["lost"]
    ]
    return {"stats": entry["stats"], "decisions": decisions, "seconds": entry["seconds"]}


def cached_gnubg(paths: list[Path], plies: int, cache_path: Path | None) -> dict[str, dict]:
    cache = {}
    if cache_path and cache_path.is_file():
        cache = json.loads(cache_path.read_text())
    out = {}
    for path in paths:
        key = f"{hashlib.sha1(path.read_bytes()).hexdigest()[:16]}-{plies}ply"
        if key not in cache or "lost" not in cache[key]:
            if key not in cache:
                print(f"gnubg analyses {path} at {plies}-ply ...", file=sys.stderr, flush=True)
                cache[key] = gnubg_analysis(path, plies)
            cache[key] = compact(cache[key])
            if cache_path:
                cache_path.write_text(json.dumps(cache, separators=(",", ":"), sort_keys=True) + "\n")
        out[str(path)] = expand_cached(cache[key])
    return out


# --- bgai's side ----------------------------------------------------------------------------------


def bgai_analysis(path: Path, spec: str, plies: int) -> dict:
    from bgai.analyse import analyse_match, analysis_judge, read_match

    a = analyse_match(read_match(path), analysis_judge(spec, plies), source=str(path))
    decisions = [
        {"game": d.game, "kind": d.kind, "player": a.players[d.player], "error": d.error, "mark": d.mark}
        for d in a.decisions
    ]
    stats = {
        "players": list(a.players),
        "overall_rate": [s.error_rate for s in a.stats],
        "chequerplay_rate": [s.checker_rate for s in a.stats],
        "cube_rate": [s.cube_rate for s in a.stats],
        "luck_rate": [s.luck_rate for s in a.stats],
        "unforced": [s.unforced for s in a.stats],
        "close_cube": [s.close_cube for s in a.stats],
    }
    return {"decisions": decisions, "stats": stats, "seconds": a.seconds}


def blunders(gnubg_decisions: list[dict], ours: list[dict]) -> tuple[int, int, int, list[tuple]]:
    """(marked very bad by both, by gnubg only, by bgai only, the disagreements as (key, gnubg's
    error, bgai's error)), decisions matched by game, kind, player and order."""

    def keyed(decisions):
        seen: dict[tuple, int] = {}
        out = {}
        for d in decisions:
            base = (d["game"], d["kind"], d["player"])
            seen[base] = seen.get(base, 0) + 1
            out[(*base, d.get("order", seen[base]))] = d["error"]
        return out

    g, b = keyed(gnubg_decisions), keyed(ours)

    def bad(error) -> bool:
        return error is not None and _mark(error) == "very bad"

    both = sum(1 for k in g if bad(g[k]) and bad(b.get(k)))
    differ = [
        (k, g.get(k, 0.0), b.get(k, 0.0)) for k in sorted(set(g) | set(b)) if bad(g.get(k)) != bad(b.get(k))
    ]
    g_only = sum(1 for _, x, _ in differ if bad(x))
    return both, g_only, len(differ) - g_only, differ


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("files", nargs="+", type=Path)
    parser.add_argument("--plies", type=int, default=2)
    parser.add_argument("--players", default="gnubg,best", help="bgai judges, comma-separated specs")
    parser.add_argument("--cache", type=Path, help="JSON file caching gnubg's analyses")
    parser.add_argument(
        "--bgai-cache",
        type=Path,
        help="JSON file caching bgai's (for rerunning the figures; not for a changed bgai)",
    )
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--json", type=Path, help="write every figure to this JSON file")
    args = parser.parse_args()

    import torch

    torch.set_num_threads(args.threads)
    paths = sorted(args.files)
    reference = cached_gnubg(paths, args.plies, args.cache)
    specs = [s.strip() for s in args.players.split(",") if s.strip()]
    figures: dict = {"files": [str(p) for p in paths], "plies": args.plies, "judges": {}}
    g_rates = np.array([reference[str(p)]["stats"]["overall_rate"] for p in paths]).ravel()
    g_checker = np.array([reference[str(p)]["stats"]["chequerplay_rate"] for p in paths]).ravel()
    g_luck = np.array([reference[str(p)]["stats"]["luck_rate"] for p in paths]).ravel()
    g_seconds = sum(reference[str(p)]["seconds"] for p in paths)
    print(
        f"{len(paths)} files, {2 * len(paths)} player-matches, {args.plies}-ply; "
        f"gnubg took {g_seconds:.0f} s "
        f"({g_seconds / len(paths):.1f} s a file, when it ran)"
    )
    ours = json.loads(args.bgai_cache.read_text()) if args.bgai_cache and args.bgai_cache.is_file() else {}
    for spec in specs:
        rows = []
        for path in paths:
            key = f"{hashlib.sha1(path.read_bytes()).hexdigest()[:16]}-{spec}@{args.plies}ply"
            if key not in ours:
                print(f"bgai ({spec}@{args.plies}ply) analyses {path} ...", file=sys.stderr, flush=True)
                ours[key] = bgai_analysis(path, spec, args.plies)
                if args.bgai_cache:
                    args.bgai_cache.write_text(json.dumps(ours, separators=(",", ":")) + "\n")
            rows.append(ours[key])
        rates = np.array([r["stats"]["overall_rate"] for r in rows]).ravel()
        checker = np.array([r["stats"]["chequerplay_rate"] for r in rows]).ravel()
        luck = np.array([r["stats"]["luck_rate"] for r in rows]).ravel()
        relative = np.abs(rates - g_rates) / np.maximum(g_rates, 1e-9)
        found = [
            blunders(reference[str(p)]["decisions"], r["decisions"]) for p, r in zip(paths, rows, strict=True)
        ]
        both, g_only, b_only = (sum(f[k] for f in found) for k in range(3))
        differ = [(p.name, *d) for p, f in zip(paths, found, strict=True) for d in f[3]]
        decisions = sum(len(r["decisions"]) for r in rows)
        seconds = [r["seconds"] for r in rows]
        # a judge favours the moves its own net chose: the players it did not play for
        names = [name for r in rows for name in r["stats"]["players"]]
        others = np.array([name.split("_")[0] != spec.split("@")[0].split(":")[0] for name in names])
        figure = {
            "error_rate_within_10pct": float(np.mean(relative <= 0.10)),
            "error_rate_mean_abs_diff": float(np.mean(np.abs(rates - g_rates))),
            "error_rate_mean_relative_diff": float(np.mean(relative)),
            "error_rate_correlation": float(np.corrcoef(rates, g_rates)[0, 1]),
            "checker_rate_correlation": float(np.corrcoef(checker, g_checker)[0, 1]),
            "error_rate_correlation_others": (
                float(np.corrcoef(rates[others], g_rates[others])[0, 1]) if others.sum() >= 3 else math.nan
            ),
            "others": int(others.sum()),
            "mean_error_rate": float(rates.mean()),
            "gnubg_mean_error_rate": float(g_rates.mean()),
            "luck_rate_mean_abs_diff": float(np.mean(np.abs(luck - g_luck))),
            "blunders_both": int(both),
            "blunders_gnubg_only": int(g_only),
            "blunders_bgai_only": int(b_only),
            "blunder_agreement": float(both / max(1, both + g_only + b_only)),
            "decisions": int(decisions),
            "blunder_disagreements": [
                {"file": f, "decision": list(k), "gnubg": x, "bgai": y} for f, k, x, y in differ
            ],
            "seconds_per_file": float(np.mean(seconds)),
            "per_player": [
                {
                    "file": str(p),
                    "player": names[2 * i + k],
                    "gnubg": float(g_rates[2 * i + k]),
                    "bgai": float(rates[2 * i + k]),
                }
                for i, p in enumerate(paths)
                for k in range(2)
            ],
        }
        figures["judges"][spec] = figure
        print(f"\nbgai analyse --player {spec} --plies {args.plies}")
        print(
            f"  overall error rate (mEMG), mean over players: bgai {rates.mean():.2f}, "
            f"gnubg {g_rates.mean():.2f}"
        )
        print(
            f"  within 10 % of gnubg's: {100 * figure['error_rate_within_10pct']:.0f} % of "
            f"{len(rates)} player-matches; mean |difference| {figure['error_rate_mean_abs_diff']:.2f} "
            f"({100 * figure['error_rate_mean_relative_diff']:.1f} %)"
        )
        others_line = ""
        if math.isfinite(figure["error_rate_correlation_others"]):
            others_line = (
                f"; overall, the {figure['others']} players other than {spec}'s own: "
                f"{figure['error_rate_correlation_others']:.3f}"
            )
        print(
            f"  correlation with gnubg: overall {figure['error_rate_correlation']:.3f}, "
            f"checker play {figure['checker_rate_correlation']:.3f}{others_line}"
        )
        print(
            f"  very bad marks: both {both}, gnubg only {g_only}, bgai only {b_only}: "
            f"agreement {100 * figure['blunder_agreement']:.0f} %"
        )
        print(
            f"  of all {decisions} decisions, marked very bad or not alike: "
            f"{100 * (1 - len(differ) / decisions):.2f} %"
        )
        for name, key, x, y in differ:
            print(f"    {name} game {key[0]} {key[1]} {key[2]} #{key[3]}: gnubg -{x:.3f}, bgai -{y:.3f}")
        print(f"  luck rate mean |difference| {figure['luck_rate_mean_abs_diff']:.2f} mEMG")
        print(f"  {figure['seconds_per_file']:.1f} s a file")
        print(f"  {'file':<28} {'player':<20}  gnubg   bgai")
        for row in figure["per_player"]:
            name = Path(row["file"]).name
            print(f"  {name:<28} {row['player']:<20} {row['gnubg']:6.2f} {row['bgai']:6.2f}")
    if args.json:
        args.json.write_text(json.dumps(figures, indent=1))


if __name__ == "__main__":
    run_script(main)
