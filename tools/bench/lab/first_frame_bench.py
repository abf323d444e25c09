#!/usr/bin/env python3
"""Navigation to first frame (issue 26): headless Chromium opens the relay's viewer page
/rooms/42 in the network lab, --loads times per network, and the page's own
window.onairViewer.firstFrameAtMs (performance.now() of the first frame presented, since
navigation) is the figure. Networks (Lab.block on viewer v1's link, real nftables rules):

  udp        nothing blocked: WebRTC over UDP
  tcp        every UDP datagram dropped: WebRTC over ICE-TCP (the relay's passive candidate)
  http-only  only TCP to the relay's HTTP port: LL-HLS, after the page's 3 s WebRTC wait

Prints each load's path and time, then p50 and p95 per network. `broadcast` publishes the
test pattern (--simulcast with --simulcast) for the whole run; each load is a fresh tab,
closed before the next. Needs root (tools/netlab). Run from the repository root:

  .venv-interop/bin/python tools/bench/lab/first_frame_bench.py [--loads 10] [--simulcast]

Binaries: ONAIR_RELAY_BIN, ONAIR_BROADCAST_BIN (default .build/debug/relay, .build/debug/broadcast).
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[3]
sys.path.insert(0, str(REPO / "Tests" / "Interop"))
from chromium import RECORD_VIDEO_FRAMES  # noqa: E402
from harness import ProcessGroup, netlab  # noqa: E402
from lab_cases import RELAY_PORTS, ROOM, _chromium_in, _close_chromium, percentile  # noqa: E402
import conftest  # noqa: E402
import test_fallback  # noqa: E402
from test_fallback import _live_stream  # noqa: E402

NETWORKS = {"udp": {}, "tcp": {"udp": True}, "http-only": {"udp": True, "tcp_open": (RELAY_PORTS[0],)}}
EXPECTED = {"udp": "webrtc-udp", "tcp": "webrtc-tcp", "http-only": "hls"}


def one_load(loop, browser, url: str, timeout: float = 20) -> dict:
    tab = loop.run(browser.open(url, name="viewer", init_script=RECORD_VIDEO_FRAMES), 25)
    try:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            state = loop.run(tab.json("window.onairViewer"), 10) or {}
            if state.get("firstFrameAtMs") is not None and state.get("state") == "live" and state.get("path"):
                return state
            time.sleep(0.05)
        return loop.run(tab.json("window.onairViewer"), 10) or {}
    finally:
        loop.run(browser._browser_call("Target.closeTarget", targetId=tab.target_id), 10)
        browser.tabs.remove(tab)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--loads", type=int, default=10)
    parser.add_argument("--simulcast", action="store_true")
    args = parser.parse_args()
    # The harness's hard timeouts are a test's: this run takes longer.
    conftest.RELAY_HARD_TIMEOUT = test_fallback.TIMEOUT = 1800
    module = netlab()
    lab = module.Lab(viewers=1)
    lab.up()
    workdir = Path(tempfile.mkdtemp(prefix="onair-first-frame-"))
    procs = ProcessGroup(workdir)
    figures: dict[str, list[float]] = {}
    try:
        relay = _live_stream(lab, procs, workdir, args.simulcast)
        loop, browser = _chromium_in(lab, "v1", procs, 3600)
        try:
            url = f"{relay.base_url}/rooms/{ROOM}?chat=off"
            for network, rules in NETWORKS.items():
                lab.unblock("v1")
                if rules:
                    lab.block("v1", **rules)
                times = figures.setdefault(network, [])
                for load in range(args.loads):
                    state = one_load(loop, browser, url)
                    at, path = state.get("firstFrameAtMs"), state.get("path")
                    print(f"{network} load {load + 1}: {path} first frame {at} ms", flush=True)
                    if at is not None and path == EXPECTED[network]:
                        times.append(at)
                    time.sleep(1)
        finally:
            _close_chromium(loop, browser)
    finally:
        procs.stop_all()
        lab.close()
    print(f"\nnavigation -> first frame, {'simulcast' if args.simulcast else 'one layer'}, {args.loads} loads each:")
    for network, times in figures.items():
        print(f"  {network:9} ({EXPECTED[network]}): {len(times)}/{args.loads} on that path, p50 "
              f"{percentile(times, 50) or 0:.0f} ms, p95 {percentile(times, 95) or 0:.0f} ms")
    return 0 if all(len(times) == args.loads for times in figures.values()) else 1


if __name__ == "__main__":
    sys.exit(main())
