"""Debian's coturn (`turnserver`, package `coturn`; tools/setup.sh installs it) as a test's
TURN server: run as a plain process of the test's `procs` group (stopped at teardown like every
peer; never the system service), on 127.0.0.1 and a free port, with the TURN REST API's shared
secret (`use-auth-secret` + `static-auth-secret`: draft-uberti-behave-turn-rest-00 §4.2),
plain UDP/TCP (no DTLS listener; a TLS listener with `tls=True`), allowed to relay to loopback
peers (the relay under test listens on 127.0.0.1). Command line only (`-n`: no
/etc/turnserver.conf); its pid file and user database live in the test's temporary directory,
its log goes to stdout (the process log).

With `tls=True` coturn also listens for TLS over TCP (`turns:`, RFC 8656 §3.1) on a port of its
own, with a server certificate for IP:127.0.0.1 signed by a throwaway CA (`make_test_pki`: the
openssl CLI, in the test's directory); `turn.ca_file` is that CA, `turn.other_ca_file` one that
signed nothing of coturn's.

    turn = start_coturn(procs, tmp_path)
    turn.url                # "turn:127.0.0.1:PORT?transport=udp"
    turn.secret             # for the relay's ONAIR_TURN_SECRET
    turn.log()              # what coturn logged so far
    turn = start_coturn(procs, tmp_path, tls=True)
    turn.tls_url            # "turns:127.0.0.1:TLS_PORT?transport=tcp"
"""

from __future__ import annotations

import os
import re
import secrets
import shutil
import socket
import struct
import subprocess
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
    tls_port: int | None = None
    ca_file: Path | None = None
    other_ca_file: Path | None = None

    @property
    def url(self) -> str:
        """The TURN URI (RFC 7065) for ONAIR_TURN_URLS."""
        return f"turn:{self.host}:{self.port}?transport=udp"

    @property
    def tls_url(self) -> str:
        """The `turns:` URI of the TLS listener (start_coturn(..., tls=True))."""
        assert self.tls_port, "coturn was started without TLS"
        return f"turns:{self.host}:{self.tls_port}?transport=tcp"

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


def start_coturn(procs: ProcessGroup, workdir: Path, timeout: float = 300, tls: bool = False) -> Coturn:
    """Starts coturn on 127.0.0.1 (a free port) with a fresh random secret and waits until it
    answers a STUN Binding request (RFC 8489 §6) on UDP (and, with `tls`, takes TCP connections
    on its TLS port)."""
    binary = turnserver_binary()
    port = free_port(socket.SOCK_DGRAM)
    secret = secrets.token_urlsafe(24)
    state = workdir / "coturn"
    state.mkdir(exist_ok=True)
    argv = [binary, "-n", "--listening-ip=127.0.0.1", "--relay-ip=127.0.0.1", f"--listening-port={port}",
            f"--realm={REALM}", "--use-auth-secret", f"--static-auth-secret={secret}", "--fingerprint",
            "--no-dtls", "--no-cli", "--allow-loopback-peers", "--no-multicast-peers",
            "--verbose", "--log-file=stdout", "--simple-log", f"--pidfile={state / 'turnserver.pid'}",
            f"--userdb={state / 'turndb'}"]
    tls_port = pki = None
    if tls:
        pki = make_test_pki(state / "pki")
        tls_port = free_port()
        argv += [f"--tls-listening-port={tls_port}", f"--cert={pki['cert']}", f"--pkey={pki['key']}", "--no-tlsv1",
                 "--no-tlsv1_1"]
    else:
        argv.append("--no-tls")
    process = procs.start("coturn", argv, timeout=timeout, cwd=str(state))
    turn = Coturn(port, secret, process, tls_port=tls_port, ca_file=pki and pki["ca"], other_ca_file=pki and pki["other_ca"])
    wait_for_stun(turn, 10)
    if tls_port:
        wait_for_tcp(turn, tls_port, 10)
    return turn


PKI_CONFIG = """[req]
distinguished_name = dn
prompt = no
[dn]
CN = unused
[ca]
basicConstraints = critical,CA:TRUE
keyUsage = critical,keyCertSign,cRLSign
subjectKeyIdentifier = hash
[server]
basicConstraints = CA:FALSE
extendedKeyUsage = serverAuth
subjectAltName = IP:{ip}
"""


def make_test_pki(directory: Path, ip: str = "127.0.0.1") -> dict[str, Path]:
    """A throwaway CA, a server certificate it signed for IP:`ip` (RFC 6125 §6) and a second CA
    that signed nothing, made by the openssl CLI in `directory`."""
    directory.mkdir(parents=True, exist_ok=True)
    config = directory / "pki.cnf"
    config.write_text(PKI_CONFIG.format(ip=ip))
    key = ["-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes"]

    def openssl(*args: str) -> None:
        subprocess.run(["openssl", *args], check=True, capture_output=True, cwd=directory)

    for name, subject in (("ca", "/CN=OnAir Test CA"), ("other-ca", "/CN=Other CA")):
        openssl("req", "-x509", "-config", str(config), "-extensions", "ca", *key, "-keyout", f"{name}.key",
                "-out", f"{name}.pem", "-subj", subject, "-days", "1")
    openssl("req", "-new", "-config", str(config), *key, "-keyout", "server.key", "-out", "server.csr", "-subj", "/CN=turn.test")
    openssl("x509", "-req", "-in", "server.csr", "-CA", "ca.pem", "-CAkey", "ca.key", "-CAcreateserial", "-out", "server.pem",
            "-days", "1", "-extfile", str(config), "-extensions", "server")
    return {"ca": directory / "ca.pem", "other_ca": directory / "other-ca.pem", "cert": directory / "server.pem",
            "key": directory / "server.key"}


def wait_for_tcp(turn: Coturn, port: int, timeout: float) -> None:
    """Connects until coturn's listener on `port` accepts."""
    deadline = time.monotonic() + timeout
    while True:
        try:
            socket.create_connection((turn.host, port), timeout=0.5).close()
            return
        except OSError:
            if turn.process.poll() is not None or time.monotonic() > deadline:
                raise TimeoutError(f"coturn does not accept TCP on 127.0.0.1:{port}:\n{turn.log()[-3000:]}")
            time.sleep(0.05)


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
