"""`broadcast` as a TURN client (issue 26, part 2): Debian's coturn (coturn.py: a plain process of
the test on 127.0.0.1, `use-auth-secret`, listening on UDP and TCP on one port) and our relay told
the same secret, so its WHIP answers (OPTIONS included) carry a `Link: rel="ice-server"` TURN
credential (RFC 9725 §4.6). `broadcast start --relay-only` (the browser's iceTransportPolicy
"relay") asks OPTIONS for the links, allocates at coturn (RFC 8656, long-term credentials: 401,
then USERNAME/REALM/NONCE/MESSAGE-INTEGRITY), offers only its relay candidate, installs a
permission for the relay's candidate, checks it through coturn (Send indications), binds a
channel and sends the media as ChannelData; the relay (ICE-lite) sees coturn's relayed address.

  relay-only     over UDP and over TCP to coturn (`?transport=udp|tcp` in ONAIR_TURN_URLS), the
                 test pattern single-layer and --simulcast: an aiortc WHEP viewer
                 (peers/whep_viewer.py) decodes >= 20 fps; `--stats-json` says path relay-udp /
                 relay-tcp; coturn logged ALLOCATE, CREATE_PERMISSION and CHANNEL_BIND for
                 `<expiry>:42`, and the Refresh with lifetime 0 when broadcast stopped.
  cli            the relay names no TURN server: `--ice-server/--ice-username/--ice-credential`
                 (a credential computed here with Python's hmac) do the same.
  no-turn        `--relay-only` without any TURN server: exit 2 with a message naming the options.
  tls            coturn also listens for TLS (`start_coturn(..., tls=True)`: a throwaway CA and a
                 certificate for IP:127.0.0.1), the relay names its `turns:` URI: `--relay-only
                 --ice-ca-file CA` allocates over TLS (RFC 8656 §3.1), single-layer and --simulcast,
                 the viewer decodes >= 20 fps, path relay-tls, coturn logged the TLS session and the
                 TURN methods; with a CA that did not sign coturn's certificate broadcast exits 3
                 naming the host and OpenSSL's reason.

  ONAIR_RELAY_BIN=$PWD/.build/debug/relay .venv-interop/bin/python -m pytest -s -q Tests/Interop/test_broadcast_turn.py
"""

from __future__ import annotations

import json
import os
import re
import signal
import sys
import time
import urllib.request
from pathlib import Path

import pytest

from conftest import launch_relay
from coturn import start_coturn
from harness import PEERS_DIR, ProcessGroup
from test_turn import broadcast_binary, expected_password

ROOM = "42"
MIN_FPS = 20
WATCH_SECONDS = 6
PYTHON = sys.executable


def turn_url(coturn, transport: str) -> str:
    return f"turn:{coturn.host}:{coturn.port}?transport={transport}"


def room_live(relay) -> bool:
    try:
        with urllib.request.urlopen(f"{relay.base_url}/api/streams/{ROOM}", timeout=2) as response:
            return bool(json.load(response).get("live"))
    except OSError:
        return False


def wait_until(predicate, timeout: float, what: str, process=None) -> float:
    started = time.monotonic()
    while not predicate():
        if process is not None and process.poll() is not None:
            pytest.fail(f"{process.name} exited ({process.returncode}) before {what}:\n{process.log_text()[-3000:]}")
        if time.monotonic() - started > timeout:
            pytest.fail(f"not {what} within {timeout} s" + (f":\n{process.log_text()[-3000:]}" if process else ""))
        time.sleep(0.1)
    return time.monotonic() - started


def start_broadcast(procs: ProcessGroup, relay, tmp_path: Path, simulcast: bool, *extra: str):
    args = ["start", "--room", ROOM, "--relay", relay.base_url, "--fps", "30", "--relay-only",
            "--stats-json", str(tmp_path / "stats.json"), *extra]
    args += ["--simulcast", "--size", "1280x720", "--preset", "ultrafast"] if simulcast else ["--size", "640x360"]
    env = {**os.environ, "ONAIR_BROADCAST_TOKEN": relay.publish_token}
    return procs.start("broadcast", [str(broadcast_binary()), *args], timeout=120, cwd=str(procs.log_dir), env=env)


def watch(procs: ProcessGroup, relay, publisher, tmp_path: Path) -> dict:
    """Live -> an aiortc viewer decodes for WATCH_SECONDS -> SIGINT: the viewer's frame rate,
    the broadcaster's stats and exit code."""
    live_after = wait_until(lambda: room_live(relay), 30, "live at the relay", publisher)
    frames_log = tmp_path / "frames.log"
    viewer = procs.start("viewer", [PYTHON, "-u", str(PEERS_DIR / "whep_viewer.py"), "--url", relay.whep_url(ROOM),
                                    "--h264-only", "--no-index", "--frames-log", str(frames_log),
                                    "--duration", str(WATCH_SECONDS + 4)],
                         timeout=60, cwd=str(PEERS_DIR))
    report = viewer.wait_event("report", WATCH_SECONDS + 30)
    lines = [line.split() for line in frames_log.read_text().splitlines() if len(line.split()) >= 4]
    times = [float(fields[0]) for fields in lines]
    sizes = sorted({fields[3] for fields in lines})
    assert len(times) > 10, f"the viewer decoded {len(times)} frames: {report}"
    # The rate over the last WATCH_SECONDS of decoding (the first second may hold a keyframe wait).
    window = [t for t in times if t >= times[-1] - WATCH_SECONDS]
    fps = (len(window) - 1) / (window[-1] - window[0]) if len(window) > 1 else 0
    with urllib.request.urlopen(f"{relay.base_url}/api/streams/{ROOM}", timeout=2) as response:
        layers = [(layer.get("rid") or "", layer.get("width"), layer.get("height"))
                  for layer in json.load(response).get("layers", []) if layer.get("active")]
    publisher.signal(signal.SIGINT)
    assert publisher.wait(20) is not None, "broadcast did not exit within 20 s of SIGINT"
    stats = json.loads((tmp_path / "stats.json").read_text())
    return {"live_after_s": round(live_after, 2), "viewer_fps": round(fps, 1), "viewer_frames": len(times),
            "sizes": sizes, "last_size": lines[-1][3], "relay_layers": sorted(layers), "stats": stats,
            "exit": publisher.returncode}


def coturn_saw(coturn, method: str) -> list[str]:
    return sorted(set(re.findall(rf"user <(\d+:{ROOM})>: incoming packet {method} processed, success", coturn.log())))


TURN_METHODS = ("ALLOCATE", "CREATE_PERMISSION", "CHANNEL_BIND", "REFRESH")


def check_relayed(result: dict, coturn, publisher, url: str, path: str, simulcast: bool) -> None:
    """What every relay-only run must show: live through `url`, the stats' path, no reconnect,
    the viewer's fps and sizes (simulcast: every layer at the relay), and coturn's log of each
    TURN method for the room's credential."""
    log = publisher.log_text()
    assert result["exit"] == 0, log[-3000:]
    assert f"TURN allocation at {url}" in log, log[-3000:]
    assert result["stats"]["path"] == path, result["stats"]
    assert result["stats"]["reconnects"] == 0, result["stats"]
    assert result["viewer_fps"] >= MIN_FPS, result
    if simulcast:
        # Every layer reached the relay through coturn; the viewer may start on h within the
        # relay's start estimate and probe up to f (as in test_broadcast.py).
        assert result["relay_layers"] == [("f", 1280, 720), ("h", 640, 360), ("q", 320, 180)], result
        assert result["last_size"] == "1280x720" and set(result["sizes"]) <= {"1280x720", "640x360"}, result
    else:
        assert result["sizes"] == ["640x360"], result
    for method in TURN_METHODS:
        assert result["coturn"][method], f"coturn logged no successful {method} for <expiry>:{ROOM}:\n{coturn.log()[-3000:]}"


@pytest.fixture
def coturn(procs, tmp_path):
    return start_coturn(procs, tmp_path)


@pytest.fixture
def coturn_tls(procs, tmp_path):
    return start_coturn(procs, tmp_path, tls=True)


def coturn_tls_sessions(coturn) -> list[str]:
    """The TLS versions of the allocations coturn made for this room's credential over TLS (it
    logs cipher and method per new session)."""
    return re.findall(rf"session \d+: new, realm=<[^>]*>, username=<\d+:{ROOM}>, .*cipher=\S+, method=(TLSv1\.[23])",
                      coturn.log())


@pytest.mark.parametrize("simulcast", [False, True], ids=["single", "simulcast"])
@pytest.mark.parametrize("transport", ["udp", "tcp"])
def test_relay_only_through_coturn(coturn, procs, tmp_path, transport, simulcast):
    relay = launch_relay("onair", procs, tmp_path, extra_env={
        "ONAIR_TURN_URLS": turn_url(coturn, transport), "ONAIR_TURN_SECRET": coturn.secret, "ONAIR_TURN_TTL": "600"})
    publisher = start_broadcast(procs, relay, tmp_path, simulcast)
    result = watch(procs, relay, publisher, tmp_path)
    time.sleep(0.5)  # coturn logs the Refresh(0) of the exit
    result["coturn"] = {method: coturn_saw(coturn, method) for method in TURN_METHODS}
    print(f"\nbroadcast --relay-only via {coturn.version()} over {transport} "
          f"({'simulcast' if simulcast else 'single-layer'}): {result}")
    check_relayed(result, coturn, publisher, turn_url(coturn, transport), f"relay-{transport}", simulcast)


def test_relay_only_with_ice_server_options(coturn, procs, tmp_path):
    relay = launch_relay("onair", procs, tmp_path)  # no turn: section: the links name no TURN server
    username = f"{int(time.time()) + 600}:{ROOM}"
    publisher = start_broadcast(procs, relay, tmp_path, False, "--ice-server", turn_url(coturn, "udp"),
                                "--ice-username", username, "--ice-credential", expected_password(coturn.secret, username))
    result = watch(procs, relay, publisher, tmp_path)
    print(f"\nbroadcast --relay-only --ice-server via {coturn.version()}: {result}")
    assert result["exit"] == 0 and result["stats"]["path"] == "relay-udp", result
    assert result["viewer_fps"] >= MIN_FPS, result
    assert coturn_saw(coturn, "ALLOCATE") == [username], coturn.log()[-3000:]


def test_relay_only_without_turn_server_is_a_usage_error(procs, tmp_path):
    relay = launch_relay("onair", procs, tmp_path)
    publisher = start_broadcast(procs, relay, tmp_path, False, "--duration", "5")
    assert publisher.wait(30) is not None, "broadcast did not give up"
    log = publisher.log_text()
    print(f"\nrelay-only without TURN: exit {publisher.returncode}: {log.strip().splitlines()[-1]}")
    assert publisher.returncode == 2, log
    assert "--ice-server" in log and "turn" in log.lower(), log


@pytest.mark.parametrize("simulcast", [False, True], ids=["single", "simulcast"])
def test_relay_only_through_coturn_over_tls(coturn_tls, procs, tmp_path, simulcast):
    coturn = coturn_tls
    relay = launch_relay("onair", procs, tmp_path, extra_env={
        "ONAIR_TURN_URLS": coturn.tls_url, "ONAIR_TURN_SECRET": coturn.secret, "ONAIR_TURN_TTL": "600"})
    publisher = start_broadcast(procs, relay, tmp_path, simulcast, "--ice-ca-file", str(coturn.ca_file))
    result = watch(procs, relay, publisher, tmp_path)
    time.sleep(0.5)  # coturn logs the Refresh(0) of the exit
    result["coturn"] = {method: coturn_saw(coturn, method) for method in TURN_METHODS}
    sessions = coturn_tls_sessions(coturn)
    print(f"\nbroadcast --relay-only via {coturn.version()} over TLS "
          f"({'simulcast' if simulcast else 'single-layer'}): {result}, coturn's TLS sessions: {sessions}")
    check_relayed(result, coturn, publisher, coturn.tls_url, "relay-tls", simulcast)
    assert len(sessions) == 1, f"coturn logged {sessions} TLS sessions:\n{coturn.log()[-3000:]}"


def test_turns_with_a_ca_that_did_not_sign_the_server_is_refused(coturn_tls, procs, tmp_path):
    coturn = coturn_tls
    relay = launch_relay("onair", procs, tmp_path, extra_env={
        "ONAIR_TURN_URLS": coturn.tls_url, "ONAIR_TURN_SECRET": coturn.secret, "ONAIR_TURN_TTL": "600"})
    publisher = start_broadcast(procs, relay, tmp_path, False, "--ice-ca-file", str(coturn.other_ca_file), "--duration", "10")
    assert publisher.wait(30) is not None, "broadcast did not give up"
    log = publisher.log_text()
    print(f"\nturns: with another CA: exit {publisher.returncode}: {log.strip().splitlines()[-1]}")
    assert publisher.returncode == 3, log[-3000:]
    assert "TLS certificate verify failed for 127.0.0.1: unable to get local issuer certificate" in log, log[-3000:]
    assert coturn.tls_url in log, log[-3000:]
    assert not coturn_saw(coturn, "ALLOCATE"), coturn.log()[-3000:]
