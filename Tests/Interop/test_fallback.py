"""The viewer page where UDP cannot get through (issue 26), in the network lab (tools/netlab;
root only): `broadcast` (the test pattern, single-layer and --simulcast) -> our relay ->
headless Chromium on the relay's /rooms/42 in viewer v1's namespace, behind a firewall made
of real nftables rules (Lab.block: dropped on the way, both directions).

  clean         nothing blocked: the page plays over WebRTC, its selected candidate pair is
                UDP (window.onairViewer.path "webrtc-udp", from getStats), no fallback
  no-udp        every UDP datagram dropped: the page plays WebRTC over ICE-TCP (RFC 6544: the
                relay's passive TCP candidate; path "webrtc-tcp") within 3 s of navigation,
                >= 28 fps over 15 s, no reconnect
  http-only     only TCP to the relay's HTTP port gets out (UDP and the media TCP port
                dropped): LL-HLS within 5 s of navigation; for simulcast, then everything is
                let through again and the page, trying WebRTC in the background every 30 s,
                is back on "webrtc-udp" within 45 s

  .venv-interop/bin/python -m pytest -s Tests/Interop/test_fallback.py
"""

from __future__ import annotations

import time

import pytest

from chromium import RECORD_VIDEO_FRAMES
from conftest import launch_relay
from harness import running_lab
from lab_cases import RELAY_PORTS, ROOM, BroadcastPublisher, Case, _chromium_in, _close_chromium, http_text, room_live

FIRST_FRAME_MS = 5000   # navigation -> first frame on LL-HLS (the page waits 3 s for WebRTC media)
TCP_FIRST_FRAME_MS = 3000  # navigation -> first frame over ICE-TCP
TCP_WINDOW_S = 15       # ICE-TCP playback measured this long
TCP_MIN_FPS = 28
BACK_WITHIN_S = 45      # UDP let through -> the page plays WebRTC again (it tries every 30 s)
TIMEOUT = 240


@pytest.fixture
def lab():
    yield from running_lab(1)


def _live_stream(lab, procs, tmp_path, simulcast: bool):
    """Our relay in the lab and `broadcast` publishing the test pattern; returns the relay
    once the room is live and its LL-HLS playlist is served."""
    relay = launch_relay("onair", procs, tmp_path, ports=RELAY_PORTS, netns=lab.netns("relay"),
                         address=lab.address("relay"))
    BroadcastPublisher(Case("fallback", "fallback", source="pattern", simulcast=simulcast), lab, procs, relay,
                       tmp_path, TIMEOUT)
    deadline = time.monotonic() + 30
    while not room_live(lab, relay):
        assert time.monotonic() < deadline, "room 42 did not go live within 30 s"
        time.sleep(0.25)
    while True:
        try:
            if "#EXTM3U" in lab.call("relay", http_text, f"{relay.base_url}/hls/{ROOM}/index.m3u8"):
                break
        except OSError:
            pass
        assert time.monotonic() < deadline, "no LL-HLS playlist within 30 s"
        time.sleep(0.25)
    # A viewer comes to a stream that has been live a while: Chromium's native HLS player
    # refuses a live playlist of one complete segment (DEMUXER_ERROR_COULD_NOT_PARSE; it plays
    # from the second on), which only a stream's first four seconds have.
    time.sleep(6)
    return relay


def _wait(loop, tab, predicate, timeout: float) -> dict:
    """window.onairViewer once `predicate` holds; fails with the page's state after `timeout` s."""
    deadline = time.monotonic() + timeout
    while True:
        state = loop.run(tab.json("window.onairViewer"), 10) or {}
        if predicate(state):
            return state
        assert time.monotonic() < deadline, f"not within {timeout} s: {_viewer(state)}"
        time.sleep(0.25)


def _viewer(state: dict) -> str:
    keys = ("state", "mode", "path", "fellBack", "fallbacks", "webrtcTrials", "frames", "sessionFrames",
            "firstFrameAtMs", "lastEnd", "lastError")
    return ", ".join(f"{key}={state.get(key)!r}" for key in keys) + f"; log: {state.get('log', [])[-6:]}"


def _tcp_playback(loop, tab, firewall: str):
    """ICE-TCP from the first: path webrtc-tcp, first frame within 3 s of navigation, then
    15 s at >= 28 fps with no reconnect; prints the figures."""
    state = _wait(loop, tab, lambda v: v.get("state") == "live" and v.get("path") == "webrtc-tcp"
                  and v.get("sessionFrames", 0) > 10, 15)
    print(f"\n{firewall}: first frame: {_viewer(state)}")
    assert not state["fellBack"] and state["mode"] == "webrtc", _viewer(state)
    assert state["firstFrameAtMs"] <= TCP_FIRST_FRAME_MS, f"first frame over ICE-TCP {state['firstFrameAtMs']} ms " \
        f"after navigation, target <= {TCP_FIRST_FRAME_MS} ms: {_viewer(state)}"
    start = len(loop.run(tab.presented_frames(), 10))
    time.sleep(TCP_WINDOW_S)
    frames = loop.run(tab.presented_frames(start), 10)
    state = loop.run(tab.json("window.onairViewer"), 10)
    times = [f[0] for f in frames]
    fps = (len(times) - 1) / (times[-1] - times[0]) if len(times) > 1 else 0.0
    freeze = max((b - a for a, b in zip(times, times[1:])), default=float("inf"))
    print(f"{firewall}: {len(frames)} frames in {TCP_WINDOW_S} s ({fps:.1f} fps), longest freeze {freeze * 1000:.0f} ms, "
          f"{frames[-1][1] if frames else 0}x{frames[-1][2] if frames else 0}: {_viewer(state)}")
    assert state["path"] == "webrtc-tcp" and state["reconnects"] == 0 and state["sessions"] == 1, _viewer(state)
    assert fps >= TCP_MIN_FPS and len(frames) >= TCP_MIN_FPS * (TCP_WINDOW_S - 1), \
        f"{fps:.1f} fps over ICE-TCP ({len(frames)} frames in {TCP_WINDOW_S} s), target >= {TCP_MIN_FPS}: {_viewer(state)}"


@pytest.mark.chromium
# (clean runs simulcast only: a page that fell back without cause would do so on either stream)
@pytest.mark.parametrize("firewall, simulcast", [("clean", True), ("no-udp", False), ("no-udp", True),
                                                 ("http-only", False), ("http-only", True)],
                         ids=["clean-simulcast", "no-udp-single", "no-udp-simulcast", "http-only-single",
                              "http-only-simulcast"])
def test_viewer_page_when_udp_is_blocked(firewall, simulcast, lab, procs, tmp_path):
    relay = _live_stream(lab, procs, tmp_path, simulcast)
    if firewall == "no-udp":
        lab.block("v1", udp=True)
    elif firewall == "http-only":
        lab.block("v1", udp=True, tcp_open=(RELAY_PORTS[0],))
    loop, browser = _chromium_in(lab, "v1", procs, TIMEOUT)
    try:
        tab = loop.run(browser.open(f"{relay.base_url}/rooms/{ROOM}?chat=off", name="viewer",
                                    init_script=RECORD_VIDEO_FRAMES), 25)
        viewer = "window.onairViewer"
        if firewall == "clean":
            state = _wait(loop, tab, lambda v: v.get("state") == "live" and v.get("path") == "webrtc-udp"
                          and v.get("sessionFrames", 0) > 30, 15)
            print(f"\n{firewall}: {_viewer(state)}")
            assert not state["fellBack"] and state["mode"] == "webrtc", _viewer(state)
            return
        if firewall == "no-udp":
            _tcp_playback(loop, tab, firewall)
            return
        state = _wait(loop, tab, lambda v: v.get("path") == "hls" and v.get("state") == "live"
                      and v.get("sessionFrames", 0) >= 30, FIRST_FRAME_MS / 1000 + 10)
        print(f"\n{firewall}: first frame: {_viewer(state)}")
        assert state["fellBack"] and state["mode"] == "hls", _viewer(state)
        assert state["firstFrameAtMs"] <= FIRST_FRAME_MS, f"LL-HLS's first frame {state['firstFrameAtMs']} ms " \
            f"after navigation, target <= {FIRST_FRAME_MS} ms: {_viewer(state)}"
        assert not any("HLS error" in line for line in state.get("log", [])), _viewer(state)
        before = state["frames"]
        time.sleep(6)
        state = loop.run(tab.json(viewer), 10)
        assert state["path"] == "hls" and state["frames"] - before >= 6 * 20, \
            f"LL-HLS does not play on: {state['frames'] - before} frames in 6 s: {_viewer(state)}"
        if not simulcast:
            return
        lab.unblock("v1")
        unblocked = time.monotonic()
        state = _wait(loop, tab, lambda v: v.get("path") == "webrtc-udp" and v.get("state") == "live"
                      and v.get("sessionFrames", 0) > 30, BACK_WITHIN_S)
        print(f"{firewall}: back on WebRTC {time.monotonic() - unblocked:.1f} s after the network was let through: "
              f"{_viewer(state)}")
        assert not state["fellBack"] and state["webrtcTrials"] >= 1, _viewer(state)
    finally:
        _close_chromium(loop, browser, tmp_path)
