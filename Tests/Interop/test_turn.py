"""TURN with ephemeral credentials (issue 26, part 2): Debian's coturn (coturn.py: a plain
process of the test, `use-auth-secret` with a random `static-auth-secret`) and our relay told
the same secret (ONAIR_TURN_URLS / ONAIR_TURN_SECRET / ONAIR_TURN_TTL), which mints a credential
per request (TURN REST API, draft-uberti-behave-turn-rest-00 §2.2) into its `Link:
rel="ice-server"` headers (RFC 9725 §4.6). Everything on 127.0.0.1.

  links          OPTIONS /whip/42, OPTIONS /whep/42 and POST /whep/42 (an aiortc offer) carry the
                 static ice_servers entry and a TURN link whose username is `<expiry>:42`, expiry
                 ~ttl ahead, credential base64(HMAC-SHA1(secret, username)) as computed here
                 with Python's hmac; a later request gets a later expiry (minted per request).
                 coturn itself judges them, through aioice's TURN client: the relay's credential
                 allocates, an expired one (`<past>:42` with the right HMAC) and a tampered one
                 (a later expiry under the old password) are refused with 401.
  chromium       the viewer page with ?relay (iceTransportPolicy "relay") plays through coturn:
                 window.onairViewer.path "webrtc-relay", its selected local candidate a relay
                 candidate from coturn's URL, frames rising; coturn logged the allocation of
                 `<expiry>:42`. Publisher: `broadcast` (test pattern), single-layer and --simulcast.

The `broadcast` binary: ONAIR_BROADCAST_BIN, else the one beside ONAIR_RELAY_BIN (one build),
else .build/debug/broadcast.

  ONAIR_RELAY_BIN=$PWD/.build/debug/relay .venv-interop/bin/python -m pytest -s -q Tests/Interop/test_turn.py
"""

from __future__ import annotations

import asyncio
import base64
import hashlib
import hmac
import os
import re
import shutil
import sys
import time
from pathlib import Path

import aiohttp
import pytest
from aioice import stun
from aioice.turn import create_turn_endpoint

from chromium import RECORD_PEER_CONNECTIONS, Chromium
from test_chromium import artifacts_dir
from conftest import launch_relay
from coturn import start_coturn
from harness import PEERS_DIR, REPO, ProcessGroup

sys.path.insert(0, str(PEERS_DIR))
from aiortc import RTCConfiguration, RTCPeerConnection  # noqa: E402

ROOM = "42"
TTL = 600                 # ONAIR_TURN_TTL: not the default (3600), so the override shows
SCENARIO_TIMEOUT = 90
MIN_FPS = 20              # frames the page presents per second through the TURN relay


def broadcast_binary() -> Path:
    configured = os.environ.get("ONAIR_BROADCAST_BIN")
    beside_relay = os.environ.get("ONAIR_RELAY_BIN")
    for candidate in (configured, beside_relay and str(Path(beside_relay).parent / "broadcast"),
                      str(REPO / ".build" / "debug" / "broadcast")):
        if candidate and os.access(candidate, os.X_OK):
            return Path(candidate)
    pytest.fail("broadcast binary not built (swift build, or set ONAIR_BROADCAST_BIN)", pytrace=False)


# -- what the relay answers ---------------------------------------------------------------

def parse_links(values: list[str]) -> list[dict]:
    """RFC 8288 §3 Link field values -> [{"url": ..., "rel": ..., "username": ..., ...}]
    (quoted-string or token parameters; several links per field, comma separated)."""
    links = []
    for value in values:
        for match in re.finditer(r'<([^>]*)>((?:\s*;\s*[\w-]+\s*=\s*(?:"(?:[^"\\]|\\.)*"|[^;,\s]*))*)', value):
            link = {"url": match.group(1)}
            for name, quoted, token in re.findall(r';\s*([\w-]+)\s*=\s*(?:"((?:[^"\\]|\\.)*)"|([^;,\s]*))', match.group(2)):
                link[name.lower()] = re.sub(r"\\(.)", r"\1", quoted) if quoted or not token else token
            links.append(link)
    return links


def expected_password(secret: str, username: str) -> str:
    """The TURN REST API's password, computed independently of the relay: base64(HMAC-SHA1)."""
    return base64.b64encode(hmac.new(secret.encode(), username.encode(), hashlib.sha1).digest()).decode()


def check_turn_link(links: list[dict], coturn, asked_at: float, what: str) -> dict:
    """The TURN link among `links`: coturn's URL, `<expiry>:42` with expiry ~TTL after the
    request, the HMAC password. Returns it."""
    turn = [link for link in links if link["url"].startswith("turn:")]
    assert len(turn) == 1, f"{what}: expected one TURN link, got {links}"
    link = turn[0]
    assert link["url"] == coturn.url and link.get("rel") == "ice-server", f"{what}: {link}"
    expiry, _, user = link["username"].partition(":")
    assert user == ROOM and expiry.isdigit(), f"{what}: username {link['username']!r} is not <expiry>:{ROOM}"
    ahead = int(expiry) - asked_at
    assert TTL - 5 <= ahead <= TTL + 5, f"{what}: expiry {expiry} is {ahead:.0f} s ahead, expected ~{TTL}"
    assert link["credential"] == expected_password(coturn.secret, link["username"]), f"{what}: wrong credential {link}"
    assert link.get("credential-type", "password") == "password", f"{what}: {link}"
    return link


async def allocate(coturn, username: str, password: str) -> tuple[str, int] | int:
    """A TURN Allocate (RFC 8656 §7) at coturn with these credentials through aioice's client:
    the relayed address, or the error code coturn answered."""
    try:
        transport, _ = await asyncio.wait_for(
            create_turn_endpoint(asyncio.DatagramProtocol, coturn.address, username, password), 10)
    except stun.TransactionFailed as error:
        return error.response.attributes["ERROR-CODE"][0]
    relayed = transport.get_extra_info("sockname")
    transport.close()
    await asyncio.sleep(0.1)  # lets the Refresh(lifetime 0) go out
    return relayed


@pytest.fixture
def coturn(procs, tmp_path):
    return start_coturn(procs, tmp_path)


@pytest.fixture
def turn_relay(coturn, procs, tmp_path):
    # Next to the minted TURN credential, a static ice_servers entry (coturn answers STUN too).
    return launch_relay("onair", procs, tmp_path, extra_env={
        "ONAIR_TURN_URLS": coturn.url, "ONAIR_TURN_SECRET": coturn.secret, "ONAIR_TURN_TTL": str(TTL),
        "ONAIR_ICE_SERVERS": f"stun:127.0.0.1:{coturn.port}"})


def start_broadcast(procs: ProcessGroup, relay, simulcast: bool):
    args = ["start", "--room", ROOM, "--relay", relay.base_url, "--fps", "30"]
    args += ["--simulcast", "--size", "1280x720", "--preset", "ultrafast"] if simulcast else ["--size", "640x360"]
    env = {**os.environ, "ONAIR_BROADCAST_TOKEN": relay.publish_token}
    return procs.start("broadcast", [str(broadcast_binary()), *args], timeout=SCENARIO_TIMEOUT + 60,
                       cwd=str(procs.log_dir), env=env)


async def wait_live(relay, publisher, timeout: float = 20) -> None:
    deadline = time.monotonic() + timeout
    async with aiohttp.ClientSession() as http:
        while True:
            assert publisher.poll() is None, f"broadcast exited ({publisher.returncode}):\n{publisher.log_text()[-2000:]}"
            async with http.get(f"{relay.base_url}/api/streams/{ROOM}") as response:
                if response.status == 200 and (await response.json()).get("live"):
                    return
            assert time.monotonic() < deadline, f"room {ROOM} not live within {timeout} s"
            await asyncio.sleep(0.2)


# -- the tests ------------------------------------------------------------------------------

def test_links_carry_fresh_turn_credentials_that_coturn_checks(turn_relay, coturn, procs):
    publisher = start_broadcast(procs, turn_relay, simulcast=False)
    summary = asyncio.run(asyncio.wait_for(links_scenario(turn_relay, coturn, publisher), SCENARIO_TIMEOUT))
    print(f"\n{coturn.version()}: {summary}")


async def links_scenario(relay, coturn, publisher) -> dict:
    await wait_live(relay, publisher)
    async with aiohttp.ClientSession() as http:
        async def links_of(method: str, url: str, **kwargs) -> tuple[list[dict], float, aiohttp.ClientResponse]:
            asked = time.time()
            async with http.request(method, url, **kwargs) as response:
                await response.read()
                return parse_links(response.headers.getall("Link", [])), asked, response

        found = {}
        for kind, url in (("whip", relay.whip_url(ROOM)), ("whep", relay.whep_url(ROOM))):
            links, asked, response = await links_of("OPTIONS", url)
            assert response.status == 204, f"OPTIONS {url} -> {response.status}"
            assert {"url": f"stun:127.0.0.1:{coturn.port}", "rel": "ice-server"} in links, links
            found[f"options {kind}"] = check_turn_link(links, coturn, asked, f"OPTIONS /{kind}/{ROOM}")

        # Minted per request: a second later, a later expiry (and so another password).
        await asyncio.sleep(1.1)
        links, asked, _ = await links_of("OPTIONS", relay.whep_url(ROOM))
        again = check_turn_link(links, coturn, asked, "OPTIONS again")
        first = found["options whep"]
        assert int(again["username"].split(":")[0]) > int(first["username"].split(":")[0]), (first, again)
        assert again["credential"] != first["credential"], (first, again)

        # POST /whep/42: a real offer (aiortc), a 201 with the links; the session is deleted again.
        pc = RTCPeerConnection(RTCConfiguration(iceServers=[]))
        try:
            pc.addTransceiver("video", direction="recvonly")
            pc.addTransceiver("audio", direction="recvonly")
            await pc.setLocalDescription(await pc.createOffer())
            links, asked, response = await links_of("POST", relay.whep_url(ROOM), data=pc.localDescription.sdp,
                                                    headers={"Content-Type": "application/sdp"})
            assert response.status == 201, f"POST /whep/{ROOM} -> {response.status}"
            posted = check_turn_link(links, coturn, asked, f"POST /whep/{ROOM}")
            async with http.delete(relay.base_url + response.headers["Location"]) as deleted:
                assert deleted.status in (200, 204), deleted.status
        finally:
            await pc.close()

    # coturn is the judge: the relay's credential allocates, an expired or tampered one does not.
    relayed = await allocate(coturn, posted["username"], posted["credential"])
    assert isinstance(relayed, tuple) and relayed[0] == "127.0.0.1", f"coturn refused the relay's credential: {relayed}"
    expired_name = f"{int(time.time()) - 60}:{ROOM}"
    expired = await allocate(coturn, expired_name, expected_password(coturn.secret, expired_name))
    assert expired == 401, f"coturn answered an expired credential with {expired}, expected 401"
    later = f"{int(posted['username'].split(':')[0]) + 3600}:{ROOM}"
    tampered = await allocate(coturn, later, posted["credential"])
    assert tampered == 401, f"coturn answered a tampered username with {tampered}, expected 401"
    return {"post_username": posted["username"], "relayed": relayed, "expired": expired, "tampered": tampered,
            "ttl_ahead_s": int(posted["username"].split(":")[0]) - int(asked)}


@pytest.mark.chromium
@pytest.mark.parametrize("simulcast", [False, True], ids=["single", "simulcast"])
def test_room_page_plays_through_coturn_relay_only(turn_relay, coturn, procs, tmp_path, simulcast):
    if not shutil.which(Chromium().binary) and not Path(Chromium().binary).exists():
        pytest.fail("chromium is not installed (tools/setup.sh installs it)")
    publisher = start_broadcast(procs, turn_relay, simulcast)
    summary = asyncio.run(asyncio.wait_for(chromium_scenario(turn_relay, coturn, publisher, procs, tmp_path, simulcast),
                                           SCENARIO_TIMEOUT))
    print(f"\nroom.html ?relay via {coturn.version()} ({'simulcast' if simulcast else 'single-layer'}): {summary}")


SELECTED_LOCAL_CANDIDATE = """(async () => {
  const pcs = (window.__onairPeerConnections || []).filter((pc) => pc.connectionState !== "closed");
  if (!pcs.length) return null;
  const report = await pcs[pcs.length - 1].getStats();
  let found = null;
  report.forEach((s) => {
    if (s.type !== "transport" || !s.selectedCandidatePairId) return;
    const pair = report.get(s.selectedCandidatePairId);
    const local = pair && report.get(pair.localCandidateId), remote = pair && report.get(pair.remoteCandidateId);
    if (local) found = { type: local.candidateType, protocol: local.protocol, relayProtocol: local.relayProtocol,
                         url: local.url, address: local.address, port: local.port,
                         remote: remote ? `${remote.candidateType} ${remote.protocol} ${remote.address}:${remote.port}` : null };
  });
  return found;
})()"""


async def chromium_scenario(relay, coturn, publisher, procs, tmp_path: Path, simulcast: bool) -> dict:
    await wait_live(relay, publisher)
    console = tmp_path / "console-viewer.log"
    procs.extra_logs.append(console)
    browser = Chromium(spawn=lambda argv: procs.start("chromium", argv, timeout=SCENARIO_TIMEOUT + 30))
    try:
        await browser.start()
        viewer = await browser.open(f"{relay.base_url}/rooms/{ROOM}?relay&chat=off", name="viewer",
                                    init_script=RECORD_PEER_CONNECTIONS)
        failed = lambda v: v.get("path") == "hls" or v.get("fellBack")  # noqa: E731
        state = await viewer.wait_for("window.onairViewer", lambda v: v and v["state"] == "live"
                                      and v["path"] == "webrtc-relay" and v["sessionFrames"] >= 10, timeout=20, fail=failed)
        assert state["iceTransportPolicy"] == "relay" and coturn.url in state["iceServers"], state
        local = await viewer.evaluate(SELECTED_LOCAL_CANDIDATE, await_promise=True)
        assert local and local["type"] == "relay" and local["relayProtocol"] == "udp", local
        assert local.get("url") in (None, coturn.url), local  # Chromium names the TURN server it came from
        before, started = state["frames"], time.monotonic()
        await asyncio.sleep(5)
        after = await viewer.json("window.onairViewer")
        fps = (after["frames"] - before) / (time.monotonic() - started)
        assert after["path"] == "webrtc-relay" and after["reconnects"] == 0 and after["sessions"] == 1, after
        assert fps >= MIN_FPS, f"{fps:.1f} frames/s through coturn, target >= {MIN_FPS}: {after}"
        # What a person sees: the stats line names the path.
        await viewer.wait_for("document.getElementById('stats').textContent", lambda text: text and "TURN relay" in text,
                              timeout=5)
        shot = await viewer.screenshot(artifacts_dir(tmp_path) / f"room-turn-{'simulcast' if simulcast else 'single'}.png")
        # coturn's own word: it allocated for the relay's `<expiry>:42` and relayed for it.
        allocations = re.findall(rf"user <(\d+:{ROOM})>: incoming packet ALLOCATE processed, success", coturn.log())
        assert allocations, f"coturn logged no successful ALLOCATE for a {ROOM} credential:\n{coturn.log()[-3000:]}"
        return {"first_frame_after_navigation_ms": after["firstFrameAtMs"], "first_frame_after_session_ms": after["firstFrameMs"],
                "fps": round(fps, 1), "stats_fps": after["fps"], "size": f"{after['width']}x{after['height']}",
                "kbps": after["kbps"], "local": local, "coturn_allocations": sorted(set(allocations)), "screenshot": str(shot)}
    finally:
        for tab in browser.tabs:
            console.write_text("\n".join(tab.console) + "\n")
        await browser.close()
