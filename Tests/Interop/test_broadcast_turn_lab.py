"""`broadcast` through TURN in the network lab (issue 26, part 2; tools/netlab/netlab.py, needs
root, else skipped with the reason): the publisher's network drops every UDP datagram and every
TCP segment except to the relay's HTTP port and coturn's port (a hotel or corporate firewall).
coturn runs in the relay's namespace (listening and relaying on 198.18.0.1) and the relay names it
in its `Link` headers as `turn:198.18.0.1:3478?transport=tcp`. `broadcast start` (no
--relay-only: host UDP and ICE-TCP pairs are checked first and fail) goes live through its relay
candidate over TCP to coturn (`path relay-tcp`); an aiortc viewer (v1) decodes.

  relay-tcp-1mbit      the noisy 720p file at 2.5 Mbit/s behind tbf 1 Mbit/s on the publisher's
                       uplink: the thin-uplink machinery (pacer, frame dropping before the
                       encoder, NACK budget, bitrate control) keeps the viewer at >= 25 fps, no
                       freeze over 500 ms, glass-to-glass p95 <= 800 ms (one more TCP hop than
                       lab case uplink-tcp-1mbit)
  relay-tls            only HTTP and TLS on 443 get out: coturn also listens for TLS on
                       198.18.0.1:443 (a throwaway CA's certificate for that IP), the relay names
                       `turns:198.18.0.1:443?transport=tcp`, broadcast trusts the CA with
                       --ice-ca-file and goes live over `path relay-tls` (RFC 8656 §3.1): >= 27 fps

  ONAIR_RELAY_BIN=$PWD/.build/debug/relay .venv-interop/bin/python -m pytest -s -q Tests/Interop/test_broadcast_turn_lab.py
"""

from __future__ import annotations

import json
import os
import signal
import time
from pathlib import Path

import pytest

from conftest import launch_relay
from coturn import REALM, make_test_pki, turnserver_binary
from harness import PEERS_DIR, PYTHON, running_lab
from lab_cases import BROADCAST_BIN, RELAY_PORTS, ROOM, http_json, judge, noise_file, read_frames_log

TURN_PORT = 3478       # the relay's namespace is empty: fixed ports are free
TURNS_PORT = 443       # where a network that lets only HTTPS out still reaches the TURN server
SETTLE = 8
MEASURE = 15


@pytest.fixture
def lab():
    yield from running_lab(1)


def start_coturn_in(lab, procs, workdir: Path, tls: bool = False):
    """coturn in the relay's namespace on 198.18.0.1:3478 (UDP and TCP), TURN REST secret; with
    `tls`, also TLS on 198.18.0.1:443 (a throwaway CA's certificate: its file is returned)."""
    state = workdir / "coturn"
    state.mkdir(exist_ok=True)
    secret = "lab-secret-" + os.urandom(8).hex()
    address = lab.address("relay")
    argv = [*lab.prefix("relay"), turnserver_binary(), "-n", f"--listening-ip={address}", f"--relay-ip={address}",
            f"--listening-port={TURN_PORT}", f"--realm={REALM}", "--use-auth-secret", f"--static-auth-secret={secret}",
            "--fingerprint", "--no-dtls", "--no-cli", "--no-multicast-peers", "--verbose",
            "--log-file=stdout", "--simple-log", f"--pidfile={state / 'turnserver.pid'}", f"--userdb={state / 'turndb'}"]
    ca_file = None
    if tls:
        pki = make_test_pki(state / "pki", ip=address)
        ca_file = pki["ca"]
        argv += [f"--tls-listening-port={TURNS_PORT}", f"--cert={pki['cert']}", f"--pkey={pki['key']}"]
    else:
        argv.append("--no-tls")
    process = procs.start("coturn", argv, timeout=300, cwd=str(state))
    deadline = time.monotonic() + 10
    while "TCP listener opened" not in process.log_text():
        assert process.poll() is None and time.monotonic() < deadline, f"coturn did not start:\n{process.log_text()[-2000:]}"
        time.sleep(0.1)
    return process, secret, ca_file


def stream(lab, relay) -> dict:
    """GET /api/streams/42 from inside the relay's namespace (no proxy)."""
    return lab.call("relay", http_json, f"{relay.base_url}/api/streams/{ROOM}") or {}


# (the unlimited relay-tcp case is relay-tls without TLS: both run through the same TCP framing,
# and test_broadcast_turn.py runs TURN over TCP outside the lab)
@pytest.mark.parametrize("transport, uplink_kbit", [("tcp", 1000), ("tls", None)], ids=["relay-tcp-1mbit", "relay-tls"])
def test_udp_blocked_publisher_goes_live_through_turn_tcp(lab, procs, tmp_path, transport, uplink_kbit):
    tls = transport == "tls"
    coturn, secret, ca_file = start_coturn_in(lab, procs, tmp_path, tls=tls)
    url = f"turns:{lab.address('relay')}:{TURNS_PORT}?transport=tcp" if tls \
        else f"turn:{lab.address('relay')}:{TURN_PORT}?transport=tcp"
    relay = launch_relay("onair", procs, tmp_path, ports=RELAY_PORTS, netns=lab.netns("relay"), address=lab.address("relay"),
                         extra_env={"ONAIR_TURN_URLS": url, "ONAIR_TURN_SECRET": secret})
    lab.block("pub", udp=True, tcp_open=(RELAY_PORTS[0], TURNS_PORT if tls else TURN_PORT))
    lab.set_rate("pub", "up", uplink_kbit)
    source = ["--input", str(noise_file()), "--loop", "--video-bitrate", "2500k", "--max-bitrate", "2500k"] if uplink_kbit \
        else ["--size", "1280x720", "--fps", "30"]
    config = tmp_path / "broadcast.yaml"
    config.write_text("log_interval: 1\n")
    stats_path = tmp_path / "stats.json"
    publisher = procs.start("broadcast", [*lab.prefix("pub"), str(BROADCAST_BIN), "start", "--room", ROOM,
                                          "--relay", relay.base_url, "--config", str(config), *source,
                                          "--stats-json", str(stats_path), *(["--ice-ca-file", str(ca_file)] if tls else [])],
                            timeout=SETTLE + MEASURE + 120, cwd=str(tmp_path),
                            env={**os.environ, "ONAIR_BROADCAST_TOKEN": relay.publish_token})
    frames_log = tmp_path / "frames.log"
    viewer = procs.start("viewer", [*lab.prefix("v1"), PYTHON, "-u", str(PEERS_DIR / "whep_viewer.py"),
                                    "--url", relay.whep_url(ROOM), "--h264-only", "--no-index", "--offline-wait", "40",
                                    "--frames-log", str(frames_log)],
                         timeout=SETTLE + MEASURE + 120, cwd=str(PEERS_DIR),
                         env={**os.environ, "ONAIR_ICE_HOST": lab.address("v1")})
    deadline = time.monotonic() + 40
    while not (frames_log.is_file() and frames_log.read_text().strip()):
        for process in (publisher, viewer):
            assert process.poll() is None, f"{process.name} exited:\n{process.log_text()[-3000:]}"
        assert time.monotonic() < deadline, f"no frame at the viewer within 40 s:\n{publisher.log_text()[-3000:]}"
        time.sleep(0.2)
    first = time.time()
    time.sleep(SETTLE + MEASURE)
    end = time.time()
    start = first + SETTLE
    session = stream(lab, relay)
    publisher.signal(signal.SIGINT)
    assert publisher.wait(20) is not None, "broadcast did not exit within 20 s of SIGINT"
    viewer.stop()
    stats = json.loads(stats_path.read_text())
    figures = judge(read_frames_log(frames_log), start, end)
    allocations = [line for line in coturn.log_text().splitlines() if "ALLOCATE processed, success" in line]
    print(f"\nUDP blocked, TCP only to HTTP and coturn{' over TLS on 443' if tls else ''}{f', uplink {uplink_kbit} kbit/s' if uplink_kbit else ''}: "
          f"viewer {figures}; broadcast path {stats.get('path')}, dropped {stats.get('dropped_frames')}, "
          f"resent {stats.get('retransmitted_packets')}, declined {stats.get('retransmissions_declined')}, "
          f"target {stats.get('target_bitrate')}, reconnects {stats.get('reconnects')}; relay: live {session.get('live')}")
    assert publisher.returncode == 0, publisher.log_text()[-3000:]
    assert stats["path"] == f"relay-{transport}" and stats["reconnects"] == 0, stats
    assert allocations, coturn.log_text()[-3000:]
    if uplink_kbit:
        assert figures["fps"] >= 25, figures
        assert figures["longest_freeze_ms"] <= 500, figures
        assert figures["p95_ms"] is None or figures["p95_ms"] <= 800, figures
    else:
        assert figures["fps"] >= 27, figures
