#!/usr/bin/env python3
"""Soak: the whole system under a steady load for an hour, watched for leaks (issue 14).

Not a test: nothing in `swift test` or pytest runs it. Run from the repository root with the
interop venv (aiohttp, websockets, standardwebhooks, aiortc):

  .venv-interop/bin/python tools/bench/soak/soak.py [--minutes 60] [--viewers 200] [--hls 50] [--chat-clients 500]

Everything on 127.0.0.1, free ports, a temp directory for databases and logs:

- `relay serve` (release build if `.build/release/relay` exists, else debug; `--bin-dir`), its
  webhooks configured like `tools/run.sh` does (ONAIR_WEBHOOK_URL -> the chat's /hooks/relay,
  ONAIR_WEBHOOK_SECRET, ONAIR_DATABASE) plus ONAIR_ADMIN_TOKEN, through which this program
  registers a second subscriber of its own (`POST /api/webhooks`): an aiohttp receiver that
  verifies every delivery with PyPI `standardwebhooks` and counts them;
- `chat serve` (own SQLite, ONAIR_CHAT_WEBHOOK_SECRET = the same secret);
- one publisher, `broadcast start --room 42` (test pattern 1280x720; `--simulcast`);
- WebRTC viewers: `fanout-bench` attached to the relay (`--relay-url`, `--relay-pid`) with one
  level of `--viewers` viewers measured over the whole run. fanout-bench brings its own
  synthetic WHIP publisher (room `soak-fanout`, 2.5 Mbit/s H.264-like) and cannot view room 42
  nor print figures per interval, so per-minute health comes from the relay's
  `/api/streams/soak-fanout` (viewers, which of them got bytes since the last report, packets
  out) and fanout-bench's own loss/latency line at the end. Besides, `--aiortc-viewers` (1)
  real aiortc viewers (Tests/Interop/peers/whep_viewer.py) watch room 42 and decode it, in
  cycles of `--aiortc-cycle` seconds (join, watch, DELETE, join again: session churn). Without
  a fanout-bench binary the `--viewers` become aiortc viewers, at most `--max-aiortc` of them;
- `--hls` LL-HLS clients (asyncio + aiohttp): multivariant playlist, media playlist, init
  segment, then blocking reloads (`_HLS_msn`/`_HLS_part`; every other client asks for delta
  updates with `_HLS_skip=YES`) and every new part, counting errors; each starts over now and
  then (`--hls-restart`, mean seconds: new connection, new playlists);
- `--chat-clients` WebSocket clients (PyPI websockets) in room 42, all reading, a fraction
  (`--chat-senders`) posting every `--chat-interval` s; each reconnects now and then
  (`--chat-reconnect`, mean seconds).

Every `--report-every` s (60) one line per process (relay, chat, broadcast, the load tools):
RSS (VmRSS), open fds (/proc/PID/fd), threads (Threads in /proc/PID/status), CPU seconds,
then the load's health. At the end, the growth of RSS, fds and threads of each server process
over the last 30 minutes (the last half of runs shorter than an hour), and a verdict per
process; the thresholds are explained at `Thresholds` below. Samples go to samples.csv in the
work directory. Ctrl-C ends the run early (still in order, still with the summary); a second
Ctrl-C kills everything at once. Every process this program starts runs in its own process
group, gets SIGTERM should this program die (PR_SET_PDEATHSIG), and is stopped at the end.
"""

from __future__ import annotations

import argparse
import asyncio
import base64
import csv
import ctypes
import json
import math
import os
import random
import re
import resource
import secrets
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import urljoin

import aiohttp
import websockets
from aiohttp import web
from standardwebhooks.webhooks import Webhook

REPO = Path(__file__).resolve().parents[3]
WHEP_VIEWER = REPO / "Tests" / "Interop" / "peers" / "whep_viewer.py"
FANOUT_ROOM = "soak-fanout"
CLOCK_TICKS = os.sysconf("SC_CLK_TCK")
MiB = 1024 * 1024


class Thresholds:
    """When a server process counts as "no growth after warm-up" over the analysis window (the
    last 30 minutes, or the last half of a shorter run; the first part is warm-up: caches,
    the HLS window, SQLite pages, allocator arenas fill up then).

    RSS: the least-squares trend over the window (slope x window length, so one noisy sample
    does not decide) must stay under max(RSS_MIN_MIB, RSS_FRACTION of the RSS at the window's
    start). What a server keeps is bounded by design after warm-up (a 30 s HLS window per
    stream, a 1,024-packet NACK cache, SQLite's page cache, the chat's rooms); what remains is
    allocator noise (glibc arenas, fragmentation), a few MiB. A leak tied to the traffic shows
    well above it at the default load: 200 viewers x ~350 packets/s is ~1.3e8 forwarded packets
    in 30 minutes (one byte each is 120 MiB), 50 HLS clients make ~3e5 requests (32 bytes each
    is 9 MiB), 500 chat clients receive ~4.5e6 messages (2 bytes each is 9 MiB). Not seen by
    this figure: leaks per session or per webhook event (tens of them in 30 minutes), unless
    they are ~0.5 MiB each; fds and threads catch those that hold a socket or a thread.

    fds and threads: exact counts. The median of the window's last samples minus the median of
    its first samples must be at most FD_SLACK / THREAD_SLACK. A steady load holds a fixed set
    of sockets (one per HTTP or WebSocket connection, the UDP socket, the SQLite files) and
    fixed thread pools (NIO event loops, the Swift concurrency pool); the churn (chat clients
    reconnecting, HLS clients starting over, aiortc viewers re-joining, webhook connections)
    leaves a handful in flight at any instant, which the medians absorb. A leak of one fd per
    connection or session would be dozens to thousands over 30 minutes.
    """

    RSS_MIN_MIB = 8.0
    RSS_FRACTION = 0.05
    FD_SLACK = 2
    THREAD_SLACK = 2
    ENDS = 3  # samples whose median stands for each end of the window


# ---------------------------------------------------------------------------------------------
# processes


def free_port(kind=socket.SOCK_STREAM) -> int:
    with socket.socket(socket.AF_INET, kind) as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def raise_file_limit(wanted: int) -> None:
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft < wanted:
        resource.setrlimit(resource.RLIMIT_NOFILE, (min(wanted, hard), hard))


_libc = ctypes.CDLL(None, use_errno=True)
PR_SET_PDEATHSIG = 1


def child_setup() -> None:
    """In each child before exec: SIGTERM when this program dies, and room for many sockets."""
    _libc.prctl(PR_SET_PDEATHSIG, signal.SIGTERM)
    raise_file_limit(16384)


@dataclass
class Proc:
    """A process we started (its own process group: start_new_session)."""
    name: str
    pid: int
    handle: object  # subprocess.Popen or asyncio.subprocess.Process
    log_path: Path | None = None

    def exit_code(self) -> int | None:
        if isinstance(self.handle, subprocess.Popen):
            return self.handle.poll()
        return self.handle.returncode

    def alive(self) -> bool:
        return self.exit_code() is None

    def signal_group(self, sig: int) -> None:
        if self.alive():
            try:
                os.killpg(self.pid, sig)
            except ProcessLookupError:
                pass


STARTED: list[Proc] = []  # everything ever started, for the last-resort cleanup


def start(name: str, argv: list[str], log_path: Path, env: dict | None = None, cwd: Path | None = None) -> Proc:
    log = open(log_path, "ab")
    handle = subprocess.Popen(argv, stdout=log, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
                              env={**os.environ, **(env or {})}, cwd=cwd, start_new_session=True,
                              preexec_fn=child_setup)
    log.close()
    proc = Proc(name, handle.pid, handle, log_path)
    STARTED.append(proc)
    return proc


async def stop_proc(proc: Proc | None, sig: int, grace: float, ctx: "Context | None" = None) -> None:
    """`sig` to its group, up to `grace` s (less after a second Ctrl-C), then SIGKILL."""
    if proc is None or not proc.alive():
        return
    proc.signal_group(sig)
    deadline = time.monotonic() + grace
    while proc.alive() and time.monotonic() < deadline and not (ctx and ctx.hurry):
        await asyncio.sleep(0.1)
    if proc.alive():
        proc.signal_group(signal.SIGKILL)
        for _ in range(50):
            if not proc.alive():
                break
            await asyncio.sleep(0.1)


def kill_everything(sig: int = signal.SIGKILL) -> None:
    for proc in STARTED:
        proc.signal_group(sig)


def tail(path: Path | None, lines: int = 15) -> str:
    if not path or not path.exists():
        return ""
    return "\n".join(path.read_text(errors="replace").splitlines()[-lines:])


# ---------------------------------------------------------------------------------------------
# /proc figures


@dataclass
class Figures:
    rss_kib: int
    fds: int
    threads: int
    cpu_s: float


def proc_figures(pid: int) -> Figures | None:
    try:
        status = Path(f"/proc/{pid}/status").read_text()
        rss = re.search(r"^VmRSS:\s+(\d+)", status, re.M)
        threads = re.search(r"^Threads:\s+(\d+)", status, re.M)
        if not rss or not threads:  # a zombie has no VmRSS
            return None
        fds = len(os.listdir(f"/proc/{pid}/fd"))
        stat = Path(f"/proc/{pid}/stat").read_text()
        fields = stat[stat.rindex(")") + 2:].split()  # fields 3.. (comm may hold spaces)
        cpu = (int(fields[11]) + int(fields[12])) / CLOCK_TICKS  # utime (14) + stime (15)
        return Figures(int(rss.group(1)), fds, int(threads.group(1)), cpu)
    except (FileNotFoundError, ProcessLookupError, PermissionError, ValueError, IndexError):
        return None


def sum_figures(figures: list[Figures]) -> Figures | None:
    if not figures:
        return None
    return Figures(sum(f.rss_kib for f in figures), sum(f.fds for f in figures), sum(f.threads for f in figures),
                   sum(f.cpu_s for f in figures))


def file_mib(*paths: Path) -> float:
    total = 0
    for path in paths:
        for suffix in ("", "-wal", "-shm"):
            candidate = Path(str(path) + suffix)
            if candidate.exists():
                total += candidate.stat().st_size
    return total / MiB


# ---------------------------------------------------------------------------------------------
# state shared by the load tasks and the monitor


@dataclass
class HLSStats:
    requests_ok: int = 0
    playlists: int = 0
    parts: int = 0
    bytes: int = 0
    errors: dict = field(default_factory=dict)
    slow_reloads: int = 0  # blocking reload answered after more than 3 s
    restarts: int = 0
    last_ok: dict = field(default_factory=dict)  # client -> monotonic time of its last good answer

    def error(self, kind: str) -> None:
        self.errors[kind] = self.errors.get(kind, 0) + 1


@dataclass
class ChatStats:
    connected: int = 0  # right now
    joins: int = 0
    sent: int = 0
    acked: int = 0
    received: int = 0  # `message` frames, every client
    errors: dict = field(default_factory=dict)  # error frames by code, and connection failures
    dropped: int = 0  # connections the server closed while we were reading
    room_closed: int = 0

    def error(self, kind: str) -> None:
        self.errors[kind] = self.errors.get(kind, 0) + 1


@dataclass
class HookStats:
    verified: int = 0
    bad: int = 0
    duplicates: int = 0
    by_type: dict = field(default_factory=dict)
    seen_ids: set = field(default_factory=set)
    events: list = field(default_factory=list)  # (type, room)


@dataclass
class AiortcStats:
    running: int = 0
    cycles: int = 0
    failed_cycles: int = 0
    frames_done: int = 0  # frames of finished cycles
    frames_now: dict = field(default_factory=dict)  # viewer -> frames of its current cycle
    first_frame_ms: list = field(default_factory=list)
    failures: list = field(default_factory=list)

    def frames(self) -> int:
        return self.frames_done + sum(self.frames_now.values())


@dataclass
class Context:
    args: argparse.Namespace
    workdir: Path
    relay_url: str = ""
    chat_url: str = ""
    room: str = "42"
    t0: float = 0.0
    hls: HLSStats = field(default_factory=HLSStats)
    chat: ChatStats = field(default_factory=ChatStats)
    hooks: HookStats = field(default_factory=HookStats)
    aiortc: AiortcStats = field(default_factory=AiortcStats)
    procs: dict = field(default_factory=dict)  # role -> Proc (servers, broadcast, fanout-bench)
    viewer_procs: dict = field(default_factory=dict)  # aiortc viewer index -> Proc
    end: asyncio.Event = field(default_factory=asyncio.Event)  # the run is over (deadline, Ctrl-C, a death)
    stop_hls: asyncio.Event = field(default_factory=asyncio.Event)
    stop_sending: asyncio.Event = field(default_factory=asyncio.Event)
    stop_chat: asyncio.Event = field(default_factory=asyncio.Event)
    stop_viewers: asyncio.Event = field(default_factory=asyncio.Event)
    interrupted: bool = False
    hurry: bool = False
    end_reason: str = ""

    def elapsed(self) -> float:
        return time.monotonic() - self.t0

    def finish(self, reason: str) -> None:
        if not self.end.is_set():
            self.end_reason = reason
            self.end.set()


def clock(seconds: float) -> str:
    seconds = max(0, int(seconds))
    return f"{seconds // 3600}:{seconds // 60 % 60:02d}:{seconds % 60:02d}" if seconds >= 3600 else \
        f"{seconds // 60}:{seconds % 60:02d}"


def say(text: str) -> None:
    print(text, flush=True)


# ---------------------------------------------------------------------------------------------
# the webhook subscriber


async def start_receiver(ctx: Context, secret: str) -> tuple[web.AppRunner, int]:
    verifier = Webhook(secret)

    async def hook(request: web.Request) -> web.Response:
        body = await request.read()
        try:
            payload = verifier.verify(body, dict(request.headers))
        except Exception:  # noqa: BLE001 - any verification failure
            ctx.hooks.bad += 1
            return web.Response(status=401)
        message_id = request.headers.get("webhook-id", "")
        if message_id in ctx.hooks.seen_ids:
            ctx.hooks.duplicates += 1  # a retry of something we answered: still 2xx
            return web.Response(status=204)
        ctx.hooks.seen_ids.add(message_id)
        kind = payload.get("type", "?")
        ctx.hooks.verified += 1
        ctx.hooks.by_type[kind] = ctx.hooks.by_type.get(kind, 0) + 1
        ctx.hooks.events.append((kind, (payload.get("data") or {}).get("room")))
        return web.Response(status=204)

    app = web.Application()
    app.router.add_post("/hooks/soak", hook)
    runner = web.AppRunner(app, access_log=None)
    await runner.setup()
    port = free_port()
    await web.TCPSite(runner, "127.0.0.1", port).start()
    return runner, port


# ---------------------------------------------------------------------------------------------
# LL-HLS clients


@dataclass
class Playlist:
    parts: list  # (msn, index, uri)
    map_uri: str | None
    next_msn: int
    next_index: int
    ended: bool


def parse_playlist(text: str) -> Playlist:
    """The parts of an LL-HLS media playlist (full or delta) with their media sequence numbers."""
    def attrs(line: str) -> dict:
        return {k: v.strip('"') for k, v in re.findall(r'([A-Z0-9-]+)=("[^"]*"|[^,]*)', line.partition(":")[2])}
    lines = text.splitlines()
    if not lines or lines[0] != "#EXTM3U":
        raise ValueError("not a playlist")
    msn = int(next(l for l in lines if l.startswith("#EXT-X-MEDIA-SEQUENCE:")).split(":")[1])
    index, parts, map_uri, ended = 0, [], None, False
    for line in lines:
        if line.startswith("#EXT-X-SKIP:"):
            msn += int(attrs(line)["SKIPPED-SEGMENTS"])  # delta update: these segments are not listed
        elif line.startswith("#EXT-X-MAP:"):
            map_uri = attrs(line)["URI"]
        elif line.startswith("#EXT-X-PART:"):
            parts.append((msn, index, attrs(line)["URI"]))
            index += 1
        elif line == "#EXT-X-ENDLIST":
            ended = True
        elif line and not line.startswith("#"):
            msn, index = msn + 1, 0  # a complete segment: the next parts belong to msn + 1
    return Playlist(parts, map_uri, msn, index, ended)


async def hls_client(ctx: Context, number: int) -> None:
    args, stats = ctx.args, ctx.hls
    rng = random.Random(number)
    delta = number % 2 == 1
    multivariant = f"{ctx.relay_url}/hls/{ctx.room}/index.m3u8"
    await asyncio.sleep(rng.uniform(0, 2))

    async def get(http: aiohttp.ClientSession, url: str, kind: str) -> bytes | None:
        started = time.monotonic()
        try:
            async with http.get(url) as response:
                body = await response.read()
                if response.status != 200:
                    stats.error(f"{kind} {response.status}")
                    return None
        except asyncio.CancelledError:
            raise
        except (aiohttp.ClientError, asyncio.TimeoutError, OSError) as error:
            stats.error(f"{kind} {type(error).__name__}")
            return None
        stats.requests_ok += 1
        stats.bytes += len(body)
        stats.last_ok[number] = time.monotonic()
        if kind == "reload" and time.monotonic() - started > 3:
            stats.slow_reloads += 1
        return body

    while not ctx.stop_hls.is_set():
        lifetime = rng.expovariate(1 / args.hls_restart) if args.hls_restart > 0 else math.inf
        until = time.monotonic() + lifetime
        # One connection per client session, as a player keeps its own.
        async with aiohttp.ClientSession(connector=aiohttp.TCPConnector(limit=1),
                                         timeout=aiohttp.ClientTimeout(total=20)) as http:
            try:
                body = await get(http, multivariant, "multivariant")
                if body is None:
                    await asyncio.sleep(1)
                    continue
                variants = [l for l in body.decode().splitlines() if l and not l.startswith("#")]
                media = urljoin(multivariant, variants[number % len(variants)])
                body = await get(http, media, "playlist")
                if body is None:
                    await asyncio.sleep(1)
                    continue
                playlist = parse_playlist(body.decode())
                stats.playlists += 1
                if playlist.map_uri and await get(http, urljoin(media, playlist.map_uri), "init") is None:
                    await asyncio.sleep(1)
                    continue
                last = playlist.parts[-1][:2] if playlist.parts else (-1, -1)
                if playlist.parts and await get(http, urljoin(media, playlist.parts[-1][2]), "part") is not None:
                    stats.parts += 1
                while not ctx.stop_hls.is_set() and time.monotonic() < until and not playlist.ended:
                    query = f"?_HLS_msn={playlist.next_msn}&_HLS_part={playlist.next_index}"
                    body = await get(http, media + query + ("&_HLS_skip=YES" if delta else ""), "reload")
                    if body is None:
                        break  # start over from the multivariant playlist (e.g. a new publisher session)
                    try:
                        playlist = parse_playlist(body.decode())
                    except (ValueError, StopIteration, KeyError):
                        stats.error("reload unparsable")
                        break
                    stats.playlists += 1
                    for msn, index, uri in playlist.parts:
                        if (msn, index) > last:
                            last = (msn, index)
                            if await get(http, urljoin(media, uri), "part") is not None:
                                stats.parts += 1
                if playlist.ended:
                    stats.error("playlist ended")
            except asyncio.CancelledError:
                raise
            except Exception as error:  # noqa: BLE001 - counted, the client goes on
                stats.error(f"client {type(error).__name__}")
            if not ctx.stop_hls.is_set():
                stats.restarts += 1
                await asyncio.sleep(0.5)


# ---------------------------------------------------------------------------------------------
# chat clients


async def chat_client(ctx: Context, number: int, sender: bool) -> None:
    args, stats = ctx.args, ctx.chat
    rng = random.Random(10_000 + number)
    url = f"ws://127.0.0.1:{ctx.chat_url.rsplit(':', 1)[1]}/rooms/{ctx.room}/ws"
    await asyncio.sleep(rng.uniform(0, 3))
    sequence = 0
    while not ctx.stop_chat.is_set():
        lifetime = rng.expovariate(1 / args.chat_reconnect) if args.chat_reconnect > 0 else math.inf
        connected = False
        try:
            async with websockets.connect(url, open_timeout=15, close_timeout=2, max_queue=None) as ws:
                await ws.send(json.dumps({"type": "join", "name": f"soak{number}"}))
                while True:
                    frame = json.loads(await asyncio.wait_for(ws.recv(), 15))
                    if frame.get("type") == "joined":
                        break
                stats.connected += 1
                stats.joins += 1
                connected = True

                async def read() -> None:
                    try:
                        async for raw in ws:
                            frame = json.loads(raw)
                            kind = frame.get("type")
                            if kind == "message":
                                stats.received += 1
                            elif kind == "ack":
                                stats.acked += 1
                            elif kind == "error":
                                stats.error(frame.get("code", "error"))
                            elif kind == "room.closed":
                                stats.room_closed += 1
                    except websockets.ConnectionClosed:
                        pass  # the server closed it: counted below

                async def send() -> None:
                    nonlocal sequence
                    await asyncio.sleep(rng.uniform(0, args.chat_interval))
                    while not ctx.stop_sending.is_set():
                        sequence += 1
                        await ws.send(json.dumps({"type": "send", "text": f"soak {number} #{sequence}",
                                                  "ref": str(sequence)}))
                        stats.sent += 1
                        await asyncio.sleep(args.chat_interval * rng.uniform(0.8, 1.2))

                reader = asyncio.create_task(read())
                tasks = [reader, asyncio.create_task(ctx.stop_chat.wait())]
                if sender:
                    tasks.append(asyncio.create_task(send()))
                done, _ = await asyncio.wait(tasks, timeout=None if math.isinf(lifetime) else lifetime,
                                             return_when=asyncio.FIRST_COMPLETED)
                if reader in done and not ctx.stop_chat.is_set():
                    stats.dropped += 1  # the server closed it
                for task in tasks:
                    task.cancel()
                await asyncio.gather(*tasks, return_exceptions=True)
        except asyncio.CancelledError:
            raise
        except Exception as error:  # noqa: BLE001 - counted, the client reconnects
            stats.error(f"connection {type(error).__name__}")
        finally:
            if connected:
                stats.connected -= 1
        if not ctx.stop_chat.is_set():
            await asyncio.sleep(rng.uniform(0.2, 1.0) if connected else 2.0)


# ---------------------------------------------------------------------------------------------
# aiortc viewers (room 42, decoding)


async def aiortc_viewer(ctx: Context, number: int) -> None:
    stats = ctx.aiortc
    log_path = ctx.workdir / f"aiortc-viewer-{number}.log"
    url = f"{ctx.relay_url}/whep/{ctx.room}"
    while not ctx.stop_viewers.is_set():
        log = open(log_path, "ab")
        log.write(f"--- t={clock(ctx.elapsed())} cycle {stats.cycles + 1}\n".encode())
        log.flush()
        process = await asyncio.create_subprocess_exec(
            sys.executable, str(WHEP_VIEWER), "--url", url, "--duration", str(ctx.args.aiortc_cycle), "--no-index",
            "--connect-timeout", "20", stdout=asyncio.subprocess.PIPE, stderr=log, stdin=subprocess.DEVNULL,
            start_new_session=True, preexec_fn=child_setup)
        log.close()
        proc = Proc(f"aiortc-viewer-{number}", process.pid, process, log_path)
        STARTED.append(proc)
        ctx.viewer_procs[number] = proc
        if ctx.stop_viewers.is_set():  # the teardown's SIGTERM went out while this one was starting
            proc.signal_group(signal.SIGTERM)
        stats.running += 1
        stats.frames_now[number] = 0
        report: dict = {}
        try:
            async for line in process.stdout:
                try:
                    event = json.loads(line)
                except ValueError:
                    continue
                if event.get("event") == "progress":
                    stats.frames_now[number] = event.get("frames", 0)
                    continue
                if event.get("event") == "report":
                    report = event
                with open(log_path, "a") as log:  # its events but progress, next to its stderr
                    log.write(line.decode(errors="replace"))
            await process.wait()
        finally:
            stats.running -= 1
            ctx.viewer_procs.pop(number, None)
        frames = report.get("frames", stats.frames_now.get(number, 0))
        stats.frames_now[number] = 0
        stats.frames_done += frames
        stats.cycles += 1
        if report.get("first_frame_ms") is not None:
            stats.first_frame_ms.append(report["first_frame_ms"])
        stopped = ctx.stop_viewers.is_set()
        if frames == 0 or report.get("error") or (report.get("ended") and not stopped):
            stats.failed_cycles += 1
            stats.failures.append(f"t={clock(ctx.elapsed())} viewer {number}: frames {frames}, "
                                  f"ended {report.get('ended')}, error {report.get('error')}")
        if not stopped:
            await asyncio.sleep(1)


# ---------------------------------------------------------------------------------------------
# the monitor


async def get_json(http: aiohttp.ClientSession, url: str, headers: dict | None = None):
    """The JSON body of a 200 answer, else None."""
    try:
        async with http.get(url, headers=headers or {}, timeout=aiohttp.ClientTimeout(total=10)) as response:
            if response.status != 200:
                return None
            return await response.json(content_type=None)
    except (aiohttp.ClientError, asyncio.TimeoutError, ValueError):
        return None


class Monitor:
    def __init__(self, ctx: Context, http: aiohttp.ClientSession, admin: dict, subscriptions: dict):
        self.ctx, self.http, self.admin, self.subscriptions = ctx, http, admin, subscriptions
        self.samples: dict[str, list[tuple[float, Figures]]] = {}
        self.previous_cpu: dict[str, tuple[float, float]] = {}
        self.previous_bytes: dict[str, int] = {}  # viewer session -> bytes_out at the last report
        self.previous_counters: dict[str, float] = {}
        self.previous_rates: dict[str, tuple[float, float]] = {}  # key -> (time, value)
        self.csv = open(ctx.workdir / "samples.csv", "w", newline="")
        self.writer = csv.writer(self.csv)
        self.writer.writerow(["t_s", "process", "pid", "rss_kib", "fds", "threads", "cpu_s"])

    def roles(self) -> list[tuple[str, list[Proc]]]:
        ctx = self.ctx
        out = [(role, [ctx.procs[role]]) for role in ("relay", "chat", "broadcast", "fanout-bench") if role in ctx.procs]
        out.append(("aiortc-viewers", list(ctx.viewer_procs.values())))
        return out

    def sample(self) -> None:
        t = self.ctx.elapsed()
        for role, procs in self.roles():
            figures = sum_figures([f for f in (proc_figures(p.pid) for p in procs if p.alive()) if f])
            if figures is None:
                continue
            self.samples.setdefault(role, []).append((t, figures))
            self.writer.writerow([f"{t:.1f}", role, ",".join(str(p.pid) for p in procs), figures.rss_kib, figures.fds,
                                  figures.threads, f"{figures.cpu_s:.2f}"])
        own = proc_figures(os.getpid())
        if own:
            self.samples.setdefault("soak.py", []).append((t, own))
            self.writer.writerow([f"{t:.1f}", "soak.py", os.getpid(), own.rss_kib, own.fds, own.threads, f"{own.cpu_s:.2f}"])
        self.csv.flush()

    def rate(self, key: str, value: float, since_start: float | None = None) -> float | None:
        """Per second since the last call with this key (the first: since_start seconds)."""
        now = time.monotonic()
        old = self.previous_rates.get(key)
        self.previous_rates[key] = (now, value)
        if old is None:
            return value / since_start if since_start else None
        return (value - old[1]) / max(1e-9, now - old[0])

    def delta(self, key: str, value: float) -> float:
        old = self.previous_counters.get(key, 0)
        self.previous_counters[key] = value
        return value - old

    async def get_json(self, path: str, headers: dict | None = None):
        return await get_json(self.http, self.ctx.relay_url + path, headers)

    async def metrics(self) -> dict:
        wanted = ("onair_sessions", "onair_media_loop_load", "onair_udp_datagrams_dropped_total",
                  "onair_hls_waiting_requests", "onair_srtp_failures_total")
        out: dict[str, float] = {}
        try:
            async with self.http.get(self.ctx.relay_url + "/metrics", timeout=aiohttp.ClientTimeout(total=10)) as r:
                text = await r.text()
        except (aiohttp.ClientError, asyncio.TimeoutError):
            return out
        for line in text.splitlines():
            if line.startswith("#"):
                continue
            name = line.split("{", 1)[0].split(" ", 1)[0]
            if name in wanted:
                try:
                    out[name] = out.get(name, 0) + float(line.rsplit(" ", 1)[1])
                except ValueError:
                    pass
        return out

    async def stream_health(self, room: str) -> str:
        info = await self.get_json(f"/api/streams/{room}")
        if not info or not info.get("live"):
            return f"room {room} not live"
        sessions = info.get("viewer_sessions") or []
        receiving = 0
        for viewer in sessions:  # got bytes since the last report (a new session: got any)
            key = f"{room}/{viewer.get('session')}"
            bytes_out = viewer.get("bytes_out", 0)
            if bytes_out > self.previous_bytes.get(key, 0):
                receiving += 1
            self.previous_bytes[key] = bytes_out
        duration = info.get("duration_seconds")
        packets = self.rate(f"packets_out/{room}", info.get("packets_out", 0), duration) or 0
        packets_in = self.rate(f"packets_in/{room}", info.get("packets_in", 0), duration) or 0
        return (f"room {room}: {info.get('viewers', 0)} viewers, {receiving} receiving, "
                f"{packets:.0f} pkt/s out, {packets_in:.0f} pkt/s in, loss {info.get('loss_fraction', 0):.3f}")

    async def deliveries(self, subscription: str) -> str:
        counts = []
        for state in ("delivered", "pending", "failed"):
            page = await self.get_json(f"/api/webhooks/{subscription}/deliveries?state={state}&limit=500", self.admin)
            n = len(page.get("deliveries", [])) if page else None
            counts.append(f"{'?' if n is None else (str(n) + ('+' if n == 500 else ''))} {state}")
        return ", ".join(counts)

    async def report(self) -> None:
        ctx = self.ctx
        t = ctx.elapsed()
        load = " ".join(Path("/proc/loadavg").read_text().split()[:3])
        say(f"-- {clock(t)}  (loadavg {load})")
        rows = [(role, self.samples.get(role, [])[-1:] ) for role, _ in self.roles()] + \
               [("soak.py", self.samples.get("soak.py", [])[-1:])]
        for role, last in rows:
            if not last:
                if role != "aiortc-viewers":
                    say(f"  {role:<15} (not running)")
                continue
            sample_t, f = last[0]
            if sample_t < t - ctx.args.sample_every * 2:
                say(f"  {role:<15} (not running)")
                continue
            old_t, old_cpu = self.previous_cpu.get(role, (0.0, 0.0))
            cpu_percent = (f.cpu_s - old_cpu) / max(1e-9, sample_t - old_t) * 100 if role in self.previous_cpu else None
            self.previous_cpu[role] = (sample_t, f.cpu_s)
            if cpu_percent is not None and cpu_percent < 0:  # a viewer process restarted in between
                cpu_percent = None
            extra = ""
            if role == "relay":
                extra = f"  db {file_mib(ctx.workdir / 'relay.sqlite'):.1f} MiB"
            elif role == "chat":
                extra = f"  db {file_mib(ctx.workdir / 'chat.sqlite'):.1f} MiB"
            elif role == "aiortc-viewers":
                extra = f"  ({len(ctx.viewer_procs)} processes)"
            say(f"  {role:<15} rss {f.rss_kib / 1024:7.1f} MiB  fds {f.fds:5d}  threads {f.threads:3d}  "
                f"cpu {f.cpu_s:8.1f} s" + (f" ({cpu_percent:5.1f} % of a core)" if cpu_percent is not None else "")
                + extra)

        # WebRTC viewers
        metrics = await self.metrics()
        fanout = ""
        if "fanout-bench" in ctx.procs:
            fanout = await self.stream_health(FANOUT_ROOM) + "; "
        room = await self.stream_health(ctx.room)
        a = ctx.aiortc
        frames = a.frames()
        say(f"  webrtc: {fanout}{room}")
        say(f"          aiortc on room {ctx.room}: {a.running} watching, {frames} frames decoded "
            f"(+{self.delta('aiortc frames', frames):.0f}), {a.cycles} cycles done, {a.failed_cycles} failed; "
            f"relay: {metrics.get('onair_sessions', 0):.0f} sessions, media loop load "
            f"{metrics.get('onair_media_loop_load', 0):.2f}, udp drops {metrics.get('onair_udp_datagrams_dropped_total', 0):.0f}, "
            f"srtp failures {metrics.get('onair_srtp_failures_total', 0):.0f}")
        # LL-HLS
        h = ctx.hls
        now = time.monotonic()
        live = sum(1 for last in h.last_ok.values() if now - last < 5)
        errors = sum(h.errors.values())
        say(f"  hls: {live}/{ctx.args.hls} clients answered in the last 5 s; requests ok {h.requests_ok} "
            f"(+{self.delta('hls ok', h.requests_ok):.0f}: playlists +{self.delta('hls playlists', h.playlists):.0f}, "
            f"parts +{self.delta('hls parts', h.parts):.0f}, {self.delta('hls bytes', h.bytes) / MiB:.1f} MiB), "
            f"errors {errors} (+{self.delta('hls errors', errors):.0f}"
            f"{': ' + str(dict(sorted(h.errors.items()))) if h.errors else ''}), reloads > 3 s {h.slow_reloads}, restarts {h.restarts}, relay holds "
            f"{metrics.get('onair_hls_waiting_requests', 0):.0f} requests")
        # chat
        c = ctx.chat
        sent, received = self.delta("chat acked", c.acked), self.delta("chat received", c.received)
        per = f"{received / sent:.1f} deliveries per message" if sent else "no messages"
        room_state = None
        try:
            async with self.http.get(f"{ctx.chat_url}/rooms/{ctx.room}", timeout=aiohttp.ClientTimeout(total=5)) as r:
                room_state = (await r.json(content_type=None)).get("state") if r.status == 200 else r.status
        except (aiohttp.ClientError, asyncio.TimeoutError, ValueError):
            pass
        say(f"  chat: {c.connected}/{ctx.args.chat_clients} connected (room {room_state}), joins {c.joins}, "
            f"server-closed {c.dropped}; sent {c.sent} acked {c.acked} (+{sent:.0f}), received {c.received} "
            f"(+{received:.0f}: {per}); errors {dict(sorted(c.errors.items())) or 0}")
        # webhooks
        k = ctx.hooks
        chat_log = await self.deliveries(self.subscriptions["chat"]) if self.subscriptions.get("chat") else "?"
        soak_log = await self.deliveries(self.subscriptions["soak"])
        say(f"  webhooks: soak subscriber verified {k.verified} (+{self.delta('hooks', k.verified):.0f}) "
            f"{dict(sorted(k.by_type.items()))}, bad signatures {k.bad}, retries {k.duplicates}; relay's log: "
            f"chat subscription {chat_log}; soak subscription {soak_log}")


# ---------------------------------------------------------------------------------------------
# analysis


def slope(points: list[tuple[float, float]]) -> float:
    n = len(points)
    mean_t = sum(p[0] for p in points) / n
    mean_v = sum(p[1] for p in points) / n
    denominator = sum((p[0] - mean_t) ** 2 for p in points)
    return 0.0 if denominator == 0 else sum((p[0] - mean_t) * (p[1] - mean_v) for p in points) / denominator


def verdicts(monitor: Monitor, end_t: float, window: float) -> tuple[list[str], bool]:
    lines = [f"== growth over the analysis window: the last {window / 60:.1f} min ({clock(end_t - window)} .. "
             f"{clock(end_t)}), samples every {monitor.ctx.args.sample_every:g} s; each end = median of "
             f"{Thresholds.ENDS} samples",
             f"   thresholds: RSS trend < max({Thresholds.RSS_MIN_MIB:g} MiB, {Thresholds.RSS_FRACTION:.0%} of the "
             f"start), fds <= +{Thresholds.FD_SLACK}, threads <= +{Thresholds.THREAD_SLACK} (see Thresholds in soak.py)"]
    header = f"   {'process':<15} {'RSS start -> end MiB':>22} {'trend MiB':>10} {'fds':>13} {'threads':>9}  verdict"
    lines.append(header)
    all_ok = True
    for role in ("relay", "chat", "broadcast"):
        points = [(t, f) for t, f in monitor.samples.get(role, []) if end_t - window <= t <= end_t + 1]
        if len(points) < 2 * Thresholds.ENDS:
            lines.append(f"   {role:<15} too few samples in the window ({len(points)})")
            all_ok = False
            continue
        first, last = points[:Thresholds.ENDS], points[-Thresholds.ENDS:]

        def ends(get):
            return statistics.median(get(f) for _, f in first), statistics.median(get(f) for _, f in last)
        rss0, rss1 = ends(lambda f: f.rss_kib / 1024)
        fd0, fd1 = ends(lambda f: f.fds)
        th0, th1 = ends(lambda f: f.threads)
        trend = slope([(t, f.rss_kib / 1024) for t, f in points]) * (points[-1][0] - points[0][0])
        limit = max(Thresholds.RSS_MIN_MIB, Thresholds.RSS_FRACTION * rss0)
        problems = []
        if trend >= limit:
            problems.append(f"RSS +{trend:.1f} MiB (limit {limit:.1f})")
        if fd1 - fd0 > Thresholds.FD_SLACK:
            problems.append(f"fds +{fd1 - fd0:g}")
        if th1 - th0 > Thresholds.THREAD_SLACK:
            problems.append(f"threads +{th1 - th0:g}")
        died = monitor.ctx.end_reason.startswith(f"{role} exited")
        verdict = "no growth after warm-up" if not problems else "GROWTH: " + ", ".join(problems)
        if died:
            verdict = f"DIED ({monitor.ctx.end_reason}); " + verdict
        all_ok = all_ok and not problems and not died
        lines.append(f"   {role:<15} {rss0:9.1f} -> {rss1:7.1f} {trend:+10.2f} {fd0:6g} -> {fd1:<4g} "
                     f"{th0:3g} -> {th1:<3g}  {verdict}")
    return lines, all_ok


# ---------------------------------------------------------------------------------------------
# main


def default_bin_dir() -> Path:
    release = REPO / ".build" / "release"
    return release if (release / "relay").is_file() else REPO / ".build" / "debug"


def find_fanout(args) -> Path | None:
    if args.fanout_bench is not None:
        return Path(args.fanout_bench) if args.fanout_bench else None
    for directory in (Path(args.bin_dir), REPO / ".build" / "release", REPO / ".build" / "debug"):
        if (directory / "fanout-bench").is_file():
            return directory / "fanout-bench"
    return None


async def wait_http(url: str, proc: Proc, seconds: float = 30) -> None:
    deadline = time.monotonic() + seconds
    async with aiohttp.ClientSession() as http:
        while True:
            try:
                async with http.get(url, timeout=aiohttp.ClientTimeout(total=2)) as r:
                    if r.status == 200:
                        return
            except (aiohttp.ClientError, asyncio.TimeoutError):
                pass
            if not proc.alive() or time.monotonic() > deadline:
                raise RuntimeError(f"{proc.name} did not come up at {url}:\n{tail(proc.log_path)}")
            await asyncio.sleep(0.2)


async def run(args) -> int:
    raise_file_limit(16384)
    workdir = Path(args.workdir) if args.workdir else Path(tempfile.mkdtemp(prefix="onair-soak-"))
    workdir.mkdir(parents=True, exist_ok=True)
    ctx = Context(args=args, workdir=workdir, room=args.room)
    loop = asyncio.get_running_loop()

    def on_signal(sig: int) -> None:
        if ctx.interrupted:
            say(f"soak: second {signal.Signals(sig).name}: killing everything now")
            ctx.hurry = True
            kill_everything(signal.SIGKILL)
        else:
            say(f"soak: {signal.Signals(sig).name}: ending the run early (again to kill everything at once)")
            ctx.interrupted = True
            ctx.finish("interrupted")
    for sig in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP):
        loop.add_signal_handler(sig, on_signal, sig)

    bin_dir = Path(args.bin_dir)
    for name in ("relay", "chat", "broadcast"):
        if not (bin_dir / name).is_file():
            raise SystemExit(f"soak: {bin_dir / name} is missing (swift build --product {name})")
    fanout = find_fanout(args) if args.viewers > 0 else None
    aiortc_count = args.aiortc_viewers
    say(f"soak: binaries from {bin_dir}; work directory {workdir}")
    if args.viewers > 0 and fanout is None:
        aiortc_count += min(args.viewers, args.max_aiortc)
        say(f"soak: no fanout-bench binary found: {min(args.viewers, args.max_aiortc)} aiortc viewers instead of "
            f"{args.viewers} WebRTC viewers (aiortc decodes: a few per core at most)")
    elif fanout is not None and fanout.parent != bin_dir:
        say(f"soak: note: fanout-bench from {fanout} ({'debug' if 'debug' in str(fanout) else 'other'} build: "
            f"it costs more CPU per viewer than a release build)")

    secret = "whsec_" + base64.b64encode(os.urandom(32)).decode()
    admin_token = secrets.token_hex(16)
    admin = {"Authorization": f"Bearer {admin_token}"}
    http_port, udp_port, chat_port = free_port(), free_port(socket.SOCK_DGRAM), free_port()
    ctx.relay_url, ctx.chat_url = f"http://127.0.0.1:{http_port}", f"http://127.0.0.1:{chat_port}"
    receiver, hook_port = await start_receiver(ctx, secret)
    tasks: list[asyncio.Task] = []
    monitor: Monitor | None = None
    deadline_t = args.minutes * 60
    exit_code = 1
    ctx.t0 = time.monotonic()
    http = aiohttp.ClientSession()
    try:
        # servers: chat first (the relay's config subscriber), then the relay
        ctx.procs["chat"] = start("chat", [str(bin_dir / "chat"), "serve", "--log-level", args.log_level],
                                  workdir / "chat.log", cwd=workdir, env={
                                      "ONAIR_CHAT_HOST": "127.0.0.1", "ONAIR_CHAT_PORT": str(chat_port),
                                      "ONAIR_CHAT_DATABASE": str(workdir / "chat.sqlite"),
                                      "ONAIR_CHAT_WEBHOOK_SECRET": secret})
        await wait_http(f"{ctx.chat_url}/healthz", ctx.procs["chat"])
        relay_env = {"ONAIR_HTTP_HOST": "127.0.0.1", "ONAIR_HTTP_PORT": str(http_port),
                     "ONAIR_MEDIA_BIND": "127.0.0.1", "ONAIR_UDP_PORT": str(udp_port),
                     "ONAIR_DATABASE": str(workdir / "relay.sqlite"),
                     "ONAIR_WEBHOOK_URL": f"{ctx.chat_url}/hooks/relay", "ONAIR_WEBHOOK_SECRET": secret,
                     "ONAIR_ADMIN_TOKEN": admin_token}
        for pair in args.relay_env:
            key, _, value = pair.partition("=")
            relay_env[key] = value
        ctx.procs["relay"] = start("relay", [str(bin_dir / "relay"), "serve", "--log-level", args.log_level],
                                   workdir / "relay.log", cwd=workdir, env=relay_env)
        await wait_http(f"{ctx.relay_url}/healthz", ctx.procs["relay"])

        # our own subscriber, through the admin API
        async with http.post(f"{ctx.relay_url}/api/webhooks", headers=admin,
                             json={"url": f"http://127.0.0.1:{hook_port}/hooks/soak", "description": "soak.py",
                                   "secret": secret}) as r:
            created = await r.json(content_type=None)
            if r.status != 201:
                raise RuntimeError(f"POST /api/webhooks: {r.status} {created}")
        subscriptions = {"soak": created["id"]}
        async with http.get(f"{ctx.relay_url}/api/webhooks", headers=admin) as r:
            for sub in (await r.json(content_type=None)).get("webhooks", []):
                if sub.get("source") == "config":
                    subscriptions["chat"] = sub["id"]
        say(f"soak: relay {ctx.relay_url} (pid {ctx.procs['relay'].pid}), chat {ctx.chat_url} "
            f"(pid {ctx.procs['chat'].pid}), webhooks: chat {subscriptions.get('chat')}, soak {subscriptions['soak']} "
            f"-> 127.0.0.1:{hook_port}")

        # the publisher
        argv = [str(bin_dir / "broadcast"), "start", "--room", ctx.room, "--relay", ctx.relay_url, "--size", args.size]
        if args.simulcast:
            argv.append("--simulcast")
        ctx.procs["broadcast"] = start("broadcast", argv, workdir / "broadcast.log", cwd=REPO)
        deadline = time.monotonic() + 30
        while True:
            info = await get_json(http, f"{ctx.relay_url}/api/streams/{ctx.room}")
            async with http.get(f"{ctx.relay_url}/hls/{ctx.room}/index.m3u8") as r:
                hls_ready = r.status == 200
            if info and info.get("live") and hls_ready:
                break
            if not ctx.procs["broadcast"].alive() or time.monotonic() > deadline or ctx.end.is_set():
                raise RuntimeError(f"room {ctx.room} did not go live:\n{tail(ctx.procs['broadcast'].log_path)}")
            await asyncio.sleep(0.3)
        for _ in range(50):  # the chat opens room 42 on stream.started; senders want it open
            if ("stream.started", ctx.room) in ctx.hooks.events:
                break
            await asyncio.sleep(0.2)
        say(f"soak: room {ctx.room} live at t={ctx.elapsed():.1f} s (LL-HLS ready); stream.started "
            f"{'received' if ('stream.started', ctx.room) in ctx.hooks.events else 'NOT yet received'}")

        # the load
        if fanout is not None:
            # Its window ends a few seconds after the deadline (certificate, publisher, viewers'
            # connections come first); the teardown waits for its figures.
            window = max(30.0, deadline_t - ctx.elapsed() - args.fanout_warmup)
            ctx.procs["fanout-bench"] = start("fanout-bench", [
                str(fanout), "--relay-url", ctx.relay_url, "--relay-pid", str(ctx.procs["relay"].pid),
                "--pion-bin", "", "--levels", str(args.viewers), "--window", f"{window:.0f}",
                "--warmup", str(args.fanout_warmup), "--no-realtime", "--nice", "0", "--room", FANOUT_ROOM,
                "--video-bitrate", str(args.fanout_bitrate), "--connect-timeout", "120"],
                workdir / "fanout-bench.log", cwd=REPO)
        for number in range(aiortc_count):
            tasks.append(asyncio.create_task(aiortc_viewer(ctx, number)))
        for number in range(args.hls):
            tasks.append(asyncio.create_task(hls_client(ctx, number)))
        senders = round(args.chat_clients * args.chat_senders)
        for number in range(args.chat_clients):
            tasks.append(asyncio.create_task(chat_client(ctx, number, sender=number < senders)))
        say(f"soak: load: {args.viewers if fanout else 0} fanout-bench viewers (room {FANOUT_ROOM}), "
            f"{aiortc_count} aiortc viewers (room {ctx.room}, {args.aiortc_cycle:g} s cycles), {args.hls} LL-HLS "
            f"clients, {args.chat_clients} chat clients ({senders} posting every ~{args.chat_interval:g} s); "
            f"run {args.minutes:g} min, a report every {args.report_every:g} s")

        # the monitor
        monitor = Monitor(ctx, http, admin, subscriptions)
        next_sample = ctx.elapsed()
        next_report = math.ceil(next_sample / args.report_every) * args.report_every  # reports on the minute
        while not ctx.end.is_set():
            t = ctx.elapsed()
            if t >= deadline_t:
                ctx.finish("deadline")
                break
            for role in ("relay", "chat", "broadcast"):
                if not ctx.procs[role].alive():
                    ctx.finish(f"{role} exited with {ctx.procs[role].exit_code()}")
            if ctx.end.is_set():
                break
            if t >= next_report:
                monitor.sample()
                await monitor.report()
                next_report += args.report_every
                next_sample = t + args.sample_every
            elif t >= next_sample:
                monitor.sample()
                next_sample += args.sample_every
            try:
                await asyncio.wait_for(ctx.end.wait(), timeout=max(0.05, min(next_sample, next_report, deadline_t)
                                                                   - ctx.elapsed()))
            except asyncio.TimeoutError:
                pass
        end_t = ctx.elapsed()
        monitor.sample()
        await monitor.report()
        say(f"soak: run over at {clock(end_t)} ({ctx.end_reason}); stopping in order")

        # teardown, in order
        ctx.stop_hls.set()
        ctx.stop_viewers.set()
        for proc in list(ctx.viewer_procs.values()):
            proc.signal_group(signal.SIGTERM)  # whep_viewer DELETEs its session and reports
        fan = ctx.procs.get("fanout-bench")
        if fan and fan.alive():
            if ctx.interrupted or ctx.end_reason != "deadline":
                await stop_proc(fan, signal.SIGTERM, 5, ctx)
            else:
                wait = max(60.0, 0.3 * args.viewers)
                say(f"soak: waiting up to {wait:.0f} s for fanout-bench to end its measurement window")
                limit = time.monotonic() + wait
                while fan.alive() and time.monotonic() < limit and not ctx.hurry:
                    await asyncio.sleep(0.5)
                await stop_proc(fan, signal.SIGTERM, 5, ctx)
        ctx.stop_sending.set()
        hls_and_viewers = tasks[:aiortc_count + args.hls]
        if hls_and_viewers:
            await asyncio.wait(hls_and_viewers, timeout=15)
        # broadcast ends and DELETEs its session: stream.ended -> the chat closes the room
        await stop_proc(ctx.procs["broadcast"], signal.SIGINT, 15, ctx)
        limit = time.monotonic() + 10
        while time.monotonic() < limit and not ctx.hurry and not (
                ("stream.ended", ctx.room) in ctx.hooks.events and ctx.chat.room_closed >= ctx.chat.connected):
            await asyncio.sleep(0.2)
        connected_at_end = ctx.chat.connected
        ctx.stop_chat.set()  # each chat client closes its connection (1000)
        await asyncio.wait(tasks, timeout=15)
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
        await stop_proc(ctx.procs["relay"], signal.SIGTERM, 15, ctx)
        await stop_proc(ctx.procs["chat"], signal.SIGTERM, 5, ctx)

        # summary
        say("")
        say(f"== end of stream: stream.ended for room {ctx.room} at the soak subscriber: "
            f"{'yes' if ('stream.ended', ctx.room) in ctx.hooks.events else 'NO'}; room.closed seen by "
            f"{ctx.chat.room_closed} chat clients ({connected_at_end} still connected when the wait ended: a client "
            f"that saw it may have been between reconnects since)")
        if fan:
            lines = [l for l in tail(fan.log_path, 200).splitlines()
                     if "viewers connected" in l or "@" in l or "failed" in l or l.startswith("|")]
            say(f"== fanout-bench (exit code {fan.exit_code()}; its window ended "
                f"{'before' if fan.exit_code() == 0 else 'NOT before'} it was stopped):")
            for line in lines[-8:]:
                say(f"   {line.rstrip()}")
        if ctx.aiortc.failures:
            say(f"== aiortc viewer cycles that failed ({len(ctx.aiortc.failures)}):")
            for failure in ctx.aiortc.failures[-10:]:
                say(f"   {failure}")
        if ctx.aiortc.first_frame_ms:
            ff = sorted(ctx.aiortc.first_frame_ms)
            say(f"== aiortc viewers: {ctx.aiortc.cycles} cycles, first frame p50 {ff[len(ff) // 2]} ms, max {ff[-1]} ms over {len(ff)} joins")
        for role in ("relay", "chat", "broadcast"):
            proc = ctx.procs[role]
            say(f"== {role} exit code {proc.exit_code()}")
        window = 30 * 60 if end_t >= 60 * 60 else end_t / 2
        lines, ok = verdicts(monitor, end_t, window)
        say("")
        for line in lines:
            say(line)
        if end_t < 20 * 60:
            say("   (a short run: the window is only a few minutes; only gross leaks show. An hour is the real check.)")
        say(f"soak: logs and samples.csv in {workdir}")
        exit_code = 0 if ok and not ctx.interrupted and ctx.end_reason == "deadline" else 1
    finally:
        ctx.stop_hls.set(); ctx.stop_viewers.set(); ctx.stop_sending.set(); ctx.stop_chat.set()
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
        for proc in reversed(STARTED):
            if proc.alive():
                await stop_proc(proc, signal.SIGTERM, 3 if not ctx.hurry else 0, ctx)
        await http.close()
        await receiver.cleanup()
        if monitor:
            monitor.csv.close()
    return exit_code


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--minutes", type=float, default=60, help="length of the run (default 60)")
    parser.add_argument("--viewers", type=int, default=200, help="WebRTC viewers of fanout-bench (default 200)")
    parser.add_argument("--hls", type=int, default=50, help="LL-HLS clients (default 50)")
    parser.add_argument("--chat-clients", type=int, default=500, help="chat WebSocket clients (default 500)")
    parser.add_argument("--chat-senders", type=float, default=0.05, help="fraction of chat clients that post (0.05)")
    parser.add_argument("--chat-interval", type=float, default=5, help="seconds between a sender's messages (5)")
    parser.add_argument("--chat-reconnect", type=float, default=600,
                        help="mean seconds a chat connection lives before it reconnects, 0 = never (600)")
    parser.add_argument("--hls-restart", type=float, default=600,
                        help="mean seconds an HLS client follows before it starts over, 0 = never (600)")
    parser.add_argument("--aiortc-viewers", type=int, default=1, help="decoding aiortc viewers of room 42 (1)")
    parser.add_argument("--aiortc-cycle", type=float, default=120, help="seconds each aiortc viewer session lasts (120)")
    parser.add_argument("--max-aiortc", type=int, default=4, help="aiortc viewers that stand in for --viewers "
                        "when there is no fanout-bench (4)")
    parser.add_argument("--simulcast", action="store_true", help="broadcast --simulcast")
    parser.add_argument("--size", default="1280x720", help="test pattern size (1280x720)")
    parser.add_argument("--room", default="42")
    parser.add_argument("--bin-dir", default=str(default_bin_dir()),
                        help="relay, chat, broadcast from here (default .build/release if it has relay, else .build/debug)")
    parser.add_argument("--fanout-bench", default=None,
                        help="fanout-bench executable (default: --bin-dir's, else release, else debug; '' = none)")
    parser.add_argument("--fanout-bitrate", type=int, default=2_500_000, help="fanout-bench video bit/s (2500000)")
    parser.add_argument("--fanout-warmup", type=float, default=5, help="fanout-bench warm-up before its window (5)")
    parser.add_argument("--relay-env", action="append", default=[], help="extra KEY=VALUE for the relay (repeatable)")
    parser.add_argument("--log-level", default="notice", help="relay and chat log level (notice)")
    parser.add_argument("--report-every", type=float, default=60, help="seconds between reports (60)")
    parser.add_argument("--sample-every", type=float, default=10, help="seconds between /proc samples (10)")
    parser.add_argument("--workdir", help="directory for databases, logs, samples.csv (default: a new temp dir)")
    args = parser.parse_args()
    try:
        return asyncio.run(run(args))
    except RuntimeError as error:
        say(f"soak: {error}")
        return 1
    finally:
        kill_everything(signal.SIGKILL)  # last resort: nothing we started outlives us


if __name__ == "__main__":
    sys.exit(main())
