"""Chat moderation (issue 28) on two chat nodes sharing one PostgreSQL database (the `chat`
binary twice, as test_chat_cluster.py starts them), with `websockets` clients and access tokens
signed by PyJWT (HS256, as test_jwt.py), so both the token check and the protocol are driven by
code we did not write:

- impersonation: a frame naming another user (`user`, `name`, `by`) changes nothing: the message
  is the token holder's, and a moderation frame from a member without `moderate` is refused;
- a deleted message (REST on node A) is a tombstone (no text, `deleted_by`) in the history of
  BOTH nodes, and members on node B are told (`message.deleted`);
- a user muted from node A while connected to node B has their post refused (`muted`);
- kick (REST on node B): the user's socket gets an error frame `kicked` and closes with 1008;
- a user banned on node A is closed, and their reconnect to node B is refused (`banned`).

Environment: as test_chat.py (ONAIR_CHAT_BIN)."""

from __future__ import annotations

import asyncio
import json
import time

import jwt
import websockets

from harness import ProcessGroup
from test_chat import ROOM, STEP, Client, http
from test_chat_cluster import launch_cluster

SECRET = "interop-moderation-secret-of-32-bytes+"
JWT_ENV = {"ONAIR_CHAT_JWT_SECRET": SECRET}


def token(sub: str, grants=("chat",), room: str = ROOM) -> str:
    now = int(time.time())
    return jwt.encode({"sub": sub, "name": sub.capitalize(), "room": room, "grants": list(grants), "iat": now,
                       "exp": now + 600}, SECRET, algorithm="HS256")


async def join(chat, bearer: str, **extra) -> tuple[Client, dict]:
    client = Client(await websockets.connect(chat.ws_url(ROOM), open_timeout=STEP, max_queue=None))
    await client.send({"type": "join", "token": bearer, **extra})
    return client, await client.next()


async def answer(client: Client, frame: dict) -> dict:
    """Sends `frame` with a fresh ref and returns the frame answering it."""
    ref = f"r{time.monotonic_ns()}"
    await client.send({**frame, "ref": ref})
    deadline = time.monotonic() + STEP
    while time.monotonic() < deadline:
        for i, queued in enumerate(client.frames):
            if queued.get("ref") == ref:
                return client.frames.pop(i)
        client.frames.append(json.loads(await asyncio.wait_for(client.ws.recv(), deadline - time.monotonic())))
    raise AssertionError(f"no answer to {frame}")


def moderate(chat, bearer: str, action: dict) -> tuple[int, dict]:
    return http("POST", f"{chat.base_url}/rooms/{ROOM}/moderation", action,
                {"Authorization": f"Bearer {bearer}", "Content-Type": "application/json"})


async def closed_with(client: Client, timeout: float = STEP) -> int | None:
    """Reads until the server closes the socket; its close code."""
    try:
        while True:
            client.frames.append(json.loads(await asyncio.wait_for(client.ws.recv(), timeout)))
    except websockets.ConnectionClosed as closed:
        return closed.rcvd.code if closed.rcvd else None


def test_moderation_across_two_nodes(procs: ProcessGroup, tmp_path, pg_database):
    node_a, node_b = launch_cluster(procs, tmp_path, pg_database, extra_env=JWT_ENV)
    mod_token = token("mod", grants=("chat", "moderate"))

    async def scenario():
        mod, joined = await join(node_a, mod_token)
        assert joined["type"] == "joined", joined
        ada, _ = await join(node_b, token("ada"), name="Mallory", user="mod")
        bob, joined = await join(node_b, token("bob"))
        assert joined["you"]["user"] == "bob", joined

        # Impersonation: the frame's user/name/by are ignored; only a moderator's token moderates.
        ack = await answer(bob, {"type": "send", "text": "I am Ada", "user": "ada", "name": "Ada", "by": "mod"})
        assert ack["type"] == "ack", ack
        message = (await ada.next("message"))["message"]
        assert (message["user"], message["name"]) == ("bob", "Bob"), message
        refused = await answer(bob, {"type": "ban", "user": "ada", "by": "mod"})
        assert refused["type"] == "error" and refused["code"] == "not_moderator", refused
        assert (await answer(ada, {"type": "ping"}))["type"] == "pong"
        assert moderate(node_a, token("bob"), {"type": "ban", "user": "ada"})[0] == 403

        # Delete (REST on A): a tombstone in both nodes' history; B's members are told.
        secret_id = (await answer(ada, {"type": "send", "text": "my phone number is ..."}))["id"]
        status, body = moderate(node_a, mod_token, {"type": "delete", "id": secret_id})
        assert status == 200 and body["event"]["type"] == "message.deleted", (status, body)
        deleted = await ada.next("message.deleted")
        assert deleted["message_id"] == secret_id and deleted["user"] == "ada" and deleted["by"] == "mod", deleted
        for node in (node_a, node_b):
            status, page = http("GET", f"{node.base_url}/rooms/{ROOM}/messages?after={secret_id - 1}&limit=1")
            stone = page["messages"][0]
            assert status == 200 and stone["id"] == secret_id and stone["text"] == "" and stone["deleted"] is True, stone
            assert stone["deleted_by"] == "mod" and stone["user"] == "ada" and "phone" not in json.dumps(page), page

        # Mute from A; Ada is on B: once told, her post is refused.
        done = await answer(mod, {"type": "mute", "user": "ada", "seconds": 120})
        assert done["type"] == "done", done
        muted = await ada.next("member.muted")
        assert muted["user"] == "ada" and muted["seconds"] == 120, muted
        refused = await answer(ada, {"type": "send", "text": "let me talk"})
        assert refused["code"] == "muted" and refused["retry_after_ms"] > 100_000, refused

        # Kick over REST on B: Bob's socket gets `kicked`, then a 1008 close; he may come back (on A).
        status, body = moderate(node_b, mod_token, {"type": "kick", "user": "bob"})
        assert status == 200 and body["event"]["user"] == "bob", body
        code = await closed_with(bob)
        assert code == 1008, code
        assert any(f.get("type") == "error" and f.get("code") == "kicked" for f in bob.frames), bob.frames
        bob, joined = await join(node_a, token("bob"))
        assert joined["type"] == "joined", joined

        # Ban from A: closed at once; the reconnect to the OTHER node is refused.
        done = await answer(mod, {"type": "ban", "user": "bob"})
        assert done["type"] == "done" and done["event"]["type"] == "member.banned", done
        assert await closed_with(bob) == 1008
        assert any(f.get("code") == "banned" for f in bob.frames), bob.frames
        again, refused = await join(node_b, token("bob"))
        assert refused["type"] == "error" and refused["code"] == "banned", refused
        assert await closed_with(again) == 1008
        for client in (mod, ada):
            await client.close()

    asyncio.run(asyncio.wait_for(scenario(), 60))
