"""Network-lab cases (tools/netlab): `broadcast` (or headless Chromium publishing its fake
camera) in the publisher's namespace -> our relay in the relay's namespace -> aiortc WHEP
viewers (or headless Chromium on the relay's viewer page) in viewers' namespaces, with the publisher's
uplink and/or viewer v1's downlink impaired (tbf rate limit, random loss), judged as a viewer
sees it: frames decoded per second, freezes (gaps between decoded frames), the decoded size
(which simulcast layer the relay sends it), glass-to-glass latency from the test pattern's
wall-clock barcode or, for files, from the capture times the RTCP sender reports give (every
namespace shares one clock). One implementation for Tests/Interop/test_lab.py and
tools/bench/lab/lab_bench.py.

Timeline of a case: impair the uplink and v1's downlink, start the relay and the broadcast,
wait until the room is live, start the viewer(s) (v1; v2 clean when the case has a second
viewer), wait for their first frames, settle, measure (rate changes happen at their times
into the measurement: `change_at` for the uplink, `downlink_changes` for v1's downlink), read
the relay's GET /api/streams/42 (also once a second during the measurement: the relay's
per-viewer layer and estimate), stop the broadcast with SIGINT (its --stats-json), stop the
viewers, judge their per-frame logs (aiortc: every decoded frame; Chromium: every frame its
<video> presents, plus its getStats() once a second and, where the case says, a choice in the
page's quality menu).
"""

from __future__ import annotations

import asyncio
import dataclasses
import json
import math
import os
import re
import signal
import subprocess
import threading
import time
from collections import Counter
import urllib.error
import urllib.request
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import urlencode

from chromium import RECORD_PEER_CONNECTIONS, RECORD_VIDEO_FRAMES, CDPError, Chromium, start_web_server
from conftest import Relay, launch_relay
from harness import PEERS_DIR, PYTHON, REPO, ManagedProcess, ProcessGroup, refpeer_bin, wait_for_tcp

ROOM = "42"
FREEZE_MS = 300          # a gap between decoded frames longer than this is a freeze
BITRATE = "2500k"        # --video-bitrate and --max-bitrate of every case
BROADCAST_BIN = Path(os.environ.get("ONAIR_BROADCAST_BIN", str(REPO / ".build" / "debug" / "broadcast"))).resolve()
MEDIA_CACHE = Path(os.environ.get("ONAIR_LAB_MEDIA", "/tmp/onair-lab-media"))
RELAY_PORTS = (8080, 10000)  # the relay's namespace is empty: fixed ports are free


@dataclass(frozen=True)
class Case:
    name: str
    title: str
    source: str = "noise"              # "noise": a noisy 720p file with --loop (fills the bitrate);
                                       # "pattern": 1280x720 test pattern (~600 kbit/s; barcodes)
    uplink_kbit: float | None = None   # publisher uplink rate limit (tbf) from the start
    uplink_loss: float = 0.0           # publisher uplink random loss, percent
    uplink_tcp: bool = False           # the publisher's network drops every UDP datagram (Lab.block):
                                       # broadcast goes live over ICE-TCP, its --stats-json path "tcp"
    change_to_kbit: float | None = None  # the uplink rate changes to this ...
    change_at: float = 10.0              # ... this many seconds into the measurement
    judge_after: float = 0.0             # targets apply from this long after the change
    min_fps: float | None = 27.0
    max_freeze_ms: float | None = FREEZE_MS
    max_p50_ms: float | None = None
    max_p95_ms: float | None = None
    needs_resent: bool = False           # broadcast's retransmitted_packets must be > 0
    simulcast: bool = False              # broadcast --simulcast (f, h, q layers)
    # Simulcast: rids on for >= 70 % of the measurement (broadcast's status lines), and rids on
    # for <= 30 % of it (a paused layer is tried again now and then: that is how it learns).
    mostly_on: tuple[str, ...] = ()
    mostly_off: tuple[str, ...] = ()
    # -- the viewer side: v1's downlink (relay -> v1) and a second, clean viewer v2 --------
    downlink_kbit: float | None = None   # tbf on v1's downlink from the start
    downlink_loss: float = 0.0           # random loss on v1's downlink, percent
    # (seconds into the measurement, v1's new downlink kbit/s or None: no limit at all), in order
    downlink_changes: tuple[tuple[float, float | None], ...] = ()
    judge_from_start: float = 0.0        # min_fps, max_freeze_ms apply from this long into the measurement
    expect_height: int | None = None     # most of v1's frames from judge_from_start to the first
                                         # downlink change are this tall (the relay's layer for the link)
    restore_height: int | None = None    # after the last downlink change v1 decodes a frame this tall ...
    restore_within: float | None = None  # ... within this many seconds (None: measured, no target)
    second_viewer: bool = False          # v2 on a clean link, judged over the whole measurement
    second_min_fps: float | None = None
    second_max_freeze_ms: float | None = None
    second_height: int | None = None     # every frame v2 decodes in the measurement is this tall
    join_after: float = 0.0              # the viewers join this long after the room is live
    settle: float | None = None          # this case's settle / measurement seconds (None: the
    measure: float | None = None         # callers' defaults, SETTLE and MEASURE)
    bench_only: bool = False             # run by lab_bench.py only (a figure, not a target)
    # -- real browsers (chromium.py) --------------------------------------------------------
    publisher: str = "broadcast"         # "broadcast", or "chromium": web/publisher.html's fake camera
                                         # (a noisy 1280x720 file) over WHIP, simulcast rids q, h, f
    viewer: str = "aiortc"               # v1: "aiortc" (peers/whep_viewer.py), or "chromium": the
                                         # relay's viewer page /rooms/42 (frames its <video> presents)
    ice_tcp: bool = False                # v1's network drops every UDP datagram (Lab.block): the
                                         # Chromium page plays over ICE-TCP (RFC 6544), its path
                                         # must say "webrtc-tcp" at the end
    ipv6: str = ""                       # "only": v1's namespace has only an IPv6 address (netlab's
                                         # 2001:2::/48); "dual": IPv4 and IPv6. The relay binds media.bind
                                         # "::" and HTTP "::", advertises the addresses its interfaces
                                         # have (no advertised_addresses), v1 opens http://[2001:2::1]:8080,
                                         # and the relay must list v1's session with address_family "ipv6"
                                         # (dual: the relay's IPv6 candidates come first, RFC 8421 §4)
    below_height: int | None = None      # every frame v1 decodes from judge_from_start on is shorter
                                         # (the relay sends it a lower layer than this)
    # Chromium v1, its inbound-rtp video getStats() once a second from judge_from_start to the
    # first downlink change: frameWidth this at the end and in >= 80 % of the samples ...
    stats_width: int | None = None
    stats_min_fps: float | None = None   # ... and framesPerSecond (mean of the samples) at least this
    menu_height: int | None = None       # Chromium v1, after the measurement: choose this layer in the
                                         # page's quality menu; getStats' size and the page's own layer
                                         # display must follow within MENU_WITHIN s
    # A relay defect (described here) that makes this case miss its targets: test_lab.py reports
    # the run as an expected failure (xfail) while the targets the defect explains are missed.
    known_defect: str | None = None
    # The misses the defect explains (substrings of problems()); None: all of them.
    defect_excuses: tuple[str, ...] | None = None
    # -- a dip of v1's downlink (issue 24, "never worse than none"): clean, then `downlink_changes`
    # ((at, kbit), (at + seconds, None)), then clean again; see `dip` and DipFigures ----------
    max_time_back_s: float | None = None   # the picture is back within this long after the link
                                           # recovered (time_back(): 0 when frames flowed through)
    max_audio_gap_ms: float | None = None  # longest gap between v1's audio frames during the dip
                                           # (aiortc's decoded frames; whep_viewer.py --audio-log)

    @property
    def viewers(self) -> int:
        """How many viewer namespaces the case's lab needs (netlab.Lab(viewers=...))."""
        return 2 if self.second_viewer else 1

    @property
    def ipv6_only_peers(self) -> tuple[str, ...]:
        """The lab peers with only an IPv6 address (netlab.Lab(ipv6=..., ipv6_only=...))."""
        return ("v1",) if self.ipv6 == "only" else ()

    @property
    def chromium(self) -> bool:
        """A headless Chromium takes part (the publisher or v1): test_lab.py's chromium tests."""
        return self.publisher == "chromium" or self.viewer == "chromium"

    @property
    def dip(self) -> tuple[float, float, float] | None:
        """(seconds into the measurement, kbit/s, seconds long) of a dip of v1's downlink: no
        limit before and after it (downlink_changes ((at, kbit), (at + seconds, None)))."""
        changes = self.downlink_changes
        if (self.downlink_kbit is None and len(changes) == 2 and changes[0][1] is not None
                and changes[1][1] is None):
            return changes[0][0], changes[0][1], changes[1][0] - changes[0][0]
        return None

    @property
    def viewer_side(self) -> bool:
        """Impairs or judges the viewer side (v1's downlink, a second viewer)."""
        return bool(self.downlink_kbit or self.downlink_loss or self.downlink_changes or self.second_viewer)


SETTLE, MEASURE = 8.0, 15.0  # defaults for cases without their own (450 frames judged)
MENU_WITHIN = 10.0   # seconds for a quality-menu choice to show (getStats size and the page's layer)
MENU_WATCH = 3.0     # seconds of frames watched after it showed


def _lab_cases() -> list[Case]:
    return [
    Case("clean", "clean links (baseline)", source="pattern"),
    Case("uplink-1mbit", "publisher uplink tbf 1 Mbit/s", uplink_kbit=1000, max_p50_ms=250),
    # ICE-TCP (issue 26): the publisher's network drops UDP; broadcast connects to the relay's
    # passive TCP candidate. Over TCP a thin uplink shows as delay, never loss.
    # Bench only: uplink-tcp-1mbit (here) and test_broadcast_turn_lab's relay-tls cover TCP uplinks.
    Case("uplink-tcp", "publisher's UDP dropped: broadcast over ICE-TCP, test pattern", source="pattern",
         uplink_tcp=True, min_fps=28, bench_only=True),
    Case("uplink-tcp-1mbit", "publisher's UDP dropped, uplink tbf 1 Mbit/s: broadcast over ICE-TCP",
         uplink_tcp=True, uplink_kbit=1000, max_p95_ms=500),
    Case("uplink-loss5", "publisher uplink 5 % random loss", uplink_loss=5, min_fps=28, needs_resent=True),
    Case("uplink-drop", "publisher uplink 2.5 -> 0.8 Mbit/s mid-stream", uplink_kbit=2500,
         change_to_kbit=800, change_at=10, judge_after=5, min_fps=None, measure=25),
    # The top layer goes first: 1 Mbit/s carries q (150k) + h (600k), not f (>= 600k more).
    # Only the layer states are targets here; switching viewers between layers is the relay's
    # next step (figures printed).
    Case("uplink-1mbit-simulcast", "publisher uplink tbf 1 Mbit/s, broadcast --simulcast", uplink_kbit=1000,
         simulcast=True, mostly_on=("h", "q"), mostly_off=("f",), min_fps=None, max_freeze_ms=None,
         settle=10, measure=30),  # h comes on over the first seconds: judged over 30 s (47 % over 15)
    # The viewer side: broadcast --simulcast (f 1280x720 ~2.5 Mbit/s, h 640x360 ~600k, q
    # 320x180 ~150k) on a clean uplink; the relay picks each viewer's layer from its estimate.
    # 1 Mbit/s carries h, not f: 360 lines from 4 s in; the limit lifted, 720 lines again.
    Case("downlink-1mbit", "viewer downlink tbf 1 Mbit/s, lifted after 20 s, broadcast --simulcast",
         simulcast=True, downlink_kbit=1000, downlink_changes=((20, None),), judge_from_start=4,
         min_fps=27, max_freeze_ms=500, expect_height=360, restore_height=720, restore_within=15,
         settle=6, measure=36),
    # 5 % random loss on v1's downlink: NACKs repair it (resent unasked to aiortc, which asks
    # once per gap); the viewer keeps its layer.
    Case("downlink-loss5", "viewer downlink 5 % random loss, broadcast --simulcast", simulcast=True,
         downlink_loss=5, min_fps=28, max_freeze_ms=FREEZE_MS, settle=6, measure=16),
    # v1's 600 kbit/s must not drag v2 down: v2 keeps f (720 lines) throughout.
    Case("two-viewers-600k", "viewer v1 downlink tbf 600 kbit/s, v2 clean, broadcast --simulcast",
         simulcast=True, downlink_kbit=600, second_viewer=True, min_fps=None, max_freeze_ms=None,
         second_min_fps=29, second_max_freeze_ms=FREEZE_MS, second_height=720, settle=6, measure=16),
    # Bench only (figures): how fast the relay switches v1 down when its link drops, and up
    # again when the limit goes.
    Case("downlink-drop-5to1", "viewer downlink 5 -> 1 Mbit/s after 10 s, lifted after 25 s, "
         "broadcast --simulcast", simulcast=True, downlink_kbit=5000, downlink_changes=((10, 1000), (25, None)),
         min_fps=None, max_freeze_ms=None, restore_height=720, settle=6, measure=40, bench_only=True),
    # Real browsers (chromium.py), each in its lab namespace. Chromium's viewer page behind
    # 1 Mbit/s: Chromium gives transport-cc feedback, so this is the relay's send-side
    # estimator (aiortc gives REMB and receiver reports). 1 Mbit/s carries h (640x360), not f.
    # Then the page's quality menu: 320x180 chosen, getStats' size and the page's own layer
    # display follow.
    Case("chromium-viewer-1mbit", "Chromium viewer page, downlink tbf 1 Mbit/s, broadcast --simulcast; "
         "quality menu -> 320x180", simulcast=True, viewer="chromium", downlink_kbit=1000, stats_width=640,
         stats_min_fps=25, menu_height=180, min_fps=None, max_freeze_ms=None, settle=8, measure=12),
    # Chromium publishing simulcast q/h/f over WHIP (fake camera playing a noisy 1280x720 file:
    # f ~2.5 Mbit/s, h ~500k, q ~150k) and an aiortc viewer behind 600 kbit/s: never f.
    Case("chromium-publisher-600k", "Chromium simulcast publisher (WHIP, q/h/f), viewer downlink tbf 600 kbit/s",
         simulcast=True, publisher="chromium", downlink_kbit=600, below_height=720, min_fps=24, max_freeze_ms=1000,
         settle=8, measure=16,
         known_defect="h (496k, ~590k on the wire with audio) barely fits the 600 kbit/s link: a probe 6 % over it "
                      "passes inside the tbf's 16 KB burst, and a switch up to h can overrun the link and leave "
                      "aiortc's jitter buffer seconds behind (a 2.7 s freeze; 1812 ms in CI before the probe "
                      "queue check and the settling after a switch up, 3 of 3 bench runs passed after them)",
         defect_excuses=("fps decoded", "longest freeze")),
    # ICE-TCP (issue 26): v1's network drops UDP, the page plays over the relay's passive TCP
    # candidate. The kernel retransmits, so a slow link shows as a growing send queue, never
    # as loss: the relay holds ~250 ms of the viewer's media in its queue and drops RTP beyond
    # it, so the picture stays live. The test pattern (barcodes: glass-to-glass).
    # IPv6 (issue 26 part 4): the relay is dual stack. aiortc from an IPv6-only v1; Chromium from
    # a dual-stack one: without a camera or microphone permission Chromium gathers on its default
    # route only, and in an IPv6-only namespace it gathered no candidate at all (see the note).
    Case("ipv6-only-aiortc", "aiortc viewer from an IPv6-only network, test pattern, one layer",
         source="pattern", ipv6="only", min_fps=28, settle=4, measure=10),
    Case("ipv6-only-aiortc-simulcast", "aiortc viewer from an IPv6-only network, broadcast --simulcast",
         source="pattern", simulcast=True, ipv6="only", min_fps=28, settle=4, measure=10),
    Case("ipv6-chromium", "Chromium viewer page over IPv6 (dual-stack network), test pattern, one layer",
         source="pattern", viewer="chromium", ipv6="dual", min_fps=28, settle=4, measure=10,
         bench_only=True),  # ipv6-chromium-tcp is the suite's one-layer Chromium case over IPv6
    Case("ipv6-chromium-simulcast", "Chromium viewer page over IPv6 (dual-stack network), broadcast --simulcast",
         source="pattern", simulcast=True, viewer="chromium", ipv6="dual", min_fps=28, settle=4, measure=10),
    Case("ipv6-chromium-tcp", "Chromium viewer page over IPv6 from a dual-stack network that drops UDP: ICE-TCP",
         source="pattern", viewer="chromium", ipv6="dual", ice_tcp=True, min_fps=28, settle=4, measure=10),
    Case("chromium-tcp-1mbit", "Chromium viewer page over ICE-TCP (UDP dropped), downlink tbf 1 Mbit/s, "
         "test pattern, one layer", source="pattern", viewer="chromium", ice_tcp=True, downlink_kbit=1000,
         max_p95_ms=500, settle=6, measure=12),
    Case("chromium-tcp-1mbit-simulcast", "Chromium viewer page over ICE-TCP (UDP dropped), downlink tbf 1 Mbit/s, "
         "test pattern, broadcast --simulcast", source="pattern", simulcast=True, viewer="chromium", ice_tcp=True,
         downlink_kbit=1000, max_p95_ms=500, settle=6, measure=12),
    # Bench only: the pattern's f (~560 kbit/s) does not fit with its audio, h (~420) does,
    # with little to spare: TCP keeps the tbf's queue full, and the latency shows it.
    Case("chromium-tcp-600k-simulcast", "Chromium viewer page over ICE-TCP (UDP dropped), downlink tbf 600 kbit/s, "
         "test pattern, broadcast --simulcast", source="pattern", simulcast=True, viewer="chromium", ice_tcp=True,
         downlink_kbit=600, below_height=720, settle=6, measure=20, bench_only=True),
    # Bench only: a viewer joining 6 s after the start, when f is at full rate. Before receiver
    # reports steered the estimate at most once per 400 ms, 2 of 5 runs failed (the loss burst of
    # its start on f took the estimate to the floor: paused 14 s); 3 of 3 pass since.
    Case("chromium-viewer-1mbit-join6s", "Chromium viewer page joining 6 s after the start, downlink tbf "
         "1 Mbit/s, broadcast --simulcast", simulcast=True, viewer="chromium", downlink_kbit=1000, join_after=6,
         stats_width=640, stats_min_fps=25, min_fps=None, max_freeze_ms=None, settle=8, measure=12,
         bench_only=True),
    ]


# -- dips of the viewer's downlink (issue 24, "never worse than none") --------------------------
# The stream (one layer: `broadcast` without --simulcast, the noisy 720p file at 2.5 Mbit/s, its
# default 2 s GOP; or simulcast f/h/q) x v1's downlink dropping from no limit to DIP_RATES for
# DIP_SECONDS and back to no limit x the viewer (aiortc decodes; Chromium presents frames on the
# relay's viewer page; the Pion client only receives: rtp_sniffer.py logs its packets). Judged as
# the viewer sees it over the whole measurement (DIP_BEFORE s, the dip, DIP_AFTER s): the longest
# freeze <= the dip + DIP_FREEZE_MARGIN (the picture can only come back once the link has: a
# relay with no estimator shows the dip plus up to a GOP), the time back after the recovery
# <= DIP_TIME_BACK, and for aiortc in the 10 s dip to 300 kbit/s the sound goes on (no gap
# between decoded audio frames over DIP_AUDIO_GAP_MS during the dip). The relay's paused seconds
# and layer switches per viewer come from GET /api/streams/42.
DIP_RATES = (1500, 800, 300)          # kbit/s
DIP_SECONDS = (1, 3, 10)
DIP_BEFORE, DIP_AFTER, DIP_SETTLE = 4.0, 10.0, 6.0
DIP_TIME_BACK = 2.0                   # s (issue 24)
DIP_FREEZE_MARGIN = 2.5               # s over the dip
DIP_AUDIO_GAP_MS = 500
DIP_STREAMS = {"1layer": ("aiortc", "chromium", "pion", "chromium-tcp"), "simulcast": ("aiortc", "chromium", "chromium-tcp")}
# test_lab.py's (CI: ~2.5 min together); the rest of the matrix runs in lab_bench.py
# (the 10 s dip's aiortc case, an expected failure on its audio target, runs there too, as do the
# dips over ICE-TCP: the lab's chromium-tcp-* cases and test_fallback's no-udp keep TCP viewers here)
DIP_CI = {("1layer", 800, 3): ("chromium", "aiortc", "pion"),
          ("1layer", 300, 10): ("chromium", "pion"), ("simulcast", 800, 3): ("chromium",)}


# A target no relay meets in this lab (see the reason): the run is an expected failure
# while only this target is missed, a hard failure on any other (time back, freeze).
DIP_KNOWN_DEFECTS = {
    "dip-1layer-300k-10s-aiortc": (
        "no relay can keep aiortc's audio gap under 500 ms in this dip: the flood fills the link's "
        "queue (tbf: 300 ms at 300 kbit/s plus its 16 KB burst, 0.72 s) before any packet that shows "
        "the loss gets through it, so the audio behind it arrives 0.7 s late whatever the relay does "
        "next, and aiortc's audio jitter buffer (16 packets) holds 320 ms behind each lost packet; "
        "the relay pauses video once three NACK spans (0.25 s each) show over 88 % lost, the queue "
        "then drains: 0.95-1.95 s gaps measured, the Pion relay (no estimator) 1.4-4.1 s in the same dip",
        ("longest audio gap",)),
}


def dip_case(stream: str, kbit: int, seconds: int, viewer: str) -> Case:
    """One case of the dip matrix, named dip-<1layer|simulcast>-<kbit>k-<seconds>s-<viewer>
    (viewer "chromium-tcp": Chromium with its UDP dropped, over ICE-TCP)."""
    name = f"dip-{stream}-{kbit}k-{seconds}s-{viewer}"
    tcp = viewer == "chromium-tcp"
    viewer = "chromium" if tcp else viewer
    what = "one layer (broadcast, noisy 720p, 2.5 Mbit/s)" if stream == "1layer" else "broadcast --simulcast"
    audio = viewer == "aiortc" and kbit == 300 and seconds == 10
    return Case(name, f"v1 ({viewer}{' over ICE-TCP' if tcp else ''}) downlink no limit -> {kbit} kbit/s for "
                f"{seconds} s -> no limit, {what}", simulcast=stream == "simulcast", viewer=viewer, ice_tcp=tcp,
                downlink_changes=((DIP_BEFORE, kbit), (DIP_BEFORE + seconds, None)),
                min_fps=None, max_freeze_ms=(seconds + DIP_FREEZE_MARGIN) * 1000, max_time_back_s=DIP_TIME_BACK,
                max_audio_gap_ms=DIP_AUDIO_GAP_MS if audio else None,
                settle=DIP_SETTLE, measure=DIP_BEFORE + seconds + DIP_AFTER,
                bench_only=(f"{viewer}-tcp" if tcp else viewer) not in DIP_CI.get((stream, kbit, seconds), ()),
                known_defect=DIP_KNOWN_DEFECTS.get(name, (None, None))[0],
                defect_excuses=DIP_KNOWN_DEFECTS.get(name, (None, None))[1])


def _dip_cases() -> list[Case]:
    ci = [dip_case(stream, kbit, seconds, viewer) for (stream, kbit, seconds), viewers in DIP_CI.items()
          for viewer in viewers]
    rest = [dip_case(stream, kbit, seconds, viewer) for stream, viewers in DIP_STREAMS.items()
            for kbit in DIP_RATES for seconds in DIP_SECONDS for viewer in viewers]
    return ci + [case for case in rest if case.bench_only]


ALL_CASES = {case.name: case for case in [*_lab_cases(), *_dip_cases()]}
CASES = {name: case for name, case in ALL_CASES.items() if not case.bench_only}  # test_lab.py's
BENCH_ONLY = {name: case for name, case in ALL_CASES.items() if case.bench_only}


# -- judging what the viewer decoded -----------------------------------------------------

def percentile(values: list[float], p: float) -> float | None:
    """Nearest-rank percentile (p in 0..100), None when empty."""
    if not values:
        return None
    ordered = sorted(values)
    return ordered[min(len(ordered), max(1, math.ceil(p / 100 * len(ordered)))) - 1]


# arrival (wall s), capture ms: barcode, sender report; decoded width, height (None: a
# 3-column log from an older whep_viewer.py)
Frame = tuple[float, int | None, int | None, int | None, int | None]


def judge(frames: list[Frame], start: float, end: float) -> dict:
    """Figures of the frames decoded in [start, end] (wall seconds): fps, the longest gap
    between decoded frames (the window's edges count as frames), freezes over FREEZE_MS,
    glass-to-glass latency p50/p95 = arrival - capture time, from the test pattern's barcode
    when frames carry one, else from the sender's RTCP sender reports (whep_viewer.SenderClock);
    `sr_offset_ms`: median of (SR capture - barcode capture), how far the two clocks agree;
    `sizes`: decoded "WxH" -> frames, most frequent first."""
    inside = [f for f in frames if start <= f[0] <= end]
    edges = [start, *(f[0] for f in inside), end]
    gaps = [(b - a) * 1000 for a, b in zip(edges, edges[1:])]
    barcode = [f[0] * 1000 - f[1] for f in inside if f[1] is not None]
    reported = [f[0] * 1000 - f[2] for f in inside if f[2] is not None]
    latencies, source = (barcode, "barcode") if len(barcode) >= len(inside) / 2 else (reported, "sender report")
    offsets = [f[2] - f[1] for f in inside if f[1] is not None and f[2] is not None]
    sizes = Counter("?" if f[4] is None else f"{f[3]}x{f[4]}" for f in inside)
    return dict(seconds=round(end - start, 1), frames=len(inside), fps=len(inside) / max(end - start, 1e-6),
                longest_freeze_ms=round(max(gaps)), freezes=sum(g > FREEZE_MS for g in gaps),
                latency_from=source if latencies else None, latencies=len(latencies),
                p50_ms=_round(percentile(latencies, 50)), p95_ms=_round(percentile(latencies, 95)),
                sr_offset_ms=_round(percentile(offsets, 50)), sizes=dict(sizes.most_common()))


def height_share(frames: list[Frame], start: float, end: float, height: int) -> tuple[float | None, int]:
    """(share of the frames decoded in [start, end] that are `height` lines tall, how many
    frames); None when there were none."""
    inside = [f for f in frames if start <= f[0] <= end]
    return (sum(f[4] == height for f in inside) / len(inside) if inside else None), len(inside)


def first_frame_after(frames: list[Frame], at: float, test) -> Frame | None:
    """The first frame decoded at or after `at` whose height passes test(height)."""
    return next((f for f in frames if f[0] >= at and f[4] is not None and test(f[4])), None)


def height_before(frames: list[Frame], at: float) -> int | None:
    """The height of the last frame decoded before `at`."""
    before = [f for f in frames if f[0] < at and f[4] is not None]
    return before[-1][4] if before else None


def judge_step(frames: list[Frame], at: float, old_kbit: float | None, new_kbit: float | None,
               until: float) -> dict:
    """One change of v1's downlink at wall time `at` (kbit/s; None: no limit), watched until
    `until` (the next change or the end): the height before it, how long until the first
    frame of another height the right way (smaller when the rate dropped, taller when it
    rose) and that height, and the longest gap between frames from 1 s before the change to
    10 s after it (or `until`)."""
    rate = lambda kbit: math.inf if kbit is None else kbit  # noqa: E731
    before = height_before(frames, at)
    down = rate(new_kbit) < rate(old_kbit)
    switched = None if before is None else first_frame_after(
        frames, at, (lambda h: h < before) if down else (lambda h: h > before))
    if switched is not None and switched[0] > until:
        switched = None
    around = judge(frames, at - 1, min(until, at + 10))
    return dict(kbit=new_kbit, direction="down" if down else "up", from_height=before,
                switch_s=None if switched is None else round(switched[0] - at, 2),
                to_height=None if switched is None else switched[4],
                freeze_ms=around["longest_freeze_ms"], window_s=round(until - at, 1))


BACK_SUSTAIN_S = 1.0  # the picture is back once frames flow (no gap over FREEZE_MS) for this long


def time_back(times: list[float], recovery: float, end: float, sustain: float = BACK_SUSTAIN_S) -> float | None:
    """The issue's "time back" after a link recovered at wall time `recovery` (times: the
    viewer's frames, sorted): 0 when frames were flowing then (no gap over FREEZE_MS spans
    it), else the seconds from `recovery` to the frame that ends the gap in progress: the
    first frame of a run of frames (gaps <= FREEZE_MS) that lasts `sustain` s or on to `end`.
    A lone frame, or a few, completed late by retransmissions (seconds old: aiortc decoded one
    9 s after its capture, right at the recovery, and nothing after) does not end the gap.
    None when no such run came by `end`."""
    runs: list[list[float]] = []  # [first, last]
    for t in times:
        if t > end:
            break
        if runs and (t - runs[-1][1]) * 1000 <= FREEZE_MS:
            runs[-1][1] = t
        else:
            runs.append([t, t])
    for first, last in runs:
        if last <= recovery:
            continue
        if last - first >= sustain or (end - last) * 1000 <= FREEZE_MS:
            return round(max(0.0, first - recovery), 2)
    return None


def first_after(times: list[float], recovery: float, end: float) -> float | None:
    """Seconds from `recovery` to the first frame after it (None: none by `end`): the gap's
    literal end, stale frames included (time_back() waits for frames that keep coming)."""
    after = next((t for t in times if recovery < t <= end), None)
    return None if after is None else round(after - recovery, 2)


def longest_gap_ms(times: list[float], start: float, end: float) -> int | None:
    """The longest gap (ms) between consecutive `times` (sorted) among the gaps that overlap
    [start, end], each whole (a gap open at either edge runs to the frame that ends it, or to
    the edge when there is none); None without any time at all."""
    if not times:
        return None
    before = [t for t in times if t <= start]
    inside = [t for t in times if start < t < end]
    after = next((t for t in times if t >= end), None)
    points = [before[-1] if before else start, *inside, end if after is None else after]
    return round(max((b - a) * 1000 for a, b in zip(points, points[1:])))


def judge_dip(case: Case, times: list[float], audio: list[float] | None, start: float, end: float,
              dipped_at: float | None = None, recovered_at: float | None = None) -> dict:
    """The dip figures of v1 (times: its frames, or for the Pion client its video packets;
    audio: its audio frames or packets, None when it logs none) besides the longest freeze
    (judge() over the measurement): the time back after the recovery, the gap that spans it
    (ms), the longest audio gap during the dip; `back_by_end` False when the picture never
    came back in the DIP_AFTER s watched."""
    at, kbit, seconds = case.dip
    dip_start = dipped_at if dipped_at is not None else start + at
    recovered_at = recovered_at if recovered_at is not None else dip_start + seconds
    back = time_back(times, recovered_at, end)
    spanning = longest_gap_ms(times, recovered_at, recovered_at)
    return dict(kbit=kbit, seconds=seconds, at_s=at, watched_s=round(end - recovered_at, 1), time_back_s=back,
                first_frame_s=first_after(times, recovered_at, end), back_by_end=back is not None,
                gap_at_recovery_ms=spanning,
                audio_gap_ms=None if audio is None else longest_gap_ms(audio, dip_start, recovered_at))


def _round(value: float | None) -> int | None:
    return None if value is None else round(value)


def read_frames_log(path: Path) -> list[Frame]:
    """whep_viewer.py --frames-log lines: 3 columns (older viewers) or 4 (with WxH)."""
    number = lambda text: None if text == "-" else int(text)  # noqa: E731
    frames = []
    if path.is_file():
        for line in path.read_text().splitlines():
            parts = line.split()
            if len(parts) not in (3, 4):
                continue
            try:
                size = re.fullmatch(r"(\d+)x(\d+)", parts[3]) if len(parts) == 4 else None
                frames.append((float(parts[0]), number(parts[1]), number(parts[2]),
                               int(size[1]) if size else None, int(size[2]) if size else None))
            except ValueError:  # a line cut short when the viewer was stopped
                continue
    return frames


@dataclass
class Result:
    case: Case
    window: dict                      # judge() over the whole measurement (v1)
    judged: dict                      # judge() over the part the targets apply to (v1)
    stats: dict = field(default_factory=dict)        # broadcast --stats-json
    stream: dict | None = None                       # relay GET /api/streams/42 at the end
    layer_share: dict = field(default_factory=dict)  # simulcast: rid -> share of status lines it was on
    sent_kbit: float | None = None                   # broadcast's status lines, mean over the window
    target_kbit: tuple[int, int] | None = None       # its rate controller's target, min and max
    uplink: dict = field(default_factory=dict)       # tbf counters of the uplink over the window
    cpu: dict = field(default_factory=dict)          # % of one core per process over the window
    # -- the viewer side
    downlink: dict = field(default_factory=dict)     # tbf counters of v1's downlink until its first change
    expect: dict | None = None                       # expect_height: share (of v1's frames that tall), frames, sizes
    steps: list = field(default_factory=list)        # judge_step() per downlink change, with "at_s"
    restore_s: float | None = None                   # restore_height: last change -> first frame that tall
    restore_window_s: float | None = None            # how long after the last change the run watched
    second: dict | None = None                       # judge() of v2 over the whole measurement
    second_off_height: int | None = None             # v2's frames not second_height lines tall
    sessions: dict = field(default_factory=dict)     # "v1"/"v2" -> the relay's viewer_sessions entry at the end
    timeline: dict = field(default_factory=dict)     # "v1"/"v2" -> [(s into the measurement (< 0: settling),
                                                     #   layer, target, paused, estimate kbit/s)] where those changed
    # -- real browsers
    publisher: dict = field(default_factory=dict)    # Chromium publisher: its page's window.result at the end
    browser: dict | None = None                      # Chromium v1: judge_stats() of its getStats() samples
    menu: dict | None = None                         # Chromium v1: choose_quality() (menu_height)
    menu_frames: dict | None = None                  # judge() of v1's frames in the MENU_WATCH s after it showed
    below_off: int | None = None                     # below_height: v1's frames in the judged span that tall or taller
    # -- a dip of v1's downlink
    dip: dict | None = None       # judge_dip(), and the relay's view of v1 over the measurement: paused_s,
                                  # switches_up, switches_down (deltas), paused_at_end (None: no /api/streams)
    packets: dict | None = None   # the Pion client (rtp_sniffer.py): rtp_figures() over the measurement
    target: str = "onair"         # the relay: ours, or the Pion reference relay ("pion")
    path: str | None = None       # Chromium v1: window.onairViewer.path at the end
    elapsed_s: float | None = None  # the whole case: relay start to the judging

    def defect_problems(self) -> list[str]:
        """The missed targets the case's known defect (a wrong bandwidth estimate) explains:
        all but the quality menu's, which count only while the relay held the viewer paused
        (a menu choice caps the layer, it does not lift the estimate)."""
        if not self.case.known_defect:
            return []
        paused = bool(((self.menu or {}).get("page_layer") or {}).get("paused"))
        excuses = self.case.defect_excuses
        return [p for p in self.problems() if (paused or not p.startswith("quality menu"))
                and (excuses is None or any(excuse in p for excuse in excuses))]

    def problems(self) -> list[str]:
        """The issue's targets this run missed (empty: passed)."""
        c, j, out = self.case, self.judged, []
        span = (f" (from {c.judge_after:g} s after the change)" if c.change_to_kbit
                else f" (from {c.judge_from_start:g} s into the measurement)" if c.judge_from_start else "")
        if c.min_fps is not None and j["fps"] < c.min_fps:
            out.append(f"{j['fps']:.1f} fps decoded{span}, target >= {c.min_fps:g}")
        if c.max_freeze_ms is not None and j["longest_freeze_ms"] > c.max_freeze_ms:
            out.append(f"longest freeze {j['longest_freeze_ms']} ms{span}, target <= {c.max_freeze_ms:g} ms "
                       f"({j['freezes']} freezes)")
        if c.max_p50_ms is not None and (j["p50_ms"] is None or j["p50_ms"] > c.max_p50_ms):
            out.append(f"glass-to-glass p50 {j['p50_ms']} ms, target <= {c.max_p50_ms:g} ms")
        if c.max_p95_ms is not None and (j["p95_ms"] is None or j["p95_ms"] > c.max_p95_ms):
            out.append(f"glass-to-glass p95 {j['p95_ms']} ms, target <= {c.max_p95_ms:g} ms")
        if c.uplink_tcp and self.stats.get("path") != "tcp":
            out.append(f"broadcast's path was {self.stats.get('path')!r}, expected 'tcp' (ICE-TCP: its UDP is dropped)")
        if c.ice_tcp and self.path != "webrtc-tcp":
            out.append(f"v1's page played over {self.path!r}, expected 'webrtc-tcp' (ICE-TCP: its UDP is dropped)")
        if c.ipv6:
            families = [v.get("address_family") for v in (self.stream or {}).get("viewer_sessions") or []]
            if not families or any(family != "ipv6" for family in families):
                out.append(f"the relay's viewer sessions' address families are {families}, expected ['ipv6']")
        if c.needs_resent and not self.stats.get("retransmitted_packets"):
            out.append(f"broadcast resent {self.stats.get('retransmitted_packets')} packets, target > 0")
        for rid in c.mostly_on:
            if self.layer_share.get(rid, 0) < 0.7:
                out.append(f"layer {rid} on {self.layer_share.get(rid, 0):.0%} of the time, target >= 70 %")
        for rid in c.mostly_off:
            if self.layer_share.get(rid, 0) > 0.3:
                out.append(f"layer {rid} on {self.layer_share.get(rid, 0):.0%} of the time, target <= 30 %")
        if c.needs_resent:
            # The resends must be the relay's doing and reach it: NACKs sent, packets repaired (as RTX).
            repair = (self.stream or {}).get("upstream_repair") or {}
            if not repair.get("nacks_sent") or not repair.get("packets_repaired") or not repair.get("rtx_packets"):
                out.append(f"relay upstream repair {repair}: NACKs, repaired packets and RTX packets must all be > 0")
        if c.expect_height is not None:
            e = self.expect or {}
            if e.get("share") is None or e["share"] <= 0.5:
                out.append(f"v1: {fmt_share(e.get('share'))} of its {e.get('frames', 0)} frames {self.expect_span()} "
                           f"were {c.expect_height} lines tall, target > 50 % (sizes {e.get('sizes')})")
        if c.restore_height is not None and c.restore_within is not None:
            if self.restore_s is None:
                out.append(f"v1: no {c.restore_height}-line frame in the {fmt(self.restore_window_s, 1)} s after the "
                           f"last downlink change, target within {c.restore_within:g} s")
            elif self.restore_s > c.restore_within:
                out.append(f"v1: first {c.restore_height}-line frame {self.restore_s:.1f} s after the last downlink "
                           f"change, target within {c.restore_within:g} s")
        if c.below_height is not None:
            if self.judged["frames"] == 0:
                out.append(f"v1 decoded no frames{span}")
            elif self.below_off:
                out.append(f"v1: {self.below_off} of {self.judged['frames']} frames{span} were {c.below_height} lines "
                           f"or taller (sizes {self.judged['sizes']}), target: none (a lower layer)")
        if c.stats_width is not None or c.stats_min_fps is not None:
            b = self.browser or {}
            if not b.get("samples"):
                out.append("v1 (Chromium): no inbound-rtp video getStats() samples in the judged span")
            else:
                if c.stats_width is not None and (b["last_width"] != c.stats_width or b["width_share"] < 0.8):
                    out.append(f"v1 getStats frameWidth {b['last_width']} at the end, {c.stats_width} in "
                               f"{b['width_share']:.0%} of {b['samples']} samples (widths {b['widths']}), "
                               f"target {c.stats_width} at the end and in >= 80 %")
                if c.stats_min_fps is not None and b["fps_mean"] < c.stats_min_fps:
                    out.append(f"v1 getStats framesPerSecond {b['fps_mean']:.1f} (mean of {b['samples']} samples, "
                               f"min {fmt(b['fps_min'])}), target >= {c.stats_min_fps:g}")
        if c.menu_height is not None:
            m = self.menu or {}
            if not m.get("reached"):
                out.append(f"quality menu {c.menu_height}: not shown within {MENU_WITHIN:g} s ({menu_text(m)})")
            elif not (self.menu_frames or {}).get("sizes", {}).get(m.get("size")):
                out.append(f"quality menu {c.menu_height}: no {m.get('size')} frame presented in the {MENU_WATCH:g} s "
                           f"after it showed (sizes {(self.menu_frames or {}).get('sizes')})")
        if c.dip is not None:
            d, noun = self.dip or {}, "video packet" if c.viewer == "pion" else "frame"
            if c.max_time_back_s is not None:
                if d.get("time_back_s") is None:
                    out.append(f"v1: no {noun} in the {fmt(d.get('watched_s'), 1)} s after the link recovered "
                               f"(video never came back), target back within {c.max_time_back_s:g} s")
                elif d["time_back_s"] > c.max_time_back_s:
                    out.append(f"v1: time back {d['time_back_s']:.2f} s after the link recovered, "
                               f"target <= {c.max_time_back_s:g} s")
            if c.max_audio_gap_ms is not None:
                if d.get("audio_gap_ms") is None:
                    out.append("v1 logged no audio frames (its longest audio gap during the dip is unknown)")
                elif d["audio_gap_ms"] > c.max_audio_gap_ms:
                    out.append(f"v1: longest audio gap during the dip {d['audio_gap_ms']} ms, "
                               f"target <= {c.max_audio_gap_ms:g} ms")
        if c.second_viewer:
            v2 = self.second or {}
            if v2.get("frames", 0) == 0:
                out.append("v2 decoded no frames in the measurement")
            if c.second_min_fps is not None and v2.get("fps", 0) < c.second_min_fps:
                out.append(f"v2: {v2.get('fps', 0):.1f} fps decoded, target >= {c.second_min_fps:g}")
            if c.second_max_freeze_ms is not None and v2.get("longest_freeze_ms", math.inf) > c.second_max_freeze_ms:
                out.append(f"v2: longest freeze {v2.get('longest_freeze_ms')} ms, target <= "
                           f"{c.second_max_freeze_ms:g} ms ({v2.get('freezes')} freezes)")
            if c.second_height is not None and self.second_off_height:
                out.append(f"v2: {self.second_off_height} of {v2.get('frames')} frames not {c.second_height} lines "
                           f"tall (sizes {v2.get('sizes')}), target: all")
        return out

    def judged_span(self) -> str:
        c = self.case
        return f" from {c.judge_from_start:g} s in" if c.judge_from_start else ""

    def expect_span(self) -> str:
        c = self.case
        until = f"to the downlink change at {c.downlink_changes[0][0]:g} s" if c.downlink_changes else "to the end"
        return f"from {c.judge_from_start:g} s into the measurement {until}"

    def line(self) -> str:
        w, j, s, c = self.window, self.judged, self.stats, self.case
        judged = ""
        if c.change_to_kbit or c.judge_from_start:
            where = (f"from {c.judge_after:g} s after the change" if c.change_to_kbit
                     else f"from {c.judge_from_start:g} s in")
            judged = (f" | {where}: {j['fps']:.1f} fps, longest freeze "
                      f"{j['longest_freeze_ms']} ms ({j['freezes']} > {FREEZE_MS} ms)")
        target = f" (target {self.target_kbit[0]}..{self.target_kbit[1]})" if self.target_kbit else ""
        uplink = (f"uplink tbf {self.uplink['kbit_s']} kbit/s, {self.uplink['drops']} drops"
                  if self.uplink.get("kind") == "tbf" else "uplink not limited")
        sender = (f"Chromium publisher layers {publisher_layers_text(self.publisher)}" if c.publisher == "chromium" else
                  f"resent {s.get('retransmitted_packets')}, keyframes {s.get('keyframes')} "
                  f"(requests {s.get('keyframe_requests')}), sent {fmt(self.sent_kbit)} kbit/s{target}")
        frames = "presented" if c.viewer == "chromium" else "decoded"
        return (f"{c.name}: {'v1 ' if c.viewer_side else ''}{w['fps']:.1f} fps {frames}, longest freeze "
                f"{w['longest_freeze_ms']} ms ({w['freezes']} > {FREEZE_MS} ms), latency p50 {w['p50_ms']} "
                f"p95 {w['p95_ms']} ms ({w['latency_from']}), {sender}, "
                f"{uplink}, cpu % {self.cpu}{judged}{self.viewers_text()}{self.layers_text()}")

    def viewers_text(self) -> str:
        """The viewer side: v1's link, sizes, switches, restore; v2; the relay's view of each."""
        c = self.case
        if not c.viewer_side:
            return ""
        parts = [f"v1 sizes {self.window.get('sizes')}"]
        link = []
        if c.downlink_kbit:
            link.append(f"tbf {c.downlink_kbit:g} kbit/s" + (f" ({self.downlink['kbit_s']} kbit/s out, "
                                                          f"{self.downlink['drops']} drops)"
                                                          if self.downlink.get("kind") == "tbf" else ""))
        if c.downlink_loss:
            link.append(f"{c.downlink_loss:g} % loss")
        if link:
            parts.append("v1 downlink " + ", ".join(link))
        if c.expect_height is not None:
            e = self.expect or {}
            parts.append(f"v1 {c.expect_height} lines: {fmt_share(e.get('share'))} of {e.get('frames', 0)} frames "
                         f"{self.expect_span()} (sizes {e.get('sizes')})")
        for step in self.steps:
            parts.append(step_text(step))
        if c.restore_height is not None:
            goal = f" (target <= {c.restore_within:g} s)" if c.restore_within is not None else ""
            parts.append(f"time to restore {c.restore_height} lines after the last change: "
                         + (f"{self.restore_s:.2f} s" if self.restore_s is not None
                            else f"none in {fmt(self.restore_window_s, 1)} s") + goal)
        if c.below_height is not None:
            parts.append(f"v1 frames {c.below_height} lines or taller{self.judged_span()}: {self.below_off}")
        if self.browser is not None:
            parts.append(f"v1 getStats{self.judged_span()}: {browser_text(self.browser)}")
        if self.menu is not None:
            parts.append(f"quality menu {c.menu_height}: {menu_text(self.menu)}"
                         + (f"; then {self.menu_frames['fps']:.1f} fps presented, sizes {self.menu_frames['sizes']}"
                            if self.menu_frames else ""))
        if self.dip is not None:
            parts.append(dip_text(self))
        if self.second is not None:
            v2 = self.second
            parts.append(f"v2 {v2['fps']:.1f} fps, longest freeze {v2['longest_freeze_ms']} ms "
                         f"({v2['freezes']} > {FREEZE_MS} ms), sizes {v2['sizes']}")
        for name, session in sorted(self.sessions.items()):
            parts.append(f"relay {name}: {session_text(session)}")
        for name, changes in sorted(self.timeline.items()):
            parts.append(f"relay {name} timeline: " + ", ".join(
                f"{at:g}s {layer or '-'}{'' if target in (None, layer) else '->' + target}"
                f"{' paused' if paused else ''} {fmt(estimate)}k" for at, layer, target, paused, estimate in changes))
        return " | " + "; ".join(parts)

    def layers_text(self) -> str:
        layers = (self.stream or {}).get("layers") or []
        if len(layers) < 2:
            return ""
        shares = " ".join(f"{rid} {share:.0%}" for rid, share in sorted(self.layer_share.items()))
        return f", layers on ({shares}); at the end " + " ".join(f"{layer['rid']} {layer.get('width')}x{layer.get('height')} "
                                      f"{layer['bitrate_kbps']:g}k{'' if layer['active'] else ' (paused)'}"
                                      f"{' (forwarded' + viewers_of(layer) + ')' if layer['forwarded'] else ''}"
                                      f"{' (primary)' if layer.get('primary') else ''}" for layer in layers)

    def figures(self) -> dict[str, float | None]:
        """The numbers worth a p50 across repetitions (lab_bench.py --reps)."""
        w, j = self.window, self.judged
        out = {"fps": w["fps"], "longest freeze ms": w["longest_freeze_ms"], "latency p50 ms": w["p50_ms"]}
        if self.case.change_to_kbit or self.case.judge_from_start:
            out.update({"judged fps": j["fps"], "judged longest freeze ms": j["longest_freeze_ms"]})
        if self.expect is not None:
            out["expected-height share %"] = None if self.expect["share"] is None else 100 * self.expect["share"]
        for i, step in enumerate(self.steps, 1):
            out[f"change {i} ({step['direction']}) switch s"] = step["switch_s"]
            out[f"change {i} ({step['direction']}) longest gap ms"] = step["freeze_ms"]
        if self.case.restore_height is not None:
            out["restore s"] = self.restore_s
        if self.second is not None:
            out.update({"v2 fps": self.second["fps"], "v2 longest freeze ms": self.second["longest_freeze_ms"]})
        if self.case.below_height is not None:
            out[f"v1 frames >= {self.case.below_height} lines"] = self.below_off
        if self.browser:
            out.update({"getStats fps (mean)": self.browser.get("fps_mean"),
                        f"getStats width {self.case.stats_width} share %": None if self.browser.get("width_share") is None
                        else 100 * self.browser["width_share"],
                        "getStats freezes": self.browser.get("freezes")})
        if self.menu is not None:
            out["menu switch s"] = self.menu.get("seconds")
        if self.dip is not None:
            d = self.dip
            out.update({"time back s": d["time_back_s"], "gap at recovery ms": d["gap_at_recovery_ms"],
                        "paused s": d.get("paused_s"), "layer switches": d.get("switches"),
                        "audio gap in dip ms": d.get("audio_gap_ms")})
        return out


def dip_text(result: "Result") -> str:
    """The dip figures in one phrase."""
    c, d, w = result.case, result.dip or {}, result.window
    back = (f"time back {d['time_back_s']:.2f} s" if d.get("time_back_s") is not None
            else f"NOT BACK in {fmt(d.get('watched_s'), 1)} s")
    if d.get("first_frame_s") is not None and d.get("first_frame_s") != d.get("time_back_s"):
        back += f" (first {'packet' if c.viewer == 'pion' else 'frame'} after the recovery at {d['first_frame_s']:.2f} s)"
    relay = ("relay: no /api/streams" if d.get("paused_s") is None and d.get("switches") is None else
             f"relay v1: paused {fmt(d.get('paused_s'), 1)} s, switches {d.get('switches')} "
             f"(up {d.get('switches_up')} down {d.get('switches_down')}){' PAUSED at the end' if d.get('paused_at_end') else ''}")
    audio = ("" if d.get("audio_gap_ms") is None else
             f", longest audio {'packet ' if c.viewer == 'pion' else ''}gap in the dip {d['audio_gap_ms']} ms")
    rate = "video packets/s" if c.viewer == "pion" else f"fps {'presented' if c.viewer == 'chromium' else 'decoded'}"
    return (f"dip to {d.get('kbit'):g} kbit/s for {d.get('seconds'):g} s at {d.get('at_s'):g} s: longest freeze "
            f"{w['longest_freeze_ms']} ms, {back} (gap at the recovery {d.get('gap_at_recovery_ms')} ms){audio}, "
            f"{w['fps']:.1f} {rate}, {relay}")


def publisher_layers_text(publisher: dict) -> str:
    """Chromium publisher: each rid's encoder size, fps, kbit/s and limitation at the end."""
    layers = publisher.get("layers") or {}
    return " ".join(f"{rid} {l.get('width')}x{l.get('height')} {l.get('fps')} fps {l.get('kbps')}k"
                    f"{'' if l.get('limitation') in (None, '', 'none') else ' (' + l['limitation'] + ')'}"
                    for rid, l in sorted(layers.items())) or "-"


def browser_text(b: dict) -> str:
    if not b.get("samples"):
        return "no samples"
    return (f"frameWidth {b['last_width']} at the end (widths {b['widths']} of {b['samples']} samples), "
            f"framesPerSecond mean {b['fps_mean']:.1f} min {fmt(b['fps_min'])}, decoded {b['decoded_fps']:.1f} fps, "
            f"freezes {b['freezes']} ({b['freeze_s']:.2f} s), dropped {b['dropped']}, lost {b['lost']}, "
            f"NACKs {b['nacks']}, PLIs {b['plis']}")


def menu_text(m: dict) -> str:
    if m.get("reached"):
        return (f"{m.get('size')} (layer {m.get('rid')}) shown after {m['seconds']:.2f} s: getStats {m.get('stats_size')}, "
                f"page layer {m.get('page_layer')}, stats line {m.get('stats_line')!r}")
    return (f"wanted {m.get('size')} (layer {m.get('rid')}); seen getStats {m.get('stats_size')}, page layer "
            f"{m.get('page_layer')}, stats line {m.get('stats_line')!r}, menu {m.get('menu')}"
            + (f", {m['error']}" if m.get("error") else ""))


def fmt_share(share: float | None) -> str:
    return "-" if share is None else f"{share:.0%}"


def viewers_of(layer: dict) -> str:
    return f" to {layer['viewers']}" if layer.get("viewers") is not None else ""


def step_text(step: dict) -> str:
    rate = "no limit" if step["kbit"] is None else f"{step['kbit']:g} kbit/s"
    switched = (f"{step['from_height']} -> {step['to_height']} lines after {step['switch_s']:.2f} s"
                if step["switch_s"] is not None else
                f"still {step['from_height']} lines ({step['direction']}switch not seen in {step['window_s']:g} s)")
    return (f"v1 downlink -> {rate} at {step['at_s']:g} s: {switched}, longest gap {step['freeze_ms']} ms "
            f"around it (sizes before {step.get('sizes_before')})")


def session_text(session: dict) -> str:
    g = session.get
    target = g("target_layer")
    return (f"layer {g('layer') or '-'} {g('width')}x{g('height')}"
            f"{'' if target in (None, g('layer')) else f' (switching to {target})'}{' PAUSED' if g('paused') else ''}, "
            f"estimate {fmt(g('estimate_kbps'))} kbit/s ({g('feedback')}: {g('estimate_reason')}), "
            f"loss {fmt(g('loss_fraction'), 3)}, rtt {fmt(g('rtt_ms'), 1)} ms, "
            f"switches up {g('switches_up')} down {g('switches_down')}, "
            f"probes ok {g('probes_succeeded')} failed {g('probes_failed')}, padding {g('padding_bytes')} B, "
            f"paused {fmt(g('paused_seconds'), 1)} s"
            + (f", over TCP: restarts at a keyframe {g('transport_restarts')}" if g("transport") == "tcp" else ""))


def fmt(value, digits: int = 0) -> str:
    return "-" if value is None else f"{value:.{digits}f}"


# -- helpers -----------------------------------------------------------------------------

def noise_file() -> Path:
    """6 s of 1280x720 at 30 fps with temporal noise and a 440 Hz tone, made once and cached.
    ~4.6 Mbit/s (CRF 30, fastdecode: decoding it costs the broadcaster ~5 % of a core, CRF 18
    would cost 70 %); the noise keeps any re-encode at 2.5 Mbit/s or below at its target."""
    path = MEDIA_CACHE / "noise-1280x720-30-crf30.mp4"
    if not path.is_file():
        MEDIA_CACHE.mkdir(parents=True, exist_ok=True)
        partial = path.with_suffix(f".{os.getpid()}.mp4")
        subprocess.run(["ffmpeg", "-v", "error", "-y", "-f", "lavfi",
                        "-i", "testsrc2=size=1280x720:rate=30,noise=alls=18:allf=t",
                        "-f", "lavfi", "-i", "sine=frequency=440:sample_rate=48000", "-t", "6",
                        "-c:v", "libx264", "-preset", "veryfast", "-crf", "30", "-tune", "fastdecode", "-g", "30",
                        "-pix_fmt", "yuv420p",
                        "-c:a", "aac", str(partial)], check=True, timeout=300)
        partial.rename(path)
    return path


def noise_y4m() -> Path:
    """2 s of raw 1280x720 at 30 fps with temporal noise (83 MB), made once and cached: Chromium's
    fake camera plays it in a loop (--use-file-for-fake-video-capture), so its simulcast layers
    carry the bitrates libwebrtc allots them (its built-in fake picture needs ~500 kbit/s at
    1280x720: 600 kbit/s would carry the top layer)."""
    path = MEDIA_CACHE / "noise-1280x720-30.y4m"
    if not path.is_file():
        MEDIA_CACHE.mkdir(parents=True, exist_ok=True)
        partial = path.with_suffix(f".{os.getpid()}.y4m")
        subprocess.run(["ffmpeg", "-v", "error", "-y", "-f", "lavfi",
                        "-i", "testsrc2=size=1280x720:rate=30,noise=alls=18:allf=t", "-t", "2",
                        "-pix_fmt", "yuv420p", str(partial)], check=True, timeout=120)
        partial.rename(path)
    return path


def http_json(url: str) -> dict | None:
    """GET url as JSON (None for 404), never through a proxy from the environment."""
    try:
        with urllib.request.build_opener(urllib.request.ProxyHandler({})).open(url, timeout=3) as response:
            return json.loads(response.read())
    except urllib.error.HTTPError as error:
        if error.code == 404:
            return None
        raise


def cpu_seconds(process: ManagedProcess) -> float | None:
    """utime + stime of the process and of every other live process of its session (each is
    started in its own; ip netns exec execs, so the pid is the program's): Chromium's renderer
    and GPU processes count with the browser."""
    pid = process.proc.pid
    total, found = 0, False
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
            if stat.parent.name != str(pid) and fields[3] != str(pid):  # fields[3]: session id
                continue
            total += int(fields[11]) + int(fields[12])
            found = True
        except (OSError, IndexError, ValueError):
            continue
    return total / os.sysconf("SC_CLK_TCK") if found else None


def watch(seconds: float, *processes: ManagedProcess) -> None:
    """Sleeps, failing as soon as one of `processes` exits."""
    deadline = time.monotonic() + seconds
    while (left := deadline - time.monotonic()) > 0:
        for p in processes:
            if p.poll() is not None:
                tail = "\n".join(p.log_text().splitlines()[-20:])
                raise AssertionError(f"{p.name} exited ({p.returncode}) during the case:\n{tail}")
        time.sleep(min(left, 0.2))


STATUS = re.compile(r"([\d.]+) fps\s+(\d+) kbit/s \(target (\d+)\)")


LAYERS = re.compile(r"  layers ([a-z -]+?)  ")


def layer_shares(process: ManagedProcess, start: float, end: float) -> dict[str, float]:
    """Simulcast: for each rid, the share of broadcast's status lines in [start, end] that
    list it as on (`layers f h q`)."""
    seen = [m.group(1).split() for at, text in list(process.lines) if start <= at <= end and (m := LAYERS.search(text))]
    rids = {rid for layers in seen for rid in layers if rid != "-"}
    return {rid: sum(rid in layers for layers in seen) / len(seen) for rid in rids} if seen else {}


def status_rates(process: ManagedProcess, start: float, end: float) -> tuple[float | None, tuple[int, int] | None]:
    """Mean sent kbit/s and the target's range from broadcast's status lines in [start, end]."""
    sent, targets = [], []
    for at, text in list(process.lines):
        m = STATUS.search(text)
        if m and start <= at <= end:
            sent.append(int(m.group(2)))
            targets.append(int(m.group(3)))
    return (sum(sent) / len(sent) if sent else None), ((min(targets), max(targets)) if targets else None)


class RelaySampler:
    """GET /api/streams/42 once a second in the relay's namespace from the viewers' start to
    the end of the measurement: per viewer ("v1", "v2", by WHEP session id) the moments its
    layer, target layer or paused state changed, or its estimate moved by more than a
    quarter: (wall time, layer, target layer, paused, estimate kbit/s)."""

    def __init__(self, lab, url: str, viewers: dict):  # name -> AiortcViewer or ChromiumViewer
        self.lab, self.url, self.viewers = lab, url, viewers
        self.changes: dict[str, list] = {}
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name="relay-sampler", daemon=True)

    def start(self) -> "RelaySampler":
        self._thread.start()
        return self

    def stop(self) -> None:
        self._stop.set()
        if self._thread.ident is not None:  # started (not for a relay without /api/streams)
            self._thread.join(10)

    def timeline(self, origin: float) -> dict[str, list]:
        """The changes with their times as seconds from `origin` (the measurement's start)."""
        return {name: [(round(at - origin, 1), *rest) for at, *rest in changes]
                for name, changes in self.changes.items()}

    def _run(self) -> None:
        while not self._stop.wait(1.0):
            try:
                stream = self.lab.call("relay", http_json, self.url, timeout=5) or {}
            except Exception:  # noqa: BLE001 - a missed sample is no failure
                continue
            at = time.time()
            for name, session in named_sessions(stream.get("viewer_sessions") or [], self.viewers):
                entry = (at, session.get("layer"), session.get("target_layer"), bool(session.get("paused")),
                         session.get("estimate_kbps"))
                changes = self.changes.setdefault(name, [])
                last = changes[-1] if changes else None
                moved = (last is not None and entry[4] is not None and last[4] is not None
                         and abs(entry[4] - last[4]) > 0.25 * max(last[4], 1))
                if last is None or entry[1:4] != last[1:4] or moved:
                    changes.append(entry)


def session_names(viewers: dict) -> dict[str, str]:
    """The relay's session id (the last segment of the WHEP Location) -> viewer name
    (viewers: name -> AiortcViewer or ChromiumViewer)."""
    names = {}
    for name, viewer in viewers.items():
        location = viewer.location
        if location:
            names[str(location).rstrip("/").rsplit("/", 1)[-1]] = name
    return names


def named_sessions(sessions: list[dict], viewers: dict) -> list[tuple[str, dict]]:
    """(viewer name, entry) for the relay's viewer_sessions entries: by session id (session_name),
    and a viewer that gives no session URL (the Pion client) gets the one entry left over when it
    is the only such viewer."""
    names = session_names(viewers)
    named = [(session_name(session, names), session) for session in sessions]
    unnamed = [name for name, viewer in viewers.items() if not viewer.location]
    left = [i for i, (name, _) in enumerate(named) if name not in viewers]
    if len(unnamed) == 1 and len(left) == 1:
        named[left[0]] = (unnamed[0], named[left[0]][1])
    return named


def session_name(session: dict, names: dict[str, str]) -> str:
    """The viewer ("v1", "v2") a viewer_sessions entry belongs to, else its id. The relay
    names it by `session_id` or by a shortened `session` (a prefix of the id)."""
    key = str(session.get("session_id") or session.get("session") or "?")
    return next((name for full, name in names.items() if full == key or full.startswith(key)), key)


# -- publishers ----------------------------------------------------------------------------
# Each has `process` (for watch() and the CPU figures), stop() -> its statistics (ends the
# stream), close() (idempotent; frees what stop() did not reach when a case breaks).

class BroadcastPublisher:
    """`broadcast start` in the publisher's namespace: the case's source, --simulcast when the
    case says so, a status line a second (layer_shares, status_rates read them)."""

    def __init__(self, case: Case, lab, procs: ProcessGroup, relay, workdir: Path, timeout: float):
        source = (["--input", str(noise_file()), "--loop"] if case.source == "noise"
                  else ["--size", "1280x720", "--fps", "30"])
        config = workdir / "broadcast.yaml"
        config.write_text("log_interval: 1   # a status line a second: sent kbit/s over the window\n")
        self.stats_path = workdir / "broadcast-stats.json"
        self.process = procs.start("broadcast", [*lab.prefix("pub"), str(BROADCAST_BIN), "start", "--room", ROOM,
                                                 "--relay", relay.base_url, "--config", str(config), *source,
                                                 *(["--simulcast"] if case.simulcast else []),
                                                 "--video-bitrate", BITRATE, "--max-bitrate", BITRATE,
                                                 "--stats-json", str(self.stats_path)],
                                   timeout=timeout, cwd=str(workdir),
                                   env={**os.environ, **({"ONAIR_BROADCAST_TOKEN": relay.publish_token}
                                                         if relay.publish_token else {})})

    def stop(self) -> dict:
        """SIGINT (the broadcaster DELETEs its session); its --stats-json."""
        self.process.signal(signal.SIGINT)
        if self.process.wait(15) is None:
            raise AssertionError("broadcast did not exit within 15 s of SIGINT")
        return json.loads(self.stats_path.read_text()) if self.stats_path.is_file() else {}

    def close(self) -> None:
        pass  # procs stops the process


def _chromium_in(lab, host: str, procs: ProcessGroup, timeout: float, extra_flags: tuple[str, ...] = ()):
    """(a netlab.NetnsLoop in `host`, a started Chromium in `host`): the browser runs under ip
    netns exec and its DevTools client on the loop, both in the namespace (the DevTools port
    listens on the namespace's 127.0.0.1)."""
    loop = lab.loop(host)
    browser = Chromium(spawn=lambda argv: procs.start(f"chromium-{host}", [*lab.prefix(host), *argv], timeout=timeout),
                       extra_flags=extra_flags)
    try:
        loop.run(browser.start(), 45)
    except BaseException:
        _close_chromium(loop, browser)
        raise
    return loop, browser


def _close_chromium(loop, browser, consoles: Path | None = None) -> None:
    """Saves the tabs' consoles (to `consoles`/console-<tab>.log), closes the browser, stops the loop."""
    for tab in browser.tabs:
        if consoles is not None:
            (consoles / f"console-{tab.name}.log").write_text("\n".join(tab.console) + "\n")
    try:
        loop.run(browser.close(), 20)
    except Exception:  # noqa: BLE001 - the process group is killed below / by procs anyway
        if browser.process is not None:
            browser.process.stop()
    loop.close()


class ChromiumPublisher:
    """Headless Chromium in the publisher's namespace: web/publisher.html (served from that
    namespace's 127.0.0.1) publishes the fake camera over WHIP straight to the relay (which
    answers CORS) with simulcast rids q, h, f (libwebrtc's naming: 320x180, 640x360, 1280x720),
    H.264. The camera plays noise_y4m(), so every layer carries its full bitrate, and
    degradationPreference is maintain-resolution: a busy CPU costs frames, not the 1280x720
    input that three layers need (PEERS.md)."""

    def __init__(self, case: Case, lab, procs: ProcessGroup, relay, workdir: Path, timeout: float):
        self.workdir, self.runner, self.tab = workdir, None, None
        self.loop, self.browser = _chromium_in(lab, "pub", procs, timeout,
                                               (f"--use-file-for-fake-video-capture={noise_y4m()}",))
        self.process = self.browser.process
        procs.extra_logs.append(workdir / "console-publisher.log")
        try:
            self.runner, site = self.loop.run(start_web_server(relay), 10)
            query = urlencode({"whip": relay.whip_url(ROOM), "token": relay.publish_token, "simulcast": "qhf",
                               "size": "1280x720", "degradation": "maintain-resolution"})
            self.tab = self.loop.run(self.browser.open(f"{site}/publisher.html?{query}", name="publisher"), 20)
            self.loop.run(self.tab.wait_for("window.result", lambda r: r and r["state"] == "connected", timeout=20,
                                            fail=lambda r: r.get("state") in ("error", "failed")), 30)
        except BaseException:
            self.close()
            raise

    def stop(self) -> dict:
        """The page's window.result (per-rid layers: encoder size, fps, kbit/s, limitation),
        then window.stopPublishing() (DELETE of the WHIP session)."""
        result = self.loop.run(self.tab.json("window.result"), 10) or {}
        result["deleteStatus"] = self.loop.run(self.tab.evaluate("window.stopPublishing()", await_promise=True), 15)
        self.close()
        return result

    def close(self) -> None:
        if self.loop is None:
            return
        if self.runner is not None:
            try:
                self.loop.run(self.runner.cleanup(), 10)
            except Exception:  # noqa: BLE001
                pass
        _close_chromium(self.loop, self.browser, self.workdir)
        self.loop = None


PUBLISHERS = {"broadcast": BroadcastPublisher, "chromium": ChromiumPublisher}


CHROMIUM_TOP_KBIT = 2000  # Chromium's f at full rate (the noise file: ~2.5 Mbit/s), well above the relay's 1 Mbit/s start estimate


def chromium_layers_up(layers: list[dict]) -> bool:
    """/api/streams layers: Chromium's q, h and f all sending, f at >= CHROMIUM_TOP_KBIT."""
    rates = {layer.get("rid"): layer.get("bitrate_kbps") or 0 for layer in layers if layer.get("active")}
    return {"q", "h", "f"} <= set(rates) and rates["q"] > 0 and rates["h"] > 0 and rates["f"] >= CHROMIUM_TOP_KBIT


# -- viewers -------------------------------------------------------------------------------
# Each has `process`, `location` (its WHEP session URL, once known), wait_first_frame(),
# stop(), frames() (after stop: list[Frame]) and close() (idempotent).

def start_viewer(name: str, lab, procs: ProcessGroup, relay, frames_path: Path, timeout: float,
                 audio_path: Path | None = None) -> ManagedProcess:
    """An aiortc WHEP viewer in lab host `name` ("v1", "v2"), logging every decoded frame (and
    every decoded audio frame to `audio_path`)."""
    return procs.start("viewer" if name == "v1" else f"viewer-{name}",
                       [*lab.prefix(name), PYTHON, "-u", str(PEERS_DIR / "whep_viewer.py"),
                        "--url", relay.whep_url(ROOM), "--h264-only", "--no-index",
                        "--frames-log", str(frames_path), *(["--audio-log", str(audio_path)] if audio_path else [])],
                       timeout=timeout, cwd=str(PEERS_DIR), env={**os.environ, "ONAIR_ICE_HOST": ",".join(lab.addresses(name))})


def read_times(path: Path) -> list[float]:
    """The first column (wall seconds) of a per-line log, e.g. whep_viewer.py --audio-log."""
    times = []
    if path.is_file():
        for line in path.read_text().splitlines():
            try:
                times.append(float(line.split()[0]))
            except (ValueError, IndexError):  # a line cut short when the viewer was stopped
                continue
    return times


class AiortcViewer:
    """peers/whep_viewer.py (start_viewer): every decoded frame in its --frames-log, every
    decoded audio frame in its --audio-log."""

    def __init__(self, name: str, lab, procs: ProcessGroup, relay, workdir: Path, timeout: float):
        self.frames_path = workdir / ("viewer-frames.log" if name == "v1" else f"viewer-{name}-frames.log")
        self.audio_path = workdir / ("viewer-audio.log" if name == "v1" else f"viewer-{name}-audio.log")
        self.process = start_viewer(name, lab, procs, relay, self.frames_path, timeout, self.audio_path)

    @property
    def location(self) -> str | None:
        return (self.process.last("posted") or {}).get("location")

    def wait_first_frame(self, timeout: float) -> None:
        self.process.wait_event("first_frame", timeout)

    def stop(self) -> None:
        self.process.signal(signal.SIGTERM)
        self.process.wait(10)

    def frames(self) -> list[Frame]:
        return read_frames_log(self.frames_path)

    def audio(self) -> list[float] | None:
        """Arrival times of the decoded audio frames."""
        return read_times(self.audio_path)

    def close(self) -> None:
        pass  # procs stops the process


class ChromiumViewer:
    """Headless Chromium in lab host `name` on the relay's viewer page /rooms/42, as a person
    would open it: the frames its <video> presents (chromium.RECORD_VIDEO_FRAMES, judged like
    aiortc's decoded frames, without capture times) and its RTCPeerConnection's inbound-rtp
    video getStats() once a second (`samples`: (wall time, stats))."""

    def __init__(self, name: str, lab, procs: ProcessGroup, relay, workdir: Path, timeout: float):
        self.name, self.workdir = name, workdir
        self.samples: list[tuple[float, dict]] = []
        self.path: str | None = None  # window.onairViewer.path when stopped
        self._location: str | None = None
        self._frames: list[Frame] | None = None
        self.runner = None
        self.loop, self.browser = _chromium_in(lab, name, procs, timeout)
        self.process = self.browser.process
        procs.extra_logs.append(workdir / f"console-viewer-{name}.log")
        try:
            url = f"{relay.base_url}/rooms/{ROOM}"
            if not relay.serves_room_page:  # the Pion relay: the same page from this host, its WHEP URL in ?whep=
                self.runner, site = self.loop.run(start_web_server(relay), 10)
                url = f"{site}/rooms/{ROOM}?{urlencode({'whep': relay.whep_url(ROOM), 'chat': 'off'})}"
            self.tab = self.loop.run(self.browser.open(url, name=f"viewer-{name}",
                                                       init_script=RECORD_PEER_CONNECTIONS + RECORD_VIDEO_FRAMES), 25)
            self._sampler = self.loop.run(self._start_sampling(), 5)
        except BaseException:
            self.close()
            raise

    async def _start_sampling(self):
        return asyncio.ensure_future(self._sample())

    async def _sample(self) -> None:
        while True:
            try:
                stats = await self.tab.rtp_stats()
                if stats:
                    self.samples.append((time.time(), stats[0]))
            except (CDPError, asyncio.TimeoutError):
                pass
            await asyncio.sleep(1)

    def _run(self, coro, timeout: float = 10):
        return self.loop.run(coro, timeout)

    @property
    def location(self) -> str | None:
        if self._location is None and self.loop is not None:
            try:
                self._location = self._run(self.tab.json("window.onairViewer.session"), 5)
            except Exception:  # noqa: BLE001 - not known yet
                return None
        return self._location

    def wait_first_frame(self, timeout: float) -> None:
        self._run(self.tab.wait_for("window.onairViewer", lambda r: r and r["state"] == "live" and r["frames"] > 0
                                    and bool(r.get("session")), timeout=timeout), timeout + 5)

    def choose_quality(self, height: int, within: float = MENU_WITHIN) -> dict:
        """Chooses the `height`-line layer in the page's quality menu and waits until the
        decoder's size (getStats frameWidth x frameHeight) is that layer's and the page shows
        it: its own record (window.onairViewer.layer) and its stats line ("Resolution WxH",
        "Layer <rid>"). Returns reached, seconds, size, rid, what was seen, the menu's values."""
        async def go() -> dict:
            seen: dict = {}
            try:
                seen["menu"] = await self.tab.wait_for(
                    "[...document.getElementById('quality').options].map(o => o.value)",
                    lambda values: values and str(height) in values, timeout=10)
                layers = await self.tab.json("window.onairViewer.layers")
                layer = next(l for l in layers if l.get("height") == height)
                size, rid = f"{layer['width']}x{layer['height']}", layer.get("rid")
                seen.update(size=size, rid=rid)
                started = time.time()
                await self.tab.select("quality", str(height))
                while True:
                    stats = (await self.tab.rtp_stats() or [{}])[0]
                    page = await self.tab.json("window.onairViewer")
                    line = await self.tab.json("document.getElementById('stats').textContent") or ""
                    seen.update(stats_size=f"{stats.get('frameWidth')}x{stats.get('frameHeight')}",
                                page_layer=page.get("layer"), stats_line=line, quality=page.get("quality"))
                    if (seen["stats_size"] == size and (page.get("layer") or {}).get("height") == height
                            and f"{layer['width']}×{layer['height']}" in line and f"Layer {rid}" in line):
                        return dict(seen, reached=True, at=time.time(), seconds=round(time.time() - started, 2))
                    if time.time() - started > within:
                        return dict(seen, reached=False)
                    await asyncio.sleep(0.25)
            except (TimeoutError, StopIteration, CDPError) as error:
                return dict(seen, reached=False, error=f"{type(error).__name__}: {error}")
        return self._run(go(), within + 30)

    def stop(self) -> None:
        if self.loop is None:
            return
        try:
            self.path = self._run(self.tab.json("window.onairViewer.path"), 5)
            self._frames = [(t, capture, None, int(w), int(h))
                            for t, w, h, capture in self._run(self.tab.presented_frames(), 15)]
        finally:
            self.close()

    def frames(self) -> list[Frame]:
        return self._frames or []

    def close(self) -> None:
        if self.loop is None:
            return
        sampler = getattr(self, "_sampler", None)
        if sampler is not None:
            self.loop.loop.call_soon_threadsafe(sampler.cancel)
        if self.runner is not None:
            try:
                self.loop.run(self.runner.cleanup(), 10)
            except Exception:  # noqa: BLE001 - the loop goes below
                pass
        _close_chromium(self.loop, self.browser, self.workdir)
        self.loop = None

    def audio(self) -> list[float] | None:
        return None  # the page's audio is not timed


class PionViewer:
    """The Pion client (../shared/refpeer `client -mode view -n 1`, built by harness.refpeer_bin)
    in lab host `name`: pion/webrtc v3 with its default interceptors (NACK, RTCP reports,
    transport-cc feedback). It does not decode and prints only totals, so peers/rtp_sniffer.py
    logs every RTP packet reaching the host from the relay (started first, in the same
    namespace); frames() are its video packets (rtp_streams()), so its freezes are gaps between
    video packets, and audio() its audio packets. The client gives no session URL (location)."""

    location = None

    def __init__(self, name: str, lab, procs: ProcessGroup, relay, workdir: Path, timeout: float):
        self.rtp_path = workdir / ("viewer-rtp.log" if name == "v1" else f"viewer-{name}-rtp.log")
        self._packets: list[RtpPacket] | None = None
        self.sniffer = procs.start("sniffer" if name == "v1" else f"sniffer-{name}",
                                   [*lab.prefix(name), PYTHON, "-u", str(PEERS_DIR / "rtp_sniffer.py"),
                                    "--iface", "eth0", "--source", relay.host, "--log", str(self.rtp_path)],
                                   timeout=timeout, cwd=str(PEERS_DIR))
        self.sniffer.wait_event("ready", 10)
        self.process = procs.start("viewer" if name == "v1" else f"viewer-{name}",
                                   [*lab.prefix(name), str(refpeer_bin("client")), "-url", relay.base_url,
                                    "-room", ROOM, "-mode", "view", "-n", "1", "-anyip", "-warmup", "0s",
                                    "-window", f"{int(timeout)}s"], timeout=timeout, cwd=str(workdir))

    def wait_first_frame(self, timeout: float) -> None:
        self.sniffer.wait_event("first_video", timeout)

    def stop(self) -> None:
        for process in (self.process, self.sniffer):
            process.signal(signal.SIGTERM)
            process.wait(10)
        self._packets = read_rtp_log(self.rtp_path)

    def packets(self) -> list["RtpPacket"]:
        if self._packets is None:
            self._packets = read_rtp_log(self.rtp_path)
        return self._packets

    def frames(self) -> list[Frame]:
        """The arrivals of new video packets (each sequence number once: a packet sent again
        is no new picture)."""
        video = rtp_streams(self.packets())["video"]
        return [(p[0], None, None, None, None) for p in first_arrivals(self.packets(), video)]

    def audio(self) -> list[float] | None:
        audio = rtp_streams(self.packets())["audio"]
        return None if audio is None else [p[0] for p in self.packets() if p[1] == audio and not p[6]]

    def close(self) -> None:
        pass  # procs stops the processes


# at (wall s, the kernel's receive time), ssrc, payload type, sequence, UDP payload bytes, marker, padding bit
RtpPacket = tuple[float, int, int, int, int, int, int]


def read_rtp_log(path: Path) -> list[RtpPacket]:
    """rtp_sniffer.py's log, in arrival order."""
    packets = []
    if path.is_file():
        for line in path.read_text().splitlines():
            parts = line.split()
            if len(parts) != 7:
                continue
            try:
                packets.append((float(parts[0]), *(int(p) for p in parts[1:])))
            except ValueError:
                continue
    return sorted(packets)


def first_arrivals(packets: list[RtpPacket], ssrc: int | None) -> list[RtpPacket]:
    """The packets of `ssrc` without padding, each (extended, RFC 3550 A.1) sequence number once."""
    seen, out, highest = set(), [], None
    for p in packets:
        if p[1] != ssrc or p[6]:
            continue
        if highest is None:
            extended = p[3]
        else:
            extended = highest + (p[3] - highest + 2 ** 15) % 2 ** 16 - 2 ** 15
        highest = extended if highest is None else max(highest, extended)
        if extended not in seen:
            seen.add(extended)
            out.append(p)
    return out


def rtp_streams(packets: list[RtpPacket]) -> dict:
    """Which SSRC is what in a sniffer log. Padding (packets with the padding bit: RTX probes,
    loss announcements; rtp_sniffer.py says why) counts for none. video: the SSRC carrying the
    most bytes; audio: of the others whose median packet is under 400 bytes, the one with the
    most packets; the rest (e.g. RTX repairs) in `others`."""
    sizes: dict[int, list[int]] = {}
    for p in packets:
        if not p[6]:
            sizes.setdefault(p[1], []).append(p[4])
    if not sizes:
        return {"video": None, "audio": None, "others": []}
    video = max(sizes, key=lambda ssrc: sum(sizes[ssrc]))
    small = [ssrc for ssrc in sizes if ssrc != video and sorted(sizes[ssrc])[len(sizes[ssrc]) // 2] < 400]
    audio = max(small, key=lambda ssrc: len(sizes[ssrc]), default=None)
    return {"video": video, "audio": audio, "others": [ssrc for ssrc in sizes if ssrc not in (video, audio)]}


def rtp_figures(packets: list[RtpPacket], start: float, end: float) -> dict:
    """What the sniffer saw in [start, end]: video packets/s and frames/s (packets with the
    marker bit), each sequence number counted once, and the video packets that came again
    (`video_repeats`: retransmissions on the media SSRC, e.g. Pion's NACK responder without
    RTX); video kbit/s of all; audio packets/s, padding packets and kbit/s, packets of other
    SSRCs (e.g. RTX repairs). RTCP is not counted (rtp_sniffer.py skips it)."""
    streams = rtp_streams(packets)
    inside = [p for p in packets if start <= p[0] <= end]
    seconds = max(end - start, 1e-6)
    video = [p for p in inside if p[1] == streams["video"] and not p[6]]
    first = [p for p in first_arrivals(packets, streams["video"]) if start <= p[0] <= end]
    padding = [p for p in inside if p[6]]
    return dict(video_pps=round(len(first) / seconds, 1), video_fps=round(sum(p[5] for p in first) / seconds, 1),
                video_repeats=len(video) - len(first), video_kbit_s=round(sum(p[4] for p in video) * 8 / 1000 / seconds),
                audio_pps=round(sum(p[1] == streams["audio"] and not p[6] for p in inside) / seconds, 1),
                padding_packets=len(padding), padding_kbit_s=round(sum(p[4] for p in padding) * 8 / 1000 / seconds),
                other_packets=sum(p[1] in streams["others"] and not p[6] for p in inside),
                video_ssrc=streams["video"], audio_ssrc=streams["audio"])


VIEWERS = {"aiortc": AiortcViewer, "chromium": ChromiumViewer, "pion": PionViewer}


def judge_stats(samples: list[tuple[float, dict]], start: float, end: float, width: int | None) -> dict:
    """Chromium's inbound-rtp video getStats() samples in [start, end]: how many, their
    frameWidths, the last one, the share `width` wide, framesPerSecond (mean, a sample without
    one counts 0; min), and over the span: frames decoded per second, freezes (count, s),
    frames dropped, packets lost, NACKs and PLIs sent."""
    inside = [s for at, s in samples if start <= at <= end]
    if not inside:
        return {"samples": 0}
    first, last = inside[0], inside[-1]
    delta = lambda key: (last.get(key) or 0) - (first.get(key) or 0)  # noqa: E731
    seconds = max((last.get("timestamp", 0) - first.get("timestamp", 0)) / 1000, 1e-6)
    fps = [s.get("framesPerSecond") or 0 for s in inside]
    widths = Counter(s.get("frameWidth") for s in inside)
    return dict(samples=len(inside), widths=dict(widths.most_common()), last_width=last.get("frameWidth"),
                width_share=(widths.get(width, 0) / len(inside)) if width else None,
                fps_mean=sum(fps) / len(fps), fps_min=min(fps), decoded_fps=delta("framesDecoded") / seconds,
                freezes=delta("freezeCount"), freeze_s=delta("totalFreezesDuration"), dropped=delta("framesDropped"),
                lost=delta("packetsLost"), nacks=delta("nackCount"), plis=delta("pliCount"))


# -- one case ------------------------------------------------------------------------------

TARGETS = ("onair", "pion")  # run_case(target=): our relay, or the Pion reference relay


def launch_pion_relay(lab, procs: ProcessGroup, workdir: Path, timeout: float) -> Relay:
    """The Pion reference relay (../shared/refpeer's relay, built by harness.refpeer_bin) in the
    relay's namespace on every address there (-anyip: non-loopback host candidates; -cors: the
    viewer page from another origin can use it). Plain WHIP/WHEP: no /api/streams, no 409,
    no auth, no simulcast; PLIs are forwarded, NACKs answered from its interceptors' cache."""
    process = procs.start("relay-pion", [*lab.prefix("relay"), str(refpeer_bin("relay")), "-addr",
                                         f"0.0.0.0:{RELAY_PORTS[0]}", "-anyip", "-cors"],
                          timeout=timeout, cwd=str(workdir))
    wait_for_tcp(RELAY_PORTS[0], 10, process, netns=lab.netns("relay"))
    return Relay("pion", RELAY_PORTS[0], None, None, process, deletes_sessions=False, signals_end=False,
                 offline_409=False, serves_room_page=False, streams_api=False, checks_token=False, cors=True,
                 host=lab.address("relay"))


def http_text(url: str) -> str:
    with urllib.request.build_opener(urllib.request.ProxyHandler({})).open(url, timeout=3) as response:
        return response.read().decode(errors="replace")


def room_live(lab, relay: Relay) -> bool:
    """The room is live: ours says so in /api/streams/42; the Pion relay's /stats names a
    publisher for it that has forwarded packets."""
    if relay.streams_api:
        return bool((lab.call("relay", http_json, f"{relay.base_url}/api/streams/{ROOM}") or {}).get("live"))
    try:
        text = lab.call("relay", http_text, f"{relay.base_url}/stats")
    except OSError:
        return False
    m = re.search(rf"room={ROOM} \S+ forwarded_pkts=(\d+) publisher=true", text)
    return bool(m and int(m.group(1)) > 100)


def run_case(case: Case, lab, procs: ProcessGroup, workdir: Path, settle: float | None = None,
             measure: float | None = None, say=lambda text: None, target: str = "onair") -> Result:
    """Runs `case` in `lab` (a built netlab.Lab with viewers "v1" and, for a case with a
    second viewer, "v2": Lab(viewers=case.viewers)); every process goes to `procs` (the
    caller stops them). `settle`/`measure` override the case's own (else SETTLE, MEASURE).
    `target` "pion": the Pion reference relay in place of ours (single-layer `broadcast`
    cases; no relay figures). Raises AssertionError when the pipeline breaks."""
    started = time.monotonic()
    settle = settle if settle is not None else case.settle if case.settle is not None else SETTLE
    measure = measure if measure is not None else case.measure if case.measure is not None else MEASURE
    if case.publisher == "broadcast" and not (BROADCAST_BIN.is_file() and os.access(BROADCAST_BIN, os.X_OK)):
        raise AssertionError(f"broadcast binary not built: {BROADCAST_BIN} (swift build, or set ONAIR_BROADCAST_BIN)")
    if case.publisher not in PUBLISHERS or case.viewer not in VIEWERS:
        raise ValueError(f"{case.name}: publisher {case.publisher!r} (one of {', '.join(PUBLISHERS)}), "
                         f"viewer {case.viewer!r} (one of {', '.join(VIEWERS)})")
    if case.publisher == "chromium" and (case.change_to_kbit or case.uplink_kbit or case.uplink_loss
                                         or not case.simulcast or case.needs_resent or case.mostly_on or case.mostly_off):
        raise ValueError(f"{case.name}: a Chromium publisher always sends simulcast; the uplink cases read "
                         "broadcast's own figures")
    if case.change_to_kbit and not 0 < case.change_at < measure:
        raise ValueError(f"{case.name}: the change at {case.change_at} s is outside a {measure} s measurement")
    for at, _ in case.downlink_changes:
        if not 0 < at < measure:
            raise ValueError(f"{case.name}: the downlink change at {at} s is outside a {measure} s measurement")
    if [at for at, _ in case.downlink_changes] != sorted(at for at, _ in case.downlink_changes):
        raise ValueError(f"{case.name}: downlink changes out of order")
    if target not in TARGETS:
        raise ValueError(f"target {target!r}: one of {', '.join(TARGETS)}")
    if target == "pion" and (case.publisher != "broadcast" or case.simulcast or case.needs_resent
                             or case.menu_height is not None):
        raise ValueError(f"{case.name}: the Pion relay forwards one layer from `broadcast` and has no quality menu")
    if case.ipv6 not in ("", "only", "dual"):
        raise ValueError(f"{case.name}: ipv6 is '', 'only' or 'dual', not {case.ipv6!r}")
    if case.ipv6 and (target != "onair" or case.viewer == "pion" or case.second_viewer):
        raise ValueError(f"{case.name}: an IPv6 v1 watches our relay with aiortc or Chromium, alone")
    if case.ipv6 and (not getattr(lab, "ipv6", False) or set(getattr(lab, "ipv6_only", ())) != set(case.ipv6_only_peers)):
        raise ValueError(f"{case.name} needs a lab with IPv6 (v1 IPv6-only: {case.ipv6 == 'only'}): "
                         f"Lab(ipv6=True, ipv6_only={case.ipv6_only_peers})")
    if case.ice_tcp and case.viewer != "chromium":
        raise ValueError(f"{case.name}: ICE-TCP needs the Chromium viewer (aiortc and the Pion client speak UDP only)")
    if case.viewer == "pion" and (case.downlink_loss or case.expect_height or case.restore_height or case.below_height
                                  or case.stats_width or case.menu_height):
        raise ValueError(f"{case.name}: the Pion client neither decodes (no picture sizes) nor sees the downlink's "
                         "random loss (its sniffer reads packets before the ingress loss rule)")
    names = ["v1", "v2"] if case.second_viewer else ["v1"]
    missing = [name for name in names if name not in lab.viewers]
    if missing:
        raise ValueError(f"{case.name} needs viewers {', '.join(names)}: "
                         f"build the lab with Lab(viewers={case.viewers})")
    lab.clear()
    lab.set_rate("pub", "up", case.uplink_kbit)
    lab.set_loss("pub", "up", case.uplink_loss)
    lab.set_rate("v1", "down", case.downlink_kbit)
    lab.set_loss("v1", "down", case.downlink_loss)
    if case.ice_tcp:
        lab.block("v1", udp=True)
    if case.uplink_tcp:
        lab.block("pub", udp=True)

    timeout = settle + measure + 120
    if target == "pion":
        relay = launch_pion_relay(lab, procs, workdir, timeout)
    else:
        # IPv6: every address of both families (media.bind "::"), the candidates the relay's own
        # interfaces give (198.18.0.1 and 2001:2::1), not the one the lab would advertise.
        dual_stack = {"ONAIR_MEDIA_BIND": "::", "ONAIR_HTTP_HOST": "::", "ONAIR_ADVERTISED_ADDRESSES": None}
        relay = launch_relay("onair", procs, workdir, ports=RELAY_PORTS, netns=lab.netns("relay"),
                             address=lab.address("relay"), extra_env=dual_stack if case.ipv6 else None)
    stream_url = f"{relay.base_url}/api/streams/{ROOM}"
    publisher = PUBLISHERS[case.publisher](case, lab, procs, relay, workdir, timeout)
    viewers: dict = {}
    try:  # the browsers' loops end however this ends (procs stops the processes)
        result = _run_case(case, lab, relay, stream_url, publisher, viewers, procs, workdir, settle, measure, timeout,
                           say)
        result.target, result.elapsed_s = target, round(time.monotonic() - started, 1)
        return result
    finally:
        for viewer in viewers.values():
            viewer.close()
        publisher.close()


def _run_case(case: Case, lab, relay, stream_url: str, publisher, viewers: dict, procs: ProcessGroup, workdir: Path,
              settle: float, measure: float, timeout: float, say) -> Result:
    """run_case once the relay and the publisher run; fills `viewers` (name -> viewer)."""
    deadline = time.monotonic() + 20
    while not room_live(lab, relay):
        watch(0.2, publisher.process, relay.process)
        if time.monotonic() > deadline:
            raise AssertionError(f"the room is not live at the relay 20 s after the {case.publisher} publisher started")
    if case.publisher == "chromium":
        # Chromium ramps its layers up over a few seconds (the top one once its bandwidth
        # estimate allows): viewers join once f arrives at >= CHROMIUM_TOP_KBIT, so that the relay
        # chooses their first layer from a publisher's settled rates, not from f's ramp.
        deadline, layers = time.monotonic() + 20, []
        while not chromium_layers_up(layers):
            watch(0.5, publisher.process, relay.process)
            layers = (lab.call("relay", http_json, stream_url) or {}).get("layers") or []
            if time.monotonic() > deadline:
                raise AssertionError(f"the relay does not list Chromium's layers q, h, f as sending (f at >= "
                                     f"{CHROMIUM_TOP_KBIT} kbit/s) 20 s after it went live: {layers}")

    watch(case.join_after, publisher.process, relay.process)
    for name in ["v1", "v2"] if case.second_viewer else ["v1"]:
        kind = case.viewer if name == "v1" else "aiortc"
        reached = dataclasses.replace(relay, host=f"[{lab.address6('relay')}]") if case.ipv6 else relay
        viewers[name] = VIEWERS[kind](name, lab, procs, reached, workdir, timeout)
    sampler = RelaySampler(lab, stream_url, viewers)
    if relay.streams_api:
        sampler.start()
    try:  # the sampler stops however this ends
        for name, viewer in viewers.items():
            viewer.wait_first_frame(20)
        say(f"{case.name}: first frame{'s' if len(viewers) > 1 else ''}; settling {settle:g} s, "
            f"then measuring {measure:g} s")
        running = (publisher.process, relay.process, *(v.process for v in viewers.values()))
        watch(settle, *running)

        measured = {case.publisher: publisher.process, "relay": relay.process,
                    **{("viewer" if name == "v1" else f"viewer-{name}"): v.process for name, v in viewers.items()}}
        cpu_before = {name: cpu_seconds(p) for name, p in measured.items()}
        uplink_before = lab.qdisc_stats("pub", "up")
        downlink_before = lab.qdisc_stats("v1", "down")
        downlink = {}
        stream_before = lab.call("relay", http_json, stream_url) if relay.streams_api else None
        start = time.time()
        judge_from = start + case.judge_from_start
        # The schedule: (seconds into the measurement, link, new kbit/s or None), in time order.
        schedule = sorted([*([(case.change_at, "pub", case.change_to_kbit)] if case.change_to_kbit else []),
                           *((at, "v1", kbit) for at, kbit in case.downlink_changes)], key=lambda e: e[0])
        changed: list[tuple[float, float | None, float | None]] = []  # v1's downlink: (wall time, old, new kbit)
        downlink_kbit = case.downlink_kbit
        for at, link, kbit in schedule:
            watch(start + at - time.time(), *running)
            if link == "v1" and not changed:  # tbf counters before the first change removes or resets them
                downlink = counters_since(downlink_before, lab.qdisc_stats("v1", "down"), time.time() - start)
            lab.set_rate(link, "up" if link == "pub" else "down", kbit)
            if link == "pub":
                judge_from = time.time() + case.judge_after
                say(f"{case.name}: uplink now {kbit:g} kbit/s")
            else:
                changed.append((time.time(), downlink_kbit, kbit))
                downlink_kbit = kbit
                say(f"{case.name}: v1 downlink now {'unlimited' if kbit is None else f'{kbit:g} kbit/s'}")
        watch(start + measure - time.time(), *running)
        end = time.time()
    finally:
        sampler.stop()
    cpu = {name: round(100 * (cpu_seconds(p) - cpu_before[name]) / (end - start))
           for name, p in measured.items() if cpu_before[name] is not None and cpu_seconds(p) is not None}
    uplink = counters_since(uplink_before, lab.qdisc_stats("pub", "up"), end - start)
    if not changed:
        downlink = counters_since(downlink_before, lab.qdisc_stats("v1", "down"), end - start)
    stream = lab.call("relay", http_json, stream_url) if relay.streams_api else None
    menu = None
    if case.menu_height is not None:  # the stream still runs: choose the layer, watch it a moment
        menu = viewers["v1"].choose_quality(case.menu_height)
        say(f"{case.name}: quality menu {case.menu_height}: {'shown' if menu.get('reached') else 'NOT shown'}")
        if menu.get("reached"):
            watch(MENU_WATCH, publisher.process, relay.process, viewers["v1"].process)

    stats = publisher.stop()
    for viewer in viewers.values():
        viewer.stop()
    frames = {name: viewer.frames() for name, viewer in viewers.items()}
    for name, got in frames.items():
        if not got:
            raise AssertionError(f"viewer {name} ({case.viewer if name == 'v1' else 'aiortc'}) logged no frames")
    broadcast = publisher.process if case.publisher == "broadcast" else None
    sent_kbit, target = status_rates(broadcast, start, end) if broadcast else (None, None)
    v1 = frames["v1"]
    result = Result(case, judge(v1, start, end), judge(v1, judge_from, end),
                    stats=stats if broadcast else {}, publisher={} if broadcast else stats, stream=stream,
                    sent_kbit=sent_kbit, target_kbit=target, uplink=uplink, cpu=cpu,
                    layer_share=layer_shares(broadcast, start, end) if broadcast else {}, downlink=downlink,
                    timeline=sampler.timeline(start))
    for name, session in named_sessions((stream or {}).get("viewer_sessions") or [], viewers):
        result.sessions[name] = session
    if case.dip is not None:
        viewer = viewers["v1"]
        result.dip = judge_dip(case, [f[0] for f in v1], viewer.audio(), start, end,
                               *((changed[0][0], changed[1][0]) if len(changed) == 2 else ()))
        if isinstance(viewer, PionViewer):
            result.packets = rtp_figures(viewer.packets(), start, end)
        if relay.streams_api:
            before = dict(named_sessions((stream_before or {}).get("viewer_sessions") or [], viewers)).get("v1") or {}
            after = result.sessions.get("v1") or {}
            delta = lambda key: None if after.get(key) is None else round(after[key] - (before.get(key) or 0), 1)  # noqa: E731
            result.dip.update(paused_s=delta("paused_seconds"), switches_up=delta("switches_up"),
                              switches_down=delta("switches_down"), paused_at_end=after.get("paused"),
                              paused_total_s=after.get("paused_seconds"))
            if result.dip["switches_up"] is not None:
                result.dip["switches"] = int(result.dip["switches_up"] + result.dip["switches_down"])

    # The viewer side: v1's size before the first change, each change, the restore; v2.
    first_change = changed[0][0] if changed else end
    if case.expect_height is not None:
        share, count = height_share(v1, start + case.judge_from_start, first_change, case.expect_height)
        result.expect = dict(share=share, frames=count,
                             sizes=judge(v1, start + case.judge_from_start, first_change)["sizes"])
    if case.below_height is not None:
        result.below_off = sum(f[4] is None or f[4] >= case.below_height for f in v1 if judge_from <= f[0] <= end)
    if isinstance(viewers["v1"], ChromiumViewer):
        result.path = viewers["v1"].path
        result.browser = judge_stats(viewers["v1"].samples, start + case.judge_from_start, first_change,
                                     case.stats_width)
    if menu is not None:
        result.menu = {k: v for k, v in menu.items() if k != "at"}
        if menu.get("reached"):
            result.menu_frames = judge(v1, menu["at"], menu["at"] + MENU_WATCH)
    for i, (at, old, new) in enumerate(changed):
        until = changed[i + 1][0] if i + 1 < len(changed) else end
        step = judge_step(v1, at, old, new, until)
        step.update(at_s=round(at - start, 1), sizes_before=judge(v1, changed[i - 1][0] if i else start, at)["sizes"])
        result.steps.append(step)
    if case.restore_height is not None and changed:
        last = changed[-1][0]
        restored = first_frame_after(v1, last, lambda h: h == case.restore_height)
        result.restore_s = None if restored is None or restored[0] > end else round(restored[0] - last, 2)
        result.restore_window_s = round(end - last, 1)
    if case.second_viewer:
        v2 = frames["v2"]
        result.second = judge(v2, start, end)
        if case.second_height is not None:
            result.second_off_height = sum(f[4] != case.second_height for f in v2 if start <= f[0] <= end)
    return result


def counters_since(before: dict, after: dict, seconds: float) -> dict:
    """A qdisc's counters over an interval: its kind now, drops and kbit/s sent."""
    return {"kind": after["kind"], "drops": after["drops"] - before["drops"],
            "kbit_s": round((after["bytes"] - before["bytes"]) * 8 / 1000 / max(seconds, 1e-6))}
