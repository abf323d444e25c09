#!/usr/bin/env python3
"""ICE-TCP soak (issue 26): one viewer on a TCP connection for a long time, with no reconnect.
MediaMTX's TCP publishers dropped after 2-3 minutes; LiveKit's Safari-over-ICE/TCP viewers
reconnected every 30 s. Not a test: run from the repository root with the interop venv,

  .venv-interop/bin/python tools/bench/soak/tcp_viewer_soak.py [--minutes 30] [--simulcast]

Our relay (debug build, or ONAIR_RELAY_BIN) and `broadcast` (the test pattern, 1280x720 at
30 fps) on 127.0.0.1, and GStreamer's webrtcbin viewer restricted to TCP
(Tests/Interop/peers/gst_whep_viewer.py --tcp-only, libnice) for --minutes. Every 10 s the
relay's GET /api/streams/42 (the viewer's transport, restarts at a keyframe, bytes) and its
ICE-TCP metrics; at the end the viewer's own figures (frames decoded, fps, longest gap) and
whether it ever reconnected (the relay accepted one TCP connection, the viewer session id
never changed). Prints one line per minute and a summary; exits 1 when the viewer
reconnected, left, or decoded under 25 fps.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
import urllib.request
from pathlib import Path

REPO = Path(__file__).resolve().parents[3]
sys.path.insert(0, str(REPO / "Tests" / "Interop"))

import conftest  # noqa: E402
from conftest import launch_relay  # noqa: E402
from harness import ProcessGroup  # noqa: E402

ROOM = "42"


def get_json(url: str) -> dict:
    with urllib.request.urlopen(url, timeout=5) as response:
        return json.loads(response.read())


def metrics(base: str) -> dict[str, float]:
    with urllib.request.urlopen(f"{base}/metrics", timeout=5) as response:
        text = response.read().decode()
    return {line.rsplit(" ", 1)[0]: float(line.rsplit(" ", 1)[1]) for line in text.splitlines()
            if line.startswith("onair_tcp")}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--minutes", type=float, default=30)
    parser.add_argument("--simulcast", action="store_true")
    args = parser.parse_args()
    workdir = Path(os.environ.get("ONAIR_SOAK_DIR", "/tmp")) / f"onair-tcp-soak-{os.getpid()}"
    workdir.mkdir(parents=True, exist_ok=True)
    procs = ProcessGroup(workdir)
    seconds = args.minutes * 60
    broadcast_bin = os.environ.get("ONAIR_BROADCAST_BIN", str(REPO / ".build" / "debug" / "broadcast"))
    # The harness kills a relay after its test-sized hard timeout: this one runs the whole soak.
    conftest.RELAY_HARD_TIMEOUT = seconds + 300
    try:
        relay = launch_relay("onair", procs, workdir)
        procs.start("broadcast", [broadcast_bin, "start", "--room", ROOM, "--relay", relay.base_url, "--size", "1280x720",
                                  "--fps", "30", *(["--simulcast", "--preset", "ultrafast"] if args.simulcast else [])],
                    timeout=seconds + 120, cwd=str(workdir), env={**os.environ, "ONAIR_BROADCAST_TOKEN": relay.publish_token})
        deadline = time.monotonic() + 30
        while not _live(relay):
            if time.monotonic() > deadline:
                raise SystemExit("room 42 did not go live within 30 s")
            time.sleep(0.5)
        viewer = procs.start("gst-viewer", [os.environ.get("ONAIR_GST_PYTHON", "/usr/bin/python3"),
                                            str(REPO / "Tests" / "Interop" / "peers" / "gst_whep_viewer.py"),
                                            "--url", relay.whep_url(ROOM), "--tcp-only", "--duration", str(int(seconds))],
                             timeout=seconds + 120, cwd=str(workdir))
        viewer.wait_event("first_frame", 20)
        started = time.monotonic()
        sessions_seen: set[str] = set()
        worst = None
        next_line = started + 60
        while time.monotonic() - started < seconds and viewer.poll() is None:
            stream = get_json(f"{relay.base_url}/api/streams/{ROOM}")
            sessions = stream.get("viewer_sessions") or []
            sessions_seen.update(s["session"] for s in sessions)
            tcp = [s for s in sessions if s.get("transport") == "tcp"]
            if not tcp:
                worst = worst or f"at {time.monotonic() - started:.0f} s no TCP viewer session: {sessions}"
            if time.monotonic() >= next_line:
                next_line += 60
                m = metrics(relay.base_url)
                progress = viewer.last("progress") or {}
                print(f"{(time.monotonic() - started) / 60:4.1f} min: viewer sessions {sorted(sessions_seen)}, "
                      f"TCP {[(s['session'], s.get('layer'), s.get('transport_restarts')) for s in tcp]}, "
                      f"tcp connections {m.get('onair_tcp_connections')} accepted "
                      f"{m.get('onair_tcp_connections_accepted_total')}; viewer {json.dumps(progress)}", flush=True)
            time.sleep(10)
        report = viewer.wait_event("report", 60)
        m = metrics(relay.base_url)
        print(f"\nTCP soak {args.minutes:g} min ({'simulcast' if args.simulcast else 'one layer'}): "
              f"{report.get('frames')} frames, {report.get('fps')} fps over {report.get('window_s')} s, longest gap "
              f"{report.get('max_gap_ms')} ms, {report.get('width')}x{report.get('height')}; viewer sessions seen "
              f"{len(sessions_seen)}, TCP connections accepted {m.get('onair_tcp_connections_accepted_total')}"
              + (f"; {worst}" if worst else ""))
        ok = (len(sessions_seen) == 1 and m.get("onair_tcp_connections_accepted_total") == 1 and not worst
              and (report.get("fps") or 0) >= 25)
        return 0 if ok else 1
    finally:
        procs.stop_all()


def _live(relay) -> bool:
    try:
        return bool(get_json(f"{relay.base_url}/api/streams/{ROOM}").get("live"))
    except OSError:  # 404 before the publisher connects, or the relay still starting
        return False


if __name__ == "__main__":
    sys.exit(main())
