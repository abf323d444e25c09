"""Abuse and soak (issue 14): the relay and the chat are attacked over HTTP while a stream is
live and a viewer watches it; nothing a real viewer sees may be hurt.

The scene (built once for the module): our relay (conftest.launch_relay), an aiortc WHIP
publisher on room 42 (peers/whip_publisher.py, as test_bad_input.py), an aiortc WHEP viewer
that logs every decoded frame (peers/whep_viewer.py --frames-log), the chat
(test_chat.launch_chat), and a sampler of both servers' VmRSS (/proc/PID/status, every 0.2 s).
Then, one test each, in this order:

0. `test_quiet_baseline` - 5 s with nothing going on: the yardstick for the viewer and RSS.
1. `test_idle_and_slowloris_connections` - two rounds of HORDE_IDLE silent connections plus
   HORDE_SLOW slowloris ones (a request head that never ends, one more byte every 0.5 s) to
   EACH server at once (4,000 sockets; this process raises its RLIMIT_NOFILE for them). Both
   servers keep answering /healthz, and close every one of them once
   `http.request_head_timeout_seconds` (10 s) has passed, none before. The second round may
   not take more memory than the first.
1b. `test_media_tcp_horde` - MEDIA_HORDE TCP connections to the relay's ICE-TCP ports (RFC 6544:
   one per media worker), spread over the workers, that never send a STUN check: the viewer
   plays on, and the relay closes every one of them once `limits.connect_timeout_seconds`
   (15 s) has passed, none before (onair_tcp_connections_unauthenticated_total{cause="timeout"}
   counts them).
2. `test_megabyte_header` - a 1 MB header (one field, and 16,000 small fields) on a garbage path
   and on a real route of each server (the chat's WebSocket upgrade): a 4xx (431 or 400) or a
   closed connection within HEADER_ANSWER_SECONDS; never a connection left hanging.
3. `test_garbage_flood` - random methods and paths (never a real route; bodies on some), as
   fast as one generator process can send them (FLOOD_CONNECTIONS keep-alive connections,
   FLOOD_DEPTH requests pipelined per write), FLOOD_SECONDS against each server in turn: every
   answer a 4xx (`405` where a garbage `/hls/` path has an LL-HLS resource's shape). OPTIONS is
   left out: on such a path it is answered `204`. The generator is this file run as a script
   (`flood`), a subprocess.
   One process reached as much as two (the servers, debug builds, are the bottleneck).
4. `test_never_reading_websocket_is_dropped` - a WebSocket client (raw socket, 16 kB receive
   buffer) joins room 42 and never reads, while POSTERS clients post ~2 kB messages as fast as
   the chat lets them: the chat must close it (limits.client_buffer_bytes: 1 MB queued in the
   chat, on top of what the kernel's send buffer takes, up to net.ipv4.tcp_wmem's 4 MB), seen
   from the kernel (/proc/net/tcp: the chat's end leaves ESTABLISHED) and then in the room's
   presence, within WS_DROP_SECONDS; the posters stay connected.
5. `test_everything_still_works` - both servers alive, RSS back near where it started, /healthz,
   a new WHEP viewer decodes frames, a new chat client joins and posts; the first viewer never
   stopped and the publisher is still live.

Each attack is also judged as the viewer saw it: decoded frames per second and the longest gap
between decoded frames during the attack (the freeze), against a quiet baseline measured first,
and the servers' RSS during the attack. `pytest -s` prints one line of figures per step and a
summary at the end.

Figures are from a 2-core machine that may be running other work: the attack generator, the
publisher's encoder, the viewer's decoder and both servers (debug builds) share those cores.
The freeze bound (MAX_FREEZE_MS) is therefore looser than the product target (no freeze over
300 ms): see the constants below for what was measured and why.

Run: `.venv-interop/bin/pytest Tests/Interop/test_abuse.py -s` (about 1.5 minutes).
"""

from __future__ import annotations

import argparse
import asyncio
import base64
import errno
import http.client
import json
import os
import random
import resource
import selectors
import socket
import sys
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from harness import PYTHON, ManagedProcess, ProcessGroup, start_peer

ROOM = "42"
THIS_FILE = Path(__file__).resolve()

# 1. idle + slowloris connections, per server
HORDE_IDLE = 1000
HORDE_SLOW = 1000
HOLD_SECONDS = 20.0        # at most, after the last connection is up (a round ends once all are closed)
TRICKLE_INTERVAL = 0.5     # one more header byte per slowloris connection this often
HEAD_TIMEOUT = 10.0        # http.request_head_timeout_seconds, the default of both servers
# 1b. silent connections to the ICE-TCP ports
MEDIA_HORDE = 2000
CONNECT_TIMEOUT = 15.0     # limits.connect_timeout_seconds, the relay's default
# 2. 1 MB headers
HEADER_BYTES = 1 << 20
HEADER_ANSWER_SECONDS = 10.0  # longer without an answer or a close = the server hangs the connection
# 3. garbage flood, per server
FLOOD_SECONDS = 10.0
FLOOD_CONNECTIONS = 8
FLOOD_DEPTH = 32
# 4. the WebSocket client that never reads
POSTERS = 4
MESSAGE_CHARS = 480        # under limits.max_message_chars (500, counted in Unicode scalars) ...
MESSAGE_CHAR = "\U0001F600"  # ... of 4 UTF-8 bytes each: ~2 kB per message frame
WS_DROP_SECONDS = 30.0
NEVER_READER_RCVBUF = 16 * 1024

# Judging. The viewer must keep decoding through every attack: at least MIN_FPS and no gap
# between decoded frames over MAX_FREEZE_MS. The product target is FREEZE_TARGET_MS (printed
# for every step: "within"/"OVER" the target). On the 2-core machine these tests were written
# on (load average 4-7 from other work) the generator takes most of a core and the server
# under attack (a debug build, ~140 us of CPU per request) most of the other, so the aiortc
# publisher and viewer are starved now and then: quiet gaps were 60-130 ms, gaps during
# attacks 45-430 ms (705 ms once, under heavier load), always at ~30 fps. The assertion is the
# bound a viewer would call a stall (1 s), not the target.
MIN_FPS = 20.0
FREEZE_TARGET_MS = 300.0
MAX_FREEZE_MS = 1000.0
HEALTHZ_MAX_SECONDS = 5.0  # /healthz during any attack
# RSS (kB) above the quiet baseline, at the peak of any attack and at the end. Measured: a horde
# of 2,000 connections costs each server ~16 kB per connection (+32-35 MB), which glibc keeps
# afterwards (RSS does not fall back) and reuses for the next horde (4 rounds in a row: relay
# 121-126 MB, chat 70-71 MB); the flood and the never-reading client add under 10 MB.
RSS_PEAK_GROWTH_KB = 96 * 1024
RSS_END_GROWTH_KB = 64 * 1024
RSS_REPEAT_GROWTH_KB = 12 * 1024   # second horde's peak over the first's


# -- the scene ------------------------------------------------------------------------------

class RssSampler(threading.Thread):
    """VmRSS (kB) of the given processes every `interval` seconds, with wall times."""

    def __init__(self, pids: dict[str, int], interval: float = 0.2):
        super().__init__(daemon=True)
        self.pids, self.interval = pids, interval
        self.samples: list[tuple[float, dict[str, int | None]]] = []
        self._halt = threading.Event()
        self._lock = threading.Lock()

    @staticmethod
    def rss_kb(pid: int) -> int | None:
        try:
            with open(f"/proc/{pid}/status") as status:
                for line in status:
                    if line.startswith("VmRSS:"):
                        return int(line.split()[1])
        except OSError:
            return None
        return None

    def run(self) -> None:
        while not self._halt.is_set():
            sample = (time.time(), {name: self.rss_kb(pid) for name, pid in self.pids.items()})
            with self._lock:
                self.samples.append(sample)
            self._halt.wait(self.interval)

    def stop(self) -> None:
        self._halt.set()
        self.join(2)

    def window(self, name: str, t0: float, t1: float) -> list[int]:
        with self._lock:
            return [s[name] for t, s in self.samples if t0 <= t <= t1 and s.get(name) is not None]

    def now(self, name: str) -> int:
        value = self.rss_kb(self.pids[name])
        assert value is not None, f"{name} is gone"
        return value


@dataclass
class Scene:
    procs: ProcessGroup
    relay: object          # conftest.Relay
    chat: object           # test_chat.Chat
    publisher: ManagedProcess
    viewer: ManagedProcess
    frames_log: Path
    rss: RssSampler
    baseline: dict = field(default_factory=dict)   # viewer fps/freeze and RSS before any attack
    figures: list = field(default_factory=list)    # one line per step, printed at the end

    @property
    def servers(self) -> dict[str, int]:
        return {"relay": self.relay.http_port, "chat": self.chat.port}

    def pid(self, name: str) -> int:
        return (self.relay if name == "relay" else self.chat).process.proc.pid

    def note(self, line: str) -> None:
        self.figures.append(line)
        print(line)


def raise_nofile(needed: int) -> tuple[int, int]:
    """Raises this process's RLIMIT_NOFILE soft limit to `needed` (within the hard limit)."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft != resource.RLIM_INFINITY and soft < needed:
        target = needed if hard == resource.RLIM_INFINITY else min(needed, hard)
        resource.setrlimit(resource.RLIMIT_NOFILE, (target, hard))
    return resource.getrlimit(resource.RLIMIT_NOFILE)


@pytest.fixture(scope="module")
def scene(tmp_path_factory):
    from conftest import TARGET, launch_relay
    if TARGET != "onair":
        pytest.skip(f"abuse tests need our relay and chat (target {TARGET})")
    from test_chat import launch_chat
    # Two hordes of HORDE_IDLE + HORDE_SLOW sockets at once, plus the peers' and pytest's own.
    soft, _ = raise_nofile(2 * (HORDE_IDLE + HORDE_SLOW) + 1024)
    assert soft >= 2 * (HORDE_IDLE + HORDE_SLOW) + 256, f"RLIMIT_NOFILE {soft} is too low for the hordes"
    workdir = tmp_path_factory.mktemp("abuse")
    procs = ProcessGroup(workdir)
    sampler = None
    try:
        relay = launch_relay(TARGET, procs, workdir)
        chat = launch_chat(procs, workdir)
        publisher = start_peer(procs, "publisher", "whip_publisher.py", "--url", relay.whip_url(ROOM),
                               "--token", relay.publish_token, timeout=280)
        publisher.wait_event("connected", timeout=20)
        frames_log = workdir / "viewer-frames.log"
        viewer = start_peer(procs, "viewer", "whep_viewer.py", "--url", relay.whep_url(ROOM),
                            "--offline-wait", 10, "--frames-log", frames_log, timeout=280)
        viewer.wait_event("first_frame", timeout=20)
        sampler = RssSampler({"relay": relay.process.proc.pid, "chat": chat.process.proc.pid})
        sampler.start()
        yield Scene(procs, relay, chat, publisher, viewer, frames_log, sampler)
    finally:
        try:
            if sampler is not None:
                sampler.stop()
        finally:
            procs.stop_all()  # always: the harness's hard timeouts die with this process
        if os.environ.get("ONAIR_INTEROP_LOGS"):
            sys.__stderr__.write("\n" + procs.dump_logs() + "\n")


@pytest.fixture(autouse=True)
def _attach_logs(request, scene):
    """Failure reports carry the scene's logs (conftest.pytest_runtest_makereport)."""
    request.node.onair_processes = scene.procs


# -- judging what the viewer saw ------------------------------------------------------------

def frame_times(log: Path) -> list[float]:
    times = []
    for line in log.read_text().splitlines():
        parts = line.split()
        if parts:
            try:
                times.append(float(parts[0]))
            except ValueError:
                pass
    return times


def viewer_window(scene: Scene, t0: float, t1: float) -> dict:
    """Decoded fps and the longest gap between decoded frames within [t0, t1] (wall time).
    Waits until the viewer's log (flushed once a second) reaches past t1."""
    deadline = time.monotonic() + 5
    times = frame_times(scene.frames_log)
    while (not times or times[-1] < t1) and time.monotonic() < deadline:
        time.sleep(0.25)
        times = frame_times(scene.frames_log)
    inside = [t for t in times if t0 <= t <= t1]
    edges = [t for t in times if t < t0][-1:] + inside + [t for t in times if t > t1][:1]
    gap = max((min(b, t1) - max(a, t0) for a, b in zip(edges, edges[1:])), default=t1 - t0)
    if not edges:
        gap = t1 - t0
    return {"fps": len(inside) / (t1 - t0), "frames": len(inside), "freeze_ms": gap * 1000, "seconds": t1 - t0}


def rss_window(scene: Scene, t0: float, t1: float) -> dict:
    """{server: (RSS when the step started, its peak during the step)} in kB."""
    result = {}
    for name in scene.servers:
        before = scene.rss.window(name, t0 - 2, t0)
        during = scene.rss.window(name, t0, t1)
        start = before[-1] if before else (during[0] if during else scene.rss.now(name))
        result[name] = (start, max(during + [start]))
    return result


def judge(scene: Scene, step: str, t0: float, t1: float, extra: str = "") -> dict:
    """Prints and checks what the viewer and the servers went through during [t0, t1]."""
    seen = viewer_window(scene, t0, t1)
    peaks = rss_window(scene, t0, t1)
    base = scene.baseline
    target = "within" if seen["freeze_ms"] <= FREEZE_TARGET_MS else "OVER"
    scene.note(f"[{step}] viewer {seen['fps']:.1f} fps, longest gap {seen['freeze_ms']:.0f} ms ({target} the "
               f"{FREEZE_TARGET_MS:.0f} ms target) over "
               f"{seen['seconds']:.1f} s (quiet: {base['fps']:.1f} fps, {base['freeze_ms']:.0f} ms); RSS "
               + ", ".join(f"{n} {start / 1024:.0f} -> peak {peak / 1024:.0f} MB" for n, (start, peak) in peaks.items())
               + (f"; {extra}" if extra else ""))
    for name, process in (("relay", scene.relay.process), ("chat", scene.chat.process),
                          ("publisher", scene.publisher), ("viewer", scene.viewer)):
        assert process.poll() is None, f"{name} died during {step} (exit {process.returncode})"
    assert seen["fps"] >= MIN_FPS, f"{step}: the viewer decoded {seen['fps']:.1f} fps (< {MIN_FPS})"
    assert seen["freeze_ms"] <= MAX_FREEZE_MS, f"{step}: the viewer froze {seen['freeze_ms']:.0f} ms (> {MAX_FREEZE_MS:.0f})"
    for name, (_, peak) in peaks.items():
        growth = peak - base["rss"][name]
        assert growth <= RSS_PEAK_GROWTH_KB, f"{step}: {name} RSS peaked {growth / 1024:.0f} MB above the quiet baseline"
    return {"viewer": seen, "rss": peaks}


def healthz(port: int, path: str = "/healthz", timeout: float = HEALTHZ_MAX_SECONDS) -> tuple[int | None, float]:
    """(status or None, seconds) of one GET on a fresh connection."""
    started = time.monotonic()
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=timeout)
    try:
        connection.request("GET", path)
        response = connection.getresponse()
        response.read()
        return response.status, time.monotonic() - started
    except (OSError, http.client.HTTPException):
        return None, time.monotonic() - started
    finally:
        connection.close()


class HealthProbe(threading.Thread):
    """GET /healthz on each server once a second while an attack runs; keeps the worst."""

    def __init__(self, servers: dict[str, int]):
        super().__init__(daemon=True)
        self.servers = servers
        self.results: dict[str, list[tuple[int | None, float]]] = {name: [] for name in servers}
        self._halt = threading.Event()

    def run(self) -> None:
        while not self._halt.is_set():
            for name, port in self.servers.items():
                self.results[name].append(healthz(port))
            self._halt.wait(1.0)

    def finish(self) -> dict[str, tuple[int, float]]:
        """{server: (failed probes, slowest seconds)}."""
        self._halt.set()
        self.join(HEALTHZ_MAX_SECONDS * 2 + 2)
        return {name: (sum(1 for status, _ in results if status != 200), max((s for _, s in results), default=0.0))
                for name, results in self.results.items()}


def check_health(step: str, worst: dict[str, tuple[int, float]]) -> str:
    for name, (failed, slowest) in worst.items():
        assert failed == 0, f"{step}: {failed} /healthz probes to the {name} failed (slowest {slowest:.2f} s)"
    return "healthz slowest " + ", ".join(f"{name} {slowest * 1000:.0f} ms" for name, (_, slowest) in worst.items())


# -- 0. the quiet baseline ----------------------------------------------------------------------

def test_quiet_baseline(scene):
    """Not an attack: what the viewer and the servers look like before any (the yardstick)."""
    time.sleep(1.0)  # past the viewer's start
    t0 = time.time()
    time.sleep(5.0)
    t1 = time.time()
    seen = viewer_window(scene, t0, t1)
    scene.baseline = {**seen, "rss": {name: scene.rss.now(name) for name in scene.servers}}
    scene.note(f"[quiet] viewer {seen['fps']:.1f} fps, longest gap {seen['freeze_ms']:.0f} ms over {seen['seconds']:.1f} s; "
               f"RSS relay {scene.baseline['rss']['relay'] / 1024:.0f} MB, chat {scene.baseline['rss']['chat'] / 1024:.0f} MB")
    assert seen["fps"] >= MIN_FPS, f"the viewer decodes only {seen['fps']:.1f} fps with nothing going on"


def ensure_baseline(scene: Scene) -> None:
    if not scene.baseline:  # a step run on its own (-k)
        test_quiet_baseline(scene)


# -- 1. idle and slowloris connections ------------------------------------------------------

class Horde:
    """`idle` silent and `slow` slowloris TCP connections to one port. Slowloris connections
    send a request head that never ends, one byte per trickle(). poll() notes which ones the
    server closed (EOF or reset) or answered (e.g. 408), and when."""

    SLOW_HEAD = b"GET /abuse/slowloris HTTP/1.1\r\nHost: 127.0.0.1\r\nUser-Agent: slowloris\r\nX-Slowloris: "

    def __init__(self, port: int, idle: int, slow: int):
        self.port, self.idle, self.slow = port, idle, slow
        self.selector = selectors.DefaultSelector()
        self.open: dict[socket.socket, tuple[str, float]] = {}  # socket -> ("idle" | "slow", connected at)
        self.closed: dict[str, list[float]] = {"idle": [], "slow": []}  # seconds after it connected
        self.answered: dict[str, list[bytes]] = {"idle": [], "slow": []}
        self.failed_connects = 0
        self.established = 0

    def connect_all(self, timeout: float = 30.0) -> None:
        """Connects in batches paced by the server's accept queue: a connection that overflows
        it may be accepted many seconds after our connect returned (SYN-ACK retransmits), or
        never, and an idle one would never find out: the server's clock would not be ours."""
        kinds = ["idle"] * self.idle + ["slow"] * self.slow
        connecting = selectors.DefaultSelector()
        deadline = time.monotonic() + timeout
        pending: dict[socket.socket, str] = {}
        index = 0
        while (index < len(kinds) or pending) and time.monotonic() < deadline:
            if not pending:
                while accept_queue(self.port) > 32 and time.monotonic() < deadline:
                    time.sleep(0.01)
            while index < len(kinds) and len(pending) < 100:  # the servers' accept backlog is 256
                sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
                sock.setblocking(False)
                code = sock.connect_ex(("127.0.0.1", self.port))
                if code not in (0, errno.EINPROGRESS):
                    sock.close()
                    self.failed_connects += 1
                else:
                    pending[sock] = kinds[index]
                    connecting.register(sock, selectors.EVENT_WRITE)
                index += 1
            for key, _ in connecting.select(timeout=0.2):
                sock = key.fileobj
                connecting.unregister(sock)
                kind = pending.pop(sock)
                if sock.getsockopt(socket.SOL_SOCKET, socket.SO_ERROR) != 0:
                    sock.close()
                    self.failed_connects += 1
                    continue
                self.open[sock] = (kind, time.monotonic())
                self.established += 1
                self.selector.register(sock, selectors.EVENT_READ)
                if kind == "slow":
                    sock.send(self.SLOW_HEAD)
        for sock in pending:
            sock.close()
            self.failed_connects += 1
        connecting.close()

    def trickle(self) -> None:
        for sock, (kind, _) in list(self.open.items()):
            if kind == "slow":
                try:
                    sock.send(b"a")
                except OSError:
                    self._gone(sock, b"")

    def poll(self) -> None:
        for key, _ in self.selector.select(timeout=0):
            sock = key.fileobj
            try:
                data = sock.recv(4096, socket.MSG_PEEK | socket.MSG_DONTWAIT)
            except BlockingIOError:
                continue
            except OSError:
                data = b""
            self._gone(sock, data)

    def _gone(self, sock: socket.socket, data: bytes) -> None:
        kind, connected = self.open.pop(sock, (None, 0.0))
        if kind is None:
            return
        self.selector.unregister(sock)
        (self.answered[kind] if data else self.closed[kind]).append(
            data[:40] if data else time.monotonic() - connected)
        sock.close()

    def still_open(self, kind: str) -> int:
        return sum(1 for k, _ in self.open.values() if k == kind)

    def held_states(self) -> dict[str, int]:
        """The connections still open, by the state of the server's end (/proc/net/tcp)."""
        states: dict[str, int] = {}
        for sock in self.open:
            state = server_side_state(self.port, sock.getsockname()[1]) or "gone"
            states[state] = states.get(state, 0) + 1
        return states

    def close_all(self) -> None:
        for sock in list(self.open):
            self.selector.unregister(sock)
            sock.close()
        self.open.clear()
        self.selector.close()

    def summary(self) -> str:
        def closed(kind):
            times = self.closed[kind]
            return f"{len(times)} closed" + (f" after {min(times):.1f}-{max(times):.1f} s" if times else "")
        answers = {bytes(a.split(b"\r\n")[0]) for kind in self.answered for a in self.answered[kind]}
        return (f"idle {self.still_open('idle')}/{self.idle} open, {closed('idle')}; "
                f"slowloris {self.still_open('slow')}/{self.slow} open, {closed('slow')}"
                + (f"; answered {sorted(answers)}" if answers else "")
                + (f"; {self.failed_connects} connects failed" if self.failed_connects else ""))


def horde_round(scene: Scene, round_name: str) -> dict:
    """One round: both hordes up, held (slowloris trickling) until the servers closed them all
    or HOLD_SECONDS passed; judged like every attack. Returns the hordes and the judgement."""
    hordes = {name: Horde(port, HORDE_IDLE, HORDE_SLOW) for name, port in scene.servers.items()}
    t0 = time.time()
    try:
        for horde in hordes.values():
            horde.connect_all()
        probe = HealthProbe(scene.servers)
        probe.start()
        end = time.monotonic() + HOLD_SECONDS
        while time.monotonic() < end and any(horde.open for horde in hordes.values()):
            for horde in hordes.values():
                horde.trickle()
                horde.poll()
            time.sleep(TRICKLE_INTERVAL)
        for horde in hordes.values():
            horde.poll()
        health = check_health(round_name, probe.finish())
        t1 = time.time()
        summary = "; ".join(f"{name}: {h.summary()}" for name, h in hordes.items())
        held = {name: h.held_states() for name, h in hordes.items()}
    finally:
        for horde in hordes.values():
            horde.close_all()
    judged = judge(scene, round_name, t0, t1, f"{summary}; {health}")
    for name, horde in hordes.items():
        assert horde.established >= 0.95 * (HORDE_IDLE + HORDE_SLOW), \
            f"only {horde.established} connections to the {name} were established ({horde.failed_connects} failed)"
        for answers in horde.answered.values():
            for answer in answers:
                assert answer.startswith(b"HTTP/1.1 4"), f"{name} answered a slowloris/idle connection with {answer!r}"
        # http.request_head_timeout_seconds (default 10 s) closes every one of them. The clock
        # starts when the server accepts a connection; a connection can wait in the listen
        # queue before that, so the times seen here (from our connect) run a little longer.
        assert not held[name], f"the {name} still holds connections that never sent a whole request head " \
                               f"{HOLD_SECONDS:.0f} s after the last one connected (no request head timeout?): " \
                               f"{held[name]} (the server's end of each, by state)"
        early = [t for times in horde.closed.values() for t in times if t < HEAD_TIMEOUT - 0.5]
        assert not early, f"the {name} closed {len(early)} of them before its {HEAD_TIMEOUT:.0f} s request head timeout"
    return judged


def test_idle_and_slowloris_connections(scene):
    ensure_baseline(scene)
    first = horde_round(scene, "idle/slowloris 1")
    second = horde_round(scene, "idle/slowloris 2")
    # A second horde reuses what the first made the servers allocate: no growth per connection.
    for name in scene.servers:
        growth = second["rss"][name][1] - first["rss"][name][1]
        assert growth <= RSS_REPEAT_GROWTH_KB, \
            f"{name} RSS peaked {growth / 1024:.0f} MB higher in the second horde than in the first (a leak per connection?)"


# -- 1b. silent connections to the ICE-TCP ports ------------------------------------------------

def relay_metrics(scene: Scene) -> dict[str, float]:
    connection = http.client.HTTPConnection("127.0.0.1", scene.relay.http_port, timeout=5)
    try:
        connection.request("GET", "/metrics")
        text = connection.getresponse().read().decode()
    finally:
        connection.close()
    return {line.rsplit(" ", 1)[0]: float(line.rsplit(" ", 1)[1]) for line in text.splitlines()
            if line and not line.startswith("#")}


def test_media_tcp_horde(scene):
    ensure_baseline(scene)
    before = relay_metrics(scene)
    workers = sum(1 for name in before if name.startswith("onair_worker_sessions{"))
    assert workers >= 1, "the relay's /metrics lists no media worker"
    # Worker i's ICE-TCP port is ONAIR_UDP_PORT + i (media.tcp_port defaults to the UDP ports).
    ports = [scene.relay.udp_port + i for i in range(workers)]
    hordes = {f"media TCP {port}": Horde(port, MEDIA_HORDE // workers, 0) for port in ports}
    t0 = time.time()
    try:
        for horde in hordes.values():
            horde.connect_all()
        end = time.monotonic() + CONNECT_TIMEOUT + 5
        while time.monotonic() < end and any(horde.open for horde in hordes.values()):
            for horde in hordes.values():
                horde.poll()
            time.sleep(0.5)
        for horde in hordes.values():
            horde.poll()
        t1 = time.time()
        held = {name: horde.held_states() for name, horde in hordes.items()}
        summary = "; ".join(f"{name}: {horde.summary()}" for name, horde in hordes.items())
    finally:
        for horde in hordes.values():
            horde.close_all()
    after = relay_metrics(scene)
    timed_out = (after.get('onair_tcp_connections_unauthenticated_total{cause="timeout"}', 0)
                 - before.get('onair_tcp_connections_unauthenticated_total{cause="timeout"}', 0))
    judge(scene, "ICE-TCP horde", t0, t1, f"{summary}; {timed_out:.0f} closed at the connect timeout by the relay's count")
    established = sum(horde.established for horde in hordes.values())
    assert established >= 0.95 * MEDIA_HORDE, f"only {established} of {MEDIA_HORDE} connections to the ICE-TCP ports " \
        f"were established: {summary}"
    for name, horde in hordes.items():
        assert not any(horde.answered.values()), f"{name} sent bytes to a connection that sent none: {horde.answered}"
        assert not held[name], f"{name} still holds connections that never authenticated {CONNECT_TIMEOUT + 5:.0f} s " \
                               f"after the last one connected: {held[name]}"
        early = [t for t in horde.closed["idle"] if t < CONNECT_TIMEOUT - 0.5]
        assert not early, f"{name} closed {len(early)} of them before its {CONNECT_TIMEOUT:.0f} s connect timeout"
    assert timed_out >= established, f"the relay counts {timed_out:.0f} connections closed at the connect timeout, " \
                                     f"{established} were made"


# -- 2. a 1 MB header -----------------------------------------------------------------------

def megabyte_header(port: int, path: str, shape: str, extra: bytes = b"") -> dict:
    """Sends a request whose head is HEADER_BYTES long; returns what came back: the status
    line, or a close, within HEADER_ANSWER_SECONDS (else `hang`)."""
    if shape == "one field":
        fields = b"X-Big: " + b"a" * HEADER_BYTES + b"\r\n"
    else:  # many fields of 64 bytes
        fields = b"".join(b"X-F%05d: %s\r\n" % (i, b"b" * 52) for i in range(HEADER_BYTES // 64))
    request = b"GET " + path.encode() + b" HTTP/1.1\r\nHost: 127.0.0.1\r\n" + extra + fields + b"\r\n"
    started = time.monotonic()
    sock = socket.create_connection(("127.0.0.1", port), timeout=HEADER_ANSWER_SECONDS)
    sent, send_error = 0, None
    try:
        try:
            view = memoryview(request)
            while sent < len(request):
                sent += sock.send(view[sent:sent + 65536])
        except OSError as error:
            send_error = type(error).__name__
        data, outcome = b"", None
        sock.settimeout(max(0.1, started + HEADER_ANSWER_SECONDS - time.monotonic()))
        try:
            while b"\r\n" not in data:
                chunk = sock.recv(4096)
                if not chunk:
                    outcome = "closed"
                    break
                data += chunk
        except socket.timeout:
            outcome = "hang"
        except OSError as error:
            outcome = f"closed ({type(error).__name__})"
        status = None
        if data.startswith(b"HTTP/1.1 "):
            status = int(data[9:12])
            outcome = data.split(b"\r\n")[0].decode(errors="replace")
        return {"status": status, "outcome": outcome or "?", "seconds": time.monotonic() - started,
                "sent": sent, "send_error": send_error}
    finally:
        sock.close()


UPGRADE = (b"Upgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Version: 13\r\n"
           b"Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n")


def test_megabyte_header(scene):
    ensure_baseline(scene)
    targets = [("relay", "/abuse/big-header", b""), ("relay", f"/whep/{ROOM}", b""),
               ("chat", "/abuse/big-header", b""), ("chat", f"/rooms/{ROOM}/ws", UPGRADE)]
    t0 = time.time()
    results = []
    for name, path, extra in targets:
        for shape in ("one field", "16k fields"):
            result = megabyte_header(scene.servers[name], path, shape, extra)
            results.append((name, path, shape, result))
    health = {name: healthz(port) for name, port in scene.servers.items()}
    t1 = time.time()
    lines = [f"{name} {path} ({shape}): {r['outcome']} in {r['seconds'] * 1000:.0f} ms after sending "
             f"{r['sent'] // 1024} kB" + (f" ({r['send_error']})" if r["send_error"] else "") for name, path, shape, r in results]
    judge(scene, "1 MB header", t0, max(t1, t0 + 1), "; ".join(lines))
    bad = [line for line, (_, _, _, r) in zip(lines, results)
           if not (r["status"] in (400, 431) or (r["status"] is None and r["outcome"].startswith("closed")))]
    assert not bad, "a 1 MB header got neither a 4xx nor a close:\n  " + "\n  ".join(bad)
    for name, (status, seconds) in health.items():
        assert status == 200, f"the {name} does not answer /healthz after the 1 MB headers ({status}, {seconds:.1f} s)"


# -- 3. the garbage flood -------------------------------------------------------------------

ROUTES = {"api", "metrics", "healthz", "rooms", "whip", "whep", "hls", "hooks", "openapi.yaml", "openapi.json"}
METHODS = ["GET", "GET", "GET", "POST", "POST", "PUT", "DELETE", "PATCH", "HEAD", "PROPFIND", "PURGE", "TRACE"]
PATH_CHARS = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-._~!$&'()*+,;=:@"


def garbage_request(rng: random.Random) -> tuple[str, bytes]:
    """(method, bytes) of one request for a path no route of either server matches (some under
    /hls/, for rooms that do not exist)."""
    method = rng.choice(METHODS)
    first = "".join(rng.choices("abcdefghijklmnopqrstuvwxyz0123456789", k=rng.randint(1, 12)))
    if first in ROUTES or rng.random() < 0.1:
        first = "zz" + first
    segments = [first]
    for _ in range(rng.randint(0, 5)):
        segments.append(rng.choice(["".join(rng.choices(PATH_CHARS, k=rng.randint(1, 30))),
                                    "..", "%2e%2e", "%00", "%ff%fe", "", "hls", "42", "x" * rng.randint(100, 1500)]))
    path = "/" + "/".join(segments)
    if rng.random() < 0.15:  # the relay answers /hls/ GETs ahead of its router (HLSFastPathHandler)
        path = "/hls/zz" + path
    if rng.random() < 0.2:
        path += "?" + "".join(rng.choices(PATH_CHARS + "?/", k=rng.randint(0, 60)))
    head = f"{method} {path} HTTP/1.1\r\nHost: 127.0.0.1\r\n"
    body = b""
    if method in ("POST", "PUT", "PATCH"):
        body = bytes(rng.choices(b"abc{}[]\":,0123456789 \r\n", k=rng.randint(0, 300)))
        head += f"Content-Type: {rng.choice(['application/sdp', 'application/json', 'text/plain'])}\r\n"
        head += f"Content-Length: {len(body)}\r\n"
    return method, head.encode() + b"\r\n" + body


class ResponseReader:
    """Splits a stream of HTTP/1.1 responses (Content-Length, chunked, or no body for HEAD,
    1xx, 204 and 304)."""

    def __init__(self):
        self.buffer = bytearray()

    def next(self, method: str) -> tuple[int, bool] | None:
        """(status, connection: close) of the next complete response, or None for more bytes."""
        end_of_head = self.buffer.find(b"\r\n\r\n")
        if end_of_head < 0:
            return None
        lines = bytes(self.buffer[:end_of_head]).decode("latin-1").split("\r\n")
        status = int(lines[0].split(" ", 2)[1])
        length, chunked, close = 0, False, False
        for line in lines[1:]:
            name, _, value = line.partition(":")
            name, value = name.strip().lower(), value.strip().lower()
            if name == "content-length":
                length = int(value)
            elif name == "transfer-encoding":
                chunked = "chunked" in value
            elif name == "connection":
                close = value == "close"
        end = end_of_head + 4
        if method == "HEAD" or status in (204, 304) or status < 200:
            pass
        elif chunked:
            while True:
                line_end = self.buffer.find(b"\r\n", end)
                if line_end < 0:
                    return None
                size = int(bytes(self.buffer[end:line_end]).split(b";")[0], 16)
                if size == 0:
                    trailer_end = self.buffer.find(b"\r\n\r\n", line_end)
                    if trailer_end < 0:
                        return None
                    end = trailer_end + 4
                    break
                end = line_end + 2 + size + 2
                if end > len(self.buffer):
                    return None
        else:
            end += length
            if len(self.buffer) < end:
                return None
        del self.buffer[:end]
        return status, close


async def flood_connection(port: int, deadline: float, depth: int, rng: random.Random, stats: dict) -> None:
    while time.monotonic() < deadline:
        try:
            reader, writer = await asyncio.wait_for(asyncio.open_connection("127.0.0.1", port), 5)
        except (OSError, asyncio.TimeoutError) as error:
            stats["connect_errors"][type(error).__name__] = stats["connect_errors"].get(type(error).__name__, 0) + 1
            await asyncio.sleep(0.05)
            continue
        stats["connections"] += 1
        responses = ResponseReader()
        try:
            while time.monotonic() < deadline:
                batch = [garbage_request(rng) for _ in range(depth)]
                writer.write(b"".join(request for _, request in batch))
                stats["sent"] += depth
                for index, (method, request) in enumerate(batch):
                    while (answer := responses.next(method)) is None:
                        data = await asyncio.wait_for(reader.read(1 << 16), 10)
                        if not data:
                            stats["unanswered"] += depth - index
                            raise ConnectionResetError("closed by the server")
                        responses.buffer += data
                    status, close = answer
                    stats["statuses"][str(status)] = stats["statuses"].get(str(status), 0) + 1
                    if status >= 500 or status < 400:
                        stats["examples"].setdefault(str(status), request[:200].decode("latin-1"))
                    if close:
                        stats["unanswered"] += depth - index - 1
                        raise ConnectionResetError("answered with Connection: close")
        except (OSError, asyncio.TimeoutError) as error:
            kind = f"{type(error).__name__}: {error}" if isinstance(error, ConnectionResetError) else type(error).__name__
            stats["errors"][kind] = stats["errors"].get(kind, 0) + 1
        finally:
            writer.close()


async def flood(port: int, seconds: float, connections: int, depth: int, seed: int) -> dict:
    rng = random.Random(seed)
    stats = {"sent": 0, "connections": 0, "unanswered": 0, "statuses": {}, "errors": {}, "connect_errors": {},
             "examples": {}}
    started = time.monotonic()
    await asyncio.gather(*(flood_connection(port, started + seconds, depth, random.Random(rng.random()), stats)
                           for _ in range(connections)))
    elapsed = time.monotonic() - started
    answered = sum(stats["statuses"].values())
    return {"event": "flood", "seconds": round(elapsed, 2), "answered": answered, "rate": round(answered / elapsed), **stats}


def run_flood(scene: Scene, name: str, seed: int) -> dict:
    process = scene.procs.start(f"flood-{name}", [PYTHON, "-u", str(THIS_FILE), "flood", "--port", str(scene.servers[name]),
                                                  "--seconds", str(FLOOD_SECONDS), "--connections", str(FLOOD_CONNECTIONS),
                                                  "--depth", str(FLOOD_DEPTH), "--seed", str(seed)],
                                timeout=FLOOD_SECONDS + 60, cwd=str(THIS_FILE.parent))
    result = process.wait_event("flood", timeout=FLOOD_SECONDS + 40)
    process.wait(5)
    return result


@pytest.mark.parametrize("target", ["relay", "chat"])
def test_garbage_flood(scene, target):
    ensure_baseline(scene)
    probe = HealthProbe(scene.servers)
    t0 = time.time()
    probe.start()
    cpu_before = process_cpu_seconds(scene.pid(target))
    result = run_flood(scene, target, seed=14 if target == "relay" else 15)
    cpu = process_cpu_seconds(scene.pid(target)) - cpu_before
    health = check_health(f"flood {target}", probe.finish())
    t1 = time.time()
    statuses = ", ".join(f"{k}: {v}" for k, v in sorted(result["statuses"].items()))
    judge(scene, f"flood {target}", t0, t1,
          f"{result['answered']} answers in {result['seconds']} s = {result['rate']} req/s ({statuses}) over "
          f"{result['connections']} connections, {result['unanswered']} unanswered after a close; {target} CPU "
          f"{cpu:.1f} s = {cpu * 1e6 / max(1, result['answered']):.0f} us/request; {health}")
    not_4xx = {status: count for status, count in result["statuses"].items() if not status.startswith("4")}
    assert not not_4xx, f"{target} answered garbage with {not_4xx}; e.g. {result['examples']}"
    assert result["answered"] > 0, result
    assert not result["connect_errors"], f"connections to the {target} failed: {result['connect_errors']}"
    # A pipelined request left unanswered for 10 s (TimeoutError) is a hung connection; the
    # servers have no reason to close one (no request asked for it).
    assert not result["errors"], f"{target}: {result['errors']} ({result['unanswered']} requests never answered)"


def process_cpu_seconds(pid: int) -> float:
    with open(f"/proc/{pid}/stat") as stat:
        fields = stat.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


# -- 4. the WebSocket client that never reads -----------------------------------------------

def open_never_reader(port: int, name: str) -> socket.socket:
    """A WebSocket client on a raw socket with a small receive buffer: completes the
    handshake (RFC 6455 §4), sends a join frame, and is never read from again."""
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, NEVER_READER_RCVBUF)
    sock.settimeout(5)
    sock.connect(("127.0.0.1", port))
    key = base64.b64encode(os.urandom(16))
    sock.sendall(b"GET /rooms/" + ROOM.encode() + b"/ws HTTP/1.1\r\nHost: 127.0.0.1\r\nUpgrade: websocket\r\n"
                 b"Connection: Upgrade\r\nSec-WebSocket-Version: 13\r\nSec-WebSocket-Key: " + key + b"\r\n\r\n")
    head = b""
    while b"\r\n\r\n" not in head:
        chunk = sock.recv(1)  # byte by byte: nothing after the handshake is read
        assert chunk, "the chat closed the never-reading client during the handshake"
        head += chunk
    assert head.startswith(b"HTTP/1.1 101"), head
    payload = json.dumps({"type": "join", "name": name}).encode()
    mask = os.urandom(4)
    masked = bytes(b ^ mask[i % 4] for i, b in enumerate(payload))
    sock.sendall(bytes([0x81, 0x80 | len(payload)]) + mask + masked)  # FIN + text, masked, < 126 bytes
    return sock


TCP_STATES = {1: "ESTABLISHED", 2: "SYN_SENT", 3: "SYN_RECV", 4: "FIN_WAIT1", 5: "FIN_WAIT2", 6: "TIME_WAIT",
              7: "CLOSE", 8: "CLOSE_WAIT", 9: "LAST_ACK", 11: "CLOSING"}


def accept_queue(port: int) -> int:
    """Connections waiting in the accept queue of the listener on 127.0.0.1:port (/proc/net/tcp:
    a listening socket's rx_queue)."""
    local = f"0100007F:{port:04X}"
    with open("/proc/net/tcp") as table:
        for line in table.readlines()[1:]:
            fields = line.split()
            if fields[1] == local and fields[3] == "0A":
                return int(fields[4].split(":")[1], 16)
    return 0


def server_side_state(server_port: int, client_port: int) -> str | None:
    """The kernel's state of the server's end of 127.0.0.1:client_port <-> 127.0.0.1:server_port
    (/proc/net/tcp): ESTABLISHED while the server keeps it; FIN_WAIT1 once the server closed it
    with data still unsent (a client that does not read cannot take the FIN); None when gone."""
    wanted = (f"0100007F:{server_port:04X}", f"0100007F:{client_port:04X}")
    with open("/proc/net/tcp") as table:
        for line in table.readlines()[1:]:
            fields = line.split()
            if (fields[1], fields[2]) == wanted:
                state = int(fields[3], 16)
                return TCP_STATES.get(state, str(state))
    return None


def room_presence(port: int) -> int:
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=5)
    try:
        connection.request("GET", f"/rooms/{ROOM}")
        response = connection.getresponse()
        body = response.read()
        assert response.status == 200, (response.status, body[:200])
        return json.loads(body)["presence"]
    finally:
        connection.close()


async def never_reader_scenario(scene: Scene) -> dict:
    import websockets
    port = scene.chat.port
    posters = []
    for i in range(POSTERS):
        ws = await websockets.connect(scene.chat.ws_url(ROOM), open_timeout=5, max_queue=None)
        await ws.send(json.dumps({"type": "join", "name": f"poster{i}"}))
        posters.append(ws)
    loop = asyncio.get_running_loop()
    sloth = await loop.run_in_executor(None, open_never_reader, port, "sloth")
    deadline = time.monotonic() + 5
    while (present := await loop.run_in_executor(None, room_presence, port)) < POSTERS + 1:
        assert time.monotonic() < deadline, f"presence {present}: the clients did not all join"
        await asyncio.sleep(0.1)
    sent = {"messages": 0, "acks": 0, "errors": {}, "fanned_out": 0}
    text = MESSAGE_CHAR * MESSAGE_CHARS
    stop = asyncio.Event()

    async def post(ws, index):
        n = 0
        while not stop.is_set():
            await ws.send(json.dumps({"type": "send", "text": f"{index}:{n}:{text}"[:MESSAGE_CHARS]}, ensure_ascii=False))
            n += 1
            sent["messages"] += 1
            await asyncio.sleep(0.005)  # ~200 messages/s per poster: the chat's rate limit in this test

    async def drain(ws, counts_fan_out):
        try:
            async for raw in ws:
                frame = json.loads(raw)
                if frame.get("type") == "ack":
                    sent["acks"] += 1
                elif frame.get("type") == "error":
                    code = frame.get("code")
                    sent["errors"][code] = sent["errors"].get(code, 0) + 1
                elif frame.get("type") == "message" and counts_fan_out:
                    # The same frame went to every member, the never-reader too (+ its 4-byte header).
                    sent["fanned_out"] += len(raw.encode() if isinstance(raw, str) else raw) + 4
        except websockets.ConnectionClosed:
            pass

    readers = [asyncio.ensure_future(drain(ws, i == 0)) for i, ws in enumerate(posters)]
    writers = [asyncio.ensure_future(post(ws, i)) for i, ws in enumerate(posters)]
    sloth_port = sloth.getsockname()[1]
    assert server_side_state(port, sloth_port) == "ESTABLISHED", "cannot see the chat's end of the never-reader"
    started = time.monotonic()
    dropped_after = left_after = None
    acks_at_drop = fanned_out_at_drop = None
    closed_state = None
    rss_peak = 0
    try:
        # The moment the chat closes its end, from the kernel (the client cannot see it: it
        # does not read, so the FIN waits behind the data it was sent).
        while time.monotonic() - started < WS_DROP_SECONDS:
            await asyncio.sleep(0.05)
            rss_peak = max(rss_peak, scene.rss.now("chat"))
            state = server_side_state(port, sloth_port)
            if state != "ESTABLISHED":
                dropped_after = time.monotonic() - started
                acks_at_drop, fanned_out_at_drop, closed_state = sent["acks"], sent["fanned_out"], state
                break
        # ... and the room forgot it (presence), while the others carry on posting.
        while dropped_after is not None and time.monotonic() - started < dropped_after + 10:
            if await loop.run_in_executor(None, room_presence, port) <= POSTERS:
                left_after = time.monotonic() - started
                break
            await asyncio.sleep(0.1)
        await asyncio.sleep(0.5)
    finally:
        stop.set()
        for task in writers:
            task.cancel()
        await asyncio.gather(*writers, return_exceptions=True)
    # What the never-reader was sent and did not read (its socket closes only now).
    unread = 0
    sloth.setblocking(False)
    try:
        while True:
            chunk = sloth.recv(1 << 16)
            if not chunk:
                break
            unread += len(chunk)
    except (BlockingIOError, OSError):
        pass
    sloth.close()
    still_open = 0
    for ws in posters:
        still_open += ws.state == websockets.protocol.State.OPEN
        await ws.close()
    for task in readers:
        task.cancel()
    return {"dropped_after": dropped_after, "left_after": left_after, "closed_state": closed_state,
            "messages": sent["messages"], "acks": sent["acks"],
            "acks_at_drop": acks_at_drop, "fanned_out_at_drop": fanned_out_at_drop, "errors": sent["errors"],
            "posters_open": still_open,
            "unread_kb": unread // 1024, "rss_peak": rss_peak}


def test_never_reading_websocket_is_dropped(scene):
    ensure_baseline(scene)
    t0 = time.time()
    result = asyncio.run(asyncio.wait_for(never_reader_scenario(scene), WS_DROP_SECONDS + 30))
    t1 = time.time()
    at_drop = ("not dropped" if result["dropped_after"] is None else
               f"closed by the chat after {result['dropped_after']:.1f} s (its end {result['closed_state']}), when "
               f"~{result['fanned_out_at_drop'] / 1e6:.1f} MB ({result['acks_at_drop']} messages) had been sent its way; "
               f"presence dropped after {result['left_after'] or float('nan'):.1f} s")
    judge(scene, "never-reading WebSocket", t0, t1,
          f"{at_drop}; {result['messages']} posted by {POSTERS} posters, {result['acks']} acked, errors {result['errors']}; "
          f"{result['unread_kb']} kB were still readable on its socket afterwards (the chat's kernel send buffer "
          f"and our 16 kB receive buffer); chat RSS peak {result['rss_peak'] / 1024:.0f} MB")
    assert result["dropped_after"] is not None, \
        f"the chat kept a client that never reads for {WS_DROP_SECONDS:.0f} s ({result['acks']} messages sent past it)"
    assert result["left_after"] is not None, "the chat closed the never-reading client but its room still counts it"
    assert result["posters_open"] == POSTERS, "the chat dropped clients that do read"


# -- 5. afterwards ----------------------------------------------------------------------------

def test_everything_still_works(scene):
    ensure_baseline(scene)
    for name, process in (("relay", scene.relay.process), ("chat", scene.chat.process)):
        assert process.poll() is None, f"the {name} is gone (exit {process.returncode})"
    for name, port in scene.servers.items():
        status, seconds = healthz(port)
        assert status == 200, f"the {name} does not answer /healthz ({status}, {seconds:.1f} s)"
    # A new viewer gets frames; the first one never stopped.
    viewer = start_peer(scene.procs, "viewer-after", "whep_viewer.py", "--url", scene.relay.whep_url(ROOM),
                        "--duration", 4, timeout=40)
    first = viewer.wait_event("first_frame", timeout=15)
    assert viewer.wait(15) == 0, "the new viewer failed"
    report = viewer.last("report")
    assert report and report["frames"] >= 60, report
    # A new chat client joins and posts.
    import websockets

    async def chat_client():
        async with websockets.connect(scene.chat.ws_url(ROOM), open_timeout=5) as ws:
            await ws.send(json.dumps({"type": "join", "name": "afterwards"}))
            kinds = []
            async def until(kind):
                while True:
                    frame = json.loads(await asyncio.wait_for(ws.recv(), 5))
                    kinds.append(frame.get("type"))
                    if frame.get("type") == kind:
                        return frame
            joined = await until("joined")
            await ws.send(json.dumps({"type": "send", "text": "still here", "ref": "after"}))
            ack = await until("ack")
            while True:
                message = (await until("message"))["message"]
                if message["text"] == "still here":
                    return joined, ack, message
    joined, ack, message = asyncio.run(chat_client())
    assert joined["state"] == "open" and ack["ref"] == "after" and message["name"] == "afterwards", (joined, ack, message)
    # Memory back near where it was.
    time.sleep(1.0)
    rss = {name: scene.rss.now(name) for name in scene.servers}
    t_end = time.time()
    whole = viewer_window(scene, scene.rss.samples[0][0], t_end - 1)
    scene.note(f"[afterwards] new viewer: first frame {first.get('t', 0):.1f} s after start, {report['frames']} frames in 4 s; "
               f"chat join+post ok; RSS relay {scene.baseline['rss']['relay'] / 1024:.0f} -> {rss['relay'] / 1024:.0f} MB, "
               f"chat {scene.baseline['rss']['chat'] / 1024:.0f} -> {rss['chat'] / 1024:.0f} MB; first viewer over the "
               f"whole run {whole['fps']:.1f} fps, longest gap {whole['freeze_ms']:.0f} ms")
    for name in scene.servers:
        growth = rss[name] - scene.baseline["rss"][name]
        assert growth <= RSS_END_GROWTH_KB, f"{name} RSS stays {growth / 1024:.0f} MB above where it started"
    assert scene.viewer.poll() is None and scene.publisher.poll() is None, "the first viewer or the publisher stopped"
    print("\n" + "\n".join(scene.figures))


# -- the flood generator, run as a subprocess ---------------------------------------------

def main() -> int:
    parser = argparse.ArgumentParser(description="garbage HTTP flood (test_abuse.py's generator)")
    sub = parser.add_subparsers(dest="command", required=True)
    flood_args = sub.add_parser("flood")
    flood_args.add_argument("--port", type=int, required=True)
    flood_args.add_argument("--seconds", type=float, default=FLOOD_SECONDS)
    flood_args.add_argument("--connections", type=int, default=FLOOD_CONNECTIONS)
    flood_args.add_argument("--depth", type=int, default=FLOOD_DEPTH)
    flood_args.add_argument("--seed", type=int, default=14)
    args = parser.parse_args()
    result = asyncio.run(flood(args.port, args.seconds, args.connections, args.depth, args.seed))
    print(json.dumps(result), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
