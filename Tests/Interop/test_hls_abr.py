"""ABR LL-HLS from a simulcast publisher (`broadcast --simulcast`: f 1280x720, h 640x360,
q 320x180): one rendition per layer, checked by programs we did not write. PyPI `m3u8`
parses the multivariant and media playlists (RFC 8216bis §4.4.6.2 attributes, §4.4.5.4
EXT-X-RENDITION-REPORT), ffprobe decodes every rendition and reads where each segment starts,
and Chromium's native HLS plays the presentation."""

from __future__ import annotations

import subprocess
import time
from pathlib import Path

import m3u8
import pytest

from test_broadcast import broadcast_bin, room_live, start_broadcast, wait_until  # noqa: F401 (fixture)
from test_hls import get, wait_for_multivariant

ROOM = "42"
SIZES = {(1280, 720), (640, 360), (320, 180)}


@pytest.fixture
def simulcast_hls(relay, procs, broadcast_bin):  # noqa: F811
    if relay.target != "onair":
        pytest.skip("LL-HLS is ours only")
    process = start_broadcast(procs, "broadcast", "start", "--room", ROOM, "--relay", relay.base_url, "--simulcast",
                              "--size", "1280x720", "--fps", "30", "--preset", "ultrafast", env_token=relay.publish_token)
    wait_until(lambda: room_live(relay), 20, "live at the relay", process)
    base = f"{relay.base_url}/hls/{ROOM}"
    _, body = wait_for_multivariant(base)
    return relay, process, base, body.decode()


def first_video_packet(init: bytes, segment: bytes, scratch: Path) -> tuple[float, str]:
    """ffprobe's pts (seconds) and flags of a segment's first video packet."""
    scratch.write_bytes(init + segment)
    result = subprocess.run(["ffprobe", "-v", "error", "-select_streams", "v:0", "-read_intervals", "%+#1",
                             "-show_entries", "packet=pts_time,flags", "-of", "csv=p=0", str(scratch)],
                            capture_output=True, text=True, timeout=30)
    assert result.returncode == 0, result.stderr
    pts, flags = [l for l in result.stdout.splitlines() if l.strip()][0].split(",")[:2]
    return float(pts), flags


def test_every_layer_is_a_rendition_with_aligned_segments(simulcast_hls, tmp_path):
    relay, process, base, text = simulcast_hls
    variant = m3u8.loads(text, uri=f"{base}/index.m3u8")
    assert variant.is_variant and "#EXT-X-INDEPENDENT-SEGMENTS" in text
    streams = [(p.uri, p.stream_info) for p in variant.playlists]
    assert {info.resolution for _, info in streams} == SIZES, text
    assert streams[0][1].resolution == (1280, 720), "the best rendition goes first"
    for uri, info in streams:
        assert info.average_bandwidth and 0 < info.average_bandwidth <= info.bandwidth, (uri, text)
        assert info.frame_rate and 20 <= info.frame_rate <= 31, (uri, info.frame_rate)
        assert info.codecs.startswith("avc1.") and info.codecs.endswith(",mp4a.40.2"), info.codecs
    bandwidths = sorted(info.average_bandwidth for _, info in streams)
    assert bandwidths[0] < bandwidths[-1], "every rendition measured alike: not the layers' own rates"

    time.sleep(9)  # four segments of 2 s
    directory = f"{base}/{streams[0][0].rsplit('/', 1)[0]}"
    playlists = {}
    for uri, info in streams:
        body = get(f"{base}/{uri}")[2].decode()
        playlist = m3u8.loads(body, uri=f"{base}/{uri}")
        assert "#EXT-X-INDEPENDENT-SEGMENTS" in body
        others = {u.rsplit("/", 1)[-1] for u, _ in streams if u != uri}
        reports = {r.uri: r for r in playlist.rendition_reports}
        assert set(reports) == others, body[-600:]
        own_last = playlist.media_sequence + len([s for s in playlist.segments if s.uri])
        for report in reports.values():
            assert abs(report.last_msn - own_last) <= 1, (uri, report.uri, report.last_msn, own_last)
            assert report.last_part is not None and report.last_part >= 0
        playlists[info.resolution] = playlist

    # The same Media Sequence Number starts at the same media time, with an IDR, everywhere.
    numbered = {size: {p.media_sequence + i: s for i, s in enumerate(p.segments) if s.uri} for size, p in playlists.items()}
    common = sorted(set.intersection(*(set(n) for n in numbered.values())))[-3:]
    assert len(common) >= 2, {size: sorted(n) for size, n in numbered.items()}
    starts = {}
    for size, segments in numbered.items():
        init = get(f"{directory}/{playlists[size].segment_map[0].uri}")[2]
        for msn in common:
            segment = segments[msn]
            status, _, data = get(f"{directory}/{segment.uri}")
            assert status == 200, (size, msn, status)
            pts, flags = first_video_packet(init, data, tmp_path / "probe.mp4")
            assert "K" in flags, f"{size} segment {msn} does not start with a keyframe ({flags})"
            starts.setdefault(msn, {})[size] = (round(pts, 4), round(segment.duration, 4))
    for msn, by_size in starts.items():
        assert len({start for start, _ in by_size.values()}) == 1, f"segment {msn} starts differ: {by_size}"
        assert len({duration for _, duration in by_size.values()}) == 1, f"segment {msn} durations differ: {by_size}"
    print(f"\nABR LL-HLS: {[(info.resolution, info.bandwidth, info.average_bandwidth, info.frame_rate) for _, info in streams]}; "
          f"segment starts {starts}")

    # ffprobe decodes every rendition at its size.
    for uri, info in streams:
        result = subprocess.run(
            ["ffprobe", "-v", "error", "-live_start_index", "-3", "-read_intervals", "%+3", "-count_frames",
             "-select_streams", "v:0", "-show_entries", "stream=codec_name,width,height,nb_read_frames", "-of", "csv=p=0",
             f"{base}/{uri}"], capture_output=True, text=True, timeout=60)
        assert result.returncode == 0 and result.stderr.strip() == "", result.stderr[:500]
        values = [l for l in result.stdout.splitlines() if l.strip()][-1].split(",")
        assert (values[0], int(values[1]), int(values[2])) == ("h264", *info.resolution), values
        assert int(values[3]) >= 60, f"{uri}: only {values[3]} frames in 3 s"


@pytest.mark.chromium
def test_chromium_plays_the_abr_presentation(simulcast_hls, procs, tmp_path):
    """Native HLS in Chromium's <video> on the multivariant playlist of three renditions."""
    import asyncio

    from chromium import Chromium

    relay, process, base, _ = simulcast_hls

    async def scenario():
        browser = Chromium(spawn=lambda argv: procs.start("chromium", argv, timeout=120))
        try:
            await browser.start()
            tab = await browser.open(f"{relay.base_url}/rooms/{ROOM}?hls", name="hls-abr-viewer")
            await tab.wait_for("window.onairViewer", lambda r: r and r["state"] == "live" and r["frames"] >= 30, timeout=40)
            first = await tab.json("window.onairViewer")
            await asyncio.sleep(8)
            return first, await tab.json("window.onairViewer")
        finally:
            await browser.close()

    first, second = asyncio.run(asyncio.wait_for(scenario(), 90))
    print(f"\nChromium native HLS (ABR): {first} -> {second}")
    assert first["mode"] == "hls", first
    assert second["currentTime"] - first["currentTime"] >= 6, (first, second)
    assert second["frames"] - first["frames"] >= 120, (first, second)
    assert (second["width"], second["height"]) in SIZES, second
