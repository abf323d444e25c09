"""Recording of a live stream to disk (`hls.record_directory`): the relay writes the
LL-HLS packager's fragmented MP4 (init segment, then every part's moof + mdat as it is
published, an `mfra` index at a clean end). Checked by programs we did not write: ffmpeg
decodes every frame with `-v error` printing nothing, ffprobe reads H.264 + AAC and the
duration, PyAV reads the test pattern's wall-clock barcodes (so the recording's timeline is
the stream's real time, with nothing missing in between).

Three ends of a stream: the publisher stops (DELETE), the publisher is SIGKILLed (the relay
ends the stream by consent timeout), the relay itself is SIGKILLed mid-stream (nothing
finalizes the file: every fragment written so far must still decode)."""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import time
import urllib.error
import urllib.request
from pathlib import Path

import av
import pytest

from conftest import TARGET, launch_relay
from harness import REPO, ProcessGroup
from testpattern import read_barcode

ROOM = "rec-1"
BROADCAST_BIN = Path(os.environ.get("ONAIR_BROADCAST_BIN", str(REPO / ".build" / "debug" / "broadcast")))


@pytest.fixture
def recording_relay(procs, tmp_path):
    if TARGET != "onair":
        pytest.skip("recording is ours only")
    if not (BROADCAST_BIN.is_file() and os.access(BROADCAST_BIN, os.X_OK)):
        pytest.fail(f"broadcast binary not built: {BROADCAST_BIN} (run `swift build`, or set ONAIR_BROADCAST_BIN)",
                    pytrace=False)
    directory = tmp_path / "recordings"
    relay = launch_relay(TARGET, procs, tmp_path, extra_env={"ONAIR_HLS_RECORD_DIRECTORY": str(directory),
                                                             "ONAIR_DATABASE": str(tmp_path / "relay.sqlite")})
    return relay, directory


def start_broadcast(procs: ProcessGroup, relay, *args):
    env = {k: v for k, v in os.environ.items() if k != "ONAIR_BROADCAST_TOKEN"}
    argv = [str(BROADCAST_BIN), "start", "--room", ROOM, "--relay", relay.base_url, "--size", "640x360",
            "--token", relay.publish_token, *[str(a) for a in args]]
    return procs.start("broadcast", argv, timeout=90, cwd=str(procs.log_dir), env=env)


def get(url: str):
    try:
        with urllib.request.urlopen(url, timeout=5) as response:
            return response.status, response.read()
    except urllib.error.HTTPError as error:
        return error.code, error.read()


def wait_for(predicate, timeout: float, what: str, process=None):
    deadline = time.monotonic() + timeout
    while True:
        value = predicate()
        if value:
            return value
        if process is not None and process.poll() is not None:
            raise AssertionError(f"{process.name} exited ({process.returncode}) before {what}:\n{process.log_text()[-2000:]}")
        assert time.monotonic() < deadline, f"not {what} within {timeout}s"
        time.sleep(0.05)


def first_part_published(relay) -> float:
    """Polls the multivariant playlist: it answers once the first part exists. Returns the
    wall-clock time it first did (the recording's first fragment is then on its way)."""
    return wait_for(lambda: time.time() if get(f"{relay.base_url}/hls/{ROOM}/index.m3u8")[0] == 200 else None,
                    20, "the first HLS part")


def recording_file(directory: Path) -> Path:
    files = sorted(directory.glob(f"{ROOM}_*.mp4"))
    assert len(files) == 1, f"expected one recording of room {ROOM} in {directory}: {files}"
    assert re.fullmatch(rf"{re.escape(ROOM)}_\d{{8}}T\d{{6}}Z\.mp4", files[0].name), files[0].name
    return files[0]


def recording_finished(relay) -> bool:
    return "recording finished" in relay.process.log_text()


def served_duration(relay, media_uri: str) -> float:
    """The sum of EXTINF of the ended presentation's media playlist (EXT-X-ENDLIST)."""
    status, body = get(f"{relay.base_url}/hls/{ROOM}/{media_uri}")
    assert status == 200, (status, body[:200])
    text = body.decode()
    assert "#EXT-X-ENDLIST" in text, text[-300:]
    assert "#EXT-X-MEDIA-SEQUENCE:0" in text, "the window dropped segments: the sum would not cover the stream"
    return sum(float(m) for m in re.findall(r"^#EXTINF:([0-9.]+),", text, re.M))


def media_uri(relay) -> str:
    status, body = get(f"{relay.base_url}/hls/{ROOM}/index.m3u8")
    assert status == 200
    return next(l for l in body.decode().splitlines() if l and not l.startswith("#"))


def check_recording(path: Path, finalized: bool) -> dict:
    """Decodes every frame with ffmpeg (`-v error` must print nothing), reads streams and
    duration with ffprobe, and the first and last barcodes with PyAV."""
    decode = subprocess.run(["ffmpeg", "-nostdin", "-v", "error", "-i", str(path), "-map", "0", "-f", "null", "-"],
                            capture_output=True, text=True, timeout=120)
    assert decode.returncode == 0 and decode.stderr.strip() == "", f"ffmpeg complained about {path}:\n{decode.stderr[:2000]}"
    probe = subprocess.run(["ffprobe", "-v", "error", "-count_frames", "-show_entries",
                            "format=duration:stream=codec_type,codec_name,width,height,sample_rate,channels,nb_read_frames",
                            "-of", "json", str(path)], capture_output=True, text=True, timeout=120)
    assert probe.returncode == 0 and probe.stderr.strip() == "", probe.stderr[:2000]
    info = json.loads(probe.stdout)
    streams = {s["codec_type"]: s for s in info["streams"]}
    assert set(streams) == {"video", "audio"}, streams
    video, audio = streams["video"], streams["audio"]
    assert (video["codec_name"], video["width"], video["height"]) == ("h264", 640, 360), video
    assert (audio["codec_name"], audio["sample_rate"], audio["channels"]) == ("aac", "48000", 2), audio

    data = path.read_bytes()
    assert data[4:8] == b"ftyp"
    # A clean end appends the 'mfra' index; its 'mfro' (the last 16 bytes) repeats its size.
    has_index = data[-12:-8] == b"mfro" and data[-int.from_bytes(data[-4:], "big") + 4:][:4] == b"mfra"
    assert has_index == finalized, f"mfra index present: {has_index}, expected {finalized}"

    barcodes, times = [], []
    with av.open(str(path)) as container:
        for frame in container.decode(video=0):
            ms = read_barcode(frame.to_ndarray(format="gray"))
            if ms is not None:
                barcodes.append(ms)
                times.append(float(frame.pts * frame.time_base))
    frames = int(video["nb_read_frames"])
    assert len(barcodes) >= 0.95 * frames, f"barcodes read in {len(barcodes)} of {frames} frames"
    # Capture clock and recording clock advance together: nothing lost or stretched.
    wall_span = (barcodes[-1] - barcodes[0]) / 1000
    media_span = times[-1] - times[0]
    assert abs(wall_span - media_span) <= 0.1, f"barcodes span {wall_span:.3f}s, timestamps {media_span:.3f}s"
    assert all(b > a for a, b in zip(barcodes, barcodes[1:])), "frames out of capture order"
    return {"duration": float(info["format"]["duration"]), "frames": frames,
            "audio_frames": int(audio["nb_read_frames"]), "wall_span": wall_span, "bytes": len(data)}


def test_recording_of_a_stream_that_ends_cleanly(recording_relay, procs, tmp_path):
    relay, directory = recording_relay
    stats_path = tmp_path / "stats.json"
    publisher = start_broadcast(procs, relay, "--duration", 6, "--stats-json", stats_path)
    first_part_published(relay)
    uri = media_uri(relay)
    assert publisher.wait(30) == 0, publisher.log_text()[-2000:]
    wait_for(lambda: recording_finished(relay), 10, "the recording finished", relay.process)
    stats = json.loads(stats_path.read_text())
    result = check_recording(recording_file(directory), finalized=True)
    served = served_duration(relay, uri)
    print(f"\nclean end: recording {result}, broadcast sent {stats['video_frames']} frames in {stats['duration_s']:.2f}s, "
          f"HLS served {served:.3f}s")
    assert abs(result["duration"] - stats["duration_s"]) <= 1.0, (result, stats)
    assert abs(result["duration"] - served) <= 0.2, (result, served)
    assert result["frames"] >= stats["video_frames"] - 35, "more than the first GOP's worth of frames missing"
    assert result["audio_frames"] * 1024 / 48000 >= result["duration"] - 0.5, result


def test_recording_survives_a_publisher_killed_with_sigkill(recording_relay, procs):
    relay, directory = recording_relay
    publisher = start_broadcast(procs, relay, "--duration", 60)
    started = first_part_published(relay)
    uri = media_uri(relay)
    time.sleep(5)
    publisher.signal(signal.SIGKILL)  # no DELETE, no DTLS close: the relay finds out by consent timeout
    killed = time.time()
    wait_for(lambda: recording_finished(relay), 15, "the recording finished after the publisher vanished", relay.process)
    assert "reason=publisher_timeout" in relay.process.log_text()
    result = check_recording(recording_file(directory), finalized=True)
    served = served_duration(relay, uri)
    print(f"\nSIGKILLed publisher: recording {result}, live {killed - started:.2f}s from the first part to the kill, "
          f"HLS served {served:.3f}s")
    # The first part was published ~one part (0.33 s) after recording began; RTP in flight at the kill is lost.
    assert abs(result["duration"] - (killed - started + 0.33)) <= 1.0, (result, killed - started)
    assert abs(result["duration"] - served) <= 0.2, (result, served)


def test_recording_survives_the_relay_killed_with_sigkill(recording_relay, procs):
    """Nothing finalizes the file; every fragment written before the kill decodes."""
    relay, directory = recording_relay
    start_broadcast(procs, relay, "--duration", 60)
    started = first_part_published(relay)
    time.sleep(4)
    relay.process.signal(signal.SIGKILL)
    killed = time.time()
    assert relay.process.wait(10) is not None
    result = check_recording(recording_file(directory), finalized=False)
    print(f"\nSIGKILLed relay: recording {result}, {killed - started:.2f}s from the first part to the kill")
    # Parts are written as they are published: at most the part being assembled is missing.
    assert abs(result["duration"] - (killed - started + 0.33)) <= 1.0, (result, killed - started)
