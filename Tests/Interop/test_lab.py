"""The network lab (tools/netlab: namespaces, tbf, nftables; root only): `broadcast` -> our
relay -> aiortc WHEP viewers, each in its own namespace, with the publisher's uplink or a
viewer's downlink impaired, judged as a viewer sees it (decoded fps, longest freeze,
decoded size, glass-to-glass latency). The cases and their targets live in lab_cases.py
(shared with tools/bench/lab/lab_bench.py):

  clean             >= 27 fps, no freeze over 300 ms (baseline; figures printed)
  uplink-1mbit      tbf 1 Mbit/s: >= 27 fps, no freeze over 300 ms, glass-to-glass p50 <= 250 ms
  uplink-tcp        the publisher's network drops UDP: broadcast goes live over ICE-TCP (its
                    --stats-json path "tcp"), >= 28 fps, no freeze over 300 ms
  uplink-tcp-1mbit  the same behind tbf 1 Mbit/s: >= 27 fps, no freeze over 300 ms, glass-to-glass
                    p95 <= 500 ms
  uplink-loss5      5 % random loss: >= 28 fps, no freeze over 300 ms, broadcast resent > 0 packets
  uplink-drop       2.5 -> 0.8 Mbit/s mid-stream: no freeze over 300 ms from 5 s after the drop
  uplink-1mbit-simulcast  --simulcast, tbf 1 Mbit/s: h and q on >= 70 %, f <= 30 % of the time

The viewer side (broadcast --simulcast, clean uplink; test_viewer_case):

  downlink-1mbit    v1 behind tbf 1 Mbit/s: from 4 s in >= 27 fps, no freeze over 500 ms,
                    mostly 360-line frames until the limit is lifted at 20 s; a 720-line
                    frame within 15 s of the lift (time to restore printed)
  downlink-loss5    v1 with 5 % random downlink loss: >= 28 fps, no freeze over 300 ms
  two-viewers-600k  v1 behind tbf 600 kbit/s (figures only), v2 clean: 720 lines throughout,
                    >= 29 fps, no freeze over 300 ms

Real browsers (headless Chromium in its lab namespace, DevTools driven from a loop inside
it; test_chromium_case, marked `chromium`; each run ~30 s):

  chromium-viewer-1mbit    the relay's viewer page behind tbf 1 Mbit/s (Chromium's transport-cc:
                    the relay's send-side estimator), broadcast --simulcast, settled 8 s, 12 s
                    measured: getStats frameWidth 640 (at the end and in >= 80 % of the
                    once-a-second samples), framesPerSecond >= 25; then the quality menu's
                    320x180 entry: within 10 s getStats 320x180 and the page's own layer
                    display ("Resolution 320×180", "Layer q"), and 320x180 frames presented.
  chromium-publisher-600k  Chromium publishing simulcast q/h/f over WHIP (fake camera playing a
                    noisy 1280x720 file), the aiortc viewer behind tbf 600 kbit/s, settled 8 s,
                    16 s measured: no frame 720 lines tall, >= 20 fps, no freeze over 1500 ms

Over ICE-TCP (issue 26; v1's network drops every UDP datagram, Case.ice_tcp): the page's
selected pair is TCP (window.onairViewer.path "webrtc-tcp"); glass-to-glass from the test
pattern's barcode, read by the page's frame recorder (chromium.RECORD_VIDEO_FRAMES):

  chromium-tcp-1mbit       one layer (the test pattern), tbf 1 Mbit/s: >= 27 fps, no freeze
                    over 300 ms, glass-to-glass p95 <= 500 ms
  chromium-tcp-1mbit-simulcast  the same with broadcast --simulcast

IPv6 (issue 26; the lab built with 2001:2::/48 addresses, the relay dual stack: media.bind and
http.host "::", candidates from its interfaces; the relay must list v1's session as IPv6):

  ipv6-only-aiortc, ipv6-only-aiortc-simulcast   aiortc from a namespace with no IPv4 address at
                    all: >= 28 fps, no freeze over 300 ms
  ipv6-chromium, ipv6-chromium-simulcast   the viewer page from a dual-stack namespace over
                    http://[2001:2::1]:8080 (Chromium without a media permission gathers on its
                    default route only, and found nothing to gather on in an IPv6-only one)
  ipv6-chromium-tcp the same with v1's UDP dropped: ICE-TCP over IPv6

Dips of v1's downlink (issue 24, "never worse than none"; test_dip_case, lab_cases.dip_case):
no limit, then a tbf rate for a few seconds 4 s into the measurement, then no limit again;
settled 6 s, measured 4 s + the dip + 10 s. Judged as the viewer sees it: the longest freeze
(gap between frames shown/decoded, or for the Pion client between video packets) <= the dip
+ 2.5 s, the time back after the recovery (0 when frames flowed through it, else recovery
-> the frame that ends the gap: the first of frames that keep coming for 1 s; a stale frame
completed late by retransmissions does not count) <= 2 s, and for aiortc in the 10 s dip to
300 kbit/s no gap over 500 ms between decoded audio frames during the dip. The relay's paused
seconds and layer switches for the viewer (/api/streams/42) are printed.

  dip-1layer-800k-3s-{chromium,aiortc,pion}    one layer (broadcast, noisy 720p 2.5 Mbit/s), 800 kbit/s for 3 s
  dip-1layer-300k-10s-{chromium,aiortc,pion}   one layer, 300 kbit/s for 10 s (aiortc: audio gap <= 500 ms)
  dip-simulcast-800k-3s-chromium               broadcast --simulcast, 800 kbit/s for 3 s
  dip-1layer-800k-3s-chromium-tcp, dip-simulcast-800k-3s-chromium-tcp   the same over ICE-TCP: the
                    relay starts no frame while the viewer's queue holds ~250 ms, and
                    restarts its video at a keyframe once there is room

(pion: ../shared/refpeer's client as the viewer, built once into .build/refpeer, with
peers/rtp_sniffer.py logging the RTP packets it receives; the rest of the matrix, 1500/800/300
kbit/s x 1/3/10 s, runs in tools/bench/lab/lab_bench.py --cases 'dip-*'.) 25-35 s per case,
~3.5 min for the 7.

Cases settle 10 s after the viewers' first frames and measure 30 s unless they set their own
(the viewer-side cases: 6 s and 16 or 36 s); ONAIR_LAB_SETTLE, ONAIR_LAB_MEASURE override
every case. Skips, with the reason, when the lab cannot be built.

  .venv-interop/bin/python -m pytest -s Tests/Interop/test_lab.py
  .venv-interop/bin/python -m pytest -s Tests/Interop/test_lab.py -k viewer_case
  .venv-interop/bin/python -m pytest -s Tests/Interop/test_lab.py -k chromium
  .venv-interop/bin/python -m pytest -s Tests/Interop/test_lab.py -k dip_case
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import threading
from pathlib import Path

import pytest

from chromium import Chromium
from harness import refpeer_bin, running_lab
from lab_cases import CASES, dip_text, run_case


def _seconds(variable: str) -> float | None:
    value = os.environ.get(variable)
    return float(value) if value else None


SETTLE = _seconds("ONAIR_LAB_SETTLE")    # None: each case's own, else lab_cases.SETTLE (10)
MEASURE = _seconds("ONAIR_LAB_MEASURE")  # None: each case's own, else lab_cases.MEASURE (30)
UPLINK_CASES = [name for name, case in CASES.items() if not case.viewer_side and not case.chromium]
VIEWER_CASES = [name for name, case in CASES.items() if case.viewer_side and not case.chromium and not case.dip]
CHROMIUM_CASES = [name for name, case in CASES.items() if case.chromium and not case.dip]
DIP_CASES = [pytest.param(name, marks=[pytest.mark.chromium] if case.chromium else [])
             for name, case in CASES.items() if case.dip]


@pytest.fixture(scope="module", autouse=True)
def _sigterm_interrupts():
    """SIGTERM (a CI job's timeout) ends the run as Ctrl-C does, through the fixtures' teardown:
    the case's processes and Chromium are stopped and its lab removed (by default a SIGTERM
    would end pytest at once and leave them running in the lab's orphaned namespaces)."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return

    def interrupt(sig, _frame):
        raise KeyboardInterrupt(f"signal {signal.Signals(sig).name}")
    previous = signal.signal(signal.SIGTERM, interrupt)
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, previous)


@pytest.fixture
def lab(request):
    """A lab with as many viewers as the test's case needs, removed at teardown (after
    `procs` stopped its processes: tests list `lab` before `procs`)."""
    case = CASES[request.node.callspec.params["name"]]
    yield from running_lab(case.viewers, ipv6=bool(case.ipv6), ipv6_only=case.ipv6_only_peers)


def _run(name, lab, procs, tmp_path):
    case = CASES[name]
    result = run_case(case, lab, procs, tmp_path, settle=SETTLE, measure=MEASURE)
    print(f"\n{case.title}: {result.line()}")
    if case.dip:
        print(f"{case.name}: {dip_text(result)}; the case took {result.elapsed_s} s")
    print(f"relay GET /api/streams/42: {json.dumps(result.stream)}")
    problems = result.problems()
    known = result.defect_problems()
    if problems and len(known) == len(problems):
        pytest.xfail(f"{case.title}: known relay defect ({case.known_defect}): " + "; ".join(problems))
    assert not problems, f"{case.title}: " + "; ".join(problems) + f"\n{result.line()}"


@pytest.mark.parametrize("name", UPLINK_CASES)
def test_uplink_case(name, lab, procs, tmp_path):
    _run(name, lab, procs, tmp_path)


@pytest.mark.parametrize("name", VIEWER_CASES)
def test_viewer_case(name, lab, procs, tmp_path):
    _run(name, lab, procs, tmp_path)


@pytest.mark.chromium
@pytest.mark.parametrize("name", CHROMIUM_CASES)
def test_chromium_case(name, lab, procs, tmp_path):
    if not shutil.which(Chromium().binary) and not Path(Chromium().binary).exists():
        pytest.fail("chromium is not installed (tools/setup.sh installs it)")
    _run(name, lab, procs, tmp_path)


def _require_chromium() -> None:
    if not shutil.which(Chromium().binary) and not Path(Chromium().binary).exists():
        pytest.fail("chromium is not installed (tools/setup.sh installs it)")


@pytest.mark.parametrize("name", DIP_CASES)
def test_dip_case(name, lab, procs, tmp_path):
    case = CASES[name]
    if case.chromium:
        _require_chromium()
    if case.viewer == "pion":
        refpeer_bin("client")  # built once into .build/refpeer (a failure here fails the test)
    _run(name, lab, procs, tmp_path)
