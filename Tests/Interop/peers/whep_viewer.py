#!/usr/bin/env python3
"""aiortc WHEP viewer (RFC 9725) for interop tests.

Offers recvonly video (H.264 first) and audio, POSTs to a WHEP endpoint (retrying while
the answer is 409 + Retry-After, i.e. the room is not live), decodes what arrives and
reads the frame index painted by whip_publisher.py (framecode.py). Runs until the remote
end is seen (track ended, e.g. RTCP BYE; or connection failed/closed, e.g. DTLS
close_notify), until --duration, until a media stall of --end-on-stall seconds, or until
SIGTERM; then DELETEs its session and prints one final JSON "report" line, e.g.
{"event": "report", "frames": 180, "distinct": 178, "first_index": 40, "last_index": 219,
 "width": 640, "height": 480, "audio_frames": 300, "first_frame_ms": 420, "ended": "track-ended", ...}

  whep_viewer.py --url http://127.0.0.1:8080/whep/42 --duration 20

--frames-log PATH writes one line per decoded video frame, "<arrival wall time, s>
<capture ms from the test pattern's barcode, or -> <capture ms from the sender's RTCP
sender reports, or -> <width>x<height>" (testpattern.py; SenderClock), for judging frame
rate, freezes, glass-to-glass latency and the decoded size (which simulcast layer a relay
sends) afterwards, whatever the source. --audio-log PATH writes one line per decoded audio
frame, "<arrival wall time, s> <samples>" (gaps in the sound). In a network-lab namespace set
ONAIR_ICE_HOST to the namespace's address (common.allow_loopback).
"""

from __future__ import annotations

import argparse
import array
import asyncio
import sys
import time

import aiohttp
from aiortc import RTCConfiguration, RTCPeerConnection, RTCRtpReceiver, RTCSessionDescription
from aiortc.mediastreams import MediaStreamError

from common import (Session, SessionError, allow_loopback, emit, h264_first, install_stop_signals, log,
                    negotiated_codecs)
from framecode import read_index


class Stats:
    def __init__(self):
        self.frames = 0
        self.indices: set[int] = set()
        self.unreadable = 0
        self.first_index = self.last_index = None
        self.width = self.height = None
        self.first_frame_at = self.last_frame_at = None
        self.audio_frames = self.audio_nonsilent = 0
        self.first_audio_at = None

    def as_dict(self, origin: float) -> dict:
        ms = lambda t: None if t is None else round((t - origin) * 1000)  # noqa: E731
        return dict(frames=self.frames, distinct=len(self.indices), unreadable=self.unreadable,
                    first_index=self.first_index, last_index=self.last_index,
                    window=(None if self.first_index is None else self.last_index - self.first_index + 1),
                    width=self.width, height=self.height, first_frame_ms=ms(self.first_frame_at),
                    last_frame_ms=ms(self.last_frame_at), audio_frames=self.audio_frames,
                    audio_nonsilent=self.audio_nonsilent, first_audio_ms=ms(self.first_audio_at))


NTP_UNIX_OFFSET = 2_208_988_800  # seconds from 1900 (NTP) to 1970 (Unix)


class SenderClock:
    """The sender's wall clock at capture for decoded video frames, from the latest RTCP
    sender report (NTP <-> RTP time, RFC 3550 §6.4.1; the relay forwards the publisher's,
    translated to each viewer's timestamps). aiortc's frame.pts is the RTP timestamp minus
    that of the first frame (its TimestampMapper). Gives glass-to-glass latency for sources
    without a barcode (files)."""

    def __init__(self):
        self.reference: tuple[float, int] | None = None  # (unix seconds, RTP timestamp - pts origin)

    def report(self, ntp: int, rtp: int, origin: int) -> None:
        self.reference = ((ntp >> 32) - NTP_UNIX_OFFSET + (ntp & 0xFFFFFFFF) / 2 ** 32, rtp - origin)

    def capture_ms(self, pts: int | None, clock_rate: int = 90000) -> int | None:
        if self.reference is None or pts is None:
            return None
        seconds, reported = self.reference
        delta = (pts - reported + 2 ** 31) % 2 ** 32 - 2 ** 31  # signed, across the 32-bit wrap
        return round((seconds + delta / clock_rate) * 1000)

    def follow(self) -> None:
        """Hooks aiortc's RTCP handling of video receivers (it has no API for SR contents)."""
        from aiortc.rtcrtpreceiver import RTCRtpReceiver
        from aiortc.rtp import RtcpSrPacket
        original = RTCRtpReceiver._handle_rtcp_packet

        async def handle(receiver, packet):
            if isinstance(packet, RtcpSrPacket) and getattr(receiver, "_RTCRtpReceiver__kind", None) == "video":
                mapper = getattr(receiver, "_RTCRtpReceiver__timestamp_mapper", None)
                if mapper is not None and mapper._origin is not None:
                    self.report(packet.sender_info.ntp_timestamp, packet.sender_info.rtp_timestamp, mapper._origin)
            await original(receiver, packet)
        RTCRtpReceiver._handle_rtcp_packet = handle


def barcode_reader():
    """read(frame) -> capture ms from the test pattern's barcode, or None."""
    from whip_endpoint import luma_of  # numpy; only needed with --frames-log
    from testpattern import read_barcode
    return lambda frame: read_barcode(luma_of(frame))


async def consume_video(track, stats: Stats, read_indices: bool, ended, frames_log=None,
                        sender_clock: SenderClock | None = None) -> None:
    read_capture = barcode_reader() if frames_log else None
    while True:
        try:
            frame = await track.recv()
        except MediaStreamError:
            ended("track-ended")
            return
        now = time.monotonic()
        if frames_log:
            capture, reported = read_capture(frame), sender_clock.capture_ms(frame.pts)
            frames_log.write(f"{time.time():.4f} {'-' if capture is None else capture} "
                             f"{'-' if reported is None else reported} {frame.width}x{frame.height}\n")
        stats.frames += 1
        stats.first_frame_at = stats.first_frame_at or now
        stats.last_frame_at = now
        stats.width, stats.height = frame.width, frame.height
        index = read_index(frame) if read_indices else None
        if stats.frames == 1:
            emit("first_frame", index=index, width=frame.width, height=frame.height)
        if read_indices:
            if index is None:
                stats.unreadable += 1
                continue
            stats.indices.add(index)
            if stats.first_index is None:
                stats.first_index = index
            stats.last_index = max(stats.last_index or index, index)


async def consume_audio(track, stats: Stats, ended, audio_log=None) -> None:
    while True:
        try:
            frame = await track.recv()
        except MediaStreamError:
            ended("audio-track-ended")
            return
        if audio_log:
            audio_log.write(f"{time.time():.4f} {frame.samples}\n")
        stats.audio_frames += 1
        stats.first_audio_at = stats.first_audio_at or time.monotonic()
        if frame.format.name == "s16":
            samples = array.array("h", bytes(frame.planes[0]))
            if samples and max(samples) > 300:
                stats.audio_nonsilent += 1


async def view(args) -> int:
    allow_loopback()
    pc = RTCPeerConnection(RTCConfiguration(iceServers=[]))
    video = pc.addTransceiver("video", direction="recvonly")
    video.setCodecPreferences(h264_first(RTCRtpReceiver.getCapabilities("video").codecs, only=args.h264_only))
    pc.addTransceiver("audio", direction="recvonly")

    stats = Stats()
    frames_log = open(args.frames_log, "w") if args.frames_log else None
    audio_log = open(args.audio_log, "w") if args.audio_log else None
    sender_clock = SenderClock()
    if frames_log:
        sender_clock.follow()
    stop = asyncio.Event()
    install_stop_signals(stop)
    tasks: list[asyncio.Task] = []
    report: dict = {"ended": None}
    origin = time.monotonic()

    closing = False  # our own close must not count as the remote end

    def ended(reason: str) -> None:
        if closing:
            return
        if report["ended"] is None:
            report.update(ended=reason, ended_ms=round((time.monotonic() - origin) * 1000), ended_wall=time.time())
            emit("ended", reason=reason)
        stop.set()

    @pc.on("track")
    def on_track(track):
        emit("track", kind=track.kind)
        if track.kind == "video":
            tasks.append(asyncio.ensure_future(consume_video(track, stats, not args.no_index, ended, frames_log,
                                                                   sender_clock)))
        else:
            tasks.append(asyncio.ensure_future(consume_audio(track, stats, ended, audio_log)))

    @pc.on("connectionstatechange")
    def on_state():
        emit("state", state=pc.connectionState)
        if pc.connectionState == "connected":
            report.setdefault("connected_ms", round((time.monotonic() - origin) * 1000))
        elif pc.connectionState in ("failed", "closed"):
            ended("connection-" + pc.connectionState)

    offline_responses = 0
    async with aiohttp.ClientSession() as http:
        session = Session(http, args.url, args.token)
        try:
            await pc.setLocalDescription(await pc.createOffer())
            offline_deadline = time.monotonic() + args.offline_wait
            while True:
                try:
                    origin = time.monotonic()  # latencies count from the successful POST
                    status, answer, _ = await session.post_offer(pc.localDescription.sdp)
                    break
                except SessionError as error:
                    if error.status != 409 or time.monotonic() > offline_deadline or stop.is_set():
                        raise
                    offline_responses += 1
                    delay = min(error.retry_after if error.retry_after is not None else 1.0, 5.0)
                    emit("offline", status=409, retry_after=error.retry_after)
                    try:
                        await asyncio.wait_for(stop.wait(), timeout=max(delay, 0.2))
                    except asyncio.TimeoutError:
                        pass
            report["codecs"] = negotiated_codecs(answer)
            emit("posted", status=status, location=session.location, codecs=report["codecs"])
            await pc.setRemoteDescription(RTCSessionDescription(sdp=answer, type="answer"))
            deadline = time.monotonic() + args.duration if args.duration > 0 else None
            while not stop.is_set():
                try:
                    await asyncio.wait_for(stop.wait(), timeout=0.25)
                except asyncio.TimeoutError:
                    pass
                now = time.monotonic()
                if deadline and now >= deadline:
                    report.setdefault("stopped_by", "duration")
                    break
                if stats.first_frame_at is None and now - origin > args.connect_timeout:
                    ended("no-media")
                if (args.end_on_stall > 0 and stats.last_frame_at is not None
                        and now - stats.last_frame_at > args.end_on_stall):
                    ended("stall")
                if int(now - origin) != int(now - origin - 0.25):
                    for log_file in (frames_log, audio_log):
                        if log_file:
                            log_file.flush()
                    emit("progress", frames=stats.frames, distinct=len(stats.indices), audio_frames=stats.audio_frames)
            if report["ended"] is None:
                report.setdefault("stopped_by", "signal")
        except SessionError as error:
            log("WHEP POST failed:", error)
            report.update(error=str(error), status=error.status)
        except Exception as error:
            log("viewer failed:", repr(error))
            report.update(error=repr(error))
        finally:
            report["connection_state"] = pc.connectionState
            closing = True
            report["delete_status"] = await session.delete()
            await pc.close()
            for task in tasks:
                task.cancel()
            for log_file in (frames_log, audio_log):
                if log_file:
                    log_file.close()
    report.update(stats.as_dict(origin), offline_responses=offline_responses)
    if stats.last_frame_at is not None:
        report["last_frame_wall"] = time.time() - (time.monotonic() - stats.last_frame_at)
    emit("report", **report)
    return 0 if stats.frames > 0 else 1


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--url", required=True, help="WHEP endpoint, e.g. http://127.0.0.1:8080/whep/42")
    parser.add_argument("--token", help="Bearer token (optional for viewers)")
    parser.add_argument("--duration", type=float, default=0, help="max seconds after the POST (0: no limit)")
    parser.add_argument("--offline-wait", type=float, default=30, help="keep retrying 409 for this long")
    parser.add_argument("--connect-timeout", type=float, default=15, help="give up without media after this")
    parser.add_argument("--end-on-stall", type=float, default=0,
                        help="treat this many seconds without video as the end (for relays that never signal it)")
    parser.add_argument("--h264-only", action="store_true", help="offer only H.264 (default: H.264 first)")
    parser.add_argument("--no-index", action="store_true", help="do not read frame indices (foreign sources)")
    parser.add_argument("--frames-log", help="write '<arrival wall s> <barcode capture ms> <sender-report "
                        "capture ms> <width>x<height>' per decoded frame ('-': none)")
    parser.add_argument("--audio-log", help="write '<arrival wall s> <samples>' per decoded audio frame")
    parser.add_argument("--verbose", action="store_true")
    args = parser.parse_args()
    if args.verbose:
        import logging
        logging.basicConfig(level=logging.DEBUG, stream=sys.stderr)
    return asyncio.run(view(args))


if __name__ == "__main__":
    sys.exit(main())
