"""Fixtures for the interop tests: a relay (ours, or the Pion reference relay) on free
ports, and peers (aiortc scripts in peers/, headless Chromium) as managed subprocesses.

Environment:
  ONAIR_INTEROP_TARGET  onair (default) | pion
  ONAIR_RELAY_BIN       our relay binary (default <repo>/.build/debug/relay)
  ONAIR_REFPEER_BIN     Pion reference relay (default: harness.refpeer_bin("relay"), ../shared/refpeer
                        built once into .build/refpeer)
  ONAIR_INTEROP_LOGS=1  print relay/peer logs even when a test passes
  ONAIR_PG_BIN          PostgreSQL binaries (default /usr/lib/postgresql/15/bin)
Tests skip (with the reason) only when the relay binary is missing; anything else fails.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import socket
import sys
import uuid
from dataclasses import dataclass
from pathlib import Path

import pytest

from harness import REPO, ManagedProcess, ProcessGroup, free_port, free_udp_range, refpeer_bin, wait_for_tcp
from pg import ThrowawayPostgres, new_dir

TARGET = os.environ.get("ONAIR_INTEROP_TARGET", "onair").strip().lower()
RELAY_HARD_TIMEOUT = 300  # seconds; no test runs that long
PUBLISH_TOKEN = "interop-publish-token"


@dataclass
class Relay:
    """A running relay and what the tests may expect of it."""
    target: str
    http_port: int
    udp_port: int | None
    publish_token: str | None
    process: ManagedProcess
    deletes_sessions: bool  # DELETE <Location> ends the session (RFC 9725 §4.2)
    signals_end: bool       # viewers are told when the publisher leaves (RTCP BYE, DTLS close, ...)
    offline_409: bool       # POST /whep/{room} for a room that is not live -> 409 + Retry-After
    serves_room_page: bool  # GET /rooms/{room} serves room.html
    streams_api: bool       # GET /api/streams/{room} -> JSON
    checks_token: bool      # WHIP without the Bearer token is refused
    cors: bool              # answers CORS preflights, so pages from other origins can POST
    host: str = "127.0.0.1"  # the address peers use (a network-lab address for a relay in a namespace)

    @property
    def base_url(self) -> str:
        return f"http://{self.host}:{self.http_port}"

    def whip_url(self, room: str) -> str:
        return f"{self.base_url}/whip/{room}"

    def whep_url(self, room: str) -> str:
        return f"{self.base_url}/whep/{room}"


def _require_binary(path: Path, hint: str) -> None:
    if not (path.is_file() and os.access(path, os.X_OK)):
        pytest.skip(f"relay binary not found at {path} ({hint})")


def launch_relay(target: str, procs: ProcessGroup, workdir: Path, extra_env: dict | None = None,
                 name: str = "relay", ports: tuple[int, int] | None = None,
                 netns: str | None = None, address: str | None = None) -> Relay:
    """Starts the relay under test on free 127.0.0.1 ports and waits until its HTTP port
    accepts connections. THE one place that knows each relay's command line. `extra_env`
    adds ONAIR_* settings (e.g. webhooks; a None value unsets one, e.g. ONAIR_PUBLISH_TOKEN for
    peers that cannot send a token); `name` tells a restarted relay's log apart; `ports`
    (http, udp) restarts a relay where an earlier one was. `netns` runs it in a network-lab
    namespace (tools/netlab), listening on every address there and advertising `address`."""
    if netns and (target != "onair" or not address):
        raise ValueError("a relay in a lab namespace: our relay only, with its lab address")
    http_port = ports[0] if ports else free_port(socket.SOCK_STREAM)
    if target == "pion":
        override = os.environ.get("ONAIR_REFPEER_BIN")
        binary = Path(override) if override else refpeer_bin("relay")
        _require_binary(binary, "build it: ../shared/refpeer/build.sh .build/refpeer, or set ONAIR_REFPEER_BIN")
        process = procs.start("relay-pion", [str(binary), "-addr", f"127.0.0.1:{http_port}"],
                              timeout=RELAY_HARD_TIMEOUT, cwd=str(workdir))
        wait_for_tcp(http_port, 10, process)
        # The reference relay is plain WHIP/WHEP: no DELETE, no end signal, no 409, no auth.
        return Relay("pion", http_port, None, None, process, deletes_sessions=False, signals_end=False,
                     offline_409=False, serves_room_page=False, streams_api=False, checks_token=False,
                     cors=False)

    binary = Path(os.environ.get("ONAIR_RELAY_BIN", str(REPO / ".build" / "debug" / "relay"))).resolve()
    _require_binary(binary, "run `swift build` in the repo, or set ONAIR_RELAY_BIN")
    # One port per media worker from ONAIR_UDP_PORT up (a worker per core by default).
    udp_port = ports[1] if ports else free_udp_range(int((extra_env or {}).get("ONAIR_MEDIA_WORKERS") or 0) or None)
    # `relay serve` on loopback defaults; ports and the publish token come in as ONAIR_*
    # environment variables (documented in config/relay.yaml).
    argv = [*(["ip", "netns", "exec", netns] if netns else []), str(binary), "serve", "--log-level", "debug"]
    bind = "0.0.0.0" if netns else "127.0.0.1"
    env = {**os.environ, "ONAIR_HTTP_HOST": bind, "ONAIR_HTTP_PORT": str(http_port),
           "ONAIR_MEDIA_BIND": bind, "ONAIR_UDP_PORT": str(udp_port), "ONAIR_PUBLISH_TOKEN": PUBLISH_TOKEN,
           **({"ONAIR_ADVERTISED_ADDRESSES": address} if netns else {}), **(extra_env or {})}
    env = {key: value for key, value in env.items() if value is not None}
    process = procs.start(name, argv, timeout=RELAY_HARD_TIMEOUT, cwd=str(workdir), env=env)
    wait_for_tcp(http_port, 20, process, netns=netns)
    token = env.get("ONAIR_PUBLISH_TOKEN")
    return Relay("onair", http_port, udp_port, token, process, deletes_sessions=True, signals_end=True,
                 offline_409=True, serves_room_page=True, streams_api=True, checks_token=token is not None,
                 cors=True, host=address or "127.0.0.1")


# -- fixtures ---------------------------------------------------------------------------

@pytest.fixture
def procs(request, tmp_path):
    """Every subprocess of a test; all are stopped (SIGTERM, then SIGKILL) at teardown."""
    group = ProcessGroup(tmp_path)
    request.node.onair_processes = group  # for the failure report below
    yield group
    group.stop_all()
    if os.environ.get("ONAIR_INTEROP_LOGS"):
        sys.__stderr__.write("\n" + group.dump_logs() + "\n")


@pytest.fixture
def relay(procs, tmp_path) -> Relay:
    return launch_relay(TARGET, procs, tmp_path)


@pytest.fixture(scope="session")
def postgres(tmp_path_factory) -> ThrowawayPostgres:
    """One throwaway PostgreSQL server for the whole run (tools/pg/throwaway.sh). It lives under
    /tmp, not tmp_path (as root it runs as `postgres`, which cannot enter pytest's root-only
    tmp dirs); its log is kept in the run's tmp dir as postgres0/server.log."""
    server = ThrowawayPostgres()
    server.start(new_dir())
    try:
        yield server
    finally:
        with contextlib.suppress(OSError):  # the log is a nicety; stopping is not
            shutil.copy(server.dir / "server.log", tmp_path_factory.mktemp("postgres"))
        server.stop()


@pytest.fixture
def pg_database(postgres) -> str:
    """The URL of a fresh, empty database of this test's own on the shared server."""
    if postgres.paused:  # an earlier test's outage that never ended
        postgres.resume()
    return postgres.createdb(f"t_{uuid.uuid4().hex[:8]}")


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):
    """On failure, attach every relay/peer log to the report (shown with the failure)."""
    outcome = yield
    report = outcome.get_result()
    group = getattr(item, "onair_processes", None)
    if report.failed and isinstance(group, ProcessGroup) and group.processes:
        report.sections.append(("relay and peer logs", group.dump_logs()))
