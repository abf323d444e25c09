"""The viewer page where WebRTC cannot get through (issue 26, part 4), in the network lab
(tools/netlab; root only): `broadcast` (the test pattern, single-layer and --simulcast) ->
our relay -> headless Chromium on the relay's /rooms/42 in viewer v1's namespace, behind a
firewall made of real nftables rules (Lab.block: dropped on the way, both directions).

  clean         nothing blocked: the page plays over WebRTC, its selected candidate pair is
                UDP (window.onairViewer.path "webrtc-udp"), no fallback
  no-udp        every UDP datagram dropped: the WHEP session gets no media, the page plays
                LL-HLS within 5 s of navigation (path "hls", frames presented and counting);
                then UDP is let through again and the page, trying WebRTC in the background
                every 30 s, is back on "webrtc-udp" within 45 s
  http-only     only TCP to the relay's HTTP port gets out: LL-HLS within 5 s of navigation

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


@pytest.mark.chromium
@pytest.mark.parametrize("firewall, simulcast", [("clean", True), ("no-udp", True), ("http-only", False), ("http-only", True)],
                         ids=["clean-simulcast", "no-udp-simulcast", "http-only-single", "http-only-simulcast"])
def test_viewer_page_falls_back_to_ll_hls(firewall, simulcast, lab, procs, tmp_path):
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
        if firewall != "no-udp":
            return
        lab.unblock("v1")
        unblocked = time.monotonic()
        state = _wait(loop, tab, lambda v: v.get("path") == "webrtc-udp" and v.get("state") == "live"
                      and v.get("sessionFrames", 0) > 30, BACK_WITHIN_S)
        print(f"{firewall}: back on WebRTC {time.monotonic() - unblocked:.1f} s after UDP was let through: "
              f"{_viewer(state)}")
        assert not state["fellBack"] and state["webrtcTrials"] >= 1, _viewer(state)
    finally:
        _close_chromium(loop, browser, tmp_path)
