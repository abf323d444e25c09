"""Shared plumbing of the LL-HLS benchmarks: start a relay and a `broadcast` publisher,
follow a live media playlist (RFC 8216bis), split fMP4 parts into samples (ISO/IEC
14496-12 moof/traf/trun), percentiles. Standard library only (PyAV where decoding is needed,
in the scripts that decode)."""

from __future__ import annotations

import http.client
import os
import re
import resource
import signal
import socket
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

REPO = Path(__file__).resolve().parents[3]
sys.path.insert(0, str(REPO / "Tests" / "Interop"))  # testpattern.read_barcode


def default_binary(name: str, env: str) -> str:
    """$env, else the release build, else the debug build."""
    if os.environ.get(env):
        return os.environ[env]
    for build in ("release", "debug"):
        path = REPO / ".build" / build / name
        if path.is_file():
            return str(path)
    return str(REPO / ".build" / "debug" / name)


def free_port(kind=socket.SOCK_STREAM) -> int:
    with socket.socket(socket.AF_INET, kind) as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def raise_file_limit(wanted: int = 8192) -> None:
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft < wanted:
        resource.setrlimit(resource.RLIMIT_NOFILE, (min(wanted, hard), hard))


def wrap(argv: list[str], core: int | None, realtime: bool) -> list[str]:
    """`taskset -c core` and `chrt -r 1` (SCHED_RR) as asked. Real-time priority keeps other
    work on a shared machine (compilers, other benchmarks) from starving the process; RT
    throttling still leaves 5% of each core to everyone else."""
    if realtime:
        argv = ["chrt", "-r", "1"] + argv
    if core is not None:
        argv = ["taskset", "-c", str(core)] + argv
    return argv


def make_realtime() -> None:
    """This process as SCHED_RR priority 1 (see `wrap`)."""
    os.sched_setscheduler(0, os.SCHED_RR, os.sched_param(1))


def stop_group(process: subprocess.Popen, first_signal: int) -> None:
    """Sends `first_signal` to the process group, then SIGKILL if it has not ended in 10 s."""
    if process.poll() is None:
        os.killpg(process.pid, first_signal)
        try:
            process.wait(10)
        except subprocess.TimeoutExpired:
            os.killpg(process.pid, signal.SIGKILL)
            process.wait(5)


class Relay:
    """`relay serve` on free loopback ports with ONAIR_* settings; log in a temp dir."""

    TOKEN = "hls-bench-token"

    def __init__(self, binary: str, env: dict | None = None, core: int | None = None, log_level: str = "info",
                 realtime: bool = False):
        self.workdir = Path(tempfile.mkdtemp(prefix="hls-bench-"))
        self.http_port, self.udp_port = free_port(), free_port(socket.SOCK_DGRAM)
        self.log_path = self.workdir / "relay.log"
        argv = wrap([binary, "serve", "--log-level", log_level], core, realtime)
        full_env = {**os.environ, "ONAIR_HTTP_HOST": "127.0.0.1", "ONAIR_HTTP_PORT": str(self.http_port),
                    "ONAIR_MEDIA_BIND": "127.0.0.1", "ONAIR_UDP_PORT": str(self.udp_port),
                    "ONAIR_PUBLISH_TOKEN": self.TOKEN, "ONAIR_DATABASE": str(self.workdir / "relay.sqlite"),
                    **(env or {})}
        self.log = open(self.log_path, "w")
        self.process = subprocess.Popen(argv, env=full_env, stdout=self.log, stderr=subprocess.STDOUT,
                                        stdin=subprocess.DEVNULL, cwd=self.workdir, start_new_session=True,
                                        preexec_fn=lambda: raise_file_limit(16384))
        deadline = time.monotonic() + 20
        while True:
            try:
                socket.create_connection(("127.0.0.1", self.http_port), timeout=0.5).close()
                break
            except OSError:
                if self.process.poll() is not None or time.monotonic() > deadline:
                    raise RuntimeError(f"relay did not start: {self.log_path.read_text()[-2000:]}")
                time.sleep(0.05)

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.http_port}"

    def log_text(self) -> str:
        return self.log_path.read_text(errors="replace")

    def stop(self) -> None:
        stop_group(self.process, signal.SIGTERM)
        self.log.close()


class Broadcast:
    """`broadcast start` with the test pattern (every frame carries its capture time)."""

    def __init__(self, binary: str, base_url: str, room: str, token: str, seconds: float, size: str = "640x360",
                 fps: int = 30, core: int | None = None, extra: list[str] | None = None, realtime: bool = False):
        self.log_path = Path(tempfile.mkstemp(prefix="hls-bench-broadcast-", suffix=".log")[1])
        argv = [binary, "start", "--room", room, "--relay", base_url, "--token", token, "--size", size,
                "--fps", str(fps), "--duration", str(seconds), *(extra or [])]
        argv = wrap(argv, core, realtime)
        self.log = open(self.log_path, "w")
        self.process = subprocess.Popen(argv, stdout=self.log, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
                                        start_new_session=True)

    def stop(self) -> None:
        stop_group(self.process, signal.SIGINT)  # broadcast ends its session on Ctrl-C
        self.log.close()


class Client:
    """One keep-alive HTTP/1.1 connection (a player keeps its connections open)."""

    def __init__(self, base_url: str):
        host, port = base_url.removeprefix("http://").split(":")
        self.host, self.port = host, int(port)
        self.connection = http.client.HTTPConnection(self.host, self.port, timeout=15)

    def get(self, path: str) -> tuple[int, bytes]:
        for attempt in range(2):
            try:
                self.connection.request("GET", path)
                response = self.connection.getresponse()
                return response.status, response.read()
            except (http.client.HTTPException, OSError):
                self.connection.close()
                self.connection = http.client.HTTPConnection(self.host, self.port, timeout=15)
                if attempt:
                    raise
        raise AssertionError("unreachable")


def wait_for_playlist(client: Client, room: str, timeout: float = 30) -> str:
    """Waits for /hls/{room}/index.m3u8; returns the media playlist's path."""
    deadline = time.monotonic() + timeout
    while True:
        status, body = client.get(f"/hls/{room}/index.m3u8")
        if status == 200:
            uri = next(l for l in body.decode().splitlines() if l and not l.startswith("#"))
            return f"/hls/{room}/{uri}"
        if time.monotonic() > deadline:
            raise RuntimeError(f"no HLS for room {room} after {timeout}s ({status})")
        time.sleep(0.1)


@dataclass
class Part:
    uri: str
    duration: float
    independent: bool
    msn: int
    index: int  # within its segment


@dataclass
class MediaPlaylist:
    media_sequence: int
    part_target: float
    map_uri: str
    parts: list[Part] = field(default_factory=list)
    preload_hint: str | None = None
    ended: bool = False
    part_hold_back: float = 0.0
    next_msn: int = 0   # the segment the next part goes into if it follows the last listed one
    next_index: int = 0

    @staticmethod
    def parse(text: str) -> "MediaPlaylist":
        def attrs(line: str) -> dict:
            return {k: v.strip('"') for k, v in re.findall(r'([A-Z0-9-]+)=("[^"]*"|[^,]*)', line.partition(":")[2])}
        lines = text.splitlines()
        sequence = int(next(l for l in lines if l.startswith("#EXT-X-MEDIA-SEQUENCE:")).split(":")[1])
        part_target = float(attrs(next(l for l in lines if l.startswith("#EXT-X-PART-INF:")))["PART-TARGET"])
        map_uri = attrs(next(l for l in lines if l.startswith("#EXT-X-MAP:")))["URI"]
        playlist = MediaPlaylist(sequence, part_target, map_uri)
        control = next((l for l in lines if l.startswith("#EXT-X-SERVER-CONTROL:")), None)
        if control and "PART-HOLD-BACK" in attrs(control):
            playlist.part_hold_back = float(attrs(control)["PART-HOLD-BACK"])
        msn, index = sequence, 0
        for line in lines:
            if line.startswith("#EXT-X-PART:"):
                a = attrs(line)
                playlist.parts.append(Part(a["URI"], float(a["DURATION"]), a.get("INDEPENDENT") == "YES", msn, index))
                index += 1
            elif line.startswith("#EXT-X-PRELOAD-HINT:"):
                playlist.preload_hint = attrs(line)["URI"]
            elif line == "#EXT-X-ENDLIST":
                playlist.ended = True
            elif line and not line.startswith("#"):
                msn, index = msn + 1, 0   # a complete segment's URI: the next parts go into msn + 1
        playlist.next_msn, playlist.next_index = msn, index
        return playlist


def boxes(data: bytes, start: int = 0, end: int | None = None):
    """(type, body_start, box_start, box_end) of each box in data[start:end]."""
    end = len(data) if end is None else end
    offset = start
    while offset + 8 <= end:
        size = int.from_bytes(data[offset:offset + 4], "big")
        kind = data[offset + 4:offset + 8].decode("latin-1")
        if size < 8 or offset + size > end:
            return
        yield kind, offset + 8, offset, offset + size
        offset += size


def avc_decoder_configuration(init: bytes) -> bytes:
    """The AVCDecoderConfigurationRecord (avcC body) of an init segment."""
    at = init.find(b"avcC")
    size = int.from_bytes(init[at - 4:at], "big")
    return init[at + 4:at - 4 + size]


def samples(fragment: bytes, track_id: int = 1):
    """(decode_time, duration, bytes, is_sync) of the track's samples in moof+mdat fragments."""
    out = []
    for kind, body, start, end in boxes(fragment):
        if kind != "moof":
            continue
        for tkind, tbody, _, tend in boxes(fragment, body, end):
            if tkind != "traf":
                continue
            track, base, runs = None, 0, []
            for k, b, _, e in boxes(fragment, tbody, tend):
                flags = int.from_bytes(fragment[b + 1:b + 4], "big")
                if k == "tfhd":
                    track = int.from_bytes(fragment[b + 4:b + 8], "big")
                elif k == "tfdt":
                    base = int.from_bytes(fragment[b + 4:b + 12], "big") if fragment[b] == 1 else \
                        int.from_bytes(fragment[b + 4:b + 8], "big")
                elif k == "trun":
                    count = int.from_bytes(fragment[b + 4:b + 8], "big")
                    p = b + 8
                    offset = 0
                    if flags & 0x1:
                        offset = int.from_bytes(fragment[p:p + 4], "big", signed=True)
                        p += 4
                    if flags & 0x4:
                        p += 4
                    rows = []
                    for _ in range(count):
                        row = {}
                        for bit, name in ((0x100, "duration"), (0x200, "size"), (0x400, "flags"), (0x800, "cto")):
                            if flags & bit:
                                row[name] = int.from_bytes(fragment[p:p + 4], "big")
                                p += 4
                        rows.append(row)
                    runs.append((offset, rows))
            if track != track_id:
                continue
            time_ = base
            for offset, rows in runs:
                position = start + offset
                for row in rows:
                    size = row["size"]
                    sync = not (row.get("flags", 0) & 0x0001_0000)
                    out.append((time_, row.get("duration", 0), fragment[position:position + size], sync))
                    position += size
                    time_ += row.get("duration", 0)
    return out


def percentile(values: list[float], p: float) -> float:
    """Linear interpolation between closest ranks (numpy's default)."""
    if not values:
        return float("nan")
    ordered = sorted(values)
    k = (len(ordered) - 1) * p / 100
    low = int(k)
    high = min(low + 1, len(ordered) - 1)
    return ordered[low] + (ordered[high] - ordered[low]) * (k - low)


def loadavg() -> str:
    return " ".join(Path("/proc/loadavg").read_text().split()[:3])
