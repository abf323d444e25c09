"""Network-lab cases (tools/netlab): `broadcast` in the publisher's namespace -> our relay in
the relay's namespace -> an aiortc WHEP viewer in a viewer's namespace, with the publisher's
uplink impaired (tbf rate limit, random loss), judged as a viewer sees it: frames decoded per
second, freezes (gaps between decoded frames), glass-to-glass latency from the test pattern's
wall-clock barcode or, for files, from the capture times the RTCP sender reports give (every
namespace shares one clock). One implementation for Tests/Interop/test_lab.py and
tools/bench/lab/lab_bench.py.

Timeline of a case: impair the uplink, start the relay and the broadcast, wait until the room
is live, start the viewer, wait for its first frame, settle, measure (a rate change happens
`change_at` seconds into the measurement), read the relay's GET /api/streams/42, stop the
broadcast with SIGINT (its --stats-json), stop the viewer, judge its per-frame log.
"""

from __future__ import annotations

import json
import math
import os
import re
import signal
import subprocess
import time
import urllib.error
import urllib.request
from dataclasses import dataclass, field
from pathlib import Path

from conftest import launch_relay
from harness import PEERS_DIR, PYTHON, REPO, ManagedProcess, ProcessGroup

ROOM = "42"
FREEZE_MS = 300          # a gap between decoded frames longer than this is a freeze
BITRATE = "2500k"        # --video-bitrate and --max-bitrate of every case
BROADCAST_BIN = Path(os.environ.get("ONAIR_BROADCAST_BIN", str(REPO / ".build" / "debug" / "broadcast")))
MEDIA_CACHE = Path(os.environ.get("ONAIR_LAB_MEDIA", "/tmp/onair-lab-media"))
RELAY_PORTS = (8080, 10000)  # the relay's namespace is empty: fixed ports are free


@dataclass(frozen=True)
class Case:
    name: str
    title: str
    source: str = "noise"              # "noise": a noisy 720p file with --loop (fills the bitrate);
                                       # "pattern": 1280x720 test pattern (~600 kbit/s; barcodes)
    uplink_kbit: float | None = None   # publisher uplink rate limit (tbf) from the start
    uplink_loss: float = 0.0           # publisher uplink random loss, percent
    change_to_kbit: float | None = None  # the uplink rate changes to this ...
    change_at: float = 10.0              # ... this many seconds into the measurement
    judge_after: float = 0.0             # targets apply from this long after the change
    min_fps: float | None = 27.0
    max_freeze_ms: float | None = FREEZE_MS
    max_p50_ms: float | None = None
    needs_resent: bool = False           # broadcast's retransmitted_packets must be > 0
    simulcast: bool = False              # broadcast --simulcast (f, h, q layers)
    # Simulcast: rids on for >= 70 % of the measurement (broadcast's status lines), and rids on
    # for <= 30 % of it (a paused layer is tried again now and then: that is how it learns).
    mostly_on: tuple[str, ...] = ()
    mostly_off: tuple[str, ...] = ()


CASES = {case.name: case for case in [
    Case("clean", "clean links (baseline)", source="pattern"),
    Case("uplink-1mbit", "publisher uplink tbf 1 Mbit/s", uplink_kbit=1000, max_p50_ms=250),
    Case("uplink-loss5", "publisher uplink 5 % random loss", uplink_loss=5, min_fps=28, needs_resent=True),
    Case("uplink-drop", "publisher uplink 2.5 -> 0.8 Mbit/s mid-stream", uplink_kbit=2500,
         change_to_kbit=800, change_at=10, judge_after=5, min_fps=None),
    # The top layer goes first: 1 Mbit/s carries q (150k) + h (600k), not f (>= 600k more).
    # Only the layer states are targets here; switching viewers between layers is the relay's
    # next step (figures printed).
    Case("uplink-1mbit-simulcast", "publisher uplink tbf 1 Mbit/s, broadcast --simulcast", uplink_kbit=1000,
         simulcast=True, mostly_on=("h", "q"), mostly_off=("f",), min_fps=None, max_freeze_ms=None),
]}


# -- judging what the viewer decoded -----------------------------------------------------

def percentile(values: list[float], p: float) -> float | None:
    """Nearest-rank percentile (p in 0..100), None when empty."""
    if not values:
        return None
    ordered = sorted(values)
    return ordered[min(len(ordered), max(1, math.ceil(p / 100 * len(ordered)))) - 1]


Frame = tuple[float, int | None, int | None]  # arrival (wall s), capture ms: barcode, sender report


def judge(frames: list[Frame], start: float, end: float) -> dict:
    """Figures of the frames decoded in [start, end] (wall seconds): fps, the longest gap
    between decoded frames (the window's edges count as frames), freezes over FREEZE_MS,
    glass-to-glass latency p50/p95 = arrival - capture time, from the test pattern's barcode
    when frames carry one, else from the sender's RTCP sender reports (whep_viewer.SenderClock);
    `sr_offset_ms`: median of (SR capture - barcode capture), how far the two clocks agree."""
    inside = [f for f in frames if start <= f[0] <= end]
    edges = [start, *(f[0] for f in inside), end]
    gaps = [(b - a) * 1000 for a, b in zip(edges, edges[1:])]
    barcode = [t * 1000 - c for t, c, _ in inside if c is not None]
    reported = [t * 1000 - r for t, _, r in inside if r is not None]
    latencies, source = (barcode, "barcode") if len(barcode) >= len(inside) / 2 else (reported, "sender report")
    offsets = [r - c for _, c, r in inside if c is not None and r is not None]
    return dict(seconds=round(end - start, 1), frames=len(inside), fps=len(inside) / (end - start),
                longest_freeze_ms=round(max(gaps)), freezes=sum(g > FREEZE_MS for g in gaps),
                latency_from=source if latencies else None, latencies=len(latencies),
                p50_ms=_round(percentile(latencies, 50)), p95_ms=_round(percentile(latencies, 95)),
                sr_offset_ms=_round(percentile(offsets, 50)))


def _round(value: float | None) -> int | None:
    return None if value is None else round(value)


def read_frames_log(path: Path) -> list[Frame]:
    number = lambda text: None if text == "-" else int(text)  # noqa: E731
    frames = []
    if path.is_file():
        for line in path.read_text().splitlines():
            parts = line.split()
            if len(parts) == 3:
                frames.append((float(parts[0]), number(parts[1]), number(parts[2])))
    return frames


@dataclass
class Result:
    case: Case
    window: dict                      # judge() over the whole measurement
    judged: dict                      # judge() over the part the targets apply to
    stats: dict = field(default_factory=dict)        # broadcast --stats-json
    stream: dict | None = None                       # relay GET /api/streams/42 at the end
    layer_share: dict = field(default_factory=dict)  # simulcast: rid -> share of status lines it was on
    sent_kbit: float | None = None                   # broadcast's status lines, mean over the window
    target_kbit: tuple[int, int] | None = None       # its rate controller's target, min and max
    uplink: dict = field(default_factory=dict)       # tbf counters of the uplink over the window
    cpu: dict = field(default_factory=dict)          # % of one core per process over the window

    def problems(self) -> list[str]:
        """The issue's targets this run missed (empty: passed)."""
        c, j, out = self.case, self.judged, []
        span = f" (from {c.judge_after:g} s after the change)" if c.change_to_kbit else ""
        if c.min_fps is not None and j["fps"] < c.min_fps:
            out.append(f"{j['fps']:.1f} fps decoded, target >= {c.min_fps:g}")
        if c.max_freeze_ms is not None and j["longest_freeze_ms"] > c.max_freeze_ms:
            out.append(f"longest freeze {j['longest_freeze_ms']} ms{span}, target <= {c.max_freeze_ms:g} ms "
                       f"({j['freezes']} freezes)")
        if c.max_p50_ms is not None and (j["p50_ms"] is None or j["p50_ms"] > c.max_p50_ms):
            out.append(f"glass-to-glass p50 {j['p50_ms']} ms, target <= {c.max_p50_ms:g} ms")
        if c.needs_resent and not self.stats.get("retransmitted_packets"):
            out.append(f"broadcast resent {self.stats.get('retransmitted_packets')} packets, target > 0")
        for rid in c.mostly_on:
            if self.layer_share.get(rid, 0) < 0.7:
                out.append(f"layer {rid} on {self.layer_share.get(rid, 0):.0%} of the time, target >= 70 %")
        for rid in c.mostly_off:
            if self.layer_share.get(rid, 0) > 0.3:
                out.append(f"layer {rid} on {self.layer_share.get(rid, 0):.0%} of the time, target <= 30 %")
        if c.needs_resent:
            # The resends must be the relay's doing and reach it: NACKs sent, packets repaired (as RTX).
            repair = (self.stream or {}).get("upstream_repair") or {}
            if not repair.get("nacks_sent") or not repair.get("packets_repaired") or not repair.get("rtx_packets"):
                out.append(f"relay upstream repair {repair}: NACKs, repaired packets and RTX packets must all be > 0")
        return out

    def line(self) -> str:
        w, j, s = self.window, self.judged, self.stats
        judged = (f" | from {self.case.judge_after:g} s after the change: {j['fps']:.1f} fps, longest freeze "
                  f"{j['longest_freeze_ms']} ms ({j['freezes']} > {FREEZE_MS} ms)") if self.case.change_to_kbit else ""
        target = f" (target {self.target_kbit[0]}..{self.target_kbit[1]})" if self.target_kbit else ""
        uplink = (f"uplink tbf {self.uplink['kbit_s']} kbit/s, {self.uplink['drops']} drops"
                  if self.uplink.get("kind") == "tbf" else "uplink not limited")
        return (f"{self.case.name}: {w['fps']:.1f} fps, longest freeze {w['longest_freeze_ms']} ms "
                f"({w['freezes']} > {FREEZE_MS} ms), latency p50 {w['p50_ms']} p95 {w['p95_ms']} ms "
                f"({w['latency_from']}), "
                f"resent {s.get('retransmitted_packets')}, keyframes {s.get('keyframes')} "
                f"(requests {s.get('keyframe_requests')}), sent {fmt(self.sent_kbit)} kbit/s{target}, "
                f"{uplink}, cpu % {self.cpu}{judged}{self.layers_text()}")

    def layers_text(self) -> str:
        layers = (self.stream or {}).get("layers") or []
        if len(layers) < 2:
            return ""
        shares = " ".join(f"{rid} {share:.0%}" for rid, share in sorted(self.layer_share.items()))
        return f", layers on ({shares}); at the end " + " ".join(f"{layer['rid']} {layer.get('width')}x{layer.get('height')} "
                                      f"{layer['bitrate_kbps']:g}k{'' if layer['active'] else ' (paused)'}"
                                      f"{' (forwarded)' if layer['forwarded'] else ''}" for layer in layers)


def fmt(value, digits: int = 0) -> str:
    return "-" if value is None else f"{value:.{digits}f}"


# -- helpers -----------------------------------------------------------------------------

def noise_file() -> Path:
    """6 s of 1280x720 at 30 fps with temporal noise and a 440 Hz tone, made once and cached.
    ~4.6 Mbit/s (CRF 30, fastdecode: decoding it costs the broadcaster ~5 % of a core, CRF 18
    would cost 70 %); the noise keeps any re-encode at 2.5 Mbit/s or below at its target."""
    path = MEDIA_CACHE / "noise-1280x720-30-crf30.mp4"
    if not path.is_file():
        MEDIA_CACHE.mkdir(parents=True, exist_ok=True)
        partial = path.with_suffix(f".{os.getpid()}.mp4")
        subprocess.run(["ffmpeg", "-v", "error", "-y", "-f", "lavfi",
                        "-i", "testsrc2=size=1280x720:rate=30,noise=alls=18:allf=t",
                        "-f", "lavfi", "-i", "sine=frequency=440:sample_rate=48000", "-t", "6",
                        "-c:v", "libx264", "-preset", "veryfast", "-crf", "30", "-tune", "fastdecode", "-g", "30",
                        "-pix_fmt", "yuv420p",
                        "-c:a", "aac", str(partial)], check=True, timeout=300)
        partial.rename(path)
    return path


def http_json(url: str) -> dict | None:
    """GET url as JSON (None for 404), never through a proxy from the environment."""
    try:
        with urllib.request.build_opener(urllib.request.ProxyHandler({})).open(url, timeout=3) as response:
            return json.loads(response.read())
    except urllib.error.HTTPError as error:
        if error.code == 404:
            return None
        raise


def cpu_seconds(process: ManagedProcess) -> float | None:
    """utime + stime of the process (ip netns exec execs, so the pid is the program's)."""
    try:
        fields = Path(f"/proc/{process.proc.pid}/stat").read_text().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
    except (OSError, IndexError, ValueError):
        return None


def watch(seconds: float, *processes: ManagedProcess) -> None:
    """Sleeps, failing as soon as one of `processes` exits."""
    deadline = time.monotonic() + seconds
    while (left := deadline - time.monotonic()) > 0:
        for p in processes:
            if p.poll() is not None:
                tail = "\n".join(p.log_text().splitlines()[-20:])
                raise AssertionError(f"{p.name} exited ({p.returncode}) during the case:\n{tail}")
        time.sleep(min(left, 0.2))


STATUS = re.compile(r"([\d.]+) fps\s+(\d+) kbit/s \(target (\d+)\)")


LAYERS = re.compile(r"  layers ([a-z -]+?)  ")


def layer_shares(process: ManagedProcess, start: float, end: float) -> dict[str, float]:
    """Simulcast: for each rid, the share of broadcast's status lines in [start, end] that
    list it as on (`layers f h q`)."""
    seen = [m.group(1).split() for at, text in list(process.lines) if start <= at <= end and (m := LAYERS.search(text))]
    rids = {rid for layers in seen for rid in layers if rid != "-"}
    return {rid: sum(rid in layers for layers in seen) / len(seen) for rid in rids} if seen else {}


def status_rates(process: ManagedProcess, start: float, end: float) -> tuple[float | None, tuple[int, int] | None]:
    """Mean sent kbit/s and the target's range from broadcast's status lines in [start, end]."""
    sent, targets = [], []
    for at, text in list(process.lines):
        m = STATUS.search(text)
        if m and start <= at <= end:
            sent.append(int(m.group(2)))
            targets.append(int(m.group(3)))
    return (sum(sent) / len(sent) if sent else None), ((min(targets), max(targets)) if targets else None)


# -- one case ------------------------------------------------------------------------------

def run_case(case: Case, lab, procs: ProcessGroup, workdir: Path, settle: float = 10, measure: float = 30,
             say=lambda text: None) -> Result:
    """Runs `case` in `lab` (a built netlab.Lab with a viewer "v1"); every process goes to
    `procs` (the caller stops them). Raises AssertionError when the pipeline breaks."""
    if not (BROADCAST_BIN.is_file() and os.access(BROADCAST_BIN, os.X_OK)):
        raise AssertionError(f"broadcast binary not built: {BROADCAST_BIN} (swift build, or set ONAIR_BROADCAST_BIN)")
    if case.change_to_kbit and not 0 < case.change_at < measure:
        raise ValueError(f"{case.name}: the change at {case.change_at} s is outside a {measure} s measurement")
    source = (["--input", str(noise_file()), "--loop"] if case.source == "noise"
              else ["--size", "1280x720", "--fps", "30"])
    lab.clear()
    lab.set_rate("pub", "up", case.uplink_kbit)
    lab.set_loss("pub", "up", case.uplink_loss)

    relay = launch_relay("onair", procs, workdir, ports=RELAY_PORTS, netns=lab.netns("relay"),
                         address=lab.address("relay"))
    stream_url = f"{relay.base_url}/api/streams/{ROOM}"
    config = workdir / "broadcast.yaml"
    config.write_text("log_interval: 1   # a status line a second: sent kbit/s over the window\n")
    stats_path = workdir / "broadcast-stats.json"
    broadcast = procs.start("broadcast", [*lab.prefix("pub"), str(BROADCAST_BIN), "start", "--room", ROOM,
                                          "--relay", relay.base_url, "--config", str(config), *source,
                                          *(["--simulcast"] if case.simulcast else []),
                                          "--video-bitrate", BITRATE, "--max-bitrate", BITRATE,
                                          "--stats-json", str(stats_path)],
                            timeout=settle + measure + 120, cwd=str(workdir),
                            env={**os.environ, "ONAIR_BROADCAST_TOKEN": relay.publish_token})
    deadline = time.monotonic() + 20
    while not ((lab.call("relay", http_json, stream_url) or {}).get("live")):
        watch(0.2, broadcast, relay.process)
        if time.monotonic() > deadline:
            raise AssertionError("the room is not live at the relay 20 s after broadcast started")

    frames_path = workdir / "viewer-frames.log"
    viewer = procs.start("viewer", [*lab.prefix("v1"), PYTHON, "-u", str(PEERS_DIR / "whep_viewer.py"),
                                    "--url", relay.whep_url(ROOM), "--h264-only", "--no-index",
                                    "--frames-log", str(frames_path)],
                         timeout=settle + measure + 120, cwd=str(PEERS_DIR),
                         env={**os.environ, "ONAIR_ICE_HOST": lab.address("v1")})
    viewer.wait_event("first_frame", 20)
    say(f"{case.name}: first frame; settling {settle:g} s, then measuring {measure:g} s")
    watch(settle, broadcast, relay.process, viewer)

    measured = {"broadcast": broadcast, "relay": relay.process, "viewer": viewer}
    cpu_before = {name: cpu_seconds(p) for name, p in measured.items()}
    uplink_before = lab.qdisc_stats("pub", "up")
    start = time.time()
    judge_from = start
    if case.change_to_kbit:
        watch(case.change_at, broadcast, relay.process, viewer)
        lab.set_rate("pub", "up", case.change_to_kbit)
        judge_from = time.time() + case.judge_after
        say(f"{case.name}: uplink now {case.change_to_kbit:g} kbit/s")
        watch(measure - case.change_at, broadcast, relay.process, viewer)
    else:
        watch(measure, broadcast, relay.process, viewer)
    end = time.time()
    cpu = {name: round(100 * (cpu_seconds(p) - cpu_before[name]) / (end - start))
           for name, p in measured.items() if cpu_before[name] is not None and cpu_seconds(p) is not None}
    uplink_after = lab.qdisc_stats("pub", "up")
    uplink = {"kind": uplink_after["kind"], "drops": uplink_after["drops"] - uplink_before["drops"],
              "kbit_s": round((uplink_after["bytes"] - uplink_before["bytes"]) * 8 / 1000 / (end - start))}
    stream = lab.call("relay", http_json, stream_url)

    broadcast.signal(signal.SIGINT)
    if broadcast.wait(15) is None:
        raise AssertionError("broadcast did not exit within 15 s of SIGINT")
    viewer.signal(signal.SIGTERM)
    viewer.wait(10)
    stats = json.loads(stats_path.read_text()) if stats_path.is_file() else {}
    frames = read_frames_log(frames_path)
    if not frames:
        raise AssertionError("the viewer wrote no frames log")
    sent_kbit, target = status_rates(broadcast, start, end)
    return Result(case, judge(frames, start, end), judge(frames, judge_from, end), stats=stats, stream=stream,
                  sent_kbit=sent_kbit, target_kbit=target, uplink=uplink, cpu=cpu,
                  layer_share=layer_shares(broadcast, start, end))
