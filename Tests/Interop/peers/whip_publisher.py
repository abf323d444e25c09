#!/usr/bin/env python3
"""aiortc WHIP publisher (RFC 9725) for interop tests.

Publishes H.264 (forced through setCodecPreferences) + Opus to a WHIP endpoint: a
synthetic picture carrying its frame index (see framecode.py) and a 440 Hz tone, or a
media file (--file, through MediaPlayer). Prints JSON status lines on stdout:
posted, state, connected, progress (every second), deleted, report. Stops after
--duration seconds or on SIGTERM/SIGINT, then DELETEs the session (Location) and closes.

  whip_publisher.py --url http://127.0.0.1:8080/whip/42 --token secret --duration 10
"""

from __future__ import annotations

import argparse
import os
import array
import asyncio
import fractions
import math
import sys
import time

import aiohttp
import av
from aiortc import (AudioStreamTrack, MediaStreamTrack, RTCConfiguration, RTCPeerConnection, RTCRtpSender,
                    RTCSessionDescription, VideoStreamTrack)
from aiortc.contrib.media import MediaPlayer
from aiortc.mediastreams import MediaStreamError

from common import (Session, SessionError, allow_loopback, emit, h264_first, install_stop_signals, log,
                    negotiated_codecs)
from framecode import make_frame


class IndexedVideoTrack(VideoStreamTrack):
    """30 fps synthetic video; frame n carries the index n painted as blocks."""

    def __init__(self, width: int, height: int, chroma_noise: bool = False):
        super().__init__()
        self.width, self.height = width, height
        self.chroma_noise = chroma_noise
        self.frames_sent = 0
        self.last_index = -1

    async def recv(self):
        pts, time_base = await self.next_timestamp()
        index = self.frames_sent
        frame = make_frame(index, self.width, self.height)
        if self.chroma_noise:
            # Random chroma (the index lives in luma): every frame costs the encoder's whole
            # budget, several FU-A fragments each, as a busy camera picture would.
            for plane in frame.planes[1:]:
                plane.update(os.urandom(plane.buffer_size))
        frame.pts, frame.time_base = pts, time_base
        self.frames_sent += 1
        self.last_index = index
        return frame


class ToneTrack(AudioStreamTrack):
    """A 440 Hz sine, 48 kHz mono s16, 20 ms frames, paced in real time."""

    RATE, PTIME = 48000, 0.020

    def __init__(self, frequency: float = 440.0):
        super().__init__()
        samples = self.RATE  # one second holds an integer number of periods at 440 Hz
        self.table = array.array("h", (int(8000 * math.sin(2 * math.pi * frequency * i / self.RATE))
                                       for i in range(samples)))
        self.frames_sent = 0
        self._start: float | None = None

    async def recv(self):
        per_frame = int(self.RATE * self.PTIME)
        if self._start is None:
            self._start = time.time()
        else:
            wait = self._start + self.frames_sent * self.PTIME - time.time()
            if wait > 0:
                await asyncio.sleep(wait)
        offset = (self.frames_sent * per_frame) % len(self.table)
        chunk = self.table[offset:offset + per_frame]
        if len(chunk) < per_frame:
            chunk += self.table[:per_frame - len(chunk)]
        frame = av.AudioFrame(format="s16", layout="mono", samples=per_frame)
        frame.planes[0].update(chunk.tobytes())
        frame.sample_rate = self.RATE
        frame.pts = self.frames_sent * per_frame
        frame.time_base = fractions.Fraction(1, self.RATE)
        self.frames_sent += 1
        return frame


class LoopingFile:
    """Plays a media file forever by reopening it at its end. MediaPlayer(loop=True) does
    not loop with PyAV >= 14: the end comes as av.EOFError, which it does not expect."""

    def __init__(self, path: str):
        self.path = path
        self.generation = 0
        self.player = MediaPlayer(path)

    def source(self, kind: str):
        return self.player.video if kind == "video" else self.player.audio

    def reopen(self, ended_generation: int) -> int:
        """Called by a track whose source ended; the first caller per generation reopens."""
        if ended_generation == self.generation:
            self.player = MediaPlayer(self.path)
            self.generation += 1
        return self.generation

    def track(self, kind: str) -> "LoopingTrack | None":
        return LoopingTrack(self, kind) if self.source(kind) is not None else None


class LoopingTrack(MediaStreamTrack):
    """One kind of a LoopingFile, with timestamps that keep rising across the loops."""

    def __init__(self, file: LoopingFile, kind: str):
        super().__init__()
        self.kind, self.file = kind, file
        self.generation, self.source = file.generation, file.source(kind)
        self.offset = 0
        self.last_out = None
        self.step = 1

    async def recv(self):
        for _ in range(2):
            try:
                frame = await self.source.recv()
                break
            except MediaStreamError:  # end of file: go on with the next pass
                self.source.stop()
                self.generation = self.file.reopen(self.generation)
                self.source = self.file.source(self.kind)
                if self.last_out is not None:
                    self.offset = self.last_out + self.step
        else:
            raise MediaStreamError
        if frame.pts is None:
            return frame
        pts = frame.pts + self.offset
        if self.last_out is not None and pts > self.last_out:
            self.step = pts - self.last_out
        frame.pts = self.last_out = pts
        return frame

    def stop(self):
        super().stop()
        self.source.stop()


async def publish(args) -> int:
    allow_loopback()
    pc = RTCPeerConnection(RTCConfiguration(iceServers=[]))
    if args.file:
        looping = LoopingFile(args.file)
        video, audio = looping.track("video"), (None if args.no_audio else looping.track("audio"))
    else:
        video = IndexedVideoTrack(args.width, args.height, chroma_noise=args.chroma_noise)
        audio = None if args.no_audio else ToneTrack()
    if video is not None:
        transceiver = pc.addTransceiver(video, direction="sendonly")
        transceiver.setCodecPreferences(h264_first(RTCRtpSender.getCapabilities("video").codecs, only=True))
    if audio is not None:
        transceiver = pc.addTransceiver(audio, direction="sendonly")
        transceiver.setCodecPreferences(
            [c for c in RTCRtpSender.getCapabilities("audio").codecs if c.mimeType == "audio/opus"])

    connected, broken = asyncio.Event(), asyncio.Event()

    @pc.on("connectionstatechange")
    def on_state():
        emit("state", state=pc.connectionState)
        if pc.connectionState == "connected":
            connected.set()
        elif pc.connectionState in ("failed", "closed"):
            broken.set()

    stop = asyncio.Event()
    install_stop_signals(stop)
    started = time.monotonic()
    report = {"ok": False}
    async with aiohttp.ClientSession() as http:
        session = Session(http, args.url, args.token)
        try:
            await pc.setLocalDescription(await pc.createOffer())  # aiortc gathers here (no trickle)
            status, answer, _ = await session.post_offer(pc.localDescription.sdp)
            emit("posted", status=status, location=session.location, etag=session.etag,
                 codecs=negotiated_codecs(answer))
            await pc.setRemoteDescription(RTCSessionDescription(sdp=answer, type="answer"))
            waiter = asyncio.ensure_future(connected.wait())
            await asyncio.wait([waiter, asyncio.ensure_future(broken.wait()), asyncio.ensure_future(stop.wait())],
                               timeout=args.connect_timeout, return_when=asyncio.FIRST_COMPLETED)
            if not connected.is_set():
                raise RuntimeError(f"not connected after {args.connect_timeout}s (state {pc.connectionState})")
            emit("connected", ms=round((time.monotonic() - started) * 1000))
            deadline = started + args.duration if args.duration > 0 else None
            while not stop.is_set() and not broken.is_set():
                if deadline and time.monotonic() >= deadline:
                    break
                try:
                    await asyncio.wait_for(stop.wait(), timeout=1.0)
                except asyncio.TimeoutError:
                    pass
                emit("progress", **counters(video, audio))
            report.update(ok=not broken.is_set(), stopped_by="signal" if stop.is_set() else
                          ("connection " + pc.connectionState if broken.is_set() else "duration"))
        except SessionError as error:
            log("WHIP POST failed:", error)
            report.update(error=str(error), status=error.status)
        except Exception as error:  # report every failure as JSON, then exit non-zero
            log("publisher failed:", repr(error))
            report.update(error=repr(error))
        finally:
            report.update(counters(video, audio))
            if isinstance(video, IndexedVideoTrack):
                video.stop()  # no frame leaves after the index we report
            report["delete_status"] = await session.delete()
            emit("deleted", status=report["delete_status"], location=session.location)
            await pc.close()
            for track in (video, audio):
                if track is not None:
                    track.stop()
    emit("report", **report)
    return 0 if report["ok"] else 1


def counters(video, audio) -> dict:
    result = {}
    if isinstance(video, IndexedVideoTrack):
        result.update(frames_sent=video.frames_sent, last_index=video.last_index)
    if isinstance(audio, ToneTrack):
        result.update(audio_frames_sent=audio.frames_sent)
    return result


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--url", required=True, help="WHIP endpoint, e.g. http://127.0.0.1:8080/whip/42")
    parser.add_argument("--token", help="Bearer token")
    parser.add_argument("--duration", type=float, default=0, help="seconds to publish (0: until SIGTERM)")
    parser.add_argument("--connect-timeout", type=float, default=10)
    parser.add_argument("--width", type=int, default=640)
    parser.add_argument("--height", type=int, default=480)
    parser.add_argument("--chroma-noise", action="store_true", help="random chroma planes: large frames of many packets")
    parser.add_argument("--file", help="publish this media file (looped) instead of the synthetic source")
    parser.add_argument("--no-audio", action="store_true")
    parser.add_argument("--verbose", action="store_true", help="aiortc debug logs on stderr")
    args = parser.parse_args()
    if args.verbose:
        import logging
        logging.basicConfig(level=logging.DEBUG, stream=sys.stderr)
    return asyncio.run(publish(args))


if __name__ == "__main__":
    sys.exit(main())
