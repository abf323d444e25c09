#!/usr/bin/env python3
"""A new viewer's first frame, from its WHEP POST to its first decoded frame (issue target:
p95 <= 300 ms). Starts a relay and a live `broadcast` (test pattern, optionally --simulcast) on
loopback, then joins aiortc WHEP viewers one after another, each a random 0.1-1.2 s after the
one before (so some join right after another's keyframe request), each staying 2 s. Prints
each join and p50/p95/max.

    .venv-interop/bin/python tools/bench/join/join_bench.py --joins 20 [--simulcast]
"""

from __future__ import annotations

import argparse
import json
import os
import random
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

REPO = Path(__file__).resolve().parents[3]
PEERS = REPO / "Tests" / "Interop" / "peers"
PYTHON = str(REPO / ".venv-interop" / "bin" / "python")


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def percentile(values: list[float], p: float) -> float:
    ordered = sorted(values)
    index = max(0, min(len(ordered) - 1, round(p / 100 * len(ordered) + 0.5) - 1))
    return ordered[index]


def live(base: str) -> bool:
    try:
        with urllib.request.build_opener(urllib.request.ProxyHandler({})).open(f"{base}/api/streams/42", timeout=2) as r:
            return bool(json.loads(r.read()).get("live"))
    except Exception:
        return False


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--joins", type=int, default=20)
    parser.add_argument("--simulcast", action="store_true")
    parser.add_argument("--bin", default=str(REPO / ".build" / "debug"), help="folder with relay and broadcast")
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    random.seed(args.seed)
    http, udp = free_port(), free_port()
    base = f"http://127.0.0.1:{http}"
    workdir = Path(f"/tmp/onair-join-bench-{os.getpid()}")
    workdir.mkdir(parents=True, exist_ok=True)
    env = {**os.environ, "ONAIR_HTTP_PORT": str(http), "ONAIR_UDP_PORT": str(udp), "ONAIR_DATABASE": str(workdir / "relay.sqlite")}
    processes: list[subprocess.Popen] = []
    try:
        relay = subprocess.Popen([f"{args.bin}/relay", "serve"], env=env, cwd=workdir,
                                 stdout=open(workdir / "relay.log", "w"), stderr=subprocess.STDOUT)
        processes.append(relay)
        time.sleep(1)
        broadcast = subprocess.Popen([f"{args.bin}/broadcast", "start", "--room", "42", "--relay", base,
                                      "--size", "1280x720", "--fps", "30", *(["--simulcast"] if args.simulcast else [])],
                                     env=env, cwd=workdir, stdout=open(workdir / "broadcast.log", "w"), stderr=subprocess.STDOUT)
        processes.append(broadcast)
        deadline = time.monotonic() + 20
        while not live(base):
            if time.monotonic() > deadline:
                print("the room did not go live", file=sys.stderr)
                return 1
            time.sleep(0.2)
        time.sleep(3)
        firsts: list[float] = []
        viewers: list[subprocess.Popen] = []
        for join in range(args.joins):
            viewer = subprocess.Popen([PYTHON, "-u", str(PEERS / "whep_viewer.py"), "--url", f"{base}/whep/42",
                                       "--no-index", "--duration", "2"],
                                      cwd=PEERS, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
            viewers.append(viewer)
            time.sleep(random.uniform(0.1, 1.2))
        for join, viewer in enumerate(viewers):
            out, _ = viewer.communicate(timeout=30)
            report = next((json.loads(line) for line in reversed(out.splitlines())
                           if line.startswith("{") and '"report"' in line), {})
            first = report.get("first_frame_ms")
            print(f"join {join + 1:2}: first frame {first} ms (connected {report.get('connected_ms')} ms)")
            if first is not None:
                firsts.append(first)
        if not firsts:
            print("no viewer decoded a frame", file=sys.stderr)
            return 1
        print(f"first frame from the WHEP POST over {len(firsts)} joins{' (simulcast)' if args.simulcast else ''}: "
              f"p50 {percentile(firsts, 50):.0f} ms, p95 {percentile(firsts, 95):.0f} ms, max {max(firsts):.0f} ms; "
              f"{sum(f > 300 for f in firsts)} over 300 ms")
        return 0
    finally:
        for process in reversed(processes):
            process.send_signal(signal.SIGINT)
            try:
                process.wait(10)
            except subprocess.TimeoutExpired:
                process.kill()


if __name__ == "__main__":
    sys.exit(main())
