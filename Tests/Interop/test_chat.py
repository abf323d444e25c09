"""The chat sidecar (`chat`, the real binary) against Python clients we did not write:
`websockets` clients speak the chat protocol, `standardwebhooks` signs the relay's stream
events (interop of the Standard Webhooks signature), headless Chromium runs the viewer
page's chat panel. Each test starts its own chat on free ports with env vars.

Environment: ONAIR_CHAT_BIN (default <repo>/.build/debug/chat); tests skip only when the
binary is missing."""

from __future__ import annotations

import asyncio
import base64
import json
import os
import secrets
import time
import urllib.error
import urllib.request
import uuid
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path

import pytest
import websockets
from standardwebhooks import Webhook

from harness import REPO, ROOM_PAGE, ManagedProcess, ProcessGroup, free_port, wait_for_tcp

CHAT_BIN = Path(os.environ.get("ONAIR_CHAT_BIN", str(REPO / ".build" / "debug" / "chat")))
BOT_TOKEN = "interop-bot-token"
ROOM = "42"
STEP = 5  # seconds any single expected frame may take


@dataclass
class Chat:
    port: int
    process: ManagedProcess
    database: Path | str  # a SQLite file, or a postgres:// URL (several chats may share one)
    secret: str

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def ws_url(self, room: str = ROOM) -> str:
        return f"ws://127.0.0.1:{self.port}/rooms/{room}/ws"


def launch_chat(procs: ProcessGroup, workdir: Path, database: Path | str | None = None, secret: str | None = None,
                name: str = "chat", extra_env: dict | None = None) -> Chat:
    """Starts `chat serve` on a free port (env vars only, as config/chat.yaml documents). `database`: a
    SQLite file (default `chat.sqlite` in `workdir`) or a `postgres://` URL."""
    if not (CHAT_BIN.is_file() and os.access(CHAT_BIN, os.X_OK)):
        pytest.skip(f"chat binary not found at {CHAT_BIN} (swift build, or set ONAIR_CHAT_BIN)")
    port = free_port()
    database = database or workdir / "chat.sqlite"
    secret = secret or "whsec_" + base64.b64encode(secrets.token_bytes(32)).decode()
    env = {**os.environ, "ONAIR_CHAT_HOST": "127.0.0.1", "ONAIR_CHAT_PORT": str(port),
           "ONAIR_CHAT_DATABASE": str(database), "ONAIR_CHAT_WEBHOOK_SECRET": secret,
           "ONAIR_CHAT_BOT_TOKEN": BOT_TOKEN, "ONAIR_CHAT_MESSAGES_PER_SECOND": "200",
           "ONAIR_CHAT_MESSAGE_BURST": "200", "ONAIR_CHAT_FRAMES_PER_SECOND": "500",
           "ONAIR_CHAT_FRAME_BURST": "500", "ONAIR_CHAT_USER_MESSAGES_PER_SECOND": "200",
           "ONAIR_CHAT_USER_MESSAGE_BURST": "200", **(extra_env or {})}
    process = procs.start(name, [str(CHAT_BIN), "serve", "--log-level", "debug"], timeout=300, cwd=str(workdir), env=env)
    wait_for_tcp(port, 20, process)
    return Chat(port, process, database, secret)


@pytest.fixture
def chat(procs, tmp_path) -> Chat:
    return launch_chat(procs, tmp_path)


# -- helpers ----------------------------------------------------------------------------------

def http(method: str, url: str, body: dict | bytes | None = None, headers: dict | None = None) -> tuple[int, dict]:
    data = json.dumps(body).encode() if isinstance(body, dict) else body
    request = urllib.request.Request(url, data=data, method=method, headers=headers or {})
    try:
        with urllib.request.urlopen(request, timeout=10) as response:
            return response.status, json.loads(response.read() or b"{}")
    except urllib.error.HTTPError as error:
        text = error.read()
        try:
            return error.code, json.loads(text)
        except ValueError:
            return error.code, {"raw": text.decode(errors="replace")}


def stream_event(kind: str, generation: int, sequence: int, room: str = ROOM, **extra) -> dict:
    return {"type": kind, "timestamp": datetime.now(timezone.utc).isoformat(),
            "data": {"event_id": f"evt_{uuid.uuid4().hex}", "room": room, "generation": generation,
                     "sequence": sequence, "session_id": f"sess_{generation}", **extra}}


def deliver(chat: Chat, event: dict, msg_id: str | None = None, timestamp: int | None = None,
            secret: str | None = None) -> tuple[int, dict]:
    """POSTs `event` to /hooks/relay signed by the standardwebhooks library."""
    msg_id = msg_id or f"msg_{uuid.uuid4().hex}"
    timestamp = timestamp if timestamp is not None else int(time.time())
    payload = json.dumps(event)
    signature = Webhook(secret or chat.secret).sign(msg_id, datetime.fromtimestamp(timestamp, tz=timezone.utc), payload)
    return http("POST", f"{chat.base_url}/hooks/relay", payload.encode(), {
        "webhook-id": msg_id, "webhook-timestamp": str(timestamp), "webhook-signature": signature,
        "content-type": "application/json"})


class Client:
    """A chat client on `websockets`: frames queue up; `next(type)` waits for one."""

    def __init__(self, ws):
        self.ws = ws
        self.frames: list[dict] = []

    @classmethod
    async def join(cls, chat: Chat, name: str, after: int | None = None, room: str = ROOM) -> tuple["Client", dict]:
        # max_queue=None: a client that never reads (a pure sender) must not stall its close handshake.
        client = cls(await websockets.connect(chat.ws_url(room), open_timeout=STEP, max_queue=None))
        frame = {"type": "join", "name": name}
        if after is not None:
            frame["after"] = after
        await client.send(frame)
        return client, await client.next("joined")

    async def send(self, frame: dict) -> None:
        await self.ws.send(json.dumps(frame))

    async def next(self, kind: str | None = None, timeout: float = STEP) -> dict:
        deadline = time.monotonic() + timeout
        while True:
            for i, frame in enumerate(self.frames):
                if kind is None or frame.get("type") == kind:
                    return self.frames.pop(i)
            left = deadline - time.monotonic()
            if left <= 0:
                raise AssertionError(f"no {kind or 'frame'} within {timeout}s; queued: {[f.get('type') for f in self.frames]}")
            self.frames.append(json.loads(await asyncio.wait_for(self.ws.recv(), left)))

    async def quiet(self, kind: str, window: float = 0.5) -> bool:
        """True when no `kind` frame arrives within `window` seconds."""
        try:
            await self.next(kind, window)
            return False
        except (AssertionError, asyncio.TimeoutError):
            return True

    async def close(self) -> None:
        await self.ws.close()


def run(coro, timeout: float = 60):
    return asyncio.run(asyncio.wait_for(coro, timeout))


# -- protocol ---------------------------------------------------------------------------------

def test_presence_send_receive(chat):
    async def scenario():
        ada, joined = await Client.join(chat, "ada")
        assert joined["state"] == "open" and joined["presence"]["count"] == 1
        # websockets offers permessage-deflate (RFC 7692); the chat writes finished frames
        # straight to the socket (RawFrameWriter), so it must negotiate no extension at all.
        assert "permessage-deflate" in (ada.ws.request.headers.get("Sec-WebSocket-Extensions") or "")
        assert ada.ws.response.headers.get("Sec-WebSocket-Extensions") is None
        bob, joined = await Client.join(chat, "bob")
        assert joined["presence"]["count"] == 2
        assert sorted(m["name"] for m in joined["presence"]["members"]) == ["ada", "bob"]
        presence = await ada.next("presence")
        if presence["count"] == 1:  # ada's own join is announced too
            presence = await ada.next("presence")
        assert presence["count"] == 2 and [m["name"] for m in presence["joined"]] == ["bob"]
        await ada.send({"type": "send", "text": "hello bob", "ref": "r1"})
        ack = await ada.next("ack")
        assert ack["ref"] == "r1" and ack["id"] == 1
        for client in (ada, bob):
            message = (await client.next("message"))["message"]
            assert (message["id"], message["name"], message["text"], message["kind"]) == (1, "ada", "hello bob", "user")
        status, room = http("GET", f"{chat.base_url}/rooms/{ROOM}")
        assert status == 200 and room["presence"] == 2 and room["last_message_id"] == 1
        await bob.send("{not json")
        assert (await bob.next("error"))["code"] == "bad_json"
        await bob.send({"type": "ping", "ref": "still-open"})
        assert (await bob.next("pong"))["ref"] == "still-open"
        await bob.close()
        left = await ada.next("presence")
        assert left["count"] == 1 and [m["name"] for m in left["left"]] == ["bob"]
        await ada.close()
    run(scenario())


def test_resume_without_gaps_or_duplicates(chat):
    async def scenario():
        bob, _ = await Client.join(chat, "bob")
        ada, _ = await Client.join(chat, "ada")
        for i in range(1, 6):
            await bob.send({"type": "send", "text": f"m{i}"})
        seen = []
        while len(seen) < 3:
            seen.append((await ada.next("message"))["message"]["id"])
        await ada.close()  # ada saw 1..3 (4 and 5 may be in flight: she drops them unseen)
        for i in range(6, 11):
            await bob.send({"type": "send", "text": f"m{i}"})
        for _ in range(10):
            await bob.next("ack")
        ada, joined = await Client.join(chat, "ada", after=seen[-1])
        assert joined["resumed"] is True and joined["more"] is False
        assert [m["id"] for m in joined["messages"]] == list(range(4, 11))
        assert [m["text"] for m in joined["messages"]] == [f"m{i}" for i in range(4, 11)]
        await bob.send({"type": "send", "text": "live"})
        live = (await ada.next("message"))["message"]
        assert (live["id"], live["text"]) == (11, "live")
        assert await ada.quiet("message")

        # Again while bob keeps sending: joined + live frames are exactly 12..60, in order.
        await ada.close()
        sender = asyncio.ensure_future(send_many(bob, 12, 60))
        await asyncio.sleep(0.05)
        ada, joined = await Client.join(chat, "ada", after=11)
        ids = [m["id"] for m in joined["messages"]]
        while not ids or ids[-1] < 60:
            ids.append((await ada.next("message"))["message"]["id"])
        await sender
        assert ids == list(range(12, 61)), ids
        assert await ada.quiet("message")
        await ada.close()
        await bob.close()
    run(scenario())


async def send_many(client: Client, first: int, last: int) -> None:
    for i in range(first, last + 1):
        await client.send({"type": "send", "text": f"m{i}"})
        await asyncio.sleep(0.002)


def test_stream_ended_closes_room(chat):
    async def scenario():
        status, answer = deliver(chat, stream_event("stream.started", generation=1, sequence=1))
        assert status == 200 and answer["status"] == "applied", answer
        ada, joined = await Client.join(chat, "ada")
        assert joined["state"] == "open"
        assert joined["messages"][-1]["kind"] == "system" and joined["messages"][-1]["event"] == "stream.started"
        bob, _ = await Client.join(chat, "bob")
        status, answer = deliver(chat, stream_event("stream.ended", generation=1, sequence=2, reason="publisher_deleted"))
        assert status == 200 and answer == {**answer, "status": "applied", "state": "closed"}
        for client in (ada, bob):
            system = (await client.next("message"))["message"]
            assert system["kind"] == "system" and system["reason"] == "publisher_deleted"
            assert "stream ended" in system["text"]
            closed = await client.next("room.closed")
            assert closed["reason"] == "publisher_deleted" and closed["message_id"] == system["id"]
        await ada.send({"type": "send", "text": "hello?", "ref": "late"})
        error = await ada.next("error")
        assert error["code"] == "room_closed" and error["ref"] == "late"
        assert await bob.quiet("message")
        status, body = http("POST", f"{chat.base_url}/rooms/{ROOM}/messages", {"text": "bot"},
                            {"Authorization": f"Bearer {BOT_TOKEN}", "Content-Type": "application/json"})
        assert status == 409, body
        status, room = http("GET", f"{chat.base_url}/rooms/{ROOM}")
        assert room["state"] == "closed" and room["closed_reason"] == "publisher_deleted"
        # The next session reopens the room.
        deliver(chat, stream_event("stream.started", generation=2, sequence=3))
        await ada.next("room.opened")
        await ada.send({"type": "send", "text": "back", "ref": "b"})
        assert (await ada.next("ack"))["ref"] == "b"
        await ada.close()
        await bob.close()
    run(scenario())


def test_forged_replayed_stale_and_old_generation_change_nothing(chat):
    status, _ = deliver(chat, stream_event("stream.started", generation=5, sequence=10), msg_id="msg_first")
    assert status == 200
    _, before = http("GET", f"{chat.base_url}/rooms/{ROOM}/messages")

    def unchanged():
        _, room = http("GET", f"{chat.base_url}/rooms/{ROOM}")
        _, messages = http("GET", f"{chat.base_url}/rooms/{ROOM}/messages")
        return room["state"] == "open" and room["generation"] == 5 and messages == before

    ended = stream_event("stream.ended", generation=5, sequence=11, reason="kicked")
    other = "whsec_" + base64.b64encode(secrets.token_bytes(32)).decode()
    status, body = deliver(chat, ended, secret=other)
    assert status == 401 and "signature" in body["error"]
    assert unchanged()
    status, body = deliver(chat, ended, timestamp=int(time.time()) - 6 * 60)
    assert status == 401 and "5 minutes" in body["error"]
    status, body = deliver(chat, ended, timestamp=int(time.time()) + 6 * 60)
    assert status == 401
    assert unchanged()
    # A replay of an accepted delivery (same webhook-id): 2xx so the sender stops, nothing applied.
    status, body = deliver(chat, ended, msg_id="msg_first")
    assert status == 200 and body["status"] == "duplicate"
    assert unchanged()
    status, body = deliver(chat, stream_event("stream.ended", generation=4, sequence=99, reason="publisher_timeout"))
    assert status == 200 and body["status"] == "ignored" and "older generation" in body["reason"]
    assert unchanged()
    # Unsigned and tampered requests.
    status, _ = http("POST", f"{chat.base_url}/hooks/relay", json.dumps(ended).encode(), {"content-type": "application/json"})
    assert status == 400
    assert unchanged()


def test_restart_keeps_history(procs, tmp_path):
    first = launch_chat(procs, tmp_path)

    async def write():
        ada, _ = await Client.join(first, "ada")
        for i in range(1, 4):
            await ada.send({"type": "send", "text": f"before restart {i}"})
            await ada.next("ack")
        await ada.close()
    run(write())
    deliver(first, stream_event("stream.ended", generation=1, sequence=1, reason="relay_shutdown"), msg_id="msg_end")
    assert first.process.stop() == 0, "chat did not exit cleanly on SIGTERM"

    second = launch_chat(procs, tmp_path, database=first.database, secret=first.secret, name="chat-restarted")
    status, room = http("GET", f"{second.base_url}/rooms/{ROOM}")
    assert status == 200 and room["state"] == "closed" and room["last_message_id"] == 4
    _, page = http("GET", f"{second.base_url}/rooms/{ROOM}/messages")
    assert [m["text"] for m in page["messages"]][:3] == [f"before restart {i}" for i in range(1, 4)]
    # The seen webhook-id survived too.
    status, body = deliver(second, stream_event("stream.ended", generation=1, sequence=1, reason="relay_shutdown"), msg_id="msg_end")
    assert body["status"] == "duplicate"

    async def resume():
        bob, joined = await Client.join(second, "bob", after=2)
        assert [m["id"] for m in joined["messages"]] == [3, 4] and joined["state"] == "closed"
        deliver(second, stream_event("stream.started", generation=2, sequence=2))
        await bob.next("room.opened")
        await bob.send({"type": "send", "text": "after restart"})
        assert (await bob.next("ack"))["id"] == 6  # 5 is the "stream started" system message
        await bob.close()
    run(resume())


# -- the viewer page's chat panel in Chromium ----------------------------------------------------

@pytest.mark.chromium
def test_room_page_chat_panel(chat, procs, tmp_path):
    run(chromium_scenario(chat, procs, tmp_path), timeout=120)


async def chromium_scenario(chat: Chat, procs: ProcessGroup, tmp_path: Path) -> None:
    from aiohttp import web
    from chromium import Chromium  # imported here so the other tests run without the browser pieces

    async def room_page(_request):
        return web.Response(body=ROOM_PAGE.read_bytes(), content_type="text/html")

    async def whep_offline(_request):
        # No stream: the player waits (409 + Retry-After, as the relay answers for an offline room).
        return web.Response(status=409, text="room is not live", headers={"Retry-After": "5"})

    app = web.Application()
    app.router.add_get("/rooms/{room}", room_page)
    app.router.add_post("/whep/{room}", whep_offline)
    runner = web.AppRunner(app, access_log=None)
    await runner.setup()
    site = web.TCPSite(runner, "127.0.0.1", 0)
    await site.start()
    page_port = site._server.sockets[0].getsockname()[1]
    console = tmp_path / "console-chat.log"
    procs.extra_logs.append(console)
    deliver(chat, stream_event("stream.started", generation=1, sequence=1))
    browser = Chromium(spawn=lambda argv: procs.start("chromium", argv, timeout=150))
    try:
        await browser.start()
        # The chat header says what is true before anyone joins: no name yet ("NOT JOINED"), or
        # no chat server where the page looks for one ("CHAT UNAVAILABLE"), never "OFFLINE".
        status = "document.getElementById('chat-status').textContent"
        idle = await browser.open(f"http://127.0.0.1:{page_port}/rooms/{ROOM}?chat={chat.base_url}", name="idle")
        await idle.wait_for(status, lambda text: text == "NOT JOINED", timeout=10)
        await idle.close()
        unreachable = await browser.open(f"http://127.0.0.1:{page_port}/rooms/{ROOM}?chat=http://127.0.0.1:{free_port()}",
                                         name="unreachable")
        await unreachable.wait_for(status, lambda text: text == "CHAT UNAVAILABLE", timeout=10)
        await unreachable.close()
        url = f"http://127.0.0.1:{page_port}/rooms/{ROOM}?chat={chat.base_url}&name=viewer"
        tab = await browser.open(url, name="viewer")
        try:
            await tab.wait_for("window.onairChat", lambda c: c and c["joined"], timeout=15)
            state = await tab.json("window.onairChat")
            assert state["presence"] == 1 and state["closed"] is False
            assert await tab.evaluate(status) == "JOINED"
            assert state["messages"][-1]["event"] == "stream.started"

            ada, _ = await Client.join(chat, "ada")
            await ada.send({"type": "send", "text": "hello from python"})
            await tab.wait_for("window.onairChat.messages.map(m => m.text)", lambda t: t and "hello from python" in t)
            await tab.wait_for("window.onairChat.presence", lambda n: n == 2)
            # Type and press Send like a person.
            await tab.evaluate("document.getElementById('chat-input').value = 'hello from chromium';"
                               "document.getElementById('chat-send').click(); true")
            message = (await ada.next("message"))["message"]
            if message["name"] == "ada":  # her own message comes back first
                message = (await ada.next("message"))["message"]
            assert (message["name"], message["text"]) == ("viewer", "hello from chromium")
            await tab.wait_for("document.querySelectorAll('#chat-log li').length", lambda n: n and n >= 3)

            deliver(chat, stream_event("stream.ended", generation=1, sequence=2, reason="publisher_deleted"))
            await tab.wait_for("window.onairChat.closed", lambda closed: closed is True)
            ui = await tab.json("({banner: !document.getElementById('chat-banner').hidden,"
                                " text: document.getElementById('chat-banner').textContent,"
                                " input: document.getElementById('chat-input').disabled,"
                                " reason: window.onairChat.closedReason})")
            assert ui["banner"] and "read-only" in ui["text"] and ui["input"] and ui["reason"] == "publisher_deleted", ui
            assert await tab.evaluate(status) == "JOINED · READ-ONLY"
            assert (await tab.evaluate("window.onairChat.send('too late')")) is False
            # The WHEP player is untouched by the chat: still waiting for the stream.
            viewer = await tab.json("window.onairViewer")
            assert viewer["state"] in ("offline", "connecting", "error"), viewer["state"]
            await tab.screenshot(tmp_path / "room-chat-closed-wide.png")
            await tab.set_viewport(390, 844, mobile=True)  # narrow: the chat goes below the video
            layout = await tab.json("(() => { const v = document.querySelector('.stage').getBoundingClientRect();"
                                    " const c = document.getElementById('chat').getBoundingClientRect();"
                                    " return {below: c.top >= v.bottom - 1}; })()")
            assert layout["below"], layout
            await tab.screenshot(tmp_path / "room-chat-closed.png")
            await ada.close()
        finally:
            console.write_text("\n".join(tab.console))
    finally:
        await browser.close()
        await runner.cleanup()


# -- end to end: publisher -> relay -> signed webhook -> chat -----------------------------------

def test_relay_stream_end_closes_chat_room(procs, tmp_path):
    """An aiortc publisher goes live on the relay and leaves (DELETE). The relay, configured
    with the chat's /hooks/relay as a webhook subscriber (ONAIR_WEBHOOK_URL/SECRET), sends
    stream.started and then stream.ended; chat clients see the room open and then close."""
    from conftest import launch_relay
    from harness import start_peer

    chat = launch_chat(procs, tmp_path)
    relay = launch_relay("onair", procs, tmp_path, extra_env={
        "ONAIR_WEBHOOK_URL": f"{chat.base_url}/hooks/relay", "ONAIR_WEBHOOK_SECRET": chat.secret,
        "ONAIR_DATABASE": str(tmp_path / "relay.sqlite")})

    async def scenario():
        ada, joined = await Client.join(chat, "ada")
        assert joined["state"] == "open"
        publisher = start_peer(procs, "publisher", "whip_publisher.py", "--url", relay.whip_url(ROOM),
                               "--token", relay.publish_token, "--duration", "4")
        await asyncio.get_running_loop().run_in_executor(None, lambda: publisher.wait_event("connected", 20))
        started = (await ada.next("message", timeout=15))["message"]
        assert (started["kind"], started.get("event")) == ("system", "stream.started"), started
        await ada.send({"type": "send", "text": "we are live", "ref": "live"})
        assert (await ada.next("ack"))["ref"] == "live"
        # The publisher stops after 4 s and DELETEs its session: stream.ended (publisher_deleted).
        assert (await ada.next("message"))["message"]["text"] == "we are live"
        ended = (await ada.next("message", timeout=20))["message"]
        assert (ended["kind"], ended.get("event"), ended.get("reason")) == ("system", "stream.ended", "publisher_deleted"), ended
        closed = await ada.next("room.closed")
        assert closed["reason"] == "publisher_deleted"
        await ada.send({"type": "send", "text": "hello?", "ref": "late"})
        assert (await ada.next("error"))["code"] == "room_closed"
        _, room = http("GET", f"{chat.base_url}/rooms/{ROOM}")
        assert room["state"] == "closed" and room["generation"] is not None
        await ada.close()
    run(scenario(), timeout=90)
