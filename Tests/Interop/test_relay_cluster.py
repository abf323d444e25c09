"""Relays on one PostgreSQL database (the `relay` binary twice, `ONAIR_DATABASE` = the same
`postgres://` URL, each with its own `ONAIR_PUBLIC_URL` = http://127.0.0.1:<its http port>, which
names it to the others), with aiortc publishers, a webhook receiver that verifies every delivery
with PyPI `standardwebhooks`, and the chat sidecar:

1. one publisher per room across relays: WHIP to relay B for a room live on relay A -> 409 naming
   A; GET /api/streams on either relay lists every live room with the relay serving it;
2. relay A killed (kill -9): B ends A's stream with `stream.ended` (relay_lost) exactly once, the
   receiver and the chat get it within 10 s (the chat closes the room); A restarted on the same
   public URL does not end it a second time;
3. deliveries pending on the lane A held (receiver answering 503) are delivered by B after A is
   killed: every recorded event at least once, in per-room sequence order;
4. a database outage: publishing (and viewing) still works; the lifecycle events are held in
   memory and delivered once the database is back;
5. a room is free for a publisher on another relay once its stream ended.

Each test gets a fresh database (`pg_database`) on the session's throwaway server (conftest).
`pytest -s` prints the timings. Environment: ONAIR_RELAY_BIN, ONAIR_CHAT_BIN (as the other tests)."""

from __future__ import annotations

import base64
import json
import os
import signal
import socket
import time
from datetime import datetime
from pathlib import Path

import pytest

from conftest import TARGET, Relay, launch_relay
from harness import ProcessGroup, free_port, free_udp_range, start_peer
from test_aiortc_whip_whep import aiortc_offer
from test_aiortc_whip_whep import http as raw_http
from test_chat import launch_chat
from test_webhooks import ADMIN_TOKEN, Receiver, of_type
from test_webhooks import http as api_http

pytestmark = pytest.mark.skipif(TARGET != "onair", reason="relays on a shared database are an OnAir relay feature")

# Many fast retries: a receiver that answers 503 keeps its head delivery pending (not given up)
# for two minutes, retried about every second.
RETRY_SCHEDULE = ",".join(["0"] + ["1"] * 120)
ROOM_LEASE = 6.0        # PostgresWebhookStore.roomLease
ROOM_RENEWAL = 2.0      # PostgresWebhookStore.roomRenewal
LANE_LEASE = 10.0       # PostgresWebhookStore.lease
RELAY_LOST_WITHIN = 10.0  # kill -9 -> stream.ended (relay_lost) at the receiver


def new_secret() -> str:
    return "whsec_" + base64.b64encode(os.urandom(32)).decode()


# -- helpers ----------------------------------------------------------------------------------------

def cluster_relay(procs: ProcessGroup, tmp_path: Path, database: str, label: str, extra_env: dict | None = None,
                  ports: tuple[int, int] | None = None, name: str | None = None) -> tuple[Relay, dict, tuple[int, int]]:
    """Relay `label` on `database`, its public URL its own base URL. Returns the relay, its env and
    its ports (to restart it where it was)."""
    ports = ports or (free_port(socket.SOCK_STREAM), free_udp_range())
    workdir = tmp_path / f"relay-{label}"
    workdir.mkdir(exist_ok=True)
    env = {"ONAIR_DATABASE": database, "ONAIR_PUBLIC_URL": f"http://127.0.0.1:{ports[0]}",
           "ONAIR_ADMIN_TOKEN": ADMIN_TOKEN, "ONAIR_WEBHOOK_RETRY_SCHEDULE": RETRY_SCHEDULE, **(extra_env or {})}
    relay = launch_relay(TARGET, procs, workdir, env, name=name or f"relay-{label}", ports=ports)
    assert relay.base_url == env["ONAIR_PUBLIC_URL"]
    return relay, env, ports


def publish(procs: ProcessGroup, relay: Relay, room: str, name: str, audio: bool = False):
    """An aiortc publisher (small video; audio only when asked: an aiortc WHEP viewer cannot take
    the relay's answer for a video-only stream, whose rejected audio section has no ICE
    credentials) on `room`, connected."""
    publisher = start_peer(procs, name, "whip_publisher.py", "--url", relay.whip_url(room), "--token",
                           relay.publish_token, *([] if audio else ["--no-audio"]), "--width", "320", "--height", "240",
                           timeout=120)
    publisher.wait_event("connected", timeout=25)
    posted = publisher.last("posted")
    assert posted and posted["status"] == 201, f"{name}: WHIP POST to {relay.whip_url(room)} answered {posted}"
    return publisher


def unpublish(publisher) -> dict:
    """SIGTERM: the publisher DELETEs its session; returns its `deleted` line."""
    publisher.signal(signal.SIGTERM)
    assert publisher.wait(15) is not None, f"{publisher.name} did not stop within 15 s of SIGTERM"
    deleted = publisher.last("deleted")
    assert deleted and deleted["status"] in (200, 204), f"{publisher.name}: DELETE answered {deleted}"
    return deleted


def session_of(publisher) -> str:
    return publisher.last("posted")["location"].rstrip("/").rsplit("/", 1)[-1]


def get_json(url: str, token: str | None = ADMIN_TOKEN):
    status, body = api_http("GET", url, token=token)
    assert status == 200, f"GET {url}: {status} {body[:300]!r}"
    return json.loads(body)


def wait_live(relay: Relay, room: str, timeout: float = 10) -> dict:
    """GET /api/streams/{room} on `relay` until it says live with a publisher."""
    deadline = time.monotonic() + timeout
    last = None
    while time.monotonic() < deadline:
        status, body = api_http("GET", f"{relay.base_url}/api/streams/{room}", token=None)
        last = (status, body[:300])
        if status == 200:
            snapshot = json.loads(body)
            if snapshot.get("live") and snapshot.get("publisher"):
                return snapshot
        time.sleep(0.1)
    raise AssertionError(f"room {room} not live on {relay.base_url} within {timeout}s; last answer {last}")


def listing(relay: Relay) -> dict[str, dict]:
    """GET /api/streams (no token needed), by room."""
    entries = get_json(f"{relay.base_url}/api/streams", token=None)
    assert isinstance(entries, list), entries
    return {entry["room"]: entry for entry in entries}


def outbox(relay: Relay) -> list[dict]:
    """Every event of the shared outbox, oldest first (GET /api/events)."""
    return get_json(f"{relay.base_url}/api/events?after=0&limit=1000")["events"]


def subscription_id(relay: Relay, url: str) -> str:
    hooks = get_json(f"{relay.base_url}/api/webhooks")["webhooks"]
    matches = [w["id"] for w in hooks if w["url"] == url]
    assert len(matches) == 1, f"subscriptions for {url} on {relay.base_url}: {hooks}"
    return matches[0]


def wall(timestamp: str) -> float:
    return datetime.fromisoformat(timestamp.replace("Z", "+00:00")).timestamp()


def whip_post_status(relay: Relay, room: str) -> tuple[int, str]:
    """A raw WHIP POST (a real aiortc offer, no media follows): (status, body text)."""
    status, _, body = raw_http("POST", relay.whip_url(room), aiortc_offer("sendonly").encode(),
                               {"Content-Type": "application/sdp", "Authorization": f"Bearer {relay.publish_token}"})
    return status, body.decode(errors="replace")


def log_lines(relay: Relay, *needles: str) -> list[str]:
    return [line for line in relay.process.log_text().splitlines() if any(n in line for n in needles)]


def chat_room(chat, room: str = "42") -> tuple[int, dict]:
    status, body = api_http("GET", f"{chat.base_url}/rooms/{room}", token=None)
    try:
        return status, json.loads(body)
    except ValueError:
        return status, {"raw": body[:300]}


# -- 1. one publisher per room ----------------------------------------------------------------------

def test_second_publisher_on_other_relay_gets_409(procs, tmp_path, pg_database):
    """Room 42 live on A: WHIP to 42 on B -> 409 naming A's public URL (and no stream on B);
    GET /api/streams on B lists 42 as {"room", "live", "relay": A}, on A as a full snapshot with
    "relay": A; room 43 on B works (201, connected, live), and the listings and the 409 go the
    other way for it."""
    a, _, _ = cluster_relay(procs, tmp_path, pg_database, "a")
    b, _, _ = cluster_relay(procs, tmp_path, pg_database, "b")
    publish(procs, a, "42", "publisher-a-42")
    wait_live(a, "42")

    status, text = whip_post_status(b, "42")
    assert status == 409, f"WHIP POST to room 42 on B while it is live on A: {status} {text!r}"
    assert a.base_url in text, f"the 409 must name relay A ({a.base_url}): {text!r}"
    status, body = api_http("GET", f"{b.base_url}/api/streams/42", token=None)
    assert status == 404 or not json.loads(body).get("publisher"), f"B created a stream for room 42: {status} {body[:300]!r}"

    on_b = listing(b)
    assert "42" in on_b, f"GET /api/streams on B does not list room 42 (live on A): {on_b}"
    assert on_b["42"].get("relay") == a.base_url and on_b["42"].get("live") is True, on_b["42"]
    assert "publisher" not in on_b["42"], f"room 42 on B must be a directory entry, not a snapshot: {on_b['42']}"
    on_a = listing(a)
    assert on_a.get("42", {}).get("relay") == a.base_url and on_a["42"].get("publisher"), \
        f"A lists its own room 42 as a full snapshot with relay {a.base_url}: {on_a}"

    publisher = publish(procs, b, "43", "publisher-b-43")  # asserts 201 and connected
    assert publisher.last("posted")["status"] == 201
    wait_live(b, "43")
    on_a, on_b = listing(a), listing(b)
    assert on_a.get("43", {}).get("relay") == b.base_url and "publisher" not in on_a["43"], on_a
    assert on_b.get("43", {}).get("relay") == b.base_url and on_b["43"].get("publisher"), on_b
    assert on_b.get("42", {}).get("relay") == a.base_url, on_b
    status, text = whip_post_status(a, "43")
    assert status == 409 and b.base_url in text, f"WHIP POST to room 43 on A while live on B: {status} {text!r}"


# -- 2. a relay dies: relay_lost, once --------------------------------------------------------------

def test_relay_killed_ends_its_streams_relay_lost(procs, tmp_path, pg_database):
    """Relays A and B with two shared subscribers: the chat (ONAIR_WEBHOOK_URL on both: one config
    subscription) and a receiver added through A's admin API before B starts (A holds both lanes).
    Room 42 live on A; kill -9 of A (and its publisher) as soon as the receiver has stream.started
    (A's lane claims are fresh then, as on a busy relay): B records stream.ended (relay_lost) within lease + renewal (6 + 2 s), same
    generation and session as stream.started, a later sequence; the receiver gets it verified and
    the chat closes room 42 (closed_reason relay_lost), both within 10 s of the kill. A restarted on
    the same public URL, port and database ends nothing again: after 5 s the receiver and the
    outbox hold one stream.ended for the session. The 10 s bound is checked last."""
    chat_dir = tmp_path / "chat"
    chat_dir.mkdir()
    chat = launch_chat(procs, chat_dir)
    to_chat = {"ONAIR_WEBHOOK_URL": f"{chat.base_url}/hooks/relay", "ONAIR_WEBHOOK_SECRET": chat.secret}
    a, _, a_ports = cluster_relay(procs, tmp_path, pg_database, "a", to_chat)
    secret = new_secret()
    receiver = Receiver(secret)
    try:
        # A second subscriber through the admin API of A. Both subscriptions exist before B starts,
        # so A holds both lanes (B's lanes wait for A's claims to run out).
        status, body = api_http("POST", f"{a.base_url}/api/webhooks",
                                body=json.dumps({"url": receiver.url, "secret": secret}).encode())
        assert status == 201, f"POST /api/webhooks: {status} {body!r}"
        b, _, _ = cluster_relay(procs, tmp_path, pg_database, "b", to_chat)
        hooks = get_json(f"{b.base_url}/api/webhooks")["webhooks"]
        assert sorted(w["url"] for w in hooks) == sorted([receiver.url, to_chat["ONAIR_WEBHOOK_URL"]]), \
            f"B sees the shared subscriptions: {hooks}"

        publisher = publish(procs, a, "42", "publisher-a-42")
        session = session_of(publisher)
        started = receiver.wait_for(of_type("stream.started"), 10, "stream.started")
        # Killed right after a delivery: A's lane claims are fresh, as on a relay that delivers
        # events all the time (stream.viewers every few seconds).
        killed_at = time.time()
        a.process.signal(signal.SIGKILL)
        publisher.signal(signal.SIGKILL)
        assert a.process.wait(5) is not None, "relay A survived kill -9"
        assert started["data"]["session_id"] == session, (started, session)
        ended = receiver.wait_for(of_type("stream.ended"), RELAY_LOST_WITHIN + 15, "stream.ended after A was killed")
        lag = ended["received_at"] - killed_at
        recorded_lag = wall(ended["timestamp"]) - killed_at
        e, s = ended["data"], started["data"]
        print(f"\nrelay A kill -9 -> stream.ended (relay_lost) recorded by B after {recorded_lag:.2f} s, "
              f"delivered after {lag:.2f} s")
        assert e["reason"] == "relay_lost", f"stream.ended after kill -9 of A: {ended}"
        assert (e["generation"], e["session_id"]) == (s["generation"], s["session_id"]), (started, ended)
        assert e["sequence"] > s["sequence"], (started, ended)
        assert recorded_lag <= ROOM_LEASE + ROOM_RENEWAL + 1.0, \
            f"relay_lost recorded {recorded_lag:.2f} s after the kill (lease {ROOM_LEASE} s + renewal {ROOM_RENEWAL} s)"
        # The delivery bound is checked last, so that a slow delivery still shows everything else.
        lost_by = log_lines(b, "its relay is gone")
        assert lost_by, "B's log does not say it ended A's stream"

        deadline = time.monotonic() + 10
        while True:
            status, room = chat_room(chat)
            if status == 200 and room["state"] == "closed":
                break
            assert time.monotonic() < deadline, f"the chat did not close room 42 within 10 s of the delivery: {status} {room}"
            time.sleep(0.1)
        chat_lag = time.time() - killed_at
        print(f"chat closed room 42 {chat_lag:.2f} s after the kill")
        assert room["closed_reason"] == "relay_lost" and room["generation"] == s["generation"], room

        # A comes back on the same public URL, port and database: it must not end the stream again.
        restarted, _, _ = cluster_relay(procs, tmp_path, pg_database, "a", to_chat, ports=a_ports, name="relay-a-restarted")
        assert restarted.base_url == a.base_url
        time.sleep(5)
        ends = [x for x in receiver.events if x["type"] == "stream.ended" and x["data"]["session_id"] == session]
        assert {x["webhook_id"] for x in ends} == {ended["webhook_id"]}, \
            f"the session ended more than once: {[(x['webhook_id'], x['data']['reason']) for x in ends]}"
        recorded = [x for x in outbox(restarted) if x["type"] == "stream.ended" and x["room"] == "42"]
        assert [x["id"] for x in recorded] == [ended["webhook_id"]], f"stream.ended events in the outbox: {recorded}"
        assert not log_lines(restarted, "still live after a crash"), log_lines(restarted, "still live after a crash")
        status, room = chat_room(chat)
        assert room["state"] == "closed" and room["closed_reason"] == "relay_lost", room
        assert restarted.process.poll() is None and b.process.poll() is None
        assert max(lag, chat_lag) <= RELAY_LOST_WITHIN, \
            (f"relay_lost reached the receiver {lag:.2f} s and closed the chat room {chat_lag:.2f} s after the kill "
             f"(limit {RELAY_LOST_WITHIN} s), though B recorded it after {recorded_lag:.2f} s: B's log: "
             f"{lost_by + log_lines(b, 'webhook delivered', 'webhook attempt')}")
    finally:
        receiver.close()


# -- 3. the lane of a dead relay --------------------------------------------------------------------

def test_pending_deliveries_of_dead_relay_delivered_by_other(procs, tmp_path, pg_database):
    """The receiver answers 503, so A's lane keeps its claim (retrying the head about every
    second) while A records 42 started/ended, 43 started/ended, 42 started (left live) and B,
    started later, records 44 started/ended: 7 deliveries pending, none attempted by B. kill -9 of
    A, receiver back to 200: B takes the lane once A's claim runs out (10 s) and delivers all 8
    events (the 7 and its own relay_lost for 42), verified; the first arrival of each event id
    comes in per-room sequence order (42: 1..4, 43: 1..2, 44: 1..2); nothing stays pending."""
    secret = new_secret()
    receiver = Receiver(secret)
    try:
        receiver.status = 503  # down: every delivery stays pending on the lane A holds
        env = {"ONAIR_WEBHOOK_URL": receiver.url, "ONAIR_WEBHOOK_SECRET": secret}
        a, _, _ = cluster_relay(procs, tmp_path, pg_database, "a", env)
        p = publish(procs, a, "42", "publisher-a-42-1")
        deadline = time.monotonic() + 10
        while not receiver.attempts:
            assert time.monotonic() < deadline, "relay A never tried the receiver"
            time.sleep(0.05)
        unpublish(p)
        unpublish(publish(procs, a, "43", "publisher-a-43"))
        live_on_a = publish(procs, a, "42", "publisher-a-42-2")  # still live when A dies
        wait_live(a, "42")
        # B joins while A holds the lane (A retries the head about every second, renewing its claim).
        b, _, _ = cluster_relay(procs, tmp_path, pg_database, "b", env)
        unpublish(publish(procs, b, "44", "publisher-b-44"))

        deadline = time.monotonic() + 10
        while len(events := outbox(b)) < 7:
            assert time.monotonic() < deadline, f"expected 7 events in the outbox, got {[(x['type'], x['room']) for x in events]}"
            time.sleep(0.1)
        sid = subscription_id(b, receiver.url)
        pending = get_json(f"{b.base_url}/api/webhooks/{sid}/deliveries?state=pending&limit=100")["deliveries"]
        assert len(pending) == 7, f"7 deliveries must be pending, got {[(d['event_type'], d['room'], d['state']) for d in pending]}"
        assert not receiver.events, f"nothing can have been delivered (503): {receiver.events}"
        assert log_lines(a, "webhook attempt failed"), "relay A never tried the lane (so it did not hold it)"
        assert not log_lines(b, "webhook attempt failed", "webhook delivered"), \
            "B delivered on the lane before A died: the test needs A to hold it"
        attempts_before = len(receiver.attempts)

        killed_at = time.time()
        a.process.signal(signal.SIGKILL)
        live_on_a.signal(signal.SIGKILL)
        assert a.process.wait(5) is not None, "relay A survived kill -9"
        receiver.status = 200

        # B takes the lane over once A's claim runs out, and delivers everything, including the
        # relay_lost end of room 42 it records itself.
        lost = receiver.wait_for(of_type("stream.ended", room="42", reason="relay_lost"), LANE_LEASE + 20,
                                 "stream.ended (relay_lost) of room 42 from B")
        deadline = time.monotonic() + 10
        while True:
            recorded = outbox(b)
            received = {x["webhook_id"] for x in receiver.events}
            missing = [(x["type"], x["room"], x["sequence"]) for x in recorded if x["id"] not in received]
            if not missing:
                break
            assert time.monotonic() < deadline, f"recorded events never delivered: {missing}"
            time.sleep(0.1)
        assert not receiver.failures, f"standardwebhooks rejected deliveries: {receiver.failures}"
        after_kill = [x for x in receiver.events if x["received_at"] >= killed_at]
        first_at = min(x["received_at"] for x in after_kill) - killed_at
        all_at = max(x["received_at"] for x in receiver.events) - killed_at
        print(f"\nA killed with {len(pending)} pending: B delivered the first {first_at:.2f} s and all "
              f"{len(recorded)} events {all_at:.2f} s after the kill ({len(receiver.events)} deliveries, "
              f"{len(receiver.attempts) - attempts_before} attempts after the kill)")
        assert len(recorded) == 8, f"7 events before the kill + relay_lost: {[(x['type'], x['room']) for x in recorded]}"
        assert lost["data"]["generation"] == 2, lost

        first: dict[str, dict] = {}
        for x in receiver.events:
            first.setdefault(x["webhook_id"], x)
        order: dict[str, list[tuple[int, int, str]]] = {}
        for x in first.values():
            d = x["data"]
            order.setdefault(d["room"], []).append((d["generation"], d["sequence"], x["type"]))
        for room, seen in order.items():
            sequences = [sequence for _, sequence, _ in seen]
            assert sequences == sorted(sequences) and len(set(sequences)) == len(sequences), \
                f"room {room}: events arrived out of sequence order: {seen}"
        want = {room: [x["sequence"] for x in recorded if x["room"] == room] for room in ("42", "43", "44")}
        got = {room: [sequence for _, sequence, _ in order.get(room, [])] for room in ("42", "43", "44")}
        assert got == want == {"42": [1, 2, 3, 4], "43": [1, 2], "44": [1, 2]}, f"per-room sequences {got}, outbox {want}"

        deadline = time.monotonic() + 5
        while get_json(f"{b.base_url}/api/webhooks/{sid}/deliveries?state=pending&limit=100")["deliveries"]:
            assert time.monotonic() < deadline, "deliveries still pending on B after everything arrived"
            time.sleep(0.1)
    finally:
        receiver.close()


# -- 4. database outage -----------------------------------------------------------------------------

def test_relay_publishing_survives_database_outage(procs, tmp_path, postgres, pg_database):
    """PostgreSQL paused under relay A: a publisher to room 42 still gets 201 and goes live (the
    directory check gives up after the database's 5 s deadline), an aiortc WHEP viewer decodes
    frames, the publisher DELETEs; the database stays away until recording has failed once. After
    resume() the receiver gets stream.started then stream.ended (publisher_deleted) of that
    session within 20 s, with the timestamps of the changes; the relay logs that it recorded what
    it held."""
    secret = new_secret()
    receiver = Receiver(secret)
    try:
        env = {"ONAIR_WEBHOOK_URL": receiver.url, "ONAIR_WEBHOOK_SECRET": secret}
        relay, _, _ = cluster_relay(procs, tmp_path, pg_database, "a", env)
        postgres.pause()
        try:
            paused_at = time.monotonic()
            publisher = publish(procs, relay, "42", "publisher-42", audio=True)  # audio: for the aiortc viewer
            session = session_of(publisher)
            answered_ms = publisher.last("connected")["ms"]
            print(f"\npublisher connected {time.monotonic() - paused_at:.2f} s into the outage "
                  f"(WHIP POST to connected: {answered_ms} ms)")
            # The claim in the room directory cannot be made: the relay waits for the database's
            # deadline (5 s), then publishes without the cross-relay check.
            assert answered_ms <= 8000, f"WHIP took {answered_ms} ms during the outage"
            wait_live(relay, "42")
            viewer = start_peer(procs, "viewer-42", "whep_viewer.py", "--url", relay.whep_url("42"),
                                "--offline-wait", 10, "--duration", 20, timeout=60)
            viewer.wait_event("first_frame", timeout=15)
            viewer.wait_event("progress", timeout=5, predicate=lambda e: e.get("distinct", 0) >= 15)
            deleted = unpublish(publisher)
            if viewer.wait(10) is None:
                viewer.stop()
            report = viewer.last("report")
            assert report and report["distinct"] >= 15, f"the viewer decoded too little during the outage: {report}"
            # Keep the database away until recording stream.started has failed once (each try waits
            # for the database's 5 s deadline), so that the changes are held and retried.
            deadline = time.monotonic() + 15
            while not log_lines(relay, "could not record"):
                assert time.monotonic() < deadline, "the relay never failed to record a lifecycle change"
                time.sleep(0.2)
            assert postgres.paused
            outage = time.monotonic() - paused_at
            assert not receiver.events, f"delivered while the database was away? {receiver.events}"
        finally:
            postgres.resume()
        resumed_at = time.time()
        print(f"outage {outage:.1f} s: the viewer's first frame {report['first_frame_ms']} ms after its POST, "
              f"{report['distinct']} frames decoded")
        started = receiver.wait_for(lambda x: of_type("stream.started")(x) and x["data"]["session_id"] == session, 20,
                                    "stream.started after the outage")
        ended = receiver.wait_for(lambda x: of_type("stream.ended")(x) and x["data"]["session_id"] == session, 20,
                                  "stream.ended after the outage")
        print(f"after resume: stream.started in {started['received_at'] - resumed_at:.2f} s, "
              f"stream.ended in {ended['received_at'] - resumed_at:.2f} s")
        assert ended["received_at"] - resumed_at <= 20, "stream.ended more than 20 s after the database came back"
        assert ended["data"]["reason"] == "publisher_deleted", ended
        assert ended["data"]["generation"] == started["data"]["generation"], (started, ended)
        assert ended["data"]["sequence"] > started["data"]["sequence"], (started, ended)
        order = [x["webhook_id"] for x in receiver.events]
        assert order.index(started["webhook_id"]) < order.index(ended["webhook_id"]), "started must arrive before ended"
        assert wall(started["timestamp"]) < wall(ended["timestamp"]) <= deleted["wall"] + 1, \
            f"event timestamps are those of the changes, not of the recording: {started['timestamp']}, {ended['timestamp']}"
        assert log_lines(relay, "held in memory, after"), "the relay's log does not say it recorded the changes it held"
        assert relay.process.poll() is None, "the relay exited"
    finally:
        if postgres.paused:
            postgres.resume()
        receiver.close()


# -- 5. a room is free again once its stream ended -------------------------------------------------

def test_room_free_on_other_relay_once_stream_ended(procs, tmp_path, pg_database):
    """The room directory's claim is dropped when the stream ends (PostgresWebhookStore.releaseRoom
    says "frees room at once when this relay's stream there ended"): after the publisher on A
    DELETEs, B no longer lists room 42 as live on A and accepts a publisher for it."""
    a, _, _ = cluster_relay(procs, tmp_path, pg_database, "a")
    b, _, _ = cluster_relay(procs, tmp_path, pg_database, "b")
    publisher = publish(procs, a, "42", "publisher-a-42")
    wait_live(a, "42")
    assert listing(b).get("42", {}).get("relay") == a.base_url
    deleted = unpublish(publisher)
    time.sleep(2.0)  # generous: the claim is to go as the stream ends
    listed = listing(b).get("42")  # before B's own publisher: not on A any more
    status, text = whip_post_status(b, "42")  # a real offer; no media follows (the session times out)
    if status == 409 or listed is not None:
        deadline = time.monotonic() + 25  # for the report: how long the stale claim lasts
        while "42" in listing(b) and time.monotonic() < deadline:
            time.sleep(0.1)
        print(f"\nroom 42 left B's listing {time.time() - deleted['wall']:.2f} s after the DELETE on A")
    assert status == 201 and listed is None, \
        (f"2 s after the stream on A ended, WHIP POST to room 42 on B -> {status} {text.strip()!r}; B lists {listed}; "
         f"the room left B's listing {time.time() - deleted['wall']:.1f} s after the DELETE")


# -- 6. publisher DELETE -> room.closed on every chat node ----------------------------------------

def test_publisher_delete_closes_room_on_every_chat_node(procs, tmp_path, pg_database):
    """End to end on one PostgreSQL database (the relay_* and the chat_* tables side by side): a
    relay whose webhook subscriber is chat node A's /hooks/relay, and chat nodes A and B (one
    webhook secret, the relay's). Two WebSocket clients in room 42 on each node. An aiortc
    publisher to room 42 goes live: all four get the stream.started system message and the room
    is open on both nodes. The publisher DELETEs its WHIP session: counted from the DELETE's
    response, all four get the stream.ended system message (publisher_deleted) and then
    `room.closed` (publisher_deleted) within 1.0 s; a send on B is refused (room_closed) and
    GET /rooms/42 on B says closed (publisher_deleted, the relay's generation)."""
    import asyncio

    from test_chat import ROOM, STEP
    from test_chat_cluster import Peer, close_all, launch_cluster, run
    from test_chat_cluster import get as chat_get

    close_within = 1.0
    a, b = launch_cluster(procs, tmp_path, pg_database)
    assert a.secret == b.secret, "launch_cluster gives both chat nodes one webhook secret"
    to_chat_a = {"ONAIR_WEBHOOK_URL": f"{a.base_url}/hooks/relay", "ONAIR_WEBHOOK_SECRET": a.secret}
    relay, _, _ = cluster_relay(procs, tmp_path, pg_database, "r", to_chat_a)

    async def scenario():
        peers: list[Peer] = []
        try:
            for chat, node, names in ((a, "A", ("ann", "art")), (b, "B", ("bob", "bea"))):
                for name in names:
                    peers.append(await Peer.join(chat, name, f"{name}@{node}"))
            on_b = [p for p in peers if p.label.endswith("@B")]

            # Live: the relay records stream.started and delivers it to A; every client gets the
            # system message, whichever node it is on.
            publisher = await asyncio.to_thread(publish, procs, relay, ROOM, "publisher-42")
            session = session_of(publisher)
            await asyncio.to_thread(wait_live, relay, ROOM)
            for peer in peers:
                await peer.wait(lambda p=peer: any(m.get("event") == "stream.started" for m in p.live), 10,
                                "the stream.started system message (relay -> chat A webhook, fanned out to B)")
            started = [next(m for m in p.live if m.get("event") == "stream.started") for p in peers]
            assert len({m["id"] for m in started}) == 1, \
                f"the four clients got different stream.started messages: {[(p.label, m) for p, m in zip(peers, started)]}"
            started_id = started[0]["id"]
            for chat, node in ((a, "A"), (b, "B")):
                status, room = await chat_get(chat, f"/rooms/{ROOM}")
                assert status == 200 and room["state"] == "open", f"GET /rooms/{ROOM} on {node} while live: {status} {room}"
            live_id = await on_b[0].say("hello while live")  # sends are allowed while the room is open
            for peer in peers:
                await peer.wait(lambda p=peer: p.last_id >= live_id, STEP, "the message sent on B while live")

            # The publisher DELETEs its session (SIGTERM -> DELETE <Location>).
            stopping = time.monotonic()
            deleted = await asyncio.to_thread(unpublish, publisher)
            to_wall = time.time() - time.monotonic()  # peers stamp frames with time.monotonic()
            answered_at = deleted["wall"]  # the publisher's time.time() once the DELETE's response was read
            print(f"\nDELETE of WHIP session {session} answered {deleted['status']} "
                  f"{(answered_at - to_wall - stopping) * 1000:.0f} ms after SIGTERM to the publisher")

            for peer in peers:  # waits well past the limit, so that late figures are still measured
                await peer.wait(lambda p=peer: p.first("room.closed") is not None, close_within + 10,
                                "room.closed after the publisher's DELETE")
            latencies: dict[str, float] = {}
            for peer in peers:
                closed_at, closed = peer.first("room.closed")
                latencies[peer.label] = closed_at + to_wall - answered_at
                assert closed_at >= stopping, f"{peer.label}: room.closed before the publisher was told to leave: {closed}"
                system = peer.first("message", stopping, lambda f: f["message"].get("event") == "stream.ended")
                assert system is not None and system[0] <= closed_at, \
                    f"{peer.label}: the stream.ended system message must come before room.closed: " \
                    f"{[f for _, f in peer.frames[-4:]]}"
                message = system[1]["message"]
                assert (message["kind"], message.get("reason")) == ("system", "publisher_deleted"), \
                    f"{peer.label}: the stream.ended system message: {message}"
                assert closed["reason"] == "publisher_deleted" and closed["message_id"] == message["id"], \
                    f"{peer.label}: room.closed {closed} (stream.ended message {message['id']})"
                assert message["id"] > live_id > started_id, (peer.label, started_id, live_id, message)
            print("DELETE answered -> room.closed: "
                  + ", ".join(f"{label} {seconds * 1000:.0f} ms" for label, seconds in latencies.items()))
            slow = {label: round(seconds, 3) for label, seconds in latencies.items() if seconds > close_within}
            assert not slow, \
                (f"room.closed later than {close_within} s after the DELETE's response (s): {slow}; relay log: "
                 f"{log_lines(relay, 'stream ended', 'webhook delivered', 'webhook attempt')[-6:]}")

            # Read-only on B now.
            answer = await on_b[0].ask({"type": "send", "text": "hello after the end?"})
            assert answer["type"] == "error" and answer.get("code") == "room_closed", \
                f"{on_b[0].label}: a send on B after room.closed must be refused with room_closed: {answer}"
            ended = [x for x in await asyncio.to_thread(outbox, relay)
                     if x["type"] == "stream.ended" and x["room"] == ROOM]
            assert len(ended) == 1, f"the relay's outbox holds {len(ended)} stream.ended events for room {ROOM}: {ended}"
            status, room = await chat_get(b, f"/rooms/{ROOM}")
            assert status == 200 and room["state"] == "closed" and room["closed_reason"] == "publisher_deleted", \
                f"GET /rooms/{ROOM} on B after the DELETE: {status} {room}"
            assert room["generation"] == ended[0]["generation"], \
                f"GET /rooms/{ROOM} on B: generation {room['generation']}, the relay's stream.ended: {ended[0]}"
            for peer in peers:
                assert sum(1 for _, f in peer.frames if f["type"] == "room.closed") == 1, \
                    f"{peer.label}: room.closed more than once: {[f for _, f in peer.frames if f['type'] == 'room.closed']}"
                assert peer.closed_at is None, f"{peer.label}: the node closed the WebSocket"
        finally:
            await close_all(peers)
    run(scenario(), timeout=90)
