"""Stream lifecycle webhooks, end to end: the relay (real process), an aiortc WHIP publisher,
and a webhook receiver (aiohttp) that VERIFIES every delivery with the independent PyPI
`standardwebhooks` library. Covers: started, DELETE -> publisher_deleted within 1 s,
kill -9 of the publisher -> publisher_timeout within the consent timeout + 1 s, kick,
receiver down (503) then up -> retried, relay kill -9 with a pending delivery -> delivered
after the restart (same database file), and catch-up through GET /api/events."""

from __future__ import annotations

import asyncio
import base64
import json
import os
import signal
import threading
import time
import urllib.error
import urllib.request

import pytest
from aiohttp import web
from standardwebhooks.webhooks import Webhook, WebhookVerificationError

from conftest import TARGET, launch_relay
from harness import free_port, start_peer

pytestmark = pytest.mark.skipif(TARGET != "onair", reason="webhooks are an OnAir relay feature")

ROOM = "42"
ADMIN_TOKEN = "interop-admin-token"
SECRET = "whsec_" + base64.b64encode(os.urandom(32)).decode()
CONSENT_TIMEOUT = 3.0   # the relay's default media.consent_timeout_seconds
RETRY_SCHEDULE = "0,1,1,1,2,2,2,2"  # fast retries so a recovered receiver is reached within seconds


class Receiver:
    """A webhook endpoint in a background thread. `status` other than 2xx simulates an outage;
    with 2xx every delivery must verify with standardwebhooks (else 400 and a recorded failure)."""

    def __init__(self, secret: str):
        self.webhook = Webhook(secret)
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}/hooks/relay"
        self.status = 204
        self.attempts: list[dict] = []     # every request: id, status answered, time
        self.events: list[dict] = []       # verified deliveries: payload + id + time
        self.failures: list[str] = []      # verification failures (must stay empty)
        self._cond = threading.Condition()
        self._loop = asyncio.new_event_loop()
        self._ready = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)
        self._thread.start()
        assert self._ready.wait(5), "receiver did not start"

    def _run(self) -> None:
        asyncio.set_event_loop(self._loop)
        app = web.Application()
        app.router.add_post("/hooks/relay", self._handle)
        self._runner = web.AppRunner(app, access_log=None)
        self._loop.run_until_complete(self._runner.setup())
        self._loop.run_until_complete(web.TCPSite(self._runner, "127.0.0.1", self.port).start())
        self._ready.set()
        self._loop.run_forever()

    async def _handle(self, request: web.Request) -> web.Response:
        body = await request.read()
        headers = dict(request.headers)
        now = time.time()
        status = self.status
        with self._cond:
            self.attempts.append({"id": headers.get("webhook-id"), "status": status, "at": now})
        if status >= 300:
            return web.Response(status=status)
        try:
            payload = self.webhook.verify(body, headers)
        except WebhookVerificationError as error:
            with self._cond:
                self.failures.append(f"{headers.get('webhook-id')}: {error}")
                self._cond.notify_all()
            return web.Response(status=400, text=str(error))
        with self._cond:
            self.events.append({**payload, "webhook_id": headers["webhook-id"], "received_at": now})
            self._cond.notify_all()
        return web.Response(status=status)

    def wait_for(self, predicate, timeout: float, what: str) -> dict:
        """The first verified event matching `predicate`, waiting up to `timeout` seconds."""
        deadline = time.monotonic() + timeout
        with self._cond:
            while True:
                assert not self.failures, f"standardwebhooks rejected deliveries: {self.failures}"
                for event in self.events:
                    if predicate(event):
                        return event
                left = deadline - time.monotonic()
                if left <= 0:
                    raise AssertionError(f"no {what} within {timeout}s; got {[(e['type'], e['data'].get('reason')) for e in self.events]}"
                                         f"; attempts {[(a['id'], a['status']) for a in self.attempts]}")
                self._cond.wait(min(left, 0.1))

    def close(self) -> None:
        async def stop():
            await self._runner.cleanup()
        asyncio.run_coroutine_threadsafe(stop(), self._loop).result(5)
        self._loop.call_soon_threadsafe(self._loop.stop)
        self._thread.join(5)


def of_type(kind: str, room: str = ROOM, reason: str | None = None, generation: int | None = None):
    def match(event: dict) -> bool:
        data = event["data"]
        return (event["type"] == kind and data["room"] == room
                and (reason is None or data.get("reason") == reason)
                and (generation is None or data["generation"] == generation))
    return match


def http(method: str, url: str, token: str | None = ADMIN_TOKEN, body: bytes | None = None):
    headers = {"Authorization": f"Bearer {token}"} if token else {}
    if body is not None:
        headers["Content-Type"] = "application/json"
    request = urllib.request.Request(url, data=body, method=method, headers=headers)
    try:
        with urllib.request.urlopen(request, timeout=5) as response:
            return response.status, response.read()
    except urllib.error.HTTPError as error:
        return error.code, error.read()


@pytest.fixture
def receiver():
    r = Receiver(SECRET)
    yield r
    r.close()


def webhook_env(receiver: Receiver, tmp_path) -> dict:
    return {"ONAIR_WEBHOOK_URL": receiver.url, "ONAIR_WEBHOOK_SECRET": SECRET, "ONAIR_ADMIN_TOKEN": ADMIN_TOKEN,
            "ONAIR_DATABASE": str(tmp_path / "relay.sqlite"), "ONAIR_WEBHOOK_RETRY_SCHEDULE": RETRY_SCHEDULE}


def publish(procs, relay, name: str = "publisher"):
    publisher = start_peer(procs, name, "whip_publisher.py", "--url", relay.whip_url(ROOM),
                           "--token", relay.publish_token, "--no-audio", "--width", "320", "--height", "240", timeout=90)
    publisher.wait_event("connected", timeout=15)
    return publisher


def test_started_then_delete_ends_within_one_second(procs, tmp_path, receiver):
    relay = launch_relay(TARGET, procs, tmp_path, webhook_env(receiver, tmp_path))
    publisher = publish(procs, relay)
    started = receiver.wait_for(of_type("stream.started"), 5, "stream.started")
    data = started["data"]
    assert data["generation"] >= 1 and data["sequence"] >= 1 and data["session_id"]
    assert started["webhook_id"] == data["event_id"] and data["event_id"].startswith("evt_")
    assert any(c.lower().startswith("video/h264") for c in data["codecs"]), data

    time.sleep(1.5)  # some media, so that bytes_in and duration mean something
    publisher.signal(signal.SIGTERM)  # the publisher DELETEs its WHIP session
    assert publisher.wait(15) is not None
    deleted = publisher.last("deleted")
    assert deleted and deleted["status"] in (200, 204), deleted
    ended = receiver.wait_for(of_type("stream.ended", reason="publisher_deleted"), 5, "stream.ended")
    lag = ended["received_at"] - deleted["wall"]
    print(f"stream.ended delivered {lag * 1000:.0f} ms after the DELETE answer")
    assert lag <= 1.0, f"stream.ended came {lag:.2f}s after DELETE"
    e = ended["data"]
    assert (e["generation"], e["session_id"]) == (data["generation"], data["session_id"])
    assert e["sequence"] > data["sequence"] and e["duration_seconds"] > 0 and e["bytes_in"] > 0
    assert "peak_viewers" in e

    # Catch-up: the same two events from the outbox, by global sequence.
    status, body = http("GET", f"{relay.base_url}/api/events?after=0")
    assert status == 200, body
    listed = json.loads(body)["events"]
    assert [x["id"] for x in listed] == [started["webhook_id"], ended["webhook_id"]]
    status, body = http("GET", f"{relay.base_url}/api/events?after={listed[0]['seq']}")
    assert [x["id"] for x in json.loads(body)["events"]] == [ended["webhook_id"]]
    assert http("GET", f"{relay.base_url}/api/events", token=None)[0] == 401


def test_publisher_killed_ends_with_timeout(procs, tmp_path, receiver):
    relay = launch_relay(TARGET, procs, tmp_path, webhook_env(receiver, tmp_path))
    publisher = publish(procs, relay)
    receiver.wait_for(of_type("stream.started"), 5, "stream.started")
    killed_at = time.time()
    publisher.signal(signal.SIGKILL)  # no DELETE, no DTLS close: the relay must notice by itself
    ended = receiver.wait_for(of_type("stream.ended"), CONSENT_TIMEOUT + 3, "stream.ended after kill -9")
    lag = ended["received_at"] - killed_at
    print(f"stream.ended (publisher_timeout) delivered {lag:.2f} s after kill -9")
    assert ended["data"]["reason"] == "publisher_timeout", ended
    assert lag <= CONSENT_TIMEOUT + 1.0, f"{lag:.2f}s after kill -9 (limit {CONSENT_TIMEOUT + 1}s)"


def test_kick_ends_the_stream(procs, tmp_path, receiver):
    relay = launch_relay(TARGET, procs, tmp_path, webhook_env(receiver, tmp_path))
    assert http("POST", f"{relay.base_url}/api/streams/{ROOM}/kick")[0] == 404, "nothing live yet"
    publish(procs, relay)
    receiver.wait_for(of_type("stream.started"), 5, "stream.started")
    assert http("POST", f"{relay.base_url}/api/streams/{ROOM}/kick", token=None)[0] == 401
    assert http("POST", f"{relay.base_url}/api/streams/{ROOM}/kick", token="wrong")[0] == 401
    status, body = http("POST", f"{relay.base_url}/api/streams/{ROOM}/kick")
    assert status == 200, body
    receiver.wait_for(of_type("stream.ended", reason="kicked"), 2, "stream.ended (kicked)")
    status, body = http("GET", f"{relay.base_url}/api/streams/{ROOM}", token=None)
    assert status == 404 or json.loads(body).get("publisher") in (None, {}), (status, body)


def test_receiver_down_then_up_is_retried(procs, tmp_path, receiver):
    receiver.status = 503
    relay = launch_relay(TARGET, procs, tmp_path, webhook_env(receiver, tmp_path))
    publish(procs, relay)
    deadline = time.monotonic() + 10
    while len(receiver.attempts) < 2 and time.monotonic() < deadline:
        time.sleep(0.05)
    assert len(receiver.attempts) >= 2, receiver.attempts
    receiver.status = 204
    started = receiver.wait_for(of_type("stream.started"), 6, "stream.started after the receiver came back")
    tried = [a["status"] for a in receiver.attempts if a["id"] == started["webhook_id"]]
    assert tried[:2] == [503, 503] and tried[-1] == 204, tried

    status, body = http("GET", f"{relay.base_url}/api/webhooks")
    subscription = next(w for w in json.loads(body)["webhooks"] if w["url"] == receiver.url)
    assert "secret" not in subscription and subscription["source"] == "config"
    status, body = http("GET", f"{relay.base_url}/api/webhooks/{subscription['id']}/deliveries")
    assert status == 200, body
    delivery = next(d for d in json.loads(body)["deliveries"] if d["event_id"] == started["webhook_id"])
    assert delivery["state"] == "delivered"
    assert [a["status"] for a in delivery["attempt_log"]] == tried

    # Manual redelivery: the same event (same webhook-id) once more.
    count = len([e for e in receiver.events if e["webhook_id"] == started["webhook_id"]])
    status, body = http("POST", f"{relay.base_url}/api/webhooks/{subscription['id']}/deliveries/{delivery['id']}/redeliver")
    assert status == 202, body
    deadline = time.monotonic() + 5
    while len([e for e in receiver.events if e["webhook_id"] == started["webhook_id"]]) == count:
        assert time.monotonic() < deadline, "redelivery did not arrive"
        time.sleep(0.05)


def test_relay_sigterm_ends_live_streams_before_exit(procs, tmp_path, receiver):
    relay = launch_relay(TARGET, procs, tmp_path, webhook_env(receiver, tmp_path))
    publish(procs, relay)
    started = receiver.wait_for(of_type("stream.started"), 5, "stream.started")
    relay.process.signal(signal.SIGTERM)  # graceful: the media plane ends every stream, webhooks drain
    assert relay.process.wait(10) is not None, "relay did not exit within 10 s of SIGTERM"
    ended = receiver.wait_for(of_type("stream.ended", reason="relay_shutdown"), 0.5, "stream.ended before exit")
    assert ended["data"]["generation"] == started["data"]["generation"]


def test_relay_kill9_with_pending_delivery_delivers_after_restart(procs, tmp_path, receiver):
    receiver.status = 503  # down: stream.started stays pending
    env = webhook_env(receiver, tmp_path)
    relay = launch_relay(TARGET, procs, tmp_path, env)
    publisher = publish(procs, relay)
    deadline = time.monotonic() + 10
    while not receiver.attempts and time.monotonic() < deadline:
        time.sleep(0.05)
    assert receiver.attempts, "the relay never tried the receiver"
    pending_id = receiver.attempts[0]["id"]
    relay.process.signal(signal.SIGKILL)  # kill -9 with the delivery pending and the stream live
    assert relay.process.wait(5) is not None
    publisher.signal(signal.SIGKILL)
    assert not receiver.events

    receiver.status = 204
    restarted = launch_relay(TARGET, procs, tmp_path, env, name="relay-restarted")
    started = receiver.wait_for(lambda e: e["webhook_id"] == pending_id, 10, "the pending stream.started")
    assert started["type"] == "stream.started"
    ended = receiver.wait_for(of_type("stream.ended", reason="relay_shutdown"), 10, "stream.ended (relay_shutdown)")
    assert ended["data"]["generation"] == started["data"]["generation"]
    assert ended["data"]["sequence"] > started["data"]["sequence"]
    order = [e["webhook_id"] for e in receiver.events]
    assert order.index(started["webhook_id"]) < order.index(ended["webhook_id"]), "per-subscriber order kept"
    assert restarted.process.poll() is None


def test_api_subscription_signs_with_the_callers_own_secret(procs, tmp_path):
    """POST /api/webhooks with a receiver's own `whsec_` secret (as Svix takes one): every
    delivery verifies with that secret in PyPI standardwebhooks. The relay used to ignore it and
    sign with one of its own ("No matching signature found"). A malformed secret, an unknown or
    mistyped field is refused with 422 naming it; a body that is not JSON with 400."""
    secret = "whsec_" + base64.b64encode(os.urandom(32)).decode()
    own = Receiver(secret)
    try:
        env = {"ONAIR_ADMIN_TOKEN": ADMIN_TOKEN, "ONAIR_DATABASE": str(tmp_path / "relay.sqlite"),
               "ONAIR_WEBHOOK_RETRY_SCHEDULE": RETRY_SCHEDULE}
        relay = launch_relay(TARGET, procs, tmp_path, env)
        api = f"{relay.base_url}/api/webhooks"
        for body, status, words in (
                (b'{"url": "' + own.url.encode() + b'", "secret": "whsec_!!"}', 422, "secret"),
                (b'{"url": "' + own.url.encode() + b'", "secert": "' + secret.encode() + b'"}', 422, '"secert"'),
                (b'{"url": 42}', 422, '"url"'),
                (b'{"url": ', 400, "not JSON")):
            answer = http("POST", api, body=body)
            assert answer[0] == status and words in answer[1].decode(), answer
        status, body = http("POST", api, body=json.dumps({"url": own.url, "events": ["stream.started", "stream.ended"],
                                                          "secret": secret}).encode())
        assert status == 201, body
        assert json.loads(body)["secret"] == secret
        publisher = publish(procs, relay)
        own.wait_for(of_type("stream.started"), 5, "stream.started signed with the caller's secret")
        publisher.signal(signal.SIGTERM)
        assert publisher.wait(15) is not None
        own.wait_for(of_type("stream.ended", reason="publisher_deleted"), 5, "stream.ended signed with the caller's secret")
        assert not own.failures, own.failures
    finally:
        own.close()
