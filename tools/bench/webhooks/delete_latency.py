#!/usr/bin/env python3
"""DELETE -> stream.ended latency against the REAL relay process (the part webhooks-bench
cannot see: HTTP DELETE handling in the relay).

Starts `relay serve` with one webhook subscriber (a local aiohttp receiver that verifies
every delivery with the PyPI `standardwebhooks` library), then N times: an aiortc WHIP
publisher connects, the stream.started arrives, the publisher DELETEs its session and we
time DELETE sent -> stream.ended verified at the receiver. Prints p50/p90/p99/max.

  .venv-interop/bin/python tools/bench/webhooks/delete_latency.py --relay .build/debug/relay --cycles 30
"""

from __future__ import annotations

import argparse
import asyncio
import base64
import os
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import aiohttp
from aiohttp import web
from standardwebhooks.webhooks import Webhook

REPO = Path(__file__).resolve().parents[3]
sys.path.insert(0, str(REPO / "Tests" / "Interop" / "peers"))
from aiortc import RTCConfiguration, RTCPeerConnection, RTCRtpSender, VideoStreamTrack  # noqa: E402
from aiortc import RTCSessionDescription  # noqa: E402
from common import Session, allow_loopback, h264_first  # noqa: E402


def free_port(kind=socket.SOCK_STREAM) -> int:
    with socket.socket(socket.AF_INET, kind) as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def percentile(values: list[float], p: float) -> float:
    ordered = sorted(values)
    rank = max(0, min(len(ordered) - 1, int(-(-p / 100 * len(ordered) // 1)) - 1))
    return ordered[rank]


async def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--relay", default=str(REPO / ".build" / "debug" / "relay"))
    parser.add_argument("--cycles", type=int, default=30)
    args = parser.parse_args()
    allow_loopback()

    secret = "whsec_" + base64.b64encode(os.urandom(32)).decode()
    verifier = Webhook(secret)
    arrivals: dict[tuple[str, str], float] = {}
    arrived = asyncio.Event()

    async def hook(request: web.Request) -> web.Response:
        body = await request.read()
        payload = verifier.verify(body, dict(request.headers))  # raises on a bad signature
        arrivals[(payload["type"], payload["data"]["session_id"])] = time.monotonic()
        arrived.set()
        return web.Response(status=204)

    app = web.Application()
    app.router.add_post("/hook", hook)
    runner = web.AppRunner(app, access_log=None)
    await runner.setup()
    hook_port = free_port()
    await web.TCPSite(runner, "127.0.0.1", hook_port).start()

    http_port, udp_port = free_port(), free_port(socket.SOCK_DGRAM)
    workdir = tempfile.mkdtemp(prefix="webhooks-delete-")
    env = {**os.environ, "ONAIR_HTTP_PORT": str(http_port), "ONAIR_UDP_PORT": str(udp_port),
           "ONAIR_WEBHOOK_URL": f"http://127.0.0.1:{hook_port}/hook", "ONAIR_WEBHOOK_SECRET": secret,
           "ONAIR_DATABASE": os.path.join(workdir, "relay.sqlite")}
    relay = subprocess.Popen([args.relay, "serve", "--log-level", "warning"], env=env, cwd=workdir,
                             stdout=subprocess.DEVNULL, stderr=open(os.path.join(workdir, "relay.log"), "w"))
    latencies: list[float] = []
    try:
        for _ in range(100):
            try:
                socket.create_connection(("127.0.0.1", http_port), timeout=0.2).close()
                break
            except OSError:
                await asyncio.sleep(0.1)
        async with aiohttp.ClientSession() as http:
            for cycle in range(args.cycles):
                pc = RTCPeerConnection(RTCConfiguration(iceServers=[]))
                transceiver = pc.addTransceiver(VideoStreamTrack(), direction="sendonly")
                transceiver.setCodecPreferences(h264_first(RTCRtpSender.getCapabilities("video").codecs, only=True))
                session = Session(http, f"http://127.0.0.1:{http_port}/whip/bench{cycle % 3}", None)
                await pc.setLocalDescription(await pc.createOffer())
                _, answer, _ = await session.post_offer(pc.localDescription.sdp)
                await pc.setRemoteDescription(RTCSessionDescription(sdp=answer, type="answer"))
                session_id = session.location.rstrip("/").rsplit("/", 1)[-1]
                deadline = time.monotonic() + 10
                while ("stream.started", session_id) not in arrivals and time.monotonic() < deadline:
                    arrived.clear()
                    await asyncio.wait([asyncio.ensure_future(arrived.wait())], timeout=0.2)
                sent = time.monotonic()
                status = await session.delete()
                while ("stream.ended", session_id) not in arrivals and time.monotonic() < sent + 5:
                    arrived.clear()
                    await asyncio.wait([asyncio.ensure_future(arrived.wait())], timeout=0.05)
                await pc.close()
                if ("stream.ended", session_id) in arrivals:
                    latencies.append((arrivals[("stream.ended", session_id)] - sent) * 1000)
                else:
                    print(f"cycle {cycle}: no stream.ended (DELETE -> {status})", file=sys.stderr)
    finally:
        relay.terminate()
        relay.wait(10)
        await runner.cleanup()
    if not latencies:
        print("no samples")
        return 1
    print(f"DELETE -> stream.ended verified at the receiver, real relay, {len(latencies)} of {args.cycles} cycles: "
          f"p50={percentile(latencies, 50):.1f} ms p90={percentile(latencies, 90):.1f} ms "
          f"p99={percentile(latencies, 99):.1f} ms max={max(latencies):.1f} ms")
    return 0 if len(latencies) == args.cycles else 1


if __name__ == "__main__":
    sys.exit(asyncio.run(main()))
