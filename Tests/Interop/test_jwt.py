"""Access tokens (issue 28) signed by PyJWT, an implementation we did not write: HS256 with a
shared secret, ES256 with public keys in a JWKS file and in a JWKS URL served by a small local
HTTP server (a key added there later is picked up by the relay's background refresh). aiortc
publishes (WHIP) and views (WHEP) with them; every refusal gets its documented status and
reason (RFC 6750 §3: 401 invalid_token / 403 insufficient_scope) on WHIP and WHEP; the chat
takes the same tokens on its join frame, naming the member from the token.

Environment: ONAIR_RELAY_BIN, ONAIR_CHAT_BIN (default .build/debug/...)."""

from __future__ import annotations

import asyncio
import base64
import hashlib
import hmac
import json
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import jwt
import pytest
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import ec
from jwt.algorithms import ECAlgorithm

from conftest import launch_relay
from harness import start_peer
from test_aiortc_whip_whep import http
from test_chat import STEP, Client, launch_chat, run

ROOM = "42"
SECRET = "interop-jwt-secret-of-at-least-32-bytes"
AUDIENCE = "onair-interop"
ISSUER = "https://app.example"


def b64url(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


class ECKey:
    """A P-256 key pair with a kid; its public JWK (RFC 7517) as PyJWT writes it."""

    def __init__(self, kid: str):
        self.kid = kid
        self.private = ec.generate_private_key(ec.SECP256R1())
        self.jwk = {**ECAlgorithm.to_jwk(self.private.public_key(), as_dict=True), "kid": kid, "alg": "ES256", "use": "sig"}
        self.public_pem = self.private.public_key().public_bytes(
            serialization.Encoding.PEM, serialization.PublicFormat.SubjectPublicKeyInfo)


class JWKSServer:
    """Serves {"keys": [...]} at /jwks.json on a free loopback port; keys can change."""

    def __init__(self, keys: list[dict]):
        self.keys = list(keys)
        self.fetches = 0
        owner = self

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self):  # noqa: N802 (http.server's name)
                owner.fetches += 1
                body = json.dumps({"keys": owner.keys}).encode()
                self.send_response(200)
                self.send_header("Content-Type", "application/jwk-set+json")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def log_message(self, *args):
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self.thread.start()

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.server.server_address[1]}/jwks.json"

    def close(self):
        self.server.shutdown()
        self.server.server_close()


def claims(room: str | None = ROOM, grants=("publish", "view", "chat"), ttl: float = 600, sub: str = "ada",
           name: str | None = "Ada", **extra) -> dict:
    now = int(time.time())
    body = {"sub": sub, "grants": list(grants), "iat": now, "exp": now + ttl, "aud": AUDIENCE, "iss": ISSUER, **extra}
    if room is not None:
        body["room"] = room
    if name is not None:
        body["name"] = name
    return body


def hs256(payload: dict, **headers) -> str:
    return jwt.encode(payload, SECRET, algorithm="HS256", headers=headers or None)


def es256(key: ECKey, payload: dict, kid: str | None = None) -> str:
    return jwt.encode(payload, key.private, algorithm="ES256", headers={"kid": kid or key.kid})


def confused(key: ECKey, payload: dict) -> str:
    """RFC 8725 §2.1: an HS256 token MACed with the ES256 public key's PEM, naming that key (by hand:
    PyJWT itself refuses to use a PEM as an HMAC secret)."""
    signing_input = b64url(json.dumps({"alg": "HS256", "typ": "JWT", "kid": key.kid}).encode()) + "." + \
        b64url(json.dumps(payload).encode())
    mac = hmac.new(key.public_pem, signing_input.encode(), hashlib.sha256).digest()
    return signing_input + "." + b64url(mac)


@pytest.fixture
def keys(tmp_path):
    file_key, url_key = ECKey("file-1"), ECKey("url-1")
    jwks_file = tmp_path / "jwks.json"
    jwks_file.write_text(json.dumps({"keys": [file_key.jwk]}))
    server = JWKSServer([url_key.jwk])
    yield {"file": file_key, "url": url_key, "jwks_file": jwks_file, "server": server}
    server.close()


@pytest.fixture
def relay(procs, tmp_path, keys):
    return launch_relay("onair", procs, tmp_path, extra_env={
        "ONAIR_PUBLISH_TOKEN": None, "ONAIR_JWT_SECRET": SECRET, "ONAIR_JWT_REQUIRED": "true",
        "ONAIR_JWT_JWKS_FILE": str(keys["jwks_file"]), "ONAIR_JWT_JWKS_URL": keys["server"].url,
        "ONAIR_JWT_AUDIENCE": AUDIENCE, "ONAIR_JWT_ISSUER": ISSUER})


def wait_for_key(relay, token: str, timeout: float = 10) -> None:
    """The relay fetched its JWKS URL at start; a token from it works once the keys are in."""
    deadline = time.monotonic() + timeout
    while True:
        status, headers, _ = http("POST", relay.whep_url(ROOM), b"x", {"Authorization": f"Bearer {token}",
                                                                      "Content-Type": "application/sdp"})
        if status != 401:
            return
        assert time.monotonic() < deadline, headers.get("WWW-Authenticate")
        time.sleep(0.2)


def test_pyjwt_tokens_publish_and_view(relay, procs, keys):
    """HS256 (secret) publishes; ES256 from the JWKS file and from the JWKS URL view."""
    publisher = start_peer(procs, "publisher", "whip_publisher.py", "--url", relay.whip_url(ROOM),
                           "--token", hs256(claims(grants=["publish"])), timeout=90)
    publisher.wait_event("connected", timeout=20)
    file_token = es256(keys["file"], claims(grants=["view"]))
    url_token = es256(keys["url"], claims(grants=["view", "chat"], sub="bob", name="Bob"))
    wait_for_key(relay, url_token)
    viewers = [start_peer(procs, f"viewer-{kind}", "whep_viewer.py", "--url", relay.whep_url(ROOM), "--token", token,
                          "--offline-wait", 10, "--duration", 8, timeout=90)
               for kind, token in (("file", file_token), ("url", url_token))]
    for viewer in viewers:
        viewer.wait_event("first_frame", timeout=20)
    for viewer in viewers:
        viewer.wait(15)
        report = viewer.last("report")
        assert report and report["distinct"] >= 60, (viewer.name, report)
    publisher.signal()
    assert publisher.wait(15) is not None
    assert publisher.last("deleted")["status"] in (200, 204), publisher.last("deleted")


def refusal_cases(keys) -> list[tuple[str, str, int, str, str]]:
    """(name, token, status, RFC 6750 error, text the description must hold)."""
    file_key = keys["file"]
    now = int(time.time())
    good = es256(file_key, claims())
    header, payload, signature = good.split(".")
    tampered_payload = b64url(json.dumps(claims(grants=["publish", "view", "admin"])).encode())
    flipped = bytearray(base64.urlsafe_b64decode(signature + "=="))
    flipped[5] ^= 0x01
    return [
        ("alg-none", jwt.encode(claims(), None, algorithm="none"), 401, "invalid_token", "alg not allowed"),
        ("algorithm-confusion", confused(file_key, claims()), 401, "invalid_token", "alg not allowed"),
        ("room-4-on-42", hs256(claims(room="4")), 403, "insufficient_scope", "for room 4, not room 42"),
        ("expired", hs256(claims(ttl=-120)), 401, "invalid_token", "token expired"),
        ("nbf-future", hs256(claims(nbf=now + 3600)), 401, "invalid_token", "not yet valid"),
        ("wrong-aud", hs256(claims(aud="someone-else")), 401, "invalid_token", "wrong audience"),
        ("wrong-iss", hs256(claims(iss="https://evil.example")), 401, "invalid_token", "wrong issuer"),
        ("unknown-kid", es256(file_key, claims(), kid="nobody"), 401, "invalid_token", "unknown key id"),
        ("tampered-payload", f"{header}.{tampered_payload}.{signature}", 401, "invalid_token", "bad signature"),
        ("tampered-signature", f"{header}.{payload}.{b64url(bytes(flipped))}", 401, "invalid_token", "bad signature"),
        ("missing-grant", hs256(claims(grants=["chat"])), 403, "insufficient_scope", "does not grant"),
        ("static-token", "interop-publish-token", 401, "invalid_token", "static tokens are off"),
    ]


@pytest.mark.parametrize("endpoint", ["whip", "whep"])
def test_refusals_name_why(relay, keys, endpoint):
    """Each refusal, with a malformed offer: the token is judged before the body is looked at."""
    url = relay.whip_url(ROOM) if endpoint == "whip" else relay.whep_url(ROOM)
    failures = []
    for name, token, status, error, reason in refusal_cases(keys):
        got, headers, body = http("POST", url, b"this is not SDP", {"Authorization": f"Bearer {token}",
                                                                     "Content-Type": "application/sdp"})
        challenge = headers.get("WWW-Authenticate", "")
        if got != status or f'error="{error}"' not in challenge or reason not in challenge or reason not in body.decode():
            failures.append((name, got, challenge, body[:200]))
    assert not failures, failures
    got, headers, _ = http("POST", url, b"x", {"Content-Type": "application/sdp"})
    assert got == 401 and headers.get("WWW-Authenticate", "").startswith("Bearer"), (got, headers)


def test_jwks_url_key_rotation(relay, keys):
    """A key the backend adds to its JWKS is taken after the relay's background refresh: the
    first request with its kid is refused (unknown key id) and asks for a fetch, off its path."""
    server = keys["server"]
    wait_for_key(relay, es256(keys["url"], claims()))
    fetches = server.fetches
    new_key = ECKey("url-2")
    server.keys.append(new_key.jwk)
    token = es256(new_key, claims(grants=["view"]))
    status, headers, _ = http("POST", relay.whep_url(ROOM), b"x", {"Authorization": f"Bearer {token}",
                                                                  "Content-Type": "application/sdp"})
    assert status == 401 and "unknown key id" in headers.get("WWW-Authenticate", ""), (status, headers)
    deadline = time.monotonic() + 10
    while True:
        status, headers, body = http("POST", relay.whep_url(ROOM), b"x", {"Authorization": f"Bearer {token}",
                                                                         "Content-Type": "application/sdp"})
        if status != 401:
            break
        assert time.monotonic() < deadline, ("never picked up", headers)
        time.sleep(0.2)
    # Authenticated: now the malformed offer is judged (400), not the token.
    assert status == 400, (status, body[:200])
    assert server.fetches > fetches


# -- the chat ---------------------------------------------------------------------------------

@pytest.fixture
def chat(procs, tmp_path):
    return launch_chat(procs, tmp_path, extra_env={"ONAIR_CHAT_JWT_SECRET": SECRET, "ONAIR_CHAT_JWT_AUDIENCE": AUDIENCE,
                                                    "ONAIR_CHAT_JWT_ISSUER": ISSUER})


async def join_with(chat, token: str, name: str | None = None, room: str = ROOM) -> tuple[Client, dict]:
    import websockets
    client = Client(await websockets.connect(chat.ws_url(room), open_timeout=STEP, max_queue=None))
    frame = {"type": "join", "token": token}
    if name is not None:
        frame["name"] = name
    await client.send(frame)
    return client, await client.next()


def test_chat_join_with_pyjwt_token(chat):
    """The member is the token's sub and name; the frame's name is ignored (no impersonation)."""
    async def scenario():
        ada, joined = await join_with(chat, hs256(claims(grants=["chat"])), name="Mallory")
        assert joined["type"] == "joined", joined
        assert joined["you"]["name"] == "Ada" and joined["you"]["user"] == "ada", joined
        bob, joined_bob = await join_with(chat, hs256(claims(grants=["chat"], sub="bob", name=None)))
        assert joined_bob["you"]["name"] == "bob" and joined_bob["you"]["user"] == "bob", joined_bob
        await ada.send({"type": "send", "text": "hello", "ref": "m1", "name": "Bob"})
        message = (await bob.next("message"))["message"]
        assert (message["name"], message["user"], message["text"]) == ("Ada", "ada", "hello"), message
        await ada.close()
        await bob.close()
    run(scenario())


@pytest.mark.parametrize("case", ["wrong-room", "expired", "no-chat-grant", "bad-signature"])
def test_chat_refusals(chat, case):
    tokens = {
        "wrong-room": (hs256(claims(room="4", grants=["chat"])), "forbidden", "wrong_room"),
        "expired": (hs256(claims(grants=["chat"], ttl=-120)), "invalid_token", "expired"),
        "no-chat-grant": (hs256(claims(grants=["view"])), "forbidden", "missing_grant"),
        "bad-signature": (jwt.encode(claims(grants=["chat"]), SECRET + "x", algorithm="HS256"), "invalid_token", "bad_signature"),
    }
    token, code, reason = tokens[case]

    async def scenario():
        client, frame = await join_with(chat, token, name="Ada")
        assert frame["type"] == "error" and frame["code"] == code and frame["reason"] == reason, frame
        await client.close()
    run(scenario())


def test_viewer_page_plays_and_chats_with_one_token(relay, procs, tmp_path):
    """Chromium opens /rooms/42?token=<JWT with view and chat>: the page plays over WHEP with the
    token and joins the chat with it as the token's name; the chat requires tokens."""
    chat = launch_chat(procs, tmp_path, extra_env={"ONAIR_CHAT_JWT_SECRET": SECRET, "ONAIR_CHAT_JWT_REQUIRED": "true",
                                                    "ONAIR_CHAT_JWT_AUDIENCE": AUDIENCE, "ONAIR_CHAT_JWT_ISSUER": ISSUER})
    publisher = start_peer(procs, "publisher", "whip_publisher.py", "--url", relay.whip_url(ROOM),
                           "--token", hs256(claims(grants=["publish"])), timeout=120)
    publisher.wait_event("connected", timeout=20)
    token = hs256(claims(grants=["view", "chat"]))

    async def scenario():
        from chromium import Chromium
        browser = Chromium(spawn=lambda argv: procs.start("chromium", argv, timeout=150))
        try:
            await browser.start()
            tab = await browser.open(f"{relay.base_url}/rooms/{ROOM}?chat={chat.base_url}&token={token}", name="viewer")
            await tab.wait_for("window.onairViewer.frames", lambda n: n and n >= 30, timeout=30)
            await tab.wait_for("window.onairChat", lambda c: c and c["joined"], timeout=15)
            you = await tab.json("window.onairChat.you")
            assert you["name"] == "Ada" and you["user"] == "ada", you
            assert await tab.evaluate("window.onairChat.send('hello with a token')") is True
            await tab.wait_for("window.onairChat.messages.map(m => m.user + ':' + m.text)",
                               lambda texts: texts and "ada:hello with a token" in texts, timeout=10)
        finally:
            await browser.close()
    run(scenario(), timeout=120)
