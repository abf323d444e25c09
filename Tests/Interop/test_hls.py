"""LL-HLS from the relay, checked by programs we did not write: PyPI `m3u8` parses the live
playlists, ffprobe decodes them; plus the RFC 8216bis rules on tags, blocking reload timing
and the release of waiting requests at the end of the stream."""

from __future__ import annotations

import re
import subprocess
import threading
import time
import urllib.error
import urllib.request

import m3u8
import pytest

from harness import start_peer

ROOM = "42"


def get(url: str, timeout: float = 12):
    request = urllib.request.Request(url)
    try:
        with urllib.request.urlopen(request, timeout=timeout) as response:
            return response.status, dict(response.headers), response.read()
    except urllib.error.HTTPError as error:
        return error.code, dict(error.headers), error.read()


def attributes(line: str) -> dict:
    _, _, rest = line.partition(":")
    return {k: v.strip('"') for k, v in re.findall(r'([A-Z0-9-]+)=("[^"]*"|[^,]*)', rest)}


def wait_for_multivariant(base: str, timeout: float = 20) -> tuple[dict, bytes]:
    """Polls `{base}/index.m3u8` until it answers 200; returns its headers and body."""
    deadline = time.monotonic() + timeout
    while True:
        status, headers, body = get(f"{base}/index.m3u8")
        if status == 200:
            return headers, body
        assert time.monotonic() < deadline, f"no multivariant playlist: {status} {body[:200]}"
        time.sleep(0.3)


@pytest.fixture
def live_hls(relay, procs):
    if relay.target != "onair":
        pytest.skip("LL-HLS is ours only")
    publisher = start_peer(procs, "publisher", "whip_publisher.py", "--url", relay.whip_url(ROOM),
                           *(["--token", relay.publish_token] if relay.publish_token else []), timeout=120)
    publisher.wait_event("connected", timeout=20)
    base = f"{relay.base_url}/hls/{ROOM}"
    headers, body = wait_for_multivariant(base)
    media_uri = [l for l in body.decode().splitlines() if l and not l.startswith("#")][0]
    return relay, publisher, base, f"{base}/{media_uri}", headers, body.decode()


def test_playlists_follow_ll_hls_rules(live_hls):
    relay, publisher, base, media_url, headers, multivariant = live_hls
    assert headers["Content-Type"] == "application/vnd.apple.mpegurl"
    variant = m3u8.loads(multivariant)
    assert variant.is_variant and len(variant.playlists) == 1
    info = variant.playlists[0].stream_info
    assert info.codecs.startswith("avc1.") and "mp4a.40.2" in info.codecs, info.codecs
    assert info.resolution == (640, 480) and info.bandwidth > 0

    time.sleep(5)  # a couple of segments
    status, headers, body = get(media_url)
    assert status == 200 and headers["Content-Type"] == "application/vnd.apple.mpegurl"
    assert "no-cache" in headers.get("Cache-Control", "") or "max-age" in headers.get("Cache-Control", "")
    text = body.decode()
    playlist = m3u8.loads(text, uri=media_url)
    lines = text.splitlines()
    target = playlist.target_duration
    part_target = float(attributes(next(l for l in lines if l.startswith("#EXT-X-PART-INF")))["PART-TARGET"])
    control = attributes(next(l for l in lines if l.startswith("#EXT-X-SERVER-CONTROL")))
    assert control["CAN-BLOCK-RELOAD"] == "YES"
    assert float(control["PART-HOLD-BACK"]) >= 3 * part_target - 1e-6
    assert float(control["HOLD-BACK"]) >= 3 * target
    assert 0.2 <= part_target <= 0.34
    assert any(l.startswith("#EXT-X-MAP:") for l in lines)
    assert any(l.startswith("#EXT-X-PROGRAM-DATE-TIME:") for l in lines)
    assert "#EXT-X-INDEPENDENT-SEGMENTS" in lines
    assert sum(l.startswith("#EXT-X-PRELOAD-HINT:") for l in lines) == 1
    parts = [attributes(l) for l in lines if l.startswith("#EXT-X-PART:")]
    assert parts and all(float(p["DURATION"]) <= part_target + 1e-3 for p in parts)
    assert any(p.get("INDEPENDENT") == "YES" for p in parts)
    complete = [segment for segment in playlist.segments if segment.uri]
    assert complete, "no complete segment after 5 s"
    for segment in complete:
        assert round(segment.duration) <= target
    # Parts and segments are immutable, with the right type.
    status, headers, _ = get(f"{media_url.rsplit('/', 1)[0]}/{parts[-1]['URI']}")
    assert status == 200 and headers["Content-Type"] == "video/mp4" and "immutable" in headers["Cache-Control"]
    # Blocking-reload errors (RFC 8216bis §6.2.5.2).
    assert get(f"{media_url}?_HLS_part=1")[0] == 400
    assert get(f"{media_url}?_HLS_msn=99999")[0] == 400


def test_ffprobe_decodes_ten_seconds_of_video_and_audio(live_hls):
    relay, publisher, base, media_url, _, _ = live_hls
    time.sleep(11)
    for stream, field in (("v:0", "codec_name,width,height,nb_read_frames"), ("a:0", "codec_name,sample_rate,channels,nb_read_frames")):
        result = subprocess.run(
            ["ffprobe", "-v", "error", "-live_start_index", "0", "-read_intervals", "%+10", "-count_frames",
             "-select_streams", stream, "-show_entries", f"stream={field}", "-of", "csv=p=0", f"{base}/index.m3u8"],
            capture_output=True, text=True, timeout=60)
        assert result.returncode == 0, result.stderr
        assert result.stderr.strip() == "", f"ffprobe complained: {result.stderr[:500]}"
        values = [l for l in result.stdout.splitlines() if l.strip()][-1].split(",")
        if stream == "v:0":
            assert values[:3] == ["h264", "640", "480"], values
            assert int(values[3]) >= 250, f"only {values[3]} video frames in 10 s"
        else:
            assert values[:3] == ["aac", "48000", "2"], values
            assert int(values[3]) >= 400, f"only {values[3]} audio frames in 10 s"


def test_blocking_reload_answers_when_the_part_appears_and_ends_with_endlist(live_hls):
    relay, publisher, base, media_url, _, _ = live_hls
    time.sleep(3)
    lags = []
    for _ in range(8):
        text = get(media_url)[2].decode()
        playlist = m3u8.loads(text)
        hint = attributes(next(l for l in text.splitlines() if l.startswith("#EXT-X-PRELOAD-HINT")))["URI"]
        # The hinted part: its request is held until the part is complete, then answered.
        started = time.monotonic()
        status, _, part = get(f"{media_url.rsplit('/', 1)[0]}/{hint}")
        held = time.monotonic() - started
        assert status == 200 and len(part) > 0
        # The playlist listing that part must now be answered at once.
        msn = playlist.media_sequence + len([s for s in playlist.segments if s.uri])
        started = time.monotonic()
        status, _, _ = get(f"{media_url}?_HLS_msn={msn}&_HLS_part=0")
        lags.append(time.monotonic() - started)
        assert status == 200
        assert held <= 1.0, f"hinted part held {held:.3f}s"
    assert sorted(lags)[len(lags) // 2] < 0.5, lags

    # A request for a part that will never come is released by the end of the stream.
    text = get(media_url)[2].decode()
    playlist = m3u8.loads(text)
    msn = playlist.media_sequence + len([s for s in playlist.segments if s.uri]) + 1
    result = {}

    def waiting():
        started = time.monotonic()
        result["response"] = get(f"{media_url}?_HLS_msn={msn}&_HLS_part=0", timeout=20)
        result["at"] = time.monotonic()

    thread = threading.Thread(target=waiting)
    thread.start()
    time.sleep(0.3)
    publisher.signal()  # SIGTERM: DELETE -> stream ends
    stopped = time.monotonic()
    thread.join(15)
    status, _, body = result["response"]
    assert status == 200, (status, body[:200])
    assert "#EXT-X-ENDLIST" in body.decode()
    assert "#EXT-X-PRELOAD-HINT" not in body.decode()
    assert result["at"] - stopped < 3.0, f"released {result['at'] - stopped:.2f}s after the end"


def test_held_request_for_the_next_part_returns_within_50ms(live_hls):
    """RFC 8216bis §6.2.5.2: a playlist request for a part that does not exist yet is held and
    answered as soon as the part is published. Publication time: the relay's debug log
    (`HLS part published ... unix_us=`), same machine, same clock."""
    relay, publisher, base, media_url, _, _ = live_hls
    time.sleep(2)
    rounds = []
    for _ in range(10):
        text = get(media_url)[2].decode()
        playlist = m3u8.loads(text)
        msn = playlist.media_sequence + len([s for s in playlist.segments if s.uri])
        index = len(re.findall(r"#EXT-X-PART:", text.split("#EXTINF")[-1])) if "#EXTINF" in text else 0
        status, _, body = get(f"{media_url}?_HLS_msn={msn}&_HLS_part={index}")
        arrived = time.time()
        assert status == 200, (status, body[:200])
        newest = max(int(n) for n in re.findall(r'#EXT-X-PART:[^\n]*URI="part(\d+)\.m4s"', body.decode()))
        rounds.append((newest, arrived))
    time.sleep(0.2)
    published = {}
    for line in relay.process.log_text().splitlines():
        if "HLS part published" in line:
            part, at = re.search(r"\bpart=(\d+)", line), re.search(r"unix_us=(\d+)", line)
            if part and at:
                published[int(part.group(1))] = int(at.group(1)) / 1e6
    lags = sorted((arrived - published[part]) * 1000 for part, arrived in rounds if part in published)
    print(f"\nheld request -> answer after publication: {[round(l, 1) for l in lags]} ms")
    assert len(lags) >= 8, f"publication times missing for {len(rounds) - len(lags)} of {len(rounds)} parts"
    assert all(l > -5 for l in lags), "answered before the part existed?"
    within = sum(1 for l in lags if l <= 50)
    # The bound is 50 ms; a loaded CI box may stall one round, never most of them.
    assert within >= len(lags) - 1 and lags[len(lags) // 2] <= 50, lags


@pytest.mark.chromium
def test_chromium_plays_room_page_over_ll_hls(live_hls, procs, tmp_path):
    """Native HLS in Chromium's <video>: /rooms/42?hls plays for more than ten seconds while
    parts and segments slide through the playlist."""
    import asyncio
    import os
    from pathlib import Path

    from chromium import Chromium

    relay, publisher, base, media_url, _, _ = live_hls

    async def scenario():
        browser = Chromium(spawn=lambda argv: procs.start("chromium", argv, timeout=120))
        try:
            await browser.start()
            tab = await browser.open(f"{relay.base_url}/rooms/{ROOM}?hls", name="hls-viewer")
            await tab.wait_for("window.onairViewer", lambda r: r and r["state"] == "live" and r["frames"] >= 30, timeout=40)
            first = await tab.json("window.onairViewer")
            sequence_before = m3u8.loads(get(media_url)[2].decode()).media_sequence
            await asyncio.sleep(12)
            second = await tab.json("window.onairViewer")
            sequence_after = m3u8.loads(get(media_url)[2].decode()).media_sequence
            artifacts = Path(os.environ.get("ONAIR_INTEROP_ARTIFACTS") or tmp_path)
            artifacts.mkdir(parents=True, exist_ok=True)
            await tab.screenshot(artifacts / "room-hls.png")
            return first, second, sequence_before, sequence_after
        finally:
            await browser.close()

    first, second, before, after = asyncio.run(asyncio.wait_for(scenario(), 110))
    assert first["mode"] == "hls", first
    assert second["currentTime"] - first["currentTime"] >= 10, (first, second)
    assert second["frames"] - first["frames"] >= 200, (first, second)
    assert (second["width"], second["height"]) == (640, 480), second
    assert second["state"] == "live", second
    # Twelve seconds are six segments: parts of the first ones have left the playlist.
    assert after >= before, (before, after)
