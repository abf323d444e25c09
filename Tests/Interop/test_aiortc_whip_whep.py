"""aiortc (a WebRTC stack we did not write) against the relay: one WHIP publisher and two
WHEP viewers on room 42; every frame carries its index, so a viewer's count is exact."""

from __future__ import annotations

import asyncio
import json
import time
import urllib.error
import urllib.request

import pytest

from harness import PEERS_DIR, start_peer

ROOM = "42"
WATCH_SECONDS = 6        # media time watched with both viewers on
MIN_DELIVERY = 0.90      # decoded distinct frames / frames sent in the viewer's window
FIRST_FRAME_WITHIN = 5.0  # seconds from WHEP POST to the first decoded frame
END_WITHIN = 4.0         # seconds from the publisher's DELETE to each viewer seeing the end
STALL_AS_END = 2.0       # for relays that never signal the end: this much silence counts


def http(method: str, url: str, body: bytes | None = None, headers: dict | None = None, timeout: float = 5):
    """(status, headers, body) without raising on 4xx/5xx."""
    request = urllib.request.Request(url, data=body, method=method, headers=headers or {})
    try:
        with urllib.request.urlopen(request, timeout=timeout) as response:
            return response.status, dict(response.headers), response.read()
    except urllib.error.HTTPError as error:
        return error.code, dict(error.headers), error.read()


def aiortc_offer(direction: str) -> str:
    """A real aiortc offer (video + audio, `direction`), for endpoint checks without media."""
    import sys
    sys.path.insert(0, str(PEERS_DIR))
    from aiortc import RTCConfiguration, RTCPeerConnection
    from common import allow_loopback

    async def make() -> str:
        allow_loopback()
        pc = RTCPeerConnection(RTCConfiguration(iceServers=[]))
        pc.addTransceiver("video", direction=direction)
        pc.addTransceiver("audio", direction=direction)
        await pc.setLocalDescription(await pc.createOffer())
        sdp = pc.localDescription.sdp
        await pc.close()
        return sdp
    return asyncio.run(make())


def metric(relay, name: str) -> float | None:
    """A counter from the relay's /metrics, or None when it has none."""
    status, _, body = http("GET", f"{relay.base_url}/metrics")
    if status != 200:
        return None
    for line in body.decode().splitlines():
        if line.startswith(name + " "):
            return float(line.split()[-1])
    return None


# chroma_noise: large frames of several FU-A fragments, which aiortc sizes about equally, one
# byte apart; our relay pads the shorter ones (RFC 3550 §5.1) to keep one GSO run per frame,
# and aiortc must still decode every frame.
@pytest.mark.parametrize("chroma_noise", [False, True], ids=["plain", "chroma-noise"])
def test_whip_publisher_to_two_whep_viewers(relay, procs, chroma_noise):
    started = time.monotonic()
    publisher = start_peer(procs, "publisher", "whip_publisher.py", "--url", relay.whip_url(ROOM),
                           *(["--token", relay.publish_token] if relay.publish_token else []),
                           *(["--chroma-noise"] if chroma_noise else []), timeout=90)
    posted = publisher.wait_event("posted", timeout=15)
    assert posted["codecs"].get("video", "").upper().startswith("H264"), posted
    assert posted["codecs"].get("audio", "").lower().startswith("opus"), posted
    if relay.deletes_sessions:
        assert posted["location"], "RFC 9725 §4.2: 201 must carry Location"
    publisher.wait_event("connected", timeout=15)

    if relay.streams_api:
        status, headers, body = http("GET", f"{relay.base_url}/api/streams/{ROOM}")
        assert status == 200, (status, body[:200])
        json.loads(body)

    stall = [] if relay.signals_end else ["--end-on-stall", STALL_AS_END]
    viewers = [start_peer(procs, f"viewer{i}", "whep_viewer.py", "--url", relay.whep_url(ROOM),
                          "--offline-wait", 10, *stall, timeout=90) for i in (1, 2)]
    for viewer in viewers:
        viewer.wait_event("first_frame", timeout=15)
    time.sleep(WATCH_SECONDS)

    publisher.signal()  # SIGTERM: the publisher DELETEs its session, then closes
    assert publisher.wait(15) is not None, "publisher did not stop within 15 s of SIGTERM"
    pub = publisher.last("report")
    deleted = publisher.last("deleted")
    assert pub and pub["ok"], pub
    if relay.deletes_sessions:
        assert deleted["status"] in (200, 204), f"DELETE {deleted['location']} -> {deleted['status']}"

    reports = []
    for viewer in viewers:
        if viewer.wait(END_WITHIN + (0 if relay.signals_end else STALL_AS_END) + 2) is None:
            viewer.stop()  # SIGTERM: it still prints its report
        report = viewer.last("report")
        assert report is not None, f"{viewer.name} printed no report"
        reports.append(report)

    for viewer, report in zip(viewers, reports):
        name = viewer.name
        assert report.get("codecs", {}).get("video", "").upper().startswith("H264"), (name, report)
        assert report["first_frame_ms"] is not None and report["first_frame_ms"] <= FIRST_FRAME_WITHIN * 1000, \
            (name, report)
        expected = pub["last_index"] - report["first_index"] + 1
        assert expected >= WATCH_SECONDS * 25, (name, "window too short", expected, report)
        delivered = report["distinct"] / expected
        assert delivered >= MIN_DELIVERY, f"{name}: {report['distinct']} of {expected} frames ({delivered:.0%})"
        assert (report["width"], report["height"]) == (640, 480), (name, report)
        # Garbled pictures (decoding without the reference frames, e.g. a start without a
        # keyframe) fail the index CRC.
        assert report["unreadable"] <= max(3, 0.05 * report["frames"]), (name, "unreadable frames", report)
        expected_audio = expected / 30 * 50  # 20 ms Opus frames over the same window
        assert report["audio_frames"] >= 0.8 * expected_audio, (name, "audio", report["audio_frames"], expected_audio)
        assert report["audio_nonsilent"] >= 0.8 * expected_audio, (name, "the tone is missing", report)

        # The end: a real signal from our relay; plain silence from a relay that has none.
        allowed = {"track-ended", "audio-track-ended", "connection-failed", "connection-closed"}
        if not relay.signals_end:
            allowed.add("stall")
        assert report["ended"] in allowed, f"{name} did not see the end: {report['ended']} ({report})"
        lag = report["ended_wall"] - deleted["wall"]
        limit = END_WITHIN + (0 if relay.signals_end else STALL_AS_END)
        assert lag <= limit, f"{name} saw the end {lag:.1f}s after DELETE (limit {limit}s)"
    padded = metric(relay, "onair_rtp_run_padded_packets_total") if relay.target == "onair" else None
    if chroma_noise and relay.target == "onair":
        assert padded and padded > 0, f"no run-padded packets reached the viewers ({padded})"
    print(f"aiortc WHIP->2xWHEP against {relay.target}: {time.monotonic() - started:.1f}s, padded {padded}, "
          f"viewers {[(r['distinct'], r['first_frame_ms'], r['ended']) for r in reports]}")


def test_whep_offline_room_answers_409_with_retry_after(relay):
    if not relay.offline_409:
        pytest.skip(f"the {relay.target} relay accepts viewers of rooms that are not live")
    status, headers, body = http("POST", relay.whep_url("offline-room"), aiortc_offer("recvonly").encode(),
                                 {"Content-Type": "application/sdp"})
    assert status == 409, (status, body[:200])
    retry_after = headers.get("Retry-After")
    assert retry_after is not None and retry_after.strip().isdigit(), f"Retry-After: {retry_after!r}"


def test_whip_without_valid_token_is_refused(relay):
    if not relay.checks_token:
        pytest.skip(f"the {relay.target} relay does not authenticate publishers")
    offer = aiortc_offer("sendonly").encode()
    for headers in ({}, {"Authorization": "Bearer wrong-token"}):
        status, _, body = http("POST", relay.whip_url(ROOM), offer, {"Content-Type": "application/sdp", **headers})
        assert status in (401, 403), (headers, status, body[:200])
