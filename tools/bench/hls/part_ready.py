#!/usr/bin/env python3
"""Part-ready latency: from the datagram that completes a part's last frame arriving on the
relay's media loop to that part being downloadable (in the packager's store, listed by the
playlist, answerable to a GET), the hand-over to the LL-HLS thread included. Also prints the
CPU time of each relay thread over the window (/proc/<pid>/task), which shows the forwarding
loop's share and the LL-HLS thread's.

The relay measures it itself for every part it publishes (HLSBranch: `now` of the datagram
read that completed the access unit -> after LLHLSPackager.append returned the part; that
span covers SRTP unprotect, the ring to the LL-HLS thread and its wake-up, RTP depacketization,
AU assembly, the Opus->AAC transcode of audio already queued, fMP4 muxing and publication). It is exposed as the Prometheus
histogram `onair_hls_part_ready_seconds` on /metrics and, at --log-level trace, as one
`HLS part published ... ready_us=...` line per part, which this program reads for exact
percentiles. Not covered: the kernel's receive queue before the relay's recvmmsg (the
datagram's wait for the media loop to read it is in the figure only once read).

Load: `broadcast start` (test pattern, x264 + Opus, real WebRTC) publishes --rooms rooms at
once for --seconds; optionally the relay is pinned with --relay-core.

  .venv-interop/bin/python tools/bench/hls/part_ready.py --seconds 30 --rooms 1
"""

from __future__ import annotations

import argparse
import os
import re
import sys
import time
import urllib.request

from hlsbench import Broadcast, Relay, default_binary, loadavg, percentile



def ready_samples(log: str) -> list[tuple[float, str]]:
    """(ready_us, closed_by) of every `HLS part published` trace line."""
    out = []
    for line in log.splitlines():
        if "HLS part published" in line:
            match = re.search(r"ready_us=([0-9.e+-]+)", line)
            closed = re.search(r"closed_by=(\w+)", line)
            if match:
                out.append((float(match.group(1)), closed.group(1) if closed else "?"))
    return out


def thread_times(pid: int) -> dict[str, tuple[str, float]]:
    """utime + stime in seconds of every thread of `pid`, by thread id: (name, seconds)
    (proc(5): /proc/<pid>/task/<tid>/stat fields 14 and 15, after the parenthesized name)."""
    ticks = os.sysconf("SC_CLK_TCK")
    out = {}
    for tid in os.listdir(f"/proc/{pid}/task"):
        try:
            text = open(f"/proc/{pid}/task/{tid}/stat").read()
        except OSError:
            continue
        name = text[text.index("(") + 1:text.rindex(")")]
        fields = text[text.rindex(")") + 2:].split()
        out[tid] = (name, (int(fields[11]) + int(fields[12])) / ticks)
    return out


def histogram(metrics: str) -> list[tuple[str, int]]:
    return [(m.group(1), int(float(m.group(2))))
            for m in re.finditer(r'onair_hls_part_ready_seconds_bucket\{le="([^"]+)"\} (\S+)', metrics)]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--relay-bin", default=default_binary("relay", "ONAIR_RELAY_BIN"))
    parser.add_argument("--broadcast-bin", default=default_binary("broadcast", "ONAIR_BROADCAST_BIN"))
    parser.add_argument("--seconds", type=float, default=30)
    parser.add_argument("--rooms", type=int, default=1)
    parser.add_argument("--size", default="1280x720")
    parser.add_argument("--part-target", type=float, default=0.33334)
    parser.add_argument("--relay-core", type=int, default=None)
    parser.add_argument("--broadcast-core", type=int, default=None)
    parser.add_argument("--realtime", action=argparse.BooleanOptionalAction, default=True,
                        help="relay and publishers as SCHED_RR priority 1 (default on)")
    args = parser.parse_args()

    relay = Relay(args.relay_bin, env={"ONAIR_HLS_PART_TARGET": str(args.part_target)}, core=args.relay_core,
                  log_level="trace", realtime=args.realtime)
    broadcasts = []
    try:
        for index in range(args.rooms):
            broadcasts.append(Broadcast(args.broadcast_bin, relay.base_url, f"ready-{index}", Relay.TOKEN,
                                        seconds=args.seconds + 5, size=args.size, core=args.broadcast_core,
                                        realtime=args.realtime))
        time.sleep(3)  # publishers connected, packaging under way
        threads0, t0 = thread_times(relay.process.pid), time.monotonic()
        time.sleep(args.seconds)
        threads1, t1 = thread_times(relay.process.pid), time.monotonic()
        time.sleep(3)
        with urllib.request.urlopen(f"{relay.base_url}/metrics", timeout=10) as response:
            metrics = response.read().decode()
    finally:
        for broadcast in broadcasts:
            broadcast.stop()
        relay.stop()
    parts = ready_samples(relay.log_text())
    samples = [us / 1000 for us, _ in parts]
    if not samples:
        print(f"no parts published; relay log tail:\n{relay.log_text()[-2000:]}")
        return 1
    buckets = histogram(metrics)
    total = dict(buckets).get("+Inf", 0)
    within = dict(buckets).get("0.01", 0)
    print(f"\nLL-HLS part-ready latency: {args.rooms} room(s) of {args.size} test pattern for {args.seconds:.0f} s, "
          f"part target {args.part_target * 1000:.2f} ms; relay {args.relay_bin}"
          f"{f' on core {args.relay_core}' if args.relay_core is not None else ''}{', SCHED_RR' if args.realtime else ''}; loadavg {loadavg()}")
    print(f"parts {len(samples)}: p50 {percentile(samples, 50):.3f} ms, p90 {percentile(samples, 90):.3f} ms, "
          f"p99 {percentile(samples, 99):.3f} ms, max {max(samples):.3f} ms  (trace log, exact)")
    by = {}
    for us, closed in parts:
        by.setdefault(closed, []).append(us / 1000)
    print("by what closed the part: " + ", ".join(
        f"{closed} {len(v)} (p99 {percentile(v, 99):.3f} ms)" for closed, v in sorted(by.items())))
    print(f"/metrics onair_hls_part_ready_seconds: {within} of {total} parts within 10 ms "
          f"({100 * within / max(total, 1):.2f} %)")
    print("buckets (le seconds: cumulative parts): " + ", ".join(f"{le}: {count}" for le, count in buckets))
    busy = sorted(((threads1[tid][1] - threads0.get(tid, (name, 0.0))[1], name, tid)
                   for tid, (name, _) in threads1.items()), reverse=True)
    print(f"relay threads' CPU over {t1 - t0:.1f} s (/proc, % of one core): " + ", ".join(
        f"{name}[{tid}] {100 * seconds / (t1 - t0):.1f} %" for seconds, name, tid in busy if seconds / (t1 - t0) >= 0.005))
    return 0


if __name__ == "__main__":
    sys.exit(main())
