"""Headless Chromium (the real browser) against the relay: a test page publishes the fake
camera over WHIP (H.264 preferred) to room 42; a second window opens the viewer page
room.html (served by the relay at /rooms/42, or by the test's web server for a relay
that does not serve it) and must show advancing video. Screenshots land in the test's
tmp dir (or in $ONAIR_INTEROP_ARTIFACTS)."""

from __future__ import annotations

import asyncio
import os
import shutil
import time
from pathlib import Path
from urllib.parse import quote

import aiohttp
import pytest
from aiohttp import web

from chromium import Chromium, start_web_server
from harness import ROOM_PAGE

ROOM = "42"
SCENARIO_TIMEOUT = 120


def artifacts_dir(tmp_path: Path) -> Path:
    path = Path(os.environ.get("ONAIR_INTEROP_ARTIFACTS") or tmp_path)
    path.mkdir(parents=True, exist_ok=True)
    return path


@pytest.mark.chromium
@pytest.mark.parametrize("simulcast", [False, True], ids=["single", "simulcast"])
def test_chromium_publishes_and_room_page_plays(relay, procs, tmp_path, simulcast):
    if not shutil.which(Chromium().binary) and not Path(Chromium().binary).exists():
        pytest.fail("chromium is not installed (tools/setup.sh installs it)")
    if simulcast and relay.target == "pion":
        pytest.skip("the reference relay does not handle simulcast")
    started = time.monotonic()
    summary = asyncio.run(asyncio.wait_for(scenario(relay, procs, tmp_path, simulcast), SCENARIO_TIMEOUT))
    print(f"chromium WHIP->room.html against {relay.target}: {time.monotonic() - started:.1f}s, {summary}")


async def scenario(relay, procs, tmp_path: Path, simulcast: bool = False) -> dict:
    runner, site = await start_web_server(relay)
    consoles = {name: tmp_path / f"console-{name}.log" for name in ("publisher", "viewer")}
    procs.extra_logs.extend(consoles.values())
    browser = Chromium(spawn=lambda argv: procs.start("chromium", argv, timeout=SCENARIO_TIMEOUT + 30))
    try:
        await browser.start()
        # Publisher: through our server (same origin), unless the relay speaks CORS itself.
        whip = relay.whip_url(ROOM) if relay.cors else f"{site}/whip/{ROOM}"
        query = f"whip={quote(whip, safe='')}" + (f"&token={quote(relay.publish_token)}" if relay.publish_token else "")
        if simulcast:
            query += "&simulcast=qhf&size=1280x720"
        publisher = await browser.open(f"{site}/publisher.html?{query}", name="publisher")
        failed = lambda r: r.get("state") in ("error", "failed")  # noqa: E731
        await publisher.wait_for("window.result", lambda r: r and r["state"] == "connected", timeout=20, fail=failed)
        pub = await publisher.wait_for("window.result", lambda r: r["framesSent"] >= 30, timeout=15, fail=failed)
        assert "H264" in pub["videoCodec"], pub
        if simulcast:
            layers = await wait_for_layers(relay, {"q": (320, 180), "h": (640, 360), "f": (1280, 720)}, forwarded="f",
                                           timeout=25)
            print("layers received:", layers)

        if relay.serves_room_page:
            viewer_url = f"{relay.base_url}/rooms/{ROOM}"
        else:
            viewer_url = f"{site}/rooms/{ROOM}?whep={quote(f'{site}/whep/{ROOM}', safe='')}"
        viewer = await browser.open(viewer_url, name="viewer")
        live = await viewer.wait_for("window.onairViewer",
                                     lambda r: r and r["state"] == "live" and r["frames"] >= 30, timeout=25)
        before = await viewer.json("window.onairViewer")
        await asyncio.sleep(2.5)  # let the stats line fill in too
        after = await viewer.json("window.onairViewer")
        assert after["currentTime"] - before["currentTime"] >= 1.5, (before, after)
        frame_rate = (after["frames"] - before["frames"]) / 2.5
        assert frame_rate >= 10, f"only {frame_rate:.1f} frames/s via requestVideoFrameCallback ({after})"
        assert after["state"] == "live" and after["width"] > 0 and after["height"] > 0, after
        assert "H264" in after["videoCodec"], after
        assert after["audioBytes"] > 0, f"no audio arrived: {after}"
        shot = await viewer.screenshot(artifacts_dir(tmp_path) / f"room-{relay.target}.png")
        quality = {}
        if simulcast and relay.target == "onair":
            quality = await choose_quality(viewer, tmp_path)

        # The publisher's bandwidth estimate shows whether our transport-cc/REMB feedback works.
        print("publisher stats:", await publisher.json("window.result"))

        # The end: the viewer page must leave "live" once the publisher DELETEs its session.
        delete_status = await publisher.evaluate("window.stopPublishing()", await_promise=True)
        if relay.deletes_sessions:
            assert delete_status in (200, 204), f"DELETE -> {delete_status}"
        stopped = time.monotonic()
        end_within = 8 if relay.signals_end else 12  # the reference relay: only the stall detector (5 s)
        gone = await viewer.wait_for("window.onairViewer", lambda r: r["state"] != "live", timeout=end_within)
        ended_after = time.monotonic() - stopped
        ended_shot = await viewer.screenshot(artifacts_dir(tmp_path) / f"room-{relay.target}-ended.png")
        return {"first_frame_ms": live["firstFrameMs"], "fps": after["fps"], "kbps": after["kbps"],
                "size": f"{after['width']}x{after['height']}", "end_seen_after_s": round(ended_after, 1),
                "state_after_end": gone["state"], "detail": gone["detail"], "screenshots": [str(shot), str(ended_shot)],
                **quality}
    finally:
        for tab in browser.tabs:
            consoles.get(tab.name, tmp_path / f"console-{tab.name}.log").write_text("\n".join(tab.console) + "\n")
        await browser.close()
        await runner.cleanup()


async def choose_quality(viewer, tmp_path: Path) -> dict:
    """The page's quality menu: it lists Auto and each layer; choosing 320x180 makes the relay
    send that layer (the decoder's frameWidth from getStats() follows) and the page shows it;
    Auto brings the full picture back."""
    menu = await viewer.wait_for("[...document.getElementById('quality').options].map(o => o.value)",
                                 lambda values: values and len(values) >= 4, timeout=10)
    assert menu[0] == "" and {"180", "360", "720"} <= set(menu), menu
    await viewer.select("quality", "180")
    forced = await viewer.wait_for("window.onairViewer", lambda r: r["width"] == 320 and r["height"] == 180
                                   and (r.get("layer") or {}).get("height") == 180, timeout=15)
    # The stats line is redrawn once a second (the decoder's size may be newer than it).
    await viewer.wait_for("document.getElementById('stats').textContent", lambda text: text and "320×180" in text,
                          timeout=5)
    await viewer.screenshot(artifacts_dir(tmp_path) / "room-onair-180.png")
    await viewer.select("quality", "")
    back = await viewer.wait_for("window.onairViewer", lambda r: r["width"] == 1280 and r["height"] == 720, timeout=15)
    return {"forced": f"{forced['width']}x{forced['height']} layer {forced['layer']}", "auto_again": f"{back['width']}x{back['height']}"}


async def wait_for_layers(relay, expected: dict[str, tuple[int, int]], forwarded: str, timeout: float) -> list[dict]:
    """Polls /api/streams/{room} until every expected rid is listed, sending, at its size
    (Chromium starts its top layer only once its bandwidth estimate allows it), and the
    biggest one is primary: the one HLS packages (libwebrtc lists q;h;f smallest first)."""
    deadline = time.monotonic() + timeout
    layers: list[dict] = []
    async with aiohttp.ClientSession() as http:
        while time.monotonic() < deadline:
            async with http.get(f"{relay.base_url}/api/streams/{ROOM}") as response:
                layers = (await response.json()).get("layers", [])
            seen = {layer["rid"]: layer for layer in layers if layer.get("active") and layer.get("rid")}
            if all(rid in seen and (seen[rid].get("width"), seen[rid].get("height")) == size
                   and seen[rid]["fps"] > 0 and seen[rid]["bitrate_kbps"] > 0 for rid, size in expected.items()) \
                    and [layer["rid"] for layer in layers if layer["primary"]] == [forwarded]:
                return layers
            await asyncio.sleep(0.5)
    raise AssertionError(f"not every layer of {expected} was received and listed within {timeout} s: {layers}")


@pytest.mark.chromium
def test_room_page_waits_offline_and_honours_retry_after(procs, tmp_path):
    """room.html alone (no relay needed): a WHEP endpoint that answers 409 + Retry-After
    must show OFFLINE, retry no sooner than Retry-After, and send ?token= as Bearer."""
    summary = asyncio.run(asyncio.wait_for(offline_scenario(procs, tmp_path), 60))
    print(f"room.html offline retry: {summary}")


async def offline_scenario(procs, tmp_path: Path) -> dict:
    posts: list[tuple[float, str | None]] = []

    async def whep(request: web.Request) -> web.Response:
        await request.read()
        posts.append((time.monotonic(), request.headers.get("Authorization")))
        return web.Response(status=409, text=f"room {request.match_info['room']} is not live",
                            headers={"Retry-After": "1"})

    async def room_page(_request: web.Request) -> web.Response:
        return web.Response(body=ROOM_PAGE.read_bytes(), content_type="text/html")

    app = web.Application()
    app.router.add_get("/rooms/{room}", room_page)
    app.router.add_post("/whep/{room}", whep)
    runner = web.AppRunner(app, access_log=None)
    await runner.setup()
    site = web.TCPSite(runner, "127.0.0.1", 0)
    await site.start()
    base = f"http://127.0.0.1:{site._server.sockets[0].getsockname()[1]}"
    browser = Chromium(spawn=lambda argv: procs.start("chromium", argv, timeout=90))
    try:
        await browser.start()
        tab = await browser.open(f"{base}/rooms/{ROOM}?token=viewer-secret", name="viewer")
        await tab.set_viewport(390, 844, mobile=True)  # and check the layout on a phone-sized screen
        state = await tab.wait_for("window.onairViewer",
                                   lambda r: r and r["state"] == "offline" and r["offlineResponses"] >= 3, timeout=10)
        shot = await tab.screenshot(artifacts_dir(tmp_path) / "room-offline-narrow.png")
        gaps = [round(b[0] - a[0], 2) for a, b in zip(posts, posts[1:])]
        assert all(gap >= 0.9 for gap in gaps), f"retried sooner than Retry-After: 1 ({gaps})"
        assert all(auth == "Bearer viewer-secret" for _, auth in posts), posts
        assert state["whepUrl"] == f"{base}/whep/{ROOM}", state
        return {"posts": len(posts), "gaps": gaps, "screenshot": str(shot)}
    finally:
        for tab in browser.tabs:
            (tmp_path / f"console-{tab.name}.log").write_text("\n".join(tab.console) + "\n")
        await browser.close()
        await runner.cleanup()
