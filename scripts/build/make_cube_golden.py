"""Generate the cube module's oracle data from GNU Backgammon (needs the optional gnubg packages).

Writes two files, both regenerated only on purpose:

* ``bgai/data/met_kazaross_xg2.json`` (``--met``): gnubg's match equity table as it loads it
  (Kazaross-XG2, native to 25 points, extended by gnubg to 64).
* ``tests/data/cube_golden.json`` (``--golden``): gnubg 0-ply cube analyses. Positions come
  from self-play with ``gnubg_nn`` (mostly its best move, sometimes a random legal move),
  favouring close money decisions; each is crossed with money and match cube states. For
  every pair we store gnubg's 0-ply probabilities, the cube efficiency it uses, and its
  ND/DT/DP equities (normalised) and proper cube action from the ``hint`` command, or the
  no-double equity from ``eval`` where gnubg says "You cannot double.".

Two-sided bear-off positions are skipped: gnubg's money cube there comes from exact database
equities, not from probabilities.

Usage: ``python scripts/build/make_cube_golden.py --met --golden`` (about a minute of one CPU).
"""

from __future__ import annotations

import argparse
import json
import random
import sys
from pathlib import Path

from bgai import gnubg as oracle
from bgai.cli.main import run_script

ROOT = Path(__file__).resolve().parents[2]
MET_PATH = ROOT / "bgai" / "data" / "met_kazaross_xg2.json"
GOLDEN_PATH = ROOT / "tests" / "data" / "cube_golden.json"
START_PID = "4HPwATDgc/ABMA"

# (name, match length, my score, opp score, cube, owner, crawford, jacoby, beavers); player on roll first.
STATES = [
    ("money centred, Jacoby, beavers", 0, 0, 0, 1, "centred", False, True, True),
    ("money centred, no Jacoby, no beavers", 0, 0, 0, 1, "centred", False, False, False),
    ("money owned 2-cube, beavers", 0, 0, 0, 2, "me", False, True, True),
    ("money owned 4-cube, no beavers", 0, 0, 0, 4, "me", False, True, False),
    ("money opponent owns 2-cube", 0, 0, 0, 2, "opponent", False, True, True),
    ("7pt 0-0", 7, 0, 0, 1, "centred", False, False, False),
    ("3pt 0-0 (3a3a)", 3, 0, 0, 1, "centred", False, False, False),
    ("7pt 5-5 (2a2a)", 7, 5, 5, 1, "centred", False, False, False),
    ("5pt 1-3 (4a vs 2a)", 5, 1, 3, 1, "centred", False, False, False),
    ("5pt 3-1 (2a vs 4a)", 5, 3, 1, 1, "centred", False, False, False),
    ("7pt 4-5 (3a vs 2a)", 7, 4, 5, 1, "centred", False, False, False),
    ("11pt 0-0", 11, 0, 0, 1, "centred", False, False, False),
    ("7pt 3-6 post-Crawford (4a vs 1a)", 7, 3, 6, 1, "centred", False, False, False),
    ("7pt 5-6 post-Crawford (2a vs 1a)", 7, 5, 6, 1, "centred", False, False, False),
    ("7pt 4-6 post-Crawford (3a vs 1a)", 7, 4, 6, 1, "centred", False, False, False),
    ("7pt 6-3 post-Crawford leader", 7, 6, 3, 1, "centred", False, False, False),
    ("7pt 3-6 Crawford game", 7, 3, 6, 1, "centred", True, False, False),
    ("7pt 2-3 owned 2-cube", 7, 2, 3, 2, "me", False, False, False),
    ("7pt 1-2 opponent owns 2-cube", 7, 1, 2, 2, "opponent", False, False, False),
    ("9pt 2-4 owned 4-cube", 9, 2, 4, 4, "me", False, False, False),
    ("5pt 2-0 owned 2-cube (3a vs 5a)", 5, 2, 0, 2, "me", False, False, False),
    ("5pt 3-3 owned 2-cube (dead)", 5, 3, 3, 2, "me", False, False, False),
]


def dump_met() -> None:
    pre, post0, post1 = oracle.program().met(64)
    assert post0 == post1, "the bundled MET is symmetric"
    data = {
        "name": "Kazaross-XG2",
        "source": "gnubg 1.1.0a16 gnubg.met(64): Kazaross-XG2 to 25 points, extended by gnubg to 64",
        "pre_crawford_doc": "[i][j]: MWC of the player i+1-away vs j+1-away; row/column 0 = Crawford game",
        "post_crawford_doc": "[j]: MWC of the trailer j+1-away vs a 1-away leader after the Crawford game",
    }
    rows = [json.dumps([round(v, 7) for v in row]) for row in pre]
    text = (
        json.dumps(data, indent=1)[:-2] + ',\n "post_crawford": ' + json.dumps([round(v, 7) for v in post0])
    )
    text += ',\n "pre_crawford": [\n  ' + ",\n  ".join(rows) + "\n ]\n}\n"
    MET_PATH.write_text(text)
    print(f"wrote {MET_PATH}")


def self_play_positions(n_games: int, rng: random.Random) -> list[list[list[int]]]:
    """Boards before the roll (player on roll in row 1) from gnubg_nn self-play."""
    gnubg, gnubg_nn = oracle.program(), oracle.nn()
    boards = []
    for _ in range(n_games):
        board = [list(row) for row in gnubg.positionfromid(START_PID)]
        noise = rng.choice([0.0, 0.1, 0.3])
        while sum(board[0]) and sum(board[1]):
            boards.append(board)
            d1, d2 = rng.randint(1, 6), rng.randint(1, 6)
            if rng.random() < noise:
                keys = gnubg_nn.moves(board, d1, d2)
                if keys:
                    mover, other = gnubg_nn.board_from_position_key(rng.choice(keys))
                    board = [list(other), list(mover)]
                    continue
            _, key = gnubg_nn.best_move(board, d1, d2, b=1)
            board = [list(row) for row in gnubg_nn.board_from_position_key(key)]
    return boards


def cube_state(spec: tuple):
    from bgai.cube.state import CubeState, Owner

    _, length, mine, theirs, cube, owner, crawford, jacoby, beavers = spec
    if length == 0:
        return CubeState.money(cube, Owner(owner), jacoby=jacoby, beavers=beavers)
    return CubeState.match(length, mine, theirs, cube, Owner(owner), crawford=crawford)


def choose_positions(boards, n_wanted: int, rng: random.Random) -> list[dict]:
    """Distinct positions, two thirds of them close money decisions (by bgai's own analysis)."""
    from bgai.cube.decision import analyse_cube
    from bgai.cube.efficiency import cube_efficiency

    gnubg = oracle.program()
    seen, candidates = set(), []
    money = cube_state(STATES[0])
    for board in boards:
        pid = gnubg.positionid(board)
        cls = oracle.CLASSES[gnubg.classify(board)]
        if pid in seen or cls in ("over", "bearoff_ts", "hypergammon"):
            continue
        seen.add(pid)
        pips = sum((i + 1) * n for i, n in enumerate(board[1]))
        x = cube_efficiency(cls, pips)
        probs = list(gnubg.evaluate(board, gnubg.cubeinfo(), gnubg.evalcontext(0, 0, 1, 1, 0))[:5])
        a = analyse_cube([probs], money, x)
        nd, dt = float(a.nd[0]), float(a.dt[0])
        close = min(abs(nd - min(dt, 1.0)), abs(dt - 1.0)) < 0.1 and probs[0] < 0.97
        candidates.append({"pid": pid, "class": cls, "pips": pips, "x": x, "probs": probs, "close": close})
    rng.shuffle(candidates)
    close = [c for c in candidates if c["close"]]
    other = [c for c in candidates if not c["close"]]
    races = [c for c in other if c["class"] != "contact"]
    n_close = min(len(close), 2 * n_wanted // 3)
    chosen = close[:n_close] + races[: n_wanted // 10]
    rest = [c for c in other if c not in chosen]
    chosen += rest[: n_wanted - len(chosen)]
    return chosen


def gnubg_cube_analysis(pid: str, spec: tuple) -> list:
    """gnubg's 0-ply ``[ND, DT, DP, decision]`` for one position and cube state (normalised)."""
    return oracle.cube_analysis(pid, *spec[1:])


def make_golden(n_positions: int, seed: int) -> None:
    rng = random.Random(seed)
    for command in (
        "set threads 1",
        "set output digits 5",
        "set output mwc off",
        "set evaluation cubedecision evaluation plies 0",
        "set evaluation chequerplay evaluation plies 0",
    ):
        oracle.command_output(command)
    boards = self_play_positions(120, rng)
    positions = choose_positions(boards, n_positions, rng)
    keys = ["name", "match_length", "my_score", "opp_score", "cube", "owner", "crawford", "jacoby", "beavers"]
    for i, position in enumerate(positions):
        del position["close"]
        position["results"] = [gnubg_cube_analysis(position["pid"], spec) for spec in STATES]
        if i % 50 == 0:
            print(f"{i}/{len(positions)} positions", flush=True)
    header = {
        "doc": "gnubg 1.1.0a16 0-ply cube analyses; generated by scripts/build/make_cube_golden.py",
        "results_doc": "per cube state: [ND, DT, DP, decision], normalised equities of the player on roll;"
        " [ND, null, null, null] where gnubg says the cube is not available",
        "seed": seed,
        "states": [dict(zip(keys, spec, strict=True)) for spec in STATES],
    }
    lines = [json.dumps(header)[:-1] + ', "positions": [']
    lines += [json.dumps(position) + "," for position in positions]
    lines[-1] = lines[-1].rstrip(",")
    GOLDEN_PATH.parent.mkdir(parents=True, exist_ok=True)
    GOLDEN_PATH.write_text("\n".join(lines) + "\n]}\n")
    print(f"wrote {GOLDEN_PATH}: {len(positions)} positions x {len(STATES)} cube states")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--met", action="store_true", help="dump gnubg's MET to bgai/data")
    parser.add_argument("--golden", action="store_true", help="write tests/data/cube_golden.json")
    parser.add_argument("--positions", type=int, default=330)
    parser.add_argument("--seed", type=int, default=20240611)
    args = parser.parse_args()
    if args.met:
        dump_met()
    if args.golden:
        sys.path.insert(0, str(ROOT))
        make_golden(args.positions, args.seed)


if __name__ == "__main__":
    run_script(main)
