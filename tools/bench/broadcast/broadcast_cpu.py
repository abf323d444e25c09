#!/usr/bin/env python3
"""CPU of `broadcast start --input FILE` against the `ffmpeg` CLI doing the same work.

Both decode the same H.264 + AAC file in real time, encode it with libx264 (preset veryfast,
tune zerolatency, Constrained Baseline, ABR with VBV maxrate = bitrate and bufsize = 1 s,
keyint = gop, keyint_min = min(gop, fps), scenecut off, SPS/PPS before every IDR, threads
auto, the SPS level MediaSetup picks) and libopus (64 kbit/s, 20 ms, complexity 9, in-band
FEC at 5 % expected loss), and send RTP: ours over
WHIP (ICE + DTLS + SRTP) to our release relay, ffmpeg as plain RTP to two UDP sockets this
script drains. Each process's CPU (utime + stime of all its threads, /proc/<pid>/stat) is
sampled every 0.25 s; the figure compared is the steady-state CPU after a warm-up, in % of
one core. The issue's target is ours <= 0.95 x ffmpeg.

The order alternates per repetition (ours, ffmpeg | ffmpeg, ours | ...) so slow drift in
the machine's load cancels out. Test files are made once with ffmpeg into --cache.

  /usr/bin/python3 tools/bench/broadcast/broadcast_cpu.py \\
      --broadcast .build/release/broadcast --relay .build/release/relay

Python 3 standard library only.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path

REPO = Path(__file__).resolve().parents[3]
CLOCK_TICKS = os.sysconf("SC_CLK_TCK")
SIZES = {"720": (1280, 720), "1080": (1920, 1080)}
FPS = 30
GOP = 60
PRESET = "veryfast"
AUDIO_BITRATE = "64k"
# Our OpusAudioEncoder leaves libopus's default complexity (9 in libopus 1.3) and turns on
# in-band FEC with 5 % expected loss; ffmpeg's wrapper would otherwise use complexity 10.
OPUS_COMPLEXITY = 9
OPUS_LOSS_PERCENT = 5
# H264Packetizer.defaultMaxPayloadSize is 1200 bytes; ffmpeg's pkt_size counts the 12-byte
# RTP header too.
RTP_PACKET_SIZE = 1212
TOKEN = "bench-token"


# -- test files ---------------------------------------------------------------------------

def level_for(width: int, height: int) -> str:
    """The level MediaSetup puts in our SPS (H264EncoderSettings.minimumLevelIDC), so ffmpeg's
    SPS says the same: 3.1 for 720p30, 4.0 for 1080p30."""
    macroblocks = ((width + 15) // 16) * ((height + 15) // 16)
    per_second = macroblocks * FPS
    for idc, max_fs, max_mbps in [(30, 1620, 40_500), (31, 3600, 108_000), (32, 5120, 216_000),
                                  (40, 8192, 245_760), (42, 8704, 522_240), (50, 22_080, 589_824),
                                  (51, 36_864, 983_040)]:
        if macroblocks <= max_fs and per_second <= max_mbps:
            return f"{idc // 10}.{idc % 10}"
    return "5.2"


def video_source(kind: str, width: int, height: int) -> str:
    if kind == "mandelbrot":
        # A slow zoom into the Mandelbrot set (fine detail, smooth areas, motion everywhere) with
        # light temporal grain like a camera's: x264 has real motion search and residual to do.
        return f"mandelbrot=s={width}x{height}:r={FPS},noise=alls=6:allf=t+u,format=yuv420p"
    if kind == "testsrc2":
        return f"testsrc2=s={width}x{height}:r={FPS},noise=alls=6:allf=t+u,format=yuv420p"
    raise SystemExit(f"unknown --source {kind} (mandelbrot or testsrc2)")


# Two different tones with a slow vibrato and a little noise per channel: real stereo, so
# Opus cannot fold the channels together.
AUDIO_SOURCE = ("aevalsrc=exprs='0.25*sin(2*PI*440*t)+0.03*(random(0)-0.5)|"
                "0.25*sin(2*PI*554*t+3*sin(2*PI*0.5*t))+0.03*(random(1)-0.5)':s=48000:c=stereo")


def make_clip(ffmpeg: str, cache: Path, kind: str, size: str, seconds: int) -> Path:
    width, height = SIZES[size]
    path = cache / f"{kind}-{width}x{height}p{FPS}-{seconds}s.mp4"
    if path.exists():
        return path
    cache.mkdir(parents=True, exist_ok=True)
    partial = path.with_suffix(".partial.mp4")
    print(f"making {path} ({seconds} s, once) ...", flush=True)
    started = time.monotonic()
    subprocess.run([ffmpeg, "-hide_banner", "-loglevel", "error", "-y",
                    "-f", "lavfi", "-i", video_source(kind, width, height),
                    "-f", "lavfi", "-i", AUDIO_SOURCE, "-t", str(seconds),
                    "-map", "0:v", "-map", "1:a",
                    "-c:v", "libx264", "-preset", "veryfast", "-crf", "18", "-profile:v", "high",
                    "-pix_fmt", "yuv420p", "-g", str(2 * FPS),
                    "-c:a", "aac", "-b:a", "160k", "-ar", "48000", "-ac", "2",
                    "-movflags", "+faststart", str(partial)], check=True)
    partial.rename(path)
    print(f"  made in {time.monotonic() - started:.0f} s, {path.stat().st_size / 1e6:.1f} MB", flush=True)
    return path


# -- processes and their CPU ----------------------------------------------------------------

def read_cpu_ticks(pid: int) -> int | None:
    """utime + stime of every thread of `pid` so far, in clock ticks (proc(5) fields 14, 15)."""
    try:
        with open(f"/proc/{pid}/stat") as stat:
            fields = stat.read().rsplit(")", 1)[1].split()
        return int(fields[11]) + int(fields[12])
    except (OSError, IndexError, ValueError):
        return None


def read_threads(pid: int) -> dict[int, tuple[str, int]]:
    """tid -> (thread name, CPU ticks) of each live thread of `pid`."""
    threads = {}
    try:
        for tid in os.listdir(f"/proc/{pid}/task"):
            try:
                with open(f"/proc/{pid}/task/{tid}/stat") as stat:
                    text = stat.read()
                name = text[text.index("(") + 1:text.rindex(")")]
                fields = text.rsplit(")", 1)[1].split()
                threads[int(tid)] = (name, int(fields[11]) + int(fields[12]))
            except (OSError, ValueError, IndexError):
                continue
    except OSError:
        pass
    return threads


@dataclass
class Measured:
    """One benchmarked process: its whole-life CPU (wait4) and the steady-state window."""
    exit_code: int
    wall_s: float
    total_cpu_s: float
    user_s: float
    system_s: float
    steady_cpu_s: float
    steady_wall_s: float
    threads: list[tuple[str, int]] = field(default_factory=list)
    max_threads: int = 0
    # Context switches of all threads over the process's life (wait4's rusage): each one is a
    # sleep and a wake-up, which a VM makes expensive.
    voluntary_switches: int = 0
    involuntary_switches: int = 0

    @property
    def steady_percent(self) -> float:
        return 100 * self.steady_cpu_s / self.steady_wall_s if self.steady_wall_s > 0 else float("nan")


def run_measured(argv: list[str], warmup: float, log: Path, env: dict | None = None, cwd: str | None = None,
                 timeout: float = 120) -> Measured:
    """Runs `argv` to completion, sampling its CPU every 0.25 s. The steady window runs from the
    first sample at least `warmup` s after start to the last sample before exit."""
    with open(log, "w") as out:
        started = time.monotonic()
        process = subprocess.Popen(argv, stdout=out, stderr=subprocess.STDOUT, env=env, cwd=cwd)
        samples: list[tuple[float, int]] = []
        # Every thread seen, with its last reading: threads that end early still count.
        seen: dict[int, tuple[str, int]] = {}
        max_threads = 0
        result = None
        while result is None:
            pid, status, usage = os.wait4(process.pid, os.WNOHANG)
            if pid == process.pid:
                result = (status, usage)
                break
            now = time.monotonic()
            ticks = read_cpu_ticks(process.pid)
            if ticks is not None:
                samples.append((now, ticks))
                snapshot = read_threads(process.pid)
                seen.update(snapshot)
                max_threads = max(max_threads, len(snapshot))
            if now - started > timeout:
                process.kill()
            time.sleep(0.25)
        ended = time.monotonic()
        process.returncode = os.waitstatus_to_exitcode(result[0])  # reaped by wait4 above
    status, usage = result
    steady = [sample for sample in samples if sample[0] - started >= warmup]
    if len(steady) >= 2:
        steady_cpu = (steady[-1][1] - steady[0][1]) / CLOCK_TICKS
        steady_wall = steady[-1][0] - steady[0][0]
    else:
        steady_cpu, steady_wall = 0.0, 0.0
    return Measured(exit_code=os.waitstatus_to_exitcode(status), wall_s=ended - started,
                    total_cpu_s=usage.ru_utime + usage.ru_stime, user_s=usage.ru_utime, system_s=usage.ru_stime,
                    steady_cpu_s=steady_cpu, steady_wall_s=steady_wall, threads=list(seen.values()),
                    max_threads=max_threads, voluntary_switches=usage.ru_nvcsw,
                    involuntary_switches=usage.ru_nivcsw)


def launch_prefix(pin: str | None, realtime: bool) -> list[str]:
    """`taskset -c CPULIST` and/or `chrt -r 1` in front of a command (both exec it: the pid we
    measure is the benchmarked process itself)."""
    prefix = []
    if pin:
        if not shutil.which("taskset"):
            raise SystemExit("--pin needs taskset (util-linux)")
        prefix += ["taskset", "-c", pin]
    if realtime:
        if not shutil.which("chrt"):
            raise SystemExit("--realtime needs chrt (util-linux)")
        prefix += ["chrt", "-r", "1"]
    return prefix


def free_port(kind: int) -> int:
    with socket.socket(socket.AF_INET, kind) as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


class RTPSink:
    """Two UDP sockets (video, audio) drained by a thread: ffmpeg's RTP goes somewhere real,
    and the byte count tells the bitrate it actually sent."""

    def __init__(self) -> None:
        self.sockets = []
        for _ in range(2):
            sink = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
            sink.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4 << 20)
            sink.bind(("127.0.0.1", 0))
            sink.settimeout(0.2)
            self.sockets.append(sink)
        self.bytes = [0, 0]
        self.packets = [0, 0]
        self.first: float | None = None
        self.last: float | None = None
        self.running = True
        self.threads = [threading.Thread(target=self._drain, args=(index,), daemon=True) for index in range(2)]
        for thread in self.threads:
            thread.start()

    @property
    def ports(self) -> tuple[int, int]:
        return self.sockets[0].getsockname()[1], self.sockets[1].getsockname()[1]

    def _drain(self, index: int) -> None:
        sink = self.sockets[index]
        while self.running:
            try:
                data = sink.recv(65536)
            except socket.timeout:
                continue
            except OSError:
                return
            now = time.monotonic()
            if self.first is None:
                self.first = now
            self.last = now
            self.bytes[index] += len(data)
            self.packets[index] += 1

    def reset(self) -> None:
        self.bytes, self.packets, self.first, self.last = [0, 0], [0, 0], None, None

    def close(self) -> None:
        self.running = False
        for thread in self.threads:
            thread.join()
        for sink in self.sockets:
            sink.close()


class Relay:
    """Our relay on free loopback ports (the WHIP sink for `broadcast`)."""

    def __init__(self, binary: str, workdir: Path, pin: str | None, realtime: bool) -> None:
        self.http_port = free_port(socket.SOCK_STREAM)
        udp_port = free_port(socket.SOCK_DGRAM)
        env = {**os.environ, "ONAIR_HTTP_HOST": "127.0.0.1", "ONAIR_HTTP_PORT": str(self.http_port),
               "ONAIR_MEDIA_BIND": "127.0.0.1", "ONAIR_UDP_PORT": str(udp_port), "ONAIR_PUBLISH_TOKEN": TOKEN}
        self.log = open(workdir / "relay.log", "w")
        self.process = subprocess.Popen(launch_prefix(pin, realtime) + [binary, "serve", "--log-level", "warning"],
                                        stdout=self.log, stderr=subprocess.STDOUT, env=env, cwd=str(workdir))
        deadline = time.monotonic() + 20
        while True:
            if self.process.poll() is not None:
                raise SystemExit(f"the relay exited ({self.process.returncode}); see {workdir / 'relay.log'}")
            try:
                socket.create_connection(("127.0.0.1", self.http_port), timeout=0.5).close()
                break
            except OSError:
                if time.monotonic() > deadline:
                    raise SystemExit("the relay did not open its HTTP port within 20 s")
                time.sleep(0.1)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.http_port}"

    def cpu_seconds(self) -> float:
        return (read_cpu_ticks(self.process.pid) or 0) / CLOCK_TICKS

    def stop(self) -> None:
        self.process.send_signal(signal.SIGTERM)
        try:
            self.process.wait(10)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()
        self.log.close()


# -- the two contenders -----------------------------------------------------------------------

@dataclass
class Case:
    size: str
    bitrate_kbps: int

    @property
    def name(self) -> str:
        return f"{self.size}p30 {self.bitrate_kbps / 1000:g}M"


@dataclass
class Run:
    case: Case
    who: str  # "ours" or "ffmpeg"
    measured: Measured
    kbps_sent: float
    frames: int
    capture_p50_ms: float | None = None
    capture_p99_ms: float | None = None
    skipped: int = 0
    speed: float = 1.0  # ffmpeg's own speed figure: below 1, -re fell behind real time
    load_before: float = 0.0
    load_after: float = 0.0


def run_ours(args, case: Case, clip: Path, relay: Relay, workdir: Path, serial: int, who: str = "ours") -> Run:
    """`broadcast start` (or the --candidate build, `who` = "candidate") on `clip`."""
    binary = args.candidate if who == "candidate" else args.broadcast
    stats_path = workdir / f"{who}-{serial}.json"
    bitrate = f"{case.bitrate_kbps}k"
    # min = max = start bitrate: congestion control must not move the encoder's target, or the
    # two encoders would not be doing the same work (ffmpeg's rate never changes).
    argv = launch_prefix(args.pin, args.realtime) + [
        binary, "start", "--room", f"bench{serial}", "--relay", relay.url, "--input", str(clip),
        "--video-bitrate", bitrate, "--min-bitrate", bitrate, "--max-bitrate", bitrate,
        "--preset", PRESET, "--gop", str(GOP), "--audio-bitrate", AUDIO_BITRATE,
        "--duration", str(args.duration), "--stats-json", str(stats_path)] + (["--simulcast"] if who == "simulcast" else [])
    env = {**os.environ, "ONAIR_BROADCAST_TOKEN": TOKEN}
    env.pop("ONAIR_BROADCAST_CONFIG", None)
    load_before = os.getloadavg()[0]
    # cwd: an empty directory, so no ./config/broadcast.yaml changes the settings.
    log = workdir / f"{who}-{serial}.log"
    measured = run_measured(argv, args.warmup, log, env=env, cwd=str(workdir), timeout=args.duration + 60)
    if measured.exit_code != 0:
        raise SystemExit(f"{binary} exited {measured.exit_code}; see {log}")
    stats = json.loads(stats_path.read_text())
    duration = stats.get("duration_s") or args.duration
    return Run(case, who, measured, kbps_sent=stats["bytes_sent"] * 8 / 1000 / duration,
               frames=stats["video_frames"], capture_p50_ms=stats.get("capture_to_send_p50_ms"),
               capture_p99_ms=stats.get("capture_to_send_p99_ms"), skipped=stats.get("skipped_frames", 0),
               load_before=load_before,
               load_after=os.getloadavg()[0])


def ffmpeg_argv(args, case: Case, clip: Path, ports: tuple[int, int], progress: Path) -> list[str]:
    """The same x264 and Opus settings as H264Encoder and OpusAudioEncoder, to RTP."""
    width, height = SIZES[case.size]
    bitrate = f"{case.bitrate_kbps}k"
    keyint_min = min(GOP, FPS)
    return launch_prefix(args.pin, args.realtime) + [
        args.ffmpeg, "-hide_banner", "-nostats", "-loglevel", "warning", "-progress", str(progress),
        # -t before -i: an input option, so both outputs (video and audio RTP) stop together.
        "-re", "-t", str(args.duration), "-i", str(clip),
        "-map", "0:v", "-c:v", "libx264", "-preset", PRESET, "-tune", "zerolatency",
        "-profile:v", "baseline", "-level", level_for(width, height),
        "-b:v", bitrate, "-maxrate", bitrate, "-bufsize", bitrate,
        "-g", str(GOP), "-keyint_min", str(keyint_min), "-x264-params", "repeat-headers=1:scenecut=0",
        "-f", "rtp", "-payload_type", "96", f"rtp://127.0.0.1:{ports[0]}?pkt_size={RTP_PACKET_SIZE}",
        "-map", "0:a", "-c:a", "libopus", "-b:a", AUDIO_BITRATE, "-ar", "48000", "-ac", "2",
        "-application", "audio", "-frame_duration", "20", "-compression_level", str(OPUS_COMPLEXITY),
        "-fec:a", "1", "-packet_loss:a", str(OPUS_LOSS_PERCENT),
        "-f", "rtp", "-payload_type", "111", f"rtp://127.0.0.1:{ports[1]}"]


def run_ffmpeg(args, case: Case, clip: Path, sink: RTPSink, workdir: Path, serial: int) -> Run:
    progress = workdir / f"ffmpeg-{serial}.progress"
    sink.reset()
    load_before = os.getloadavg()[0]
    measured = run_measured(ffmpeg_argv(args, case, clip, sink.ports, progress), args.warmup,
                            workdir / f"ffmpeg-{serial}.log", timeout=args.duration + 60)
    if measured.exit_code != 0:
        raise SystemExit(f"ffmpeg exited {measured.exit_code}; see {workdir / f'ffmpeg-{serial}.log'}")
    time.sleep(0.3)  # the sink drains the last datagrams
    frames, speed = 0, 1.0
    for line in progress.read_text().splitlines():
        if line.startswith("frame="):
            frames = int(line.split("=", 1)[1])
        elif line.startswith("speed=") and line.strip().endswith("x"):
            try:
                speed = float(line.split("=", 1)[1].strip()[:-1])
            except ValueError:
                pass
    span = (sink.last - sink.first) if sink.first is not None and sink.last is not None else 0
    kbps = sum(sink.bytes) * 8 / 1000 / span if span > 0 else 0.0
    return Run(case, "ffmpeg", measured, kbps_sent=kbps, frames=frames, speed=speed, load_before=load_before,
               load_after=os.getloadavg()[0])


# -- report ---------------------------------------------------------------------------------------

def describe_threads(measured: Measured, top: int = 6) -> str:
    total = sum(ticks for _, ticks in measured.threads) or 1
    ranked = sorted(measured.threads, key=lambda thread: -thread[1])
    shown = ", ".join(f"{name} {ticks / CLOCK_TICKS:.1f}s" for name, ticks in ranked[:top] if ticks > 0)
    return (f"{len(measured.threads)} threads seen (at most {measured.max_threads} at once); by CPU: {shown} "
            f"(of {total / CLOCK_TICKS:.1f}s sampled)")


def print_run(run: Run, verbose: bool) -> None:
    m = run.measured
    extra = ""
    if run.who != "ffmpeg" and run.capture_p50_ms is not None:
        extra = (f", {run.skipped} skipped, capture->send p50 {run.capture_p50_ms:.1f} / p99 "
                 f"{run.capture_p99_ms:.1f} ms")
    elif run.who == "ffmpeg":
        extra = f", speed {run.speed:g}x"
    print(f"  {run.case.name:<12} {run.who:<9} steady {m.steady_percent:5.1f}% of a core "
          f"({m.steady_cpu_s:.2f} s CPU in {m.steady_wall_s:.1f} s), whole run {m.total_cpu_s:.2f} s CPU "
          f"(user {m.user_s:.2f}, sys {m.system_s:.2f}) in {m.wall_s:.1f} s, "
          f"{(m.voluntary_switches + m.involuntary_switches) / m.wall_s:.0f} context switches/s, {run.frames} frames, "
          f"{run.kbps_sent:.0f} kbit/s sent{extra}, load {run.load_before:.2f}->{run.load_after:.2f}", flush=True)
    if verbose:
        print(f"  {'':<12} {'':<9} {describe_threads(m)}", flush=True)


def mean(values: list[float]) -> float:
    return statistics.fmean(values) if values else float("nan")


def cpu_ms_per_frame(run: Run) -> float:
    """Whole-life CPU per picture sent: comparable even when an overloaded run sent fewer."""
    return 1000 * run.measured.total_cpu_s / run.frames if run.frames else float("nan")


def full_rate(run: Run, duration: float) -> bool:
    """Whether the run kept up with real time: ours skipped no frame and sent (nearly) all of
    them, ffmpeg's -re pacing did not fall behind."""
    if run.who == "ffmpeg":
        return run.speed >= 0.98 and run.frames >= 0.97 * duration * FPS
    return run.skipped == 0 and run.frames >= 0.97 * duration * FPS


def summary_table(cases: list[Case], runs: list[Run], duration: float, who: str = "ours") -> str:
    """One row per case: `who` (ours or candidate) against ffmpeg, means over the repetitions
    (capture->send: mean p50, worst p99). The ratio is of CPU per frame sent; with every run
    at full rate it equals the ratio of CPU over the same wall time."""
    header = (f"| case | {who} % core | {who} CPU ms/frame | ffmpeg % core | ffmpeg CPU ms/frame "
              f"| {who} / ffmpeg | target <= 0.95 | all runs at full rate | {who} capture->send p50 / p99 ms "
              f"| kbit/s {who} / ffmpeg |")
    lines = [header, "|" + "|".join("---" for _ in range(header.count("|") - 1)) + "|"]
    for case in cases:
        ours = [run for run in runs if run.case == case and run.who == who]
        theirs = [run for run in runs if run.case == case and run.who == "ffmpeg"]
        if not ours or not theirs:
            continue
        ours_ms = mean([cpu_ms_per_frame(run) for run in ours])
        theirs_ms = mean([cpu_ms_per_frame(run) for run in theirs])
        ratio = ours_ms / theirs_ms if theirs_ms > 0 else float("nan")
        p50 = mean([run.capture_p50_ms for run in ours if run.capture_p50_ms is not None])
        p99 = max((run.capture_p99_ms for run in ours if run.capture_p99_ms is not None), default=float("nan"))
        slow = [f"{run.who} {run.frames} frames" + (f", {run.skipped} skipped" if run.skipped else "")
                + (f", speed {run.speed:g}x" if run.who == "ffmpeg" else "")
                for run in ours + theirs if not full_rate(run, duration)]
        lines.append(
            f"| {case.name} | {mean([run.measured.steady_percent for run in ours]):.1f} | {ours_ms:.2f} "
            f"| {mean([run.measured.steady_percent for run in theirs]):.1f} | {theirs_ms:.2f} | {ratio:.3f} "
            f"| {'met' if ratio <= 0.95 else 'MISSED'} | {'yes' if not slow else 'NO: ' + '; '.join(slow)} "
            f"| {p50:.1f} / {p99:.1f} "
            f"| {mean([run.kbps_sent for run in ours]):.0f} / {mean([run.kbps_sent for run in theirs]):.0f} |")
    return "\n".join(lines)


def simulcast_table(cases: list[Case], runs: list[Run]) -> str:
    """One row per case: `--simulcast` (the top layer at the case's bitrate plus half and
    quarter size layers) against the single encode, CPU over the same wall time."""
    header = "| case | single % core | simulcast % core | simulcast / single | target <= 1.4 | kbit/s single / simulcast |"
    lines = [header, "|---|---|---|---|---|---|"]
    for case in cases:
        single = [run for run in runs if run.case == case and run.who == "ours"]
        layered = [run for run in runs if run.case == case and run.who == "simulcast"]
        if not single or not layered:
            continue
        ratio = mean([run.measured.steady_percent for run in layered]) / mean([run.measured.steady_percent for run in single])
        lines.append(f"| {case.name} | {mean([run.measured.steady_percent for run in single]):.1f} "
                     f"| {mean([run.measured.steady_percent for run in layered]):.1f} | {ratio:.3f} "
                     f"| {'met' if ratio <= 1.4 else 'MISSED'} "
                     f"| {mean([run.kbps_sent for run in single]):.0f} / {mean([run.kbps_sent for run in layered]):.0f} |")
    return "\n".join(lines)


def parse_cases(text: str) -> list[Case]:
    cases = []
    for item in text.split(","):
        size, _, rate = item.strip().partition(":")
        size = size.removesuffix("p")
        if size not in SIZES or not rate:
            raise SystemExit(f"--cases items are SIZE:KBITS with SIZE 720 or 1080, e.g. 720:2500 (got '{item}')")
        cases.append(Case(size, int(rate.removesuffix("k"))))
    return cases


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    build = REPO / os.environ.get("ONAIR_BUILD_DIR", ".build")  # relative: to the repository
    parser.add_argument("--broadcast", default=f"{build}/release/broadcast", help="broadcast binary (release)")
    parser.add_argument("--relay", default=f"{build}/release/relay", help="relay binary (release)")
    parser.add_argument("--candidate", metavar="BIN",
                        help="a second broadcast build (e.g. with a fix) measured in the same rotation")
    parser.add_argument("--ffmpeg", default="ffmpeg")
    parser.add_argument("--cache", default=os.path.expanduser("~/.cache/onair-bench/broadcast"),
                        help="where the test files are made once (default ~/.cache/onair-bench/broadcast)")
    parser.add_argument("--source", default="mandelbrot", choices=["mandelbrot", "testsrc2"],
                        help="picture content of the test files (both with light temporal grain)")
    parser.add_argument("--clip-seconds", type=int, default=30, help="length of the test files")
    parser.add_argument("--cases", default="720:2500,720:4500,1080:2500,1080:4500",
                        help="SIZE:KBIT/S list; SIZE 720 or 1080")
    parser.add_argument("--duration", type=float, default=20, help="seconds each process runs")
    parser.add_argument("--warmup", type=float, default=3,
                        help="seconds after start not counted in the steady-state CPU (connect, probe, encoder start)")
    parser.add_argument("--reps", type=int, default=2, help="repetitions; the order alternates each time")
    parser.add_argument("--pin", metavar="CPULIST",
                        help="run broadcast and ffmpeg under `taskset -c CPULIST` (default: not pinned)")
    parser.add_argument("--relay-pin", metavar="CPULIST",
                        help="run the relay under `taskset -c CPULIST` (default: not pinned)")
    parser.add_argument("--realtime", action="store_true",
                        help="run broadcast, ffmpeg and the relay as SCHED_RR priority 1 (`chrt -r 1`): on a shared "
                             "machine they then get their CPU when due instead of skipping frames (default: off)")
    parser.add_argument("--simulcast", action="store_true",
                        help="compare `broadcast --simulcast` (3 layers for 720p) with the single encode instead of ffmpeg")
    parser.add_argument("--threads", action="store_true", help="print each run's threads by CPU")
    parser.add_argument("--json", help="also write every run's figures here")
    parser.add_argument("--keep", action="store_true", help="keep the work directory (logs, stats JSON)")
    parser.add_argument("--prepare", action="store_true", help="only make the test files (prints their paths)")
    args = parser.parse_args()
    if args.prepare:
        for size in sorted({case.size for case in parse_cases(args.cases)}):
            print(make_clip(args.ffmpeg, Path(args.cache), args.source, size, args.clip_seconds))
        return 0

    # Absolute: the processes run in a scratch directory (no ./config/*.yaml may apply).
    args.broadcast, args.relay = os.path.abspath(args.broadcast), os.path.abspath(args.relay)
    if args.candidate:
        args.candidate = os.path.abspath(args.candidate)
    for binary in [args.broadcast, args.relay] + ([args.candidate] if args.candidate else []):
        if not os.access(binary, os.X_OK):
            raise SystemExit(f"no binary at {binary}: swift build -c release --product {Path(binary).name} "
                             f"(or set ONAIR_BUILD_DIR / pass --broadcast, --relay)")
    if not shutil.which(args.ffmpeg):
        raise SystemExit("ffmpeg not found (apt-get install ffmpeg)")
    if args.duration + 2 > args.clip_seconds:
        raise SystemExit("--duration must be at least 2 s shorter than --clip-seconds")
    cases = parse_cases(args.cases)
    clips = {size: make_clip(args.ffmpeg, Path(args.cache), args.source, size, args.clip_seconds)
             for size in sorted({case.size for case in cases})}

    workdir = Path(tempfile.mkdtemp(prefix="broadcast-cpu-"))
    load_start = os.getloadavg()
    print(f"loadavg at start: {load_start[0]:.2f} {load_start[1]:.2f} {load_start[2]:.2f} "
          f"({os.cpu_count()} CPUs); pinned: {args.pin or 'no'}; work dir {workdir}", flush=True)
    relay = Relay(args.relay, workdir, args.relay_pin, args.realtime)
    sink = RTPSink()
    runs: list[Run] = []
    serial = 0
    try:
        for rep in range(args.reps):
            for case in cases:
                order = ["ours", "simulcast"] if args.simulcast else ["ours", "ffmpeg"] + (["candidate"] if args.candidate else [])
                for who in order if rep % 2 == 0 else reversed(order):
                    serial += 1
                    if who != "ffmpeg":
                        run = run_ours(args, case, clips[case.size], relay, workdir, serial, who)
                    else:
                        run = run_ffmpeg(args, case, clips[case.size], sink, workdir, serial)
                    runs.append(run)
                    print_run(run, args.threads)
    finally:
        relay_cpu = relay.cpu_seconds()
        sink.close()
        relay.stop()
    load_end = os.getloadavg()
    print(f"\nloadavg at end: {load_end[0]:.2f} {load_end[1]:.2f} {load_end[2]:.2f}; "
          f"relay CPU over the whole run: {relay_cpu:.1f} s (not counted)")
    print(f"\n{args.reps} repetition(s), {args.duration:g} s each, steady state after {args.warmup:g} s, "
          f"source {args.source}{', SCHED_RR' if args.realtime else ''}; % core = steady-state CPU / wall x 100; "
          f"CPU ms/frame = whole-process CPU / frames sent\n")
    if args.simulcast:
        print(simulcast_table(cases, runs))
    else:
        print(summary_table(cases, runs, args.duration))
    if args.candidate:
        print(f"\ncandidate: {args.candidate}\n")
        print(summary_table(cases, runs, args.duration, "candidate"))
    if args.json:
        Path(args.json).write_text(json.dumps([{
            "case": run.case.name, "who": run.who, "steady_percent": run.measured.steady_percent,
            "steady_cpu_s": run.measured.steady_cpu_s, "steady_wall_s": run.measured.steady_wall_s,
            "total_cpu_s": run.measured.total_cpu_s, "user_s": run.measured.user_s,
            "system_s": run.measured.system_s, "wall_s": run.measured.wall_s,
            "voluntary_switches": run.measured.voluntary_switches,
            "involuntary_switches": run.measured.involuntary_switches, "frames": run.frames,
            "kbps_sent": run.kbps_sent, "capture_to_send_p50_ms": run.capture_p50_ms,
            "capture_to_send_p99_ms": run.capture_p99_ms, "skipped_frames": run.skipped, "ffmpeg_speed": run.speed,
            "threads": run.measured.threads,
            "load_before": run.load_before, "load_after": run.load_after} for run in runs], indent=2))
    if not args.keep:
        shutil.rmtree(workdir, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
