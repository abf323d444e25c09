"""The API contract: PyPI `schemathesis` (a property-based API fuzzer we did not write) runs the
OpenAPI documents `Sources/OnAirRelay/Web/openapi.yaml` and `Sources/OnAirChat/Web/openapi.yaml`
(read from the repository) against live servers: every operation, all four phases (examples,
coverage, fuzzing, stateful links), `--max-examples` per operation (ONAIR_OPENAPI_EXAMPLES,
default 50; up to ~400 fits the relay's 300 s hard timeout). Checks: no 5xx; status codes,
content types, headers and bodies as documented; schema-violating requests refused and
conforming ones accepted (switched off per operation where a rule cannot be written as a
schema: SDP bodies, blocking-reload parameters, `after` xor `before`, see the configs below);
documented auth enforced; a deleted webhook subscription gone; an undocumented method on a
documented path `405` with `Allow` (`unsupported_method`) and every `OPTIONS` answer's `Allow`
listing exactly the path's documented methods (`allow_header_conformance`, `HEAD` and `OPTIONS`
aside). Every check schemathesis has is on.

(a) The relay (conftest.launch_relay; the publish and admin Bearer tokens set through
ONAIR_PUBLISH_TOKEN / ONAIR_ADMIN_TOKEN, load shedding off with ONAIR_MAX_MEDIA_LOAD=1 since the
fuzzer admits WHEP viewers in bursts and a debug build would refuse some with 503 depending on
the machine): an aiortc publisher streams to room 42 and an aiortc WHEP viewer watches it; a
webhook subscription made through the API and one from the environment (ONAIR_WEBHOOK_URL, so
`source: config`) both have deliveries, all aimed at a closed 127.0.0.1 port. First a WHEP
session from the document's own example offer goes through every answer of its resource, and a
WHIP session that never connects is not live for LL-HLS (404 at once), each answer validated
against the document. Then real values (room 42, the HLS stream's directory and file
names, the subscription and delivery ids, three WHEP sessions of the test's own that never
connect) are fed to the fuzzer as dictionaries next to generated ones; the viewer's session is
never handed out, and links are only taken from `Location` headers and the document (one
inferred from `/api/streams` could lead to the publisher's session). A `before_call` hook
(bottom of this file) points every subscription URL the fuzzer creates at 127.0.0.1, so the
relay never posts anywhere else.
Left out of the run because they would legitimately end the test's own stream, and checked on
their own afterwards (each answer validated against the document): `POST
/api/streams/{room}/kick` (401 without or with a wrong token, 404 for an idle room, 200 for room
42 - the viewer then sees the end) and `DELETE /whip/{room}/{session}` (401 without or with a
wrong token while the stream is live, 404 once it ended).
Afterwards the stream still reaches its viewer: new frames decoded, `/api/streams/42` live
with the same publisher session.

(b) The chat (test_chat.launch_chat): room 42 exists (a signed `stream.started`). The hook signs
two thirds of the fuzzer's `POST /hooks/relay` requests that carry all three `webhook-*` headers
with the chat's secret (the `standardwebhooks` package), so event parsing is fuzzed past the
signature check too; the rest stay unsigned (400/401).
Afterwards the chat still works: on a fresh room a WebSocket client joins, sends and gets its
ack, a bot posts, and a signed `stream.ended` closes the room for the client and the bot.

Run: `.venv-interop/bin/pytest Tests/Interop/test_openapi.py` (under a minute). On failure the
schemathesis report (each failing request as curl, and `st replay <id>`) is the failure message,
with an NDJSON report of every request next to the test's logs; ONAIR_OPENAPI_SEED=<n> repeats a
run's generated inputs (the report prints its seed)."""

from __future__ import annotations

import asyncio
import json
import os
import re
import sys
import time
import zlib
from collections.abc import MutableMapping
from datetime import datetime, timezone
from pathlib import Path

import pytest
import requests
import schemathesis
from standardwebhooks import Webhook

from conftest import TARGET, launch_relay
from harness import INTEROP_DIR, REPO, ProcessGroup, free_port, start_peer
from test_chat import BOT_TOKEN, Client, deliver, launch_chat, stream_event

RELAY_SPEC = REPO / "Sources" / "OnAirRelay" / "Web" / "openapi.yaml"
CHAT_SPEC = REPO / "Sources" / "OnAirChat" / "Web" / "openapi.yaml"
SCHEMATHESIS = Path(sys.executable).parent / "schemathesis"
MAX_EXAMPLES = int(os.environ.get("ONAIR_OPENAPI_EXAMPLES", "50"))
RUN_TIMEOUT = 240  # seconds; a run takes 10-40 at the default --max-examples
ROOM = "42"
ADMIN_TOKEN = "interop-admin-token"
WEBHOOK_SECRET = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw"


# -- running schemathesis ---------------------------------------------------------------------

def toml_list(values) -> str:
    return "[" + ", ".join(json.dumps(v) for v in values) + "]"


def run_schemathesis(procs: ProcessGroup, name: str, spec: Path, base_url: str, workdir: Path, config: str,
                     exclude: list[str], env: dict) -> str:
    """Runs `schemathesis run` on `spec` against `base_url`; fails the test with its report
    unless every check passed. Returns the report."""
    config_path = workdir / f"{name}.toml"
    config_path.write_text(config)
    seed = os.environ.get("ONAIR_OPENAPI_SEED")
    argv = [str(SCHEMATHESIS), "--no-color", "--config-file", str(config_path), "run", str(spec),
            "--url", base_url, "--max-examples", str(MAX_EXAMPLES),
            # One worker: hypothesis' lambda descriptions call ast.parse, which is not
            # thread-safe in CPython 3.11 ("AST constructor recursion depth mismatch").
            "--workers", "1", "--request-timeout", "10", "--max-failures", "50",
            "--report", "ndjson", "--report-dir", str(workdir / f"{name}-report"),
            *(["--seed", seed] if seed else []),
            *[arg for operation_id in exclude for arg in ("--exclude-operation-id", operation_id)]]
    process = procs.start(name, argv, timeout=RUN_TIMEOUT, cwd=str(workdir), env={
        **os.environ, **env, "SCHEMATHESIS_HOOKS": str(Path(__file__).resolve()), "PYTHONPATH": str(INTEROP_DIR)})
    code = process.wait(RUN_TIMEOUT + 10)
    report = process.log_text()
    if code != 0:
        pytest.fail(f"schemathesis found failures in {spec.relative_to(REPO)} (exit {code}):\n{report[-30000:]}",
                    pytrace=False)
    return report


def register_text_media_types() -> None:
    """SDP and sdpfrag bodies go out as the generated text; text answers (SDP, playlists,
    plain-text errors, HTML) come back as strings, so their `schema` is checked too."""
    schemathesis.serializer.alias(["application/sdp", "application/trickle-ice-sdpfrag"], "text/plain")

    @schemathesis.deserializer("application/sdp", "application/trickle-ice-sdpfrag", "application/vnd.apple.mpegurl",
                               "text/plain", "text/html")
    def text_answer(ctx, response):
        return response.content.decode("utf-8")


def load_schema(spec: Path):
    register_text_media_types()
    return schemathesis.openapi.from_path(str(spec))


def call(method: str, url: str, **kwargs):
    return requests.request(method, url, timeout=10, allow_redirects=False, **kwargs)


def validated(schema, path: str, method: str, response):
    """`response`, after checking it against the document's operation `method path`."""
    schema[path][method].validate_response(response)
    return response


def serves_its_document(base: str, spec: Path) -> None:
    """GET /api/openapi.yaml answers exactly the document in the repository."""
    response = call("GET", base + "/api/openapi.yaml")
    assert response.status_code == 200 and response.headers["Content-Type"] == "application/yaml", response
    assert response.content == spec.read_bytes(), "the served document differs from the one in the repository"


# -- (a) the relay ----------------------------------------------------------------------------

def viewer_session_round_trip(schema, base: str) -> None:
    """A WHEP session from the document's own example offer, through every answer of its
    resource: trickle, ICE restart (428 without If-Match, 412 stale, 200), layer cap (204,
    422, 400, 415), DELETE (200, then 404). Each answer is checked against the document."""
    offer = schema.raw_schema["paths"]["/whep/{room}"]["post"]["requestBody"]["content"]["application/sdp"][
        "examples"]["recvonly"]["value"]
    sdp = {"Content-Type": "application/sdp"}
    frag = {"Content-Type": "application/trickle-ice-sdpfrag"}
    created = validated(schema, "/whep/{room}", "POST", call(
        "POST", f"{base}/whep/{ROOM}?max_height=360", headers=sdp, data=offer))
    assert created.status_code == 201, created.text
    resource, etag = base + created.headers["Location"], created.headers["ETag"]

    def expect(status: int, path: str, method: str, url: str, **kwargs):
        response = validated(schema, path, method, call(method, url, **kwargs))
        assert response.status_code == status, (method, url, response.status_code, response.text)
        return response

    session = "/whep/{room}/{session}"
    candidate = "a=candidate:1 1 udp 2130706431 127.0.0.1 9 typ host\r\n"
    restart = "a=ice-ufrag:abcd\r\na=ice-pwd:abcdefghijklmnopqrstuvwx\r\n"
    expect(204, session, "PATCH", resource, headers=frag, data=candidate)
    expect(428, session, "PATCH", resource, headers=frag, data=restart)
    expect(412, session, "PATCH", resource, headers={**frag, "If-Match": '"stale"'}, data=restart)
    restarted = expect(200, session, "PATCH", resource, headers={**frag, "If-Match": etag}, data=restart)
    assert restarted.headers["ETag"] != etag
    expect(415, session, "PATCH", resource, headers={"Content-Type": "text/plain"}, data=candidate)
    layer = session + "/layer"
    expect(204, layer, "PUT", resource + "/layer", json={"max_height": 720})
    expect(204, layer, "PUT", resource + "/layer", json={"max_height": None})
    expect(422, layer, "PUT", resource + "/layer", json={"max_height": 0})
    expect(422, layer, "PUT", resource + "/layer", json={})
    expect(400, layer, "PUT", resource + "/layer", headers={"Content-Type": "application/json"}, data="{")
    expect(415, layer, "PUT", resource + "/layer", data="max_height=1")
    expect(200, session, "DELETE", resource)
    expect(404, session, "DELETE", resource)
    expect(404, layer, "PUT", resource + "/layer", json={"max_height": 720})


def publisher_that_never_connects(schema, base: str, token: str) -> None:
    """A WHIP session from the document's own example offer, in a room of its own, that never
    connects: the room is not live (`/api/streams`), so LL-HLS answers 404 at once (it used to
    hold the request three target durations and answer 503); its DELETE is 200, then 404."""
    offer = schema.raw_schema["paths"]["/whip/{room}"]["post"]["requestBody"]["content"]["application/sdp"][
        "examples"]["sendonly"]["value"]
    auth = {"Authorization": f"Bearer {token}"}
    room = "openapi-unconnected"
    created = validated(schema, "/whip/{room}", "POST", call(
        "POST", f"{base}/whip/{room}", headers={**auth, "Content-Type": "application/sdp"}, data=offer))
    assert created.status_code == 201, created.text
    stream = validated(schema, "/api/streams/{room}", "GET", call("GET", f"{base}/api/streams/{room}")).json()
    assert not stream["live"], stream
    started = time.monotonic()
    playlist = validated(schema, "/hls/{room}/index.m3u8", "GET", call("GET", f"{base}/hls/{room}/index.m3u8"))
    assert playlist.status_code == 404 and time.monotonic() - started < 1, (playlist.status_code, playlist.text)
    resource = base + created.headers["Location"]
    for status in (200, 404):
        deleted = validated(schema, "/whip/{room}/{session}", "DELETE", call("DELETE", resource, headers=auth))
        assert deleted.status_code == status, (deleted.status_code, deleted.text)


def sacrificial_viewer_sessions(schema, base: str, count: int) -> list[str]:
    """Session ids of WHEP sessions that never connect (dropped after the connect timeout), for
    the fuzzer to PATCH, PUT and DELETE; the test's own viewer's id is never handed out."""
    offer = schema.raw_schema["paths"]["/whep/{room}"]["post"]["requestBody"]["content"]["application/sdp"][
        "examples"]["recvonly"]["value"]
    ids = []
    for _ in range(count):
        created = call("POST", f"{base}/whep/{ROOM}", headers={"Content-Type": "application/sdp"}, data=offer)
        assert created.status_code == 201, created.text
        ids.append(created.headers["Location"].rsplit("/", 1)[1])
    return ids


def test_relay_api_contract(procs, tmp_path):
    if TARGET != "onair":
        pytest.skip("the API contract is our relay's")
    sink = f"http://127.0.0.1:{free_port()}/hook"  # nothing listens there
    relay = launch_relay(TARGET, procs, tmp_path, extra_env={
        "ONAIR_ADMIN_TOKEN": ADMIN_TOKEN, "ONAIR_WEBHOOK_URL": sink + "/config",
        "ONAIR_WEBHOOK_SECRET": WEBHOOK_SECRET, "ONAIR_WEBHOOK_RETRY_SCHEDULE": "0,1,600",
        # No load shedding: the fuzzer admits WHEP viewers in bursts, and with one viewer the
        # load meter counts the whole loop's load per viewer (MediaLoadMeter), so a debug build
        # refuses some with 503 depending on the machine.
        "ONAIR_MAX_MEDIA_LOAD": "1"})
    base = relay.base_url
    admin = {"Authorization": f"Bearer {ADMIN_TOKEN}"}
    schema = load_schema(RELAY_SPEC)

    created = validated(schema, "/api/webhooks", "POST", call(
        "POST", f"{base}/api/webhooks", headers=admin, json={"url": sink + "/api", "description": "openapi test"}))
    assert created.status_code == 201, created.text
    publisher = start_peer(procs, "publisher", "whip_publisher.py", "--url", relay.whip_url(ROOM),
                           "--token", relay.publish_token, timeout=300)
    publisher.wait_event("connected", timeout=15)
    viewer = start_peer(procs, "viewer", "whep_viewer.py", "--url", relay.whep_url(ROOM), timeout=300)
    viewer.wait_event("first_frame", timeout=15)

    stream = validated(schema, "/api/streams/{room}", "GET", call("GET", f"{base}/api/streams/{ROOM}")).json()
    session = stream["publisher"]["session_id"]
    playlist = validated(schema, "/hls/{room}/index.m3u8", "GET", call("GET", f"{base}/hls/{ROOM}/index.m3u8")).text
    directory = next(line for line in playlist.splitlines() if line and not line.startswith("#")).split("/")[0]
    media = call("GET", f"{base}/hls/{ROOM}/{directory}/media.m3u8").text
    files = ["index.m3u8", "media.m3u8", "init.mp4", *re.findall(r'^(seg\d+\.m4s)$', media, re.M)[-2:],
             *re.findall(r'URI="(part\d+\.m4s)"', media)[-3:]]
    webhooks = call("GET", f"{base}/api/webhooks", headers=admin).json()["webhooks"]
    ids = [w["id"] for w in webhooks]
    assert sorted(w["source"] for w in webhooks) == ["api", "config"], webhooks
    deliveries: list[int] = []
    deadline = time.monotonic() + 10
    while len(deliveries) < 2 and time.monotonic() < deadline:  # stream.started, at least
        deliveries = [d["id"] for i in ids for d in call(
            "GET", f"{base}/api/webhooks/{i}/deliveries", headers=admin).json()["deliveries"]]
        time.sleep(0.2)
    assert deliveries, "no webhook deliveries were made for stream.started"
    viewer_session_round_trip(schema, base)
    publisher_that_never_connects(schema, base, relay.publish_token)
    sessions = sacrificial_viewer_sessions(schema, base, 3)
    viewer.wait_event("progress", timeout=5)
    frames_before = viewer.last("progress")["frames"]

    serves_its_document(base, RELAY_SPEC)
    exclude = ["kickStream", "whipDelete"]
    config = f"""
[generation]
database = "none"

[auth.openapi.PublishToken]
bearer = "{relay.publish_token}"

[auth.openapi.AdminToken]
bearer = "{ADMIN_TOKEN}"

[dictionaries.rooms]
values = {toml_list([ROOM])}
[dictionaries.streams]
values = {toml_list([directory])}
[dictionaries.files]
values = {toml_list(files)}
[dictionaries.webhooks]
values = {toml_list(ids)}
[dictionaries.deliveries]
values = {toml_list(deliveries)}
[dictionaries.sessions]
values = {toml_list(sessions)}

[parameters]
"path.room" = {{ dictionary = "rooms", probability = 0.3 }}
"path.stream" = {{ dictionary = "streams", probability = 0.7 }}
"path.file" = {{ dictionary = "files", probability = 0.7 }}
"path.id" = {{ dictionary = "webhooks", probability = 0.5 }}
"path.delivery" = {{ dictionary = "deliveries", probability = 0.5 }}
"path.session" = {{ dictionary = "sessions", probability = 0.5 }}

# Links only from Location headers and the document: a link inferred from `/api/streams` could
# hand the fuzzer the live publisher's session.
[phases.stateful.inference]
algorithms = ["location-headers"]

# Any string is schema-valid SDP or sdpfrag; only a real offer is accepted.
[[operations]]
include-operation-id = ["whipCreate", "whepCreate", "whipPatch", "whepPatch"]
checks.positive_data_acceptance.enabled = false

# Blocking reload: `_HLS_part` needs `_HLS_msn`, which may be at most two segments ahead:
# dependencies OpenAPI cannot state.
[[operations]]
include-operation-id = "hlsResource"
checks.positive_data_acceptance.enabled = false

# A subscription URL is only safe to accept once the hook made it local; what else Foundation's
# URL parser takes has no pattern, so no verdict on schema-violating bodies here.
[[operations]]
include-operation-id = "createWebhook"
checks.negative_data_rejection.enabled = false
"""
    started = time.monotonic()
    run_schemathesis(procs, "schemathesis-relay", RELAY_SPEC, base, tmp_path, config, exclude,
                     {"ONAIR_OPENAPI_WEBHOOK_SINK": sink + "/fuzzed"})
    print(f"\nschemathesis against the relay: {time.monotonic() - started:.1f} s")

    # The stream survived: the viewer decodes new frames, the room is live with its viewer.
    viewer.wait_event("progress", timeout=10, predicate=lambda e: e["frames"] >= frames_before + 60)
    assert viewer.poll() is None and publisher.poll() is None
    after = validated(schema, "/api/streams/{room}", "GET", call("GET", f"{base}/api/streams/{ROOM}")).json()
    assert after["live"] and after["viewers"] >= 1 and after["publisher"]["session_id"] == session, after
    # Every subscription the fuzzer left posts to 127.0.0.1 only (the kick below makes deliveries).
    for webhook in call("GET", f"{base}/api/webhooks", headers=admin).json()["webhooks"]:
        assert webhook["url"].startswith("http://127.0.0.1:"), webhook

    # The operations left out of the run.
    kick = f"{base}/api/streams/{ROOM}/kick"
    # The publisher's own Location: /api/streams shows only the first 8 characters of its id.
    location = publisher.wait_event("posted", timeout=5)["location"]
    whip_session = location if location.startswith("http") else base + location
    assert whip_session.rsplit("/", 1)[-1].startswith(session) and len(whip_session.rsplit("/", 1)[-1]) > len(session)
    assert validated(schema, "/api/streams/{room}/kick", "POST", call("POST", kick)).status_code == 401
    assert validated(schema, "/api/streams/{room}/kick", "POST", call(
        "POST", kick, headers={"Authorization": "Bearer wrong"})).status_code == 401
    assert validated(schema, "/api/streams/{room}/kick", "POST", call(
        "POST", f"{base}/api/streams/openapi-idle/kick", headers=admin)).status_code == 404
    assert validated(schema, "/whip/{room}/{session}", "DELETE", call("DELETE", whip_session)).status_code == 401
    assert validated(schema, "/whip/{room}/{session}", "DELETE", call(
        "DELETE", whip_session, headers={"Authorization": "Bearer wrong"})).status_code == 401
    assert call("GET", f"{base}/api/streams/{ROOM}").json()["live"], "a refused DELETE ended the stream"
    kicked = validated(schema, "/api/streams/{room}/kick", "POST", call("POST", kick, headers=admin))
    assert kicked.status_code == 200 and kicked.json() == {"room": ROOM, "result": "kicked"}, kicked.text
    viewer.wait_event("ended", timeout=10)
    gone = validated(schema, "/whip/{room}/{session}", "DELETE", call(
        "DELETE", whip_session, headers={"Authorization": f"Bearer {relay.publish_token}"}))
    assert gone.status_code == 404, gone.text
    events = validated(schema, "/api/events", "GET", call("GET", f"{base}/api/events", headers=admin)).json()["events"]
    assert any(e["type"] == "stream.ended" and e["payload"]["data"].get("reason") == "kicked" for e in events), events


# -- (b) the chat -----------------------------------------------------------------------------

def test_chat_api_contract(procs, tmp_path):
    chat = launch_chat(procs, tmp_path)
    base = chat.base_url
    schema = load_schema(CHAT_SPEC)
    status, answer = deliver(chat, stream_event("stream.started", generation=1, sequence=1))
    assert status == 200 and answer["status"] == "applied", answer

    serves_its_document(base, CHAT_SPEC)
    exclude: list[str] = []
    config = f"""
[generation]
database = "none"

[auth.openapi.BotToken]
bearer = "{BOT_TOKEN}"

[dictionaries.rooms]
values = {toml_list([ROOM])}

[parameters]
"path.room" = {{ dictionary = "rooms", probability = 0.3 }}

# `after` and `before` together are 400, a dependency between parameters OpenAPI cannot state.
[[operations]]
include-operation-id = "listMessages"
checks.positive_data_acceptance.enabled = false

# The fuzzer sends no WebSocket upgrade (it could not speak the protocol after a 101): 426.
[[operations]]
include-operation-id = "roomWebSocket"
checks.positive_data_acceptance.enabled = false

# The documented text and name patterns are safe subsets of what the server takes (any
# Unicode without control characters): no verdict on schema-violating bodies here.
[[operations]]
include-operation-id = "postMessage"
checks.negative_data_rejection.enabled = false

# This chat has no `auth.jwt`, so every moderation call is 403 as documented (nobody can
# moderate); the actions themselves are proven in test_chat_moderation.py and the unit tests.
[[operations]]
include-operation-id = "moderate"
checks.positive_data_acceptance.enabled = false
"""
    started = time.monotonic()
    run_schemathesis(procs, "schemathesis-chat", CHAT_SPEC, base, tmp_path, config, exclude,
                     {"ONAIR_OPENAPI_CHAT_SECRET": chat.secret})
    print(f"\nschemathesis against the chat: {time.monotonic() - started:.1f} s")

    validated(schema, "/rooms/{room}", "GET", call("GET", f"{base}/rooms/{ROOM}"))
    room = "openapi-after"
    bot = {"Authorization": f"Bearer {BOT_TOKEN}"}

    async def still_works() -> None:
        status, answer = deliver(chat, stream_event("stream.started", generation=1, sequence=1, room=room))
        assert status == 200 and answer["status"] == "applied", answer
        ada, joined = await Client.join(chat, "ada", room=room)
        assert joined["state"] == "open", joined
        await ada.send({"type": "send", "text": "still here", "ref": "r1"})
        assert (await ada.next("ack"))["ref"] == "r1"
        posted = validated(schema, "/rooms/{room}/messages", "POST", call(
            "POST", f"{base}/rooms/{room}/messages", headers=bot, json={"text": "bot too", "name": "scorebot"}))
        assert posted.status_code == 201, posted.text
        texts = []
        while len(texts) < 2:
            texts.append((await ada.next("message"))["message"]["text"])
        assert texts == ["still here", "bot too"], texts
        status, answer = deliver(chat, stream_event("stream.ended", generation=1, sequence=2, room=room, reason="kicked"))
        assert status == 200 and answer["state"] == "closed", answer
        assert (await ada.next("room.closed"))["reason"] == "kicked"
        refused = validated(schema, "/rooms/{room}/messages", "POST", call(
            "POST", f"{base}/rooms/{room}/messages", headers=bot, json={"text": "too late"}))
        assert refused.status_code == 409, refused.text
        await ada.close()
    asyncio.run(asyncio.wait_for(still_works(), 30))
    page = validated(schema, "/rooms/{room}/messages", "GET", call("GET", f"{base}/rooms/{room}/messages")).json()
    assert [m["kind"] for m in page["messages"]] == ["system", "user", "bot", "system"], page


# -- schemathesis hooks (this file is also SCHEMATHESIS_HOOKS of the runs above) ----------------

def keep_webhooks_local(case) -> None:
    """POST /api/webhooks: every URL the relay could accept (anything mentioning http) becomes
    the test's closed 127.0.0.1 port, so that deliveries go nowhere else."""
    body = case.body
    if isinstance(body, dict) and isinstance(body.get("url"), str) and "http" in body["url"].lower():
        body["url"] = os.environ["ONAIR_OPENAPI_WEBHOOK_SINK"]


def sign_some_relay_events(case, kwargs: dict) -> None:
    """POST /hooks/relay: two of three requests with all three `webhook-*` headers and a
    printable ASCII `webhook-id` are sent signed with the chat's secret (a fresh timestamp, the
    body as sent), so that the fuzzer reaches the event parsing behind the signature check."""
    secret = os.environ.get("ONAIR_OPENAPI_CHAT_SECRET")
    headers = case.headers if isinstance(case.headers, MutableMapping) else None
    msg_id = headers.get("webhook-id") if headers else None
    if not secret or not isinstance(msg_id, str) or not msg_id or not msg_id.isascii() or not msg_id.isprintable():
        return
    if "webhook-timestamp" not in headers or "webhook-signature" not in headers:
        return  # a request without a required header stays without it
    if zlib.crc32(msg_id.encode()) % 3 == 0:
        return
    try:
        payload = json.dumps(case.body, ensure_ascii=False)
    except (TypeError, ValueError):
        return
    now = int(time.time())
    headers["webhook-timestamp"] = str(now)
    headers["webhook-signature"] = Webhook(secret).sign(msg_id, datetime.fromtimestamp(now, tz=timezone.utc), payload)
    kwargs["data"] = payload.encode()


if __name__ == "_schemathesis_hooks":
    register_text_media_types()

    @schemathesis.hook
    def before_call(context, case, kwargs):
        operation = (case.method.upper(), case.operation.path)
        if operation == ("POST", "/api/webhooks"):
            keep_webhooks_local(case)
        elif operation == ("POST", "/hooks/relay"):
            sign_some_relay_events(case, kwargs)
