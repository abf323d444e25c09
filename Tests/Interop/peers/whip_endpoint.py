#!/usr/bin/env python3
"""An independent WHIP endpoint (RFC 9725) built on aiortc + aiohttp, to prove publishers we
wrote (the `broadcast` CLI) against a WebRTC stack we did not write.

POST /whip/{name} (application/sdp, Bearer token when one is configured) -> aiortc answers:
201 + Location + answer. DELETE <Location> -> 200, the session is marked deleted and closed.
PATCH (trickle ICE, §4.3.1) -> 405: aiortc takes candidates from the offer only.
A second POST to a name whose session is not deleted -> 409 (one publisher per name).

Per session it records what aiortc decodes: video frames (count, size, arrival time, pts,
the capture timestamp of testpattern.py's barcode -> latency) and audio frames (count,
rate, channels, samples). In tests: `BackgroundLoop` + `WhipEndpoint` in-process; by hand:

  whip_endpoint.py --port 8089 --token secret       # prints JSON lines; a report per session at exit
"""

from __future__ import annotations

import argparse
import asyncio
import math
import sys
import threading
import time
import uuid
from dataclasses import dataclass, field
from pathlib import Path

from aiohttp import web
from aiortc import RTCConfiguration, RTCPeerConnection, RTCSessionDescription
from aiortc.mediastreams import MediaStreamError

sys.path.insert(0, str(Path(__file__).resolve().parent))          # common.py
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))      # testpattern.py
from common import allow_loopback, emit, install_stop_signals, log  # noqa: E402

try:
    import numpy as np
    from testpattern import read_barcode
except ImportError as error:  # reported in every summary, so a test says why barcodes are missing
    np, read_barcode, BARCODE_UNAVAILABLE = None, None, repr(error)
else:
    BARCODE_UNAVAILABLE = None


def percentile(values: list[float], p: float) -> float | None:
    """Nearest-rank percentile (p in 0..100) of `values`, None when empty."""
    if not values:
        return None
    ordered = sorted(values)
    return ordered[min(len(ordered), max(1, math.ceil(p / 100 * len(ordered)))) - 1]


def _round(value: float | None) -> float | None:
    return None if value is None else round(value, 1)


def luma_of(frame):
    """The luma plane of a decoded av.VideoFrame as a 2-D uint8 array, without a copy for
    yuv420p (what aiortc's H.264 decoder gives); other formats go through swscale."""
    if frame.format.name in ("yuv420p", "yuvj420p"):
        plane = frame.planes[0]
        rows = np.frombuffer(plane, np.uint8).reshape(frame.height, plane.line_size)
        return rows[:, :frame.width]
    return frame.to_ndarray(format="gray")


@dataclass
class VideoRecord:
    """What a receiver decoded of one video track."""
    frames: int = 0
    width: int | None = None
    height: int | None = None
    sizes: set = field(default_factory=set)
    arrivals: list[float] = field(default_factory=list)      # time.monotonic() at decode
    pts_seconds: list[float] = field(default_factory=list)   # frame.pts * time_base
    captures_ms: list[int] = field(default_factory=list)     # barcode: wall-clock ms at capture
    latencies_ms: list[float] = field(default_factory=list)  # time.time() at decode - capture
    unreadable: int = 0
    first_frame_wall: float | None = None
    last_frame_wall: float | None = None
    ended_wall: float | None = None  # time.time() when the track ended (RTCP BYE, close)

    def add(self, frame) -> None:
        now_wall, now_mono = time.time(), time.monotonic()
        self.frames += 1
        self.width, self.height = frame.width, frame.height
        self.sizes.add((frame.width, frame.height))
        self.arrivals.append(now_mono)
        if frame.pts is not None and frame.time_base is not None:
            self.pts_seconds.append(float(frame.pts * frame.time_base))
        self.first_frame_wall = self.first_frame_wall or now_wall
        self.last_frame_wall = now_wall
        captured = read_barcode(luma_of(frame)) if read_barcode is not None else None
        if captured is None:
            self.unreadable += 1
        else:
            self.captures_ms.append(captured)
            self.latencies_ms.append(now_wall * 1000 - captured)

    def summary(self) -> dict:
        def rate(times: list[float]) -> float | None:
            span = max(times) - min(times) if len(times) > 1 else 0
            return round((len(set(times)) - 1) / span, 2) if span > 0 else None
        lat = self.latencies_ms
        return dict(
            frames=self.frames, width=self.width, height=self.height, sizes=sorted(self.sizes),
            fps_arrival=rate(self.arrivals), fps_pts=rate(self.pts_seconds),
            barcodes=len(self.captures_ms), distinct_barcodes=len(set(self.captures_ms)),
            unreadable=self.unreadable, barcode_error=BARCODE_UNAVAILABLE,
            first_capture_ms=min(self.captures_ms, default=None), last_capture_ms=max(self.captures_ms, default=None),
            latency_p50_ms=_round(percentile(lat, 50)), latency_p95_ms=_round(percentile(lat, 95)),
            latency_max_ms=_round(max(lat, default=None)),
            first_frame_wall=self.first_frame_wall, last_frame_wall=self.last_frame_wall, ended_wall=self.ended_wall)


@dataclass
class AudioRecord:
    """What a receiver decoded of one audio track."""
    frames: int = 0
    sample_rate: int | None = None
    channels: int | None = None
    samples: int = 0
    nonsilent_frames: int = 0  # peak above ~1 % of full scale
    ended_wall: float | None = None

    def add(self, frame) -> None:
        self.frames += 1
        self.sample_rate, self.channels = frame.sample_rate, len(frame.layout.channels)
        self.samples += frame.samples
        if np is not None and np.abs(frame.to_ndarray()).max() > (300 if frame.format.name == "s16" else 0.01):
            self.nonsilent_frames += 1

    def summary(self) -> dict:
        return dict(frames=self.frames, sample_rate=self.sample_rate, channels=self.channels,
                    samples=self.samples, seconds=round(self.samples / self.sample_rate, 3) if self.sample_rate else 0,
                    nonsilent_frames=self.nonsilent_frames, ended_wall=self.ended_wall)


async def record(track, target: VideoRecord | AudioRecord) -> None:
    """Decodes `track` into `target` until the track ends (RTCP BYE, close)."""
    while True:
        try:
            frame = await track.recv()
        except MediaStreamError:
            target.ended_wall = time.time()
            return
        target.add(frame)


@dataclass
class WhipSession:
    id: str
    name: str
    offer: str
    answer: str
    authorization: str | None
    pc: RTCPeerConnection
    created_wall: float = field(default_factory=time.time)
    deleted_wall: float | None = None
    delete_authorization: str | None = None
    states: list[str] = field(default_factory=list)
    video: VideoRecord = field(default_factory=VideoRecord)
    audio: AudioRecord = field(default_factory=AudioRecord)
    tasks: list[asyncio.Task] = field(default_factory=list)

    @property
    def deleted(self) -> bool:
        return self.deleted_wall is not None

    def summary(self) -> dict:
        return dict(id=self.id, name=self.name, created_wall=self.created_wall, deleted=self.deleted,
                    deleted_wall=self.deleted_wall, authorization=self.authorization,
                    delete_authorization=self.delete_authorization, states=list(self.states),
                    video=self.video.summary(), audio=self.audio.summary())


class WhipEndpoint:
    """The endpoint; all methods run on one event loop (see BackgroundLoop for sync tests)."""

    def __init__(self, token: str | None = None, host: str = "127.0.0.1", port: int = 0, announce: bool = False):
        self.token, self.host, self.port = token, host, port
        self.announce = announce  # JSON status lines on stdout (standalone use)
        self.sessions: list[WhipSession] = []
        self.refusals: list[tuple[int, str]] = []  # (status, reason) of every refused request
        self._runner: web.AppRunner | None = None

    def url(self, name: str) -> str:
        return f"http://{self.host}:{self.port}/whip/{name}"

    async def _moved(self, request: web.Request) -> web.Response:
        return web.Response(status=307, headers={"Location": f"/whip/{request.match_info['name']}"})

    async def start(self) -> "WhipEndpoint":
        allow_loopback()
        app = web.Application(client_max_size=256 * 1024)
        app.router.add_post("/whip/{name}", self._post)
        # RFC 9725 §4.5: a WHIP endpoint may redirect; the client must follow 307 with the same POST.
        app.router.add_post("/moved/{name}", self._moved)
        app.router.add_delete("/whip/{name}/{session}", self._delete)
        app.router.add_patch("/whip/{name}/{session}", self._patch)
        self._runner = web.AppRunner(app, access_log=None)
        await self._runner.setup()
        await web.TCPSite(self._runner, self.host, self.port).start()
        self.port = self._runner.addresses[0][1]  # the ephemeral port when asked for 0
        return self

    async def stop(self) -> None:
        for session in self.sessions:
            await self._close(session)
        if self._runner is not None:
            await self._runner.cleanup()

    def summaries(self) -> list[dict]:
        return [s.summary() for s in self.sessions]

    def _emit(self, event: str, **fields) -> None:
        if self.announce:
            emit(event, **fields)

    # -- HTTP ------------------------------------------------------------------------------
    def _refuse(self, status: int, reason: str, headers: dict | None = None) -> web.Response:
        self.refusals.append((status, reason))
        return web.Response(status=status, text=reason + "\n", headers=headers)

    def _unauthorized(self, request: web.Request) -> web.Response | None:
        """RFC 9725 §4.5 / RFC 6750 §3: a configured token must come as `Bearer <token>`."""
        if self.token is None or request.headers.get("Authorization") == f"Bearer {self.token}":
            return None
        challenge = 'Bearer realm="whip"' + (', error="invalid_token"' if "Authorization" in request.headers else "")
        return self._refuse(401, "missing or wrong Bearer token", {"WWW-Authenticate": challenge})

    async def _post(self, request: web.Request) -> web.Response:
        if (refused := self._unauthorized(request)) is not None:
            return refused
        if request.content_type != "application/sdp":
            return self._refuse(415, f"Content-Type must be application/sdp, not {request.content_type}")
        name = request.match_info["name"]
        if any(s.name == name and not s.deleted for s in self.sessions):
            return self._refuse(409, f"{name} already has a publisher", {"Retry-After": "5"})
        offer = await request.text()
        pc = RTCPeerConnection(RTCConfiguration(iceServers=[]))
        session = WhipSession(uuid.uuid4().hex, name, offer, "", request.headers.get("Authorization"), pc)

        @pc.on("connectionstatechange")
        def on_state():
            session.states.append(pc.connectionState)
            self._emit("state", session=session.id, state=pc.connectionState)

        @pc.on("track")
        def on_track(track):
            target = session.video if track.kind == "video" else session.audio
            session.tasks.append(asyncio.ensure_future(record(track, target)))

        try:
            await pc.setRemoteDescription(RTCSessionDescription(sdp=offer, type="offer"))
            await pc.setLocalDescription(await pc.createAnswer())  # gathers (loopback only): no trickle
        except Exception as error:  # aiortc's verdict on the offer, passed back to the publisher
            await pc.close()
            return self._refuse(400, f"offer refused by aiortc: {error!r}")
        session.answer = pc.localDescription.sdp
        self.sessions.append(session)
        self._emit("session", name=name, session=session.id)
        return web.Response(status=201, text=session.answer, content_type="application/sdp",
                            headers={"Location": f"/whip/{name}/{session.id}"})

    def _find(self, request: web.Request) -> WhipSession | None:
        wanted = (request.match_info["name"], request.match_info["session"])
        return next((s for s in self.sessions if (s.name, s.id) == wanted and not s.deleted), None)

    async def _delete(self, request: web.Request) -> web.Response:
        if (refused := self._unauthorized(request)) is not None:
            return refused
        session = self._find(request)
        if session is None:
            return self._refuse(404, "no such session")
        session.deleted_wall = time.time()
        session.delete_authorization = request.headers.get("Authorization")
        self._emit("deleted", session=session.id)
        await self._close(session)
        return web.Response(status=200)

    async def _patch(self, request: web.Request) -> web.Response:
        # RFC 9725 §4.3.1: a resource without trickle ICE / ICE restart answers 405.
        return self._refuse(405, "no trickle ICE or ICE restart here", {"Allow": "DELETE"})

    async def _close(self, session: WhipSession) -> None:
        await session.pc.close()
        # Let the recorders see the end of their tracks, then stop them.
        await asyncio.sleep(0)
        for task in session.tasks:
            task.cancel()


class BackgroundLoop:
    """An asyncio loop in a daemon thread, so synchronous pytest tests can run the endpoint
    (or an aiortc viewer) in-process: `loop.run(coro)` waits for its result."""

    def __init__(self):
        self.loop = asyncio.new_event_loop()
        self._thread = threading.Thread(target=self.loop.run_forever, daemon=True)
        self._thread.start()

    def run(self, coro, timeout: float = 30):
        return asyncio.run_coroutine_threadsafe(coro, self.loop).result(timeout)

    def call(self, fn, timeout: float = 10):
        """Runs `fn()` on the loop thread (to read state the loop mutates) and returns its result."""
        async def wrapper():
            return fn()
        return self.run(wrapper(), timeout)

    def close(self) -> None:
        self.loop.call_soon_threadsafe(self.loop.stop)
        self._thread.join(5)


async def serve(args) -> int:
    endpoint = await WhipEndpoint(token=args.token, port=args.port, announce=True).start()
    emit("listening", url=endpoint.url("{name}"))
    stop = asyncio.Event()
    install_stop_signals(stop)
    try:
        await asyncio.wait_for(stop.wait(), timeout=args.duration or None)
    except asyncio.TimeoutError:
        pass
    for summary in endpoint.summaries():
        emit("report", **summary)
    await endpoint.stop()
    return 0


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--port", type=int, default=0, help="TCP port on 127.0.0.1 (0: any free one)")
    parser.add_argument("--token", help="require this Bearer token")
    parser.add_argument("--duration", type=float, default=0, help="stop after this many seconds (0: at SIGINT)")
    args = parser.parse_args()
    if BARCODE_UNAVAILABLE:
        log("barcodes will not be read:", BARCODE_UNAVAILABLE)
    return asyncio.run(serve(args))


if __name__ == "__main__":
    sys.exit(main())
