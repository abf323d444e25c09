"""Hostile input against a relay that is carrying a live stream: garbage UDP datagrams of
every RFC 7983 class on the shared media port, and HTTP abuse of the WHIP/WHEP endpoints.
The stream (an aiortc publisher and viewer in room 42) must not notice: the relay stays up,
keeps counting packets in, and the viewer keeps decoding the frames it is sent."""

from __future__ import annotations

import asyncio
import hashlib
import hmac
import json
import os
import random
import re
import socket
import struct
import sys
import threading
import time
import urllib.error
import urllib.request
import zlib

import pytest

from harness import PEERS_DIR, start_peer

ROOM = "42"
MIN_DELIVERY = 0.90     # decoded distinct frames / frames sent in the viewer's window
DATAGRAMS_PER_CLASS = 500
STUN_MAGIC = 0x2112A442


# -- HTTP ---------------------------------------------------------------------------------

def http(method: str, url: str, body: bytes | None = None, headers: dict | None = None, timeout: float = 10):
    """(status, headers, body) without raising on 4xx/5xx; (None, {}, error) when the
    connection itself failed."""
    request = urllib.request.Request(url, data=body, method=method, headers=headers or {})
    try:
        with urllib.request.urlopen(request, timeout=timeout) as response:
            return response.status, dict(response.headers), response.read()
    except urllib.error.HTTPError as error:
        return error.code, dict(error.headers), error.read()
    except (urllib.error.URLError, ConnectionError, TimeoutError) as error:
        return None, {}, repr(error).encode()


def stream_state(relay) -> dict:
    status, _, body = http("GET", f"{relay.base_url}/api/streams/{ROOM}")
    assert status == 200, (status, body[:300])
    return json.loads(body)


def unroutable_datagrams(relay) -> float:
    status, _, body = http("GET", f"{relay.base_url}/metrics")
    assert status == 200, status
    match = re.search(rb"^onair_udp_datagrams_unroutable_total (\S+)$", body, re.MULTILINE)
    assert match, "no onair_udp_datagrams_unroutable_total in /metrics"
    return float(match.group(1))


def aiortc_offer(direction: str) -> str:
    """A real aiortc offer (video + audio), for sessions that never send media."""
    sys.path.insert(0, str(PEERS_DIR))
    from aiortc import RTCConfiguration, RTCPeerConnection
    from common import allow_loopback

    async def make() -> str:
        allow_loopback()
        pc = RTCPeerConnection(RTCConfiguration(iceServers=[]))
        pc.addTransceiver("video", direction=direction)
        pc.addTransceiver("audio", direction=direction)
        await pc.setLocalDescription(await pc.createOffer())
        sdp = pc.localDescription.sdp
        await pc.close()
        return sdp
    return asyncio.run(make())


def sdp_attribute(sdp: str, name: str) -> str:
    match = re.search(rf"^a={name}:(\S+)", sdp, re.MULTILINE)
    assert match, f"no a={name} in\n{sdp}"
    return match.group(1)


def http_abuse(relay, publisher_location: str, publisher_etag: str | None) -> list[tuple[str, int | None, bytes]]:
    """Sends every kind of bad request once; returns (what, status, body) for each. None of
    them may touch the live session."""
    base, token = relay.base_url, relay.publish_token
    auth = {"Authorization": f"Bearer {token}"} if token else {}
    sdp = {"Content-Type": "application/sdp"}
    frag = {"Content-Type": "application/trickle-ice-sdpfrag"}
    offer = aiortc_offer("sendonly")
    vp8_only = re.sub(r"a=rtpmap:(\d+) H264/90000", r"a=rtpmap:\1 VP8/90000", offer)
    restart = ("a=ice-ufrag:evil\r\na=ice-pwd:evilpasswordevilpassword\r\n"
               "m=audio 9 UDP/TLS/RTP/SAVPF 0\r\na=mid:0\r\n")
    results = []

    def run(what, method, url, body=None, headers=None):
        status, _, text = http(method, url, body, headers)
        results.append((what, status, text[:200]))

    run("no token", "POST", f"{base}/whip/{ROOM}", offer.encode(), sdp)
    run("wrong token", "POST", f"{base}/whip/{ROOM}", offer.encode(), {**sdp, "Authorization": "Bearer nope"})
    run("second publisher", "POST", f"{base}/whip/{ROOM}", offer.encode(), {**sdp, **auth})
    run("huge body", "POST", f"{base}/whip/{ROOM}", b"v=0\r\n" + os.urandom(3_000_000), {**sdp, **auth})
    run("huge viewer body", "POST", f"{base}/whep/{ROOM}", b"a=x\r\n" * 200_000, sdp)
    for content_type in ("text/plain", "application/json", "application/x-www-form-urlencoded",
                         "application/trickle-ice-sdpfrag"):
        run(f"content-type {content_type}", "POST", f"{base}/whip/{ROOM}", offer.encode(),
            {"Content-Type": content_type, **auth})
    run("no content-type", "POST", f"{base}/whep/{ROOM}", offer.encode(), {})
    shapes = {
        "text": b"hello relay",
        "json": json.dumps({"type": "offer", "sdp": offer}).encode(),
        "binary": os.urandom(2000),
        "truncated offer": offer.encode()[: len(offer) // 2],
        "no media": b"v=0\r\no=- 1 1 IN IP4 0.0.0.0\r\ns=-\r\nt=0 0\r\n",
        "bad m-line": re.sub(r"^m=video \d+", "m=video x", offer, flags=re.MULTILINE).encode(),
        "many lines": b"v=0\r\n" + b"a=x\r\n" * 12_000,
        "nul bytes": offer.replace("\r\n", "\r\n\x00", 5).encode(),
        "utf-8 mess": ("v=0\r\no=- 1 1 IN IP4 0.0.0.0\r\ns=\u00e9\u20ac\U0001F600\r\n").encode(),
    }
    for name, body in shapes.items():
        # To another room: in room 42 a parseable offer is refused first for the live publisher (409).
        run(f"invalid SDP ({name}) to WHIP", "POST", f"{base}/whip/abuse", body, {**sdp, **auth})
        run(f"invalid SDP ({name}) to WHEP", "POST", f"{base}/whep/{ROOM}", body, sdp)
    run("VP8-only offer", "POST", f"{base}/whip/other-room", vp8_only.encode(), {**sdp, **auth})
    for method in ("DELETE", "PATCH"):
        for path in (f"/whip/{ROOM}/0123456789abcdef0123456789abcdef", f"/whep/{ROOM}/x",
                     f"/whip/nowhere/abc", f"/whep/{ROOM}/..%2F..%2Fetc%2Fpasswd"):
            run(f"{method} unknown session {path}", method, base + path,
                restart.encode() if method == "PATCH" else None, {**frag, **auth})
    for path in ("/whip/bad%20room", "/whip/" + "r" * 200, "/whep/room$", "/api/streams/%00"):
        run(f"bad room id {path}", "POST" if "/api/" not in path else "GET", base + path, offer.encode(), sdp)
    # The live publisher's own resource, by someone without its token or its ETag.
    run("DELETE live session without token", "DELETE", publisher_location, None, {})
    run("PATCH live session without token", "PATCH", publisher_location, restart.encode(), frag)
    run("ICE restart of live session, stale ETag", "PATCH", publisher_location, restart.encode(),
        {**frag, **auth, "If-Match": '"0000000000000000"'})
    run("ICE restart of live session, no If-Match", "PATCH", publisher_location, restart.encode(), {**frag, **auth})
    run("garbage PATCH to live session", "PATCH", publisher_location, os.urandom(500),
        {**frag, **auth, "If-Match": publisher_etag or "*"})
    return results


EXPECTED_STATUS = {
    "no token": {401}, "wrong token": {401}, "second publisher": {409},
    "huge body": {413, None}, "huge viewer body": {413, None},
    "VP8-only offer": {422},
    "DELETE live session without token": {401}, "PATCH live session without token": {401},
    "ICE restart of live session, stale ETag": {412}, "ICE restart of live session, no If-Match": {428},
    "garbage PATCH to live session": {400},
}


def expected_status(what: str) -> set:
    if what in EXPECTED_STATUS:
        return EXPECTED_STATUS[what]
    if what.startswith("content-type") or what == "no content-type":
        return {415}
    if what.startswith("invalid SDP"):
        return {400, 422}
    if "unknown session" in what:
        return {400, 404}
    if what.startswith("bad room id"):
        return {400, 404}
    raise AssertionError(what)


# -- UDP ----------------------------------------------------------------------------------

def stun_attribute(kind: int, value: bytes) -> bytes:
    return struct.pack("!HH", kind, len(value)) + value + b"\0" * (-len(value) % 4)


def stun_binding_request(username: str, password: str | None, use_candidate: bool = False) -> tuple[bytes, bytes]:
    """(transaction id, RFC 8489 Binding request) as a controlling ICE agent sends it, with
    MESSAGE-INTEGRITY (when `password` is given) and FINGERPRINT."""
    transaction = os.urandom(12)
    attributes = stun_attribute(0x0006, username.encode())          # USERNAME
    attributes += stun_attribute(0x0024, struct.pack("!I", 0x6E7F1EFF))  # PRIORITY
    attributes += stun_attribute(0x802A, os.urandom(8))             # ICE-CONTROLLING
    if use_candidate:
        attributes += stun_attribute(0x0025, b"")                   # USE-CANDIDATE

    def header(length: int) -> bytes:
        return struct.pack("!HHI", 0x0001, length, STUN_MAGIC) + transaction

    if password is not None:
        mac = hmac.new(password.encode(), header(len(attributes) + 24) + attributes, hashlib.sha1).digest()
        attributes += stun_attribute(0x0008, mac)                   # MESSAGE-INTEGRITY
    crc = (zlib.crc32(header(len(attributes) + 8) + attributes) ^ 0x5354554E) & 0xFFFFFFFF
    attributes += stun_attribute(0x8028, struct.pack("!I", crc))    # FINGERPRINT
    return transaction, header(len(attributes)) + attributes


def await_stun_response(sock: socket.socket, transaction: bytes, timeout: float = 2.0) -> int | None:
    """The message type of the STUN response to `transaction`, or None."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        sock.settimeout(max(0.01, deadline - time.monotonic()))
        try:
            data = sock.recv(65535)
        except (socket.timeout, BlockingIOError):
            return None
        except ConnectionRefusedError:
            continue
        if len(data) >= 20 and data[8:20] == transaction:
            return struct.unpack("!H", data[:2])[0]
    return None


def garbage_datagrams(rng: random.Random) -> list[bytes]:
    """Every RFC 7983 §7 class by first byte, of many sizes, plus the odd shapes."""
    sizes = [1, 2, 4, 12, 13, 20, 21, 60, 100, 200, 576, 1200, 1400, 1500, 3000, 9000]
    classes = [(0, 3), (4, 19), (20, 63), (64, 79), (80, 127), (128, 191), (192, 255)]
    out = []
    for low, high in classes:
        for i in range(DATAGRAMS_PER_CLASS):
            size = sizes[i % len(sizes)]
            data = bytearray(rng.randbytes(size))
            data[0] = rng.randint(low, high)
            if low == 0 and size >= 20 and i % 3 == 0:
                # STUN-shaped: magic cookie and a length that lies about the body.
                struct.pack_into("!HHI", data, 0, rng.choice([0x0001, 0x0101, 0x0111, 0x0011]),
                                 rng.randint(0, 65535) & ~3, STUN_MAGIC)
            if low == 20 and size >= 13 and i % 3 == 0:
                # DTLS-shaped: a record header (type, DTLS 1.2, epoch, sequence, length).
                data[0] = rng.choice([20, 21, 22, 23])
                data[1:3] = b"\xfe\xfd"
                struct.pack_into("!H", data, 11, rng.randint(0, 65535))
            if low == 128 and i % 2 == 0:
                data[0] = 0x80 | (data[0] & 0x3F)  # version 2, as RTP and RTCP are
            out.append(bytes(data))
    out += [b"", b"\x00", b"\x16", b"\x80", b"\xff", b"\x00\x01\x00\x00\x21\x12",  # truncated STUN header
            b"\x00\x01\x00\x00\x21\x12\xa4\x42" + b"\x00" * 11,  # header one byte short
            b"\x80" * 65000, bytes(rng.randbytes(65000)), b"\x16\xfe\xfd" + b"\xff" * 60000]
    for i in range(20):
        out.append(stun_binding_request(f"nobody{i}:{rng.randbytes(4).hex()}", "wrong-password-wrong-pwd")[1])
        out.append(stun_binding_request(f"{rng.randbytes(300).hex()}:x", None)[1])
    return out


def flood(port: int, datagrams: list[bytes], seconds: float) -> int:
    """Sends `datagrams` to 127.0.0.1:`port` spread over `seconds` from a fresh socket."""
    sock = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    sock.bind(("127.0.0.1", 0))
    sock.setblocking(False)
    sent = 0
    start = time.monotonic()
    try:
        for index, data in enumerate(datagrams):
            try:
                sock.sendto(data, ("127.0.0.1", port))
                sent += 1
            except (BlockingIOError, ConnectionRefusedError):
                time.sleep(0.001)
            except OSError:
                pass  # e.g. EMSGSIZE: not a datagram the relay can be sent at all
            ahead = start + seconds * (index + 1) / len(datagrams) - time.monotonic()
            if ahead > 0:
                time.sleep(ahead)
    finally:
        sock.close()
    return sent


def signal_session(relay) -> tuple:
    """A WHEP session created only to be attacked (before the floods: a relay whose media
    loop a flood keeps over `limits.max_media_load` rightly answers new viewers 503)."""
    offer = aiortc_offer("recvonly")
    status, headers, body = http("POST", relay.whep_url(ROOM), offer.encode(), {"Content-Type": "application/sdp"})
    assert status == 201, (status, body[:300])
    return offer, headers, body


def attack_signalled_session(relay, rng: random.Random, signalled: tuple) -> dict:
    """Authenticates the signalled session with a proper connectivity check (so the relay
    selects our address for it), then throws garbage DTLS, RTP and RTCP and forged checks at
    it from that address. Returns what happened."""
    offer, headers, body = signalled
    answer = body.decode()
    location = headers.get("Location")
    offer_ufrag = sdp_attribute(offer, "ice-ufrag")  # USERNAME is "<relay ufrag>:<offer ufrag>"
    relay_ufrag, relay_pwd = sdp_attribute(answer, "ice-ufrag"), sdp_attribute(answer, "ice-pwd")
    # The session's own media worker's port (its candidate's), which need not be udp_port.
    port = int(re.search(r"^a=candidate:\S+ \d+ udp \d+ \S+ (\d+) typ host", answer, re.MULTILINE | re.IGNORECASE).group(1))
    sock = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    sock.bind(("127.0.0.1", 0))
    result = {}
    try:
        transaction, check = stun_binding_request(f"{relay_ufrag}:{offer_ufrag}", relay_pwd, use_candidate=True)
        sock.sendto(check, ("127.0.0.1", port))
        result["check"] = await_stun_response(sock, transaction)
        transaction, forged = stun_binding_request(f"{relay_ufrag}:{offer_ufrag}", "not-the-relay-password!!")
        sock.sendto(forged, ("127.0.0.1", port))
        result["forged_check"] = await_stun_response(sock, transaction)
        for i in range(600):
            kind = i % 3
            data = bytearray(rng.randbytes(rng.choice([13, 25, 100, 300, 1200])))
            if kind == 0:
                data[0:3] = bytes([rng.choice([20, 21, 22, 23])]) + b"\xfe\xfd"  # DTLS record from a validated pair
            elif kind == 1:
                data[0], data[1] = 0x80, rng.randint(0, 127)                     # RTP-like (no keys yet)
            else:
                data[0], data[1] = 0x80, rng.randint(192, 223)                   # RTCP-like
            sock.sendto(bytes(data), ("127.0.0.1", port))
            if i % 100 == 99:
                time.sleep(0.02)
    finally:
        sock.close()
    result["delete"] = http("DELETE", relay.base_url + location)[0] if location else None
    return result


# -- the test -----------------------------------------------------------------------------

def test_live_stream_survives_hostile_udp_and_http(relay, procs):
    if relay.target != "onair" or relay.udp_port is None:
        pytest.skip(f"needs our relay's UDP port and API (target {relay.target})")
    started = time.monotonic()
    rng = random.Random(7983)
    publisher = start_peer(procs, "publisher", "whip_publisher.py", "--url", relay.whip_url(ROOM),
                           *(["--token", relay.publish_token] if relay.publish_token else []), timeout=90)
    posted = publisher.wait_event("posted", timeout=15)
    publisher.wait_event("connected", timeout=15)
    viewer = start_peer(procs, "viewer", "whep_viewer.py", "--url", relay.whep_url(ROOM),
                        "--offline-wait", 10, timeout=90)
    viewer.wait_event("first_frame", timeout=15)
    before = stream_state(relay)
    assert before["live"], before
    unroutable_before = unroutable_datagrams(relay)

    # Abuse, all at once: two UDP floods and the HTTP requests in parallel.
    datagrams = garbage_datagrams(rng)
    sent = [0, 0]
    udp_threads = [threading.Thread(target=lambda i=i: sent.__setitem__(i, flood(relay.udp_port, datagrams[i::2], 4.0)))
                   for i in range(2)]
    # One unpaced burst as well: small RTP-like datagrams as fast as Python can send them.
    burst = [b"\x80" + bytes([rng.randint(0, 127)]) + rng.randbytes(198) for _ in range(5000)]
    udp_threads.append(threading.Thread(target=lambda: sent.__setitem__(2, flood(relay.udp_port, burst, 0.0))))
    sent.append(0)
    signalled = signal_session(relay)
    for thread in udp_threads:
        thread.start()
    location = posted["location"]
    abuse_started = time.monotonic()
    results = http_abuse(relay, location, posted.get("etag"))
    session_attack = attack_signalled_session(relay, rng, signalled)
    for thread in udp_threads:
        thread.join(30)
    abuse_seconds = time.monotonic() - abuse_started

    # Every bad request got the status it deserves, and none a 5xx.
    wrong = [(what, status, body) for what, status, body in results if status not in expected_status(what)]
    assert not wrong, "unexpected statuses:\n" + "\n".join(f"  {w}: {s} {b!r}" for w, s, b in wrong)
    # A proper check from a new address is answered (0x0101 Binding success); a forged one
    # is not (0x0111 error, or silence).
    assert session_attack["check"] == 0x0101, session_attack
    assert session_attack["forged_check"] in (None, 0x0111), session_attack
    assert session_attack["delete"] == 200, session_attack

    # The relay is up, the stream is live and still flowing, and the garbage was counted.
    assert relay.process.poll() is None, "the relay died"
    after = stream_state(relay)
    assert after["live"], after
    assert after["publisher"]["session_id"] == before["publisher"]["session_id"], (before, after)
    time.sleep(1.0)
    later = stream_state(relay)
    assert before["packets_in"] < after["packets_in"] < later["packets_in"], (before, after, later)
    assert later["packets_out"] > after["packets_out"], (after, later)
    unroutable = unroutable_datagrams(relay) - unroutable_before
    assert unroutable >= 0.5 * sum(sent), f"only {unroutable} of {sum(sent)} garbage datagrams were counted"
    assert publisher.poll() is None and viewer.poll() is None, "a peer gave up during the abuse"

    # End the stream; the viewer must have decoded (almost) every frame of its window.
    publisher.signal()
    assert publisher.wait(15) is not None, "publisher did not stop within 15 s of SIGTERM"
    pub = publisher.last("report")
    assert pub and pub["ok"], pub
    if viewer.wait(8) is None:
        viewer.stop()
    report = viewer.last("report")
    assert report is not None, "the viewer printed no report"
    expected = pub["last_index"] - report["first_index"] + 1
    delivered = report["distinct"] / expected
    assert delivered >= MIN_DELIVERY, f"viewer decoded {report['distinct']} of {expected} frames ({delivered:.0%})"
    assert report["unreadable"] <= max(3, 0.05 * report["frames"]), ("garbled frames", report)
    assert relay.process.poll() is None, "the relay died at the end"
    print(f"bad input: {sum(sent)} garbage datagrams + {len(results)} bad requests in {abuse_seconds:.1f}s, "
          f"{unroutable:.0f} counted unroutable; viewer {report['distinct']}/{expected} frames; "
          f"total {time.monotonic() - started:.1f}s")
