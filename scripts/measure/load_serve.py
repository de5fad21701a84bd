"""Load test of `bgai serve`'s move endpoint: N concurrent clients for M seconds, on 127.0.0.1 only.

Starts ``bgai serve`` in a subprocess on a free local port, lets ``--clients`` threads (one
keep-alive connection each) post ``/api/move`` requests for ``--seconds`` seconds after a short
warm-up, then stops the server. The positions are drawn from seeded random games (each a
Position ID and a roll), so every run asks the same questions. Prints requests per second,
p50 / p99 / max latency, the number of errors (any status but 200), and the server's resident
memory at the start of the measurement, its peak and at the end.

    python scripts/measure/load_serve.py --clients 8 --seconds 20 --level beginner
"""

from __future__ import annotations

import argparse
import http.client
import json
import os
import socket
import subprocess
import sys
import threading
import time

import numpy as np

from bgai.cli.main import run_script


def positions(count: int, seed: int) -> list[tuple[str, str]]:
    """(Position ID, dice) pairs from random legal play, seeded."""
    from bgai.engine.board import starting_board
    from bgai.formats import decode_position_id, encode_position_id
    from bgai.moves import legal_moves_batch

    rng = np.random.default_rng(seed)
    found: list[tuple[str, str]] = []
    board = starting_board()
    while len(found) < count:
        dice = tuple(int(d) for d in rng.integers(1, 7, size=2))
        moves = legal_moves_batch(board[None], [dice])[0]
        if len(moves) > 1:
            found.append((encode_position_id(board), f"{dice[0]}{dice[1]}"))
        if not moves:
            board = board[::-1].copy()  # a dance: the other side is on roll
            continue
        after = decode_position_id(moves[int(rng.integers(len(moves)))][1])
        board = starting_board() if after[0].sum() == 0 or after[1].sum() == 0 else after
    return found


def rss_kib(pid: int) -> int:
    with open(f"/proc/{pid}/status") as status:
        for line in status:
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    return 0


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--clients", type=int, default=8, help="concurrent clients (default 8)")
    parser.add_argument("--seconds", type=float, default=20.0, help="measured seconds (default 20)")
    parser.add_argument("--warmup", type=float, default=2.0, help="seconds before measuring (default 2)")
    parser.add_argument("--level", default="beginner", help="the opponent asked (default beginner)")
    parser.add_argument("--plies", type=int, default=None, help="ask for the best move at this ply instead")
    parser.add_argument("--threads", type=int, default=None, help="bgai serve --threads (default: the CPUs)")
    parser.add_argument("--positions", type=int, default=500, help="distinct positions asked (default 500)")
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    if not (1 <= args.clients <= 256 and 0 < args.seconds <= 600):
        parser.error("--clients 1-256 and --seconds up to 600")

    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    command = [sys.executable, "-m", "bgai", "serve", "--host", "127.0.0.1", "--port", str(port)]
    command += ["--level", args.level, "--max-games", "10"]
    if args.threads:
        command += ["--threads", str(args.threads)]
    asked = positions(args.positions, args.seed)
    server = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    try:
        deadline = time.monotonic() + 120
        while True:
            try:
                with socket.create_connection(("127.0.0.1", port), timeout=1):
                    break
            except OSError:
                if server.poll() is not None or time.monotonic() > deadline:
                    print(server.stderr.read().decode(), file=sys.stderr)
                    raise SystemExit("bgai serve did not start") from None
                time.sleep(0.2)

        latencies: list[list[float]] = [[] for _ in range(args.clients)]
        errors = [0] * args.clients
        start_at = time.monotonic() + args.warmup
        stop_at = start_at + args.seconds

        def client(k: int) -> None:
            rng = np.random.default_rng(args.seed * 1000 + k)
            connection = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
            while True:
                now = time.monotonic()
                if now >= stop_at:
                    break
                position, dice = asked[int(rng.integers(len(asked)))]
                body = {"position": position, "dice": dice, "opponent": args.level}
                if args.plies is not None:
                    body["plies"] = args.plies
                try:
                    connection.request(
                        "POST", "/api/move", json.dumps(body), {"Content-Type": "application/json"}
                    )
                    response = connection.getresponse()
                    response.read()
                    ok = response.status == 200
                except (OSError, http.client.HTTPException):
                    ok = False
                    connection.close()
                    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
                done = time.monotonic()
                if now >= start_at:  # warm-up requests are not counted
                    latencies[k].append(done - now)
                    errors[k] += not ok
            connection.close()

        threads = [threading.Thread(target=client, args=(k,)) for k in range(args.clients)]
        for thread in threads:
            thread.start()
        time.sleep(max(0.0, start_at - time.monotonic()))
        memory = [rss_kib(server.pid)]
        while time.monotonic() < stop_at:
            time.sleep(0.5)
            memory.append(rss_kib(server.pid))
        for thread in threads:
            thread.join()
        memory.append(rss_kib(server.pid))
    finally:
        server.terminate()
        try:
            server.wait(10)
        except subprocess.TimeoutExpired:
            server.kill()

    times = np.array([t for per_client in latencies for t in per_client]) * 1000
    what = f"best move at {args.plies}-ply" if args.plies is not None else f"{args.level}'s move"
    print(
        f"bgai serve, POST /api/move ({what}), {args.clients} clients, {args.seconds:g} s, "
        f"{len(asked)} positions, {os.cpu_count()} CPUs"
    )
    print(f"requests: {len(times)}  errors: {sum(errors)}  requests/s: {len(times) / args.seconds:.1f}")
    print(
        f"latency ms: p50 {np.percentile(times, 50):.1f}  p99 {np.percentile(times, 99):.1f}  "
        f"max {times.max():.1f}"
    )
    print(
        f"server memory (RSS) MiB: start {memory[0] / 1024:.1f}  peak {max(memory) / 1024:.1f}  "
        f"end {memory[-1] / 1024:.1f}"
    )
    return 1 if sum(errors) else 0


if __name__ == "__main__":
    run_script(main)
