"""Debian's coturn (`turnserver`, package `coturn`; tools/setup.sh installs it) as a test's
TURN server: run as a plain process of the test's `procs` group (stopped at teardown like every
peer; never the system service), on 127.0.0.1 and a free port, with the TURN REST API's shared
secret (`use-auth-secret` + `static-auth-secret`: draft-uberti-behave-turn-rest-00 §4.2),
plain UDP/TCP only (no TLS/DTLS listeners), allowed to relay to loopback peers (the relay under
test listens on 127.0.0.1). Command line only (`-n`: no /etc/turnserver.conf); its pid file and
user database live in the test's temporary directory, its log goes to stdout (the process log).

    turn = start_coturn(procs, tmp_path)
    turn.url                # "turn:127.0.0.1:PORT?transport=udp"
    turn.secret             # for the relay's ONAIR_TURN_SECRET
    turn.log()              # what coturn logged so far
"""

from __future__ import annotations

import os
import re
import secrets
import shutil
import socket
import struct
import time
from dataclasses import dataclass
from pathlib import Path

from harness import ManagedProcess, ProcessGroup, free_port

TURNSERVER = os.environ.get("ONAIR_TURNSERVER", "turnserver")
REALM = "onair.test"
MAGIC_COOKIE = 0x2112A442  # RFC 8489 §5


@dataclass
class Coturn:
    port: int
    secret: str
    process: ManagedProcess
    realm: str = REALM
    host: str = "127.0.0.1"

    @property
    def url(self) -> str:
        """The TURN URI (RFC 7065) for ONAIR_TURN_URLS."""
        return f"turn:{self.host}:{self.port}?transport=udp"

    @property
    def address(self) -> tuple[str, int]:
        return self.host, self.port

    def log(self) -> str:
        return self.process.log_text()

    def version(self) -> str:
        match = re.search(r"Version (Coturn-\S+)", self.log())
        return match.group(1) if match else "unknown"


def turnserver_binary() -> str:
    """The turnserver to run; fails (not skips) when coturn is missing: setup.sh installs it."""
    found = shutil.which(TURNSERVER)
    if not found:
        raise FileNotFoundError(f"{TURNSERVER} not found: apt-get install coturn (tools/setup.sh installs it), "
                                "or set ONAIR_TURNSERVER")
    return found


def start_coturn(procs: ProcessGroup, workdir: Path, timeout: float = 300) -> Coturn:
    """Starts coturn on 127.0.0.1 (a free port) with a fresh random secret and waits until it
    answers a STUN Binding request (RFC 8489 §6) on UDP."""
    binary = turnserver_binary()
    port = free_port(socket.SOCK_DGRAM)
    secret = secrets.token_urlsafe(24)
    state = workdir / "coturn"
    state.mkdir(exist_ok=True)
    argv = [binary, "-n", "--listening-ip=127.0.0.1", "--relay-ip=127.0.0.1", f"--listening-port={port}",
            f"--realm={REALM}", "--use-auth-secret", f"--static-auth-secret={secret}", "--fingerprint",
            "--no-tls", "--no-dtls", "--no-cli", "--allow-loopback-peers", "--no-multicast-peers",
            "--verbose", "--log-file=stdout", "--simple-log", f"--pidfile={state / 'turnserver.pid'}",
            f"--userdb={state / 'turndb'}"]
    process = procs.start("coturn", argv, timeout=timeout, cwd=str(state))
    turn = Coturn(port, secret, process)
    wait_for_stun(turn, 10)
    return turn


def wait_for_stun(turn: Coturn, timeout: float) -> None:
    """Sends STUN Binding requests until a Binding success response comes back."""
    deadline = time.monotonic() + timeout
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as sock:
        sock.settimeout(0.2)
        while True:
            if turn.process.poll() is not None:
                tail = "\n".join(turn.log().splitlines()[-30:])
                raise RuntimeError(f"coturn exited with {turn.process.returncode} at start:\n{tail}")
            transaction = os.urandom(12)
            sock.sendto(struct.pack("!HHI", 0x0001, 0, MAGIC_COOKIE) + transaction, turn.address)
            try:
                data, _ = sock.recvfrom(2048)
                if len(data) >= 20 and struct.unpack("!H", data[:2])[0] == 0x0101 and data[8:20] == transaction:
                    return
            except (socket.timeout, ConnectionRefusedError):
                pass
            if time.monotonic() > deadline:
                raise TimeoutError(f"coturn does not answer STUN on 127.0.0.1:{turn.port} after {timeout} s")
            time.sleep(0.05)
