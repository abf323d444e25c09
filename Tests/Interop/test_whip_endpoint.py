"""Self-test of peers/whip_endpoint.py (the aiortc WHIP endpoint that test_broadcast.py
proves `broadcast` against): an aiortc publisher paints the test pattern's barcode
(capture time in ms, painted from the spec, not with testpattern.py) and a tone; the
endpoint must answer, decode, read the barcodes, refuse wrong tokens and a second
publisher, and see the DELETE. If this fails, broadcast test failures mean nothing."""

from __future__ import annotations

import asyncio
import sys
import time
import urllib.error
import urllib.request

import aiohttp
import av
import pytest

from harness import PEERS_DIR

sys.path.insert(0, str(PEERS_DIR))
from aiortc import RTCConfiguration, RTCPeerConnection, RTCRtpSender, RTCSessionDescription, VideoStreamTrack  # noqa: E402
from common import Session, allow_loopback, h264_first  # noqa: E402
from whip_endpoint import BackgroundLoop, WhipEndpoint  # noqa: E402
from whip_publisher import ToneTrack  # noqa: E402

TOKEN = "endpoint-selftest-token"
WIDTH, HEIGHT = 640, 360
SECONDS = 4.0
BLACK, WHITE, GREY = 16, 235, 96


def crc16_ccitt_false(data: bytes) -> int:
    crc = 0xFFFF
    for byte in data:
        crc ^= byte << 8
        for _ in range(8):
            crc = ((crc << 1) ^ 0x1021) & 0xFFFF if crc & 0x8000 else (crc << 1) & 0xFFFF
    return crc


def barcode_frame(ms: int, index: int) -> av.VideoFrame:
    """A yuv420p frame whose top band carries `ms` as the broadcast test pattern does:
    2 rows x 32 cells, 48-bit ms MSB first then CRC-16/CCITT-FALSE of its 6 bytes."""
    payload = ms.to_bytes(6, "big")
    word = (ms << 16) | crc16_ccitt_false(payload)
    bits = [(word >> (63 - i)) & 1 for i in range(64)]
    luma = bytearray([GREY]) * (WIDTH * HEIGHT)
    for i, bit in enumerate(bits):
        r, c = divmod(i, 32)
        x0, x1 = c * WIDTH // 32, (c + 1) * WIDTH // 32
        value = bytes([WHITE if bit else BLACK]) * (x1 - x0)
        for y in range(r * HEIGHT // 24, (r + 1) * HEIGHT // 24):
            luma[y * WIDTH + x0:y * WIDTH + x1] = value
    bar = (index * 8) % (WIDTH - 16)  # something that moves, below the band
    for y in range(HEIGHT // 2, HEIGHT):
        luma[y * WIDTH + bar:y * WIDTH + bar + 16] = bytes([WHITE]) * 16
    frame = av.VideoFrame(WIDTH, HEIGHT, "yuv420p")
    frame.planes[0].update(bytes(luma))
    for plane in frame.planes[1:]:
        plane.update(bytes([128]) * plane.buffer_size)
    return frame


class BarcodeTrack(VideoStreamTrack):
    def __init__(self):
        super().__init__()
        self.sent = 0

    async def recv(self):
        pts, time_base = await self.next_timestamp()
        frame = barcode_frame(int(time.time() * 1000), self.sent)
        frame.pts, frame.time_base = pts, time_base
        self.sent += 1
        return frame


def http(method: str, url: str, body: bytes | None = None, headers: dict | None = None):
    request = urllib.request.Request(url, data=body, method=method, headers=headers or {})
    try:
        with urllib.request.urlopen(request, timeout=10) as response:
            return response.status, dict(response.headers), response.read()
    except urllib.error.HTTPError as error:
        return error.code, dict(error.headers), error.read()


async def publish(url: str, seconds: float, refusals) -> dict:
    """aiortc publisher (H.264 + Opus) for `seconds`; calls `refusals(offer)` while live."""
    allow_loopback()
    pc = RTCPeerConnection(RTCConfiguration(iceServers=[]))
    video, audio = BarcodeTrack(), ToneTrack()
    pc.addTransceiver(audio, direction="sendonly").setCodecPreferences(
        [c for c in RTCRtpSender.getCapabilities("audio").codecs if c.mimeType == "audio/opus"])
    pc.addTransceiver(video, direction="sendonly").setCodecPreferences(
        h264_first(RTCRtpSender.getCapabilities("video").codecs, only=True))
    async with aiohttp.ClientSession() as client:
        session = Session(client, url, TOKEN)
        await pc.setLocalDescription(await pc.createOffer())
        status, answer, headers = await session.post_offer(pc.localDescription.sdp)
        await pc.setRemoteDescription(RTCSessionDescription(sdp=answer, type="answer"))
        await asyncio.sleep(seconds / 2)
        live_checks = await asyncio.get_running_loop().run_in_executor(None, refusals, pc.localDescription.sdp)
        await asyncio.sleep(seconds / 2)
        video.stop()
        sent = video.sent
        delete_status = await session.delete()
        await pc.close()
    return dict(status=status, location=headers.get("Location"), sent=sent, delete_status=delete_status,
                live_checks=live_checks, audio_sent=audio.frames_sent)


def test_endpoint_decodes_reads_barcodes_and_sees_delete():
    loop = BackgroundLoop()
    endpoint = WhipEndpoint(token=TOKEN)
    try:
        loop.run(endpoint.start())
        url = endpoint.url("selftest")

        def refusals(offer: str) -> dict:
            sdp = {"Content-Type": "application/sdp"}
            return dict(
                no_token=http("POST", url, offer.encode(), sdp)[:2],
                wrong_token=http("POST", url, offer.encode(), {**sdp, "Authorization": "Bearer nope"})[:2],
                second=http("POST", url, offer.encode(), {**sdp, "Authorization": f"Bearer {TOKEN}"})[0],
                patch=http("PATCH", url + "/x", b"", {"Authorization": f"Bearer {TOKEN}"})[0])

        pub = loop.run(publish(url, SECONDS, refusals), timeout=60)
        time.sleep(0.5)
        [session] = loop.call(endpoint.summaries)
    finally:
        loop.run(endpoint.stop())
        loop.close()

    video, audio = session["video"], session["audio"]
    print(f"\nendpoint self-test: sent {pub['sent']} frames, decoded {video['frames']}, "
          f"barcodes {video['barcodes']}, latency p50 {video['latency_p50_ms']} ms p95 {video['latency_p95_ms']} ms, "
          f"fps pts {video['fps_pts']} arrival {video['fps_arrival']}, audio {audio['frames']} frames "
          f"{audio['sample_rate']} Hz x{audio['channels']}")
    assert pub["status"] == 201 and pub["location"].startswith("/whip/selftest/"), pub
    checks = pub["live_checks"]
    assert checks["no_token"][0] == 401 and checks["no_token"][1]["WWW-Authenticate"].startswith("Bearer"), checks
    assert checks["wrong_token"][0] == 401 and "invalid_token" in checks["wrong_token"][1]["WWW-Authenticate"], checks
    assert checks["second"] == 409 and checks["patch"] == 405, checks
    assert pub["delete_status"] == 200 and session["deleted"], (pub, session)
    assert session["authorization"] == session["delete_authorization"] == f"Bearer {TOKEN}", session
    assert video["barcode_error"] is None, f"testpattern.read_barcode unavailable: {video['barcode_error']}"
    assert video["frames"] >= 0.9 * pub["sent"], (pub, video)
    assert video["sizes"] == [(WIDTH, HEIGHT)], video
    assert video["barcodes"] >= 0.9 * video["frames"], video
    assert 0 < video["latency_p50_ms"] < 1000, video
    assert 25 <= video["fps_pts"] <= 35, video  # aiortc's VideoStreamTrack paces 30 fps
    assert audio["sample_rate"] == 48000 and audio["frames"] >= 0.8 * pub["audio_sent"], (pub, audio)
    assert audio["nonsilent_frames"] >= 0.8 * audio["frames"], audio
