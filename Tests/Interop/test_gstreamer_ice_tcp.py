"""ICE-TCP (RFC 6544, RFC 4571 framing) against a peer we did not write: GStreamer 1.22's
webrtcbin, whose ICE is libnice, restricted to TCP candidates (`ice-udp=false`: it offers
`tcptype active` and `passive` only and connects to the relay's passive candidate).

(a) GStreamer WHIP publisher, TCP only -> our relay: live, the publisher's address at the relay
    is `tcp:...`, and an aiortc viewer (UDP) decodes >= 25 fps.
(b) `broadcast` (test pattern, one layer and --simulcast) -> our relay -> GStreamer WHEP viewer,
    TCP only: >= 25 fps decoded over >= 15 s, no gap over 500 ms, the relay's metrics show the
    TCP connection while it plays, and the session is still there at the end (DELETE 200).

The GStreamer peers (peers/gst_*.py) run under the system python3 with python3-gi
(ONAIR_GST_PYTHON), not the venv; tools/setup.sh installs them. Skipped, with the reason, when
gi, webrtcbin, libnice or the codecs are missing. `pytest -s` prints the figures.
"""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import time
import urllib.error
import urllib.request
from pathlib import Path

import pytest

from conftest import launch_relay
from harness import PEERS_DIR, REPO, ProcessGroup, start_peer

GST_PYTHON = os.environ.get("ONAIR_GST_PYTHON", "/usr/bin/python3")
BROADCAST_BIN = Path(os.environ.get("ONAIR_BROADCAST_BIN", str(REPO / ".build" / "debug" / "broadcast")))
ROOM = "42"
MIN_FPS = 25.0
MAX_GAP_MS = 500
VIEW_WINDOW_S = 15.0   # the GStreamer viewer's measured window, from its first decoded frame
AIORTC_WATCH_S = 10.0  # the aiortc viewer of the GStreamer publisher

PROBE = """
import gi
gi.require_version("Gst", "1.0"); gi.require_version("GstWebRTC", "1.0"); gi.require_version("Nice", "0.1")
from gi.repository import Gst, GstWebRTC, Nice
Gst.init(None)
missing = [e for e in ("webrtcbin", "nicesrc", "x264enc", "rtph264pay", "rtph264depay", "h264parse", "avdec_h264",
                       "opusenc", "rtpopuspay", "rtpopusdepay", "opusdec", "videotestsrc", "audiotestsrc")
           if Gst.ElementFactory.find(e) is None]
ice = Gst.ElementFactory.make("webrtcbin").find_property("ice-agent")
print(Gst.version_string() if not missing and ice else "missing: " + ", ".join(missing or ["webrtcbin ice-agent"]))
"""


@pytest.fixture(scope="module")
def gstreamer() -> str:
    """The GStreamer version string; skips the module when the peers cannot run here."""
    try:
        done = subprocess.run([GST_PYTHON, "-c", PROBE], capture_output=True, text=True, timeout=30)
    except OSError as error:
        pytest.skip(f"no system python for the GStreamer peers ({GST_PYTHON}: {error}; set ONAIR_GST_PYTHON)")
    out = done.stdout.strip().splitlines()
    if done.returncode != 0 or not out or out[-1].startswith("missing"):
        reason = out[-1] if out else (done.stderr.strip().splitlines() or ["no output"])[-1]
        pytest.skip(f"GStreamer webrtcbin/libnice peers unavailable under {GST_PYTHON}: {reason} "
                    "(tools/setup.sh installs python3-gi, gir1.2-gst-plugins-bad-1.0, gir1.2-nice-0.1, "
                    "gstreamer1.0-nice, gstreamer1.0-plugins-good/bad/ugly, gstreamer1.0-libav)")
    return out[-1]


def start_gst_peer(procs: ProcessGroup, name: str, script: str, *args, timeout: float = 90):
    return procs.start(name, [GST_PYTHON, "-u", str(PEERS_DIR / script), *[str(a) for a in args]],
                       timeout=timeout, cwd=str(PEERS_DIR))


def get(url: str) -> tuple[int, str]:
    try:
        with urllib.request.urlopen(url, timeout=5) as response:
            return response.status, response.read().decode()
    except urllib.error.HTTPError as error:
        return error.code, error.read().decode(errors="replace")


def stream(relay) -> dict:
    status, body = get(f"{relay.base_url}/api/streams/{ROOM}")
    return json.loads(body) if status == 200 else {}


def tcp_metrics(relay) -> dict:
    """onair_tcp_connections (open now) and onair_tcp_connections_accepted_total."""
    _, text = get(f"{relay.base_url}/metrics")
    values = {}
    for name in ("onair_tcp_connections", "onair_tcp_connections_accepted_total"):
        match = re.search(rf"^{name} (\S+)$", text, re.M)
        values[name] = float(match.group(1)) if match else None
    return values


def wait_until(predicate, timeout: float, what: str, *processes):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = predicate()
        if value:
            return value
        for process in processes:
            if process.poll() is not None:
                raise AssertionError(f"{process.name} exited ({process.returncode}) while waiting for {what}")
        time.sleep(0.2)
    raise AssertionError(f"no {what} within {timeout}s")


def frames_figures(path: Path) -> dict:
    """fps, longest gap and sizes from whep_viewer.py --frames-log (arrival wall times)."""
    lines = [line.split() for line in path.read_text().splitlines() if line.strip()]
    times = [float(fields[0]) for fields in lines]
    if len(times) < 2:
        return {"frames": len(times), "fps": 0.0, "max_gap_ms": None, "sizes": sorted({f[3] for f in lines})}
    gaps = [b - a for a, b in zip(times, times[1:])]
    return {"frames": len(times), "window_s": round(times[-1] - times[0], 2),
            "fps": round((len(times) - 1) / (times[-1] - times[0]), 2), "max_gap_ms": round(max(gaps) * 1000),
            "sizes": sorted({fields[3] for fields in lines})}


def tcp_candidates(lines: list[str]) -> list[str]:
    return [line for line in lines if " tcp " in line.lower()]


def test_gstreamer_tcp_publisher_to_aiortc_viewer(gstreamer, procs, tmp_path):
    """(a) TCP-only GStreamer WHIP publisher -> relay (publisher address tcp:...) -> aiortc viewer."""
    relay = launch_relay("onair", procs, tmp_path)
    publisher = start_gst_peer(procs, "gst-publisher", "gst_whip_publisher.py", "--url", relay.whip_url(ROOM),
                               "--token", relay.publish_token, "--tcp-only", "--duration", 60)
    posted = publisher.wait_event("posted", 20)
    assert posted["status"] == 201, f"WHIP POST of the GStreamer offer answered {posted['status']}"
    offered = posted["candidates"]
    assert offered and all(" tcp " in c.lower() for c in offered), f"--tcp-only offered non-TCP candidates: {offered}"
    publisher.wait_event("state", 15, lambda e: e["state"] == "connected")
    live = wait_until(lambda: (lambda s: s if s.get("live") and s.get("publisher") else None)(stream(relay)), 15,
                      f"live room {ROOM} at the relay", publisher)
    address = live["publisher"]["address"]
    print(f"\n[gst publisher] {gstreamer}; relay sees the publisher at {address}; codecs {live.get('codecs')}")
    assert address.startswith("tcp:"), f"the relay sees the TCP-only publisher at {address!r}, not a tcp: address"
    metrics = tcp_metrics(relay)
    assert (metrics["onair_tcp_connections"] or 0) >= 1, f"relay metrics show no open TCP connection: {metrics}"

    frames_log = tmp_path / "aiortc-frames.log"
    viewer = start_peer(procs, "aiortc-viewer", "whep_viewer.py", "--url", relay.whep_url(ROOM), "--no-index",
                        "--duration", AIORTC_WATCH_S, "--frames-log", frames_log, timeout=60)
    report = viewer.wait_event("report", AIORTC_WATCH_S + 30)
    figures = frames_figures(frames_log)
    still = stream(relay)
    publisher.signal(signal.SIGTERM)
    pub_report = publisher.wait_event("report", 15)
    pair = pub_report.get("selected_pair") or {}
    print(f"[gst publisher] selected pair {pair.get('local')} -> {pair.get('remote')}, live {pub_report['live_seconds']} s,"
          f" packets {pub_report['packets']}; aiortc viewer (UDP): {figures}, audio frames {report.get('audio_frames')}")
    assert report.get("error") is None and report["frames"] > 0, f"aiortc viewer failed: {report}"
    assert figures["fps"] >= MIN_FPS, (f"aiortc viewer decoded {figures['fps']} fps over {figures.get('window_s')} s "
                                       f"from the TCP publisher, want >= {MIN_FPS}: {figures}")
    assert report.get("audio_frames", 0) > 0, f"aiortc viewer decoded no audio: {report}"
    assert still.get("publisher", {}).get("address", "").startswith("tcp:"), f"publisher moved off TCP: {still.get('publisher')}"
    assert (pair.get("local", {}).get("transport", "").startswith("tcp")
            and pair.get("remote", {}).get("transport") == "tcp-passive"), f"libnice's selected pair is not TCP: {pair}"
    assert pub_report.get("error") is None, f"GStreamer publisher reported an error: {pub_report.get('error')}"


@pytest.mark.parametrize("simulcast", [False, True], ids=["single-layer", "simulcast"])
def test_broadcast_to_gstreamer_tcp_viewer(gstreamer, procs, tmp_path, simulcast):
    """(b) broadcast (test pattern) -> relay -> TCP-only GStreamer WHEP viewer for >= 15 s."""
    if not (BROADCAST_BIN.is_file() and os.access(BROADCAST_BIN, os.X_OK)):
        pytest.fail(f"broadcast binary not built: {BROADCAST_BIN} (swift build, or set ONAIR_BROADCAST_BIN)",
                    pytrace=False)
    relay = launch_relay("onair", procs, tmp_path)
    source = ["--simulcast", "--preset", "ultrafast"] if simulcast else []
    broadcast = procs.start("broadcast", [str(BROADCAST_BIN), "start", "--room", ROOM, "--relay", relay.base_url,
                                          "--size", "1280x720", "--fps", "30", *source],
                            timeout=120, cwd=str(tmp_path),
                            env={**os.environ, "ONAIR_BROADCAST_TOKEN": relay.publish_token})
    wait_until(lambda: stream(relay).get("live"), 20, f"live room {ROOM} at the relay", broadcast)

    duration = VIEW_WINDOW_S + 3  # the first frame comes within ~1 s of the POST
    viewer = start_gst_peer(procs, "gst-viewer", "gst_whep_viewer.py", "--url", relay.whep_url(ROOM), "--tcp-only",
                            "--duration", duration)
    posted = viewer.wait_event("posted", 20)
    assert posted["status"] == 201, f"WHEP POST of the GStreamer offer answered {posted['status']}"
    try:
        first = viewer.wait_event("first_frame", 15)
    except AssertionError as error:
        report = viewer.wait_event("report", 20) if viewer.wait(20) is not None else {}
        raise AssertionError(f"no frame decoded by the TCP-only GStreamer viewer ({error}): states "
                             f"{report.get('reached')}, selected pair {report.get('selected_pair')}, offered "
                             f"{posted['candidates']}, relay's answer {report.get('answer_candidates')}") from None
    time.sleep(VIEW_WINDOW_S / 2)  # mid-window: the TCP connection must be open while it plays
    playing = tcp_metrics(relay)
    sessions = stream(relay).get("viewer_sessions", [])
    report = viewer.wait_event("report", duration + 20)
    after = tcp_metrics(relay)
    pair = report.get("selected_pair") or {}
    layers = sorted({f"{s.get('width')}x{s.get('height')}" for s in sessions})
    print(f"\n[gst viewer {'simulcast' if simulcast else 'single-layer'}] {gstreamer}: {report['frames']} frames, "
          f"{report['fps']} fps over {report['window_s']} s, longest gap {report['max_gap_ms']} ms, "
          f"{report['width']}x{report['height']}, audio buffers {report['audio_buffers']}, first frame "
          f"{first.get('after_post_ms')} ms after the POST; selected pair {pair.get('local')} -> {pair.get('remote')}; "
          f"relay metrics mid-play {playing}, after {after}; relay's viewer layers {layers}")
    reached = report.get("reached")
    assert report.get("error") is None and report.get("delete_status") == 200, (
        f"the GStreamer TCP viewer's session did not last its {duration:.0f} s: error {report.get('error')!r}, "
        f"states {reached}, DELETE answered {report.get('delete_status')} (404: the relay had already ended the "
        f"session); {report['frames']} frames over {report['window_s']} s, longest gap {report['max_gap_ms']} ms")
    assert pair.get("local", {}).get("transport", "").startswith("tcp") and \
        pair.get("remote", {}).get("transport") == "tcp-passive", f"libnice's selected pair is not TCP: {pair}"
    assert tcp_candidates(report.get("answer_candidates", [])), \
        f"the relay's answer has no TCP candidate: {report.get('answer_candidates')}"
    assert (playing["onair_tcp_connections"] or 0) >= 1, f"relay metrics show no open TCP connection mid-play: {playing}"
    assert (playing["onair_tcp_connections_accepted_total"] or 0) >= 1, f"relay accepted no TCP connection: {playing}"
    assert len(sessions) == 1, f"relay lists {len(sessions)} viewer sessions mid-play, want 1: {sessions}"
    assert report["window_s"] >= VIEW_WINDOW_S, f"measured window {report['window_s']} s < {VIEW_WINDOW_S} s: {report}"
    assert report["fps"] >= MIN_FPS, (f"GStreamer TCP viewer decoded {report['fps']} fps over {report['window_s']} s, "
                                      f"want >= {MIN_FPS}")
    assert report["max_gap_ms"] < MAX_GAP_MS, (f"GStreamer TCP viewer's longest gap between decoded frames "
                                               f"{report['max_gap_ms']} ms, want < {MAX_GAP_MS} ms")
    assert report["audio_buffers"] > 0, "GStreamer TCP viewer decoded no audio"
    broadcast.signal(signal.SIGINT)
    assert broadcast.wait(15) is not None, "broadcast did not exit within 15 s of SIGINT"
